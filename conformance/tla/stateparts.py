"""Conjuncts of state predicates (invariants, constraints) that remember their values.

A conjunct that reads only the variables at known indices, and whose evaluations always
agree (no RandomElement, Print, ...), has the same value in every state that gives those
variables the same values. ``StatePart`` evaluates it once per such combination (while
its bounded memo keeps it) and tells when a state's variables are the very objects of a
state where it held already. The exhaustive search gives equal values one object
(``Fingerprinter.canonical``), so most states are recognised by the ids of their objects,
without hashing or comparing the values. ``StateTest`` (a CONSTRAINT's conjunct) also
remembers where it was FALSE.
"""

from __future__ import annotations

from collections.abc import Callable
from operator import is_, itemgetter
from typing import Any

from conformance.tla.values import same_value


class StatePart:
    """One conjunct: ``part(state)`` is its value in ``state``."""

    __slots__ = ("_by_id", "_held", "_ids", "_key", "_limit", "deps", "fn")

    def __init__(self, fn: Callable[[Any], Any], deps: tuple[int, ...] | None,
                 limit: int = 1 << 16) -> None:
        self.fn = fn
        self.deps = deps  # the indices of the variables it reads; None: unknown
        # the values of those variables (a tuple of them) with its value where it held
        # (or, ``_KEEPS_FALSE``, failed): by value, and by the ids of the very objects (the
        # entry keeps them alive, so their ids are not reused)
        self._held: dict[Any, Any] = {}
        self._by_id: dict[Any, Any] = {}
        self._limit = limit
        self._key = None if not deps else itemgetter(*deps)
        self._ids = id if deps is not None and len(deps) == 1 else _ids

    def unchanged(self, state: Any, other: Any) -> bool:
        """Whether the variables it reads are the very same objects in both states."""
        key = self._key
        if key is None:
            return self.deps is not None  # it reads no variable at all
        if len(self.deps) == 1:  # type: ignore[arg-type]
            return key(state) is key(other)
        return all(map(is_, key(state), key(other)))

    # whether a FALSE is remembered too (an invariant's FALSE ends the search: only TRUE)
    _KEEPS_FALSE = False

    def __call__(self, state: Any) -> Any:
        key = self._key
        if key is None:
            return self.fn(state)
        values = key(state)
        ids = self._ids(values)
        by_id = self._by_id
        hit = by_id.get(ids)
        if hit is not None:
            return hit[1]
        held = self._held
        seen = held.get(values)
        # a hit counts only for the same TLA+ values (Python: [a |-> FALSE] == [a |-> 0])
        if seen is not None and (seen[0] is values or same_value(seen[0], values)):
            result: Any = seen[1]
        else:
            result = self.fn(state)
            if result is not True and not (result is False and self._KEEPS_FALSE):
                return result
            if len(held) >= self._limit:
                held.clear()
            held[values] = (values, result)
        if len(by_id) >= self._limit:
            by_id.clear()
        by_id[ids] = (values, result)  # (keeps the objects alive: their ids are not reused)
        return result


def _ids(values: tuple[Any, ...]) -> tuple[int, ...]:
    return tuple(map(id, values))


class StateTest(StatePart):
    """A conjunct that remembers its boolean value, TRUE or FALSE, per combination of the
    values of its variables (a CONSTRAINT's: most successors keep the values that decided
    it in their parent, or in another state met before)."""

    __slots__ = ()
    _KEEPS_FALSE = True


class StepPart:
    """An action-level formula (the ``A`` of a ``[][A]_v`` property) remembering its value
    per objects of the variables it reads in the current state (``before``) and in the
    next (``after``): steps that share those objects (the search makes equal values one
    object) give it the same value. An entry keeps its objects alive, so their ids are
    not reused while it is stored."""

    __slots__ = ("_after", "_before", "_limit", "_memo", "fn")

    def __init__(self, fn: Callable[[Any, Any], Any], before: tuple[int, ...],
                 after: tuple[int, ...], limit: int = 1 << 14) -> None:
        self.fn = fn
        self._before = _tuple_getter(before)
        self._after = _tuple_getter(after)
        self._memo: dict[tuple[int, ...], tuple[tuple[Any, ...], Any]] = {}
        self._limit = limit

    def __call__(self, s: Any, t: Any) -> Any:
        objects = self._before(s) + self._after(t)
        key = tuple(map(id, objects))
        memo = self._memo
        hit = memo.get(key)
        if hit is not None:
            return hit[1]
        value = self.fn(s, t)
        if len(memo) >= self._limit:
            memo.clear()
        memo[key] = (objects, value)
        return value


def _tuple_getter(idx: tuple[int, ...]) -> Callable[[Any], tuple[Any, ...]]:
    """``state -> tuple(state[i] for i in idx)``."""
    if len(idx) > 1:
        return itemgetter(*idx)
    if idx:
        i = idx[0]
        return lambda state: (state[i],)
    return lambda state: ()
