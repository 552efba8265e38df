"""The bundled Relation module: each operator against values worked out by hand, and every
operator against a small Python implementation on random relations."""

from __future__ import annotations

from itertools import product

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from conformance.tla.loader import ModuleLoader
from conformance.tla.model import Model
from conformance.tla.parser import parse_module_text
from conformance.tla.syntax import TlaError


@pytest.fixture(scope="module")
def model() -> Model:
    return Model(parse_module_text(
        "---- MODULE T ----\nEXTENDS Naturals, Relation\n"
        "S == {0, 1, 2, 3}\n"
        "Lt == [p \\in S \\X S |-> p[1] < p[2]]\n"
        "Le == [p \\in S \\X S |-> p[1] <= p[2]]\n"
        "Eq == [p \\in S \\X S |-> p[1] = p[2]]\n"
        "Succ == [p \\in S \\X S |-> p[2] = p[1] + 1]\n"
        "Cycle == [p \\in S \\X S |-> p[2] = (p[1] + 1) % 4]\n"
        "None == [p \\in S \\X S |-> FALSE]\n"
        "====\n", "T.tla"), ModuleLoader([]))


CASES = [
    # the module's documented examples
    ("IsReflexiveUnder(=, {1, 2, 3})", "TRUE"),
    ("IsReflexiveUnder(<, {1, 2, 3})", "FALSE"),
    ("IsReflexive([<<x, y>> \\in {1, 2} \\X {1, 2} |-> x = y], {1, 2})", "TRUE"),
    ("IsIrreflexiveUnder(<, {1, 2, 3})", "TRUE"),
    ("IsIrreflexiveUnder(<=, {1, 2, 3})", "FALSE"),
    ("IsSymmetricUnder(=, {1, 2, 3})", "TRUE"),
    ("IsSymmetricUnder(<, {1, 2, 3})", "FALSE"),
    ("IsAntiSymmetricUnder(<=, {1, 2, 3})", "TRUE"),
    ("IsAntiSymmetricUnder(=, {1, 2, 3})", "TRUE"),
    ("IsAsymmetricUnder(<, {1, 2, 3})", "TRUE"),
    ("IsAsymmetricUnder(<=, {1, 2, 3})", "FALSE"),
    ("IsTransitiveUnder(<, {1, 2, 3})", "TRUE"),
    ("IsTransitiveUnder(=, {1, 2, 3})", "TRUE"),
    ("IsTransitiveUnder(#, {1, 2, 3})", "FALSE"),
    ("IsStrictlyPartiallyOrderedUnder(<, {1, 2, 3})", "TRUE"),
    ("IsStrictlyPartiallyOrderedUnder(<=, {1, 2, 3})", "FALSE"),
    ("IsPartiallyOrderedUnder(<=, {1, 2, 3})", "TRUE"),
    ("IsPartiallyOrderedUnder(<, {1, 2, 3})", "FALSE"),
    ("IsStrictlyTotallyOrderedUnder(<, {1, 2, 3})", "TRUE"),
    ("IsTotallyOrderedUnder(<=, {1, 2, 3})", "TRUE"),
    ("IsTotallyOrderedUnder(=, {1, 2, 3})", "FALSE"),
    # the same on explicit relations
    ("<<IsReflexive(Lt, S), IsIrreflexive(Lt, S), IsSymmetric(Lt, S), IsAntiSymmetric(Lt, S), "
     "IsAsymmetric(Lt, S), IsTransitive(Lt, S)>>", "<<FALSE, TRUE, FALSE, TRUE, TRUE, TRUE>>"),
    ("<<IsStrictlyPartiallyOrdered(Lt, S), IsPartiallyOrdered(Lt, S), "
     "IsStrictlyTotallyOrdered(Lt, S), IsTotallyOrdered(Lt, S)>>", "<<TRUE, FALSE, TRUE, FALSE>>"),
    ("<<IsStrictlyPartiallyOrdered(Le, S), IsPartiallyOrdered(Le, S), "
     "IsStrictlyTotallyOrdered(Le, S), IsTotallyOrdered(Le, S)>>", "<<FALSE, TRUE, FALSE, TRUE>>"),
    ("<<IsReflexive(Eq, S), IsSymmetric(Eq, S), IsAntiSymmetric(Eq, S), IsAsymmetric(Eq, S), "
     "IsPartiallyOrdered(Eq, S), IsTotallyOrdered(Eq, S)>>", "<<TRUE, TRUE, TRUE, FALSE, TRUE, FALSE>>"),
    # antisymmetric but not asymmetric: a self-loop
    ("LET R == [p \\in S \\X S |-> p = <<1, 1>>] IN <<IsAntiSymmetric(R, S), IsAsymmetric(R, S)>>",
     "<<TRUE, FALSE>>"),
    ("LET R == [p \\in S \\X S |-> p \\in {<<0, 2>>, <<2, 0>>}] IN IsAntiSymmetric(R, S)", "FALSE"),
    ("LET R == [p \\in S \\X S |-> p \\in {<<0, 1>>, <<1, 2>>}] IN IsTransitive(R, S)", "FALSE"),
    # closures
    ("TransitiveClosure(Succ, S)", "Lt"),
    ("ReflexiveTransitiveClosure(Succ, S)", "Le"),
    ("TransitiveClosure(Cycle, S)", "[p \\in S \\X S |-> TRUE]"),
    ("TransitiveClosure(None, S)", "None"),
    ("ReflexiveTransitiveClosure(None, S)", "Eq"),
    ("TransitiveClosure(Lt, S)", "Lt"),
    ("TransitiveClosure(<<>>, {})", "<<>>"),
    ("DOMAIN ReflexiveTransitiveClosure(Succ, S)", "S \\X S"),
    # connectivity: Succ reaches forward only, Cycle everywhere, a one-point set trivially
    ("IsConnected(Succ, S)", "FALSE"),
    ("IsConnected(Cycle, S)", "TRUE"),
    ("IsConnected(None, {2})", "TRUE"),
    ("IsConnected(None, S)", "FALSE"),
    ("IsConnected(<<>>, {})", "TRUE"),
    # a relation over a larger set restricted to a part of it
    ("IsTotallyOrdered(Le, {1, 3})", "TRUE"),
    ("TransitiveClosure(Succ, {0, 2})", "[p \\in {0, 2} \\X {0, 2} |-> FALSE]"),
    # the empty set: every property holds
    ("<<IsReflexive(<<>>, {}), IsIrreflexive(<<>>, {}), IsStrictlyTotallyOrdered(<<>>, {}), "
     "IsTotallyOrderedUnder(<, {})>>", "<<TRUE, TRUE, TRUE, TRUE>>"),
]


@pytest.mark.parametrize(("expr", "expected"), CASES)
def test_operator(model: Model, expr: str, expected: str) -> None:
    assert model.eval_constant(f"({expr}) = ({expected})") is True, (expr, model.eval_constant(expr))


def test_a_relation_missing_a_pair_is_an_error_naming_the_application(model: Model) -> None:
    with pytest.raises(TlaError, match="not in the domain"):
        model.eval_constant("IsReflexive([p \\in {<<0, 0>>} |-> TRUE], {0, 1})")
    with pytest.raises(TlaError, match="not in the domain"):
        model.eval_constant("TransitiveClosure([p \\in {<<0, 1>>} |-> TRUE], {0, 1})")


def test_under_applies_the_operator_only_to_the_pairs_it_reads(model: Model) -> None:
    # the operator is undefined off the diagonal: reflexivity only reads the diagonal
    assert model.eval_constant(
        "IsReflexiveUnder(LAMBDA x, y : IF x = y THEN TRUE ELSE CHOOSE z \\in {} : TRUE, S)") is True


# ---- differential: every operator against a Python implementation -----------------------


def py_closure(s: frozenset[int], r: frozenset[tuple[int, int]]) -> frozenset[tuple[int, int]]:
    """Pairs joined by a chain of one or more steps of r, by a search from each element."""
    out = set()
    for x in s:
        seen: set[int] = set()
        todo = [y for (a, y) in r if a == x]
        while todo:
            y = todo.pop()
            if y not in seen:
                seen.add(y)
                todo.extend(z for (a, z) in r if a == y)
        out |= {(x, y) for y in seen}
    return frozenset(out)


def py_properties(s: frozenset[int], r: frozenset[tuple[int, int]]) -> list[bool]:
    pairs = list(product(s, s))
    refl = all((x, x) in r for x in s)
    irrefl = all((x, x) not in r for x in s)
    sym = all(((x, y) in r) == ((y, x) in r) for x, y in pairs)
    antisym = all(x == y for x, y in pairs if (x, y) in r and (y, x) in r)
    asym = not any((x, y) in r and (y, x) in r for x, y in pairs)
    trans = all((x, z) in r for (x, y) in r for (y2, z) in r if y == y2)
    strict_po = irrefl and antisym and trans
    po = refl and antisym and trans
    strict_to = strict_po and all((x, y) in r or (y, x) in r for x, y in pairs if x != y)
    to = po and all((x, y) in r or (y, x) in r for x, y in pairs)
    closure = py_closure(s, r)
    connected = all(x == y or (x, y) in closure for x, y in pairs)
    return [refl, irrefl, sym, antisym, asym, trans, strict_po, po, strict_to, to, connected]


PROPERTIES = ["IsReflexive", "IsIrreflexive", "IsSymmetric", "IsAntiSymmetric", "IsAsymmetric",
              "IsTransitive", "IsStrictlyPartiallyOrdered", "IsPartiallyOrdered",
              "IsStrictlyTotallyOrdered", "IsTotallyOrdered", "IsConnected"]


@st.composite
def relations(draw: st.DrawFn) -> tuple[frozenset[int], frozenset[tuple[int, int]]]:
    s = draw(st.frozensets(st.integers(0, 3), max_size=4))
    pairs = sorted(product(s, s))
    r = draw(st.frozensets(st.sampled_from(pairs), max_size=len(pairs))) if pairs else frozenset()
    return s, r


def tla(x: object) -> str:
    """An integer, a pair or a set of them written in TLA+."""
    if isinstance(x, tuple):
        return "<<" + ", ".join(map(tla, x)) + ">>"
    if isinstance(x, frozenset):
        return "{" + ", ".join(tla(e) for e in sorted(x)) + "}"  # type: ignore[type-var]
    return str(x)


IN = "\\in"


@settings(max_examples=150, deadline=None, database=None)
@given(relations())
def test_against_a_python_implementation(model: Model, rel: tuple[frozenset[int], frozenset[tuple[int, int]]]) -> None:
    s, r = rel
    S, E = tla(s), tla(r)
    R = f"[p {IN} {S} \\X {S} |-> p {IN} {E}]"
    got = model.eval_constant(f"<<{', '.join(f'{p}({R}, {S})' for p in PROPERTIES)}>>")
    assert list(got) == py_properties(s, r), (s, r)
    under = model.eval_constant(
        "<<" + ", ".join(f"{p}Under(LAMBDA x, y : <<x, y>> {IN} {E}, {S})" for p in PROPERTIES[:-1]) + ">>")
    assert list(under) == py_properties(s, r)[:-1], (s, r)
    closure = py_closure(s, r)
    assert model.eval_constant(
        f"TransitiveClosure({R}, {S}) = [p {IN} {S} \\X {S} |-> p {IN} {tla(closure)}]") is True
    reflexive = closure | {(x, x) for x in s}
    assert model.eval_constant(
        f"ReflexiveTransitiveClosure({R}, {S}) = [p {IN} {S} \\X {S} |-> p {IN} {tla(reflexive)}]"
    ) is True


def test_a_relation_that_is_not_boolean_is_an_error(model: Model) -> None:
    with pytest.raises(TlaError, match="expects a boolean"):
        model.eval_constant("IsSymmetric([p \\in S \\X S |-> 1], S)")
    with pytest.raises(TlaError, match="expects a boolean"):
        model.eval_constant("IsSymmetricUnder(LAMBDA x, y : 1, S)")
