"""A FIFO queue of states that spills to disk (pickled chunks in a temporary folder)
once it holds more than a threshold of items in memory."""

from __future__ import annotations

import os
import pickle
import shutil
import tempfile
import uuid
import weakref
from collections import deque
from pathlib import Path
from typing import Any

_LIVE: dict[Path, int] = {}  # spill folders not yet removed -> the process that made them


def remove_spill_folders() -> None:
    """Remove every spill folder this process made and still holds (called when a check
    is stopped by a signal, whatever it was doing at that moment)."""
    for path, owner in list(_LIVE.items()):
        _remove_dir(path, owner)


class StateQueue:
    """FIFO queue. While pushing, the newest items are written to disk (in chunks of at
    least ``chunk_size``) as soon as more than ``memory_limit`` items are in memory; a
    chunk read back for popping adds at most one chunk, so memory holds at most about
    twice ``memory_limit`` items."""

    @classmethod
    def bounded(cls, memory_limit: int) -> StateQueue:
        """A queue bounded by ``memory_limit`` in-memory items."""
        return cls(memory_limit=max(1, memory_limit), chunk_size=max(1, memory_limit // 4))

    def __init__(self, memory_limit: int = 200_000, chunk_size: int = 20_000) -> None:
        if chunk_size <= 0 or memory_limit < chunk_size:
            raise ValueError("need 0 < chunk_size <= memory_limit")
        self._head: deque[Any] = deque()  # oldest items, being consumed
        self._chunks: deque[Path] = deque()  # spilled items, oldest chunk first
        self._tail: list[Any] = []  # newest items
        self._spilled = 0
        self._memory_limit = memory_limit
        self._chunk_size = chunk_size
        self._dir: Path | None = None
        self._counter = 0
        self.chunks_written = 0

    def __len__(self) -> int:
        return len(self._head) + self._spilled + len(self._tail)

    def push(self, item: Any) -> None:
        tail = self._tail
        tail.append(item)
        if len(tail) >= self._chunk_size and len(self._head) + len(tail) > self._memory_limit:
            self._spill()

    def pop(self) -> Any:
        """Remove and return the oldest item (IndexError when empty)."""
        if not self._head:
            self._refill()
        return self._head.popleft()

    def _spill(self) -> None:
        if self._dir is None:
            # Recorded before it exists, so that a stop signal (run in the main thread at any
            # bytecode, whichever thread received it) never leaves an unrecorded folder.
            path = Path(tempfile.gettempdir()) / f"kraftcheck-queue-{uuid.uuid4().hex}"
            _LIVE[path] = os.getpid()
            path.mkdir(mode=0o700)
            self._dir = path
            # Removed at the latest when the queue is collected or the interpreter exits,
            # and only by the process that made it (forked workers inherit the object).
            weakref.finalize(self, _remove_dir, path, os.getpid())
        path = self._dir / f"chunk{self._counter:08d}.pickle"
        self._counter += 1
        with path.open("wb") as fh:
            pickle.dump(self._tail, fh, protocol=pickle.HIGHEST_PROTOCOL)
        self._chunks.append(path)
        self._spilled += len(self._tail)
        self.chunks_written += 1
        self._tail = []

    def _refill(self) -> None:
        if self._chunks:
            path = self._chunks.popleft()
            with path.open("rb") as fh:
                items = pickle.load(fh)
            path.unlink()
            self._spilled -= len(items)
            self._head = deque(items)
        elif self._tail:
            self._head = deque(self._tail)
            self._tail = []
        else:
            raise IndexError("pop from an empty queue")

    def close(self) -> None:
        """Delete the spill folder (the queue is empty afterwards)."""
        self._head.clear()
        self._tail = []
        self._chunks.clear()
        self._spilled = 0
        if self._dir is not None:
            _remove_dir(self._dir, os.getpid())
            self._dir = None

    def __enter__(self) -> StateQueue:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def _remove_dir(path: Path, owner: int) -> None:
    if os.getpid() == owner:
        shutil.rmtree(path, ignore_errors=True)
        _LIVE.pop(path, None)
