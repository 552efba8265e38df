"""Set constructors: {a, b}, {x \\in S : P}, {e : x \\in S}, and range narrowing."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from conformance.tla import stdlib as L
from conformance.tla import syntax as S
from conformance.tla.semantics.compiled import (
    C,
    EvalFn,
    derived,
)
from conformance.tla.semantics.memo import (
    _FLIPPED,
    _mentions,
)
from conformance.tla.semantics.quantifiers import (
    QuantifierCompiler,
)
from conformance.tla.semantics.scope import (
    Scope,
)
from conformance.tla.semantics.support import fused
from conformance.tla.syntax import EvalError, TlaError
from conformance.tla.values import built_set


class SetCompiler(QuantifierCompiler):
    """Set constructors: {a, b}, {x \\in S : P}, {e : x \\in S}, and range narrowing."""

    # sets --------------------------------------------------------------------------------------

    def _c_SetEnum(self, node: S.SetEnum, scope: Scope) -> C:
        parts = self.exprs(node.items, scope)
        items = "".join(f"{{F{k}}}, " for k in range(len(parts)))
        return fused("setenum", f"§_built([{items}], §_loc)",
                     {f"F{k}": p for k, p in enumerate(parts)},
                     {"built": built_set, "loc": node.loc}, *parts)

    def _c_SetFilter(self, node: S.SetFilter, scope: Scope) -> C:
        b = node.bound
        d = self.expr(b.domain, scope)
        inner = scope.bind(*b.names)
        pred = self.expr(node.pred, inner)
        fp = self.boolean(pred, node.pred.loc, "set filter")
        fd = d.fn
        pattern, n, loc = b.tuple_pattern, len(b.names), b.loc
        if not pattern and n != 1:
            raise EvalError("a set filter binds one name or one tuple pattern", loc)

        def filt(s: Any, t: Any, e: tuple) -> Any:
            base = fd(s, t, e)
            if type(base) is L.LazySet:
                return L.LazySet(
                    f"{{x \\in {base.description} : ...}}",
                    lambda v: L.member(v, base) and fp(s, t, (*e, *(v if pattern else (v,)))),
                )
            if type(base) is not frozenset:
                raise EvalError(f"set filter over a non-set {L.show(base)}", loc)
            if pattern:
                return frozenset(v for v in base if type(v) is tuple and len(v) == n
                                 and fp(s, t, e + v))
            return frozenset([v for v in base if fp(s, t, (*e, v))])

        narrow = self.range_narrowing(b, node.pred, scope)
        elements = d.elements
        res = derived(filt, d, pred)
        if narrow is not None and elements is not None:

            def filt_range(s: Any, t: Any, e: tuple) -> Any:
                els = elements(s, t, e)
                if type(els) is range:
                    r = narrow(s, t, e, els)
                    if r is not None:
                        return frozenset([v for v in r if fp(s, t, (*e, v))])
                return filt(s, t, e)

            res.fn = filt_range
        res.envmin = min(d.envmin, pred.below(scope.depth).envmin)
        return res

    def range_narrowing(self, b: S.Bound, pred: S.Expr, scope: Scope
                        ) -> Callable[[Any, Any, tuple, range], range | None] | None:
        """For a predicate over ``x`` opening with comparisons ``x < E``, ``E <= x`` ... (E
        free of ``x``): a function narrowing an integer range of ``x`` to the values those
        comparisons accept, so that a loop skips the others without evaluating anything for
        them. It gives None (loop over everything) when some E is not an integer or fails to
        evaluate, which leaves errors to the plain loop."""
        if b.tuple_pattern or len(b.names) != 1 or not scope.ctx.std & {"Naturals", "Integers"}:
            return None
        x = b.names[0]
        cuts: list[tuple[str, EvalFn]] = []
        for item in pred.items if isinstance(pred, S.And) else (pred,):
            if not (isinstance(item, S.OpApp) and item.name in _FLIPPED and len(item.args) == 2
                    and self.lookup(item.name, scope) is None):
                break
            lhs, rhs = item.args
            if isinstance(lhs, S.Name) and lhs.name == x and not _mentions(rhs, x):
                op, other = item.name, rhs
            elif isinstance(rhs, S.Name) and rhs.name == x and not _mentions(lhs, x):
                op, other = _FLIPPED[item.name], lhs
            else:
                break
            c = self.expr(other, scope)
            if not c.pure or c.primed:
                break
            cuts.append((op, c.fn))
        if not cuts:
            return None

        def narrow(s: Any, t: Any, e: tuple, r: range) -> range | None:
            if r.step != 1 or not r:
                return r if r.step == 1 else None
            lo, hi = r.start, r.stop - 1
            for op, g in cuts:
                try:
                    v = g(s, t, e)
                except TlaError:
                    return None
                if type(v) is not int:
                    return None
                if op == ">":
                    lo = max(lo, v + 1)
                elif op == ">=":
                    lo = max(lo, v)
                elif op == "<":
                    hi = min(hi, v - 1)
                else:
                    hi = min(hi, v)
            return range(lo, hi + 1) if lo <= hi else range(0)

        return narrow

    def _c_SetMap(self, node: S.SetMap, scope: Scope) -> C:
        inner, expand, domains = self.bounds(node.bounds, scope)
        body = self.expr(node.expr, inner)
        fb = body.fn
        loc = node.loc
        if self._single_bound(node.bounds):
            df = self.domain_fn(domains[0], node.bounds[0].domain.loc)
            res = derived(lambda s, t, e: built_set([fb(s, t, (*e, v)) for v in df(s, t, e)], loc),
                          body, *domains)
        else:
            res = derived(lambda s, t, e: built_set([fb(s, t, e2) for e2 in expand(s, t, e)], loc),
                          body, *domains)
        res.envmin = min([d.envmin for d in domains] + [body.below(scope.depth).envmin])
        return res
