"""An append-only log file with a CRC32 per record (format in ``reference.storage.file_records``).

All file operations go through a ``reference.storage.filesystem.FileSystem`` (the operating
system's by default). ``flush`` fsyncs, and so does ``truncate`` (see there). On open the file is read by the rules of ``reference.storage.recovery``: the first
``acknowledged`` records (the quorum-state's ``AppliedOffset``) must be intact, or opening
raises ``StorageError`` naming the file and byte offset; a bad record after them is a torn,
unflushed tail, cut off with a warning.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from pathlib import Path

from reference.core.messages import Entry
from reference.storage.base import StorageError
from reference.storage.file_records import MAGIC, RECORD_SIZE, encode_record
from reference.storage.filesystem import FileSystem, OsFileSystem
from reference.storage.recovery import REJOIN_HINT, check_scanned_log, fatal_record, scan_log

__all__ = ["MAGIC", "RECORD_SIZE", "FileLog", "encode_record", "fsync_dir"]

log = logging.getLogger(__name__)


class FileLog:
    """The log file of one replica."""

    def __init__(self, path: Path | str, acknowledged: int = 0, fs: FileSystem | None = None) -> None:
        self.path = Path(path)
        self.fs: FileSystem = fs if fs is not None else OsFileSystem()
        self._starts: list[int] = []  # byte offset of each record
        self._end = 0  # the file's length
        self._entries = self._recover(acknowledged)
        self.flushed = len(self._entries)  # records known to be fsynced

    def _recover(self, acknowledged: int) -> list[Entry]:
        data = self.fs.read(self.path)
        if data is None:
            if acknowledged:
                raise StorageError(f"{self.path}: missing; expected {acknowledged} flushed records {REJOIN_HINT}")
            self._create()
            return []
        self._end = len(data)
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
        self.fs.create(self.path)
        self.fs.write(self.path, 0, MAGIC)
        self.fs.fsync(self.path)
        self.fs.fsync_dir(self.path.parent)
        self._end = len(MAGIC)

    def _cut(self, byte_offset: int) -> None:
        self.fs.truncate(self.path, byte_offset)
        self.fs.fsync(self.path)
        self._end = byte_offset

    def read(self) -> list[Entry]:
        return list(self._entries)

    def append(self, entries: Sequence[Entry]) -> None:
        records = [encode_record(e) for e in entries]
        at = self._end
        for record in records:
            self._starts.append(self._end)
            self._end += len(record)
        if records:
            self.fs.write(self.path, at, b"".join(records))
        self._entries.extend(entries)

    def truncate(self, end_offset: int) -> None:
        if end_offset < 0:
            raise StorageError(f"{self.path}: negative truncation offset {end_offset}")
        if end_offset >= len(self._entries):
            return
        byte_offset = self._starts[end_offset]
        self.fs.truncate(self.path, byte_offset)
        # Durable before anything is written where the cut records were: a disk that kept a
        # later record but not the cut would mix the new records with the old ones after them.
        self.fs.fsync(self.path)
        self._end = byte_offset
        del self._entries[end_offset:]
        del self._starts[end_offset:]
        self.flushed = min(self.flushed, end_offset)

    def flush(self) -> None:
        """Make the written records durable (fsync)."""
        self.fs.fsync(self.path)
        self.flushed = len(self._entries)

    def close(self) -> None:
        self.fs.close(self.path)


def fsync_dir(directory: Path) -> None:
    """Make a file's creation, rename or removal in ``directory`` durable."""
    OsFileSystem().fsync_dir(directory)
