"""Replicas' data folders on real files under the crash model, for the simulator.

Each replica gets a folder (under one temporary root per run) holding the real log,
quorum-state and meta.properties files, written by ``FileStorage`` through a
``RecordingFileSystem``. A step with durable effects opens a window (``begin_step``). At a crash
(``crash``) every explored crash state is written to a scratch folder and recovered by
``FileStorage`` from the real files, and the recovery is checked against what the replica had
acknowledged (``reference.crashfs.acknowledged``):

* crashes inside the last window (after each of its operations): the step's messages were
  not sent, so the acknowledgements from before the step must survive (less what the step
  truncated); the windows of steps that truncate the log are also explored as they end
  (``explore_step``), crash or not;
* a crash now (after the step's messages were sent): every acknowledgement must survive.

The run continues from one of the second kind, chosen with the run's own random stream (with
correct storage code nothing is pending then, so it is the durable state), recovered in the
replica's own folder at the restart.
"""

from __future__ import annotations

import contextlib
import logging
import os
import random
import shutil
import tempfile
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

from reference.core.messages import Entry, Message
from reference.core.quorum_state import QuorumState
from reference.crashfs.acknowledged import AcknowledgedState, Promise, broken_promises
from reference.crashfs.model import CrashModel, CrashState, Image, materialise
from reference.crashfs.recording import RecordingFileSystem
from reference.storage.base import StorageError
from reference.storage.file_storage import FileStorage
from reference.storage.filesystem import OsFileSystem


@contextlib.contextmanager
def _quiet_recovery() -> Iterator[None]:
    """Recovery's notes on cut tails are expected here by the thousand: keep them off stderr."""
    logger = logging.getLogger("reference.storage")
    level = logger.level
    logger.setLevel(logging.ERROR)
    try:
        yield
    finally:
        logger.setLevel(level)


# Subsets of the pending operations tried per crash point (all of them when there are fewer).
MAX_SUBSETS = 32


@dataclass(frozen=True)
class Problem:
    """An acknowledgement a crash state lost, a recovery that refused, or a log never held."""

    invariant: str
    detail: str


@dataclass
class CrashFigures:
    crash_points: int = 0  # places a crash was put (window operations and "now")
    crash_states: int = 0  # distinct disk images recovered and checked


class ReplicaDisk:
    """One replica's data folder; the storage the simulator's replica uses while it runs."""

    def __init__(self, owner: FileDisks, node_id: int, folder: Path, directory_id: int) -> None:
        self.owner = owner
        self.node_id = node_id
        self.folder = folder
        self.directory_id = directory_id
        folder.mkdir(parents=True)
        self.fs = RecordingFileSystem(folder)
        self.store: FileStorage | None = FileStorage(folder, node_id, owner.cluster_id, directory_id=directory_id,
                                                     fs=self.fs)
        self.fs.model.sync_all()  # formatting happens before the replica first starts
        self.fs.mark()
        self.acks = AcknowledgedState(self.store.read_log())
        self._window_promise = self.acks.promise
        self._window_ops: Sequence[tuple[str, object]] = ()
        self._explore_after = False

    # -- the storage interface of the simulator ---------------------------------------

    def _open(self) -> FileStorage:
        if self.store is None:
            raise StorageError(f"{self.folder}: the replica is down")
        return self.store

    def read_log(self) -> list[Entry]:
        return self._open().read_log()

    def read_quorum_state(self) -> QuorumState | None:
        return self._open().read_quorum_state()

    def append(self, entries: Sequence[Entry]) -> None:
        self._open().append(entries)

    def truncate(self, end_offset: int) -> None:
        self._open().truncate(end_offset)

    def flush(self) -> None:
        self._open().flush()

    def write_quorum_state(self, state: QuorumState) -> None:
        self._open().write_quorum_state(state)

    def has_unflushed(self) -> bool:
        """False: a clean stop writes the page cache back, so it loses nothing (see ``stop``)."""
        return False

    # -- the simulator's hooks -----------------------------------------------------------

    def begin_step(self, log_ops: Sequence[tuple[str, object]], writes_state: bool) -> None:
        """A step with durable effects is about to be persisted: open its window."""
        if log_ops or writes_state:
            self._new_window(log_ops)
            self._explore_after = any(op == "truncate" for op, _ in log_ops)

    def _new_window(self, log_ops: Sequence[tuple[str, object]] = ()) -> None:
        self.fs.mark()
        self._window_promise = self.acks.promise
        self._window_ops = tuple(log_ops)

    def after_step(self, log_ops: Sequence[tuple[str, object]], sent: Sequence[Message], role: str,
                   high_watermark: int) -> None:
        """The step's writes were persisted and its messages sent."""
        self.acks.apply_log_ops(log_ops)
        self.acks.after_send(self.node_id, sent, role, high_watermark)

    def explore_step(self) -> list[Problem]:
        """Check the crash points inside the step just persisted when it truncated the log (a rare
        step, which a crash seldom falls right after); the run goes on."""
        if not self._explore_after:
            return []
        self._explore_after = False
        problem = self._explore_window()
        return [] if problem is None else [problem]

    def _explore_window(self) -> Problem | None:
        """Every crash point inside the current window, against the acknowledgements from before
        its step (less what the step truncated)."""
        figures = self.owner.figures
        window_promise = self.acks.released(self._window_promise, self._window_ops)
        seen: set[object] = set()
        n = self.fs.window_length
        for k, model in self.fs.window_models():
            figures.crash_points += 1
            where = f"a crash after {k} of the {n} file operations of the replica's last step that wrote"
            problem = self._explore(model, window_promise, seen, where)
            if problem is not None:
                return problem
        return None

    def crash(self) -> list[Problem]:
        """Lose power: explore the crash states, check each, keep one for the restart."""
        store = self._open()
        store.close()
        self.store = None
        problem = self._explore_window()
        if problem is not None:
            return [problem]
        seen: set[object] = set()
        self.owner.figures.crash_points += 1
        model = self.fs.model
        states = model.crash_states(max_subsets=MAX_SUBSETS, rng=self.owner.rng)
        problem = self._explore(model, self.acks.promise, seen, "a crash after the replica's last step", states)
        if problem is not None:
            return [problem]
        chosen = self.owner.rng.choice(states)
        image = model.crash_image(chosen)
        self.fs.close_all()
        materialise(image, self.folder)
        model.restart(image)
        self._new_window()
        return []

    def _explore(self, model: CrashModel, promise: Promise, seen: set[object], where: str,
                 states: Sequence[CrashState] | None = None) -> Problem | None:
        figures = self.owner.figures
        for state in states if states is not None else model.crash_states(max_subsets=MAX_SUBSETS, rng=self.owner.rng):
            image = model.crash_image(state)
            key = image.key()
            if key in seen:
                continue
            seen.add(key)
            figures.crash_states += 1
            problems = self._recover_copy(image, promise)
            if problems:
                first = problems[0]
                how = model.describe_state(state)
                return Problem(first.invariant, f"{first.detail}; after {where}: {how}{self._keep(image)}")
        return None

    def _keep(self, image: Image) -> str:
        """Write a failing crash state where the user can examine it (``kraftcheck storage check``)."""
        if self.owner.keep_in is None:
            return ""
        folder = self.owner.keep_in / f"replica-{self.node_id}"
        materialise(image, folder)
        return f"; its files: {folder}"

    def _recover_copy(self, image: Image, promise: Promise) -> list[Problem]:
        scratch = self.owner.scratch
        materialise(image, scratch)  # the files of the last copy not in this one go
        fs = OsFileSystem(sync=False)
        try:
            with _quiet_recovery():
                store = FileStorage(scratch, self.node_id, self.owner.cluster_id, fs=fs)
        except StorageError as exc:
            return [Problem("RecoveryRefused", str(exc).replace(str(scratch), str(self.folder)))]
        finally:
            fs.close_all()
        try:
            return self._check(promise, store.read_log(), store.read_quorum_state())
        finally:
            store.close()

    def _check(self, promise: Promise, log: list[Entry], state: QuorumState | None) -> list[Problem]:
        return [Problem(name, detail) for name, detail in broken_promises(promise, self.acks.held, log, state)]

    def discard(self) -> None:
        """The disk is lost: its folder goes."""
        if self.store is not None:
            self.store.close()
            self.store = None
        self.fs.close_all()
        shutil.rmtree(self.folder, ignore_errors=True)

    def stop(self) -> None:
        """A clean stop: the files are closed and the page cache reaches the disk."""
        self._open().close()
        self.store = None
        self.fs.model.sync_all()
        self._new_window()

    def restart(self) -> list[Problem]:
        """Start again from the folder: recovery, then the acknowledgement checks."""
        try:
            with _quiet_recovery():
                self.store = FileStorage(self.folder, self.node_id, self.owner.cluster_id, fs=self.fs)
        except StorageError as exc:
            self.store = None
            return [Problem("RecoveryRefused", str(exc))]
        log = self.store.read_log()
        problems = self._check(self.acks.promise, log, self.store.read_quorum_state())
        self.acks.chains = []
        self.acks.apply_log_ops([("append", tuple(log))])
        self._new_window()  # recovery's own writes (a cut tail) are durable before it returns
        return problems


def _memory_backed_tmp() -> str | None:
    """``/dev/shm`` where it exists (renames there cost microseconds, not milliseconds: the
    crash model, not the disk, decides durability); else the default temporary folder."""
    shm = Path("/dev/shm")
    return str(shm) if shm.is_dir() and os.access(shm, os.W_OK) else None


class FileDisks:
    """The data folders of one simulated cluster (one temporary root, removed by ``close``)."""

    def __init__(self, cluster_id: str, seed: int, keep_in: Path | None = None) -> None:
        """``keep_in``: where a crash state that fails is written (None: nowhere)."""
        self.cluster_id = cluster_id
        self.keep_in = keep_in
        self.root = Path(tempfile.mkdtemp(prefix=f"kraftcheck-disks-{seed}-", dir=_memory_backed_tmp()))
        self.scratch = self.root / "scratch"
        self.rng = random.Random(f"disk-{seed}")
        self.figures = CrashFigures()
        self._incarnation = 0

    def new_disk(self, node_id: int, directory_id: int = 1) -> ReplicaDisk:
        """A freshly formatted folder (a first start, or a disk replaced after its loss)."""
        self._incarnation += 1
        return ReplicaDisk(self, node_id, self.root / f"replica-{node_id}-{self._incarnation}", directory_id)

    def close(self) -> None:
        shutil.rmtree(self.root, ignore_errors=True)
