"""Guard dispatch for disjunctions whose disjuncts open with ``x.f = <constant>``.

A disjunct ``D`` *opens with* the test ``x.f = c`` when it is a conjunction whose first
conjunct is that test (or ``c = x.f``), or is an application of a user operator whose
arguments are all plain bound variables or parameters and whose body opens with such a
test on one of its parameters. ``x`` is then a slot of the environment the disjunction is
evaluated in, and ``c`` a literal string or integer.

The disjuncts dispatched on are those testing one field of one slot against constants of
one kind (all strings or all integers). When ``x``'s value is a record (``Fn``) with field
``f`` whose value is of that kind, every such disjunct opening with a test ``x.f = c'``
for ``c' /= x.f`` is false before it assigns, enumerates or fails, so it can be left out:
the disjunction tries the other disjuncts only, in their original order (the successors,
their order and any error stay the same). A disjunct testing against a constant of the
other kind is never left out: ``"A" = 1`` fails in TLC (values.unequal_or_fail), and so
does the full evaluation of that disjunct. Any other value of ``x`` or ``x.f`` (a string
when the constants are integers, a boolean ...) takes the full path.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, TypeVar

from conformance.tla import syntax as S
from conformance.tla.compiler import Compiler, DefEntry, LocalDef, Scope, Slot
from conformance.tla.values import Fn

# (environment slot of x, field f, constant c)
Test = tuple[int, str, str | int]
B = TypeVar("B")

_MAX_DEPTH = 16  # operator applications followed when looking for a test
_MISSING: Any = object()


def _slot_of(node: S.Expr, scope: Scope) -> int | None:
    """The environment slot of ``node`` when it names a plain bound variable or parameter."""
    if isinstance(node, S.Name):
        local = scope.names.get(node.name)
        if type(local) is Slot:
            return local.index
    return None


def _literal(c: Compiler, node: S.Expr, scope: Scope) -> str | int | None:
    """The value of ``node`` when it is a string or integer literal."""
    if isinstance(node, (S.Str, S.Num)):
        v = c.expr(node, scope).value
        if type(v) is str or type(v) is int:
            return v
    return None


def leading_test(c: Compiler, node: S.Expr, scope: Scope, depth: int = 0) -> Test | None:
    """The test ``node`` opens with, in terms of ``scope``'s slots; None if there is none."""
    if depth > _MAX_DEPTH:
        return None
    if isinstance(node, S.And):
        return leading_test(c, node.items[0], scope, depth + 1) if node.items else None
    if not isinstance(node, S.OpApp):
        return None
    if node.name == "=" and len(node.args) == 2 and "=" not in scope.names \
            and "=" not in scope.ctx.names:
        for lhs, rhs in (node.args, node.args[::-1]):
            if isinstance(lhs, S.FieldAccess):
                slot = _slot_of(lhs.record, scope)
                if slot is not None:
                    value = _literal(c, rhs, scope)
                    if value is not None:
                        return slot, lhs.field, value
        return None
    return _test_through_call(c, node, scope, depth)


def _test_through_call(c: Compiler, node: S.OpApp, scope: Scope, depth: int) -> Test | None:
    """The test the body of the operator ``node`` applies opens with, mapped to the
    caller's slots through the arguments (each a plain bound variable or parameter)."""
    target: Any = scope.names.get(node.name) or scope.ctx.names.get(node.name)
    if not isinstance(target, (DefEntry, LocalDef)) or not isinstance(target.unit, S.OpDef):
        return None
    unit = target.unit
    if not node.args or len(unit.params) != len(node.args) \
            or any(p.arity for p in unit.params) or c.by_name(target, node.args):
        return None
    arg_slots = [_slot_of(a, scope) for a in node.args]
    if any(a is None for a in arg_slots):
        return None  # an argument that might fail to evaluate, or is passed lazily
    if isinstance(target, DefEntry):
        prefix, dscope = target.ctx.base, Scope(target.ctx, target.ctx.base)
    else:
        prefix, dscope = target.scope.depth, target.scope
    test = leading_test(c, unit.body, c._def_scope(unit, dscope), depth + 1)
    if test is None:
        return None
    slot, field, value = test
    if slot >= prefix:
        caller_slot = arg_slots[slot - prefix]
        assert caller_slot is not None
        return caller_slot, field, value
    if isinstance(target, LocalDef):
        return test  # a slot of the LET's scope, which the caller's environment shares
    return None


def dispatcher(tests: Sequence[Test | None], branches: Sequence[B]
               ) -> Callable[[tuple], Sequence[B]] | None:
    """``select(e)``: the branches to try in environment ``e`` (those whose test may
    hold, in order); None when no two branches test the same field of the same slot
    against constants of one kind."""
    groups: dict[tuple[int, str, type], list[int]] = {}
    for k, test in enumerate(tests):
        if test is not None:
            groups.setdefault((test[0], test[1], type(test[2])), []).append(k)
    if not groups:
        return None
    (slot, field, kind), members = max(groups.items(), key=lambda kv: len(kv[1]))
    if len(members) < 2:
        return None
    guarded = set(members)
    everything = tuple(branches)
    table: dict[Any, tuple[B, ...]] = {}  # constant -> branches
    for value in dict.fromkeys(tests[k][2] for k in members):  # type: ignore[index]
        table[value] = tuple(b for k, b in enumerate(branches)
                             if k not in guarded or tests[k][2] == value)  # type: ignore[index]
    unguarded = tuple(b for k, b in enumerate(branches) if k not in guarded)

    def select(e: tuple) -> Sequence[B]:
        x = e[slot]
        if type(x) is Fn:
            v = x.map.get(field, _MISSING)
            if type(v) is kind:  # a string or an integer, as the constants
                return table.get(v, unguarded)
        return everything

    return select


__all__ = ["Test", "dispatcher", "leading_test"]
