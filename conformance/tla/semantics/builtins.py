"""Built-in operators: equality, membership, set algebra, DOMAIN, \\X, BOOLEAN, STRING,
the boolean operators and integer arithmetic."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from conformance.tla import stdlib as L
from conformance.tla import syntax as S
from conformance.tla.semantics.compiled import (
    _MISSING,
    C,
    EvalFn,
    const,
    derived,
    located,
)
from conformance.tla.semantics.operators import (
    OperatorCompiler,
)
from conformance.tla.semantics.scope import (
    DefEntry,
    Scope,
)
from conformance.tla.semantics.support import (
    _ARITH_EXPR,
    _BOOLEAN_EXPR,
    _BUILTIN_METHODS,
    _EQ_EXPR,
    _EQ_LITERAL_EXPR,
    _FAST_INT,
    _IN_DOMAIN_SRC,
    _IN_SRC,
    _NOT_EXPR,
    _generated,
    _member_of,
    fused,
)
from conformance.tla.standard_modules import STANDARD
from conformance.tla.syntax import EvalError, Loc, TlaError
from conformance.tla.values import (
    BOXES,
    Fn,
    ModelValue,
    fn_domain,
    fn_items,
    member_miss,
    same_value,
    unequal_or_fail,
)


def _not_of_kind(v: Any, kind: str, where: str) -> bool:
    """A value tested against a set of a kind it is not of: FALSE for a model value (TLC's
    modelValueMember), an error for a number, string, boolean or a value of the other
    kinds, as TLC fails to check it (``5 \\in SUBSET S``, ``{1} \\in [S -> T]``), and for
    a set it cannot enumerate (``Nat \\in SUBSET Nat``)."""
    if type(v) is ModelValue:
        return False
    if isinstance(v, L.LazySet):
        raise EvalError(f"attempted to check if {L.show(v)}, a set that cannot be enumerated, "
                        f"is in a set {where}")
    raise EvalError(f"attempted to check if {L.show(v)}, which is not {kind}, is in a set {where}")


def _other_record(v: Any) -> bool:
    """A value that is not a record of the set's fields: FALSE for a record of other fields
    (or none: the empty tuple), an error for a value that is no record (TLC: "non-record")."""
    if (type(v) is Fn and v.is_record()) or (type(v) is tuple and not v) or type(v) is ModelValue:
        return False
    raise EvalError(f"attempted to check if non-record {L.show(v)} is in a set of records")


class BuiltinCompiler(OperatorCompiler):
    """Built-in operators: equality, membership, set algebra, DOMAIN, \\X, BOOLEAN, STRING,"""

    # builtin operators ----------------------------------------------------------------------

    def _binary(self, args: Sequence[S.Expr], loc: Loc, scope: Scope, name: str) -> tuple[C, C]:
        self._check_arity(name, 2, args, loc)
        return self.expr(args[0], scope), self.expr(args[1], scope)

    def _b_eq(self, args: Sequence[S.Expr], loc: Loc, scope: Scope) -> C:
        a, b = self._binary(args, loc, scope, "=")
        return self._equality(a, b, negate=False, loc=loc)

    def _b_neq(self, args: Sequence[S.Expr], loc: Loc, scope: Scope) -> C:
        a, b = self._binary(args, loc, scope, "/=")
        return self._equality(a, b, negate=True, loc=loc)

    def _equality(self, a: C, b: C, negate: bool, loc: Loc) -> C:
        """``a = b`` (``a # b``): fails, at ``loc``, where TLC fails to compare the values
        (``values.unequal_or_fail``)."""
        first = True
        if a.value is not _MISSING and b.value is _MISSING:
            a, b = b, a
            first = False

        def differ(x: Any, y: Any) -> bool:
            try:
                return unequal_or_fail(x, y) if first else unequal_or_fail(y, x)
            except TlaError as err:
                raise located(err, loc) from None

        v = b.value
        neg = str(negate)
        if type(v) is str or type(v) is int:
            # comparing with a literal: the types must match too (TRUE is never 1)
            src = _EQ_LITERAL_EXPR.replace("OP", "!=" if negate else "==").replace("NEG", neg)
            return fused("eq", src, {"A": a, "B": b}, {"T": type(v), "differ": differ}, a, b)
        src = _EQ_EXPR.replace("NEG", neg)
        return fused("eq", src, {"A": a, "B": b}, {"same": same_value, "differ": differ}, a, b)

    def _b_in(self, args: Sequence[S.Expr], loc: Loc, scope: Scope) -> C:
        return self._membership(args, loc, scope, negate=False)

    def _b_notin(self, args: Sequence[S.Expr], loc: Loc, scope: Scope) -> C:
        return self._membership(args, loc, scope, negate=True)

    def _membership(self, args: Sequence[S.Expr], loc: Loc, scope: Scope, negate: bool) -> C:
        self._check_arity("\\in", 2, args, loc)
        a = self.expr(args[0], scope)
        rhs = args[1]
        if isinstance(rhs, S.OpApp) and rhs.name == "DOMAIN" and len(rhs.args) == 1 \
                and self.lookup("DOMAIN", scope) is None:
            # x \in DOMAIN f without building the domain
            g = self.expr(rhs.args[0], scope)

            def dom_slow(f: Any, x: Any) -> bool:
                # fails where TLC fails to compare x with the domain's elements (M1; the
                # domain of a tuple is an IntervalValue, whose member fails alike)
                try:
                    return L.member(x, L.domain(f))
                except TlaError as err:
                    raise located(err, loc) from None

            def dom_miss(x: Any, keys: Any) -> bool:
                try:
                    return member_miss(x, keys)
                except TlaError as err:
                    raise located(err, loc) from None

            fn = _generated("isin", _IN_DOMAIN_SRC, {"A": a, "F": g},
                            {"slow": dom_slow, "miss": dom_miss, "exact": L.exact_member, "BOXES": BOXES,
                             "NEG": negate})
            return derived(fn, a, g)
        if self._is_set_constructor(rhs, scope):
            # x \in SUBSET S, [S -> T], [a : S], Seq(S): test without building the set
            pred = self.set_predicate(rhs, scope)
            fa, fp = a.fn, pred.fn

            def structural(s: Any, t: Any, e: tuple) -> bool:
                x = fa(s, t, e)
                try:
                    return fp(s, t, e)(x) is not negate
                except TlaError as err:
                    raise located(err, loc) from None

            return derived(structural, a, pred)
        b = self.expr(rhs, scope)

        def slow(x: Any, st: Any) -> bool:
            try:
                return L.member(x, st)
            except TlaError as err:
                raise located(err, loc) from None

        def miss(x: Any, st: frozenset) -> bool:
            try:
                return member_miss(x, st)
            except TlaError as err:
                raise located(err, loc) from None

        fn = _generated("isin", _IN_SRC, {"A": a, "B": b},
                        {"slow": slow, "exact": L.exact_member, "miss": miss, "NEG": negate,
                         "BOXES": BOXES})
        return derived(fn, a, b)

    def _is_set_constructor(self, node: S.Expr, scope: Scope, depth: int = 0) -> bool:
        """Whether ``node`` is a set ``set_predicate`` tests without building it: SUBSET S,
        [S -> T], [a : S], Seq(S), a union with one of them, or the name of a definition
        that is one (Messages == [type : {"a"}, ...] \\cup [type : {"b"}, ...])."""
        if isinstance(node, (S.FnSet, S.RecordSet)):
            return True
        if isinstance(node, S.OpApp) and len(node.args) == 1 and node.name in ("SUBSET", "Seq"):
            if self.lookup(node.name, scope) is not None:
                return False
            return node.name == "SUBSET" or "Sequences" in scope.ctx.std
        if depth > 20:
            return False
        if isinstance(node, S.OpApp) and node.name == "\\cup" and len(node.args) == 2 \
                and self.lookup(node.name, scope) is None:
            return any(self._is_set_constructor(a, scope, depth + 1) for a in node.args)
        named = self._set_definition(node, scope)
        return named is not None and self._is_set_constructor(*named, depth + 1)

    def _set_definition(self, node: S.Expr, scope: Scope) -> tuple[S.Expr, Scope] | None:
        """The body of the parameterless definition ``node`` names, and its scope."""
        if not isinstance(node, S.Name):
            return None
        entry = self.lookup(node.name, scope)
        if isinstance(entry, DefEntry) and isinstance(entry.unit, S.OpDef) and not entry.unit.params:
            return entry.unit.body, Scope(entry.ctx, entry.ctx.base)
        return None

    def set_predicate(self, node: S.Expr, scope: Scope) -> C:
        """A compiled expression whose value is a membership test ``value -> bool`` of the
        set ``node`` (for SUBSET, function sets, record sets and Seq, without building it)."""
        if not self._is_set_constructor(node, scope):
            c = self.expr(node, scope)
            f = c.fn
            member = L.member
            return derived(lambda s, t, e: _member_of(member, f(s, t, e)), c)
        named = self._set_definition(node, scope)
        if named is not None:
            return self.set_predicate(*named)
        if isinstance(node, S.OpApp) and node.name == "\\cup":  # (\\union is read as \\cup)
            left, right = (self.set_predicate(a, scope) for a in node.args)
            fl, fr = left.fn, right.fn

            def union_pred(s: Any, t: Any, e: tuple) -> Callable[[Any], bool]:
                p, q = fl(s, t, e), fr(s, t, e)
                return lambda v: p(v) or q(v)

            return derived(union_pred, left, right)
        if isinstance(node, S.OpApp):
            inner = self.set_predicate(node.args[0], scope)
            fi = inner.fn
            if node.name == "SUBSET":

                def subset_pred(s: Any, t: Any, e: tuple) -> Callable[[Any], bool]:
                    p = fi(s, t, e)
                    return lambda v: (all(p(y) for y in v) if type(v) is frozenset
                                      else _not_of_kind(v, "a set", "SUBSET S"))

                return derived(subset_pred, inner)

            def seq_pred(s: Any, t: Any, e: tuple) -> Callable[[Any], bool]:
                p = fi(s, t, e)
                return lambda v: type(v) is tuple and all(p(y) for y in v)

            return derived(seq_pred, inner)
        if isinstance(node, S.FnSet):
            dom = self.expr(node.domain, scope)
            rng = self.set_predicate(node.range, scope)
            fd, fr = dom.fn, rng.fn

            def fn_pred(s: Any, t: Any, e: tuple) -> Callable[[Any], bool]:
                d, p = fd(s, t, e), fr(s, t, e)
                if type(d) is not frozenset:
                    return lambda v: False  # functions over infinite domains are not values
                return lambda v: (
                    fn_domain(v) == d and all(p(y) for _, y in fn_items(v))
                    if type(v) is tuple or type(v) is Fn
                    else _not_of_kind(v, "a function", "[S -> T]")
                )

            return derived(fn_pred, dom, rng)
        assert isinstance(node, S.RecordSet)
        names = [n for n, _ in node.fields]
        preds = [self.set_predicate(x, scope) for _, x in node.fields]
        fps = [p.fn for p in preds]
        keys = frozenset(names)

        def rec_pred(s: Any, t: Any, e: tuple) -> Callable[[Any], bool]:
            ps = [(n, f(s, t, e)) for n, f in zip(names, fps, strict=True)]
            return lambda v: (
                all(p(v.map[n]) for n, p in ps)
                if type(v) is Fn and v.map.keys() == keys
                else _other_record(v)
            )

        return derived(rec_pred, *preds)

    def _lift(self, impl: Callable[..., Any], args: Sequence[S.Expr], loc: Loc, scope: Scope,
              name: str, arity: int) -> C:
        return self.std_call(L.StdOp(impl, arity), name, args, loc, scope)

    def _b_cup(self, args: Sequence[S.Expr], loc: Loc, scope: Scope) -> C:
        return self._lift(L.cup, args, loc, scope, "\\cup", 2)

    def _b_cap(self, args: Sequence[S.Expr], loc: Loc, scope: Scope) -> C:
        return self._lift(L.cap, args, loc, scope, "\\cap", 2)

    def _b_setminus(self, args: Sequence[S.Expr], loc: Loc, scope: Scope) -> C:
        return self._lift(L.setminus, args, loc, scope, "\\", 2)

    def _b_subseteq(self, args: Sequence[S.Expr], loc: Loc, scope: Scope) -> C:
        return self._lift(L.subseteq, args, loc, scope, "\\subseteq", 2)

    def _b_subset(self, args: Sequence[S.Expr], loc: Loc, scope: Scope) -> C:
        return self._lift(lambda a, b: L.subseteq(a, b) and a != b, args, loc, scope,
                          "\\subset", 2)

    def _b_supseteq(self, args: Sequence[S.Expr], loc: Loc, scope: Scope) -> C:
        return self._lift(lambda a, b: L.subseteq(b, a), args, loc, scope, "\\supseteq", 2)

    def _b_supset(self, args: Sequence[S.Expr], loc: Loc, scope: Scope) -> C:
        return self._lift(lambda a, b: L.subseteq(b, a) and a != b, args, loc, scope,
                          "\\supset", 2)

    def _b_powerset(self, args: Sequence[S.Expr], loc: Loc, scope: Scope) -> C:
        return self._lift(L.powerset, args, loc, scope, "SUBSET", 1)

    def _b_union(self, args: Sequence[S.Expr], loc: Loc, scope: Scope) -> C:
        return self._lift(L.big_union, args, loc, scope, "UNION", 1)

    def _b_domain(self, args: Sequence[S.Expr], loc: Loc, scope: Scope) -> C:
        self._check_arity("DOMAIN", 1, args, loc)
        arg = self.expr(args[0], scope)
        f = arg.fn

        def domain(s: Any, t: Any, e: tuple) -> Any:
            try:
                return L.domain(f(s, t, e))
            except TlaError as err:
                raise located(err, loc) from None

        def elements(s: Any, t: Any, e: tuple) -> Any:
            g = f(s, t, e)
            if type(g) is tuple:
                return range(1, len(g) + 1)
            if type(g) is Fn:
                return g.map.keys()
            return domain(s, t, e)  # raises the located error

        res = derived(domain, arg)
        res.elements = elements
        return res

    def _b_times(self, args: Sequence[S.Expr], loc: Loc, scope: Scope) -> C:
        return self.std_call(L.StdOp(L.times, len(args)), "\\X", args, loc, scope)

    def _b_boolean(self, args: Sequence[S.Expr], loc: Loc, scope: Scope) -> C:
        self._check_arity("BOOLEAN", 0, args, loc)
        return const(L.BOOLEAN)

    def _b_string(self, args: Sequence[S.Expr], loc: Loc, scope: Scope) -> C:
        self._check_arity("STRING", 0, args, loc)
        return const(L.STRING)

    def _b_not(self, args: Sequence[S.Expr], loc: Loc, scope: Scope) -> C:
        self._check_arity("~", 1, args, loc)
        a = self.expr(args[0], scope)

        def bad(v: Any) -> bool:
            raise EvalError(f"~ applies to a boolean, got {L.show(v)}", loc)

        return fused("neg", _NOT_EXPR, {"A": a}, {"bad": bad}, a)

    def _b_implies(self, args: Sequence[S.Expr], loc: Loc, scope: Scope) -> C:
        a, b = self._binary(args, loc, scope, "=>")
        fa, fb = self.boolean(a, loc, "=>"), self.boolean(b, loc, "=>")
        return derived(lambda s, t, e: not fa(s, t, e) or fb(s, t, e), a, b)

    def _b_equiv(self, args: Sequence[S.Expr], loc: Loc, scope: Scope) -> C:
        a, b = self._binary(args, loc, scope, "<=>")
        fa, fb = self.boolean(a, loc, "<=>"), self.boolean(b, loc, "<=>")
        return derived(lambda s, t, e: fa(s, t, e) is fb(s, t, e), a, b)

    def boolean(self, c: C, loc: Loc, what: str) -> EvalFn:
        """``c``'s closure, checked to produce a boolean."""
        return self.checked(c, loc, what).fn

    @staticmethod
    def checked(c: C, loc: Loc, what: str) -> C:
        """``c``, checked to produce a boolean (``c`` itself when it always does)."""
        if type(c.value) is bool or c.boolean:
            return c

        def bad(v: Any) -> bool:
            raise EvalError(f"{what} expects a boolean, got {L.show(v)}", loc)

        return fused("check", _BOOLEAN_EXPR, {"A": c}, {"bad": bad}, c)

    # arithmetic: native fast paths when the standard module is visible ----------------------

    def _arith(self, name: str, args: Sequence[S.Expr], loc: Loc, scope: Scope) -> C | None:
        if not scope.ctx.std & {"Naturals", "Integers"}:
            return None
        if len(args) != 2:
            return None
        a, b = self.expr(args[0], scope), self.expr(args[1], scope)

        def fail(x: Any, y: Any) -> Any:
            raise EvalError(
                f"{name} applies to integers, got {L.show(x)} and {L.show(y)}", loc
            )

        return fused("arith", _ARITH_EXPR.replace("OP", name), {"A": a, "B": b}, {"fail": fail},
                     a, b)


def _install_fast_arith() -> None:
    for sym in _FAST_INT:
        method = "arith_" + {"+": "plus", "-": "minus", "*": "mul", "<": "lt", "<=": "le",
                             ">": "gt", ">=": "ge"}[sym]
        _BUILTIN_METHODS[sym] = method

        def fast(self: BuiltinCompiler, args: Sequence[S.Expr], loc: Loc, scope: Scope,
                 sym: str = sym) -> C:
            c = self._arith(sym, args, loc, scope)
            if c is not None:
                return c
            for module in sorted(scope.ctx.std):
                op = STANDARD[module].get(sym)
                if op is not None:
                    return self.std_call(op, sym, args, loc, scope)
            raise EvalError(
                f"unknown operator {sym} in module {scope.ctx.module} "
                f"(defined in the standard module Naturals: EXTENDS it)", loc)

        setattr(BuiltinCompiler, "_b_" + method, fast)


_install_fast_arith()
