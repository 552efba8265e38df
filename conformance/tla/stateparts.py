"""Conjuncts of state predicates (invariants) that remember where they held.

A conjunct that reads only the variables at known indices, and whose evaluations always
agree (no RandomElement, Print, ...), has the same value in every state that gives those
variables the same values. ``StatePart`` evaluates it once per such combination (while
its bounded memo keeps it) and tells when a state's variables are the very objects of a
state where it held already.
"""

from __future__ import annotations

from collections.abc import Callable
from operator import is_, itemgetter
from typing import Any

from conformance.tla.values import Value, same_value

_MISSING = object()


class StatePart:
    """One conjunct: ``part(state)`` is its value in ``state``."""

    __slots__ = ("_held", "_key", "_limit", "deps", "fn")

    def __init__(self, fn: Callable[[Any], Value], deps: tuple[int, ...] | None,
                 limit: int = 2_000) -> None:
        self.fn = fn
        self.deps = deps  # the indices of the variables it reads; None: unknown
        # the values of those variables (a tuple of them) in states where it held
        self._held: dict[Any, Any] = {}
        self._limit = limit
        self._key = None if not deps else itemgetter(*deps)

    def unchanged(self, state: Any, other: Any) -> bool:
        """Whether the variables it reads are the very same objects in both states."""
        key = self._key
        if key is None:
            return self.deps is not None  # it reads no variable at all
        if len(self.deps) == 1:  # type: ignore[arg-type]
            return key(state) is key(other)
        return all(map(is_, key(state), key(other)))

    def __call__(self, state: Any) -> Value:
        key = self._key
        if key is None:
            return self.fn(state)
        values = key(state)
        held = self._held
        seen = held.get(values, _MISSING)
        # a hit counts only for the same TLA+ values (Python: [a |-> FALSE] == [a |-> 0])
        if seen is not _MISSING and (seen is values or same_value(seen, values)):
            return True
        result = self.fn(state)
        if result is True:
            if len(held) >= self._limit:
                held.clear()
            held[values] = values
        return result
