"""Action-level expressions evaluated as values: e', UNCHANGED, [A]_v, temporal
operators and fairness."""

from __future__ import annotations

from typing import Any

from conformance.tla import stdlib as L
from conformance.tla import syntax as S
from conformance.tla.semantics.compiled import (
    UNASSIGNED,
    C,
    derived,
    located,
)
from conformance.tla.semantics.records import (
    RecordCompiler,
)
from conformance.tla.semantics.scope import (
    Scope,
)
from conformance.tla.semantics.support import fused
from conformance.tla.syntax import EvalError, Loc, TlaError, UnsupportedError


class PrimeCompiler(RecordCompiler):
    """Action-level expressions evaluated as values: e', UNCHANGED, [A]_v, temporal"""

    # actions as expressions --------------------------------------------------------------------

    def _c_Prime(self, node: S.Prime, scope: Scope) -> C:
        inner = self.expr(node.expr, scope.primed_view())
        if inner.primed:
            raise EvalError("a primed expression inside a primed expression", node.loc)
        f = inner.fn
        loc = node.loc
        if not inner.vars:
            if inner.pure:
                return inner  # constant under prime
            return self._impure_primed(inner, loc)
        idx = tuple(sorted(inner.vars))
        names = self.var_names

        if inner.reads is not None and inner.reads[0] == "var":  # x' of a state variable x itself
            i = inner.reads[1]

            def unread(t: Any) -> Any:
                if t is None:
                    raise EvalError("a primed variable where no next state exists", loc)
                raise EvalError(f"{names[i]}' is used before it is assigned in this action", loc)

            res = fused("primed_var",
                        f"(§_v if t is not None and (§_v := t[{int(i)}]) is not §_U"
                        " else §_unread(t))", {}, {"U": UNASSIGNED, "unread": unread})
            res.primed, res.envmin, res.rec = True, inner.envmin, inner.rec
            res.pvars = frozenset(idx)
            return res

        def primed(s: Any, t: Any, e: tuple) -> Any:
            if t is None:
                raise EvalError("a primed expression where no next state exists", loc)
            for i in idx:
                if t[i] is UNASSIGNED:
                    raise EvalError(
                        f"{names[i]}' is used before it is assigned in this action", loc)
            return f(t, None, e)

        return C(primed, primed=True, envmin=inner.envmin, pure=inner.pure, rec=inner.rec,
                 pvars=frozenset(idx))

    @staticmethod
    def _impure_primed(inner: C, loc: Loc) -> C:
        """``e'`` for an ``e`` that reads no variable but may read the state it is read in
        (``TLCGet("level")'``: the next state's level): ``e`` read in the next state."""
        f = inner.fn

        def primed(s: Any, t: Any, e: tuple) -> Any:
            if t is None:
                raise EvalError("a primed expression where no next state exists", loc)
            return f(t, None, e)

        return C(primed, primed=True, envmin=inner.envmin, pure=False, rec=inner.rec)

    def _c_Unchanged(self, node: S.Unchanged, scope: Scope) -> C:
        return self._c_Prime_eq(node.expr, node.loc, scope)

    def _c_Prime_eq(self, expr: S.Expr, loc: Loc, scope: Scope) -> C:
        now = self.expr(expr, scope)
        nxt = self.expr(S.Prime(loc, expr), scope)
        fa, fb = now.fn, nxt.fn
        eq = L.values_equal

        def unchanged(s: Any, t: Any, e: tuple) -> bool:
            try:
                return eq(fa(s, t, e), fb(s, t, e))
            except TlaError as err:  # values TLC cannot compare
                raise located(err, loc) from None

        return derived(unchanged, now, nxt)

    def _c_ActionBox(self, node: S.ActionBox, scope: Scope) -> C:
        a = self.expr(node.action, scope)
        same = self._c_Prime_eq(node.sub, node.loc, scope)
        fa = self.boolean(a, node.action.loc, "action")
        fs = same.fn
        if node.box:
            return derived(lambda s, t, e: fa(s, t, e) or fs(s, t, e), a, same)
        return derived(lambda s, t, e: fa(s, t, e) and not fs(s, t, e), a, same)

    def _c_Temporal(self, node: S.Temporal, scope: Scope) -> C:
        if node.op == "ENABLED" and self.enabled is not None and len(node.args) == 1:
            # ENABLED A: A has a successor from the current state (A is enumerated as an
            # action; the result depends on every variable, so it is never cached)
            return C(self.enabled(node.args[0], scope), vars=frozenset(range(len(self.var_names))),
                     envmin=0, boolean=True)
        return self.raiser(UnsupportedError(
            f"the temporal operator {node.op} cannot be evaluated on a state", node.loc))

    def _c_Fairness(self, node: S.Fairness, scope: Scope) -> C:
        return self.raiser(UnsupportedError(
            f"the fairness condition {node.kind}_ cannot be evaluated on a state", node.loc))
