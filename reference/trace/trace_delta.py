"""The change of one variable between two events, as a trace's ``delta`` holds it (format 2).

Generic over the value's shape, so that a new variable needs no code here:

* a sequence (a log) -> ``{"#keep": k, "#append": [...]}``: keep the first ``k`` elements of
  the previous value, then append these (an append, a truncation, or both); the appended
  elements may be a reference (``{"#slice": ...}``) the writer gives;
* a function (a Python ``dict``) with the same domain -> ``{"#update": [[key, value], ...]}``
  with only the keys whose value changed;
* anything else -> the full new value (ITF);
* no entry at all when the value did not change.

The writer compares against ``snapshot``s of the previous values, because a replica's log
object is mutated in place.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from reference.core.log import ReplicatedLog
from reference.trace.itf_encode import encode


def snapshot(value: Any) -> Any:
    """A copy of ``value`` that later mutations of the replica do not reach (elements shared)."""
    t = type(value)
    if t is ReplicatedLog:
        return list(value.entries)
    if t is list or t is tuple:
        return list(value)
    if t is dict:
        return dict(value)
    if t is set:
        return frozenset(value)
    return value


def _common_prefix(prev: list[Any], cur: list[Any]) -> int:
    n = min(len(prev), len(cur))
    # the usual cases (no change, an append), compared element by element in C
    if len(prev) == len(cur):
        if prev == cur:
            return n
    elif (prev == cur[:n]) if n == len(prev) else (prev[:n] == cur):
        return n
    lo, hi = 0, n  # prev[:lo] == cur[:lo] and prev[:hi] != cur[:hi]
    while hi - lo > 1:
        mid = (lo + hi) // 2
        if prev[:mid] == cur[:mid]:
            lo = mid
        else:
            hi = mid
    return lo


SliceText = Callable[[Sequence[Any], int], str | None]


def delta_text(prev: Any, value: Any, slice_text: SliceText | None = None, cur: Any = None) -> str | None:
    """The ITF text of the change from ``prev`` (a snapshot) to ``value``, or None if equal.
    ``slice_text(items, offset)``: a reference to a logged sequence that holds the appended
    ``items`` at the same offset (``#slice``, format 3), or None to write them out. ``cur``:
    ``snapshot(value)`` when the caller has taken it already."""
    if cur is None:
        cur = snapshot(value)
    if type(prev) is list and type(cur) is list:
        keep = _common_prefix(prev, cur)
        if keep == len(prev) == len(cur):
            return None
        ref = slice_text(cur[keep:], keep) if slice_text is not None and len(cur) > keep else None
        if ref is not None:
            return '{"#keep": ' + str(keep) + ', "#append": ' + ref + "}"
        if type(value) is ReplicatedLog and value.keyed:  # a dynamic quorum's entries carry voters
            added = ", ".join([e.itf_keyed for e in cur[keep:]])
        else:
            added = ", ".join([encode(x) for x in cur[keep:]])
        return '{"#keep": ' + str(keep) + ', "#append": [' + added + "]}"
    if type(prev) is dict and type(cur) is dict and prev.keys() == cur.keys():
        changed = [k for k in sorted(cur) if cur[k] != prev[k]]
        if not changed:
            return None
        return '{"#update": [' + ", ".join("[" + encode(k) + ", " + encode(cur[k]) + "]" for k in changed) + "]}"
    if cur == prev:
        return None
    return encode(value)
