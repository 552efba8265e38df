"""Applying a step's ``Ready`` to durable storage, in the order KIP-595 requires.

The quorum-state write first (atomic and durable), then the log operations and one fsync
(``flush``); only after this may the step's messages be sent. This order keeps the stored
epoch at least the epoch of every record on disk, which recovery checks; it is the order of
``DurableFiles`` in ``spec/KRaft.tla``, and the names returned are the trace's ``writes``.
"""

from __future__ import annotations

from typing import Protocol

from reference.core.messages import Entry
from reference.core.replica import Ready
from reference.storage.base import MemoryStorage, QuorumState, Storage

QUORUM_STATE_FILE = "quorumState"
LOG_FILE = "log"


class _Writable(Protocol):
    def append(self, entries: tuple[Entry, ...]) -> None: ...

    def truncate(self, end_offset: int) -> None: ...

    def flush(self) -> None: ...

    def write_quorum_state(self, state: QuorumState) -> None: ...


def _apply_log_ops(storage: Storage | _Writable, ready: Ready) -> None:
    for op, arg in ready.log_ops:
        if op == "append":
            assert isinstance(arg, tuple)
            storage.append(arg)
        elif op == "truncate":
            assert isinstance(arg, int)
            storage.truncate(arg)
        else:
            raise ValueError(f"unknown log operation {op!r}")


_FILES = {(False, False): (), (True, False): (QUORUM_STATE_FILE,), (False, True): (LOG_FILE,),
          (True, True): (QUORUM_STATE_FILE, LOG_FILE)}


def durable_files(ready: Ready) -> tuple[str, ...]:
    """The files a step writes, in the order ``persist`` writes them."""
    return _FILES[ready.quorum_state is not None, bool(ready.log_ops)]


def persist(storage: Storage | _Writable, ready: Ready) -> tuple[str, ...]:
    """Make the step's durable effects durable; returns the files written, in order."""
    if ready.quorum_state is not None:
        storage.write_quorum_state(ready.quorum_state)
    _apply_log_ops(storage, ready)
    if ready.log_ops:
        storage.flush()
    return durable_files(ready)


def persist_until_crash(storage: MemoryStorage, ready: Ready) -> tuple[str, ...]:
    """The step's writes cut by a crash between them: the quorum-state write is durable, the
    log operations are applied but never synced (the crash that follows drops them). Returns
    the files made durable."""
    if ready.quorum_state is None:
        raise ValueError("a crash between two writes needs a quorum-state write")
    storage.write_quorum_state(ready.quorum_state)
    _apply_log_ops(storage, ready)
    return (QUORUM_STATE_FILE,)


def stage(storage: MemoryStorage, ready: Ready) -> tuple[str, ...]:
    """The step's writes without their fsync (bug ``respond-then-fsync``): durable only at
    the storage's next ``flush``, lost by a crash before it. Returns the files staged."""
    if ready.quorum_state is not None:
        storage.stage_quorum_state(ready.quorum_state)
    _apply_log_ops(storage, ready)
    return durable_files(ready)
