"""The modules the engine provides natively (never read from disk): their operators and
the modules each extends."""

from __future__ import annotations

from collections.abc import Iterable

from conformance.tla.community import MODULES
from conformance.tla.stdlib import BUILTIN_EXTENDS, BUILTIN_MODULES, StdOp

STANDARD: dict[str, dict[str, StdOp]] = {**BUILTIN_MODULES, **MODULES}
"""Operators of each standard module, by name."""

STANDARD_EXTENDS: dict[str, tuple[str, ...]] = {**BUILTIN_EXTENDS, **{m: () for m in MODULES}}
"""The modules a standard module itself extends (their operators come along)."""


def standard_closure(names: Iterable[str]) -> frozenset[str]:
    """The standard modules visible after extending ``names`` (transitively)."""
    seen: set[str] = set()
    todo = [n for n in names if n in STANDARD]
    while todo:
        n = todo.pop()
        if n not in seen:
            seen.add(n)
            todo.extend(STANDARD_EXTENDS[n])
    return frozenset(seen)
