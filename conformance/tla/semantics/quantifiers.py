"""Quantifiers and bounds: domains of bound variables, \\A, \\E, CHOOSE."""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterator, Sequence
from typing import Any

from conformance.tla import stdlib as L
from conformance.tla import syntax as S
from conformance.tla.astwalk import walk
from conformance.tla.semantics.compiled import (
    NOENV,
    C,
    EvalFn,
    derived,
    located,
)
from conformance.tla.semantics.control import (
    ControlCompiler,
)
from conformance.tla.semantics.memo import (
    _mentions,
)
from conformance.tla.semantics.scope import (
    Scope,
)
from conformance.tla.semantics.support import _generated
from conformance.tla.syntax import EvalError, Loc, TlaError, UnsupportedError
from conformance.tla.values import (
    ModelValue,
    format_value,
    sort_key,
)

# ``\A x \in S : P`` and ``\E``: the body's source evaluated with ``e`` rebound to the
# environment with x
_FORALL_SRC = """
def forall(s, t, e):
    outer = e
    for v in dom(s, t, e):
        e = (*outer, v)
        if not {B}:
            return False
    return True
"""

_EXISTS_SRC = """
def exists(s, t, e):
    outer = e
    for v in dom(s, t, e):
        e = (*outer, v)
        if {B}:
            return True
    return False
"""


# the same, remembering the body's value per element (``_element_memo``): ``memo`` maps the
# id of an element to (the element, kept alive so that its id is not reused; the value)
_FORALL_MEMO_SRC = """
def forall(s, t, e):
    outer = e
    for v in dom(s, t, e):
        hit = memo.get(id(v))
        if hit is None:
            e = (*outer, v)
            r = {B}
            if len(memo) >= LIMIT:
                memo.clear()
            memo[id(v)] = (v, r)
        else:
            r = hit[1]
        if not r:
            return False
    return True
"""

_EXISTS_MEMO_SRC = _FORALL_MEMO_SRC.replace("def forall", "def exists").replace(
    "if not r:\n            return False\n    return True", "if r:\n            return True\n    return False")

ELEMENT_MEMO_LIMIT = 4_096  # elements remembered per quantifier before its memo is emptied
_ELEMENT_MEMO_WEIGHT = 8  # nodes of a body worth a lookup


def _element_memo(body: C, node: S.Expr, depth: int) -> bool:
    """Whether the body of a quantifier over one name (bound at slot ``depth``) has a value
    fixed by that name's value alone, and is worth remembering per element: it reads no
    other binding, no state, no next state, and is pure (``\\A m \\in messages : P(m)``
    checked again in a state that added one message evaluates P for that message only)."""
    return (not body.vars and not body.primed and body.pure and not body.rec
            and (body.envmin == NOENV or body.envmin >= depth)
            and sum(1 for _ in walk(node)) >= _ELEMENT_MEMO_WEIGHT)


class QuantifierCompiler(ControlCompiler):
    """Quantifiers and bounds: domains of bound variables, \\A, \\E, CHOOSE."""

    # quantifiers and bounds ------------------------------------------------------------------

    def domain_fn(self, c: C, loc: Loc, ordered: bool = False, sort_dynamic: bool = True
                  ) -> EvalFn:
        """A closure giving the elements of a finite set, sorted if ``ordered`` (only
        constant sets unless ``sort_dynamic``: sorting state-dependent sets is costly)."""
        f = c.fn
        enum = L.enumerate_set

        if c.constant:
            box: list[Any] = []

            def const_dom(s: Any, t: Any, e: tuple) -> Any:
                if box:
                    return box[0]
                try:
                    v = enum(f(s, t, e))
                except TlaError as err:
                    raise located(err, loc) from None
                items = tuple(sorted(v, key=sort_key)) if ordered else v
                box.append(items)
                return items

            return const_dom

        if ordered and not sort_dynamic:
            ordered = False
        if c.elements is not None:
            elements = c.elements

            def elems(s: Any, t: Any, e: tuple) -> Any:
                v = elements(s, t, e)
                return sorted(v, key=sort_key) if ordered and type(v) is not range else v

            return elems

        def dom(s: Any, t: Any, e: tuple) -> Any:
            v = f(s, t, e)
            if type(v) is not frozenset:
                try:
                    v = enum(v)
                except TlaError as err:
                    raise located(err, loc) from None
            return sorted(v, key=sort_key) if ordered else v

        return dom

    def bounds(self, bounds: Sequence[S.Bound], scope: Scope, ordered: bool = False,
               sort_dynamic: bool = True
               ) -> tuple[Scope, Callable[[Any, Any, tuple], Iterator[tuple]], list[C]]:
        """Compile quantifier bounds: the inner scope, an iterator of extended
        environments, and the compiled domains."""
        # each step: the domain, how many names it binds, whether as a tuple, and how many
        # of the slots bound before it were bound after its domain was compiled (the names
        # before it in ``a, b \in S``, which share S): the domain is evaluated without them,
        # so that its own binders find their slots where they were compiled for
        steps: list[tuple[EvalFn, int, bool, Loc, int]] = []
        domains: list[C] = []
        pads: list[tuple[None, ...]] = []  # per step: the slots bound before its domain
        inner = scope
        for b in bounds:
            d = self.expr(b.domain, inner)
            domains.append(d)
            df = self.domain_fn(d, b.domain.loc, ordered, sort_dynamic)
            compiled_at = inner.depth
            if b.tuple_pattern:
                steps.append((df, len(b.names), True, b.loc, 0))
                pads.append((None,) * (compiled_at - scope.depth))
                inner = inner.bind(*b.names)
            else:
                for n in b.names:
                    steps.append((df, 1, False, b.loc, inner.depth - compiled_at))
                    pads.append((None,) * (compiled_at - scope.depth))
                    inner = inner.bind(n)

        def expand(s: Any, t: Any, e: tuple, k: int = 0) -> Iterator[tuple]:
            if k == len(steps):
                yield e
                return
            df, n, pattern, loc, later = steps[k]
            for v in df(s, t, e[:len(e) - later] if later else e):
                if pattern:
                    if type(v) is not tuple or len(v) != n:
                        raise EvalError(
                            f"{L.show(v)} does not match a tuple pattern of {n} names", loc
                        )
                    yield from expand(s, t, e + v, k + 1)
                else:
                    yield from expand(s, t, (*e, v), k + 1)

        if _independent(bounds):
            dfs = [step[0] for step in steps]
            # a domain compiled after k names were bound reads none of them, but its own
            # binders expect their slots after k unread ones

            def product(s: Any, t: Any, e: tuple) -> Iterator[tuple]:
                # no domain depends on a name bound before it: a plain cartesian product
                for combo in itertools.product(*[df(s, t, e + p)
                                                 for df, p in zip(dfs, pads, strict=True)]):
                    yield e + combo

            return inner, product, domains
        return inner, expand, domains

    def _single_bound(self, bounds: Sequence[S.Bound]) -> bool:
        return len(bounds) == 1 and len(bounds[0].names) == 1 and not bounds[0].tuple_pattern

    def _c_Quant(self, node: S.Quant, scope: Scope) -> C:
        inner, expand, domains = self.bounds(node.bounds, scope)
        body = self.expr(node.body, inner)
        res = derived(lambda s, t, e: None, body, *domains)
        res.envmin = min([d.envmin for d in domains] + [body.below(scope.depth).envmin])
        if self._single_bound(node.bounds):
            df = self.domain_fn(domains[0], node.bounds[0].domain.loc)
            check = self.checked(body, node.body.loc, "\\A" if node.kind == "A" else "\\E")
            name, src = ("forall", _FORALL_SRC) if node.kind == "A" else ("exists", _EXISTS_SRC)
            extra: dict[str, Any] = {"dom": df}
            if _element_memo(body, node.body, scope.depth):
                src = _FORALL_MEMO_SRC if node.kind == "A" else _EXISTS_MEMO_SRC
                extra.update(memo={}, LIMIT=ELEMENT_MEMO_LIMIT)
            res.fn = _generated(name, src, {"B": check}, extra)
            return res
        fb = self.boolean(body, node.body.loc, "\\A" if node.kind == "A" else "\\E")
        if node.kind == "A":

            def forall_n(s: Any, t: Any, e: tuple) -> bool:
                for e2 in expand(s, t, e):  # noqa: SIM110 - faster than all()
                    if not fb(s, t, e2):
                        return False
                return True

            res.fn = forall_n
        else:

            def exists_n(s: Any, t: Any, e: tuple) -> bool:
                for e2 in expand(s, t, e):  # noqa: SIM110 - faster than any()
                    if fb(s, t, e2):
                        return True
                return False

            res.fn = exists_n
        return res

    def _c_UnboundedQuant(self, node: S.UnboundedQuant, scope: Scope) -> C:
        kind = {"A": "\\A", "E": "\\E", "AA": "\\AA", "EE": "\\EE"}.get(node.kind, node.kind)
        return self.raiser(UnsupportedError(
            f"unbounded quantifier {kind} {', '.join(node.names)} cannot be evaluated", node.loc
        ))

    def _c_Choose(self, node: S.Choose, scope: Scope) -> C:
        if node.domain is None:
            return self._unbounded_choose(node, scope)
        bound = S.Bound(node.names, node.tuple_pattern, node.domain, node.loc)
        inner, expand, domains = self.bounds((bound,), scope, ordered=True)
        body = self.expr(node.body, inner)
        fb = self.boolean(body, node.body.loc, "CHOOSE")
        n = len(node.names)
        loc = node.loc

        def choose(s: Any, t: Any, e: tuple) -> Any:
            for e2 in expand(s, t, e):
                if fb(s, t, e2):
                    vals = e2[len(e2) - n:]
                    return vals if node.tuple_pattern else vals[0]
            raise EvalError("CHOOSE: no element of the set satisfies the predicate", loc)

        res = derived(choose, body, *domains)
        res.envmin = min(domains[0].envmin, body.below(scope.depth).envmin)
        return res

    def _unbounded_choose(self, node: S.Choose, scope: Scope) -> C:
        """TLC's one unbounded form, ``CHOOSE x : x \\notin S``: a model value outside
        ``S``, the same one for equal sets (it is named after ``S``); any other form is
        refused."""
        body = node.body
        if not (len(node.names) == 1 and not node.tuple_pattern and isinstance(body, S.OpApp)
                and body.name == "\\notin" and isinstance(body.args[0], S.Name)
                and body.args[0].name == node.names[0]
                and not _mentions(body.args[1], node.names[0])):
            return self.raiser(UnsupportedError(
                f"unbounded CHOOSE {', '.join(node.names)} cannot be evaluated (TLC evaluates "
                f"only CHOOSE x : x \\notin S)", node.loc))
        domain = self.expr(body.args[1], scope)
        f = domain.fn
        loc = node.loc

        def outside(s: Any, t: Any, e: tuple) -> Any:
            st = f(s, t, e)
            if type(st) is not frozenset:
                try:
                    st = L.enumerate_set(st)
                except TlaError as err:
                    raise located(err, loc) from None
            return ModelValue(f"(CHOOSE x : x \\notin {format_value(st)})")

        return derived(outside, domain)


def _independent(bounds: Sequence[S.Bound]) -> bool:
    """Whether no domain of ``bounds`` mentions a name bound before it (then the bounds are
    a plain cartesian product). Read from the text: a compiled domain records only the
    lowest slot it reads, and a domain reading an outer name and an earlier binder (``\\E
    a \\in S, b \\in {a, i}`` under ``\\E i``) reads one below the quantifier's slots."""
    if any(b.tuple_pattern for b in bounds):
        return False
    earlier: list[str] = []
    for b in bounds:
        if any(_mentions(b.domain, n) for n in earlier):
            return False
        earlier.extend(b.names)
    return True
