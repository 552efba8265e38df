"""The durable-state interface of a replica, and the in-memory storage of the simulator.

A replica's durable state is its log and its quorum-state record (KIP-595's
quorum-state file). Log writes are buffered until ``flush`` (fsync); a crash loses
whatever was not flushed. A quorum-state write is atomic and durable when it returns.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

from reference.core.messages import Entry
from reference.core.quorum_state import QUORUM_STATE_DATA_VERSION, QuorumState

__all__ = ["QUORUM_STATE_DATA_VERSION", "MemoryStorage", "QuorumState", "Storage", "StorageError"]


class StorageError(Exception):
    """Durable state that cannot be used: names the file and, where known, the byte offset."""


class Storage(Protocol):
    """What the replica driver needs from durable storage."""

    node_id: int
    cluster_id: str

    def read_log(self) -> list[Entry]: ...

    def append(self, entries: Sequence[Entry]) -> None: ...

    def truncate(self, end_offset: int) -> None: ...

    def flush(self) -> None: ...

    def read_quorum_state(self) -> QuorumState | None: ...

    def write_quorum_state(self, state: QuorumState) -> None: ...


class MemoryStorage:
    """Storage held in memory with the crash semantics of a disk.

    Log operations are queued until ``flush``; ``crash`` drops the queue. The flushed
    log and the last quorum-state write survive a crash; ``lose_disk`` wipes both. A
    quorum-state write is durable at once, except one ``stage_quorum_state`` queues (a
    write whose fsync the caller postpones): ``flush`` makes it durable, ``crash`` drops it.
    """

    def __init__(self, node_id: int, cluster_id: str) -> None:
        self.node_id = node_id
        self.cluster_id = cluster_id
        self._durable: list[Entry] = []
        self._pending: list[tuple[str, int | tuple[Entry, ...]]] = []
        self._quorum_state: QuorumState | None = None
        self._staged_quorum_state: QuorumState | None = None
        self.flushes = 0

    def read_log(self) -> list[Entry]:
        if self._pending:
            raise StorageError(f"memory log of node {self.node_id}: read with unflushed writes")
        return list(self._durable)

    def append(self, entries: Sequence[Entry]) -> None:
        if entries:
            self._pending.append(("append", tuple(entries)))

    def truncate(self, end_offset: int) -> None:
        if end_offset < 0:
            raise StorageError(f"memory log of node {self.node_id}: negative truncation offset {end_offset}")
        self._pending.append(("truncate", end_offset))

    def flush(self) -> None:
        if self._staged_quorum_state is not None:
            self._quorum_state, self._staged_quorum_state = self._staged_quorum_state, None
        for _op, arg in self._pending:
            if isinstance(arg, int):
                del self._durable[arg:]
            else:
                self._durable.extend(arg)
        self._pending.clear()
        self.flushes += 1

    def read_quorum_state(self) -> QuorumState | None:
        return self._quorum_state

    def write_quorum_state(self, state: QuorumState) -> None:
        self._quorum_state = state
        self._staged_quorum_state = None

    def stage_quorum_state(self, state: QuorumState) -> None:
        """Write the quorum state without syncing it: durable at the next ``flush``."""
        self._staged_quorum_state = state

    def has_unflushed(self) -> bool:
        return bool(self._pending) or self._staged_quorum_state is not None

    def crash(self) -> None:
        """Lose every write that was not flushed."""
        self._pending.clear()
        self._staged_quorum_state = None

    def lose_disk(self) -> None:
        """Replace the disk by an empty one (same node id and cluster id)."""
        self._pending.clear()
        self._staged_quorum_state = None
        self._durable = []
        self._quorum_state = None
