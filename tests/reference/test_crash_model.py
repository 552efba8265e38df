"""The crash model against crash states enumerated by hand: small write / fsync / rename
sequences, the set of folder contents a crash may leave, and the window replay of a
recording file system on real files."""

from __future__ import annotations

from pathlib import Path

from reference.crashfs.model import (
    CrashModel,
    Image,
    Link,
    Rename,
    Truncate,
    Write,
    default_tears,
    materialise,
)
from reference.crashfs.recording import RecordingFileSystem
from reference.storage.filesystem import write_atomically


def _no_tears(size: int) -> list[int]:
    return []


def _every_tear(size: int) -> range:
    return range(1, size)


def _outcomes(model: CrashModel, tears=_no_tears) -> set[tuple[tuple[str, bytes], ...]]:  # type: ignore[no-untyped-def]
    return {model.crash_image(s).key() for s in model.crash_states(tears)}


def _files(**files: bytes) -> tuple[tuple[str, bytes], ...]:
    return tuple(sorted((name.replace("_", "."), data) for name, data in files.items()))


def _durable(**files: bytes) -> CrashModel:
    """A folder whose files are all durable."""
    links = {name.replace("_", "."): i for i, name in enumerate(files, 1)}
    return CrashModel(Image(links, {i: data for i, data in enumerate(files.values(), 1)}))


def test_synced_writes_survive_and_unsynced_ones_may_be_dropped_reordered_or_torn() -> None:
    m = _durable(f=b"ab")
    m.write("f", 2, b"cd")
    m.fsync("f")
    m.write("f", 4, b"ef")
    m.truncate("f", 1)
    assert m.pending == [Write(1, 4, b"ef"), Truncate(1, 1)]
    # by hand: {} abcd; {write} abcdef; {truncate} a; {write, truncate} a
    assert _outcomes(m) == {_files(f=b"abcd"), _files(f=b"abcdef"), _files(f=b"a")}
    # the kept write torn after 1 byte: cut short (abcde) or with a zero where its rest was
    assert _outcomes(m, _every_tear) == {_files(f=b"abcd"), _files(f=b"abcdef"), _files(f=b"a"),
                                         _files(f=b"abcde"), _files(f=b"abcde\0")}
    assert len(m.crash_states(_every_tear)) == 4 + 2 * 2  # two subsets hold the write, 1 tear x 2 kinds


def test_reordering_across_files_keeps_a_later_write_without_an_earlier_one() -> None:
    m = _durable(log=b"H", qs=b"1")
    m.write("log", 1, b"r")
    m.write("qs", 0, b"2")
    assert _outcomes(m) == {_files(log=b"H", qs=b"1"), _files(log=b"Hr", qs=b"1"),
                            _files(log=b"H", qs=b"2"), _files(log=b"Hr", qs=b"2")}  # not only prefixes


def test_write_temp_then_rename_leaves_the_old_or_the_new_content() -> None:
    m = _durable(qs=b"old")
    m.create("qs.tmp")
    m.write("qs.tmp", 0, b"new")
    m.fsync("qs.tmp")
    m.rename("qs.tmp", "qs")
    assert m.pending == [Link("qs.tmp", 2), Rename("qs.tmp", "qs")]  # the fsync made the data durable
    # by hand: {} old; {link} old + tmp; {rename} old (its source never reached the disk); both: new
    assert _outcomes(m, _every_tear) == {_files(qs=b"old"), _files(qs=b"old", qs_tmp=b"new"), _files(qs=b"new")}
    m.fsync_dir()
    assert m.pending == [] and _outcomes(m) == {_files(qs=b"new")}


def test_rename_without_fsync_of_the_temp_file_may_leave_an_empty_file() -> None:
    m = _durable(qs=b"old")
    m.create("qs.tmp")
    m.write("qs.tmp", 0, b"new")
    m.rename("qs.tmp", "qs")
    # by hand, over the 8 subsets of (link, write, rename): the data of an unlinked inode is lost
    assert _outcomes(m) == {_files(qs=b"old"), _files(qs=b"old", qs_tmp=b""), _files(qs=b"old", qs_tmp=b"new"),
                            _files(qs=b""), _files(qs=b"new")}
    torn = _outcomes(m, _every_tear) - _outcomes(m)
    assert torn == {_files(qs=b"n"), _files(qs=b"ne"), _files(qs=b"n\0\0"), _files(qs=b"ne\0"),
                    _files(qs=b"old", qs_tmp=b"n"), _files(qs=b"old", qs_tmp=b"ne"),
                    _files(qs=b"old", qs_tmp=b"n\0\0"), _files(qs=b"old", qs_tmp=b"ne\0")}


def test_fsync_of_a_new_file_does_not_make_its_name_durable() -> None:
    m = CrashModel()
    m.create("f")
    m.write("f", 0, b"x")
    m.fsync("f")
    assert _outcomes(m) == {(), _files(f=b"x")}
    m.fsync_dir()
    assert _outcomes(m) == {_files(f=b"x")}


def test_a_write_past_the_end_leaves_a_hole_of_zeros() -> None:
    m = _durable(f=b"ab")
    m.write("f", 2, b"c")
    m.write("f", 3, b"d")
    assert _files(f=b"ab\0d") in _outcomes(m)  # the second write without the first


def test_sampling_keeps_the_empty_and_the_full_subset() -> None:
    m = _durable(f=b"")
    for i in range(10):
        m.write("f", i, b"x")
    states = m.crash_states(_no_tears, max_subsets=8)
    assert len(states) == 8 and states[0].kept == () and states[-1].kept == tuple(range(10))


def test_default_tears() -> None:
    assert default_tears(1) == [] and default_tears(2) == [1] and default_tears(25) == [1, 12, 24]


def test_recording_file_system_replays_its_window_on_real_files(tmp_path: Path) -> None:
    fs = RecordingFileSystem(tmp_path)
    write_atomically(fs, tmp_path / "qs", b"old")
    fs.mark()
    write_atomically(fs, tmp_path / "qs", b"new")
    assert (tmp_path / "qs").read_bytes() == b"new" and not (tmp_path / "qs.tmp").exists()
    assert fs.window_length == 5  # create, write, fsync, rename, fsync of the folder
    seen = [(k, _outcomes(model)) for k, model in fs.window_models()]
    old, new, tmp_empty, tmp_new = _files(qs=b"old"), _files(qs=b"new"), _files(qs=b"old", qs_tmp=b""), _files(qs=b"old", qs_tmp=b"new")
    assert seen == [
        (0, {old}),
        (1, {old, tmp_empty}),  # created
        (2, {old, tmp_empty, tmp_new}),  # written, not synced
        (3, {old, tmp_new}),  # synced (no empty temp file any more), its name not yet
        (4, {old, tmp_new, new}),  # renamed
        (5, {new}),  # the folder synced
    ]
    # the crash state a run continues from can be written out and read back
    crashed = tmp_path / "crashed"
    model = dict(fs.window_models())[2]
    materialise(model.crash_image(model.crash_states(_no_tears)[-1]), crashed)
    assert sorted(p.name for p in crashed.iterdir()) == ["qs", "qs.tmp"] and (crashed / "qs").read_bytes() == b"old"
