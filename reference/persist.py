"""Applying a step's ``Ready`` to durable storage, in the order KIP-595 requires.

The quorum-state write first (atomic and durable), then the log operations and one fsync
(``flush``); only after this may the step's messages be sent. This order keeps the stored
epoch at least the epoch of every record on disk, which recovery checks.
"""

from __future__ import annotations

from typing import Protocol

from reference.messages import Entry
from reference.replica import Ready
from reference.storage import QuorumState, Storage


class _Writable(Protocol):
    def append(self, entries: tuple[Entry, ...]) -> None: ...

    def truncate(self, end_offset: int) -> None: ...

    def flush(self) -> None: ...

    def write_quorum_state(self, state: QuorumState) -> None: ...


def persist(storage: Storage | _Writable, ready: Ready) -> None:
    """Make the step's durable effects durable."""
    if ready.quorum_state is not None:
        storage.write_quorum_state(ready.quorum_state)
    for op, arg in ready.log_ops:
        if op == "append":
            assert isinstance(arg, tuple)
            storage.append(arg)
        elif op == "truncate":
            assert isinstance(arg, int)
            storage.truncate(arg)
        else:
            raise ValueError(f"unknown log operation {op!r}")
    if ready.log_ops:
        storage.flush()
