"""The crash campaign of ``simulate --storage file``: seeded storage bugs (applied with
monkeypatch) are caught over a fixed seed range and the correct code is not flagged there;
file-storage runs trace exactly what memory-storage runs trace, and the traces are accepted."""

from __future__ import annotations

import zlib
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path

import pytest

from conformance.cli import main
from reference.core.replica import Ready
from reference.sim import simulator
from reference.sim.simulator import SimConfig, run_seed
from reference.storage import file_log, file_storage, quorum_state_file, recovery
from reference.storage.file_records import Record, decode_record
from reference.storage.filesystem import FileSystem
from reference.storage.persist import persist

SEEDS = range(1, 7)
CONFIG = SimConfig(storage="file", trace=False, steps=600)


def _first_failure(config: SimConfig = CONFIG) -> tuple[int, str, str] | None:
    """(seed, invariant, failure text) of the first failing seed of the range, or None."""
    for seed in SEEDS:
        result = run_seed(config, seed)
        if result.failures:
            failure = result.failures[0]
            return seed, failure.invariant, str(failure)
    return None


# -- the seeded bugs ------------------------------------------------------------------------

def _state_without_fsync(fs: FileSystem, path: Path, data: bytes) -> None:
    """(a) the quorum-state's temporary file is renamed over the file without an fsync."""
    tmp = path.with_name(path.name + ".tmp")
    fs.create(tmp)
    fs.write(tmp, 0, data)
    fs.rename(tmp, path)
    fs.fsync_dir(path.parent)


def _state_in_place(fs: FileSystem, path: Path, data: bytes) -> None:
    """(a) the quorum-state file is overwritten in place (no temporary file, no rename)."""
    fs.create(path)
    fs.write(path, 0, data)
    fs.fsync(path)


def _state_without_folder_fsync(fs: FileSystem, path: Path, data: bytes) -> None:
    """(a) the rename of the quorum-state's temporary file is not made durable."""
    tmp = path.with_name(path.name + ".tmp")
    fs.create(tmp)
    fs.write(tmp, 0, data)
    fs.fsync(tmp)
    fs.rename(tmp, path)


def _applied_offset_before_log_fsync(self: file_storage.FileStorage) -> None:
    """(b) the quorum-state's AppliedOffset is raised before the log's fsync."""
    end = len(self.read_log())
    if end != self._state.applied_offset:
        self._write_state(replace(self._state, applied_offset=end))
    self._log.flush()


def _truncate_keeping_applied_offset(self: file_storage.FileStorage, end_offset: int) -> None:
    """(b) a truncation does not lower AppliedOffset before records leave the file."""
    self._log.truncate(end_offset)


def _flush_without_fsync(self: file_log.FileLog) -> None:
    """(b) the log counts its records as flushed without an fsync."""
    self.flushed = len(self._entries)


def _persist_without_flush(storage: object, ready: Ready) -> None:
    """(b) a step's appended records are acknowledged before (here: without) their fsync."""
    class NoFlush:
        def __getattr__(self, name: str) -> object:
            return getattr(storage, name)

        def flush(self) -> None:
            pass

    persist(NoFlush(), ready)  # type: ignore[arg-type]


def _decode_ignoring_checksum(data: bytes, offset: int) -> Record:
    """(c) recovery reads a record whose checksum fails as if it were intact."""
    record = decode_record(data, offset)
    if not record.problem.startswith("fails its checksum"):
        return record
    payload = data[offset + 4: offset + record.size]
    fixed = data[:offset] + zlib.crc32(payload).to_bytes(4, "big") + data[offset + 4:]
    return decode_record(fixed, offset)


SEEDED: dict[str, tuple[object, str, Callable[..., object], set[str]]] = {
    "state-without-fsync": (quorum_state_file, "write_atomically", _state_without_fsync, {"RecoveryRefused"}),
    "state-in-place": (quorum_state_file, "write_atomically", _state_in_place, {"RecoveryRefused"}),
    "state-without-folder-fsync": (quorum_state_file, "write_atomically", _state_without_folder_fsync,
                                   {"RecoveryRefused", "AcknowledgedVoteLost", "AcknowledgedEpochLost"}),
    "applied-offset-before-log-fsync": (file_storage.FileStorage, "flush", _applied_offset_before_log_fsync,
                                        {"RecoveryRefused"}),
    "truncate-keeping-applied-offset": (file_storage.FileStorage, "truncate", _truncate_keeping_applied_offset,
                                        {"RecoveryRefused"}),
    "log-flush-without-fsync": (file_log.FileLog, "flush", _flush_without_fsync, {"RecoveryRefused"}),
    "ack-before-fsync": (simulator, "persist", _persist_without_flush, {"AcknowledgedEntryLost"}),
    "recovery-ignores-checksum": (recovery, "decode_record", _decode_ignoring_checksum, {"RecoveredLogNeverHeld", "RecoveryRefused"}),
}


def test_the_correct_storage_is_not_flagged() -> None:
    assert _first_failure() is None


@pytest.mark.parametrize("bug", sorted(SEEDED))
def test_a_seeded_storage_bug_is_caught(bug: str, monkeypatch: pytest.MonkeyPatch) -> None:
    where, name, patch, expected = SEEDED[bug]
    monkeypatch.setattr(where, name, patch)
    found = _first_failure()
    assert found is not None, f"{bug}: not caught in seeds {SEEDS.start}-{SEEDS.stop - 1}"
    seed, invariant, text = found
    assert invariant in expected, text
    assert "--storage file" in text and f"--seeds {seed}" in text  # the reproduction command


def test_file_storage_names_an_acknowledgement_before_its_fsync_first(monkeypatch: pytest.MonkeyPatch) -> None:
    """With crashes as the only fault, file storage names the lost acknowledgement at the
    first crash (seed 1); memory storage, whose crashes also fall inside a step's window,
    sees the bug only once the loss breaks a safety invariant, in a later seed."""
    monkeypatch.setattr(simulator, "persist", _persist_without_flush)
    crashes = frozenset({"crash"})
    on_files = _first_failure(SimConfig(storage="file", trace=False, steps=600, faults=crashes))
    assert on_files is not None and on_files[1] == "AcknowledgedEntryLost", on_files
    in_memory = _first_failure(SimConfig(trace=False, steps=600, faults=crashes))
    assert in_memory is None or (in_memory[1] != "AcknowledgedEntryLost" and in_memory[0] > on_files[0])


def test_a_refused_recovery_names_the_file_and_offset(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setattr(file_log.FileLog, "flush", _flush_without_fsync)
    found = _first_failure(SimConfig(storage="file", out_dir=tmp_path, steps=600))
    assert found is not None
    seed, _, text = found
    assert "00000000000000000000.log: byte " in text and "acknowledged records are lost" in text
    assert "after a crash after" in text and "lost [write 00000000000000000000.log" in text  # the crash state
    kept = tmp_path / f"seed-{seed}-crash-state"
    assert f"its files: {kept}" in text
    replica = next(kept.iterdir())
    assert main(["storage", "check", str(replica)]) == 1  # the kept files show the damage


def test_a_vote_lost_silently_is_caught_on_file_storage_only() -> None:
    """The bug switch vote-not-persisted: a restart forgets a granted vote; recovery succeeds,
    so only the acknowledgement check sees it (memory runs of these seeds pass)."""
    found = _first_failure(SimConfig(storage="file", trace=False, steps=600, bug="vote-not-persisted"))
    assert found is not None and found[1] == "AcknowledgedVoteLost", found
    assert _first_failure(SimConfig(trace=False, steps=600, bug="vote-not-persisted")) is None


@pytest.mark.parametrize("quorum", ["static", "dynamic"])
def test_file_storage_runs_trace_what_memory_runs_trace_and_validate(tmp_path: Path, quorum: str) -> None:
    memory, files = tmp_path / "memory", tmp_path / "file"
    for storage, out in (("memory", memory), ("file", files)):
        config = SimConfig(storage=storage, out_dir=out, steps=300, quorum=quorum,
                           faults=frozenset(simulator.parse_faults("crash,shutdown,loss,reorder,partition")))
        result = run_seed(config, 3)
        assert result.ok, result.failures
        if storage == "file":
            assert result.stats.crash_states > 0
    trace = "seed-3.ndjson"
    assert (memory / trace).read_text().splitlines()[1:] == (files / trace).read_text().splitlines()[1:]
    assert main(["validate", str(files), "--spec", str(Path(__file__).resolve().parents[2] / "spec" / "KRaft.tla")]) == 0


def test_simulate_command_with_file_storage(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["simulate", "--storage", "file", "--quorum", "static", "--seeds", "1-2", "--steps", "200",
                 "--out", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    assert "file (crash model)" in out and "crash points / crash states explored" in out
    assert sorted(p.name for p in tmp_path.iterdir()) == ["seed-1.ndjson", "seed-2.ndjson"]
    with pytest.raises(SystemExit) as exit_info:
        main(["simulate", "--storage", "disk"])
    assert exit_info.value.code == 2
