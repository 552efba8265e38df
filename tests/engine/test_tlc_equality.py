"""Comparisons TLC refuses: ``=``, ``#``, ``\\in`` / ``\\notin`` and the comparisons of an
action (``x' = e`` with ``x'`` assigned, ``UNCHANGED``) fail, located, where TLC fails to
compare two values, instead of answering FALSE.

The expected answers are derived by hand from TLC's value classes (tlc2/value/impl), each
case naming the rule of ``values.py`` it rests on:

- E1: BoolValue / IntValue / StringValue .equals fail against another kind;
- E2: ModelValue.equals and modelValueEquals: untyped model values are unequal to all
  else, typed ones (``A_x``) fail against non-model values and other types;
- E3: SetEnumValue.equals fails against a non-set; sets of different sizes are unequal;
- E4: FcnRcdValue / RecordValue / TupleValue .equals: functions, records and tuples are
  converted into each other; a function fails against a non-function; tuples compare
  their items in order;
- M1, M2: SetEnumValue.member (ValueVec.search) compares the element with the set's
  elements: by compareTo in a sorted set, by equals in one TLC could not sort;
- S1: SetEnumValue.normalize (ValueVec.sort) fails on a set holding two kinds of values;
- C1-C3: SetEnumValue.cup / cap / diff and EnumerableValue.isSubsetEq test the elements of
  one set for membership in the other;
- A1: FcnRcdValue.select compares the argument with the domain;
- X1: EXCEPT looks each key of its path up first (Value.select: TupleValue, RecordValue,
  FcnRcdValue .select), and fails where that lookup fails;
- T0, T1: values equal to Python only through a pun inside (a boolean for 0 or 1) fail to
  compare; a lookup (membership, the set operators, application, EXCEPT) meets the twin
  of the value looked up, and fails.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from conformance.cli import main
from conformance.tla import stdlib as L
from conformance.tla.loader import ModuleLoader
from conformance.tla.model import Model
from conformance.tla.parser import parse_module_text
from conformance.tla.syntax import EvalError, TlaError
from conformance.tla.values import Fn, ModelValue, member_miss, tlc_equal

ERROR = "error"
REGRESSIONS = Path(__file__).parent / "regressions"


def _answer(f: Any, *args: Any) -> Any:
    try:
        return f(*args)
    except EvalError as err:
        assert err.loc is None  # the caller locates it
        return ERROR


# -- the rules on values --------------------------------------------------------------------

m, n = ModelValue("m"), ModelValue("n")
a_x, a_y, b_y = ModelValue("A_x"), ModelValue("A_y"), ModelValue("B_y")

VALUE_CASES = [
    # E1
    ("a", 1, ERROR), (1, "a", ERROR), (True, 1, ERROR), (1, True, ERROR), (False, 0, ERROR),
    (True, "a", ERROR), ("a", "b", False), (1, 2, False), (True, False, False), (1, 1, True),
    # E2
    (m, 1, False), (1, m, False), (m, "a", False), (m, frozenset({1}), False), (m, (1,), False),
    (m, m, True), (m, n, False), (m, a_x, False), (a_x, m, False),
    (a_x, 1, ERROR), (1, a_x, ERROR), (a_x, frozenset(), ERROR), (a_x, b_y, ERROR),
    (a_x, a_y, False), (a_x, a_x, True), (ModelValue("A_"), 1, False),  # "A_" is untyped
    # E3
    (frozenset({1}), 1, ERROR), (1, frozenset({1}), ERROR), (frozenset(), (), ERROR),
    (frozenset({1}), frozenset({"a"}), ERROR), (frozenset({1, 2}), frozenset({"a", "b"}), ERROR),
    (frozenset({1, 2}), frozenset({1, 3}), False), (frozenset({1}), frozenset({1, 2}), False),
    (frozenset(), frozenset({"a"}), False), (frozenset({(1,)}), frozenset({("a",)}), ERROR),
    (frozenset({True}), frozenset({1}), ERROR),  # equal to Python, E1 inside
    (frozenset({1, "a"}), frozenset({2, "b"}), ERROR),  # S1: neither can be sorted
    (frozenset({(1,), (2,)}), frozenset({(3,), ("a",)}), False),  # which pairs: not known here
    # E4
    ((1, 2), Fn({"a": 1, "b": 2}), ERROR), ((1,), 1, ERROR), (Fn({"a": 1}), "a", ERROR),
    ((1,), frozenset({1}), ERROR), ((1, "a"), (2, 3), False), ((1, "a"), (1, 3), ERROR),
    (("a", 1), (3, 2), ERROR), ((1,), (1, "a"), False), (Fn({"a": 1}), (1,), ERROR),
    ((1,), Fn({"a": 1}), ERROR), (Fn({"a": 1}), (1, 2), False),
    (Fn({"a": 1, "b": "x"}), Fn({"a": 2, "b": 3}), False),
    (Fn({"a": 1, "b": "x"}), Fn({"a": 1, "b": 3}), ERROR), (Fn({"a": 1}), Fn({"b": 1}), False),
    # records: in the order of the names (RecordValue.normalize), the first unequal pair
    # decides; so for functions over integers (FcnRcdValue over a sorted domain)
    (Fn({"b": 1, "a": "x"}), Fn({"a": 3, "b": 2}), ERROR), (Fn({"b": "x", "a": 1}), Fn({"a": 2, "b": 3}), False),
    (Fn({0: "x", 5: 1}), Fn({0: 3, 5: 2}), ERROR), (Fn({0: 1, 5: "x"}), Fn({0: 2, 5: 3}), False),
    # other domains: unequal when some pair is unequal (TLC's order is not relied on)
    (Fn({(1,): "x", (2,): 1}), Fn({(1,): 3, (2,): 2}), False),
    (Fn({(1,): "x", (2,): 1}), Fn({(1,): 3, (2,): 1}), ERROR),
    ((True,), (1,), ERROR), (Fn({"a": False}), Fn({"a": 0}), ERROR),
    (Fn({True: 0}), (0,), ERROR), (Fn({3: 0}), (0,), False),
    ((frozenset({1}), 2), (frozenset({1}), 2), True),
    # S1 (before E3's sizes): sets holding two kinds cannot be sorted
    (frozenset({1, "a"}), frozenset({1}), ERROR), (frozenset({1}), frozenset({1, "a"}), ERROR),
    (frozenset({m, 1}), frozenset({m, 2}), False),  # untyped model values sort below the rest
    (frozenset({m, 1, "a"}), frozenset({1}), ERROR), (frozenset({a_x, 1}), frozenset({1}), ERROR),
    (frozenset({a_x, b_y}), frozenset({a_x}), ERROR), (frozenset({a_x, a_y}), frozenset({a_x}), False),
    (frozenset({a_x, m, 1}), frozenset({a_x, m, 2}), False),  # m may sit between A_x and 1
    (frozenset({(1,), Fn({"a": 1})}), frozenset({(2,)}), False),  # functions: one kind
]


@pytest.mark.parametrize(("a", "b", "expected"), VALUE_CASES)
def test_tlc_equal(a: Any, b: Any, expected: Any) -> None:
    assert _answer(tlc_equal, a, b) == expected


MEMBER_CASES = [  # x, S (x is not in S)
    (1, frozenset({"a", "b"}), ERROR), ("a", frozenset({1}), ERROR),
    ((1,), frozenset({1, 2}), ERROR), (frozenset({1}), frozenset({1}), ERROR),
    (True, frozenset({0, 1}), ERROR), (1, frozenset({True}), ERROR),
    (1, frozenset(), False), (1, frozenset({m}), False), (m, frozenset({1}), False),
    # M2: a set TLC cannot sort is searched with equals, all of it when x is not there
    (1, frozenset({"a", 2}), ERROR), (2, frozenset({1, "a"}), ERROR), (m, frozenset({1, "a"}), False),
    ((1,), frozenset({1, frozenset()}), ERROR), (1, frozenset({a_x, 2}), ERROR),
    # M1 with untyped model values: they sort below the rest, the search reaches the others
    (1, frozenset({m, "a"}), ERROR), (1, frozenset({m, n, "a", "b"}), ERROR), (1, frozenset({m, 2}), False),
    # M1 for a typed model value (ModelValue.compareTo / modelValueEquals)
    (a_x, frozenset({1}), ERROR), (a_x, frozenset({b_y}), ERROR), (a_x, frozenset({a_y}), False),
    (a_x, frozenset({m}), False), (a_x, frozenset({m, 1}), False),  # compared with m by name: order
    (a_x, frozenset({a_y, 1}), ERROR),  # M2
    # M1 nested: every element fails against x
    ((1,), frozenset({("a",)}), ERROR), (Fn({"a": 1}), frozenset({(1,)}), ERROR),
    ((1,), frozenset({("a",), ("b",)}), ERROR), (frozenset({1}), frozenset({frozenset({"a"})}), ERROR),
    ((1,), frozenset({(2, 3)}), False),  # other lengths: unequal (TupleValue.equals, compareTo)
    ((1,), frozenset({("a",), (2, 3)}), False),  # which element is probed: an order not kept
    ((1,), frozenset({("a",), (2,)}), False),
]


SET_OP_CASES = [  # the operator, a, b
    # C1: b sorted (S1) when a is not empty; b's elements missing from a looked up in a
    (L.cup, frozenset({m}), frozenset({1, "a"}), ERROR), (L.cup, frozenset(), frozenset({1, "a"}), frozenset({1, "a"})),
    (L.cup, frozenset({a_x}), frozenset({b_y}), ERROR), (L.cup, frozenset({a_x}), frozenset({a_y}), frozenset({a_x, a_y})),
    (L.cup, frozenset({m}), frozenset({a_x}), frozenset({m, a_x})),
    (L.cup, frozenset({(1,)}), frozenset({("a",)}), frozenset({(1,), ("a",)})),  # inner values: not judged
    # C2: a's elements missing from b looked up in b
    (L.cap, frozenset({a_x}), frozenset({1}), ERROR), (L.setminus, frozenset({1, 2}), frozenset({m, "a"}), ERROR),
    (L.setminus, frozenset({m, 1}), frozenset({1}), frozenset({m})), (L.cap, frozenset({1}), frozenset({m}), frozenset()),
    # C3
    (L.subseteq, frozenset({a_x}), frozenset({1}), ERROR), (L.subseteq, frozenset({m}), frozenset({1}), False),
    (L.subseteq, frozenset({1, m}), frozenset({"a"}), False),  # m sorts first: missing, no failure
    (L.subseteq, frozenset({1, 2}), frozenset({m, "a"}), ERROR), (L.subseteq, frozenset({a_x, m}), frozenset({1}), False),
]


@pytest.mark.parametrize(("op", "a", "b", "expected"), SET_OP_CASES)
def test_set_operators(op: Any, a: frozenset, b: frozenset, expected: Any) -> None:
    assert _answer(op, a, b) == expected


@pytest.mark.parametrize(("x", "s", "expected"), MEMBER_CASES)
def test_member_miss(x: Any, s: frozenset, expected: Any) -> None:
    assert _answer(member_miss, x, s) == expected


# -- the operators, located -------------------------------------------------------------------


def _evaluate(expr: str, x: Any) -> Any:
    """``expr`` in a state with ``x`` (so that it is not folded): the value or ERROR, and
    the error must be located at line 4 (the definition)."""
    text = f"---- MODULE Q ----\nEXTENDS Integers, Sequences\nVARIABLES x\nE == {expr}\n====\n"
    model = Model(parse_module_text(text, "Q.tla"), ModuleLoader([]))
    try:
        return model.eval_state("E", (x,))
    except TlaError as err:
        assert str(err).startswith("Q.tla:4:"), str(err)
        assert "TLC cannot compare" in str(err), str(err)
        return ERROR


EXPR_CASES = [
    # E1, against a literal and not
    ('"a" = 1', 0, ERROR), ('"a" # 1', 0, ERROR), ('1 /= "a"', 0, ERROR), ("TRUE = 1", 0, ERROR),
    ("x = 1", "a", ERROR), ('x = "a"', 1, ERROR), ('x = "b"', "a", False), ('x # "b"', "a", True),
    ("x # 1", True, ERROR), ("1 = x", "a", ERROR), ("x = <<1>>", 1, ERROR), ("x = TRUE", 1, ERROR),
    # E3
    ("{1} = 1", 0, ERROR), ("x = {1}", 1, ERROR), ('{1} = {"a"}', 0, ERROR),
    ('{1, 2} = {"a", "b"}', 0, ERROR), ("{1, 2} = {1, 3}", 0, False), ('{} = {"a"}', 0, False),
    ("{x} = {TRUE}", 1, ERROR),
    # E4
    ("<<1, 2>> = [i \\in 1..2 |-> i]", 0, True), ('[a |-> 1] = [v \\in {"a"} |-> 1]', 0, True),
    ("<<>> = [v \\in {} |-> 1]", 0, True), ('<<1, "a">> = <<2, 3>>', 0, False),
    ('<<1, "a">> = <<1, 3>>', 0, ERROR), ("[a |-> 1] = <<1>>", 0, ERROR),
    ("<<x>> = [a |-> 1]", 1, ERROR), ("[a |-> 1] # <<1, 2>>", 0, True),
    ('[a |-> 1, b |-> "x"] = [a |-> x, b |-> 3]', 2, False),
    ('[a |-> 1, b |-> "x"] = [a |-> x, b |-> 3]', 1, ERROR),
    ("<<x>> = <<1>>", True, ERROR), ("[a |-> x] = [a |-> 0]", False, ERROR),
    ('[v \\in {1} |-> 0] = [v \\in {"a"} |-> 0]', 0, ERROR), ("x = <<1>>", "a", ERROR),
    # M1
    ('1 \\in {"a", "b"}', 0, ERROR), ('1 \\notin {"a"}', 0, ERROR), ("1 \\in {}", 0, False),
    ('x \\in {"a", 2}', 1, ERROR), ("x \\in {1}", "a", ERROR), ('x \\in {"a", 2}', 2, True), ("<<1>> \\in {1, 2}", 0, ERROR),
    ("x \\in {0, 1}", True, ERROR), ("x \\notin {TRUE}", 1, ERROR), ("x \\in {1, 2}", 1, True),
    ('<<1>> \\in {<<"a">>}', 0, ERROR), ('<<x>> \\notin {<<"a">>, <<1, 2>>}', 1, True),
    ("x \\in Nat", "a", False),  # not judged
    # M1 on DOMAIN (IntervalValue.member for a tuple's domain, SetEnumValue.member else)
    ('"a" \\in DOMAIN <<1, 2>>', 0, ERROR), ("x \\notin DOMAIN <<1>>", True, ERROR),
    ('"a" \\in DOMAIN <<>>', 0, False), ("x \\in DOMAIN <<5>>", 1, True),
    ('1 \\in DOMAIN [a |-> 1]', 0, ERROR), ('x \\in DOMAIN [a |-> 1]', "b", False),
    ('x \\in DOMAIN [a |-> 1]', "a", True),
    # M1 on a domain Python finds TRUE in as 1
    ("x \\in DOMAIN [i \\in {0, 1} |-> i]", True, ERROR), ("x \\in DOMAIN [b \\in BOOLEAN |-> b]", 0, ERROR),
    ("x \\in DOMAIN [b \\in BOOLEAN |-> b]", False, True),
    # A1: f[x] compares x with the domain (FcnRcdValue.select; TupleValue.select refuses a
    # non-integer); Python would find TRUE as 1
    ("[i \\in {0, 1} |-> i][x]", True, ERROR), ("[b \\in BOOLEAN |-> b][x]", 1, ERROR),
    ("[b \\in BOOLEAN |-> 7][x]", True, 7), ("[i \\in {0, 1} |-> 7][x]", 1, 7),
    # S1: SetEnumValue.equals normalises (sorts) both sets first, whatever their sizes
    ('{1, "a"} = {1}', 0, ERROR), ('{1} # {x, "a"}', 1, ERROR), ("{x, 2} = {1, 2}", 1, True),
    # C1: a \cup b is a.cup(b): b is enumerated (sorted), and each element of b is looked
    # for in a (SetEnumValue.cup); an empty a gives b untouched
    ('{1} \\cup {"a"}', 0, ERROR), ('{x} \\cup {1}', "a", ERROR), ('{1} \\cup {1, "a"}', 0, ERROR),
    ('{} \\cup {1, x}', "a", frozenset({1, "a"})), ('{1, x} \\cup {}', "a", frozenset({1, "a"})),
    ('{1, x} \\cup {1}', "a", frozenset({1, "a"})),  # 1 is in a: where a's search meets "a", an order
    ("{1, 2} \\cup {x}", 3, frozenset({1, 2, 3})), ("{x} \\cup {1}", True, ERROR),
    # C2: a \cap b and a \ b look each element of a up in b (SetEnumValue.cap / diff)
    ('{1, x} \\cap {1}', "a", ERROR), ('{1, 2} \\ {x}', "a", ERROR), ('{1} \\cap {1, x}', "a", frozenset({1})),
    ('{1} \\ {1, x}', "a", frozenset()), ("{1, 2} \\ {x}", 2, frozenset({1})),
    ('{x} \\ {}', "a", frozenset({"a"})), ("{x} \\ {0, 1}", True, ERROR), ("{1, 2} \\cap {x}", 1, frozenset({1})),
    # C3: S \subseteq T enumerates S (sorted) and looks each element up in T until one is
    # missing (EnumerableValue.isSubsetEq)
    ('{x} \\subseteq {1, 2}', "a", ERROR), ('{1, x} \\subseteq {1, x}', "a", ERROR),
    ('{} \\subseteq {1, x}', "a", True), ('{x} \\subseteq {1, "a"}', 3, ERROR),
    ('{x} \\subseteq {1, "a"}', 1, True), ("{1, 2} \\subseteq {x}", 1, False),
    ('{<<x>>} \\subseteq {<<"a">>}', 1, ERROR), ('{<<x>>} \\subseteq {<<"a">>, <<1, 2>>}', 1, False),
    ("{x} \\subseteq {0, 1}", True, ERROR), ("{x} \\subseteq {FALSE, TRUE}", True, True),
    ('{1, x} \\cup {1, x}', "a", ERROR),  # C1: b is sorted, though every element is in a
    # tuples in TLC's order, the shorter first: <<1>>'s lookup in {<<"a">>} fails first
    ('{<<x>>, <<2, 2>>} \\subseteq {<<"a">>}', 1, ERROR),
    ('{<<x>>, <<2, 2>>} \\subseteq {<<1, "a">>}', 1, False),  # <<1>> is missing, without failing
    # a pun inside a tuple, record or set: Python finds the element or key its twin is
    # (<<0>> == <<FALSE>>); TLC compares the two and fails
    ("[a |-> x] \\in {[a |-> FALSE]}", 0, ERROR), ("<<x>> \\in {<<FALSE>>}", 0, ERROR),
    ("<<x>> \\in {<<0>>, <<2>>}", 0, True), ("[a |-> x] \\in {[a |-> TRUE]}", True, True),
    ("{x} \\in {{FALSE}}", 0, ERROR), ("<<x>> \\in DOMAIN [k \\in {<<0>>} |-> 1]", False, ERROR),
    ("[k \\in {<<FALSE>>} |-> 1][<<x>>]", 0, ERROR), ("[k \\in {<<FALSE>>, <<2>>} |-> 7][<<x>>]", False, 7),
    ("{[a |-> x]} \\cup {[a |-> FALSE]}", 0, ERROR), ("{<<x>>} \\ {<<FALSE>>}", 0, ERROR),
    ("{<<x>>} \\cap {<<FALSE>>}", 0, ERROR), ("{<<x>>} \\subseteq {<<FALSE>>}", 0, ERROR),
    ("{<<x>>} \\cup {<<0>>, <<1>>}", 0, frozenset({(0,), (1,)})),
    ("{[a |-> x]} \\subseteq {[a |-> 0], [a |-> 1]}", 0, True),
    # T1: the search for <<FALSE>> meets its twin <<0>> whatever else the set holds (were
    # FALSE, as the element <<2, 3>> alone compares without failing)
    ("<<FALSE>> \\in {<<x>>, <<2, 3>>}", 0, ERROR), ("<<FALSE>> \\notin {<<x>>, <<2, 3>>}", 0, ERROR),
    ("<<FALSE>> \\in DOMAIN [k \\in {<<x>>, <<2, 3>>} |-> 1]", 0, ERROR),
    # T1, X1: EXCEPT looks the key up in the domain first (Value.select), and meets its twin
    # (the twin key was updated before)
    ("[[k \\in {<<FALSE>>} |-> 1] EXCEPT ![<<x>>] = 5]", 0, ERROR),
    ("[[k \\in {<<FALSE>>} |-> 1] EXCEPT ![<<x>>] = 5]", False, Fn({(False,): 5})),
    ("[[k \\in {<<FALSE>>} |-> 1] EXCEPT ![<<x>>] = 5, ![<<2>>] = 6]", 0, ERROR),
    ("[[k \\in {<<FALSE>>} |-> <<1>>] EXCEPT ![<<x>>][1] = 5]", 0, ERROR),
    ("[[b \\in {FALSE, TRUE} |-> 0] EXCEPT ![x] = 5]", 1, ERROR),
    # a key not in the domain is compared with every argument (FcnRcdValue.selectLinearSearch;
    # E1 fails: FALSE against 2)
    ("[[k \\in {<<2>>} |-> 1] EXCEPT ![<<x>>] = 5]", 0, Fn({(2,): 1})),
    ("[[k \\in {<<2>>} |-> 1] EXCEPT ![<<x>>] = 5]", False, ERROR),
    ("[[k \\in {<<1, 2>>} |-> 1] EXCEPT ![<<x, FALSE>>] = 5]", 0, Fn({(1, 2): 1})),  # 0 # 1 first
    ("[[k \\in {<<1, 2>>, <<0, 2>>} |-> 1] EXCEPT ![<<x, FALSE>>] = 5]", 0, ERROR),
    # X1: EXCEPT looks the key up in the domain first (Tool, OPCODE_exc: Value.select), and
    # leaves f as it is where it is missing; TupleValue.select refuses a non-integer index
    ('[<<1, 2>> EXCEPT ![x] = 3]', "a", ERROR), ("[<<1, 2>> EXCEPT ![x] = 3]", True, ERROR),
    ("[<<1, 2>> EXCEPT ![x] = 3]", 5, (1, 2)), ("[<<1, 2>> EXCEPT ![x] = 3]", 2, (1, 3)),
    ("[<<1, 2>> EXCEPT !.a = 3]", 0, ERROR), ("[<<1, 2>> EXCEPT ![<<x>>] = 3]", 1, ERROR),
    ("[<<1, 2>> EXCEPT ![x] = 3]", a_x, ERROR),  # ModelValue.equals: typed
    ("[[i \\in 1..40 |-> 0] EXCEPT ![x] = 1][1]", "a", ERROR),
    # not judged: <<>> (TupleValue.select fails, the empty FcnRcdValue compares nothing), an
    # untyped model value (TupleValue.select fails, IntValue.equals finds it unequal)
    ("[<<>> EXCEPT ![x] = 3]", "a", ()), ("[<<1, 2>> EXCEPT ![x] = 3]", m, (1, 2)),
    # FcnRcdValue.select over an IntervalValue refuses a non-integer (IntValue.equals fails
    # against it where the domain is enumerated)
    ("[[i \\in 2..4 |-> 1] EXCEPT ![x] = 2]", "a", ERROR), ("[[i \\in 2..4 |-> 1] EXCEPT ![x] = 2]", True, ERROR),
    ("[[i \\in 2..4 |-> 1] EXCEPT ![x] = 2]", 7, Fn({2: 1, 3: 1, 4: 1})),
    ("[[i \\in 0..2 |-> 1] EXCEPT ![x] = 2]", True, ERROR),  # Python finds TRUE as 1 (T1)
    ("[[i \\in 2..4 |-> 1] EXCEPT ![3] = 2, ![x] = 5]", "a", ERROR),
    ("[[i \\in 2..4 |-> x] EXCEPT !.a = 2]", 0, ERROR), ("[<<x, 2>> EXCEPT ![1, 2] = 0]", 0, ERROR),
    # RecordValue.select refuses a non-string; a missing field leaves the record as it is
    ("[[a |-> 1] EXCEPT ![x] = 3]", 1, ERROR), ("[[a |-> 1] EXCEPT ![x] = 3]", "b", Fn({"a": 1})),
    ("[[a |-> 1] EXCEPT !.b = x]", 0, Fn({"a": 1})), ("[[a |-> 1] EXCEPT ![x] = 3]", a_x, ERROR),
    # FcnRcdValue.selectLinearSearch: domain[i].equals(key) for every argument (E1, E4)
    ('[[i \\in {"a", "b"} |-> 1] EXCEPT ![x] = 2]', 3, ERROR),
    ('[[i \\in {"a", "b"} |-> 1] EXCEPT ![x] = 2]', "c", Fn({"a": 1, "b": 1})),
    ("[[i \\in {<<1>>, <<2>>} |-> 1] EXCEPT ![x] = 2]", 3, ERROR),
    ("[[i \\in {x} |-> 1] EXCEPT ![3] = 2]", m, Fn({m: 1})),  # E2: unequal, no failure
    ('[[i \\in {<<1, "a">>, <<2, "a">>} |-> 0] EXCEPT ![<<1, x>>] = 1]', 2, ERROR),  # "a" against 2
    # 32 arguments or more: selectBinarySearch (compareTo) meets only some of them: it fails
    # where every comparison fails, else not judged
    ('[[k \\in {<<i, "a">> : i \\in 1..40} |-> 0] EXCEPT ![<<1, x>>] = 1][<<1, "a">>]', 2, 0),
    ('[[k \\in {<<i, "a">> : i \\in 1..40} |-> 0] EXCEPT ![<<1, x>>] = 1][<<1, "a">>]', "b", 0),
    ('[[k \\in {<<i>> : i \\in 1..40} |-> 0] EXCEPT ![<<x>>] = 1][<<1>>]', "b", ERROR),
    ("[[i \\in 2..40 |-> 0] EXCEPT ![x] = 1][2]", "a", ERROR),
    # each step of the path is looked up in turn: a missing step stops the lookup
    ("[<<<<1>>, 2>> EXCEPT ![1][x] = 2]", "a", ERROR), ("[<<<<1>>, 2>> EXCEPT ![3][x] = 2]", "a", ((1,), 2)),
    ("[[a |-> <<1>>] EXCEPT ![x][1] = 2]", 1, ERROR), ("[[a |-> [b |-> 1]] EXCEPT !.a[x] = 2]", 1, ERROR),
    ("[[a |-> [b |-> 1]] EXCEPT !.a[x] = 2]", "c", Fn({"a": Fn({"b": 1})})),
    # T1 in C3: a is enumerated in TLC's order, <<0, 0>> first: not in b, and its lookup
    # (0 against 1) does not fail: FALSE (was an error: the twin <<1, 0>> was met first)
    ("{<<0, x>>, <<1, x>>} \\subseteq {<<1, FALSE>>}", 0, False),
    ("{<<1, x>>} \\subseteq {<<1, FALSE>>}", 0, ERROR),
    ("{<<1, x>>, <<2, x>>} \\subseteq {<<1, FALSE>>}", 0, ERROR),  # <<1, 0>> first: its twin
    ("{{{x}}, {{2}, {x}}} \\subseteq {{{FALSE}}, {{}}}", 0, ERROR),  # sets by size: {{0}} first
    # T0: sorted alike, the first pair that differs is <<0>> against <<FALSE>> (was FALSE)
    ("{<<x>>, <<1>>} = {<<FALSE>>, <<TRUE>>}", 0, ERROR),
    ("[k \\in {<<x>>, <<1>>} |-> 0] # [k \\in {<<FALSE>>, <<TRUE>>} |-> 0]", 0, ERROR),
    ("{<<x>>, <<2>>} = {<<1>>, <<2>>}", 0, False),
    # UNION of sets holding twins fails as a set constructor does (Python kept one of them)
    ("UNION {{<<x>>, <<1>>}, {<<FALSE>>}}", 0, ERROR),
    ("UNION {{<<x>>, <<1>>}, {<<0>>}}", 0, frozenset({(0,), (1,)})),
]


@pytest.mark.parametrize(("expr", "x", "expected"), EXPR_CASES)
def test_operators(expr: str, x: Any, expected: Any) -> None:
    assert _evaluate(expr, x) == expected


def _successors(next_action: str) -> Any:
    text = ('---- MODULE U ----\nEXTENDS Integers\nVARIABLES x\nInit == x = "a"\n'
            f"Next == {next_action}\n====\n")
    model = Model(parse_module_text(text, "U.tla"), ModuleLoader([]))
    try:
        return [t for _, t in model.successors(("a",))]
    except TlaError as err:
        return str(err)


def test_comparisons_of_an_action_fail_located() -> None:
    # x' = e once x' has a value is a comparison (E1), so is UNCHANGED x with x' assigned
    assert _successors("x' = \"b\" /\\ x' = 1").startswith(
        'U.tla:5:21: attempted to check equality of the string "b" with the integer 1')
    assert _successors("x' = 1 /\\ UNCHANGED x").startswith(
        'U.tla:5:19: attempted to check equality of the integer 1 with the string "a"')
    assert _successors("x' = \"b\" /\\ x' \\in {1, 2}").startswith(
        'U.tla:5:21: attempted to check whether the string "b" is an element of {1, 2}')
    assert _successors("x' = 1 /\\ ~(UNCHANGED x)").startswith("U.tla:5:21:")
    assert _successors("x' = \"b\" /\\ x' = \"c\"") == []  # same kind: just unequal
    assert _successors("x' = \"b\" /\\ x' = \"b\"") == [("b",)]


# -- the checker: a spec whose invariant compares a string with an integer ---------------------


def test_checker_reports_the_comparison_as_an_evaluation_error(
        capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["check", str(REGRESSIONS / "CompareStringInt.tla"), "--quiet"])
    out = capsys.readouterr()
    text = out.out + out.err
    assert code == 1, text  # the exit code of every evaluation error (EXIT_CODES["error"])
    assert ('CompareStringInt.tla:9:12: attempted to check equality of the string "idle" '
            "with the integer 0, which TLC cannot compare") in text, text


def test_checker_typed_model_values(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "MV.tla").write_text(
        "---- MODULE MV ----\nCONSTANTS m, t, u\nVARIABLES x\nInit == x = 0\n"
        "Next == UNCHANGED x\nFine == m # 1 /\\ t # m /\\ t = t\nBad == t # u\n====\n")
    cfg = "CONSTANTS m = m\n t = A_t\n u = B_u\nINIT Init\nNEXT Next\nINVARIANT Fine {}\n"
    (tmp_path / "MV.cfg").write_text(cfg.format(""))
    assert main(["check", str(tmp_path / "MV.tla"), "--quiet"]) == 0  # E2: untyped, no error
    capsys.readouterr()
    (tmp_path / "MV.cfg").write_text(cfg.format("Bad"))
    assert main(["check", str(tmp_path / "MV.tla"), "--quiet"]) == 1  # E2: two types
    out = capsys.readouterr()
    assert "MV.tla:7:8: attempted to check equality of the model value A_t with the model " \
           "value B_u" in out.out + out.err
