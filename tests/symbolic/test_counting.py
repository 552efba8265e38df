"""Comparisons of counts stated over their conditions (conformance/symbolic/counting.py).

z3 itself checks that the boolean formula ``compare`` makes is equivalent to the arithmetic
comparison, for random weighted sums of conditions (shared, negated, nested in sums and
products) and every operator; and that the translation of a quorum test over a set with
symbolic members gives the same verdicts both ways.
"""

from __future__ import annotations

from pathlib import Path

import pytest
import z3
from hypothesis import given, settings
from hypothesis import strategies as st

from conformance.symbolic.counting import MAX_CONDITIONS, at_most, compare, linear_sum
from conformance.symbolic.prove import ProofInput, discharge, obligations
from conformance.symbolic.shapes import Bounds, fresh_state, sample_state, state_shapes
from conformance.symbolic.translate import StatePair, Translator
from conformance.tla.model import Model

OPS = {"<=": lambda a, b: a <= b, "<": lambda a, b: a < b, ">=": lambda a, b: a >= b, ">": lambda a, b: a > b}
VARS = [z3.Bool(f"c{i}") for i in range(5)]


def _equivalent(a: z3.BoolRef, b: z3.BoolRef) -> bool:
    s = z3.Solver()
    s.add(a != b)
    return s.check() == z3.unsat


# a count: numerals, If(c, n1, n0) over a few shared conditions, sums, differences, products
# with a numeral (a Cardinality is a sum of If(c, 1, 0))
_cond = st.sampled_from(VARS) | st.sampled_from(VARS).map(z3.Not) | st.tuples(
    st.sampled_from(VARS), st.sampled_from(VARS)).map(lambda p: z3.And(*p))
_leaf = st.integers(-3, 3).map(z3.IntVal) | st.tuples(_cond, st.integers(-2, 3), st.integers(-2, 3)).map(
    lambda t: z3.If(t[0], z3.IntVal(t[1]), z3.IntVal(t[2])))
_count = st.recursive(
    _leaf,
    lambda inner: st.lists(inner, min_size=2, max_size=3).map(lambda xs: z3.Sum(xs))
    | st.tuples(inner, inner).map(lambda p: p[0] - p[1])
    | st.tuples(st.integers(-3, 3), inner).map(lambda p: z3.IntVal(p[0]) * p[1])
    | inner.map(lambda x: -x),
    max_leaves=8,
)


@settings(max_examples=300, deadline=None)
@given(_count, st.sampled_from(sorted(OPS)), _count)
def test_compare_is_equivalent_to_the_arithmetic_comparison(a: z3.ArithRef, op: str, b: z3.ArithRef) -> None:
    got = compare(a, op, b)
    if got is None:  # only when the conditions cancel out: a - b is a numeral
        difference = linear_sum(a - b)
        assert difference is not None and not difference[0], (a, op, b)
        return
    assert _equivalent(got, OPS[op](a, b)), (a, op, b, got)
    assert not any(z3.is_arith(t) for t in _subterms(got)), "the formula has no arithmetic left"


def _subterms(t: z3.ExprRef) -> list[z3.ExprRef]:
    out, todo, seen = [], [t], set()
    while todo:
        e = todo.pop()
        if e.get_id() in seen:
            continue
        seen.add(e.get_id())
        out.append(e)
        todo.extend(e.children())
    return out


def test_a_quorum_test_by_hand() -> None:
    """``2 * Cardinality({k \\in keys : c(k)}) <= Cardinality(keys)`` with 3 keys: at most
    one condition holds (worked out by hand: the pairs of conditions never both hold)."""
    a, b, c = VARS[:3]
    count = z3.Sum([z3.If(x, 1, 0) for x in (a, b, c)])
    got = compare(2 * count, "<=", z3.IntVal(3))
    assert got is not None
    expected = z3.And(z3.Not(z3.And(a, b)), z3.Not(z3.And(a, c)), z3.Not(z3.And(b, c)))
    assert _equivalent(got, expected)
    majority = compare(2 * count, ">", z3.IntVal(3))
    assert majority is not None and _equivalent(majority, z3.Not(expected))


def test_what_stays_arithmetic() -> None:
    x = z3.Int("x")
    count = z3.Sum([z3.If(v, 1, 0) for v in VARS])
    assert compare(count, "<=", x) is None  # a term that is no count
    assert compare(count * x, "<", z3.IntVal(2)) is None  # a product of two terms
    many = z3.Sum([z3.If(z3.Bool(f"m{i}"), 1, 0) for i in range(MAX_CONDITIONS + 1)])
    assert compare(many, "<=", z3.IntVal(3)) is None
    assert compare(z3.IntVal(2), "<=", z3.IntVal(3)) is None  # no condition: left to simplify


def test_at_most_with_negative_weights() -> None:
    a, b = VARS[:2]
    got = at_most([(a, -2), (b, 1)], -1)  # -2[a] + [b] <= -1  <=>  a
    assert _equivalent(got, a)


QUORUM = """---- MODULE Quorum ----
EXTENDS Integers, FiniteSets
CONSTANT Nodes
VARIABLES
  \\* @type: Set(Int);
  votes,
  \\* @type: Bool;
  decided
vars == <<votes, decided>>
Quorum(S) == 2 * Cardinality({n \\in Nodes : n \\in S}) > Cardinality(Nodes)
Init == votes = {} /\\ decided = FALSE
Vote == \\E n \\in Nodes : n \\notin votes /\\ votes' = votes \\cup {n} /\\ UNCHANGED decided
Decide == Quorum(votes) /\\ decided' = TRUE /\\ UNCHANGED votes
Next == Vote \\/ Decide
\\* a seeded fault: a vote taken back after the decision
Unvote == \\E n \\in votes : votes' = votes \\ {n} /\\ UNCHANGED decided
NextUnvote == Next \\/ Unvote
Spec == Init /\\ [][Next]_vars
Safety == decided => Quorum(votes) /\\ Cardinality(votes) >= 2
IndInv == votes \\subseteq Nodes /\\ Safety
====
"""


@pytest.mark.parametrize("nxt, verdict", [("Next", "proved"), ("NextUnvote", "counterexample")])
def test_a_proof_over_quorums_has_the_same_verdicts_either_way(tmp_path: Path, nxt: str, verdict: str) -> None:
    """The toy quorum spec proved with counts as formulas and as arithmetic: the same
    verdicts, and the seeded ``Unvote`` is a counterexample the explicit engine confirms."""
    spec = tmp_path / "Quorum.tla"
    spec.write_text(QUORUM)
    cfg = tmp_path / "Quorum.cfg"
    cfg.write_text(f"CONSTANTS Nodes = {{1, 2, 3}}\nINIT Init\nNEXT {nxt}\nINVARIANT IndInv\n")
    got = {}
    for boolean_counts in (True, False):
        inp = ProofInput(spec, cfg, "IndInv", "Safety", "Init", Bounds(2, 3), 60.0, boolean_counts=boolean_counts)
        results = {o.action or o.kind: discharge(inp, o) for o in obligations(inp)}
        got[boolean_counts] = {k: r.verdict for k, r in results.items()}
        if verdict == "counterexample":
            bad = results["Unvote"]
            assert bad.verdict == "counterexample" and bad.engine_action == "Unvote", bad.message
    assert got[True] == got[False]
    assert verdict in got[True].values() and set(got[True].values()) <= {"proved", verdict}


def test_the_translation_states_a_quorum_test_without_arithmetic(tmp_path: Path) -> None:
    spec = tmp_path / "Quorum.tla"
    spec.write_text(QUORUM)
    model = Model.load(spec, constants={"Nodes": frozenset({1, 2, 3})})
    atoms: list[z3.ArithRef] = []
    state = fresh_state(state_shapes(model, sample_state(model, "Init"), Bounds(2, 3)), "s", atoms)
    formulas = {}
    for boolean_counts in (True, False):
        tr = Translator(model, boolean_counts=boolean_counts)
        formulas[boolean_counts] = z3.And(state.wellformed, tr.formula("Safety", StatePair(state.values)))
    comparisons = {z3.Z3_OP_LE, z3.Z3_OP_LT, z3.Z3_OP_GE, z3.Z3_OP_GT}
    assert not any(z3.is_app(t) and t.decl().kind() in comparisons for t in _subterms(formulas[True]))
    assert any(z3.is_app(t) and t.decl().kind() in comparisons for t in _subterms(formulas[False]))
    assert _equivalent(formulas[True], formulas[False])
