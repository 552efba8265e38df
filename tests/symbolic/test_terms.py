"""The C-level term builders (``terms.py``) make the very terms z3's Python operators make."""

from __future__ import annotations

import z3
from hypothesis import given, settings
from hypothesis import strategies as st

from conformance.symbolic import terms
from conformance.symbolic.encoding import FALSE, TRUE, _int_eq, conj, disj, implies, negate, truth

X, Y = z3.Ints("terms_x terms_y")
P, Q = z3.Bools("terms_p terms_q")

ints = st.recursive(
    st.one_of(st.integers(-3, 3).map(z3.IntVal), st.sampled_from([X, Y])),
    lambda sub: st.one_of(st.tuples(sub, sub).map(lambda t: t[0] + t[1]),
                          st.tuples(sub, sub).map(lambda t: t[0] * t[1])),
    max_leaves=4)
bools = st.recursive(
    st.one_of(st.sampled_from([P, Q, z3.BoolVal(True), z3.BoolVal(False)]),
              st.tuples(ints, ints).map(lambda t: t[0] < t[1])),
    lambda sub: st.one_of(st.tuples(sub, sub).map(lambda t: z3.And(t[0], t[1])),
                          sub.map(z3.Not)),
    max_leaves=4)


@settings(max_examples=200, deadline=None)
@given(st.lists(bools, min_size=2, max_size=4), bools, bools)
def test_connectives_are_z3s(parts: list[z3.BoolRef], a: z3.BoolRef, b: z3.BoolRef) -> None:
    assert terms.nary(True, parts).eq(z3.And(parts))
    assert terms.nary(False, parts).eq(z3.Or(parts))
    assert terms.negation(a).eq(z3.Not(a))
    assert terms.implication(a, b).eq(z3.Implies(a, b))
    assert terms.bool_value(a) == (True if z3.is_true(a) else False if z3.is_false(a) else None)


@settings(max_examples=200, deadline=None)
@given(ints, ints, st.integers(-5, 5))
def test_integer_terms_are_z3s(a: z3.ArithRef, b: z3.ArithRef, k: int) -> None:
    assert terms.int_eq(a, b).eq(z3.BoolRef(z3.Z3_mk_eq(a.ctx_ref(), a.as_ast(), b.as_ast()), a.ctx))
    assert terms.greater(a, k).eq(a > k)
    assert terms.at_most(a, k).eq(a <= k)
    assert terms.is_numeral(a) == z3.is_int_value(a)
    assert terms.same_term(a, b) == a.eq(b)


@settings(max_examples=200, deadline=None)
@given(bools, ints, ints, bools, bools)
def test_conditionals_are_z3s(c: z3.BoolRef, a: z3.ArithRef, b: z3.ArithRef, p: z3.BoolRef, q: z3.BoolRef) -> None:
    made = terms.conditional(c, a, b)
    assert isinstance(made, z3.ArithRef) and made.eq(z3.If(c, a, b))
    made = terms.conditional(c, p, q)
    assert isinstance(made, z3.BoolRef) and made.eq(z3.If(c, p, q))


@settings(max_examples=200, deadline=None)
@given(ints, ints)
def test_integer_equality_folds_numerals_only(a: z3.ArithRef, b: z3.ArithRef) -> None:
    r = _int_eq(a, b)
    if z3.is_int_value(a) and z3.is_int_value(b):
        assert truth(r) is (a.as_long() == b.as_long())
    elif a.eq(b):
        assert r is TRUE
    else:
        assert r.eq(a == b)  # the same term, operands in the same order


def test_connectives_fold_constants() -> None:
    assert conj([P, TRUE]).eq(P) and conj([P, FALSE]) is FALSE
    assert disj([P, FALSE]).eq(P) and disj([Q, TRUE]) is TRUE
    assert negate(TRUE) is FALSE and negate(P).eq(z3.Not(P))
    assert implies(FALSE, P) is TRUE and implies(P, Q).eq(z3.Implies(P, Q))
    assert truth(conj([P, Q])) is None
