"""Skip re-parsing the long arrays an event line repeats from an earlier line.

An event line carries the stepping replica's whole state, and a log only grows between
truncations, so most of a line's JSON text is the text of the same replica's log on its
previous line. ``ArrayReuse`` remembers, per (replica, variable), the exact text of long
arrays and their decoded values. On a later line it checks by string comparison that the
array starts with the remembered text, parses only the elements after it, and hands the
rest of the line to ``json.loads`` with the array replaced by a placeholder; the parsed
object then holds a ``Reused`` marker carrying the decoded value. Whenever a check fails
(another formatting, a truncated log, a key found at the wrong place) the line is parsed
whole, so the result never differs from ``json.loads``.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from conformance.validate.fast_decode import NeedsSlowPath, decode_fast

MIN_TEXT = 256  # arrays with shorter text are parsed with the rest of the line
_SCANNER = json.JSONDecoder()
_PLACEHOLDER_TEXT = '"\\u0000reused"'
_PLACEHOLDER = "\x00reused"
_REPLICA = re.compile(r'"replica"\s*:\s*(-?\d+)')
_STATE = re.compile(r'"state"\s*:\s*\{')
_WS = " \t\r\n"

Key = tuple[int, str]


def _same(obj: Any) -> Any:
    return obj


@dataclass(slots=True)
class Reused:
    """Stands in a parsed line for an array that was not parsed again."""

    value: Any
    text: str


def _skip_ws(text: str, i: int) -> int:
    while i < len(text) and text[i] in _WS:
        i += 1
    return i


def _value_start(text: str, name: str, start: int) -> int:
    """Where the value of the key ``name`` begins at or after ``start`` (-1 if not found)."""
    k = text.find(f'"{name}"', start)
    if k < 0:
        return -1
    i = _skip_ws(text, k + len(name) + 2)
    if i >= len(text) or text[i] != ":":
        return -1
    return _skip_ws(text, i + 1)


def _tail(text: str, i: int, empty: bool) -> tuple[list[Any], int] | None:
    """The array elements from ``i`` (just after the remembered ones) up to the closing
    bracket, and the index after it; None if the text does not continue an array there."""
    items: list[Any] = []
    first = empty
    while True:
        i = _skip_ws(text, i)
        if i >= len(text):
            return None
        if text[i] == "]":
            return items, i + 1
        if not first:
            if text[i] != ",":
                return None
            i = _skip_ws(text, i + 1)
        first = False
        try:
            item, i = _SCANNER.raw_decode(text, i)
        except json.JSONDecodeError:
            return None
        items.append(item)


class ArrayReuse:
    """Parses event lines, reusing the remembered long arrays of the replicas' states."""

    def __init__(self, prepare: Callable[[Any], Any] | None = None) -> None:
        self._known: dict[Key, tuple[str, Any]] = {}  # key -> (array text, decoded value)
        self._pending: dict[Key, str] = {}  # texts seen on the current line, value not yet known
        # applied to freshly parsed JSON before decoding (the reader's upgrade of old traces)
        self.prepare: Callable[[Any], Any] = prepare if prepare is not None else _same

    def loads(self, text: str) -> Any:
        """``json.loads(text)``, except that remembered arrays of the state are ``Reused``."""
        self._pending = {}
        m = _REPLICA.search(text)
        sm = _STATE.search(text)
        if m is None or sm is None:
            return json.loads(text)
        replica = int(m.group(1))
        state_at = sm.end()
        spans: list[tuple[int, int, str, Any]] = []
        for (r, name), (known, value) in self._known.items():
            if r != replica:
                continue
            p = _value_start(text, name, state_at)
            if p < 0 or not text.startswith(known[:-1], p):
                continue
            tail = _tail(text, p + len(known) - 1, known[:-1].rstrip(_WS) == "[")
            if tail is None:
                continue
            items, end = tail
            if items:
                try:
                    value = value + tuple([decode_fast(self.prepare(x)) for x in items])
                except (NeedsSlowPath, TypeError):
                    continue
            spans.append((p, end, name, value))
        obj = self._spliced(text, spans) if spans else None
        if obj is None:
            obj = json.loads(text)
        self._learn(text, obj, replica, state_at)
        return obj

    def _spliced(self, text: str, spans: list[tuple[int, int, str, Any]]) -> Any:
        spans.sort()
        parts: list[str] = []
        last = 0
        for p, end, _, _ in spans:
            if p < last:
                return None
            parts += [text[last:p], _PLACEHOLDER_TEXT]
            last = end
        parts.append(text[last:])
        try:
            obj = json.loads("".join(parts))
        except json.JSONDecodeError:
            return None
        state = obj.get("state") if type(obj) is dict else None
        if type(state) is not dict:
            return None
        for _, _, name, _ in spans:
            if state.get(name) != _PLACEHOLDER:
                return None
        for p, end, name, value in spans:
            state[name] = Reused(value, text[p:end])
        return obj

    def _learn(self, text: str, obj: Any, replica: int, state_at: int) -> None:
        """Note the exact text of the long arrays parsed afresh on this line."""
        state = obj.get("state") if type(obj) is dict else None
        if type(state) is not dict or obj.get("replica") != replica:
            return
        for name, raw in state.items():
            if type(raw) is Reused:
                self._pending[(replica, name)] = raw.text
                continue
            if type(raw) is not list or not raw:
                continue
            p = _value_start(text, name, state_at)
            if p < 0 or text[p] != "[":
                continue
            try:
                again, end = _SCANNER.raw_decode(text, p)
            except json.JSONDecodeError:
                continue
            if end - p >= MIN_TEXT and self.prepare(again) == raw:
                self._pending[(replica, name)] = text[p:end]

    def note(self, replica: int, values: dict[str, Any]) -> None:
        """The decoded values of the line just parsed (to be reused with their texts)."""
        for name, value in values.items():
            key = (replica, name)
            known = self._pending.get(key)
            if known is not None and type(value) is tuple:
                self._known[key] = (known, value)
            elif key in self._known:
                del self._known[key]
        self._pending = {}

    def forget(self, replica: int, name: str) -> None:
        """Drop what is remembered of a variable (its value changed on a line without its text)."""
        self._known.pop((replica, name), None)

    def adopt(self, replica: int, values: dict[str, Any]) -> None:
        """Replace remembered values by equal ones (the caller guarantees equality)."""
        for name, value in values.items():
            hit = self._known.get((replica, name))
            if hit is not None:
                self._known[(replica, name)] = (hit[0], value)

