"""Differential tests: the compiled evaluator and the explorer against the simple
interpreter of ``reference_interp.py`` on random expressions and random small specs.

Expressions are generated as TLA+ text (typed, so that they are well defined: no partial
operator is applied outside its domain, whatever the iteration order; except for some
comparisons of values of kinds TLC may refuse to compare, where both must fail or agree),
parsed once and given to both. Each module is compiled once and evaluated in several states, so that
the compiler's caches (folded constants, memoised operators, LET values) are exercised
across states. Definitions with inner quantifiers, operators with parameters and LETs are
reached from inside quantifiers (the binding-slot and memo cases).

The fast profile runs in CI; ``-m slow`` runs the long one.
"""

from __future__ import annotations

import itertools
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from conformance.tla import syntax as S
from conformance.tla.cfg import parse_config
from conformance.tla.explorer import check
from conformance.tla.loader import ModuleLoader
from conformance.tla.model import Model
from conformance.tla.parser import parse_module_text
from conformance.tla.syntax import TlaError
from conformance.tla.values import ModelValue, make_record
from tests.engine import reference_interp as R

HEADER = "EXTENDS Integers, Sequences, FiniteSets"
FAST = settings(max_examples=25, deadline=None,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
# the broader generators' CI runs: more examples (each is cheap), about 6 seconds each
FAST_EXT = settings(max_examples=200, deadline=None,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
FAST_EXT_SPECS = settings(max_examples=100, deadline=None,
                          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
LONG = settings(max_examples=600, deadline=None,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])

TYPES = ("int", "bool", "set", "seq", "rec")
MIXED = ("int", "set", "seq", "rec")  # kinds put together in one set (no boolean beside 1)


class Gen:
    """Draws well-typed TLA+ expression text. ``scope`` maps bound names to types;
    ``defs`` maps module definitions (zero-arity or unary on an int) to types."""

    def __init__(self, draw: Any, defs: dict[str, tuple[str, int]] | None = None) -> None:
        self.draw = draw
        self.defs = defs or {}
        self.fresh = itertools.count()

    def name(self) -> str:
        return f"v{next(self.fresh)}"

    def pick(self, options: list[Any]) -> Any:
        return options[self.draw(st.integers(0, len(options) - 1))]

    def expr(self, ty: str, depth: int, scope: dict[str, str]) -> str:
        leaves = getattr(self, "leaf_" + ty)(scope)
        if depth <= 0 or self.draw(st.integers(0, 3)) == 0:
            return self.pick(leaves)
        return getattr(self, "node_" + ty)(depth - 1, scope)

    def bound(self, ty: str, scope: dict[str, str]) -> list[str]:
        return [n for n, t in scope.items() if t == ty]

    def defined(self, ty: str, depth: int, scope: dict[str, str]) -> list[str]:
        out = []
        for n, (t, arity) in self.defs.items():
            if t == ty:
                out.append(n if arity == 0 else f"{n}({self.expr('int', min(depth, 1), scope)})")
        return out

    # leaves
    def leaf_int(self, scope: dict[str, str]) -> list[str]:
        return [str(self.draw(st.integers(-2, 4))), "x", *self.bound("int", scope)]

    def leaf_bool(self, scope: dict[str, str]) -> list[str]:
        return ["TRUE", "FALSE", "(x > 1)", *self.bound("bool", scope)]

    def leaf_set(self, scope: dict[str, str]) -> list[str]:
        return ["y", "{}", "(0..2)", "{1, 3}", *self.bound("set", scope)]

    def leaf_seq(self, scope: dict[str, str]) -> list[str]:
        return ["<<>>", "<<1, 2>>", "<<x, 0, x>>", *self.bound("seq", scope)]

    def leaf_rec(self, scope: dict[str, str]) -> list[str]:
        return ["[a |-> 0, b |-> FALSE]", "[a |-> x, b |-> TRUE]", *self.bound("rec", scope)]

    # nodes
    def let(self, ty: str, depth: int, scope: dict[str, str]) -> str:
        n = self.name()
        vty = self.pick(["int", "set", "bool"])
        if self.draw(st.booleans()):
            val = self.expr(vty, depth, scope)
            return f"(LET {n} == {val} IN {self.expr(ty, depth, {**scope, n: vty})})"
        # an operator with a parameter, applied inside the body
        p = self.name()
        body = self.expr(vty, depth, {**scope, p: "int"})
        inner = self.expr(ty, depth, {**scope, f"{n}_app": vty})
        arg = self.expr("int", 0, scope)
        return f"(LET {n}({p}) == {body} IN {inner.replace(f'{n}_app', f'{n}({arg})')})"

    def node_int(self, depth: int, scope: dict[str, str]) -> str:
        e = lambda ty: self.expr(ty, depth, scope)  # noqa: E731
        v = self.name()
        return self.pick([
            f"({e('int')} + {e('int')})", f"({e('int')} - {e('int')})",
            f"({e('int')} * {e('int')})", f"({e('int')} % {self.draw(st.integers(1, 4))})",
            f"(IF {e('bool')} THEN {e('int')} ELSE {e('int')})",
            f"Cardinality({e('set')})", f"Len({e('seq')})", f"{e('rec')}.a",
            f"(CHOOSE {v} \\in ({e('set')} \\cup {{7}}) : {self.expr('bool', depth, {**scope, v: 'int'})} \\/ {v} = 7)",
            f"(LET q == {e('seq')} IN IF {e('int')} \\in DOMAIN q THEN q[{e('int')} % (Len(q) + 1)] ELSE 5)",
            f"(CASE {e('bool')} -> {e('int')} [] {e('bool')} -> {e('int')} [] OTHER -> {e('int')})",
            self.let("int", depth, scope),
            *self.defined("int", depth, scope),
        ])

    def node_bool(self, depth: int, scope: dict[str, str]) -> str:
        e = lambda ty: self.expr(ty, depth, scope)  # noqa: E731
        v, w = self.name(), self.name()
        ty, other = self.pick(list(TYPES)), self.pick(list(TYPES))
        if depth > 0 and self.draw(st.integers(0, 5)) == 0:
            # values of kinds TLC may fail to compare (both sides must fail, or agree),
            # whole or nested in a sequence (compared left to right), a record (field by field, in
            # the order of the names) or a set
            return self.pick([
                f"({e(ty)} = {e(other)})", f"({e(ty)} /= {e(other)})",
                f"({e(ty)} \\in {e('set')})", f"({e(ty)} \\notin {e('set')})",
                f"(<<{e('int')}, {e(ty)}>> = <<{e('int')}, {e(other)}>>)",
                f"(<<{e(ty)}, {e('int')}>> /= <<{e(other)}, {e('int')}>>)",
                f"([a |-> {e('int')}, b |-> {e(ty)}] = [a |-> {e('int')}, b |-> {e(other)}])",
                f"([a |-> {e(ty)}, b |-> {e('int')}] # [a |-> {e(other)}, b |-> {e('int')}])",
                f"({{{e(ty)}}} = {{{e(other)}}})",
                f"({{{e(ty)}, {e(ty)}}} /= {{{e(other)}, {e(other)}}})",
                self.mixed(depth, scope),
            ])
        return self.pick([
            f"({e(ty)} = {e(ty)})", f"({e(ty)} /= {e(ty)})", f"({e('int')} < {e('int')})",
            f"({e('int')} \\in {e('set')})", f"({e('int')} \\notin {e('set')})",
            f"(~{e('bool')})", f"({e('bool')} /\\ {e('bool')})", f"({e('bool')} \\/ {e('bool')})",
            f"({e('bool')} => {e('bool')})", f"({e('bool')} <=> {e('bool')})",
            f"(\\E {v} \\in {e('set')} : {self.expr('bool', depth, {**scope, v: 'int'})})",
            f"(\\A {v} \\in {e('set')} : {self.expr('bool', depth, {**scope, v: 'int'})})",
            f"(\\E {v} \\in {e('set')}, {w} \\in {{{v}}} \\cup {e('set')} : "
            f"{self.expr('bool', depth, {**scope, v: 'int', w: 'int'})})",
            # a domain reading the binder before it and, through the int, names bound
            # outside (the bounds are then no cartesian product)
            f"(\\A {v} \\in {e('set')}, {w} \\in {{{v}, {e('int')}}} : "
            f"{self.expr('bool', depth, {**scope, v: 'int', w: 'int'})})",
            f"({e('set')} \\subseteq {e('set')})", f"{e('rec')}.b",
            self.let("bool", depth, scope),
            *self.defined("bool", depth, scope),
        ])

    def mixed(self, depth: int, scope: dict[str, str]) -> str:
        """A boolean over sets that may hold two kinds of values (TLC fails to sort them)
        and the lookups of the set operators; never TRUE beside 1 in one set, which the
        engine's sets cannot hold apart."""
        e = lambda ty: self.expr(ty, depth, scope)  # noqa: E731
        ty, other = self.pick(list(MIXED)), self.pick(list(MIXED))
        return self.pick([
            f"({{{e(ty)}, {e(other)}}} = {{{e(ty)}}})",
            f"({e(ty)} \\in {{{e(other)}, {e(ty)}}})",
            f"({e(ty)} \\notin {{{e(other)}, {e(other)}}})",
            f"({e(ty)} \\in {{{e(other)}, {e('int')}}})",
            f"({{{e(ty)}}} \\subseteq {{{e(other)}, {e('int')}}})",
            f"({{{e(ty)}, {e(other)}}} \\subseteq {{{e(other)}}})",
            f"(({{{e(ty)}}} \\cup {{{e(other)}, {e(other)}}}) = {{}})",
            f"(LET p == {e(ty)} IN LET q == {e(other)} IN Cardinality({{p, q}} \\cup {{q, p}}) > 0)",
            f"(({{{e(ty)}, {e(ty)}}} \\cap {{{e(other)}}}) = {{}})",
            f"(({e('set')} \\ {{{e(other)}}}) = {{}})",
            f"({e(ty)} \\in DOMAIN {e('rec')})",
        ])

    def node_set(self, depth: int, scope: dict[str, str]) -> str:
        e = lambda ty: self.expr(ty, depth, scope)  # noqa: E731
        v, w = self.name(), self.name()
        return self.pick([
            f"{{{e('int')}, {e('int')}}}", f"({e('int')} % 3)..({e('int')} % 4)",
            f"({e('set')} \\cup {e('set')})", f"({e('set')} \\cap {e('set')})",
            f"({e('set')} \\ {e('set')})",
            f"{{{v} \\in {e('set')} : {self.expr('bool', depth, {**scope, v: 'int'})}}}",
            f"{{{self.expr('int', depth, {**scope, v: 'int'})} : {v} \\in {e('set')}}}",
            f"{{{w} + {e('int')} : {v} \\in {e('set')}, {w} \\in {{{v}, {e('int')}}}}}",
            f"DOMAIN {e('seq')}", f"UNION {{{e('set')}, {e('set')}}}",
            self.let("set", depth, scope),
            *self.defined("set", depth, scope),
        ])

    def node_seq(self, depth: int, scope: dict[str, str]) -> str:
        e = lambda ty: self.expr(ty, depth, scope)  # noqa: E731
        v = self.name()
        return self.pick([
            f"<<{e('int')}, {e('int')}>>", f"Append({e('seq')}, {e('int')})",
            f"({e('seq')} \\o {e('seq')})",
            f"(LET q == {e('seq')} IN IF q = <<>> THEN q ELSE Tail(q))",
            f"[{v} \\in 1..({e('int')} % 3) |-> {self.expr('int', depth, {**scope, v: 'int'})}]",
            f"(LET q == {e('seq')} IN [q EXCEPT ![1] = {e('int')}])",
            f"(LET q == {e('seq')} IN [q EXCEPT ![Len(q)] = @ + 1])",
            f"SubSeq({e('seq')}, 2, 1)",
        ])

    def node_rec(self, depth: int, scope: dict[str, str]) -> str:
        e = lambda ty: self.expr(ty, depth, scope)  # noqa: E731
        return self.pick([
            f"[a |-> {e('int')}, b |-> {e('bool')}]",
            f"[{e('rec')} EXCEPT !.a = {e('int')}]",
            f"[{e('rec')} EXCEPT !.a = @ + 1, !.b = ~@]",
            f"(IF {e('bool')} THEN {e('rec')} ELSE {e('rec')})",
        ])


class ExtGen(Gen):
    """Also functions over integers (``fun``) and sets of sets of integers (``sset``), and
    around them: function constructors (one or two binders) and application, DOMAIN,
    EXCEPT with @ (several updates, nested paths), record sets, function sets, SUBSET,
    UNION, maps with several binders, tuple binders, quantifiers with several names,
    CHOOSE over sets of sets, sequences, records, functions and tuples (TLC's order), IF
    inside quantifiers, Head, SubSeq, SelectSeq, LAMBDA arguments reaching bound
    variables, recursive operators (module and LET), and operators applied to values of
    two kinds in turn (0 and FALSE, <<1>> and <<TRUE>> ...), whose results must not be
    taken one for the other."""

    def choose(self, options: list[Any]) -> str:
        """One of ``options`` (texts, or functions drawing one: only the chosen one draws)."""
        got = self.pick(options)
        return str(got() if callable(got) else got)

    def ext(self, base: str, depth: int, scope: dict[str, str], options: list[Any]) -> str:
        if self.draw(st.integers(0, 2)) == 0:
            return str(getattr(super(), "node_" + base)(depth, scope))
        return self.choose(options)

    def with_(self, ty: str, depth: int, scope: dict[str, str], **more: str) -> str:
        return self.expr(ty, depth, {**scope, **more})

    def pairs(self, depth: int, scope: dict[str, str]) -> str:
        return f"{self.expr('set', depth, scope)} \\X {self.expr('set', depth, scope)}"

    def choice(self, binder: str, dom: str, binds: dict[str, str], default: str, depth: int,
               scope: dict[str, str], extra: str = "") -> str:
        """``CHOOSE binder \\in dom : P`` with P drawn (and ``extra``), ``default`` when
        no element satisfies P: which element is chosen depends on P and on the order."""
        d = self.name()
        pred = self.expr("bool", depth, {**scope, **binds})
        if extra:
            pred = f"({extra} /\\ {pred})"
        return (f"(LET {d} == {dom} IN IF \\E {binder} \\in {d} : {pred} "
                f"THEN (CHOOSE {binder} \\in {d} : {pred}) ELSE {default})")

    # leaves of the new types
    def leaf_fun(self, scope: dict[str, str]) -> list[str]:
        return ["[k \\in {0, 2} |-> k]", "[k \\in y |-> x]", "[k \\in 1..2 |-> k + x]",
                *self.bound("fun", scope)]

    def leaf_sset(self, scope: dict[str, str]) -> list[str]:
        return ["{{}, {1}}", "SUBSET y", "{y, {x}}", *self.bound("sset", scope)]

    def poly(self, r: str, depth: int, scope: dict[str, str]) -> str:
        """An expression built from ``r`` whatever its kind (its kind follows r's)."""
        if depth <= 0 or self.draw(st.integers(0, 3)) == 0:
            return r
        p = lambda: self.poly(r, depth - 1, scope)  # noqa: E731
        f, z, w = self.name(), self.name(), self.name()
        return self.choose([
            lambda: f"<<{p()}, {self.expr('int', 0, scope)}>>", lambda: f"{{{p()}}}",
            lambda: f"[a |-> {p()}]",
            lambda: f"(IF {self.expr('bool', 1, scope)} THEN {p()} ELSE {p()})",
            lambda: f"(CHOOSE {w} \\in {{{p()}}} : TRUE)",
            lambda: f"(LET {f}({z}) == {self.poly(r, depth - 1, {**scope, z: 'int'})} "
            f"IN {f}({self.expr('int', 1, scope)}))",
            lambda: f"(LET {f}({z}) == CHOOSE {w} \\in {{{p()}}} : {z} = {z} IN {f}({self.expr('int', 0, scope)}))",
            lambda: f"[{w} \\in {self.expr('set', 1, scope)} |-> {p()}]",
            lambda: f"(LET {f} == {p()} IN <<{f}, {f}>>)",
        ])

    def poly_pair(self, depth: int, scope: dict[str, str]) -> str:
        """An operator applied to an integer, then a boolean (or to values holding them)."""
        g, r = self.name(), self.name()
        body = self.poly(r, 3, {**scope})
        wrap = self.pick(["{}", "<<{}>>", "{{{}}}", "[a |-> {}]"])
        i1, i2 = (wrap.format(self.pick(["0", "1", self.expr("int", 1, scope)])) for _ in "ab")
        b1, b2 = (wrap.format(self.pick(["FALSE", "TRUE", self.expr("bool", 1, scope)]))
                  for _ in "ab")
        return f"(LET {g}({r}) == {body} IN <<{g}({i1}), {g}({b1})>> = <<{g}({i2}), {g}({b2})>>)"

    def node_fun(self, depth: int, scope: dict[str, str]) -> str:
        e = lambda ty: self.expr(ty, depth, scope)  # noqa: E731
        v, f, k = self.name(), self.name(), self.name()
        return self.choose([
            lambda: f"[{v} \\in {e('set')} |-> {self.with_('int', depth, scope, **{v: 'int'})}]",
            lambda: f"(LET {f} == {e('fun')} IN LET {k} == {e('int')} IN "
            f"IF {k} \\in DOMAIN {f} THEN [{f} EXCEPT ![{k}] = @ + {e('int')}] ELSE {f})",
            lambda: f"(LET {f} == {e('fun')} IN LET {k} == {e('int')} IN "
            f"IF {k} \\in DOMAIN {f} THEN [{f} EXCEPT ![{k}] = @ * 2, ![{k}] = @ - {e('int')}] ELSE {f})",
            lambda: f"(IF {e('bool')} THEN {e('fun')} ELSE {e('fun')})",
            lambda: self.choice(v, f"[({e('set')} \\cap 0..2) -> ({e('set')} \\cap 0..1) \\cup {{0}}]",
                                {v: "fun"}, "[k \\in {0, 2} |-> k]", depth, scope),
            # functions of several domains, a sequence among them (TLC's order of functions)
            lambda: self.choice(v, f"UNION {{[{k} -> {{0, 1}}] : {k} \\in SUBSET ({e('set')} \\cap 0..2)}}",
                                {v: "fun"}, "[k \\in {0, 2} |-> k]", depth, scope,
                                f"Cardinality(DOMAIN {v}) = {self.draw(st.integers(1, 2))}"),
            *self.defined("fun", depth, scope),
        ])

    def node_sset(self, depth: int, scope: dict[str, str]) -> str:
        e = lambda ty: self.expr(ty, depth, scope)  # noqa: E731
        v, w = self.name(), self.name()
        return self.choose([
            lambda: f"SUBSET ({e('set')} \\cap 0..3)",
            lambda: f"{{{v} \\in {e('sset')} : {self.with_('bool', depth, scope, **{v: 'set'})}}}",
            lambda: f"{{{self.with_('set', depth, scope, **{v: 'int'})} : {v} \\in {e('set')}}}",
            lambda: f"({e('sset')} \\cup {e('sset')})", lambda: f"({e('sset')} \\ {e('sset')})",
            lambda: f"{{{{{v}, {w}}} : {v} \\in {e('set')}, {w} \\in {e('set')}}}",
            lambda: f"{{{e('set')}, {e('set')}}}",
            lambda: f"{{{v} \\in SUBSET ({e('set')} \\cap 0..3) : Cardinality({v}) = {self.draw(st.integers(0, 2))}}}",
            *self.defined("sset", depth, scope),
        ])

    def node_int(self, depth: int, scope: dict[str, str]) -> str:
        e = lambda ty: self.expr(ty, depth, scope)  # noqa: E731
        v, w, f, k, j = (self.name() for _ in range(5))
        return self.ext("int", depth, scope, [
            lambda: f"Cardinality({e('sset')})", lambda: f"Cardinality(UNION {e('sset')})",
            lambda: f"(LET {f} == {e('fun')} IN LET {k} == {e('int')} IN IF {k} \\in DOMAIN {f} THEN {f}[{k}] ELSE 9)",
            lambda: f"(LET {f} == [{v} \\in {e('set')}, {w} \\in {e('set')} |-> "
            f"{self.with_('int', depth, scope, **{v: 'int', w: 'int'})}] IN LET {k} == {e('int')} IN "
            f"LET {j} == {e('int')} IN IF <<{k}, {j}>> \\in DOMAIN {f} THEN {f}[{k}, {j}] ELSE 9)",
            lambda: f"Weigh({e('set')})",
            # a LET function definition over a tuple pattern, applied to a pair in its domain
            lambda: f"(LET {k} == {e('set')} IN LET {j} == {e('set')} IN "
            f"LET {f}[<<{v}, {w}>> \\in {k} \\X {j}] == {self.with_('int', depth, scope, **{v: 'int', w: 'int'})} IN "
            f"IF {k} \\X {j} = {{}} THEN 9 ELSE {f}[CHOOSE {v} \\in {k} \\X {j} : TRUE])",
            # a function constructor applied at once, at a point of its domain or not
            lambda: f"(LET {k} == {e('set')} IN LET {j} == {e('int')} IN "
            f"IF {j} \\in {k} THEN [{v} \\in {k} |-> {self.with_('int', depth, scope, **{v: 'int'})}][{j}] ELSE 9)",
            lambda: f"(LET RECURSIVE {f}(_) {f}({v}) == IF {v} <= 0 THEN {self.with_('int', depth, scope, **{v: 'int'})} "
            f"ELSE {v} + {f}({v} - 1) IN {f}({e('int')} % 4))",
            lambda: f"Apply(LAMBDA {v} : {self.with_('int', depth, scope, **{v: 'int'})}, {e('int')})",
            lambda: f"(LET {f} == {e('seq')} IN IF {f} = <<>> THEN 0 ELSE Head({f}))",
            lambda: f"Len(SelectSeq({e('seq')}, LAMBDA {v} : {self.with_('bool', depth, scope, **{v: 'int'})}))",
            lambda: f"(LET {f}({v}) == {self.with_('bool', depth, scope, **{v: 'int'})} IN "
            f"Len(SelectSeq({e('seq')}, {f})))",
            lambda: f"Weigh({self.choice(v, e('sset'), {v: 'set'}, '{7}', depth, scope)})",
            lambda: f"(LET {f} == {self.choice(f'<<{v}, {w}>>', self.pairs(depth, scope), {v: 'int', w: 'int'}, '<<7, 7>>', depth, scope)} IN "
            f"{f}[1] * 10 + {f}[2])",
            lambda: f"Cardinality([a : {e('set')}, b : BOOLEAN])",
            lambda: f"Cardinality([({e('set')} \\cap 0..2) -> {e('set')} \\cap 0..1])",
            lambda: f"Cardinality(SUBSET ({e('set')} \\cap 0..3))",
            lambda: f"(LET {f} == {e('seq')} IN LET {k} == {e('int')} % 3 IN "
            f"IF 1 <= {k} /\\ {k} + 1 <= Len({f}) THEN SubSeq({f}, {k}, {k} + 1)[2] ELSE 0)",
        ])

    def node_bool(self, depth: int, scope: dict[str, str]) -> str:
        e = lambda ty: self.expr(ty, depth, scope)  # noqa: E731
        v, w, u = self.name(), self.name(), self.name()
        ty = self.pick(["fun", "sset"])
        return self.ext("bool", depth, scope, [
            lambda: f"({e(ty)} = {e(ty)})", lambda: f"({e(ty)} /= {e(ty)})",
            lambda: f"({e('set')} \\in {e('sset')})", lambda: f"({e('sset')} \\subseteq SUBSET {e('set')})",
            lambda: f"(\\E <<{v}, {w}>> \\in {e('set')} \\X {e('set')} : "
            f"{self.with_('bool', depth, scope, **{v: 'int', w: 'int'})})",
            lambda: f"(\\A <<{v}, {w}>> \\in {{<<{e('int')}, {e('int')}>>, <<{e('int')}, {e('int')}>>}} : "
            f"{self.with_('bool', depth, scope, **{v: 'int', w: 'int'})})",
            lambda: f"(\\A {v}, {w} \\in {e('set')} : {self.with_('bool', depth, scope, **{v: 'int', w: 'int'})})",
            # names sharing a domain that binds a name of its own
            lambda: f"(\\A {v}, {w} \\in {{{u} \\in {e('set')} : {self.with_('bool', depth, scope, **{u: 'int'})}}} : "
            f"{self.with_('bool', depth, scope, **{v: 'int', w: 'int'})})",
            lambda: f"(\\E {v}, {w} \\in {{{self.with_('int', depth, scope, **{u: 'int'})} : {u} \\in {e('set')}}} : "
            f"{self.with_('bool', depth, scope, **{v: 'int', w: 'int'})})",
            lambda: f"(\\E {v} \\in [a : {e('set')}, b : BOOLEAN] : {self.with_('bool', depth, scope, **{v: 'rec'})})",
            lambda: f"(\\A {v} \\in [({e('set')} \\cap 0..2) -> {{0, 1}}] : "
            f"{self.with_('bool', depth, scope, **{v: 'fun'})})",
            lambda: f"(\\E {v} \\in {e('sset')} : {self.with_('bool', depth, scope, **{v: 'set'})})",
            lambda: f"(\\A {v} \\in {e('set')} : IF {self.with_('bool', depth, scope, **{v: 'int'})} "
            f"THEN {self.with_('bool', depth, scope, **{v: 'int'})} ELSE {e('bool')})",
            lambda: f"(IF {e('bool')} THEN {e('bool')} ELSE {e('bool')})",
            lambda: self.poly_pair(depth, scope),
        ])

    def node_set(self, depth: int, scope: dict[str, str]) -> str:
        e = lambda ty: self.expr(ty, depth, scope)  # noqa: E731
        v, w = self.name(), self.name()
        return self.ext("set", depth, scope, [
            lambda: f"UNION {e('sset')}", lambda: f"DOMAIN {e('fun')}",
            lambda: f"{{{self.with_('int', depth, scope, **{v: 'int', w: 'int'})} : {v} \\in {e('set')}, {w} \\in {e('set')}}}",
            lambda: f"{{{v} : <<{v}, {w}>> \\in {e('set')} \\X {e('set')}}}",
            lambda: f"{{{v} + {w} : <<{v}, {w}>> \\in {{<<{e('int')}, {e('int')}>>}} \\cup ({e('set')} \\X {{1}})}}",
            lambda: self.choice(v, e("sset"), {v: "set"}, "{7}", depth, scope),
            lambda: f"(LET {w} == {e('fun')} IN {{{w}[{v}] : {v} \\in DOMAIN {w}}})",
        ])

    def node_seq(self, depth: int, scope: dict[str, str]) -> str:
        e = lambda ty: self.expr(ty, depth, scope)  # noqa: E731
        v, q, k = self.name(), self.name(), self.name()
        return self.ext("seq", depth, scope, [
            lambda: f"SelectSeq({e('seq')}, LAMBDA {v} : {self.with_('bool', depth, scope, **{v: 'int'})})",
            lambda: f"(LET {q} == <<{e('seq')}, {e('seq')}>> IN LET {k} == {e('int')} IN "
            f"IF {k} \\in DOMAIN {q}[2] THEN [{q} EXCEPT ![2][{k}] = @ + {e('int')}][2] ELSE {q}[1])",
            lambda: self.choice(v, f"{{{e('seq')}, {e('seq')}, {e('seq')}}}", {v: "seq"}, "<<7>>",
                                depth, scope),
            lambda: self.choice(f"<<{v}, {k}>>", f"{e('set')} \\X {{{e('int')}, {e('int')}}}",
                                {v: "int", k: "int"}, "<<7, 7>>", depth, scope),
        ])

    def node_rec(self, depth: int, scope: dict[str, str]) -> str:
        e = lambda ty: self.expr(ty, depth, scope)  # noqa: E731
        v, q = self.name(), self.name()
        return self.ext("rec", depth, scope, [
            lambda: self.choice(v, f"[a : {e('set')}, b : BOOLEAN]", {v: "rec"},
                                "[a |-> 7, b |-> TRUE]", depth, scope),
            lambda: f"(LET {q} == [c |-> {e('rec')}, d |-> 0] IN [{q} EXCEPT !.c.a = @ + 1, !.d = {e('int')}].c)",
            lambda: f"[{e('rec')} EXCEPT !.b = ~@, !.a = @ + 1]",
        ])


EXT_TYPES = (*TYPES, "fun", "sset")
# used by the expressions of ExtGen: a recursive operator whose result follows the order
# CHOOSE takes the elements in, and an operator taking an operator
EXT_PRELUDE = """RECURSIVE Weigh(_)
Weigh(S) == IF S = {} THEN 0 ELSE LET m == CHOOSE v \\in S : TRUE IN m + 2 * Weigh(S \\ {m})
Apply(F(_), v) == F(v)"""


@st.composite
def ext_modules(draw: Any) -> tuple[str, list[str]]:
    """Like ``modules``, with ExtGen's constructs: definitions (with a parameter of any
    kind, applied to values of two kinds) reached from inside quantifiers."""
    defs: dict[str, tuple[str, int]] = {}
    g = ExtGen(draw, defs)
    lines = [EXT_PRELUDE]
    for k in range(draw(st.integers(1, 3))):
        ty = g.pick(["int", "bool", "set", "fun", "sset"])
        if draw(st.booleans()):
            lines.append(f"D{k} == {g.expr(ty, 2, {})}")
            defs[f"D{k}"] = (ty, 0)
        else:
            lines.append(f"D{k}(p{k}) == {g.expr(ty, 2, {f'p{k}': 'int'})}")
            defs[f"D{k}"] = (ty, 1)
    lines.append(f"Poly(r) == {g.poly('r', 3, {})}")
    names = []
    for k in range(2):
        ty = g.pick(list(EXT_TYPES))
        v = g.name()
        inner = g.expr(ty, 2, {v: "int"})
        if k == 1 and draw(st.booleans()):
            inner = f"<<{inner}, <<Poly({v}), Poly({v} > 1)>>, <<Poly(<<{v}>>), Poly(<<{v} = 1>>)>>>>"
        lines.append(f"E{k} == {{ {inner} : {v} \\in (0..x) \\cup {{{draw(st.integers(0, 2))}}} }}")
        names.append(f"E{k}")
    return "\n".join(lines), names


FAILING = ["(x \\div (x - x))", "Head(<<>>)", "(3 \\div x)"]  # always, always, where x = 0


class LazyBody:
    """Draws operator bodies over integer parameters that read each parameter in some
    evaluations only: in one branch of IF or CASE, after /\\ \\/ =>, in a quantifier's
    body, a LET definition, an EXCEPT value, a call of an earlier operator."""

    def __init__(self, draw: Any, params: list[str], ops: list[tuple[str, int]]) -> None:
        self.draw, self.params, self.ops = draw, params, ops

    def pick(self, options: list[Any]) -> Any:
        got = options[self.draw(st.integers(0, len(options) - 1))]
        return got() if callable(got) else got

    def int_(self, depth: int, local: tuple[str, ...] = ()) -> str:
        leaves = [*self.params, *self.params, *local, "x", str(self.draw(st.integers(0, 3)))]
        if depth <= 0 or self.draw(st.integers(0, 3)) == 0:
            return str(self.pick(leaves))
        i = lambda: self.int_(depth - 1, local)  # noqa: E731
        b = lambda: self.bool_(depth - 1, local)  # noqa: E731
        d = f"d{depth}"
        options: list[Any] = [
            lambda: f"(IF {b()} THEN {i()} ELSE {i()})",
            lambda: f"(CASE {b()} -> {i()} [] {b()} -> {i()} [] OTHER -> {i()})",
            lambda: f"({i()} + {i()})",
            lambda: f"(LET {d} == {i()} IN {self.int_(depth - 1, (*local, d))})",
            lambda: f"(CHOOSE {d} \\in {{{i()}, {i()}}} : TRUE)",
            lambda: f"[<<{i()}, {i()}>> EXCEPT ![1 + ({i()} % 2)] = {i()}][1]",
            lambda: f"Len(<<{i()}>>)",
            lambda: f"Cardinality({{{d} \\in {{{i()}, {i()}}} : {self.bool_(depth - 1, (*local, d))}}})",
        ]
        if self.ops:
            options.append(lambda: self.call(depth - 1, local))
        return str(self.pick(options))

    def bool_(self, depth: int, local: tuple[str, ...] = ()) -> str:
        i = lambda: self.int_(depth - 1, local)  # noqa: E731
        b = lambda: self.bool_(depth - 1, local)  # noqa: E731
        if depth <= 0:
            return str(self.pick(["TRUE", "FALSE", "(x > 1)", lambda: f"({i()} > 1)"]))
        d = f"d{depth}"
        return str(self.pick([
            lambda: f"({i()} > {i()})", lambda: f"({b()} /\\ {b()})",
            lambda: f"({b()} \\/ {b()})", lambda: f"({b()} => {b()})", lambda: f"~{b()}",
            lambda: f"(\\E {d} \\in {{{i()}, {i()}}} : {self.bool_(depth - 1, (*local, d))})",
            lambda: f"(\\A {d} \\in y : {self.bool_(depth - 1, (*local, d))})", "(x > 1)",
        ]))

    def call(self, depth: int, local: tuple[str, ...]) -> str:
        name, arity = self.pick(self.ops)
        args = [self.pick(FAILING) if self.draw(st.integers(0, 2)) == 0
                else self.int_(depth, local) for _ in range(arity)]
        return f"{name}({', '.join(args)})"


@st.composite
def lazy_modules(draw: Any) -> tuple[str, list[str]]:
    """Operators of one to three integer parameters (``LazyBody``), called from inside a
    binder with arguments that may fail: as in TLC, an argument's error counts only where
    the body evaluates it (the strictness analysis and the deferred errors)."""
    lines = [EXT_PRELUDE]
    ops: list[tuple[str, int]] = []
    for k in range(draw(st.integers(1, 3))):
        params = [f"p{k}_{i}" for i in range(draw(st.integers(1, 3)))]
        body = LazyBody(draw, params, list(ops))
        # integers only (calls stand for integers; a set of TRUE and 1 is a pun to Python)
        text = body.int_(3) if draw(st.booleans()) else f"(IF {body.bool_(3)} THEN 1 ELSE 0)"
        lines.append(f"L{k}({', '.join(params)}) == {text}")
        ops.append((f"L{k}", len(params)))
    names = []
    for j in range(3):
        v = f"v{j}"
        caller = LazyBody(draw, [v], ops)
        lines.append(f"C{j} == {{ {caller.call(1, ())} : {v} \\in (0..x) \\cup "
                     f"{{{draw(st.integers(0, 2))}}} }}")
        names.append(f"C{j}")
    return "\n".join(lines), names


@st.composite
def modules(draw: Any) -> tuple[str, list[str]]:
    """A module with a few definitions (zero-arity ones with inner quantifiers over the
    state, unary ones) and expressions ``E0``, ``E1`` using them inside binders."""
    defs: dict[str, tuple[str, int]] = {}
    lines: list[str] = []
    g = Gen(draw, defs)
    for k in range(draw(st.integers(1, 3))):
        ty = g.pick(["int", "bool", "set"])
        if draw(st.booleans()):
            lines.append(f"D{k} == {g.expr(ty, 2, {})}")
            defs[f"D{k}"] = (ty, 0)
        else:
            lines.append(f"D{k}(p{k}) == {g.expr(ty, 2, {f'p{k}': 'int'})}")
            defs[f"D{k}"] = (ty, 1)
    names = []
    for k in range(2):
        ty = g.pick(list(TYPES))
        v = g.name()
        # reached from inside a quantifier: the environment is deeper than the definitions'
        inner = g.expr(ty, 2, {v: "int"})
        lines.append(f"E{k} == {{ {inner} : {v} \\in (0..x) \\cup {{{draw(st.integers(0, 2))}}} }}")
        names.append(f"E{k}")
    return "\n".join(lines), names


@st.composite
def mixed_modules(draw: Any) -> tuple[str, list[str]]:
    """Expressions over sets that may hold two kinds of values."""
    g = Gen(draw)
    names = [f"M{k}" for k in range(3)]
    return "\n".join(f"{n} == {g.mixed(1, {})}" for n in names), names


Shape = tuple[Any, ...]


class PunGen:
    """Draws TLA+ text over values that hold integers, booleans and strings in the same
    places, nested (a tuple in a record in a set, a function whose arguments are tuples of
    booleans ...), compared through every operator that compares values: ``=``, ``#``,
    ``\\in``, ``\\notin``, ``\\cup``, ``\\cap``, ``\\``, ``\\subseteq``, application and
    ``DOMAIN``, EXCEPT, set maps and filters, UNION, Cardinality, CHOOSE.

    A *shape* is the kind of every part of a value: a leaf ``("i",)``, ``("b",)``,
    ``("s",)`` (integer, boolean, string), a tuple ``("tup", parts)``, a record
    ``("rec", ((field, part), ...))``, a set ``("set", element)`` or a function
    ``("fun", argument, value)``. Every expression has one shape, and every set it builds
    holds values of one shape, which TLC can sort. A comparison puts a value of a shape
    beside one of a *variant* of it (some leaves of another kind: mostly an integer for a
    boolean or the reverse, a string sometimes): both are drawn from one abstract value
    (0 or 1 at each leaf, seldom 2), so that they are often *twins*, values Python finds
    equal (``<<0>> == <<FALSE>>``) that TLC fails to compare.

    Kept out, where TLC's answer is not the engine's to give or not known (see values.py,
    ``unequal_or_fail``: not judged): a set holding values of two shapes is never built
    inside an expression (TLC fails to sort ``{<<2>>, <<FALSE>>}`` when it enumerates, counts
    or compares it; the engine does not look inside elements for that), except in a
    definition's final value (``S \\cup T``, ``{a, b}``, ``UNION {{a}, {b}}``,
    ``Cardinality({a, b})``: not judged, unless a and b are twins, which both refuse: the
    engine cannot hold both, ``{<<0>>, <<FALSE>>}``);
    the bodies of \\E, \\A and CHOOSE compare values of one shape (``about``).
    EXCEPT takes keys of the arguments' shape or of a variant of it, over any domain
    (sequences too): TLC looks the key up in the domain first and fails where that lookup
    fails (rule X1 of ``unequal_or_fail``).
    """

    def __init__(self, draw: Any) -> None:
        self.draw = draw
        self.fresh = itertools.count()

    def name(self) -> str:
        return f"w{next(self.fresh)}"

    def pick(self, options: list[Any]) -> Any:
        got = options[self.draw(st.integers(0, len(options) - 1))]
        return got() if callable(got) else got

    def coin(self, n: int = 2) -> bool:
        return bool(self.draw(st.integers(0, n - 1)) == 0)

    # shapes ------------------------------------------------------------------------------

    def shape(self, depth: int) -> Shape:
        if depth <= 0 or self.coin(3):
            return (self.pick(["i", "i", "b", "b", "s"]),)
        d = depth - 1
        return tuple(self.pick([
            lambda: ("tup", tuple(self.shape(d) for _ in range(self.draw(st.integers(1, 2))))),
            lambda: ("rec", tuple((f, self.shape(d)) for f in self.pick([("a",), ("a", "b")]))),
            lambda: ("set", self.shape(d)),
            lambda: ("fun", self.shape(d), self.shape(d)),
        ]))

    def variant(self, sh: Shape) -> Shape:
        """``sh`` with some leaves of another kind (or ``sh`` itself)."""
        if len(sh) == 1:
            if self.coin(2):
                return sh
            return (self.pick({"i": ["b", "b", "b", "s"], "b": ["i", "i", "i", "s"],
                               "s": ["i", "b"]}[sh[0]]),)
        tag = sh[0]
        if tag == "tup":
            return ("tup", tuple(self.variant(x) for x in sh[1]))
        if tag == "rec":
            return ("rec", tuple((f, self.variant(x)) for f, x in sh[1]))
        if tag == "set":
            return ("set", self.variant(sh[1]))
        return ("fun", self.variant(sh[1]), self.variant(sh[2]))

    def abstract(self, sh: Shape) -> Any:
        """An abstract value of ``sh``: 0 or 1 (seldom 2) at each leaf."""
        tag = sh[0]
        if len(sh) == 1:
            return 2 if self.draw(st.integers(0, 7)) == 7 else self.draw(st.integers(0, 1))
        if tag == "tup":
            return [self.abstract(x) for x in sh[1]]
        if tag == "rec":
            return [self.abstract(x) for _, x in sh[1]]
        if tag == "set":
            return [self.abstract(sh[1]) for _ in range(self.draw(st.integers(0, 2)))]
        return [(self.abstract(sh[1]), self.abstract(sh[2])) for _ in range(self.draw(st.integers(1, 2)))]

    def render(self, sh: Shape, a: Any) -> str:
        """The abstract value ``a`` written as a value of ``sh`` (sometimes through the state
        variable x, so that it is not folded, or a leaf that depends on x)."""
        tag = sh[0]
        if tag == "i":
            return str(self.pick([str(a), str(a), f"(x - x + {a})", "(x % 2)"]))
        if tag == "b":
            lit = "TRUE" if a % 2 else "FALSE"
            return str(self.pick([lit, lit, f"(x = x /\\ {lit})", "(x > 0)"]))
        if tag == "s":
            return str(self.pick([f'"{"abc"[a]}"', '"a"']))
        if tag == "tup":
            return "<<" + ", ".join(self.render(x, y) for x, y in zip(sh[1], a, strict=True)) + ">>"
        if tag == "rec":
            return "[" + ", ".join(f"{f} |-> {self.render(x, y)}"
                                   for (f, x), y in zip(sh[1], a, strict=True)) + "]"
        if tag == "set":
            return "{" + ", ".join(self.render(sh[1], y) for y in a) + "}"
        w = self.name()
        keys = [self.render(sh[1], k) for k, _ in a]
        vals = [self.render(sh[2], v) for _, v in a]
        if len(keys) == 1:
            return f"[{w} \\in {{{keys[0]}}} |-> {vals[0]}]"
        return f"[{w} \\in {{{keys[0]}, {keys[1]}}} |-> IF {w} = {keys[0]} THEN {vals[0]} ELSE {vals[1]}]"

    def literal(self, sh: Shape) -> str:
        return self.render(sh, self.abstract(sh))

    def pair(self, sh: Shape) -> tuple[str, str]:
        """A value of ``sh`` and one of a variant of it, from one abstract value (twins,
        often) or from two."""
        other = self.variant(sh)
        a = self.abstract(sh)
        b = self.abstract(sh) if self.draw(st.integers(0, 3)) == 3 else a
        return self.render(sh, a), self.render(other, b)

    # expressions of a shape ------------------------------------------------------------

    def value(self, sh: Shape, depth: int) -> str:
        """An expression of shape ``sh``."""
        if sh[0] == "set":
            return self.set_of(sh[1], depth)
        if depth <= 0 or self.coin(2):
            return self.literal(sh)
        d = depth - 1
        w, g = self.name(), self.name()
        options: list[Any] = [
            lambda: f"(IF {self.test(d)} THEN {self.value(sh, d)} ELSE {self.value(sh, d)})",
            lambda: f"(LET {g} == {self.set_of(sh, d)} IN IF {g} = {{}} THEN {self.literal(sh)} "
            f"ELSE CHOOSE {w} \\in {g} : TRUE)",
            lambda: self.choice(sh, d),
            lambda: self.applied(sh, d),
        ]
        if sh[0] == "rec":
            f, fsh = self.pick(list(sh[1]))
            options.append(lambda: f"[{self.value(sh, d)} EXCEPT !.{f} = {self.value(fsh, d)}]")
        if sh[0] == "fun":
            options.append(lambda: self.excepted(sh, d))
        return str(self.pick(options))

    def choice(self, sh: Shape, depth: int) -> str:
        """CHOOSE an element of a set of ``sh`` meeting a test that compares it with values
        of a variant (the least in TLC's order), or a literal when none does."""
        w, g = self.name(), self.name()
        pred = self.about(w, sh, depth, safe=True)
        return (f"(LET {g} == {self.set_of(sh, depth)} IN IF \\E {w} \\in {g} : {pred} "
                f"THEN CHOOSE {w} \\in {g} : {pred} ELSE {self.literal(sh)})")

    def about(self, w: str, sh: Shape, depth: int, safe: bool = False) -> str:
        """A test of the bound name ``w`` (of shape ``sh``) against values of a variant;
        ``safe``: of ``sh`` itself, a test that never fails (in the body of \\E, \\A and
        CHOOSE, which TLC stops evaluating at the first element that decides, in its order
        of the elements, where the engine takes them in another order)."""
        other = sh if safe else self.variant(sh)
        return str(self.pick([
            lambda: f"({w} = {self.value(other, depth)})", lambda: f"({w} # {self.value(other, depth)})",
            lambda: f"({w} \\in {self.set_of(other, depth)})",
            lambda: f"({w} \\notin {self.set_of(other, depth)})",
            lambda: f"({{{w}}} \\subseteq {self.set_of(other, depth)})",
        ]))

    def applied(self, sh: Shape, depth: int) -> str:
        """A function whose values are of ``sh`` applied to an argument, of the arguments'
        shape or a variant (guarded by \\in DOMAIN or not: outside the domain both fail)."""
        ksh = self.shape(1)
        f, k = self.name(), self.name()
        fn = self.value(("fun", ksh, sh), depth)
        arg = self.value(self.variant(ksh), depth)
        if self.coin(2):
            return f"({fn})[{arg}]"
        return (f"(LET {f} == {fn} IN LET {k} == {arg} IN IF {k} \\in DOMAIN {f} "
                f"THEN {f}[{k}] ELSE {self.literal(sh)})")

    def excepted(self, sh: Shape, depth: int) -> str:
        """``[f EXCEPT ![k] = v]``: the key of the arguments' shape or of a variant (in the
        domain, a twin of an argument, or neither); several updates, @."""
        ksh = sh[1]
        if self.coin(2):  # a key drawn from an argument, of a variant: a twin, often
            a = self.abstract(sh)
            fn = self.render(sh, a)
            key = self.pick(a)[0]
            k1 = self.render(self.variant(ksh), key)
        else:
            fn = self.value(sh, depth)
            k1 = self.value(self.variant(ksh), depth)
        k2 = self.value(self.variant(ksh), depth)
        v1, v2 = self.value(sh[2], depth), self.value(sh[2], depth)
        return str(self.pick([
            f"[{fn} EXCEPT ![{k1}] = {v1}]",
            f"[{fn} EXCEPT ![{k1}] = {v1}, ![{k2}] = {v2}]",
            f"[{fn} EXCEPT ![{k1}] = @]",
            lambda: f"[{fn} EXCEPT ![{k1}] = {v1}, ![{k2}] = @]",
        ]))

    def set_of(self, sh: Shape, depth: int) -> str:
        """An expression whose value is a set of values of shape ``sh`` (only)."""
        if depth <= 0 or self.coin(3):
            return self.literal(("set", sh))
        d = depth - 1
        other = self.variant(sh)
        w, v = self.name(), self.name()
        src = self.shape(1)
        options: list[Any] = [
            lambda: f"({self.set_of(sh, d)} \\cup {self.set_of(sh, d)})",
            lambda: f"({self.set_of(sh, d)} \\cap {self.set_of(other, d)})",
            lambda: f"({self.set_of(sh, d)} \\ {self.set_of(other, d)})",
            lambda: f"{{{w} \\in {self.set_of(sh, d)} : {self.about(w, sh, d)}}}",
            lambda: f"{{IF {self.about(w, src, d)} THEN {self.value(sh, d)} ELSE {self.value(sh, d)} : "
            f"{w} \\in {self.set_of(src, d)}}}",
            lambda: f"{{{self.value(sh, d)} : {w} \\in {self.set_of(src, d)}}}",
            lambda: f"UNION {{{self.set_of(sh, d)}, {self.set_of(sh, d)}}}",
            lambda: f"UNION {{{self.set_of(sh, d)} : {w} \\in {self.set_of(src, d)}}}",
            lambda: f"DOMAIN {self.value(('fun', sh, self.shape(1)), d)}",
            lambda: f"(IF {self.test(d)} THEN {self.set_of(sh, d)} ELSE {self.set_of(sh, d)})",
        ]
        if sh[0] == "tup" and len(sh[1]) == 1:
            options.append(lambda: f"{{<<{v}>> : {v} \\in {self.set_of(sh[1][0], d)}}}")
        return str(self.pick(options))

    # the comparisons ---------------------------------------------------------------------

    def test(self, depth: int) -> str:
        """A boolean comparing values of a shape with values of a variant of it."""
        sh = self.shape(2)
        other = self.variant(sh)
        w = self.name()
        d = max(depth - 1, 0)
        a, b = self.pair(sh)
        if self.coin(2):  # through expressions, not only literals
            a, b = self.value(sh, d), self.value(other, d)
        return str(self.pick([
            f"({a} = {b})", f"({a} # {b})",
            lambda: f"({a} \\in {self.set_of(other, d)})", lambda: f"({a} \\notin {self.set_of(other, d)})",
            lambda: f"({{{a}}} \\in {{{{{b}}}, {self.set_of(other, d)}}})",
            lambda: f"({self.set_of(sh, d)} \\subseteq {self.set_of(other, d)})",
            lambda: f"({self.set_of(sh, d)} = {self.set_of(other, d)})",
            lambda: f"({a} \\in DOMAIN {self.value(('fun', other, self.shape(1)), d)})",
            lambda: f"(\\E {w} \\in {self.set_of(sh, d)} : {self.about(w, sh, d, safe=True)})",
            lambda: f"(\\A {w} \\in {self.set_of(sh, d)} : {self.about(w, sh, d, safe=True)})",
            lambda: f"(Cardinality({self.set_of(sh, d)} \\ {self.set_of(other, d)}) > 0)",
            lambda: f"(<<{a}, 1>> = <<{b}, 2>>)", lambda: f"([a |-> {a}] # [a |-> {b}])",
            lambda: f"({{{a}}} = {{{b}}})",
        ]))

    def twins(self, depth: int) -> str:
        """The operators that compare, on values drawn from one abstract value in a shape
        and in a variant of it (twins, often): a set built of both, =, \\in, \\subseteq,
        the set operators, application, DOMAIN and EXCEPT with such keys."""
        sh = self.shape(2)
        other = self.variant(sh)
        (a1, b1), (a2, b2) = (self.pair_in(sh, other) for _ in "12")
        c = self.value(other, max(depth - 1, 0))
        options = [
            f"{{{a1}, {b1}}}", f"UNION {{{{{a1}}}, {{{b1}}}}}", f"Cardinality({{{a1}, {b1}}})",
            f"({{{a1}, {a2}}} = {{{b1}, {b2}}})", f"({{{a1}, {a2}}} # {{{b1}, {b2}}})",
            f"({a1} \\in {{{b1}}})", f"({a1} \\in {{{b1}, {c}}})", f"({a1} \\notin {{{c}, {b1}}})",
            f"({{{a1}, {a2}}} \\subseteq {{{b1}, {c}}})", f"({{{a1}}} \\cup {{{b1}, {c}}})",
            f"({{{a1}, {a2}}} \\cap {{{b1}}})", f"({{{a1}, {a2}}} \\ {{{b2}, {c}}})",
            f"[k \\in {{{a1}, {a2}}} |-> 7][{b1}]", f"({b1} \\in DOMAIN [k \\in {{{a1}, {a2}}} |-> 7])",
            f"(<<{a1}, {a2}>> = <<{b1}, {b2}>>)", f"([a |-> {a1}, b |-> {a2}] = [a |-> {b1}, b |-> {b2}])",
            f"([k \\in {{{a1}}} |-> {a2}] = [k \\in {{{b1}}} |-> {b2}])",
            f"(CHOOSE k \\in {{{a1}, {a2}}} : TRUE) = {b1}",
        ]
        options += [f"[[k \\in {{{a1}, {a2}}} |-> 7] EXCEPT ![{b1}] = 8]",
                    f"[[k \\in {{{a1}}} |-> <<7>>] EXCEPT ![{b1}][1] = 8, ![{a1}] = @]"]
        return str(self.pick(options))

    def pair_in(self, sh: Shape, other: Shape) -> tuple[str, str]:
        """Values of ``sh`` and ``other`` from one abstract value (or two, seldom)."""
        a = self.abstract(sh)
        b = self.abstract(sh) if self.draw(st.integers(0, 3)) == 3 else a
        return self.render(sh, a), self.render(other, b)

    def top(self, depth: int) -> str:
        """A definition's body: a comparison, or a value built through the operators that
        compare (a set of two shapes only here, as a final value)."""
        sh = self.shape(2)
        other = self.variant(sh)
        return str(self.pick([
            lambda: self.test(depth),
            lambda: self.twins(depth), lambda: self.twins(depth),
            lambda: self.value(sh, depth),
            lambda: f"({self.set_of(sh, depth)} \\cup {self.set_of(other, depth)})",
            lambda: f"({self.set_of(sh, depth)} \\cap {self.set_of(other, depth)})",
            lambda: f"({self.set_of(sh, depth)} \\ {self.set_of(other, depth)})",
            lambda: f"Cardinality({self.set_of(sh, depth)})",
            lambda: f"<<{self.value(sh, depth)}, {self.value(other, depth)}>>",
            lambda: self.excepted(("fun", self.shape(1), self.shape(1)), depth),
            lambda: self.seq_excepted(depth),
        ]))

    def seq_excepted(self, depth: int) -> str:
        """``[s EXCEPT ![k] = v]`` for a sequence s (a tuple, or a function over 1..n) and a
        key k that is an integer (in 1..Len(s) or not), or a boolean or string in its place."""
        vsh = self.shape(1)
        items = [self.value(vsh, depth) for _ in range(self.draw(st.integers(1, 2)))]
        w = self.name()
        seq = self.pick([f"<<{', '.join(items)}>>",
                         f"[{w} \\in 1..{len(items)} |-> <<{', '.join(items)}>>[{w}]]"])
        k = self.render(self.variant(("i",)), self.abstract(("i",)))
        return f"[{seq} EXCEPT ![{k}] = {self.value(vsh, depth)}]"


@st.composite
def pun_modules(draw: Any) -> tuple[str, list[str]]:
    """Definitions over values holding integers, booleans and strings in the same places
    (``PunGen``)."""
    g = PunGen(draw)
    names = [f"P{k}" for k in range(3)]
    return "\n".join(f"{n} == {g.top(2)}" for n in names), names


STATES = [(x, frozenset(y)) for x in (0, 1, 3) for y in ((), (1,), (0, 2, 3))]


def engine_value(model: Model, name: str, state: tuple[Any, ...]) -> Any:
    try:
        return ("ok", R.from_engine(model.eval_state(name, state)))
    except TlaError as exc:
        return ("error", type(exc).__name__)


def reference_value(interp: R.Interp, name: str, state: tuple[Any, ...]) -> Any:
    interp.s = {"x": R.from_engine(state[0]), "y": R.from_engine(state[1])}
    interp.t = None
    try:
        return ("ok", interp.ev(S.Name(S.NO_LOC, name), {}))
    except R.RefError:
        return ("error", "EvalError")


def compare_module(body: str, names: list[str]) -> None:
    text = f"---- MODULE D ----\n{HEADER}\nVARIABLES x, y\n{body}\n====\n"
    module = parse_module_text(text, "D.tla")
    model = Model(module, ModuleLoader([]))
    interp = R.Interp(module, {})
    for state in STATES:
        for name in names:
            got = engine_value(model, name, state)
            want = reference_value(interp, name, state)
            assert got == want, \
                f"{name} in state {state}\n{text}"


@FAST
@given(mixed_modules())
def test_sets_of_two_kinds_agree_with_the_reference(mod: tuple[str, list[str]]) -> None:
    compare_module(*mod)


@FAST
@given(modules())
def test_compiled_expressions_agree_with_the_reference(mod: tuple[str, list[str]]) -> None:
    compare_module(*mod)


@pytest.mark.slow
@LONG
@given(modules())
def test_compiled_expressions_agree_with_the_reference_long(mod: tuple[str, list[str]]) -> None:
    compare_module(*mod)


@FAST_EXT
@given(ext_modules())
def test_more_constructs_agree_with_the_reference(mod: tuple[str, list[str]]) -> None:
    compare_module(*mod)


@pytest.mark.slow
@LONG
@given(ext_modules())
def test_more_constructs_agree_with_the_reference_long(mod: tuple[str, list[str]]) -> None:
    compare_module(*mod)


@FAST_EXT
@given(pun_modules())
def test_puns_inside_values_agree_with_the_reference(mod: tuple[str, list[str]]) -> None:
    compare_module(*mod)


@pytest.mark.slow
@LONG
@given(pun_modules())
def test_puns_inside_values_agree_with_the_reference_long(mod: tuple[str, list[str]]) -> None:
    compare_module(*mod)


@FAST_EXT
@given(lazy_modules())
def test_unused_arguments_agree_with_the_reference(mod: tuple[str, list[str]]) -> None:
    compare_module(*mod)


@pytest.mark.slow
@LONG
@given(lazy_modules())
def test_unused_arguments_agree_with_the_reference_long(mod: tuple[str, list[str]]) -> None:
    compare_module(*mod)


# -- small specs: the explorer against the reference's search ------------------------------


@st.composite
def specs(draw: Any) -> tuple[str, str]:
    """A spec over x \\in 0..3 and y \\subseteq 0..3 with actions taking parameters, some
    assigning through an operator parameter, and an invariant; and its cfg."""
    g = Gen(draw)
    acts = []
    lines = ["Set(v, n) == v' = n", "Keep(v) == UNCHANGED v"]
    for k in range(draw(st.integers(1, 3))):
        # a guard with \/ and \E (TLC walks them in branches even where they assign
        # nothing, and counts a successor once per branch), before or after the assignments
        guard = g.expr("bool", 2, {"i": "int"})
        nx = g.expr("int", 2, {"i": "int"})
        ny = g.expr("set", 1, {"i": "int"})
        assign_x = g.pick([f"x' = ({nx}) % 4", f"Set(x, ({nx}) % 4)", "Keep(x)"])
        assign_y = g.pick([f"y' = ({ny}) \\cap (0..3)", f"Set(y, ({ny}) \\cap (0..3))",
                           "UNCHANGED y", "y' \\in {y, y \\cup {x}}"])
        lines.append(g.pick([f"A{k}(i) == {guard} /\\ {assign_x} /\\ {assign_y}",
                             f"A{k}(i) == {assign_x} /\\ {guard} /\\ {assign_y}",
                             f"A{k}(i) == {assign_x} /\\ {assign_y} /\\ {guard}"]))
        acts.append(f"\\E i \\in {g.pick(['0..1', '{x}', 'y', '{2}'])} : A{k}(i)")
    return spec_end(draw, g, lines, acts)


def spec_end(draw: Any, g: Gen, lines: list[str], acts: list[str]) -> tuple[str, str]:
    """A random spec's body and cfg from its definitions and actions: Init, Next, an
    invariant of two conjuncts (one through a definition: the checker skips a conjunct
    whose variables a step left as they were in the state it came from), a CONSTRAINT, and
    the invariant checked or not."""
    lines = [*lines, "Init == x \\in 0..1 /\\ y = {}", "Next == " + " \\/ ".join(acts),
             f"InvA == {g.expr('bool', 2, {})}", f"Inv == InvA /\\ {g.expr('bool', 2, {})}",
             f"Small == {g.pick(['TRUE', 'x < 3', 'Cardinality(y) < 2'])}"]
    cfg = "INIT Init\nNEXT Next\nCONSTRAINT Small\nCHECK_DEADLOCK FALSE\n"
    if draw(st.booleans()):
        cfg += "INVARIANT Inv\n"
    return "\n".join(lines), cfg


@st.composite
def ext_specs(draw: Any) -> tuple[str, str]:
    """Like ``specs``, with ExtGen's expressions and more ways to assign: through an
    operator of two assignments, under IF and LET, after a read of a primed variable (in a
    guard operator and on a right-hand side), \\E with a tuple binder or two names sharing
    a domain, arguments reaching the bound variables, and UNCHANGED of both variables."""
    g = ExtGen(draw)
    acts = []
    lines = [EXT_PRELUDE, "Set(v, n) == v' = n", "Keep(v) == UNCHANGED v",
             "Both(a, b) == Set(x, a) /\\ Set(y, b)", "Big(n) == n > 1"]
    scope = {"i": "int", "j": "int"}
    for k in range(draw(st.integers(1, 3))):
        guard = f"(IF {g.expr('bool', 2, scope)} THEN TRUE ELSE FALSE)"
        nx = f"({g.expr('int', 2, scope)}) % 4"
        ny = f"({g.expr('set', 1, scope)}) \\cap (0..3)"
        assign = g.pick([
            f"Set(x, {nx}) /\\ y' = {ny}",
            f"Both({nx}, {ny})",
            f"LET n == {nx} IN x' = n /\\ Set(y, {ny})",
            f"IF {g.expr('bool', 1, scope)} THEN x' = {nx} /\\ UNCHANGED y ELSE Both({nx}, {ny})",
            f"x' = {nx} /\\ y' = IF Big(x') THEN {{x'}} ELSE {ny}",
            f"x' = {nx} /\\ (IF Big(x') THEN TRUE ELSE FALSE) /\\ Keep(y)",
            f"x' \\in {{{nx}, ({g.expr('int', 1, scope)}) % 4}} /\\ y' = {{x'}} \\cup y",
            "UNCHANGED <<x, y>>",
        ])
        lines.append(f"A{k}(i, j) == {guard} /\\ {assign}")
        one = g.pick(["0..1", "{x}", "y", "{v \\in 0..3 : v > x}"])
        pairs = g.pick(["{x} \\X y", "(0..1) \\X {2}"])
        first = g.pick(["0..1", "y"])
        acts.append(g.pick([
            f"\\E i, j \\in {one} : A{k}(i, j)",
            f"\\E <<i, j>> \\in {pairs} : A{k}(i, j)",
            f"\\E i \\in {first}, j \\in {{v \\in 0..2 : v >= i}} : A{k}(i, j)",
        ]))
    return spec_end(draw, g, lines, acts)


@st.composite
def pun_specs(draw: Any) -> tuple[str, str]:
    """A spec whose variable y holds values of a shape and of a variant of it (``PunGen``),
    twins often (``<<0>>`` in one state, ``<<FALSE>>`` in another: two states), assigned
    under guards comparing values of the two shapes (which may fail in some states: the
    invariant, on x only, never fails, so that the first failure found does not depend on
    the order of the search)."""
    g = PunGen(draw)
    sh = g.shape(2)
    other = g.variant(sh)
    pairs = []
    for _ in range(3):
        a = g.abstract(sh)
        pairs.append((g.render(sh, a), g.render(other, a)))
    lines, acts = [f"Init == x \\in 0..1 /\\ y = {pairs[0][0]}"], []
    for k in range(draw(st.integers(1, 3))):
        # a plain boolean (IF): see ``specs``
        guard = g.pick(["TRUE", "x < 2", lambda: f"IF {g.test(1)} THEN TRUE ELSE FALSE"])
        (a1, b1), (a2, _) = g.pick(pairs), g.pick(pairs)
        assign = g.pick([
            f"y' = IF x = 0 THEN {a1} ELSE {b1}", f"y' = {b1}", f"y' \\in {{{a1}, {a2}}}",
            "UNCHANGED y", f"y' = IF y = {a1} THEN {a2} ELSE {a1}",
            lambda: f"y' = {g.value(g.pick([sh, other]), 1)}",
        ])
        lines.append(f"A{k} == ({guard}) /\\ x' = (x + {k + 1}) % 3 /\\ {assign}")
        acts.append(f"A{k}")
    lines += ["Next == " + " \\/ ".join(acts), "Inv == x \\in 0..3"]
    return "\n".join(lines), "INIT Init\nNEXT Next\nINVARIANT Inv\nCHECK_DEADLOCK FALSE\n"


def compare_spec(body: str, cfg_text: str) -> None:
    text = f"---- MODULE P ----\n{HEADER}\nVARIABLES x, y\n{body}\n====\n"
    module = parse_module_text(text, "P.tla")
    config = parse_config(cfg_text)
    try:
        ref = R.explore(module, {}, "Init", "Next", config.invariants, config.constraints)
    except R.RefError:
        ref = None
    got = check(Model(module, ModuleLoader([])), config, progress=False)
    if ref is None:
        assert got.verdict == "error", text
        return
    if ref.violation is not None:
        assert (got.verdict, got.property) == ("violation", ref.violation), text
        return
    assert got.verdict == "ok", f"{got.message}\n{text}"
    assert (got.distinct_states, got.depth, got.states_generated) == (
        ref.distinct, ref.depth, ref.generated), text


@FAST
@given(specs())
def test_explorer_agrees_with_the_reference_search(spec: tuple[str, str]) -> None:
    compare_spec(*spec)


@pytest.mark.slow
@LONG
@given(specs())
def test_explorer_agrees_with_the_reference_search_long(spec: tuple[str, str]) -> None:
    compare_spec(*spec)


@FAST_EXT_SPECS
@given(ext_specs())
def test_explorer_agrees_on_more_constructs(spec: tuple[str, str]) -> None:
    compare_spec(*spec)


@pytest.mark.slow
@LONG
@given(ext_specs())
def test_explorer_agrees_on_more_constructs_long(spec: tuple[str, str]) -> None:
    compare_spec(*spec)


@FAST_EXT_SPECS
@given(pun_specs())
def test_explorer_agrees_on_puns_inside_states(spec: tuple[str, str]) -> None:
    compare_spec(*spec)


@pytest.mark.slow
@LONG
@given(pun_specs())
def test_explorer_agrees_on_puns_inside_states_long(spec: tuple[str, str]) -> None:
    compare_spec(*spec)


def compare_workers(body: str, cfg_text: str, max_states: int | None = None) -> None:
    """Two workers give one worker's answer: verdict, message, counterexample and counts
    (also where the search stops: at a violation, an error, a deadlock or ``max_states``)."""
    text = f"---- MODULE P ----\n{HEADER}\nVARIABLES x, y\n{body}\n====\n"
    module = parse_module_text(text, "P.tla")
    one, two = (check(Model(module, ModuleLoader([])), parse_config(cfg_text), progress=False,
                      workers=n, max_states=max_states) for n in (1, 2))
    assert (two.verdict, two.property, two.message, two.trace) == (
        one.verdict, one.property, one.message, one.trace), text
    assert (two.states_generated, two.distinct_states, two.depth, two.queue_left) == (
        one.states_generated, one.distinct_states, one.depth, one.queue_left), text


ACTION_TEMPLATES = (
    "x' = (x + {a}) % 6 /\\ UNCHANGED y",
    "y' = y \\cup {{{b}}} /\\ UNCHANGED x",
    "x' = Cardinality(y) + {a} /\\ y' = y \\ {{{b}}}",
    "\\E i \\in 0..3 : i # x /\\ x' = i /\\ y' = y \\cup {{i}}",
    "x > {b} /\\ x' = x - 1 /\\ y' = {{v \\in y : v # {a}}}",
    "\\E s \\in SUBSET {{{a}, {b}}} : x' = x /\\ y' = s",
)


@st.composite
def stopping_specs(draw: Any) -> tuple[str, str]:
    """A spec over x \\in 0..6 and y \\subseteq 0..3 with many states per level, so that the
    order in which states are expanded and their successors taken matters, and something
    that stops the search late: a state to avoid, an invariant that fails to evaluate in
    some state, a deadlock (the actions stop at some x), or nothing; a CONSTRAINT and an
    ACTION_CONSTRAINT drop some states."""
    acts = [draw(st.sampled_from(ACTION_TEMPLATES)).format(a=draw(st.integers(0, 3)),
                                                             b=draw(st.integers(0, 3)))
            for _ in range(draw(st.integers(2, 4)))]
    x, n, stop = draw(st.integers(2, 5)), draw(st.integers(0, 2)), draw(st.integers(0, 3))
    guard = f"x # {x} /\\ " if stop == 2 else ""
    lines = [f"A{k} == {guard}{a}" for k, a in enumerate(acts)]
    lines += ["Init == x \\in 0..1 /\\ y = {}", "Next == " + " \\/ ".join(f"A{k}" for k in range(len(acts))),
              f"Avoid == ~(x = {x} /\\ Cardinality(y) >= {n})",
              f"Fails == x # {x} \\/ Cardinality(y) < {n} \\/ <<>>[1] = 1",
              f"Small == Cardinality(y) < {draw(st.integers(2, 4))}",
              f"Step == x' # {draw(st.integers(0, 5))} \\/ y' = y"]
    cfg = "INIT Init\nNEXT Next\nCONSTRAINT Small\nACTION_CONSTRAINT Step\n"
    cfg += ["INVARIANT Avoid\n", "INVARIANT Fails\n", "", "CHECK_DEADLOCK FALSE\n"][stop]
    return "\n".join(lines), cfg


@FAST
@given(stopping_specs(), st.sampled_from([None, 6]))
def test_two_workers_agree_with_one(spec: tuple[str, str], max_states: int | None) -> None:
    compare_workers(*spec, max_states)


@pytest.mark.slow
@LONG
@given(stopping_specs(), st.sampled_from([None, 6]))
def test_two_workers_agree_with_one_long(spec: tuple[str, str], max_states: int | None) -> None:
    compare_workers(*spec, max_states)


# -- hand-written specs: counts from the reference's own search -----------------------------

REGRESSIONS = Path(__file__).parent / "regressions"


def test_reference_search_gives_tlc_answer_on_scope5() -> None:
    # The reference itself must give TLC's answer (11 distinct states) before it is
    # trusted on the specs TLC was not run on.
    module = parse_module_text((REGRESSIONS / "Scope5.tla").read_text(), "Scope5.tla")
    rm = frozenset(ModelValue(n) for n in "abc")
    ref = R.explore(module, {"RM": rm}, "Init", "Next", ["Inv"])
    assert (ref.violation, ref.distinct) == (None, 11)


@pytest.mark.slow
def test_paxos_counts_agree_with_the_reference() -> None:
    text = (REGRESSIONS / "Paxos.tla").read_text()
    module = parse_module_text(text, "Paxos.tla")
    acc = [ModelValue(a) for a in ("a1", "a2", "a3")]
    consts = {"Value": frozenset({ModelValue("v1"), ModelValue("v2")}), "Acceptor": frozenset(acc),
              "Quorum": frozenset(frozenset(q) for q in itertools.combinations(acc, 2)),
              "None": ModelValue("None")}
    ref = R.explore(module, consts, "Init", "Next", ["Consistency"])
    assert ref.violation is None
    assert ref.distinct == 3921  # the count the engine reports (test_regressions.py)


def test_record_values_compare_strictly() -> None:
    assert R.from_engine(make_record([("a", 0)])) != R.from_engine(make_record([("a", False)]))


def test_arguments_are_evaluated_only_where_used() -> None:
    # By hand, as TLC substitutes arguments: Head(Q) fails in every state below (x < 5), so
    # each name is an error exactly when its operator's body reaches that argument.
    text = (f"---- MODULE K ----\n{HEADER}\nVARIABLES x, y\n"
            "Pick(c, a, b) == IF c THEN a ELSE b\nQ == IF x > 5 THEN <<1>> ELSE <<>>\n"
            "Ap(F(_, _), u, v) == F(u, v)\nFirst(a, b) == a\nBoth(a, b) == a + b\n"
            "Pass(a, b) == Pick(TRUE, a, b)\nGuard(c, a) == c /\\ a\n"
            "Twice(a, b) == LET d == b + b IN IF a > 0 THEN a ELSE d\n"
            "Unused == Pick(TRUE, 0, Head(Q))\nUsed == Pick(FALSE, 0, Head(Q))\n"
            "Passed == Pass(0, Head(Q))\nViaOperator == Ap(First, 0, Head(Q))\n"
            "ViaLambda == Ap(LAMBDA a, b : b, Head(Q), 1)\nStrict == Both(0, Head(Q))\n"
            "StrictViaOperator == Ap(First, Head(Q), 0)\nBuiltinOperator == Ap(+, 1, Head(Q))\n"
            "ShortCircuit == Guard(FALSE, Head(Q) = 1)\nLetUnused == Twice(1, Head(Q))\n"
            "LetUsed == Twice(0, Head(Q))\nInLet == LET G(a, b) == b IN G(Head(Q), 3)\n"
            "InQuantifier == \\A v \\in 0..x : Pick(v >= 0, v, Head(Q)) >= 0\n"
            "Index(s, k) == IF k > 0 THEN s[k] ELSE 0\nFwd(a, b) == IF a THEN Both(b, 1) ELSE 0\n"
            "IndexUsed == Index(Head(Q), 1)\nIndexUnused == Index(Head(Q), 0)\n"
            "FwdUsed == Fwd(TRUE, Head(Q))\nFwdUnused == Fwd(FALSE, Head(Q))\n====\n")
    module = parse_module_text(text, "K.tla")
    model = Model(module, ModuleLoader([]))
    interp = R.Interp(module, {})
    error = ("error", "EvalError")
    want = {"Unused": ("ok", R.I(0)), "Used": error, "Passed": ("ok", R.I(0)),
            "ViaOperator": ("ok", R.I(0)), "ViaLambda": ("ok", R.I(1)), "Strict": error,
            "StrictViaOperator": error, "BuiltinOperator": error,
            "ShortCircuit": ("ok", R.B(False)), "LetUnused": ("ok", R.I(1)), "LetUsed": error,
            "InLet": ("ok", R.I(3)), "InQuantifier": ("ok", R.B(True)), "IndexUsed": error,
            "IndexUnused": ("ok", R.I(0)), "FwdUsed": error, "FwdUnused": ("ok", R.I(0))}
    for state in STATES:
        for name, value in want.items():
            assert engine_value(model, name, state) == value, (name, state)
            assert reference_value(interp, name, state) == value, (name, state)
            if value == error:  # the argument's own error, raised where the body reads it
                with pytest.raises(TlaError, match=r"^K\.tla:\d+:\d+: Head of the empty sequence$"):
                    model.eval_state(name, state)


# --- TLC's count of generated states ----------------------------------------------------------

_GUARDS = ["(x < {a} \\/ y > {b})", "(\\E j \\in 0..2 : j + x > {a})", "(x = {a} => (y < {b} \\/ x > 0))",
           "(\\A j \\in 0..1 : x > j \\/ y >= j)", "(IF x > {a} THEN (y = {b} \\/ TRUE) ELSE y # {b})",
           "(CASE x = {a} -> (\\E j \\in {{1, 2}} : j > y) [] OTHER -> x # y)", "Either({a})",
           "(x < {a} /\\ y < {b})", "(x' = x \\/ y' # y)", "[x' = (x + 1) % 4]_x"]
_ASSIGNS_X = ["x' = (x + {a}) % 4", "UNCHANGED x", "(x' = {a} \\/ x' = (x + 1) % 4)"]
_ASSIGNS_Y = ["y' \\in {{y, (y + {b}) % 4}}", "UNCHANGED y", "(\\E j \\in 0..1 : y' = (y + j) % 4)"]


@st.composite
def counting_specs(draw: Any) -> tuple[str, str]:
    """Actions whose conjuncts mix assignments and guards built of \\/, \\E, \\A, =>, IF, CASE
    and an operator holding a disjunction, in every order: TLC walks a guard's disjuncts and
    witnesses one at a time (each counted as a generated state) while some variable is
    unassigned, and evaluates the rest as a boolean once every one is."""
    acts = []
    for _ in range(draw(st.integers(1, 2))):
        assigns = [draw(st.sampled_from(_ASSIGNS_X)), draw(st.sampled_from(_ASSIGNS_Y))]
        guards = draw(st.lists(st.sampled_from(_GUARDS), min_size=1, max_size=3))
        items = draw(st.permutations(assigns + guards))
        a, b = draw(st.integers(0, 3)), draw(st.integers(0, 3))
        acts.append("(" + " /\\ ".join(item.format(a=a, b=b) for item in items) + ")")
    lines = ["Either(k) == x = k \\/ y = k \\/ TRUE", "Init == x \\in 0..1 /\\ y = 0",
             "Next == " + " \\/ ".join(acts)]
    return "\n".join(lines), "INIT Init\nNEXT Next\nCHECK_DEADLOCK FALSE\n"


@FAST_EXT_SPECS
@given(counting_specs())
def test_generated_states_are_counted_as_tlc_counts_them(spec: tuple[str, str]) -> None:
    compare_spec(*spec)
