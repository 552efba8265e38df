"""Expression evaluation: values, operators, standard modules, definitions, errors."""

from __future__ import annotations

from typing import Any

import pytest

from conformance.tla.loader import ModuleLoader
from conformance.tla.model import Model
from conformance.tla.parser import parse_module_text
from conformance.tla.stdlib import LazySet
from conformance.tla.syntax import EvalError, UnsupportedError
from conformance.tla.values import Fn, ModelValue, make_fn, make_record, same_value

ALL = "Naturals, Integers, Sequences, FiniteSets, TLC, Bags"


def model(body: str = "", constants: dict[str, Any] | None = None, extends: str = ALL) -> Model:
    head = f"EXTENDS {extends}" if extends else ""
    text = f"---- MODULE T ----\n{head}\n{body}\n====\n"
    return Model(parse_module_text(text, "T.tla"), ModuleLoader([]), constants or {})


def ev(expr: str, body: str = "", **kw: Any) -> Any:
    return model(body, **kw).eval_constant(expr)


# --- integers and booleans ---------------------------------------------------------------


@pytest.mark.parametrize(
    ("expr", "value"),
    [
        ("7 \\div 2", 3),
        ("(-7) \\div 2", -4),
        ("-7 \\div 2", -3),
        ("7 % 3", 1),
        ("(-7) % 3", 2),
        ("2 ^ 100", 2**100),
        ("10 - 15", -5),
        ("-(3)", -3),
        ("3 < 4 /\\ 4 <= 4 /\\ 5 > 4 /\\ 4 >= 5", False),
        ("TRUE => FALSE", False),
        ("FALSE => 1 = 1", True),
        ("TRUE <=> TRUE", True),
        ("~TRUE \\/ FALSE", False),
        ("1 # 2", True),
    ],
)
def test_arithmetic_and_logic(expr: str, value: Any) -> None:
    assert ev(expr) == value
    assert type(ev(expr)) is type(value)


def test_division_by_zero_and_negative_modulus_are_located_errors() -> None:
    with pytest.raises(EvalError, match="division by zero") as err:
        ev("1 \\div 0")
    assert err.value.loc is not None and err.value.loc.line == 1
    with pytest.raises(EvalError, match="positive"):
        ev("1 % 0")


def test_comparison_of_different_kinds_is_an_error() -> None:
    with pytest.raises(EvalError, match="<"):
        ev('1 < "a"')
    # TLC: IntValue.equals fails on a string or a boolean (test_tlc_equality.py)
    with pytest.raises(EvalError, match="TLC cannot compare"):
        ev('1 = "a"')
    with pytest.raises(EvalError, match="TLC cannot compare"):
        ev("1 = TRUE")
    with pytest.raises(EvalError, match="integers"):
        ev('1 + "a"')
    with pytest.raises(EvalError, match="boolean"):
        ev("1 /\\ TRUE")


def test_short_circuit_avoids_evaluating_errors() -> None:
    assert ev("FALSE /\\ 1 \\div 0 = 1") is False
    assert ev("TRUE \\/ 1 \\div 0 = 1") is True
    assert ev("IF TRUE THEN 1 ELSE 1 \\div 0") == 1


def test_arithmetic_requires_naturals() -> None:
    with pytest.raises(EvalError, match="Naturals"):
        ev("1 + 1", extends="")
    assert ev("1 + 1", extends="Sequences") == 2  # Sequences brings Naturals along


# --- sets ----------------------------------------------------------------------------------


def test_set_operators() -> None:
    assert ev("{1, 2} \\cup {3}") == frozenset({1, 2, 3})
    assert ev("{1, 2} \\cap {2, 3}") == frozenset({2})
    assert ev("{1, 2} \\ {2}") == frozenset({1})
    assert ev("{1} \\subseteq {1, 2} /\\ ~({3} \\subseteq {1})") is True
    assert ev("2..4") == frozenset({2, 3, 4})
    assert ev("3..2") == frozenset()
    assert ev("{x \\in 1..6 : x % 2 = 0}") == frozenset({2, 4, 6})
    assert ev("{x * x : x \\in 1..3}") == frozenset({1, 4, 9})
    assert ev("{x + y : x \\in 1..2, y \\in {10, 20}}") == frozenset({11, 12, 21, 22})
    assert ev("SUBSET {1, 2}") == frozenset(
        {frozenset(), frozenset({1}), frozenset({2}), frozenset({1, 2})}
    )
    assert ev("UNION {{1}, {2, 3}}") == frozenset({1, 2, 3})
    assert ev("{1, 2} \\X {3}") == frozenset({(1, 3), (2, 3)})
    assert ev("Cardinality({1, 2} \\X {3} \\X {4, 5})") == 4
    assert ev("IsFiniteSet(1..3) /\\ ~IsFiniteSet(Nat)") is True
    assert ev("3 \\notin {1, 2}") is True


def test_infinite_sets_support_membership_only() -> None:
    assert ev("3 \\in Nat /\\ -3 \\notin Nat /\\ -3 \\in Int") is True
    assert ev('"a" \\in STRING /\\ TRUE \\in BOOLEAN') is True
    with pytest.raises(EvalError, match="TLC cannot compare"):  # BOOLEAN is {FALSE, TRUE}
        ev("1 \\notin BOOLEAN")
    assert ev("<<1, 2>> \\in Seq(Nat) /\\ <<-1>> \\notin Seq(Nat)") is True
    assert ev("3 \\in Nat \\ {0} /\\ 0 \\notin Nat \\ {0}") is True
    assert ev("4 \\in {n \\in Nat : n % 2 = 0}") is True
    with pytest.raises(UnsupportedError, match="Nat") as err:
        ev("\\E n \\in Nat : n = 3")
    assert err.value.loc is not None
    with pytest.raises(UnsupportedError):
        ev("Cardinality(Int)")
    assert isinstance(ev("Seq({1})"), LazySet)


def test_union_of_infinite_sets_supports_membership() -> None:
    # TLC's UnionValue: membership asks each element of the (finite) outer set in turn,
    # enumerating none of them; enumerating the union itself is what cannot be done
    assert ev("3 \\in UNION {Nat} /\\ -3 \\notin UNION {Nat}") is True
    assert ev("-3 \\in UNION {{-3}, Nat} /\\ \"a\" \\in UNION {Nat, STRING, {}}") is True
    assert ev("<<1, 2>> \\in UNION {[1..2 -> Nat], [1..3 -> Nat]}") is True
    assert ev("<<-1, 2>> \\notin UNION {[1..2 -> Nat], {<<1>>}}") is True
    assert ev("[a |-> <<0>>] \\in [a : UNION {[1..1 -> Int \\cup {TRUE}]}]") is True
    with pytest.raises(UnsupportedError, match="not finite"):
        ev("Cardinality(UNION {{1}, Nat})")
    with pytest.raises(EvalError, match="element of UNION"):
        ev("UNION {Nat, 3}")


def test_quantifiers_and_choose() -> None:
    assert ev("\\A x \\in 1..3 : x > 0") is True
    assert ev("\\E x \\in 1..3 : x > 2") is True
    assert ev("\\E x \\in {} : TRUE") is False
    assert ev("\\A x, y \\in 1..2 : x + y <= 4") is True
    assert ev("\\E <<a, b>> \\in {<<1, 2>>, <<3, 4>>} : a + b = 7") is True
    assert ev("CHOOSE x \\in 1..10 : x * x > 20") == 5
    assert ev("CHOOSE <<a, b>> \\in {1, 2} \\X {1, 2} : a > b") == (2, 1)
    with pytest.raises(EvalError, match="CHOOSE"):
        ev("CHOOSE x \\in 1..3 : x > 5")
    with pytest.raises(UnsupportedError, match="unbounded"):
        ev("\\A x : x = x")
    with pytest.raises(UnsupportedError, match="CHOOSE"):
        ev("CHOOSE x : x = 1")


def test_choose_is_deterministic_least_by_sort_key() -> None:
    assert ev('CHOOSE s \\in {"b", "a", "c"} : TRUE') == "a"
    assert ev("CHOOSE s \\in {{2}, {1}, {1, 2}} : TRUE") == frozenset({1})


def test_choose_orders_sequences_among_the_other_functions() -> None:
    # By hand (TLC's FcnRcdValue.compareTo: fewer arguments first, then argument by argument,
    # each followed by its value): the partial functions from {1, 2, 3} to {7} holding 3 are
    # [3 |-> 7], [1 |-> 7, 3 |-> 7], [2 |-> 7, 3 |-> 7] and <<7, 7, 7>>, and the least is
    # [3 |-> 7]. The engine ordered every sequence before every other function: <<7, 7, 7>>.
    partial = "UNION {[d -> {7}] : d \\in SUBSET {1, 2, 3}}"
    assert ev(f"CHOOSE f \\in {partial} : 3 \\in DOMAIN f") == make_fn({3: 7})
    # domains {0, 1} and {1, 2} (a sequence): 0 < 1, so [0 |-> 0, 1 |-> 0] comes first
    assert ev("CHOOSE f \\in [{0, 1} -> {0, 1}] \\cup [{1, 2} -> {0, 1}] : TRUE") == \
        make_fn({0: 0, 1: 0})
    assert ev("CHOOSE f \\in {[k \\in {1, 2} |-> 0], [k \\in {0, 2} |-> 0]} : TRUE") == \
        make_fn({0: 0, 2: 0})
    # sequences among themselves: shorter first, then item by item
    assert ev("CHOOSE s \\in {<<2>>, <<1, 1>>, <<1>>} : TRUE") == (1,)


def test_choose_compares_domains_before_values() -> None:
    # By hand (TLC's FcnRcdValue.compareTo and RecordValue.compareTo: size, then every
    # argument in order, and only then the values): <<5, 0>> has domain {1, 2}, the other
    # {1, 3}; 2 < 3, so <<5, 0>> is the least although its first value is the larger. The
    # engine compared argument and value in turn and chose [1 |-> 0, 3 |-> 0].
    assert ev("CHOOSE f \\in {<<5, 0>>, [k \\in {1, 3} |-> 0]} : TRUE") == (5, 0)
    assert ev("CHOOSE f \\in {[k \\in {1, 3} |-> 0], [k \\in {1, 2} |-> 9 - k]} : TRUE") == (8, 7)
    # records: fields a, b against a, c: b < c decides before any value
    assert ev('CHOOSE r \\in {[a |-> 5, b |-> 0], [a |-> 0, c |-> 0]} : TRUE') == \
        make_record({"a": 5, "b": 0})
    # same domains: the values in the domain's order
    assert ev('CHOOSE r \\in {[a |-> 1, b |-> 0], [a |-> 0, b |-> 9]} : TRUE') == \
        make_record({"a": 0, "b": 9})


# --- functions, records, sequences ----------------------------------------------------------


def test_tla_equality_corner_cases() -> None:
    assert ev("<<1, 2>> = [i \\in 1..2 |-> i]") is True
    assert ev('[a |-> 1] = [x \\in {"a"} |-> 1]') is True
    assert ev("<<>> = [x \\in {} |-> 1]") is True
    assert ev("{1, 2} = {2, 1, 1}") is True
    assert ev("<<1, 2>> /= <<2, 1>>") is True
    assert ev("(1 :> 2) = <<2>>") is True
    assert ev("(2 :> 1) = <<1>>") is False


def test_functions() -> None:
    assert ev("[x \\in {1, 2} |-> x * 10][2]") == 20
    assert ev('[x \\in {"a", "b"} |-> x]') == make_fn({"a": "a", "b": "b"})
    assert ev("DOMAIN [x \\in {5, 6} |-> 0]") == frozenset({5, 6})
    assert ev("DOMAIN <<7, 8>>") == frozenset({1, 2})
    assert ev("[x \\in 1..2, y \\in 1..2 |-> x * y][2, 2]") == 4
    assert ev("[<<a, b>> \\in {<<1, 2>>} |-> a + b][<<1, 2>>]") == 3
    assert ev("[{1, 2} -> {0, 1}]") == frozenset(
        {(0, 0), (0, 1), (1, 0), (1, 1)}
    )
    assert ev("<<0, 1>> \\in [{1, 2} -> {0, 1}]") is True
    with pytest.raises(UnsupportedError, match="Nat"):
        ev("[n \\in Nat |-> n]")
    assert ev("<<1, 2>> \\in [{1, 2} -> Nat] /\\ <<-1>> \\notin [{1} -> Nat]") is True
    assert ev("(1 :> 10 @@ 2 :> 20 @@ 1 :> 99)[1]") == 10
    assert ev("(5 :> 1 @@ 6 :> 2)") == make_fn({5: 1, 6: 2})


def test_application_outside_the_domain_is_a_located_error() -> None:
    with pytest.raises(EvalError, match="domain") as err:
        ev("<<1, 2>>[3]")
    assert err.value.loc is not None and err.value.loc.col == 1
    with pytest.raises(EvalError, match="domain"):
        ev('[a |-> 1]["b"]')
    with pytest.raises(EvalError, match="field"):
        ev("[a |-> 1].b")


def test_except_on_sequences_records_and_nested_paths() -> None:
    assert ev("[<<1, 2, 3>> EXCEPT ![2] = 20]") == (1, 20, 3)
    assert ev("[<<1, 2, 3>> EXCEPT ![2] = @ + 5, ![3] = @ * 2]") == (1, 7, 6)
    assert ev("[[a |-> 1, b |-> 2] EXCEPT !.a = 5]") == make_record([("a", 5), ("b", 2)])
    assert ev("[[a |-> <<1, 2>>] EXCEPT !.a[2] = @ + 1]") == make_record([("a", (1, 3))])
    assert ev("[[i \\in 1..2 |-> [v |-> i]] EXCEPT ![1].v = 9, ![2] = [v |-> 0]]") == (
        make_record([("v", 9)]),
        make_record([("v", 0)]),
    )
    assert ev('[[x \\in {"p", "q"} |-> 0] EXCEPT !["p"] = 1]') == make_fn({"p": 1, "q": 0})
    assert ev("[f EXCEPT ![1, 2] = 0][1, 2]", "f == [x, y \\in 1..2 |-> x + y]") == 0
    # TLA+: an EXCEPT on a point outside the domain leaves the function unchanged
    assert ev("[<<1>> EXCEPT ![5] = 0]") == (1,)


def test_except_writing_a_boolean_over_an_integer() -> None:
    """TRUE over 1 is a change (Python finds them equal): on a sequence, a function and a
    record, with the index, the base and the value read from bound variables or LETs."""
    def first(v: Any) -> Any:
        assert type(v) is frozenset and len(v) == 1
        return next(iter(v))

    assert same_value(ev("[<<1, 2>> EXCEPT ![1] = TRUE]"), (True, 2))
    assert same_value(ev("[<<1, 2>> EXCEPT ![1] = @ = 1]"), (True, 2))
    assert same_value(ev('[[x \\in {"p", "q"} |-> 1] EXCEPT !["p"] = TRUE]'),
                      make_fn({"p": True, "q": 1}))
    assert same_value(ev("[[a |-> 1] EXCEPT !.a = TRUE]"), make_record([("a", True)]))
    assert same_value(first(ev("{LET g == <<k, 2>> IN [g EXCEPT ![k] = k = 1] : k \\in {1}}")),
                      (True, 2))
    assert same_value(first(ev("{LET g == [x \\in {k} |-> 1] b == k = 1 IN "
                               "[g EXCEPT ![k] = b] : k \\in {3}}")),
                      make_fn({3: False}))


def test_except_with_several_one_level_updates() -> None:
    """Each update sees the ones before it (through @); the base function is not changed."""
    rec = make_record
    assert ev("[[a |-> 1, b |-> 2] EXCEPT !.a = 5, !.a = @ + 1, !.b = @ * @]") == rec(
        [("a", 6), ("b", 4)])
    assert ev("[[a |-> 1] EXCEPT !.z = 5, !.a = 2]") == rec([("a", 2)])
    assert ev("[[a |-> 1] EXCEPT !.z = 5, !.y = 6]") == rec([("a", 1)])
    assert ev('[[x \\in {"p", "q"} |-> 0] EXCEPT !["p"] = 1, !["q"] = @ - 1]') == make_fn(
        {"p": 1, "q": -1})
    assert ev("LET r == [a |-> 1, b |-> 2] IN <<[r EXCEPT !.a = 5, !.b = 6], r>>") == (
        rec([("a", 5), ("b", 6)]), rec([("a", 1), ("b", 2)]))
    assert ev("[<<1, 2>> EXCEPT ![1] = 7, ![2] = @ + 7, ![3] = 0]") == (7, 9)


def test_records() -> None:
    r = ev('[name |-> "n", val |-> 3]')
    assert isinstance(r, Fn) and r.map == {"name": "n", "val": 3}
    assert ev("[a |-> 1, b |-> 2].b") == 2
    assert ev("[a : {1, 2}, b : {TRUE}]") == frozenset(
        {make_record([("a", 1), ("b", True)]), make_record([("a", 2), ("b", True)])}
    )
    assert ev("[a |-> 3] \\in [a : Nat]") is True


def test_sequences() -> None:
    assert ev("Len(<<1, 2, 3>>)") == 3
    assert ev("Append(<<1>>, 2)") == (1, 2)
    assert ev("Head(<<4, 5>>)") == 4
    assert ev("Tail(<<4, 5>>)") == (5,)
    assert ev("<<1>> \\o <<2, 3>>") == (1, 2, 3)
    assert ev("SubSeq(<<1, 2, 3, 4>>, 2, 3)") == (2, 3)
    assert ev("SubSeq(<<1, 2>>, 2, 1)") == ()
    assert ev("SelectSeq(<<1, 2, 3, 4>>, LAMBDA x : x % 2 = 0)") == (2, 4)
    assert ev("SelectSeq(<<1, 2, 3>>, IsOdd)", "IsOdd(x) == x % 2 = 1") == (1, 3)
    with pytest.raises(EvalError, match="Head"):
        ev("Head(<<>>)")
    with pytest.raises(EvalError, match="sequence"):
        ev("Len({1})")


# --- TLC and Bags --------------------------------------------------------------------------------


def test_tlc_operators(capsys: pytest.CaptureFixture[str]) -> None:
    assert ev('Print("hello", 42)') == 42
    assert ev("PrintT(<<1>>)") is True
    assert capsys.readouterr().out.splitlines() == ['"hello"', "<<1>>"]
    assert ev('ToString(<<1, "a">>)') == '<<1, "a">>'
    assert ev("TLCEval(3)") == 3
    assert ev("Cardinality(Permutations({1, 2, 3}))") == 6
    assert ev("<<2, 1>> \\in Permutations({1, 2})") is True
    assert ev("RandomElement({7}) = 7") is True
    assert ev("RandomElement(1..5) \\in 1..5") is True
    assert isinstance(ev("JavaTime"), int)
    assert ev('Assert(1 = 1, "fine")') is True
    with pytest.raises(EvalError, match=r"Assert failed: broken") as err:
        ev('Assert(1 = 2, "broken")')
    assert err.value.loc is not None


def test_random_element_is_seeded() -> None:
    a = [model().eval_state("RandomElement(1..1000)", ()) for _ in range(2)]
    assert a[0] == a[1]


def test_bags() -> None:
    assert ev("BagToSet(SetToBag({1, 2}))") == frozenset({1, 2})
    assert ev("CopiesIn(1, SetToBag({1}) (+) SetToBag({1, 2}))") == 2
    assert ev("BagCardinality(SetToBag({1}) (+) SetToBag({1, 2}))") == 3
    assert ev("(SetToBag({1}) (+) SetToBag({1})) (-) SetToBag({1})") == make_fn({1: 1})
    assert ev("SetToBag({1}) (-) SetToBag({1})") == ev("EmptyBag")
    assert ev("BagIn(2, SetToBag({2})) /\\ ~BagIn(3, SetToBag({2}))") is True
    assert ev("BagUnion({SetToBag({1}), SetToBag({1, 2})})") == make_fn({1: 2, 2: 1})
    assert ev("SetToBag({1}) \\sqsubseteq SetToBag({1, 2})") is True
    assert ev("SetToBag({1, 2}) \\sqsubseteq SetToBag({1})") is False
    assert ev("Cardinality(SubBag(SetToBag({1}) (+) SetToBag({1})))") == 3
    assert ev("BagOfAll(LAMBDA x : x % 2, SetToBag({1, 2, 3}))") == make_fn({1: 2, 0: 1})


# --- definitions -------------------------------------------------------------------------------------


def test_let_if_case() -> None:
    assert ev("LET a == 2  b == a + 1 IN a * b") == 6
    assert ev("LET F(x) == x + 1 IN F(F(1))") == 3
    assert ev("CASE 1 = 2 -> 10 [] 2 = 2 -> 20 [] OTHER -> 30") == 20
    assert ev("CASE 1 = 2 -> 10 [] OTHER -> 30") == 30
    with pytest.raises(EvalError, match="CASE"):
        ev("CASE 1 = 2 -> 10")
    with pytest.raises(EvalError, match="boolean"):
        ev("IF 1 THEN 2 ELSE 3")


def test_let_definitions_are_lazy() -> None:
    assert ev("LET h == Head(<<>>) IN 3") == 3
    assert ev("LET s == <<>> h == Head(s) IN IF s = <<>> THEN 0 ELSE h") == 0


def test_recursion() -> None:
    body = """
fact[n \\in Nat] == IF n = 0 THEN 1 ELSE n * fact[n - 1]
RECURSIVE Fib(_)
Fib(n) == IF n < 2 THEN n ELSE Fib(n - 1) + Fib(n - 2)
RECURSIVE SetSum(_)
SetSum(S) == IF S = {} THEN 0 ELSE LET x == CHOOSE y \\in S : TRUE IN x + SetSum(S \\ {x})
sq[n \\in 1..3] == n * n
RECURSIVE IsEven(_), IsOdd(_)
IsEven(n) == IF n = 0 THEN TRUE ELSE IsOdd(n - 1)
IsOdd(n) == IF n = 0 THEN FALSE ELSE IsEven(n - 1)
"""
    m = model(body)
    assert m.eval_constant("fact[20]") == 2432902008176640000
    assert m.eval_constant("Fib(15)") == 610
    assert m.eval_constant("SetSum(1..100)") == 5050
    assert m.eval_constant("sq") == (1, 4, 9)
    assert m.eval_constant("IsEven(10) /\\ IsOdd(7)") is True
    with pytest.raises(EvalError, match="domain"):
        m.eval_constant("fact[-1]")
    with pytest.raises(UnsupportedError, match="infinite"):
        m.eval_constant("fact = fact")


def test_local_recursive_definitions() -> None:
    assert ev(
        "LET RECURSIVE F(_)\n  F(n) == IF n = 0 THEN 0 ELSE n + F(n - 1)\nIN F(4)"
    ) == 10
    assert ev("LET f[n \\in Nat] == IF n = 0 THEN 1 ELSE 2 * f[n - 1] IN f[10]") == 1024


def test_higher_order_operators() -> None:
    body = """
Apply(F(_), x) == F(x)
Twice(F(_), x) == F(F(x))
Inc(x) == x + 1
Fold(Op(_, _), S, init) == LET RECURSIVE G(_, _)
                               G(T, acc) == IF T = {} THEN acc
                                            ELSE LET y == CHOOSE z \\in T : TRUE
                                                 IN G(T \\ {y}, Op(acc, y))
                           IN G(S, init)
Add(a, b) == a + b
"""
    m = model(body)
    assert m.eval_constant("Apply(Inc, 1)") == 2
    assert m.eval_constant("Twice(Inc, 1)") == 3
    assert m.eval_constant("Apply(LAMBDA x : x * 10, 4)") == 40
    assert m.eval_constant("Fold(Add, 1..4, 0)") == 10
    assert m.eval_constant("Fold(LAMBDA a, b : a * b, 1..4, 1)") == 24
    assert m.eval_constant("LET k == 5 IN Apply(LAMBDA x : x + k, 1)") == 6
    with pytest.raises(EvalError, match="argument"):
        m.eval_constant("Apply(Add, 1)")


def test_constants_and_model_values() -> None:
    mv = ModelValue("m1")
    m = model("CONSTANTS N, M\nDouble == 2 * N", {"N": 4, "M": mv})
    assert m.eval_constant("Double") == 8
    assert m.eval_constant("M") is mv
    assert m.eval_constant("M = M /\\ M /= 1") is True


def test_missing_constant_is_reported_when_needed() -> None:
    m = model("CONSTANTS N, K\nUsesK == K + 1", {"N": 1})
    assert m.missing_constants() == ["K"]
    assert m.eval_constant("N") == 1
    with pytest.raises(EvalError, match="constant K") as err:
        m.eval_constant("UsesK")
    assert err.value.loc is not None and err.value.loc.line == 4


def test_named_theorems_and_assumptions_stand_for_their_statements() -> None:
    body = (
        "THEOREM T1 == \\A x \\in 0..5 : (x + x) % 2 = 0\n"
        "  PROOF OBVIOUS\n"  # the proof is not part of T1
        "ASSUME T1\n"
        "ASSUME A1 == 1 < 2 /\\ 3 > 4 \\/ TRUE\n"
        "THEOREM T2 == 1 < 2 /\\ 3 > 4\n"
        "LEMMA L == /\\ 2 + 2\n"
        "THEOREM T3 == ASSUME NEW y PROVE y = y\n"
        "THEOREM 1 = 1\n"
        "ASSUME TRUE\n"
    )
    m = model(body)
    # 0+0, 1+1, ..., 5+5 are even
    assert m.eval_constant("T1") is True
    assert m.eval_constant("T1!:") is True
    # (1 < 2 /\ 3 > 4) \/ TRUE = FALSE \/ TRUE
    assert m.eval_constant("A1") is True
    assert m.eval_constant("A1!1") is False
    # T2!1 is 1 < 2, T2!2 is 3 > 4, T2 their conjunction
    assert m.eval_constant("T2") is False
    assert m.eval_constant("T2!1") is True
    assert m.eval_constant("T2!2") is False
    # a one-item list: L!1 is its item 2 + 2, L!1!2 that item's second operand
    assert m.eval_constant("L") == 4
    assert m.eval_constant("L!1!2") == 2
    with pytest.raises(EvalError, match="unknown name T3"):  # ASSUME ... PROVE names nothing
        m.eval_constant("T3")


def test_a_false_assumption_by_name_is_an_error() -> None:
    # T == 2 > 3 is FALSE: ASSUME T fails (as the theorem itself is never checked)
    model("THEOREM T == 2 > 3")
    with pytest.raises(EvalError, match="ASSUME") as err:
        model("THEOREM T == 2 > 3\nASSUME T")
    assert err.value.loc is not None and err.value.loc.line == 4


def test_false_assume_is_an_error_with_location() -> None:
    with pytest.raises(EvalError, match="ASSUME") as err:
        model("CONSTANT N\nASSUME N > 5", {"N": 1})
    assert err.value.loc is not None and err.value.loc.line == 4
    model("CONSTANT N\nASSUME N > 5", {"N": 6})


def test_unknown_names_and_arity_errors() -> None:
    with pytest.raises(EvalError, match="unknown name Foo"):
        ev("Foo + 1")
    with pytest.raises(EvalError, match="argument"):
        ev("F(1, 2)", "F(x) == x")
    with pytest.raises(EvalError, match="EXTENDS"):
        ev("Len(<<>>)", extends="Naturals")


def test_constant_subexpressions_are_evaluated_once(capsys: pytest.CaptureFixture[str]) -> None:
    m = model("CONSTANT N\nVARIABLE x\nS == Print(\"S\", 1..N)\nInS == x \\in S", {"N": 3})
    # S is a constant-level definition: TLC evaluates it once, Print included (its regression
    # model DeterministicConstantOverrideCaching prints exactly once)
    m.eval_state("InS", (1,))
    m.eval_state("InS", (2,))
    assert capsys.readouterr().out.count('"S"') == 1


def test_state_and_action_level_evaluation() -> None:
    m = model("VARIABLES x, y\nSum == x + y\nGrew == x' > x\nSame == UNCHANGED <<x, y>>")
    assert m.variables == ("x", "y")
    assert m.eval_state("Sum", (1, 2)) == 3
    assert m.eval_action("Grew", (1, 0), (2, 0)) is True
    assert m.eval_action("Same", (1, 0), (1, 0)) is True
    assert m.eval_action("Same", (1, 0), (1, 1)) is False
    assert m.eval_action("[x' = x + 1]_<<x, y>>", (1, 0), (1, 0)) is True
    assert m.eval_action("<<x' = x + 1>>_<<x, y>>", (1, 0), (2, 0)) is True
    assert m.eval_state("x + 1", (5, 0)) == 6
    with pytest.raises(EvalError, match="reads state"):
        m.eval_constant("Sum")
    with pytest.raises(EvalError, match="no next state"):
        m.eval_state("Grew", (1, 0))
    with pytest.raises(UnsupportedError, match=r"temporal"):
        m.eval_state("[](x > 0)", (1, 0))


def test_enabled_evaluates_whether_an_action_has_a_successor() -> None:
    m = model("VARIABLES x, y\nInc == x < 2 /\\ x' = x + 1 /\\ y' = y\nHalf == x' = 0")
    assert [m.eval_state("ENABLED Inc", (v, 0)) for v in (0, 1, 2)] == [True, True, False]
    assert m.eval_state("ENABLED Half", (5, 5)) is True  # y' may take any value
    assert m.eval_state("\\A v \\in {0, 1} : ENABLED (x = v /\\ x' = 1)", (0, 0)) is False
    assert m.eval_state("\\E v \\in {0, 1} : ENABLED (x = v /\\ x' = 1)", (0, 0)) is True


def test_strings_concatenate_and_have_a_length() -> None:
    assert ev('"ab" \\o "c"') == "abc"
    assert ev('Len("abc")') == 3


def test_constant_subexpressions_are_folded_and_state_ones_are_not() -> None:
    m = model("CONSTANT N\nVARIABLE x\nS == {i * 2 : i \\in 1..N}\nInS == x \\in S", {"N": 3})
    assert m._compiled("S").value == frozenset({2, 4, 6})
    assert not m._compiled("InS").constant  # reads x: never folded
    assert [m.eval_state("InS", (v,)) for v in (1, 2, 6, 8)] == [False, True, True, False]
    # bound variables are not constants either: each evaluation sees its own binding
    assert m.eval_state("{LET j == i * x IN j : i \\in 1..2}", (3,)) == frozenset({3, 6})
    assert m.eval_state("{LET j == i * x IN j : i \\in 1..2}", (5,)) == frozenset({5, 10})
    assert m.eval_state("\\A i \\in 1..3 : \\E k \\in {i * x} : k % x = 0", (4,)) is True
    assert m.eval_state("[i \\in 1..2 |-> i + x]", (1,)) == (2, 3)
    assert m.eval_state("[i \\in 1..2 |-> i + x]", (7,)) == (8, 9)


def test_operators_passed_as_arguments_capture_their_context() -> None:
    body = "Apply(F(_), v) == F(v)\nVARIABLE x\n"
    m = model(body)
    assert m.eval_state("LET k == x + 1  G(y) == y * k IN Apply(G, 2)", (4,)) == 10
    assert m.eval_state("\\A i \\in 1..3 : Apply(LAMBDA y : y + i, 0) = i", (0,)) is True


def test_inner_binders_reading_outer_bound_variables_are_not_constants() -> None:
    assert ev("\\A i \\in 1..3 : {j + i : j \\in 1..2} = {1 + i, 2 + i}") is True
    assert ev("\\A i \\in 1..3 : (CHOOSE j \\in 1..5 : j > i) = i + 1") is True
    assert ev("\\A i \\in 1..3 : [j \\in 1..2 |-> i][1] = i") is True
    assert ev("\\A i \\in 1..3 : \\E j \\in {i} : j = i") is True
    assert ev("{Cardinality({j \\in 1..i : TRUE}) : i \\in 1..3}") == frozenset({1, 2, 3})


def test_membership_in_a_domain_and_literal_comparisons() -> None:
    assert ev("2 \\in DOMAIN <<7, 8>> /\\ 3 \\notin DOMAIN <<7, 8>>") is True
    assert ev('"a" \\in DOMAIN [a |-> 1] /\\ "b" \\notin DOMAIN [a |-> 1]') is True
    assert ev("0 \\in DOMAIN <<7>>") is False
    with pytest.raises(EvalError, match="function"):
        ev("1 \\in DOMAIN {1}")
    assert ev("1 = 1 /\\ \"a\" = \"a\" /\\ 1 /= 2 /\\ ~(\"a\" = \"b\")") is True
    for text in ("TRUE /= 1", "1 /= TRUE", "1 = TRUE", '"a" = 1', '1 # "a"'):
        with pytest.raises(EvalError, match="TLC cannot compare"):
            ev(text)
    assert ev('<<1, "a">> = <<1, "a">> /\\ {1} /= {2}') is True


def test_membership_in_set_constructors_does_not_build_them() -> None:
    # 2^40 subsets / 40^40 functions: only a structural test can answer these
    assert ev("{1, 2} \\in SUBSET (1..40)") is True
    assert ev("{0} \\notin SUBSET (1..40)") is True
    assert ev("[i \\in 1..40 |-> 1] \\in [1..40 -> 1..40]") is True
    assert ev("[i \\in 1..39 |-> 1] \\notin [1..40 -> 1..40]") is True
    assert ev("<<{1}, {2, 3}>> \\in Seq(SUBSET (1..40))") is True
    assert ev("[a |-> {1}, b |-> <<2>>] \\in [a : SUBSET Nat, b : Seq(Nat)]") is True
    assert ev("[a |-> {1}] \\notin [a : SUBSET Nat, b : Seq(Nat)]") is True
    assert ev("[a |-> {-1}, b |-> <<>>] \\notin [a : SUBSET Nat, b : Seq(Nat)]") is True
    with pytest.raises(EvalError, match="TLC cannot compare"):  # 0 \\in BOOLEAN fails in TLC
        ev("<<0, 1>> \\in [{1, 2} -> BOOLEAN]")
    assert ev("<<0, 1>> \\in [{1, 2, 3} -> BOOLEAN]") is False  # the domains differ
    assert ev("<<FALSE, TRUE>> \\in [{1, 2} -> BOOLEAN]") is True


def test_deep_recursion_and_runaway_recursion() -> None:
    body = """
RECURSIVE Count(_)
Count(n) == IF n = 0 THEN 0 ELSE 1 + Count(n - 1)
RECURSIVE Forever(_)
Forever(n) == Forever(n + 1)
"""
    m = model(body)
    assert m.eval_constant("Count(1000)") == 1000
    with pytest.raises(EvalError, match="too deeply"):
        m.eval_constant("Forever(0)")


def test_state_function_matches_eval_state() -> None:
    m = model("VARIABLES x, y\nSum == x + y")
    f = m.state_function("Sum")
    assert [f((1, 2)), f((5, 5))] == [3, 10]
    assert f((1, 2)) == m.eval_state("Sum", (1, 2))


def test_quantifiers_over_domains() -> None:
    m = model("VARIABLE f")
    assert m.eval_state("\\A k \\in DOMAIN f : f[k] > 0", ((1, 2, 3),)) is True
    assert m.eval_state("\\E k \\in DOMAIN f : f[k] = 2", ((1, 2, 3),)) is True
    assert m.eval_state("{k : k \\in DOMAIN f}", (make_fn({"a": 1, "b": 2}),)) == frozenset(
        {"a", "b"})
    assert m.eval_state("CHOOSE k \\in DOMAIN f : TRUE", (make_fn({"b": 1, "a": 2}),)) == "a"
    assert m.eval_state("\\A k \\in DOMAIN f : FALSE", ((),)) is True
    with pytest.raises(EvalError, match="DOMAIN"):
        m.eval_state("\\A k \\in DOMAIN f : TRUE", (frozenset({1}),))


# --- Unicode spellings --------------------------------------------------------------------

# The user-definable infix symbols of the TLA+ Unicode table, with their ASCII spellings.
_UNICODE_INFIX = [
    ("\u2295", "\\oplus"), ("\u2296", "\\ominus"), ("\u2297", "\\otimes"), ("\u2298", "\\oslash"),
    ("\u2299", "\\odot"), ("\u227a", "\\prec"), ("\u227b", "\\succ"), ("\u2aaf", "\\preceq"),
    ("\u2ab0", "\\succeq"), ("\u223c", "\\sim"), ("\u2243", "\\simeq"), ("\u2248", "\\approx"),
    ("\u2245", "\\cong"), ("\u2250", "\\doteq"), ("\u224d", "\\asymp"), ("\u226a", "\\ll"),
    ("\u226b", "\\gg"), ("\u221d", "\\propto"), ("\u2291", "\\sqsubseteq"),
    ("\u2292", "\\sqsupseteq"), ("\u228f", "\\sqsubset"), ("\u2290", "\\sqsupset"),
    ("\u2293", "\\sqcap"), ("\u2294", "\\sqcup"), ("\u228e", "\\uplus"), ("\u22c6", "\\star"),
    ("\u2240", "\\wr"), ("\u25cf", "\\bullet"), ("\u25ef", "\\bigcirc"), ("\u22a2", "|-"),
    ("\u22a8", "|="), ("\u22a3", "-|"), ("\u2ae4", "=|"), ("\u2254", ":="), ("\u2a74", "::="),
    ("\u2016", "||"), ("\u203c", "!!"), ("\u2047", "??"), ("\u2026", "..."),
]


@pytest.mark.parametrize(("uni", "asc"), _UNICODE_INFIX)
def test_unicode_infix_symbols_name_the_ascii_operator(uni: str, asc: str) -> None:
    # a OP b == <<a, b, 7>>: 1 OP 2 is <<1, 2, 7>> whichever spelling defines or applies it.
    assert ev(f"1 {uni} 2", f"a {asc} b == <<a, b, 7>>", extends="") == (1, 2, 7)
    assert ev(f"1 {asc} 2", f"a {uni} b == <<a, b, 7>>", extends="") == (1, 2, 7)


def test_unicode_standard_operators() -> None:
    assert ev("1 \u2025 3") == frozenset({1, 2, 3})  # 1..3
    assert ev("2 \u2025 1") == frozenset()  # an empty interval
    # Bags: (+) and \oplus (and ⊕) are one operator; [1 |-> 1] (+) [1 |-> 2] = [1 |-> 3].
    assert ev("SetToBag({1}) \u2295 (SetToBag({1}) (+) SetToBag({1}))") == make_fn({1: 3})
    assert ev("(SetToBag({1}) \\oplus SetToBag({1})) \u2296 SetToBag({1})") == make_fn({1: 1})
    assert ev("SetToBag({1}) \u2291 SetToBag({1, 2})") is True


def test_circled_synonyms_define_one_operator() -> None:
    # SANY: (+) and \oplus are one symbol, so a definition of either is applied by both.
    assert ev("1 \\oplus 2", "a (+) b == <<b, a>>", extends="") == (2, 1)
    assert ev("1 (.) 2", "a \\odot b == <<b, a>>", extends="") == (2, 1)


@pytest.mark.parametrize(("expr", "value"), [
    # a function constructor applied at once is applied at that point only, as TLC's lazy
    # function value: its domain may be infinite, its body fail elsewhere
    ("[i \\in Nat |-> i + 1][3]", 4),
    ("[x \\in 0..2 |-> 10 \\div x][2]", 5),
    ("[x, y \\in 1..3 |-> x * 10 + y][2, 3]", 23),
    ("[<<x, y>> \\in (1..2) \\X (1..2) |-> x - y][<<2, 1>>]", 1),
    ("LET n == 4 IN [x \\in 1..n |-> x + n][n]", 8),
    ("\\A k \\in 1..3 : [x \\in 1..k |-> x * k][k] = k * k", True),
])
def test_function_constructor_applied_at_once(expr: str, value: Any) -> None:
    assert ev(expr) == value


def test_function_constructor_applied_outside_its_domain() -> None:
    with pytest.raises(EvalError, match="not in the domain"):
        ev("[x \\in 1..2 |-> x][3]")


def test_function_definition_over_a_tuple_pattern() -> None:
    # one bound, a tuple pattern: the argument is the tuple itself (it was split into its
    # components and each tested against the set of pairs: an error)
    body = "f[<<x, y>> \\in (1..2) \\X (1..3)] == x * 10 + y\ng[<<x, y>> \\in (1..2) \\X (1..2), z \\in 1..2] == x + y + z"
    assert ev("f[<<2, 3>>]", body) == 23
    assert ev("g[<<1, 2>>, 2]", body) == 5


@pytest.mark.parametrize(("expr", "value"), [
    ("[b |-> 1] \\in Msgs", True),
    ("[a |-> 3] \\in Msgs", True),
    ("[a |-> -3] \\in Msgs", False),
    ("[c |-> 1] \\in Msgs", False),
    ("[a |-> 3] \\notin Msgs", False),
    ("\\A m \\in {[a |-> 1], [b |-> 1]} : m \\in Msgs", True),
])
def test_membership_in_a_named_union_of_record_sets(expr: str, value: Any,
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    # tested field by field, never built (a TypeOK's m \in Messages, a union of record sets
    # that can be huge: the public MultiPaxos built it at startup)
    from conformance.tla import stdlib

    def built(*_: Any) -> Any:
        raise AssertionError("the record set was built")

    monkeypatch.setattr(stdlib, "record_set", built)
    assert ev(expr, "Msgs == [a : Nat] \\cup Other\nOther == [b : {1, 2}]") is value


@pytest.mark.parametrize(("expr", "value"), [
    # tested without building the set, with TLC's answers: a value of another kind fails
    # (TLC: "Attempted to check if non-record ... is in the set of records"), a record of
    # other fields or a model value is not in it
    ("5 \\in [a : {1}]", None), ("<<1, 2>> \\in [a : {1}]", None), ("{1} \\in [a : {1}]", None),
    ("[b |-> 1] \\in [a : {1}]", False), ("[a |-> 1] \\in [a : {1}]", True),
    ("5 \\in [{1} -> {1}]", None), ("{1} \\in [{1} -> {1}]", None), ("<<1>> \\in [{1} -> {1}]", True),
    ("5 \\in SUBSET {1}", None), ("<<1>> \\in SUBSET {1}", None), ("{1} \\in SUBSET {1}", True),
    ("Nat \\in SUBSET Nat", None),  # (TLC: "the non-enumerable value Nat")
    ("(1..3) \\in SUBSET (1..5)", True),
    ("M \\in [a : {1}]", False), ("M \\in SUBSET {1}", False),
])
def test_membership_in_a_constructed_set_of_a_value_of_another_kind(expr: str, value: Any) -> None:
    if value is None:
        with pytest.raises(EvalError, match="attempted to check if"):
            ev(expr, constants={"M": ModelValue("M")}, body="CONSTANT M")
    else:
        assert ev(expr, constants={"M": ModelValue("M")}, body="CONSTANT M") is value
