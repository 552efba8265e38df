"""An append-only log file with a CRC32 per record.

Layout: an 8-byte magic ``KRFTLOG1`` then fixed-size records::

    crc32 (u32, over the next 21 bytes) | length (u32, = 17) | epoch (i64) | kind (u8) | value (i64)

All integers are big-endian. ``flush`` fsyncs. On open, a partial or checksum-failing
*last* record is a torn tail: it is cut off (and logged). A checksum failure before the
last record is corruption and raises ``StorageError`` naming the file and byte offset.
"""

from __future__ import annotations

import logging
import os
import struct
import zlib
from collections.abc import Sequence
from pathlib import Path

from reference.core.messages import DATA, LEADER_CHANGE, Entry
from reference.storage.base import StorageError

MAGIC = b"KRFTLOG1"
_PAYLOAD = struct.Struct(">IqBq")  # length, epoch, kind, value
_CRC = struct.Struct(">I")
PAYLOAD_LENGTH = _PAYLOAD.size - 4
RECORD_SIZE = _CRC.size + _PAYLOAD.size
_KIND_CODES = {DATA: 0, LEADER_CHANGE: 1}
_KIND_NAMES = {code: name for name, code in _KIND_CODES.items()}

log = logging.getLogger(__name__)


def encode_record(entry: Entry) -> bytes:
    try:
        kind = _KIND_CODES[entry.kind]
    except KeyError:
        raise StorageError(f"cannot encode entry kind {entry.kind!r}") from None
    payload = _PAYLOAD.pack(PAYLOAD_LENGTH, entry.epoch, kind, entry.value)
    return _CRC.pack(zlib.crc32(payload)) + payload


def _decode_record(path: Path, offset: int, raw: bytes) -> Entry | None:
    """The entry in ``raw`` or ``None`` when its checksum fails."""
    (crc,) = _CRC.unpack_from(raw, 0)
    payload = raw[_CRC.size :]
    if zlib.crc32(payload) != crc:
        return None
    length, epoch, kind, value = _PAYLOAD.unpack(payload)
    if length != PAYLOAD_LENGTH or kind not in _KIND_NAMES:
        raise StorageError(
            f"{path}: byte {offset}: record with a valid checksum but length {length} / kind {kind}"
        )
    return Entry(epoch, _KIND_NAMES[kind], value)


class FileLog:
    """The log file of one replica."""

    def __init__(self, path: Path | str) -> None:
        self.path = Path(path)
        self._entries = self._recover()
        self._file = open(self.path, "r+b")  # noqa: SIM115 - held open for the log's lifetime
        self._file.seek(0, os.SEEK_END)

    def _recover(self) -> list[Entry]:
        if not self.path.exists():
            self._create()
            return []
        data = self.path.read_bytes()
        if len(data) < len(MAGIC):
            if MAGIC.startswith(data):
                log.warning("%s: torn file header (%d bytes), recreating an empty log", self.path, len(data))
                self._create()
                return []
            raise StorageError(f"{self.path}: byte 0: not a log file (bad magic)")
        if data[: len(MAGIC)] != MAGIC:
            raise StorageError(f"{self.path}: byte 0: not a log file (bad magic)")
        entries: list[Entry] = []
        offset = len(MAGIC)
        size = len(data)
        while offset < size:
            end = offset + RECORD_SIZE
            if end > size:
                log.warning("%s: byte %d: torn tail of %d bytes cut off", self.path, offset, size - offset)
                self._cut(offset)
                break
            entry = _decode_record(self.path, offset, data[offset:end])
            if entry is None:
                if end == size:
                    log.warning("%s: byte %d: last record fails its checksum, cut off", self.path, offset)
                    self._cut(offset)
                    break
                raise StorageError(
                    f"{self.path}: byte {offset}: record {len(entries)} fails its checksum "
                    f"and is not the last record (corruption)"
                )
            entries.append(entry)
            offset = end
        return entries

    def _create(self) -> None:
        with open(self.path, "wb") as f:
            f.write(MAGIC)
            f.flush()
            os.fsync(f.fileno())
        _fsync_dir(self.path.parent)

    def _cut(self, byte_offset: int) -> None:
        with open(self.path, "r+b") as f:
            f.truncate(byte_offset)
            f.flush()
            os.fsync(f.fileno())

    def read(self) -> list[Entry]:
        return list(self._entries)

    def append(self, entries: Sequence[Entry]) -> None:
        self._file.write(b"".join(encode_record(e) for e in entries))
        self._entries.extend(entries)

    def truncate(self, end_offset: int) -> None:
        if end_offset < 0:
            raise StorageError(f"{self.path}: negative truncation offset {end_offset}")
        if end_offset >= len(self._entries):
            return
        self._file.flush()
        byte_offset = len(MAGIC) + end_offset * RECORD_SIZE
        self._file.truncate(byte_offset)
        self._file.seek(byte_offset)
        del self._entries[end_offset:]

    def flush(self) -> None:
        """Write buffered records and fsync the file."""
        self._file.flush()
        os.fsync(self._file.fileno())

    def close(self) -> None:
        self._file.close()


def _fsync_dir(directory: Path) -> None:
    fd = os.open(directory, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)
