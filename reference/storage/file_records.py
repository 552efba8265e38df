"""The record format of the log file: an 8-byte header ``KRFTLOG1`` then records::

    crc32 (u32, over the rest of the record) | length (u32, bytes after this field) |
    epoch (i64) | kind (u8) | value (i64) [| VotersRecord body]

A data or leaderChange record has length 17 (``RECORD_SIZE`` bytes in all). A VotersRecord
(kind 2, KIP-853) adds ``kraft.version (u8) | count (u32) | count x (id i64, directory id i64)``:
the kraft.version the record was written under and its voter set. All integers are big-endian.

A record that is cut short or fails its checksum may be a torn tail (``reference.storage.recovery``
decides); a record with a valid checksum and an unknown kraft.version was written by a newer
version and is never cut off: it is a fatal error.
"""

from __future__ import annotations

import struct
import zlib
from typing import NamedTuple

from reference.core.messages import DATA, LEADER_CHANGE, VOTERS_RECORD, Entry
from reference.core.voter_set import DYNAMIC
from reference.storage.base import StorageError

MAGIC = b"KRFTLOG1"
_CRC = struct.Struct(">I")
_LENGTH = struct.Struct(">I")
_BODY = struct.Struct(">qBq")  # epoch, kind, value
_VOTERS = struct.Struct(">BI")  # kraft.version, number of voter keys
_KEY = struct.Struct(">qq")  # replica id, directory id
PAYLOAD_LENGTH = _BODY.size
RECORD_SIZE = _CRC.size + _LENGTH.size + _BODY.size  # a data or leaderChange record
_HEAD_SIZE = _CRC.size + _LENGTH.size
_MAX_LENGTH = _BODY.size + _VOTERS.size + _KEY.size * 65536
KIND_CODES = {DATA: 0, LEADER_CHANGE: 1, VOTERS_RECORD: 2}
KIND_NAMES = {code: name for name, code in KIND_CODES.items()}
# The kraft.versions a VotersRecord may be written under (kraft.version 0 has none).
VOTERS_RECORD_KRAFT_VERSIONS = (DYNAMIC,)


class Record(NamedTuple):
    """One record read at a byte offset: the entry, or None and what is wrong (``fatal``: a
    valid record this version cannot read, never a torn tail); ``size`` in bytes (0 if unknown)."""

    entry: Entry | None
    size: int
    problem: str = ""
    fatal: bool = False


def encode_record(entry: Entry, kraft_version: int = DYNAMIC) -> bytes:
    try:
        kind = KIND_CODES[entry.kind]
    except KeyError:
        raise StorageError(f"cannot encode entry kind {entry.kind!r}") from None
    body = _BODY.pack(entry.epoch, kind, entry.value)
    if entry.kind == VOTERS_RECORD:
        keys = sorted(entry.voters)
        body += _VOTERS.pack(kraft_version, len(keys)) + b"".join(_KEY.pack(*k) for k in keys)
    payload = _LENGTH.pack(len(body)) + body
    return _CRC.pack(zlib.crc32(payload)) + payload


def decode_record(data: bytes, offset: int) -> Record:
    """The record starting at ``offset`` of ``data`` (the whole file)."""
    left = len(data) - offset
    if left < _HEAD_SIZE:
        return Record(None, 0, f"cut short ({left} of at least {RECORD_SIZE} bytes)")
    (crc,) = _CRC.unpack_from(data, offset)
    (length,) = _LENGTH.unpack_from(data, offset + _CRC.size)
    if not PAYLOAD_LENGTH <= length <= _MAX_LENGTH:
        return Record(None, 0, f"has length {length} (expected {PAYLOAD_LENGTH} to {_MAX_LENGTH})")
    size = _HEAD_SIZE + length
    if left < size:
        return Record(None, 0, f"cut short ({left} of {size} bytes)")
    payload = data[offset + _CRC.size : offset + size]
    actual = zlib.crc32(payload)
    if actual != crc:
        return Record(None, size, f"fails its checksum (stored {crc:#010x}, computed {actual:#010x})")
    epoch, kind, value = _BODY.unpack_from(payload, _LENGTH.size)
    name = KIND_NAMES.get(kind)
    if name is None:
        return Record(None, size, f"has a valid checksum but kind {kind} (expected 0, 1 or 2)")
    if name != VOTERS_RECORD:
        if length != PAYLOAD_LENGTH:
            return Record(None, size, f"has a valid checksum but length {length} for kind {kind} (expected {PAYLOAD_LENGTH})")
        return Record(Entry(epoch, name, value), size)
    return _voters_record(payload, size, epoch, value)


def _voters_record(payload: bytes, size: int, epoch: int, value: int) -> Record:
    at = _LENGTH.size + _BODY.size
    if len(payload) < at + _VOTERS.size:
        return Record(None, size, "is a VotersRecord without its kraft.version and voter count")
    version, count = _VOTERS.unpack_from(payload, at)
    if version not in VOTERS_RECORD_KRAFT_VERSIONS:
        known = ", ".join(map(str, VOTERS_RECORD_KRAFT_VERSIONS))
        return Record(None, size, f"is a VotersRecord of unknown kraft.version {version} (known: {known}); "
                                  "it was written by a newer version", fatal=True)
    at += _VOTERS.size
    if len(payload) != at + count * _KEY.size:
        return Record(None, size, f"is a VotersRecord of {count} voters in {len(payload) - at} bytes "
                                  f"(expected {count * _KEY.size})")
    keys = frozenset(_KEY.unpack_from(payload, at + i * _KEY.size) for i in range(count))
    return Record(Entry(epoch, VOTERS_RECORD, value, keys), size)
