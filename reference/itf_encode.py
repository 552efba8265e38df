"""Fast ITF (Apalache ADR-015) JSON encoding of the reference implementation's values.

Python values map to ITF as: ``int`` -> number, ``bool``, ``str``, ``tuple``/``list``
-> sequence (JSON array), ``frozenset``/``set`` -> ``{"#set": [...]}`` (sorted),
``dict`` -> ``{"#map": [[k, v], ...]}`` (sorted by key), ``Entry`` and ``Message`` ->
records (JSON objects). Encodings of entries and messages are cached: both are
immutable once built.
"""

from __future__ import annotations

import json
from typing import Any

from reference.messages import MESSAGE_FIELDS, Entry, Message

_BIG = 2**53

_entry_cache: dict[Entry, str] = {}


def encode_int(n: int) -> str:
    if -_BIG < n < _BIG:
        return str(n)
    return f'{{"#bigint": "{n}"}}'


def encode_entry(e: Entry) -> str:
    s = _entry_cache.get(e)
    if s is None:
        if len(_entry_cache) > 100_000:
            _entry_cache.clear()
        s = f'{{"epoch": {encode_int(e.epoch)}, "kind": {json.dumps(e.kind)}, "value": {encode_int(e.value)}}}'
        _entry_cache[e] = s
    return s


def encode_message(m: Message) -> str:
    s = m.encoded
    if s is None:
        parts = []
        for name in MESSAGE_FIELDS:
            parts.append(f'"{name}": {encode(getattr(m, name))}')
        s = "{" + ", ".join(parts) + "}"
        m.encoded = s
    return s


def encode(v: Any) -> str:
    """The ITF JSON text of a value."""
    t = type(v)
    if t is bool:
        return "true" if v else "false"
    if t is int:
        return encode_int(v)
    if t is str:
        return json.dumps(v)
    if t is Entry:
        return encode_entry(v)
    if t is Message:
        return encode_message(v)
    if t is tuple or t is list:
        return "[" + ", ".join(encode(x) for x in v) + "]"
    if t is frozenset or t is set:
        return '{"#set": [' + ", ".join(encode(x) for x in sorted(v)) + "]}"
    if t is dict:
        return '{"#map": [' + ", ".join(
            "[" + encode(k) + ", " + encode(v[k]) + "]" for k in sorted(v)
        ) + "]}"
    if v is None:
        return "null"
    raise TypeError(f"cannot ITF-encode a {t.__name__}: {v!r}")


def encode_record(fields: dict[str, Any]) -> str:
    """A record (JSON object) from field name -> value, in the given field order."""
    return "{" + ", ".join(f"{json.dumps(k)}: {encode(v)}" for k, v in fields.items()) + "}"
