"""Fused expressions (``semantics.support.fused``): a node's generated code embeds the
source of its operands' instead of calling their closures, with the values, errors (type,
message, location), evaluation order and short-circuits of the closures it replaces."""

from __future__ import annotations

import sys
from types import FrameType
from typing import Any

import pytest

from conformance.tla.loader import ModuleLoader
from conformance.tla.model import Model
from conformance.tla.parser import parse_module_text
from conformance.tla.syntax import TlaError
from conformance.tla.values import Fn
from tests.engine.test_eval import model

BODY = r"""
Arith(x, y) == x + y
Less(x, y) == x < y
Eq(x, y) == x = y
EqLit(x) == x = "A"
NeqLit(x) == x # 3
Field(r) == r.type
Not(x) == ~x
Conj(x, y) == x /\ y
Disj(x, y) == x \/ y
Cond(c, a, b) == IF c THEN a ELSE b
Msg(m, i, n) == m.type = "X" /\ m.dest = i /\ n >= m.epoch
Guarded(x) == x = 0 \/ 10 \div x = 5
Deferred(x, y) == x \/ y.a = 1
LetIn(x) == LET d == 10 \div x IN x = 0 \/ (d = 5 /\ ~(d < x))
Quant(S) == \A x \in S : x > 0 /\ 10 \div x > 1
Ex(S) == \E x \in S : x
"""

# the results of the closures before fusion: values, or errors with their locations
CASES = [
    ('Arith("a", 1)',
     'EvalError: + applies to integers, got "a" and 1 @ 4:16'),
    ('Arith(1, "a")',
     'EvalError: + applies to integers, got 1 and "a" @ 4:16'),
    ('Arith(TRUE, 1)',
     'EvalError: + applies to integers, got TRUE and 1 @ 4:16'),
    ('Arith("a", 1 \\div 0)',
     'EvalError: division by zero in \\div @ 1:12'),
    ('Arith(1 \\div 0, 2 \\div 0)',
     'EvalError: division by zero in \\div @ 1:7'),
    ('Less(1, "a")',
     'EvalError: < applies to integers, got 1 and "a" @ 5:15'),
    ('Less({}, 1)',
     'EvalError: < applies to integers, got {} and 1 @ 5:15'),
    ('Eq(1, "a")',
     'EvalError: attempted to check equality of the integer 1 with the string "a", which TLC cannot compare @ 6:13'),
    ('Eq(1, TRUE)',
     'EvalError: attempted to check equality of the integer 1 with the boolean TRUE, which TLC cannot compare @ 6:13'),
    ('Eq({1}, 1)',
     'EvalError: attempted to check equality of the set {1} with the integer 1, which TLC cannot compare @ 6:13'),
    ('Eq(<<1>>, <<"a">>)',
     'EvalError: attempted to check equality of the integer 1 with the string "a", which TLC cannot compare @ 6:13'),
    ('EqLit(1)',
     'EvalError: attempted to check equality of the integer 1 with the string "A", which TLC cannot compare @ 7:13'),
    ('EqLit(TRUE)',
     'EvalError: attempted to check equality of the boolean TRUE with the string "A", which TLC cannot compare @ 7:13'),
    ('NeqLit("a")',
     'EvalError: attempted to check equality of the string "a" with the integer 3, which TLC cannot compare @ 8:14'),
    ('NeqLit(FALSE)',
     'EvalError: attempted to check equality of the boolean FALSE with the integer 3, which TLC cannot compare @ 8:14'),
    ('Field(1)',
     "EvalError: cannot access field 'type' of the integer 1 @ 9:13"),
    ('Field([a |-> 1])',
     "EvalError: record [a |-> 1] has no field 'type' @ 9:13"),
    ('Field(<<1>>)',
     "EvalError: cannot access field 'type' of the sequence <<1>> @ 9:13"),
    ('Not(1)',
     'EvalError: ~ applies to a boolean, got 1 @ 10:11'),
    ('Not("a")',
     'EvalError: ~ applies to a boolean, got "a" @ 10:11'),
    ('Conj(1, TRUE)',
     'EvalError: /\\ expects a boolean, got 1 @ 11:15'),
    ('Conj(TRUE, 1)',
     'EvalError: /\\ expects a boolean, got 1 @ 11:20'),
    ('Conj(FALSE, 1)',
     'False'),
    ('Disj(1, TRUE)',
     'EvalError: \\/ expects a boolean, got 1 @ 12:15'),
    ('Disj(FALSE, "a")',
     'EvalError: \\/ expects a boolean, got "a" @ 12:20'),
    ('Disj(TRUE, 1)',
     'True'),
    ('Cond(1, 2, 3)',
     'EvalError: IF expects a boolean, got 1 @ 13:21'),
    ('Cond(TRUE, 2, 1 \\div 0)',
     '2'),
    ('Cond(FALSE, 1 \\div 0, 3)',
     '3'),
    ('Msg([type |-> "X", dest |-> 1, epoch |-> 2], 1, 3)',
     'True'),
    ('Msg([type |-> "Y"], 1, 3)',
     'False'),
    ('Msg([type |-> "X", dest |-> 2], 1, 3)',
     'False'),
    ('Msg([type |-> "X", dest |-> 1], 1, 3)',
     'EvalError: record [dest |-> 1, type |-> "X"] has no field \'epoch\' @ 14:52'),
    ('Msg([type |-> "X", dest |-> 1, epoch |-> "e"], 1, 3)',
     'EvalError: >= applies to integers, got 3 and "e" @ 14:47'),
    ('Msg(1, 1, 1)',
     "EvalError: cannot access field 'type' of the integer 1 @ 14:17"),
    ('Guarded(0)',
     'True'),
    ('Guarded(2)',
     'True'),
    ('Guarded(3)',
     'False'),
    ('Guarded("a")',
     'EvalError: attempted to check equality of the string "a" with the integer 0, which TLC cannot compare @ 15:15'),
    ('Deferred(TRUE, 1 \\div 0)',
     'True'),
    ('Deferred(FALSE, 1 \\div 0)',
     'EvalError: division by zero in \\div @ 1:17'),
    ('Deferred(FALSE, [a |-> 1])',
     'True'),
    ('Deferred(FALSE, <<>>)',
     "EvalError: cannot access field 'a' of the sequence <<>> @ 16:24"),
    ('LetIn(0)',
     'True'),
    ('LetIn(2)',
     'True'),
    ('LetIn("a")',
     'EvalError: attempted to check equality of the string "a" with the integer 0, which TLC cannot compare @ 17:35'),
    ('LetIn(3)',
     'False'),
    ('Quant({1, 2})',
     'True'),
    ('Quant({0})',
     'False'),
    ('Quant({20})',
     'False'),
    ('Quant({"a"})',
     'EvalError: > applies to integers, got "a" and 0 @ 18:26'),
    ('Ex({1})',
     'EvalError: \\E expects a boolean, got 1 @ 19:23'),
    ('Ex({FALSE, TRUE})',
     'True'),
]


def outcome(m: Model, expr: str) -> str:
    try:
        return repr(m.eval_constant(expr))
    except TlaError as err:
        at = f"{err.loc.line}:{err.loc.col}" if err.loc is not None else "None:None"
        return f"{type(err).__name__}: {err.message} @ {at}"


@pytest.fixture(scope="module")
def defs() -> Model:
    return model(BODY)


@pytest.mark.parametrize(("expr", "want"), CASES)
def test_fused_nodes_give_the_values_and_errors_of_the_closures(defs: Model, expr: str,
                                                                 want: str) -> None:
    assert outcome(defs, expr) == want


def generated_calls(run: Any) -> int:
    """How many calls of generated code (``<eq>``, ``<conj>``, ...) ``run()`` makes."""
    count = 0

    def profile(frame: FrameType, event: str, arg: Any) -> None:
        nonlocal count
        name = frame.f_code.co_filename
        if event == "call" and name.startswith("<") and not name.startswith("<frozen"):
            count += 1

    sys.setprofile(profile)
    try:
        run()
    finally:
        sys.setprofile(None)
    return count


def test_a_conjunction_of_comparisons_of_fields_is_one_generated_function() -> None:
    text = ("---- MODULE F ----\nEXTENDS Naturals\nVARIABLES m, i\n"
            'Msg == m.type = "X" /\\ m.dest = i /\\ ~(3 < m.epoch) /\\ '
            "(IF i > 0 THEN i - 1 ELSE 0) = 1\n====\n")
    fm = Model(parse_module_text(text, "F.tla"), ModuleLoader([]))
    state = (fm.eval_constant('[type |-> "X", dest |-> 2, epoch |-> 3]'), 2)
    assert fm.eval_state("Msg", state) is True
    # another state (Msg remembers its value per objects of m and i)
    other = (Fn(dict(state[0].map)), 2)
    assert generated_calls(lambda: fm.eval_state("Msg", other)) == 1


ACTIONS = r"""
VARIABLES x, y
Init == x = 0 /\ y = 0
Good == x' = x + 1 /\ y' = x' + 1 /\ x' > 0 /\ y' # x
Bad == x' = 1 /\ y' = 2 /\ x
Early == y' = x' /\ x' = 1
Guards(i) == i > x /\ i # 3 /\ x' = i /\ y' = y
Many == \E i \in 1..4 : Guards(i)
Typed == \E i \in 1..2 : (IF i = 1 THEN "a" ELSE 2) > x /\ x' = i /\ y' = y
"""


@pytest.mark.parametrize(("action", "want"), [
    ("Good", [(1, 2)]),
    ("Bad", "EvalError: a conjunct of an action expects a boolean, got 0 @ 7:28"),
    ("Early", "EvalError: x' is used before it is assigned in this action @ 8:15"),
    ("Many", [(1, 0), (2, 0), (4, 0)]),
    ("Typed", 'EvalError: > applies to integers, got "a" and 0 @ 11:26'),
])
def test_action_blocks_embedding_guards_give_the_successors_and_errors_of_the_closures(
        action: str, want: Any) -> None:
    text = f"---- MODULE A ----\nEXTENDS Naturals\n{ACTIONS}\n====\n"
    m = Model(parse_module_text(text, "A.tla"), ModuleLoader([]))
    try:
        got: Any = sorted(state for _, state in m.successors((0, 0), action))
    except TlaError as err:
        assert err.loc is not None
        got = f"{type(err).__name__}: {err.message} @ {err.loc.line}:{err.loc.col}"
    assert got == want
