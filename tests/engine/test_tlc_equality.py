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
- M1: SetEnumValue.member (ValueVec.search) compares the element with the set's elements.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from conformance.cli import main
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
    (frozenset({1, "a"}), frozenset({2, "b"}), False),  # mixed: the outcome depends on an order
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
]


@pytest.mark.parametrize(("a", "b", "expected"), VALUE_CASES)
def test_tlc_equal(a: Any, b: Any, expected: Any) -> None:
    assert _answer(tlc_equal, a, b) == expected


MEMBER_CASES = [  # x, S (x is not in S)
    (1, frozenset({"a", "b"}), ERROR), ("a", frozenset({1}), ERROR),
    ((1,), frozenset({1, 2}), ERROR), (frozenset({1}), frozenset({1}), ERROR),
    (True, frozenset({0, 1}), ERROR), (1, frozenset({True}), ERROR),
    (1, frozenset(), False), (1, frozenset({"a", 2}), False), (1, frozenset({m}), False),
    (m, frozenset({1}), False), ((1,), frozenset({("a",)}), False),
    (Fn({"a": 1}), frozenset({(1,)}), False),
]


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
    ('x \\in {"a", 2}', 1, False), ("x \\in {1}", "a", ERROR), ("<<1>> \\in {1, 2}", 0, ERROR),
    ("x \\in {0, 1}", True, ERROR), ("x \\notin {TRUE}", 1, ERROR), ("x \\in {1, 2}", 1, True),
    ('<<1>> \\in {<<"a">>}', 0, False), ("x \\in Nat", "a", False),  # not judged
    # M1 on DOMAIN (IntervalValue.member for a tuple's domain, SetEnumValue.member else)
    ('"a" \\in DOMAIN <<1, 2>>', 0, ERROR), ("x \\notin DOMAIN <<1>>", True, ERROR),
    ('"a" \\in DOMAIN <<>>', 0, False), ("x \\in DOMAIN <<5>>", 1, True),
    ('1 \\in DOMAIN [a |-> 1]', 0, ERROR), ('x \\in DOMAIN [a |-> 1]', "b", False),
    ('x \\in DOMAIN [a |-> 1]', "a", True),
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
