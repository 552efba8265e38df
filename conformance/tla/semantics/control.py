"""Control: conjunction and disjunction lists, IF, CASE and LET."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from conformance.tla import syntax as S
from conformance.tla.semantics.builtins import (
    BuiltinCompiler,
)
from conformance.tla.semantics.compiled import (
    C,
    EvalFn,
    derived,
)
from conformance.tla.semantics.scope import (
    ConstLocal,
    Lazy,
    LazySlot,
    LocalDef,
    Scope,
    Thunk,
)
from conformance.tla.semantics.support import (
    _IF_EXPR,
    _lazy_builder,
    connective,
    fused,
)
from conformance.tla.syntax import EvalError, Loc, UnsupportedError


class ControlCompiler(BuiltinCompiler):
    """Control: conjunction and disjunction lists, IF, CASE and LET."""

    # boolean connectives --------------------------------------------------------------------

    def _b_and(self, args: Sequence[S.Expr], loc: Loc, scope: Scope) -> C:
        return self._c_And(S.And(loc, tuple(args)), scope)

    def _b_or(self, args: Sequence[S.Expr], loc: Loc, scope: Scope) -> C:
        return self._c_Or(S.Or(loc, tuple(args)), scope)

    def _c_And(self, node: S.And, scope: Scope) -> C:
        return self._connective(node, scope, "/\\", "and")

    def _c_Or(self, node: S.Or, scope: Scope) -> C:
        return self._connective(node, scope, "\\/", "or")

    def _connective(self, node: S.And | S.Or, scope: Scope, what: str, op: str) -> C:
        """A conjunction or disjunction list: its items checked to be booleans, evaluated
        left to right until one decides."""
        parts = self.exprs(node.items, scope)
        items = [self.checked(p, it.loc, what) for p, it in zip(parts, node.items, strict=True)]
        return connective(op, items, *parts)

    # control --------------------------------------------------------------------------------

    def _c_If(self, node: S.If, scope: Scope) -> C:
        c, a, b = self.expr(node.cond, scope), self.expr(node.then, scope), self.expr(node.else_, scope)
        return fused("if_", _IF_EXPR, {"C": self.checked(c, node.cond.loc, "IF"), "A": a, "B": b},
                     {}, c, a, b)

    def _c_Case(self, node: S.Case, scope: Scope) -> C:
        conds = [self.expr(arm.cond, scope) for arm in node.arms]
        vals = [self.expr(arm.value, scope) for arm in node.arms]
        other = self.expr(node.other, scope) if node.other is not None else None
        loc = node.loc
        operands: dict[str, C] = {}
        for k, (c, v, arm) in enumerate(zip(conds, vals, node.arms, strict=True)):
            operands[f"C{k}"] = self.checked(c, arm.cond.loc, "CASE")
            operands[f"V{k}"] = v
        if other is not None:
            operands["O"] = other

        def no_arm() -> Any:
            raise EvalError("no arm of CASE is true and there is no OTHER", loc)

        arms = "".join(f"{{V{k}}} if {{C{k}}} else " for k in range(len(conds)))
        last = "{O}" if other is not None else "§_none()"
        parts = conds + vals + ([other] if other is not None else [])
        return fused("case", f"({arms}{last})", operands, {"none": no_arm}, *parts)

    def let_scope(self, node: S.Let, scope: Scope, volatile: bool = False, init: bool = False
                  ) -> tuple[Scope, list[EvalFn], list[C]]:
        """The scope of a LET body and the builders of its environment's new slots.

        Each builder is called with ``(s, t, e)`` (``e`` the environment so far) and
        returns the slot's value (a ``Lazy``).
        """
        inner = scope
        builders: list[EvalFn] = []
        parts: list[C] = []
        for unit in node.defs:
            if isinstance(unit, S.Recursive):
                continue
            if isinstance(unit, S.OpDef) and not unit.params:
                body = self.expr(unit.body, inner)
                if body.constant:
                    inner = inner.with_local(unit.name, ConstLocal(body))
                    continue
                f = body.fn
                parts.append(body.below(scope.depth))
                # while an action is enumerated the partial state changes: no memo then
                # while an action is enumerated the partial state changes: no memo then
                memo = not (volatile and (body.vars if init else body.primed))
                builders.append(_lazy_builder(f, Lazy if memo else Thunk))
                inner = inner.with_local(unit.name, LazySlot(inner.depth, body, unit, inner),
                                         grow=1)
            elif isinstance(unit, (S.OpDef, S.FnDef)):
                d = LocalDef(unit, inner)
                inner = inner.with_local(unit.name, d)
                d.scope = inner  # recursive references see the definition itself
            else:
                raise UnsupportedError(f"unsupported LET definition {type(unit).__name__}",
                                       unit.loc)
        return inner, builders, parts

    def _c_Let(self, node: S.Let, scope: Scope) -> C:
        inner, builders, parts = self.let_scope(node, scope)
        body = self.expr(node.body, inner)
        fb = body.fn
        if not builders:
            return body
        lets = [body.below(scope.depth), *parts]
        if len(builders) == 1:
            (b0,) = builders
            return derived(lambda s, t, e: fb(s, t, (*e, b0(s, t, e))), *lets)

        def let(s: Any, t: Any, e: tuple) -> Any:
            for b in builders:
                e = (*e, b(s, t, e))
            return fb(s, t, e)

        return derived(let, *lets)
