"""The record format of the log file: an 8-byte header ``KRFTLOG1`` then fixed-size records::

    crc32 (u32, over the next 21 bytes) | length (u32, = 17) | epoch (i64) | kind (u8) | value (i64)

All integers are big-endian.
"""

from __future__ import annotations

import struct
import zlib

from reference.messages import DATA, LEADER_CHANGE, Entry
from reference.storage import StorageError

MAGIC = b"KRFTLOG1"
_PAYLOAD = struct.Struct(">IqBq")  # length, epoch, kind, value
_CRC = struct.Struct(">I")
PAYLOAD_LENGTH = _PAYLOAD.size - 4
RECORD_SIZE = _CRC.size + _PAYLOAD.size
KIND_CODES = {DATA: 0, LEADER_CHANGE: 1}
KIND_NAMES = {code: name for name, code in KIND_CODES.items()}


def encode_record(entry: Entry) -> bytes:
    try:
        kind = KIND_CODES[entry.kind]
    except KeyError:
        raise StorageError(f"cannot encode entry kind {entry.kind!r}") from None
    payload = _PAYLOAD.pack(PAYLOAD_LENGTH, entry.epoch, kind, entry.value)
    return _CRC.pack(zlib.crc32(payload)) + payload


def decode_record(raw: bytes) -> tuple[Entry | None, str]:
    """The entry of one whole record, or None and what is wrong with it."""
    (crc,) = _CRC.unpack_from(raw, 0)
    payload = raw[_CRC.size :]
    actual = zlib.crc32(payload)
    if actual != crc:
        return None, f"fails its checksum (stored {crc:#010x}, computed {actual:#010x})"
    length, epoch, kind, value = _PAYLOAD.unpack(payload)
    if length != PAYLOAD_LENGTH or kind not in KIND_NAMES:
        return None, f"has a valid checksum but length {length} / kind {kind} (expected {PAYLOAD_LENGTH} / 0 or 1)"
    return Entry(epoch, KIND_NAMES[kind], value), ""
