"""Fast ITF decoding for the trace reader, with the same results as ``conformance.tla.itf.decode``.

``decode_fast`` builds no error paths; on anything unusual it raises ``NeedsSlowPath`` and the
caller re-decodes with ``itf.decode``, which names the JSON path of the error.
``IncrementalDecoder`` reuses the previous decoding of a replica's variable when the JSON is
unchanged, or decodes only the new tail of a list that grew (a log only appends between
truncations), so that a trace's cost does not grow with the length of the logs it carries.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from sys import intern
from typing import Any

from conformance.tla.values import Value, make_fn


class NeedsSlowPath(Exception):
    """The value is not plain ITF; ``itf.decode`` decides (and reports the error, if any)."""


_SCALARS = (int, str, bool)
_INTERNED = 64  # strings up to this length are kept once per process when records are shared
_EMPTY_SET: frozenset[Value] = frozenset()
Tags = Mapping[str, Callable[[Any, str], Value]]  # a trace format's references (see itf.decode)


def _flat_set(v: Any) -> str | None:
    """A key part for an empty ITF set (the other values make a record not shared)."""
    return "#set:[]" if type(v) is dict and len(v) == 1 and v.get("#set") == [] else None


def decode_fast(obj: Any, shared: dict[Any, Value] | None = None, tags: Tags | None = None) -> Value:
    """The value of an ITF object. With ``shared``, records whose fields are all scalars (or
    empty sets) are decoded once per distinct content and shared (a log entry sent in many
    FetchResponses is one object): the key is the fields with their types, in written order.
    ``tags``: the single-key objects beyond ITF that stand for values (``itf.decode``)."""
    t = type(obj)
    if t is str and shared is not None and len(obj) <= _INTERNED:
        return intern(obj)
    if t is int or t is str or t is bool:
        return obj
    if t is list:
        return tuple([decode_fast(x, shared, tags) for x in obj])
    if t is dict and shared is not None:
        key = tuple([(k, type(v), v if type(v) in _SCALARS else _flat_set(v)) for k, v in obj.items()])
        if all(v is not None and k[:1] != "#" for k, _, v in key):
            hit = shared.get(key)
            if hit is None:
                hit = shared[key] = make_fn({intern(k): decode_fast(v, shared) if type(v) in _SCALARS else _EMPTY_SET
                                             for k, v in obj.items()})
            return hit
    if t is dict:
        if len(obj) == 1:
            ((key, inner),) = obj.items()
            if key[:1] == "#":
                if tags is not None and key in tags:
                    return tags[key](inner, key)
                if type(inner) is not list and key != "#bigint":
                    raise NeedsSlowPath
                if key == "#set":
                    elements = frozenset([decode_fast(x, shared, tags) for x in inner])
                    if len(elements) != len(inner):
                        raise NeedsSlowPath  # an element listed twice: itf.decode names the error
                    return elements
                if key == "#tup":
                    return tuple([decode_fast(x, shared, tags) for x in inner])
                if key == "#map":
                    pairs = {}
                    for pair in inner:
                        if type(pair) is not list or len(pair) != 2:
                            raise NeedsSlowPath
                        pairs[decode_fast(pair[0], shared, tags)] = decode_fast(pair[1], shared, tags)
                    if len(pairs) != len(inner):
                        raise NeedsSlowPath  # a key listed twice
                    return make_fn(pairs)
                raise NeedsSlowPath  # #bigint, #unserializable, unknown tags
        else:
            for key in obj:
                if key[:1] == "#":
                    raise NeedsSlowPath
        if shared is not None:  # field names once per process, not once per line
            return make_fn({intern(k): decode_fast(v, shared, tags) for k, v in obj.items()})
        return make_fn({k: decode_fast(v, shared, tags) for k, v in obj.items()})
    raise NeedsSlowPath


class IncrementalDecoder:
    """Decodes successive values of the same variable, reusing the previous result."""

    __slots__ = ("_last", "shared")

    def __init__(self) -> None:
        self._last: dict[Any, tuple[Any, Value]] = {}
        self.shared: dict[Any, Value] = {}  # the records decoded so far (see ``decode_fast``)

    def decode(self, key: Any, obj: Any) -> Value:
        prev = self._last.get(key)
        if prev is not None:
            raw, value = prev
            if raw == obj and type(raw) is type(obj):
                return value
            if type(obj) is list and type(raw) is list and len(obj) > len(raw) and obj[: len(raw)] == raw:
                value = value + tuple([decode_fast(x, self.shared) for x in obj[len(raw):]])  # type: ignore[operator]
                self._last[key] = (obj, value)
                return value
        value = decode_fast(obj, self.shared)
        self._last[key] = (obj, value)
        return value

    def adopt(self, key: Any, value: Value) -> None:
        """Replace the last decoded value of ``key`` by an equal one (the caller guarantees equality)."""
        prev = self._last.get(key)
        if prev is not None:
            self._last[key] = (prev[0], value)

    def forget(self, key: Any) -> None:
        """Drop what is remembered of ``key`` (its value was obtained another way)."""
        self._last.pop(key, None)
