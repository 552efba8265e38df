"""Fast ITF (Apalache ADR-015) JSON encoding of the reference implementation's values.

Python values map to ITF as: ``int`` -> number, ``bool``, ``str``, ``tuple``/``list``
-> sequence (JSON array), ``frozenset``/``set`` -> ``{"#set": [...]}`` (sorted),
``dict`` -> ``{"#map": [[k, v], ...]}`` (sorted by key), ``Entry`` and ``Message`` ->
records (JSON objects). Encodings of entries and messages are cached: both are
immutable once built.

A dynamic quorum's trace (KIP-853) has more message fields and entries with their voter set:
``encode_keyed_message`` caches that form of a message, and a set of messages (a leader's
pending voter changes) is encoded in the order of the messages' texts.
"""

from __future__ import annotations

import json
from typing import Any

from reference.core.log import ReplicatedLog
from reference.core.messages import Entry, Message

_BIG = 2**53

def encode_int(n: int) -> str:
    if -_BIG < n < _BIG:
        return str(n)
    return f'{{"#bigint": "{n}"}}'


def encode_str(s: str) -> str:
    if s.isascii() and s.isprintable() and '"' not in s and "\\" not in s:
        return '"' + s + '"'
    return json.dumps(s)


def encode_entry(e: Entry) -> str:
    return e.itf


def _kip595_fields(m: Message, records: str) -> str:
    """The text of the KIP-595 fields (``MESSAGE_FIELDS``, in that order), the records given."""
    return (
        f'"type": {encode_str(m.type)}, "source": {encode_int(m.source)}, "dest": {encode_int(m.dest)}, '
        f'"clusterId": {encode_str(m.clusterId)}, "epoch": {encode_int(m.epoch)}, '
        f'"leaderId": {encode_int(m.leaderId)}, "errorCode": {encode_str(m.errorCode)}, '
        f'"voteGranted": {"true" if m.voteGranted else "false"}, '
        f'"lastOffsetEpoch": {encode_int(m.lastOffsetEpoch)}, "lastOffset": {encode_int(m.lastOffset)}, '
        f'"preferredSuccessors": {_ints(m.preferredSuccessors)}, "fetchOffset": {encode_int(m.fetchOffset)}, '
        f'"lastFetchedEpoch": {encode_int(m.lastFetchedEpoch)}, "highWatermark": {encode_int(m.highWatermark)}, '
        f'"divergingEpoch": {encode_int(m.divergingEpoch)}, '
        f'"divergingEndOffset": {encode_int(m.divergingEndOffset)}, '
        f'"records": [{records}]'
    )


def encode_message(m: Message) -> str:
    """A KIP-595 message: the fields of ``MESSAGE_FIELDS`` (in that order). Cached in the message."""
    s = m.encoded
    if s is None:
        s = m.encoded = "{" + _kip595_fields(m, ", ".join([e.itf for e in m.records])) + "}"
    return s


def _ints(values: tuple[int, ...]) -> str:
    return "[" + ", ".join([encode_int(v) for v in values]) + "]"


def encode_keyed_message(m: Message) -> str:
    """A dynamic quorum's message: every field of ``RECONFIG_MESSAGE_FIELDS`` (in that order),
    entries with their voter set. Cached in the message, so later encodings give this form."""
    s = m.encoded
    if s is None:
        s = m.encoded = (
            "{" + _kip595_fields(m, ", ".join([e.itf_keyed for e in m.records]))
            + f', "sourceDirectoryId": {encode_int(m.sourceDirectoryId)}, "voterId": {encode_int(m.voterId)}, '
            f'"voterDirectoryId": {encode_int(m.voterDirectoryId)}}}'
        )
    return s


def encode(v: Any) -> str:
    """The ITF JSON text of a value."""
    t = type(v)
    if t is bool:
        return "true" if v else "false"
    if t is int:
        return encode_int(v)
    if t is str:
        return encode_str(v)
    if t is Entry:
        return v.itf
    if t is ReplicatedLog:
        return v.itf()
    if t is Message:
        return encode_message(v)
    if t is tuple or t is list:
        return "[" + ", ".join(encode(x) for x in v) + "]"
    if t is frozenset or t is set:
        if v and type(next(iter(v))) is Message:
            return '{"#set": [' + ", ".join(sorted(encode_message(x) for x in v)) + "]}"
        return '{"#set": [' + ", ".join(encode(x) for x in sorted(v)) + "]}"
    if t is Record:
        return encode_record(v)
    if t is dict:
        return '{"#map": [' + ", ".join(
            "[" + encode(k) + ", " + encode(v[k]) + "]" for k in sorted(v)
        ) + "]}"
    if v is None:
        return "null"
    raise TypeError(f"cannot ITF-encode a {t.__name__}: {v!r}")


class Record(dict[str, Any]):
    """A TLA+ record (a JSON object in ITF), not a function (``dict`` is ``#map``)."""


def encode_record(fields: dict[str, Any]) -> str:
    """A record (JSON object) from field name -> value, in the given field order."""
    return "{" + ", ".join([encode_str(k) + ": " + encode(v) for k, v in fields.items()]) + "}"
