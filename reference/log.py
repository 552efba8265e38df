"""The replicated log held in memory, with its epoch -> start-offset cache.

Offsets are 0-based; the log end offset is the number of entries. The cache lists,
for each epoch present in the log, the offset of its first entry (Kafka's
leader-epoch checkpoint), so that divergence checks do not scan the log.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from reference.messages import Entry


class ReplicatedLog:
    """An append-only sequence of entries that may be truncated at its tail."""

    __slots__ = ("_epoch_starts", "_itf", "entries")

    def __init__(self, entries: Iterable[Entry] = ()) -> None:
        self.entries: list[Entry] = []
        self._epoch_starts: list[tuple[int, int]] = []
        self._itf: str | None = None
        self.append(entries)

    def itf(self) -> str:
        """The log as an ITF sequence (JSON text), cached until the log changes."""
        text = self._itf
        if text is None:
            text = self._itf = "[" + ", ".join([e.itf for e in self.entries]) + "]"
        return text

    def __len__(self) -> int:
        return len(self.entries)

    @property
    def end_offset(self) -> int:
        return len(self.entries)

    @property
    def last_epoch(self) -> int:
        """Epoch of the last entry, 0 for an empty log."""
        return self.entries[-1].epoch if self.entries else 0

    def epoch_at(self, offset: int) -> int:
        """Epoch of the entry at ``offset``."""
        return self.entries[offset].epoch

    def append(self, entries: Iterable[Entry]) -> None:
        self._itf = None
        for entry in entries:
            if self._epoch_starts and entry.epoch < self._epoch_starts[-1][0]:
                raise ValueError(
                    f"entry epoch {entry.epoch} below the log's last epoch "
                    f"{self._epoch_starts[-1][0]} at offset {len(self.entries)}"
                )
            if not self._epoch_starts or entry.epoch != self._epoch_starts[-1][0]:
                self._epoch_starts.append((entry.epoch, len(self.entries)))
            self.entries.append(entry)

    def truncate(self, end_offset: int) -> None:
        """Keep the entries below ``end_offset``."""
        if end_offset < 0:
            raise ValueError(f"negative truncation offset {end_offset}")
        if end_offset >= len(self.entries):
            return
        del self.entries[end_offset:]
        self._itf = None
        while self._epoch_starts and self._epoch_starts[-1][1] >= end_offset:
            self._epoch_starts.pop()

    def epoch_starts(self) -> Sequence[tuple[int, int]]:
        """The (epoch, start offset) cache, oldest epoch first."""
        return tuple(self._epoch_starts)

    def end_offset_for_epoch(self, epoch: int) -> tuple[int, int]:
        """The largest epoch ``<= epoch`` in the log and the end offset of its entries.

        The end offset is the number of entries of epochs ``<= epoch``. Returns ``(0, 0)``
        when the log holds no entry of such an epoch.
        """
        starts = self._epoch_starts
        for index in range(len(starts) - 1, -1, -1):
            found, _start = starts[index]
            if found <= epoch:
                end = starts[index + 1][1] if index + 1 < len(starts) else len(self.entries)
                return found, end
        return 0, 0

    def slice_from(self, offset: int, limit: int | None = None) -> tuple[Entry, ...]:
        """The entries from ``offset`` on, at most ``limit`` of them."""
        return tuple(self.entries[offset : None if limit is None else offset + limit])

    def is_up_to_date(self, last_epoch: int, end_offset: int) -> bool:
        """Whether a log ending at (``last_epoch``, ``end_offset``) is at least as
        up-to-date as this one (Raft's comparison: later last epoch, else longer)."""
        mine = self.last_epoch
        if last_epoch != mine:
            return last_epoch > mine
        return end_offset >= len(self.entries)
