"""Memoised operator applications: same results as evaluating, only for argument-only bodies."""

from __future__ import annotations

import sys
from pathlib import Path
from types import FrameType
from typing import Any

import pytest

from conformance.tla.compiler import memo_worthy, memoized
from conformance.tla.model import Model
from conformance.tla.parser import parse_expression
from conformance.tla.syntax import TlaError
from conformance.tla.values import make_record
from tests.engine.spec_text import load_text
from tests.engine.test_fused import generated_calls

SPEC = """---- MODULE Memo ----
EXTENDS Naturals, FiniteSets, Sequences
VARIABLE x
Big(S) == Cardinality({v \\in S : v > 2})
Above(S) == Cardinality({v \\in S : v > x})
Ends(lg, e) == Cardinality({k \\in DOMAIN lg : lg[k].epoch <= e})
Majority(S) == 2 * Cardinality(S \\cap {1, 2, 3}) > Cardinality({1, 2, 3})
Reached(lg, reo) ==
    LET EndOf(v) == IF v = 1 THEN Len(lg) ELSE reo[v]
    IN Cardinality({k \\in DOMAIN lg : 2 * Cardinality({v \\in 1..3 : EndOf(v) >= k}) > 3})
Shifted(n) == LET Plus(v) == Cardinality({w \\in 1..v : w > x}) + n IN Plus(3) + Plus(4)
Init == x = 0
Next == x' = x + 1
====
"""

INIT_SPEC = """---- MODULE MemoInit ----
EXTENDS Naturals, FiniteSets
VARIABLES a, b
Init == /\\ a \\in 1..3
        /\\ \\E c \\in {0} : LET Count(n) == Cardinality({k \\in 1..n : k <= a}) + c IN b = Count(3)
Next == UNCHANGED <<a, b>>
====
"""


@pytest.fixture()
def model(tmp_path: Path) -> Model:
    return load_text(tmp_path, SPEC)


def test_results_follow_the_arguments(model: Model) -> None:
    for n in range(8):
        got = model.eval_state(f"Big(0..{n})", (0,))
        assert got == max(0, n - 2)
    for subset in ([], [1], [1, 2], [2, 3], [1, 2, 3], [3]):
        text = "{" + ", ".join(map(str, subset)) + "}"
        assert model.eval_state(f"Majority({text})", (0,)) is (2 * len(subset) > 3)


def test_operators_reading_state_follow_the_state(model: Model) -> None:
    for x in range(5):
        assert model.eval_state("Above(0..4)", (x,)) == 4 - x


def test_sequences_by_identity_and_equal_copies(model: Model) -> None:
    entries = [make_record({"epoch": e}.items()) for e in (1, 1, 2, 3)]
    for k in range(1, 5):
        lg = tuple(entries[:k])
        for e in range(4):
            want = sum(1 for x in lg if x.map["epoch"] <= e)
            assert model.eval_state(f"Ends(x, {e})", (lg,)) == want  # a new sequence
            assert model.eval_state(f"Ends(x, {e})", (lg,)) == want  # the same one again
            assert model.eval_state(f"Ends(x, {e})", (tuple(list(lg)),)) == want  # an equal copy
    grown = (*entries, make_record({"epoch": 0}.items()))
    assert model.eval_state("Ends(x, 0)", (grown,)) == 1


def test_identity_key_meeting_an_equal_integer_is_a_miss() -> None:
    calls: list[Any] = []

    def body(s: Any, t: Any, e: tuple) -> Any:
        calls.append(e[0])
        return ("seq", len(e[0])) if isinstance(e[0], tuple) else ("int", e[0])

    f = memoized(body, 1)
    seq = (1, 2, 3)
    assert f(None, None, (seq,)) == ("seq", 3)
    assert f(None, None, (seq,)) == ("seq", 3) and len(calls) == 1  # a hit
    assert f(None, None, (id(seq),)) == ("int", id(seq))  # same key, different argument
    assert f(None, None, (True,)) == ("int", True)
    assert f(None, None, (1,)) == ("int", 1) and calls[-1] is not True  # TRUE is not 1
    g = memoized(lambda s, t, e: e[0] + e[1], 2)
    assert [g(None, None, (a, b)) for a in range(3) for b in range(3)] == \
        [a + b for a in range(3) for b in range(3)]


def test_only_bodies_worth_a_lookup_are_memoised() -> None:
    assert memo_worthy(parse_expression("Cardinality({v \\in S : v > 2})"))
    assert memo_worthy(parse_expression("2 * Cardinality(S \\cap V) > Cardinality(V)"))
    assert not memo_worthy(parse_expression("IF a <= b THEN a ELSE b"))
    assert not memo_worthy(parse_expression("[type |-> \"m\", src |-> Cardinality(S), n |-> Len(q)]"))


def _reached(lg: int, reo: dict[int, int]) -> int:
    ends = {1: lg, **reo}
    return sum(1 for k in range(1, lg + 1) if 2 * sum(1 for v in (1, 2, 3) if ends[v] >= k) > 3)


def test_let_operators_follow_their_enclosing_bindings(model: Model) -> None:
    for n in range(6):
        lg = "<<" + ", ".join(["0"] * n) + ">>"
        for r2 in range(n + 1):
            for r3 in (0, n):
                got = model.eval_state(f"Reached({lg}, <<0, {r2}, {r3}>>)", (0,))
                assert got == _reached(n, {2: r2, 3: r3})


def test_let_operators_reading_state_follow_the_state(model: Model) -> None:
    for x in range(6):
        for n in (0, 5):
            want = max(0, 3 - x) + max(0, 4 - x) + 2 * n
            assert model.eval_state(f"Shifted({n})", (x,)) == want


def test_let_operators_in_init_see_the_state_being_built(tmp_path: Path) -> None:
    (tmp_path / "MemoInit.tla").write_text(INIT_SPEC)
    m = Model.load(tmp_path / "MemoInit.tla")
    assert sorted(m.init_states()) == [(1, 1), (2, 2), (3, 3)]


def test_a_memo_keeps_a_bounded_number_of_elements_alive(monkeypatch: pytest.MonkeyPatch) -> None:
    """A long run's logs must not be kept alive by the memo of every operator reading them."""
    from conformance.tla.semantics import memo as memo_module

    monkeypatch.setattr(memo_module, "MEMO_ELEMENTS", 10)
    calls: list[Any] = []

    def body(s: Any, t: Any, e: tuple) -> Any:
        calls.append(e[0])
        return len(e[0])

    f = memoized(body, 1)
    a, b = tuple(range(6)), tuple(range(7))
    assert f(None, None, (a,)) == 6 and f(None, None, (a,)) == 6 and len(calls) == 1  # a hit
    assert f(None, None, (b,)) == 7  # 13 elements would be kept: the memo is emptied first
    assert f(None, None, (b,)) == 7 and len(calls) == 2
    assert f(None, None, (a,)) == 6 and len(calls) == 3  # a was let go


INSTANCED = """---- MODULE Counted ----
EXTENDS Naturals, FiniteSets
CONSTANT N
VARIABLE v
Evens(x) == Cardinality({k \\in 1..(x + N) : k % 2 = 0})
EvensPlus(x) == Cardinality({k \\in 1..(x + N) : k % 2 = 0}) + v
====
"""

TWICE = """---- MODULE Twice ----
EXTENDS Naturals
VARIABLES a, b
I1 == INSTANCE Counted WITH N <- 2, v <- a
I2 == INSTANCE Counted WITH N <- 10, v <- b
Init == a = 0 /\\ b = 100
Next == UNCHANGED <<a, b>>
====
"""


@pytest.mark.parametrize("order", [1, -1])
def test_an_operator_of_a_module_instantiated_twice_has_a_memo_per_instance(
        tmp_path: Path, order: int) -> None:
    (tmp_path / "Counted.tla").write_text(INSTANCED)
    (tmp_path / "Twice.tla").write_text(TWICE)
    m = Model.load(tmp_path / "Twice.tla")
    expected = {"I1!Evens(4)": 3, "I2!Evens(4)": 7, "I1!EvensPlus(4)": 3, "I2!EvensPlus(4)": 107}
    for expr in list(expected)[::order]:
        assert m.eval_state(expr, (0, 100)) == expected[expr], expr


PUN = """---- MODULE MemoPun ----
EXTENDS Naturals
VARIABLE x
Pick(r) == LET Of(z) == CHOOSE v \\in {r} : TRUE IN Of(1)
Init == x = 0
Next == x' = FALSE
====
"""


def test_let_operators_tell_false_from_zero_in_their_enclosing_bindings(tmp_path: Path) -> None:
    # By hand (TLC): Pick(r) is r whatever r is, so the pair is <<0, FALSE>>, and Pick(x) is
    # x in each state. Of's results were kept while r was 0, and Python finds the
    # bindings (0,) and (False,) equal: the engine answered <<0, 0>> and 0 in the second state.
    m = load_text(tmp_path, PUN)
    pair = m.eval_state("<<Pick(0), Pick(FALSE)>>", (0,))
    assert pair == (0, False) and type(pair[1]) is bool
    assert type(m.eval_state("Pick(x)", (0,))) is int
    assert m.eval_state("Pick(x)", (False,)) is False
    assert m.eval_state("Pick(<<x>>)", (1,)) == (1,)
    assert m.eval_state("Pick(<<x>>)", (True,))[0] is True


STATE_SPEC = """---- MODULE MemoState ----
EXTENDS Naturals, FiniteSets
VARIABLES a, b
Both == Cardinality({k \\in a : k \\in b})
OnlyA == Cardinality({k \\in a : k > 1})
Above(n) == Cardinality({k \\in a : k > n})
Pair(n, m) == Cardinality({k \\in b : k > n /\\ k # m})
Mixed(n) == Cardinality({k \\in a : k > n /\\ k \\in b})
Init == /\\ a = {1, 2}
        /\\ b = {2} /\\ OnlyA = 1
Next == \\E k \\in 1..3 : a' = a \\cup {k} /\\ b' = b /\\ Both < 3
====
"""


def test_zero_arity_definitions_reading_state_follow_each_variable(tmp_path: Path) -> None:
    # Both reads a and b: states sharing a's object but not b's give other values
    model = load_text(tmp_path, STATE_SPEC)
    a = frozenset({1, 2, 3})
    for b, want in [(frozenset({2}), 1), (frozenset({2, 3}), 2), (frozenset(), 0), (frozenset({2}), 1)]:
        assert model.eval_action("Both", (a, b), (a, b)) == want
    assert model.eval_action("Both", (frozenset({3}), frozenset({2})), (a, a)) == 0
    for b in (frozenset(), frozenset({9})):  # OnlyA reads a only
        assert model.eval_action("Both + OnlyA", (a, b), (a, b)) == 2
    # operators with parameters: per arguments too
    for n, want in [(0, 3), (2, 1), (1, 2), (0, 3), (3, 0)]:
        assert model.eval_action(f"Above({n})", (a, a), (a, a)) == want
    assert [model.eval_action(f"Pair({n}, {m})", (a, a), (a, a)) for n, m in
            [(0, 0), (0, 1), (1, 1), (0, 1), (1, 3)]] == [3, 2, 2, 2, 1]
    for b, want in [(frozenset({2}), 1), (frozenset({2, 3}), 2), (frozenset({1}), 0)]:
        assert model.eval_action("Mixed(1)", (a, b), (a, b)) == want
    # TRUE is not 1: no result of Above(1) stands for Above(TRUE), which fails
    assert model.eval_action("Above(1)", (a, a), (a, a)) == 2
    with pytest.raises(TlaError):
        model.eval_action("Above(TRUE)", (a, a), (a, a))
    # an initial predicate reads the state it builds
    assert list(model.init_states()) == [(frozenset({1, 2}), frozenset({2}))]
    assert sorted(s for _, s in model.successors((frozenset({1, 2}), frozenset({2})))) == [
        (frozenset({1, 2}), frozenset({2})), (frozenset({1, 2}), frozenset({2})),
        (frozenset({1, 2, 3}), frozenset({2}))]


ELEMENT_SPEC = """---- MODULE MemoElement ----
EXTENDS Naturals, FiniteSets
VARIABLES a, b
Typed(S) == \\A m \\in S : m.k \\in 1..3 /\\ m.v # "x" /\\ Cardinality({m.k, m.k + 1}) = 2
Some(S) == \\E m \\in S : m.k \\in 2..3 /\\ m.v # "x" /\\ Cardinality({m.k, m.k + 1}) = 2
Outer(S) == {\\A m \\in S : m.k + y > 2 /\\ m.v # "x" /\\ Cardinality({m.k}) = 1 : y \\in 0..2}
State == \\A m \\in a : m.k < Cardinality(b) /\\ m.v # "x" /\\ Cardinality({m.k}) = 1
Init == a = {} /\\ b = {}
Next == UNCHANGED <<a, b>>
====
"""


def test_quantifier_bodies_are_remembered_per_element_only_when_the_element_fixes_them(
        tmp_path: Path) -> None:
    model = load_text(tmp_path, ELEMENT_SPEC)
    r1, r2, r4 = (make_record({"k": k, "v": "y"}) for k in (1, 2, 4))
    empty = frozenset()
    # the same element objects in other sets: the body's values per element are reused
    for s, typed, some in [({r1, r2}, True, True), ({r1}, True, False), ({r2, r4}, False, True),
                           ({r1, r4}, False, False), ({r2}, True, True), (set(), True, False)]:
        state = (frozenset(s), empty)
        assert model.eval_state("Typed(a)", state) is typed
        assert model.eval_state("Some(a)", state) is some
    # a body reading another binding (y) or the state (b) is evaluated for each
    assert model.eval_state("Outer(a)", (frozenset({r1}), empty)) == frozenset({False, True})
    assert model.eval_state("Outer(a)", (frozenset({r4}), empty)) == frozenset({True})
    big, small = frozenset({1, 2, 3}), frozenset({1})
    assert model.eval_state("State", (frozenset({r1, r2}), big)) is True
    assert model.eval_state("State", (frozenset({r1, r2}), small)) is False


def test_a_zero_arity_definition_reading_state_is_evaluated_once_per_objects(tmp_path: Path) -> None:
    model = load_text(tmp_path, STATE_SPEC)
    state = (frozenset({1, 2, 3}), frozenset({2}))
    assert model.eval_state("Both", state) == 1
    assert generated_calls(lambda: model.eval_state("Both", state)) == 0
    copy = (frozenset({1, 2, 3}), frozenset({2}))  # equal values, other objects: evaluated
    assert generated_calls(lambda: model.eval_state("Both", copy)) > 0


RECURSIVE_LET_SPEC = """---- MODULE RecLet ----
EXTENDS Naturals, FiniteSets
VARIABLE x
Tri(S) == LET G[i \\in 1..Cardinality(S)] == IF i = 1 THEN 1 ELSE G[i - 1] + i
          IN G[Cardinality(S)]
T30 == Tri(1..30)
Uses == x + T30
====
"""


def test_a_constant_built_by_a_recursive_let_function_is_evaluated_once(tmp_path: Path) -> None:
    # T30 is constant: G's only unknown parts while compiled were its own references, so
    # it is folded, not evaluated again in each state (TLC evaluates a constant
    # definition once); by hand, 1 + 2 + ... + 30 = 465
    model = load_text(tmp_path, RECURSIVE_LET_SPEC)
    assert model.eval_state("Uses", (0,)) == 465
    calls = 0

    def profile(frame: FrameType, event: str, arg: Any) -> None:
        nonlocal calls
        if event == "call" and frame.f_code.co_name == "apply_def":
            calls += 1

    sys.setprofile(profile)
    try:
        assert model.eval_state("Uses", (1,)) == 466
    finally:
        sys.setprofile(None)
    assert calls == 0


MUTUAL_SPEC = """---- MODULE Mutual ----
EXTENDS Naturals
VARIABLE x
RECURSIVE A(_), B(_)
A(n) == LET G[i \\in {1, 2}] == IF i = 1 THEN B(n) ELSE 0 IN G[1] + G[2]
B(n) == IF n = 0 THEN x ELSE A(n - 1) + 1
Check == B(2)
====
"""


def test_a_recursive_let_function_calling_an_operator_still_compiling_follows_the_state(
        tmp_path: Path) -> None:
    # G calls B, still being compiled when G is: what B reads (x) is not known then, so G
    # is not taken as depending on nothing (remembered, it would keep the first state's
    # value). By hand: B(2) = A(1) + 1 = B(1) + 1 = A(0) + 2 = B(0) + 2 = x + 2
    model = load_text(tmp_path, MUTUAL_SPEC)
    assert [model.eval_state("Check", (v,)) for v in (0, 5, 7, 5)] == [2, 7, 9, 7]
