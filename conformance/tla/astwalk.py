"""Generic traversal of the engine's AST (``syntax.py`` dataclasses)."""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator
from typing import Any

from conformance.tla import syntax as S

_NODE_TYPES = (S.Expr, S.Bound, S.CaseArm, S.ExceptPath, S.ExceptUpdate, S.Unit)


def children(node: Any) -> Iterator[Any]:
    """The direct sub-nodes of an AST node (expressions, bounds, units ...)."""
    for f in dataclasses.fields(node):
        yield from _nodes_in(getattr(node, f.name))


def _nodes_in(value: Any) -> Iterator[Any]:
    if isinstance(value, _NODE_TYPES):
        yield value
    elif isinstance(value, tuple):
        for item in value:
            yield from _nodes_in(item)


def walk(node: Any) -> Iterator[Any]:
    """The node and all its descendants, pre-order."""
    stack = [node]
    while stack:
        n = stack.pop()
        yield n
        stack.extend(reversed(list(children(n))))
