"""Records and tuples: [a |-> e], [a : S], r.a, <<a, b>>, LAMBDA."""

from __future__ import annotations

from typing import Any

from conformance.tla import stdlib as L
from conformance.tla import syntax as S
from conformance.tla.semantics.compiled import (
    C,
    derived,
    located,
)
from conformance.tla.semantics.functions import (
    FunctionCompiler,
)
from conformance.tla.semantics.scope import (
    Scope,
)
from conformance.tla.semantics.support import (
    _FIELD_EXPR,
    fused,
)
from conformance.tla.syntax import EvalError, TlaError
from conformance.tla.values import (
    Fn,
)

_GENERATED_MAX = 64  # records and tuples up to this size are built by generated code


class RecordCompiler(FunctionCompiler):
    """Records and tuples: [a |-> e], [a : S], r.a, <<a, b>>, LAMBDA."""

    # records and tuples -----------------------------------------------------------------------

    def _c_RecordConstruct(self, node: S.RecordConstruct, scope: Scope) -> C:
        names = [n for n, _ in node.fields]
        parts = self.exprs([x for _, x in node.fields], scope)
        if len(names) <= _GENERATED_MAX and len(set(names)) == len(names) \
                and all(n.isidentifier() for n in names):
            # a dict display in generated code (fields read from the state or environment
            # and constants inline): no comprehension, no call per such field
            body = ", ".join(f"{n!r}: {{F{k}}}" for k, n in enumerate(names))
            ops = {f"F{k}": p for k, p in enumerate(parts)}
            return fused("rec", f"Fn({{{{{body}}}}})", ops, {}, *parts)
        fs = [p.fn for p in parts]
        pairs = list(zip(names, fs, strict=True))
        return derived(lambda s, t, e: Fn({n: f(s, t, e) for n, f in pairs}), *parts)

    def _c_RecordSet(self, node: S.RecordSet, scope: Scope) -> C:
        names = [n for n, _ in node.fields]
        parts = self.exprs([x for _, x in node.fields], scope)
        fs = [p.fn for p in parts]
        loc = node.loc

        def rs(s: Any, t: Any, e: tuple) -> Any:
            try:
                return L.record_set([(n, f(s, t, e)) for n, f in zip(names, fs, strict=True)])
            except TlaError as err:
                raise located(err, loc) from None

        return derived(rs, *parts)

    def _c_FieldAccess(self, node: S.FieldAccess, scope: Scope) -> C:
        r = self.expr(node.record, scope)
        name, loc = node.field, node.loc

        def slow(v: Any) -> Any:
            try:
                return L.field(v, name)
            except TlaError as err:
                raise located(err, loc) from None

        return fused("get", _FIELD_EXPR, {"R": r}, {"slow": slow, "name": name}, r)

    def _c_Tuple(self, node: S.Tuple, scope: Scope) -> C:
        parts = self.exprs(node.items, scope)
        fs = [p.fn for p in parts]
        if 0 < len(fs) <= _GENERATED_MAX:
            body = "".join(f"{{F{k}}}, " for k in range(len(fs)))
            ops = {f"F{k}": p for k, p in enumerate(parts)}
            return fused("tup", f"({body})", ops, {}, *parts)
        return derived(lambda s, t, e: tuple([f(s, t, e) for f in fs]), *parts)

    def _c_Lambda(self, node: S.Lambda, scope: Scope) -> C:
        raise EvalError("LAMBDA is only allowed as an operator argument", node.loc)
