"""``FileStorage`` under the crash model, without the simulator: for a few write sequences,
every crash point and every crash state is recovered from real files, and each recovery must
start (no refusal) with a log the storage held and the last quorum-state synced before it."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from reference.core.messages import DATA, LEADER_CHANGE, Entry
from reference.core.quorum_state import QuorumState
from reference.crashfs.acknowledged import chain_of
from reference.crashfs.model import materialise
from reference.crashfs.recording import RecordingFileSystem
from reference.storage.base import StorageError
from reference.storage.file_storage import FileStorage
from reference.storage.filesystem import OsFileSystem

A, B, C = Entry(1, LEADER_CHANGE, 1), Entry(1, DATA, 2), Entry(1, DATA, 3)
X, Y = Entry(2, LEADER_CHANGE, 2), Entry(2, DATA, 9)
EPOCH_1 = QuorumState(leader_id=1, leader_epoch=1, voted_id=1, current_voters=(1, 2, 3))
EPOCH_2 = QuorumState(leader_id=2, leader_epoch=2, voted_id=2, current_voters=(1, 2, 3))


def _crash_everywhere(tmp_path: Path, step: Callable[[FileStorage], None]) -> list[str]:
    """Write A, B, C in epoch 1 (durable), then run ``step`` in one window; recover every crash
    state of every crash point and return what went wrong."""
    folder = tmp_path / "replica"
    folder.mkdir()
    fs = RecordingFileSystem(folder)
    store = FileStorage(folder, 1, "c", fs=fs)
    store.write_quorum_state(EPOCH_1)
    store.append([A, B, C])
    store.flush()
    held = {chain_of([A, B, C][:n]) for n in range(4)}
    fs.mark()
    step(store)
    log = store.read_log()
    held |= {chain_of(log[:n]) for n in range(len(log) + 1)}
    store.close()
    problems: list[str] = []
    for k, model in fs.window_models():
        for state in model.crash_states():
            scratch = tmp_path / "scratch"
            materialise(model.crash_image(state), scratch)
            try:
                recovered = FileStorage(scratch, 1, "c", fs=OsFileSystem(sync=False))
            except StorageError as exc:
                problems.append(f"point {k}, {model.describe_state(state)}: refused: {exc}")
                continue
            entries = recovered.read_log()
            recovered.close()
            if chain_of(entries) not in held:
                problems.append(f"point {k}, {model.describe_state(state)}: log {entries} never held")
    return problems


def test_a_new_epoch_and_its_records(tmp_path: Path) -> None:
    def step(store: FileStorage) -> None:
        store.write_quorum_state(EPOCH_2)
        store.append([X, Y])
        store.flush()

    assert _crash_everywhere(tmp_path, step) == []


def test_a_truncation_and_the_records_written_in_its_place(tmp_path: Path) -> None:
    """A truncation must reach the disk before records are written where the cut ones were: a
    crash that kept the new records but not the cut would leave A, X, C, a log never held."""
    def step(store: FileStorage) -> None:
        store.write_quorum_state(EPOCH_2)
        store.truncate(1)
        store.append([X])
        store.flush()

    assert _crash_everywhere(tmp_path, step) == []


def test_formatting_and_the_first_records(tmp_path: Path) -> None:
    """A crash anywhere in a replica's first start (meta.properties, quorum-state, log file)."""
    folder = tmp_path / "replica"
    folder.mkdir()
    fs = RecordingFileSystem(folder)
    store = FileStorage(folder, 1, "c", fs=fs)
    store.write_quorum_state(EPOCH_1)
    store.append([A])
    store.flush()
    store.close()
    assert fs.window_length > 15
    for k, model in fs.window_models():
        for state in model.crash_states():
            scratch = tmp_path / "scratch"
            materialise(model.crash_image(state), scratch)
            recovered = FileStorage(scratch, 1, "c", fs=OsFileSystem(sync=False))  # never refuses
            assert recovered.read_log() in ([], [A]), (k, model.describe_state(state))
            recovered.close()


def test_a_truncation_alone(tmp_path: Path) -> None:
    def step(store: FileStorage) -> None:
        store.truncate(2)
        store.flush()

    assert _crash_everywhere(tmp_path, step) == []
