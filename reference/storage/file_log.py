"""An append-only log file with a CRC32 per record (format in ``reference.storage.file_records``).

``flush`` fsyncs. On open the file is read by the rules of ``reference.storage.recovery``: the first
``acknowledged`` records (the quorum-state's ``AppliedOffset``) must be intact, or opening
raises ``StorageError`` naming the file and byte offset; a bad record after them is a torn,
unflushed tail, cut off with a warning.
"""

from __future__ import annotations

import logging
import os
from collections.abc import Sequence
from pathlib import Path

from reference.core.messages import Entry
from reference.storage.base import StorageError
from reference.storage.file_records import MAGIC, RECORD_SIZE, encode_record
from reference.storage.recovery import REJOIN_HINT, check_scanned_log, fatal_record, scan_log

__all__ = ["MAGIC", "RECORD_SIZE", "FileLog", "encode_record", "fsync_dir"]

log = logging.getLogger(__name__)


class FileLog:
    """The log file of one replica."""

    def __init__(self, path: Path | str, acknowledged: int = 0) -> None:
        self.path = Path(path)
        self._starts: list[int] = []  # byte offset of each record
        self._entries = self._recover(acknowledged)
        self._file = open(self.path, "r+b")  # noqa: SIM115 - held open for the log's lifetime
        self._end = self._file.seek(0, os.SEEK_END)
        self.flushed = len(self._entries)  # records known to be fsynced

    def _recover(self, acknowledged: int) -> list[Entry]:
        if not self.path.exists():
            if acknowledged:
                raise StorageError(f"{self.path}: missing; expected {acknowledged} flushed records {REJOIN_HINT}")
            self._create()
            return []
        data = self.path.read_bytes()
        scan = scan_log(data)
        fatal = fatal_record(self.path, scan)
        if fatal is not None:
            raise fatal
        self._starts = list(scan.starts)
        cut = check_scanned_log(self.path, data, scan, acknowledged)
        if cut is not None:
            log.warning("%s", cut)
            offset = scan.problem[0] if scan.problem is not None else 0
            if offset == 0:
                self._create()
            else:
                self._cut(offset)
        return scan.entries

    def _create(self) -> None:
        with open(self.path, "wb") as f:
            f.write(MAGIC)
            f.flush()
            os.fsync(f.fileno())
        fsync_dir(self.path.parent)

    def _cut(self, byte_offset: int) -> None:
        with open(self.path, "r+b") as f:
            f.truncate(byte_offset)
            f.flush()
            os.fsync(f.fileno())

    def read(self) -> list[Entry]:
        return list(self._entries)

    def append(self, entries: Sequence[Entry]) -> None:
        records = [encode_record(e) for e in entries]
        for record in records:
            self._starts.append(self._end)
            self._end += len(record)
        self._file.write(b"".join(records))
        self._entries.extend(entries)

    def truncate(self, end_offset: int) -> None:
        if end_offset < 0:
            raise StorageError(f"{self.path}: negative truncation offset {end_offset}")
        if end_offset >= len(self._entries):
            return
        self._file.flush()
        byte_offset = self._starts[end_offset]
        self._file.truncate(byte_offset)
        self._file.seek(byte_offset)
        self._end = byte_offset
        del self._entries[end_offset:]
        del self._starts[end_offset:]
        self.flushed = min(self.flushed, end_offset)

    def flush(self) -> None:
        """Write buffered records and fsync the file."""
        self._file.flush()
        os.fsync(self._file.fileno())
        self.flushed = len(self._entries)

    def close(self) -> None:
        self._file.close()


def fsync_dir(directory: Path) -> None:
    """Make a file's creation, rename or removal in ``directory`` durable."""
    fd = os.open(directory, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)
