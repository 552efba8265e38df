"""Generated action code (``action_codegen``): one generator function per action, whose
nested loops replace the chain of step closures. Successors, their order, labels, errors
(message and location), short-circuits and the reset of next-state slots are those the
closures gave (recorded before the generation existed)."""

from __future__ import annotations

from typing import Any

import pytest

from conformance.tla.actions import ActionCompiler
from conformance.tla.compiler import UNASSIGNED, Scope
from conformance.tla.loader import ModuleLoader
from conformance.tla.model import Model
from conformance.tla.parser import parse_module_text
from conformance.tla.syntax import TlaError
from conformance.tla.values import make_fn
from tests.engine.test_fused import model as expression_model
from tests.engine.test_fused import outcome

SPEC = r"""
CONSTANTS Procs
VARIABLES x, y, m
vars == <<x, y, m>>
Init == x = 0 /\ y = 0 /\ m = {}
Send(msg) == m' = m \cup {msg}
Bump(p) == /\ x < 3
           /\ x' = x + p
           /\ y' \in {p, p + 10}
           /\ y' # 11
           /\ UNCHANGED m
Pair(p, q) == /\ p # q
              /\ x' = p /\ y' = q
              /\ Send([type |-> "pair", v |-> p])
Branchy(p) == /\ IF p = 1 THEN x' = 1 ELSE x' = 2
              /\ CASE p = 1 -> y' = 5
                   [] p = 2 -> y' \in {6, 7}
                   [] OTHER -> UNCHANGED y
              /\ UNCHANGED m
Letty(p) == LET a == p * 2
                b == a + 1
            IN /\ x' = a
               /\ \/ y' = b
                  \/ y' = b + 1
               /\ UNCHANGED m
Lazy1(v) == /\ x' = 9 /\ y' = 9 /\ m' = m
ByName(v) == /\ x = 0 /\ x' = 7 /\ y' = y /\ m' = m
Handle(msg) == \/ /\ msg.type = "a"
                  /\ x' = 100 /\ y' = msg.v /\ m' = m \ {msg}
               \/ /\ msg.type = "b"
                  /\ x' = 200 /\ y' = msg.v /\ m' = m \ {msg}
               \/ /\ msg.type = "a"
                  /\ x' = 300 /\ y' = msg.v /\ m' = m
Twice == /\ \/ x' = 1
            \/ x' = 2
         /\ y' = x'
         /\ \E k \in {x', x' + 1} : m' = {k}
Multi == \E p, q \in Procs : /\ p < q
                             /\ x' = p /\ y' = q /\ UNCHANGED m
Never == /\ FALSE
         /\ x' = 0 /\ y' = 0 /\ m' = m
Guarded(p) == /\ p > 1
              /\ x' = p
              /\ \E k \in 1..p : /\ k > p - 2
                                /\ y' = k
              /\ UNCHANGED m
Next == \/ \E p \in Procs : Bump(p)
        \/ \E p, q \in Procs : Pair(p, q)
        \/ \E p \in Procs : Branchy(p)
        \/ \E p \in Procs : Letty(p)
        \/ Lazy1(1 \div 0)
        \/ \E msg \in m : Handle(msg)
        \/ Twice
        \/ Multi
        \/ \E p \in Procs : Never
        \/ \E p \in Procs : Guarded(p)
        \/ ByName(x' + 1)
"""

STATES = [
    (0, 0, frozenset()),
    (2, 1, frozenset()),
]


def model(body: str, constants: dict[str, Any] | None = None) -> Model:
    text = f"---- MODULE A ----\nEXTENDS Naturals, Sequences, FiniteSets\n{body}\n====\n"
    return Model(parse_module_text(text, "A.tla"), ModuleLoader([]), constants or {})


def canon(v: Any) -> str:
    """``v`` shown independently of the iteration order of its sets."""
    if isinstance(v, frozenset):
        return "{" + ", ".join(sorted(canon(x) for x in v)) + "}"
    if isinstance(v, tuple):
        return "<<" + ", ".join(canon(x) for x in v) + ">>"
    return repr(v)


def shown(m: Model, state: Any, action: str = "Next") -> list[str]:
    """The successors of ``state`` in order (label, parameters, location, state), or the
    error that stops their enumeration."""
    out: list[str] = []
    try:
        for lab, st in m.successors(state, action):
            params = ",".join(f"{k}={v!r}" for k, v in lab.params)
            out.append(f"{lab.name}({params})@{lab.loc.line}:{lab.loc.col} {canon(st)}")
    except TlaError as err:
        loc = f"{err.loc.line}:{err.loc.col}" if err.loc is not None else "-"
        out.append(f"{type(err).__name__}: {err.message} @ {loc}")
    return out


ERRORS = r"""
VARIABLES x, y, m
Init == x = 0 /\ y = 0 /\ m = {}
NoArm == /\ y' = 1
         /\ CASE x = 5 -> x' = 2
              [] x = 6 -> x' = 3
         /\ m' = m
LateFail == /\ x' \in {1, 2}
            /\ y' = 10 \div (2 - x')
            /\ m' = m
BadDomain == \E k \in x : x' = k /\ y' = k /\ m' = m
BadEnum == /\ x' = 1 /\ m' = m
           /\ y' \in 1
Skipped == /\ IF x = 0 THEN x' = 1 ELSE x' = 1 \div 0
           /\ \/ y' = 2
              \/ y' = 2 \div x
           /\ x = 0 \/ m' = 1 \div 0
           /\ m' = m
Cmp == /\ x' = 1 /\ x' = "a" /\ y' = 0 /\ m' = m
Partial == x' = 1 /\ m' = m
LetFail == LET d == 1 \div x IN \/ x' = 1 /\ y' = 1 /\ m' = m
                                \/ x' = d /\ y' = 2 /\ m' = m
ForallAct == /\ \A k \in {1, 2} : x' = 1
             /\ \A k \in {1} : y' \in {k, k + 1}
             /\ m' = m
Off == /\ FALSE
       /\ x' = 0 /\ y' = 0 /\ m' = m
NeverDom == \E k \in x : Off
NeverDom2 == \E k \in {1}, k2 \in x : Off
Chosen(r) == /\ y' = 0
             /\ m' = m
             /\ \/ r.type = "a" /\ x' = r.v
                \/ r.type = "b" /\ x' = r.v + 10
                \/ r.type = "a" /\ x' = 7
Msgs == {[type |-> "a", v |-> 1], [type |-> "b", v |-> 2]}
Sel == \E r \in Msgs : Chosen(r)
BadSel == \E r \in Msgs \cup {[type |-> 3, v |-> 3]} : Chosen(r)
InMiddle == /\ \/ x' = 1
               \/ x' = 2
            /\ IF x' = 1 THEN y' = 1 ELSE y' \in {2, 3}
            /\ CASE x' = 1 -> m' = {}
                 [] x' = 2 -> m' = {x}
            /\ x' # 5
Mix(p, q) == /\ x' = p
             /\ y' = q' + p
             /\ m' = m
MixCall == Mix(3, x)
"""

ACTIONS = ["NoArm", "LateFail", "BadDomain", "BadEnum", "Skipped", "Cmp", "Partial", "LetFail",
           "ForallAct", "NeverDom", "NeverDom2", "Sel", "BadSel",
           "InMiddle", "MixCall"]



# the successors of Next from STATES (and a state holding two messages), in order
EXPECTED_NEXT = [
    [
        'Bump(p=1)@49:29 <<1, 1, {}>>',
        'Bump(p=2)@49:29 <<2, 2, {}>>',
        'Bump(p=2)@49:29 <<2, 12, {}>>',
        'Bump(p=3)@49:29 <<3, 3, {}>>',
        'Bump(p=3)@49:29 <<3, 13, {}>>',
        'Pair(p=1,q=2)@50:32 <<1, 2, {[type |-> "pair", v |-> 1]}>>',
        'Pair(p=1,q=3)@50:32 <<1, 3, {[type |-> "pair", v |-> 1]}>>',
        'Pair(p=2,q=1)@50:32 <<2, 1, {[type |-> "pair", v |-> 2]}>>',
        'Pair(p=2,q=3)@50:32 <<2, 3, {[type |-> "pair", v |-> 2]}>>',
        'Pair(p=3,q=1)@50:32 <<3, 1, {[type |-> "pair", v |-> 3]}>>',
        'Pair(p=3,q=2)@50:32 <<3, 2, {[type |-> "pair", v |-> 3]}>>',
        'Branchy(p=1)@51:29 <<1, 5, {}>>',
        'Branchy(p=2)@51:29 <<2, 6, {}>>',
        'Branchy(p=2)@51:29 <<2, 7, {}>>',
        'Branchy(p=3)@51:29 <<2, 0, {}>>',
        'Letty(p=1)@52:29 <<2, 3, {}>>',
        'Letty(p=1)@52:29 <<2, 4, {}>>',
        'Letty(p=2)@52:29 <<4, 5, {}>>',
        'Letty(p=2)@52:29 <<4, 6, {}>>',
        'Letty(p=3)@52:29 <<6, 7, {}>>',
        'Letty(p=3)@52:29 <<6, 8, {}>>',
        'Lazy1()@53:12 <<9, 9, {}>>',
        'Twice()@55:12 <<1, 1, {1}>>',
        'Twice()@55:12 <<1, 1, {2}>>',
        'Twice()@55:12 <<2, 2, {2}>>',
        'Twice()@55:12 <<2, 2, {3}>>',
        'Multi()@56:12 <<1, 2, {}>>',
        'Multi()@56:12 <<1, 3, {}>>',
        'Multi()@56:12 <<2, 3, {}>>',
        'Guarded(p=2)@58:29 <<2, 1, {}>>',
        'Guarded(p=2)@58:29 <<2, 2, {}>>',
        'Guarded(p=3)@58:29 <<3, 2, {}>>',
        'Guarded(p=3)@58:29 <<3, 3, {}>>',
        'ByName()@59:12 <<7, 0, {}>>',
    ],
    [
        'Bump(p=1)@49:29 <<3, 1, {}>>',
        'Bump(p=2)@49:29 <<4, 2, {}>>',
        'Bump(p=2)@49:29 <<4, 12, {}>>',
        'Bump(p=3)@49:29 <<5, 3, {}>>',
        'Bump(p=3)@49:29 <<5, 13, {}>>',
        'Pair(p=1,q=2)@50:32 <<1, 2, {[type |-> "pair", v |-> 1]}>>',
        'Pair(p=1,q=3)@50:32 <<1, 3, {[type |-> "pair", v |-> 1]}>>',
        'Pair(p=2,q=1)@50:32 <<2, 1, {[type |-> "pair", v |-> 2]}>>',
        'Pair(p=2,q=3)@50:32 <<2, 3, {[type |-> "pair", v |-> 2]}>>',
        'Pair(p=3,q=1)@50:32 <<3, 1, {[type |-> "pair", v |-> 3]}>>',
        'Pair(p=3,q=2)@50:32 <<3, 2, {[type |-> "pair", v |-> 3]}>>',
        'Branchy(p=1)@51:29 <<1, 5, {}>>',
        'Branchy(p=2)@51:29 <<2, 6, {}>>',
        'Branchy(p=2)@51:29 <<2, 7, {}>>',
        'Branchy(p=3)@51:29 <<2, 1, {}>>',
        'Letty(p=1)@52:29 <<2, 3, {}>>',
        'Letty(p=1)@52:29 <<2, 4, {}>>',
        'Letty(p=2)@52:29 <<4, 5, {}>>',
        'Letty(p=2)@52:29 <<4, 6, {}>>',
        'Letty(p=3)@52:29 <<6, 7, {}>>',
        'Letty(p=3)@52:29 <<6, 8, {}>>',
        'Lazy1()@53:12 <<9, 9, {}>>',
        'Twice()@55:12 <<1, 1, {1}>>',
        'Twice()@55:12 <<1, 1, {2}>>',
        'Twice()@55:12 <<2, 2, {2}>>',
        'Twice()@55:12 <<2, 2, {3}>>',
        'Multi()@56:12 <<1, 2, {}>>',
        'Multi()@56:12 <<1, 3, {}>>',
        'Multi()@56:12 <<2, 3, {}>>',
        'Guarded(p=2)@58:29 <<2, 1, {}>>',
        'Guarded(p=2)@58:29 <<2, 2, {}>>',
        'Guarded(p=3)@58:29 <<3, 2, {}>>',
        'Guarded(p=3)@58:29 <<3, 3, {}>>',
    ],
    [
        'Bump(p=1)@49:29 <<2, 1, {[type |-> "a", v |-> 4], [type |-> "b", v |-> 5]}>>',
        'Bump(p=2)@49:29 <<3, 2, {[type |-> "a", v |-> 4], [type |-> "b", v |-> 5]}>>',
        'Bump(p=2)@49:29 <<3, 12, {[type |-> "a", v |-> 4], [type |-> "b", v |-> 5]}>>',
        'Bump(p=3)@49:29 <<4, 3, {[type |-> "a", v |-> 4], [type |-> "b", v |-> 5]}>>',
        'Bump(p=3)@49:29 <<4, 13, {[type |-> "a", v |-> 4], [type |-> "b", v |-> 5]}>>',
        'Pair(p=1,q=2)@50:32 <<1, 2, {[type |-> "a", v |-> 4], [type |-> "b", v |-> 5], [type |-> "pair", v |-> 1]}>>',
        'Pair(p=1,q=3)@50:32 <<1, 3, {[type |-> "a", v |-> 4], [type |-> "b", v |-> 5], [type |-> "pair", v |-> 1]}>>',
        'Pair(p=2,q=1)@50:32 <<2, 1, {[type |-> "a", v |-> 4], [type |-> "b", v |-> 5], [type |-> "pair", v |-> 2]}>>',
        'Pair(p=2,q=3)@50:32 <<2, 3, {[type |-> "a", v |-> 4], [type |-> "b", v |-> 5], [type |-> "pair", v |-> 2]}>>',
        'Pair(p=3,q=1)@50:32 <<3, 1, {[type |-> "a", v |-> 4], [type |-> "b", v |-> 5], [type |-> "pair", v |-> 3]}>>',
        'Pair(p=3,q=2)@50:32 <<3, 2, {[type |-> "a", v |-> 4], [type |-> "b", v |-> 5], [type |-> "pair", v |-> 3]}>>',
        'Branchy(p=1)@51:29 <<1, 5, {[type |-> "a", v |-> 4], [type |-> "b", v |-> 5]}>>',
        'Branchy(p=2)@51:29 <<2, 6, {[type |-> "a", v |-> 4], [type |-> "b", v |-> 5]}>>',
        'Branchy(p=2)@51:29 <<2, 7, {[type |-> "a", v |-> 4], [type |-> "b", v |-> 5]}>>',
        'Branchy(p=3)@51:29 <<2, 2, {[type |-> "a", v |-> 4], [type |-> "b", v |-> 5]}>>',
        'Letty(p=1)@52:29 <<2, 3, {[type |-> "a", v |-> 4], [type |-> "b", v |-> 5]}>>',
        'Letty(p=1)@52:29 <<2, 4, {[type |-> "a", v |-> 4], [type |-> "b", v |-> 5]}>>',
        'Letty(p=2)@52:29 <<4, 5, {[type |-> "a", v |-> 4], [type |-> "b", v |-> 5]}>>',
        'Letty(p=2)@52:29 <<4, 6, {[type |-> "a", v |-> 4], [type |-> "b", v |-> 5]}>>',
        'Letty(p=3)@52:29 <<6, 7, {[type |-> "a", v |-> 4], [type |-> "b", v |-> 5]}>>',
        'Letty(p=3)@52:29 <<6, 8, {[type |-> "a", v |-> 4], [type |-> "b", v |-> 5]}>>',
        'Lazy1()@53:12 <<9, 9, {[type |-> "a", v |-> 4], [type |-> "b", v |-> 5]}>>',
        'Handle(msg=[type |-> "a", v |-> 4])@54:27 <<100, 4, {[type |-> "b", v |-> 5]}>>',
        'Handle(msg=[type |-> "a", v |-> 4])@54:27 <<300, 4, {[type |-> "a", v |-> 4], [type |-> "b", v |-> 5]}>>',
        'Handle(msg=[type |-> "b", v |-> 5])@54:27 <<200, 5, {[type |-> "a", v |-> 4]}>>',
        'Twice()@55:12 <<1, 1, {1}>>',
        'Twice()@55:12 <<1, 1, {2}>>',
        'Twice()@55:12 <<2, 2, {2}>>',
        'Twice()@55:12 <<2, 2, {3}>>',
        'Multi()@56:12 <<1, 2, {[type |-> "a", v |-> 4], [type |-> "b", v |-> 5]}>>',
        'Multi()@56:12 <<1, 3, {[type |-> "a", v |-> 4], [type |-> "b", v |-> 5]}>>',
        'Multi()@56:12 <<2, 3, {[type |-> "a", v |-> 4], [type |-> "b", v |-> 5]}>>',
        'Guarded(p=2)@58:29 <<2, 1, {[type |-> "a", v |-> 4], [type |-> "b", v |-> 5]}>>',
        'Guarded(p=2)@58:29 <<2, 2, {[type |-> "a", v |-> 4], [type |-> "b", v |-> 5]}>>',
        'Guarded(p=3)@58:29 <<3, 2, {[type |-> "a", v |-> 4], [type |-> "b", v |-> 5]}>>',
        'Guarded(p=3)@58:29 <<3, 3, {[type |-> "a", v |-> 4], [type |-> "b", v |-> 5]}>>',
    ],
]

# per action of ERRORS and value of x (0 or 1): successors, then the error that stops them
EXPECTED_ERRORS = {
    ('NoArm', 0): [
        'EvalError: no arm of CASE is true and there is no OTHER @ 7:13',
    ],
    ('NoArm', 1): [
        'EvalError: no arm of CASE is true and there is no OTHER @ 7:13',
    ],
    ('LateFail', 0): [
        'LateFail()@10:1 <<1, 10, {}>>',
        'EvalError: division by zero in \\div @ 11:21',
    ],
    ('LateFail', 1): [
        'LateFail()@10:1 <<1, 10, {}>>',
        'EvalError: division by zero in \\div @ 11:21',
    ],
    ('BadDomain', 0): [
        'EvalError: set must be a set, got the integer 0 @ 13:23',
    ],
    ('BadDomain', 1): [
        'EvalError: set must be a set, got the integer 1 @ 13:23',
    ],
    ('BadEnum', 0): [
        'EvalError: set must be a set, got the integer 1 @ 15:15',
    ],
    ('BadEnum', 1): [
        'EvalError: set must be a set, got the integer 1 @ 15:15',
    ],
    ('Skipped', 0): [
        'Skipped()@16:1 <<1, 2, {}>>',
        'EvalError: division by zero in \\div @ 19:29',
    ],
    ('Skipped', 1): [
        'EvalError: division by zero in \\div @ 16:46',
    ],
    ('Cmp', 0): [
        'EvalError: attempted to check equality of the integer 1 with the string "a", which TLC cannot compare @ 21:21',
    ],
    ('Cmp', 1): [
        'EvalError: attempted to check equality of the integer 1 with the string "a", which TLC cannot compare @ 21:21',
    ],
    ('Partial', 0): [
        'EvalError: action Partial does not assign the variable(s) y @ 22:1',
    ],
    ('Partial', 1): [
        'EvalError: action Partial does not assign the variable(s) y @ 22:1',
    ],
    ('LetFail', 0): [
        'LetFail()@23:1 <<1, 1, {}>>',
        'EvalError: division by zero in \\div @ 23:21',
    ],
    ('LetFail', 1): [
        'LetFail()@23:1 <<1, 1, {}>>',
        'LetFail()@23:1 <<1, 2, {}>>',
    ],
    ('ForallAct', 0): [
        'ForallAct()@25:1 <<1, 1, {}>>',
        'ForallAct()@25:1 <<1, 2, {}>>',
    ],
    ('ForallAct', 1): [
        'ForallAct()@25:1 <<1, 1, {}>>',
        'ForallAct()@25:1 <<1, 2, {}>>',
    ],
    ('NeverDom', 0): [
        'EvalError: set must be a set, got the integer 0 @ 30:22',
    ],
    ('NeverDom', 1): [
        'EvalError: set must be a set, got the integer 1 @ 30:22',
    ],
    ('NeverDom2', 0): [
        'EvalError: set must be a set, got the integer 0 @ 31:35',
    ],
    ('NeverDom2', 1): [
        'EvalError: set must be a set, got the integer 1 @ 31:35',
    ],
    ('Sel', 0): [
        'Chosen(r=[type |-> "a", v |-> 1])@38:24 <<1, 0, {}>>',
        'Chosen(r=[type |-> "a", v |-> 1])@38:24 <<7, 0, {}>>',
        'Chosen(r=[type |-> "b", v |-> 2])@38:24 <<12, 0, {}>>',
    ],
    ('Sel', 1): [
        'Chosen(r=[type |-> "a", v |-> 1])@38:24 <<1, 0, {}>>',
        'Chosen(r=[type |-> "a", v |-> 1])@38:24 <<7, 0, {}>>',
        'Chosen(r=[type |-> "b", v |-> 2])@38:24 <<12, 0, {}>>',
    ],
    ('BadSel', 0): [
        'EvalError: attempted to check equality of the integer 3 with the string "a", which TLC cannot compare @ 34:20',
    ],
    ('BadSel', 1): [
        'EvalError: attempted to check equality of the integer 3 with the string "a", which TLC cannot compare @ 34:20',
    ],
    ('InMiddle', 0): [
        'InMiddle()@40:1 <<1, 1, {}>>',
        'InMiddle()@40:1 <<2, 2, {0}>>',
        'InMiddle()@40:1 <<2, 3, {0}>>',
    ],
    ('InMiddle', 1): [
        'InMiddle()@40:1 <<1, 1, {}>>',
        'InMiddle()@40:1 <<2, 2, {1}>>',
        'InMiddle()@40:1 <<2, 3, {1}>>',
    ],
    ('MixCall', 0): [
        'Mix(p=3,q=0)@49:12 <<3, 6, {}>>',
    ],
    ('MixCall', 1): [
        'Mix(p=3,q=1)@49:12 <<3, 6, {}>>',
    ],
}


def messages() -> frozenset:
    return frozenset({make_fn({"type": "a", "v": 4}), make_fn({"type": "b", "v": 5})})


@pytest.mark.parametrize("k", range(3))
def test_successors_labels_and_order(k: int) -> None:
    m = model(SPEC, {"Procs": frozenset({1, 2, 3})})
    state = [*STATES, (1, 2, messages())][k]
    assert ordered(shown(m, state), k) == ordered(EXPECTED_NEXT[k], k)


def ordered(lines: list[str], k: int) -> list[str]:
    """``lines``; sorted for the state holding messages: ``\\E msg \\in m`` takes the
    records of a variable in the order of Python's set, which depends on string hashing."""
    return sorted(lines) if k == 2 else lines


@pytest.mark.parametrize(("action", "x"), list(EXPECTED_ERRORS))
def test_errors_their_locations_and_short_circuits(action: str, x: int) -> None:
    m = model(ERRORS)
    assert shown(m, (x, 0, frozenset()), action) == EXPECTED_ERRORS[action, x]


def test_the_next_state_is_reset_between_states() -> None:
    """Every successor is built from a fully unassigned next state: a slot left assigned
    by the previous one would turn the next assignment into a comparison."""
    m = model(SPEC, {"Procs": frozenset({1, 2, 3})})
    for k, state in enumerate([*STATES, (1, 2, messages())]):
        assert ordered(shown(m, state), k) == ordered(EXPECTED_NEXT[k], k)
        assert ordered(shown(m, state), k) == ordered(EXPECTED_NEXT[k], k)


def both(m: Model, state: Any, action: str) -> tuple[list[Any], list[Any]]:
    """The raw labels and next states of ``action`` from ``state``, by the generated
    function and by the step closures it was generated from (or the error)."""
    expr, name, loc = m._action_root(action)
    compiler = ActionCompiler(m._compiler, m.variables)
    out: list[list[Any]] = []
    for step in (compiler.split(expr, Scope(m.root, 0)), compiler._split(expr, Scope(m.root, 0))):
        got: list[Any] = []
        t = [UNASSIGNED] * len(m.variables)
        try:
            for raw in step(state, t, (), (name, (), (), loc)):
                got.append((raw[0], raw[2], raw[3], tuple(t)))
        except TlaError as err:
            got.append((type(err), err.message, err.loc))
        out.append(got)
    return out[0], out[1]


def test_the_successors_come_from_generated_code() -> None:
    m = model(SPEC, {"Procs": frozenset({1, 2, 3})})
    expr, _, _ = m._action_root("Next")
    compiler = ActionCompiler(m._compiler, m.variables)
    assert compiler.split(expr, Scope(m.root, 0)).__code__.co_filename == "<act>"


@pytest.mark.parametrize("action", ACTIONS)
def test_generated_code_agrees_with_the_closures(action: str) -> None:
    m = model(ERRORS)
    for x in (0, 1):
        gen, closures = both(m, (x, 0, frozenset()), action)
        assert gen == closures


NESTED = r"""
VARIABLES x, y
Init == x = 0 /\ y = 0
Deep == {deep}
Long == {long}
Wide == {wide}
"""


def test_deeply_nested_actions_are_split_into_several_functions() -> None:
    """Nesting beyond what one Python function allows (20 loops, 100 indentation
    levels) is called through functions of its own."""
    deep = "".join(rf"\E k{i} \in {{{i}, {i + i // 28}}} : " for i in range(30)) + \
        r"x' = k29 /\ (y' = k0 \/ y' = k1)"
    long = r" /\ ".join([r"(x' \in {1, 2} \/ x' = 3)", *(rf"(IF x' > {i} THEN y' = y ELSE y' = y)"
                                                           for i in range(40))])
    wide = r" /\ ".join([r"x' = 1", *(rf"(LET a{i} == {i} IN y' = y \/ y' = a{i})" for i in range(30))])
    m = model(NESTED.format(deep=deep, long=long, wide=wide))
    for action in ("Deep", "Long", "Wide"):
        gen, closures = both(m, (0, 0), action)
        assert gen == closures and len(gen) > 1


# function application (a fused ``f[x]``): values, or errors with their locations, as the
# closures gave them
APP_DEFS = r"""
App(f, x) == f[x]
AppEq(f, x, y) == f[x] = y
App2(f) == f[1, 2]
Nested(f, i, j) == f[i][j] + 1
Ord(a, b) == (IF a = 0 THEN 1 \div 0 ELSE <<7>>)[IF b = 0 THEN 2 \div 0 ELSE 1]
"""

APP_CASES = [
    ('App([a |-> 1], "a")',
     '1'),
    ('App([a |-> 1], "b")',
     'EvalError: function application: "b" is not in the domain of [a |-> 1] @ 4:14'),
    ('App(<<1, 2>>, 2)',
     '2'),
    ('App(<<1, 2>>, 3)',
     'EvalError: function application: 3 is not in the domain 1..2 of <<1, 2>> @ 4:14'),
    ('App(<<1, 2>>, 0)',
     'EvalError: function application: 0 is not in the domain 1..2 of <<1, 2>> @ 4:14'),
    ('App(<<>>, "a")',
     'EvalError: function application: "a" is not in the domain 1..0 of <<>> @ 4:14'),
    ('App(1, 1)',
     'EvalError: cannot apply the integer 1 as a function @ 4:14'),
    ('App("ab", 1)',
     'EvalError: cannot apply the string "ab" as a function @ 4:14'),
    ('App([x \\in {0, 1} |-> x], TRUE)',
     'EvalError: function application: TRUE is not in the domain of (0 :> 0 @@ 1 :> 1), whose elements TLC cannot compare with it @ 4:14'),
    ('App([x \\in {TRUE, FALSE} |-> 5], 1)',
     'EvalError: function application: 1 is not in the domain of (FALSE :> 5 @@ TRUE :> 5), whose elements TLC cannot compare with it @ 4:14'),
    ('App([x \\in {TRUE, FALSE} |-> 5], TRUE)',
     '5'),
    ('App([x \\in {0, 1} |-> 7], 1)',
     '7'),
    ('App([x \\in {<<1>>} |-> 3], <<1>>)',
     '3'),
    ('App(1 \\div 0, 2 \\div 0)',
     'EvalError: division by zero in \\div @ 1:5'),
    ('App([a |-> 1], 1 \\div 0)',
     'EvalError: division by zero in \\div @ 1:16'),
    ('App2([x, y \\in {1, 2} |-> x + y])',
     '3'),
    ('App2(<<1, 2>>)',
     'EvalError: function application: <<1, 2>> is not in the domain 1..2 of <<1, 2>> @ 6:12'),
    ('App([x \\in {1} |-> x], {1})',
     'EvalError: function application: {1} is not in the domain 1..1 of <<1>> @ 4:14'),
    ('AppEq([a |-> 1], "a", 1)',
     'True'),
    ('AppEq([a |-> 1], "a", "x")',
     'EvalError: attempted to check equality of the integer 1 with the string "x", which TLC cannot compare @ 5:19'),
    ('AppEq(<<5>>, 1, 5)',
     'True'),
    ('Nested(<<<<1, 2>>, <<3>>>>, 1, 2)',
     '3'),
    ('Nested(<<<<1, 2>>, <<3>>>>, 2, 2)',
     'EvalError: function application: 2 is not in the domain 1..1 of <<3>> @ 7:20'),
    ('Nested([i \\in {1} |-> [j \\in {"a"} |-> 4]], 1, "a")',
     '5'),
    ('App([i \\in 1..3 |-> i * i], 3)',
     '9'),
    ('App([i \\in 1..3 |-> i * i], -1)',
     'EvalError: function application: -1 is not in the domain 1..3 of <<1, 4, 9>> @ 4:14'),
    ('App([s \\in {"a"} |-> 1], "a")',
     '1'),
    ('App([x \\in {1, 2} |-> x + 1], 2)',
     '3'),
    ('App([x \\in {-1, 0} |-> x], -1)',
     '-1'),
    ('App([x \\in {0, 1} |-> 7], 0)',
     '7'),
    ('App([x \\in {TRUE} |-> 5], 1)',
     'EvalError: function application: 1 is not in the domain of (TRUE :> 5), whose elements TLC cannot compare with it @ 4:14'),
    ('App([x \\in {TRUE, 2} |-> 5], 2)',
     '5'),
    ('App([x \\in {"a", 1} |-> 5], "a")',
     '5'),
    ('App([x \\in {2, 3} |-> 5], 1)',
     'EvalError: function application: 1 is not in the domain of (2 :> 5 @@ 3 :> 5) @ 4:14'),
    ('App([x \\in {2, 3} |-> 5], TRUE)',
     'EvalError: function application: TRUE is not in the domain of (2 :> 5 @@ 3 :> 5) @ 4:14'),
    ('Ord(0, 0)',
     'EvalError: division by zero in \\div @ 8:29'),
    ('Ord(1, 0)',
     'EvalError: division by zero in \\div @ 8:64'),
    ('Ord(0, 1)',
     'EvalError: division by zero in \\div @ 8:29'),
    ('Ord(1, 1)',
     '7'),
]


@pytest.mark.parametrize(("expr", "want"), APP_CASES)
def test_function_application(expr: str, want: str) -> None:
    assert outcome(expression_model(APP_DEFS), expr) == want
