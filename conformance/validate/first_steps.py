"""The first step at which each message entered a trace's network, in bounded memory.

A long trace sends hundreds of thousands of distinct messages, and the spec's network keeps
every one (any may be delivered again, at any later step). ``FirstSteps`` records them in a
dict; when it holds more than ``in_memory``, they all move to a private temporary SQLite
database (on disk, deleted when closed), as TLC moves its fingerprint set to disk, and the
dict starts again. The disk keys are an exact canonical encoding of the value
(``_Canonical``: injective, independent of set and record order, booleans never equal to
integers), so a lookup there is as exact as the dict's; the values are pickled beside them
for diagnostics.
"""

from __future__ import annotations

import pickle
from collections.abc import Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import sqlite3

from conformance.tla.values import Fn, ModelValue, Value

_MEMO = 4_096  # encodings of shared sub-values (log entries) remembered by identity
IN_MEMORY = 1 << 12  # the validator's default: messages of a trace's network kept in memory


class SpillError(RuntimeError):
    """The temporary database of spilled messages failed (e.g. no space left)."""


class _Canonical:
    """``encode(v)``: bytes that two values share exactly when they are the same TLA+ value."""

    def __init__(self) -> None:
        self._ids: dict[int, tuple[Any, bytes]] = {}  # id -> (value kept alive, encoding)

    def encode(self, v: Any) -> bytes:
        t = type(v)
        if t is bool:
            return b"T" if v else b"F"
        if t is int:
            return b"i%d;" % v
        if t is str:
            raw = v.encode("utf-8", "surrogatepass")
            return b"s%d:" % len(raw) + raw
        if t is ModelValue:
            raw = v.name.encode("utf-8", "surrogatepass")
            return b"m%d:" % len(raw) + raw
        hit = self._ids.get(id(v))
        if hit is not None and hit[0] is v:
            return hit[1]
        if t is tuple:
            out = b"(%d:" % len(v) + b"".join([self.encode(x) for x in v])
        elif t is frozenset:
            out = b"{%d:" % len(v) + b"".join(sorted([self.encode(x) for x in v]))
        elif t is Fn:
            # keys are self-delimiting, so a pair's bytes sort by its key
            out = b"[%d:" % len(v.map) + b"".join(sorted([self.encode(k) + self.encode(x) for k, x in v.map.items()]))
        else:
            raise TypeError(f"no canonical encoding for a {t.__name__}")
        if t is Fn:
            if len(self._ids) >= _MEMO:
                self._ids.clear()
            self._ids[id(v)] = (v, out)
        return out


class FirstSteps:
    """Value -> the first step it was recorded at; ``in_memory`` entries kept in memory."""

    def __init__(self, in_memory: int) -> None:
        if in_memory < 1:
            raise ValueError(f"in_memory must be at least 1, got {in_memory}")
        self._memory: dict[Value, int] = {}
        self._limit = in_memory
        self._db: sqlite3.Connection | None = None
        self._canonical = _Canonical()
        self.on_disk = 0  # entries moved to the database

    def __len__(self) -> int:
        return len(self._memory) + self.on_disk

    def get(self, v: Value) -> int | None:
        found = self._memory.get(v)
        if found is not None or self._db is None:
            return found
        try:
            key = self._canonical.encode(v)
        except TypeError:
            return None  # a value without an encoding is never moved to disk
        with _database_errors():
            row = self._db.execute("SELECT step FROM first WHERE key = ?", (key,)).fetchone()
        return None if row is None else int(row[0])

    def add(self, v: Value, step: int) -> None:
        """Record ``v`` at ``step`` unless it is recorded already."""
        if self.get(v) is not None:
            return
        self._memory[v] = step
        if len(self._memory) > self._limit:
            self._spill()

    def items(self) -> Iterator[tuple[Value, int]]:
        if self._db is not None:
            with _database_errors():
                rows = self._db.execute("SELECT value, step FROM first").fetchall()
            for value, step in rows:
                yield pickle.loads(value), int(step)
        yield from self._memory.items()

    def close(self) -> None:
        if self._db is not None:
            self._db.close()
            self._db = None

    def _spill(self) -> None:
        kept: dict[Value, int] = {}
        moved = 0

        def rows() -> Iterator[tuple[bytes, int, bytes]]:  # one at a time: no second copy in memory
            nonlocal moved
            for v, step in self._memory.items():
                try:
                    key = self._canonical.encode(v)
                except TypeError:
                    kept[v] = step
                    continue
                moved += 1
                yield key, step, pickle.dumps(v, pickle.HIGHEST_PROTOCOL)

        with _database_errors():
            if self._db is None:
                self._db = _open()
            self._db.executemany("INSERT OR IGNORE INTO first VALUES (?, ?, ?)", rows())
            self._db.commit()
        self.on_disk += moved
        self._memory = kept
        self._limit = max(self._limit, 2 * len(kept))  # values without an encoding stay; spill less often



@contextmanager
def _database_errors() -> Iterator[None]:
    """SQLite's errors as ``SpillError`` (sqlite3 is imported only once a trace spills)."""
    import sqlite3

    try:
        yield
    except sqlite3.Error as exc:
        raise SpillError(f"the temporary database of the trace's network failed: {exc}") from None


def _open() -> sqlite3.Connection:
    import sqlite3

    db = sqlite3.connect("")  # a private temporary database on disk, deleted when closed
    db.execute("PRAGMA journal_mode = OFF")
    db.execute("PRAGMA synchronous = OFF")
    db.execute("PRAGMA cache_size = -1024")  # KiB of page cache: the rest stays on disk
    db.execute("CREATE TABLE first (key BLOB PRIMARY KEY, step INTEGER NOT NULL, value BLOB NOT NULL) WITHOUT ROWID")
    return db
