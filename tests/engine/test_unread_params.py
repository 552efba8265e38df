"""Parameters an operator's body never reads (``strictness.unread_params``): their
arguments are not evaluated. Each expected set is derived by hand: a name counts as read
wherever it occurs, except in the branch of an IF whose condition is a constant of the
model that rules the branch out, or in the value of a CASE arm whose condition is a
constant FALSE; a condition naming something the body binds is not taken as known."""

from __future__ import annotations

from typing import Any

import pytest

from conformance.tla import syntax as S
from conformance.tla.loader import ModuleLoader
from conformance.tla.model import Model
from conformance.tla.parser import parse_module_text
from conformance.tla.semantics.scope import Scope

TEXT = r"""---- MODULE Unread ----
EXTENDS Naturals, TLC
CONSTANT K
VARIABLE x
Timed(i, d) == IF K = {} THEN UNCHANGED x ELSE x' = d + i
Live(a, b) == IF x > 1 THEN a ELSE b
Arms(a, b) == CASE K = {} -> a [] K # {} -> b
ArmsLive(a, b) == CASE x > 0 -> a [] OTHER -> b
Flag == TRUE
Shadow(a) == \E Flag \in {FALSE} : IF Flag THEN 0 ELSE a
Ignores(a, b) == a
Literal(a) == IF TRUE THEN 0 ELSE a
InCond(a) == IF a > 0 THEN 1 ELSE 2
Passed(a) == Ignores(0, a)
LetBound(a) == LET k == TRUE IN IF k THEN 0 ELSE a
Bound(a) == \E k \in {TRUE} : IF k THEN 0 ELSE a
Nested(a, b) == IF K = {} THEN (IF x > 0 THEN a ELSE 0) ELSE b
Step(a, b) == Timed(a, b)
Printed(a) == Timed(CHOOSE v \in {0} : PrintT(<<"evaluated", a>>), 0)
Value(a, b) == IF K = {} THEN a ELSE b
Next == \/ Step(x, 1) /\ x < 3
        \/ x' = Value(x + 1, x + 2) /\ x < 3
====
"""

# K = {}: the constant conditions K = {} (TRUE) and K # {} (FALSE)
EMPTY = {"Timed": {"i", "d"}, "Live": set(), "Arms": {"b"}, "ArmsLive": set(), "Shadow": set(), "Ignores": {"b"},
         "Literal": {"a"}, "InCond": set(), "Passed": set(), "LetBound": set(),
         "Bound": set(), "Nested": {"b"}, "Step": set(), "Value": {"b"}}
# K = {1}: the ELSE branches are taken
FULL = {**EMPTY, "Timed": set(), "Arms": {"a"}, "Nested": {"a"}, "Value": {"a"}}


def model(k: Any) -> Model:
    return Model(parse_module_text(TEXT, "Unread.tla"), ModuleLoader([]), {"K": k})


def unread(m: Model, name: str) -> set[str]:
    entry = m.root.names[name]
    unit = entry.unit
    assert isinstance(unit, S.OpDef)
    return set(m._compiler.unread_params(unit, Scope(entry.ctx, entry.ctx.base)))


@pytest.mark.parametrize(("k", "want"), [(frozenset(), EMPTY), (frozenset({1}), FULL)])
def test_unread_parameters_are_derived_from_the_constants(k: Any, want: dict[str, set[str]]) -> None:
    m = model(k)
    assert {name: unread(m, name) for name in want} == want


def test_the_step_reads_the_branch_the_constants_take() -> None:
    # K = {1}: Timed takes its ELSE branch, reading both parameters; Value takes b
    assert sorted(s for _, s in model(frozenset({1})).successors((0,))) == [(1,), (2,)]
    assert sorted(s for _, s in model(frozenset()).successors((0,))) == [(0,), (1,)]


def test_an_unread_argument_is_not_evaluated(capsys: pytest.CaptureFixture[str]) -> None:
    # TLC evaluates an argument only where the body reads it: nothing is printed
    m = model(frozenset())
    assert list(m.action_successors("Printed", [0], (0,))) == [(0,)]
    assert "evaluated" not in capsys.readouterr().out
    m = model(frozenset({1}))
    assert list(m.action_successors("Printed", [0], (0,))) == [(0,)]
    assert "evaluated" in capsys.readouterr().out

