"""Existential quantifiers whose body opens with guards: same successors as the plain reading."""

from __future__ import annotations

from pathlib import Path

import pytest

from conformance.tla.model import Model
from conformance.tla.syntax import TlaError
from tests.engine.spec_text import load_text

SPEC = """---- MODULE Guards ----
EXTENDS Naturals
VARIABLES x, y
Init == x = 0 /\\ y = 0
Pick == \\E k \\in 1..6 : /\\ k > x
                          /\\ k % 2 = 0
                          /\\ x' = k
                          /\\ y' = y + k
Both == \\E k \\in 1..3 : /\\ k >= y
                          /\\ \\/ x' = k /\\ y' = 0
                             \\/ x' = 0 /\\ y' = k
Next == Pick \\/ Both
====
"""


def test_guarded_branches_give_every_successor(tmp_path: Path) -> None:
    (tmp_path / "Guards.tla").write_text(SPEC)
    m = Model.load(tmp_path / "Guards.tla")
    assert sorted(m.action_successors("Pick", (), (0, 0))) == [(2, 2), (4, 4), (6, 6)]
    assert sorted(m.action_successors("Pick", (), (3, 1))) == [(4, 5), (6, 7)]
    assert list(m.action_successors("Pick", (), (6, 0))) == []
    assert sorted(m.action_successors("Both", (), (0, 2))) == [(0, 2), (0, 3), (2, 0), (3, 0)]
    labels = sorted({lab.name for lab, _ in m.successors((0, 0))})
    assert labels == ["Both", "Pick"]


CALLS = """---- MODULE Calls ----
EXTENDS Naturals, TLC
VARIABLES x, n
Init == x = 0 /\\ n = 0
Set(i) == /\\ i > x
          /\\ x' = i
          /\\ n' = n + 1
Odd(i) == /\\ i % 2 = 1 /\\ i # x
          /\\ x' = i
          /\\ UNCHANGED n
Loud(i) == /\\ PrintT(<<"loud", i>>)
           /\\ i >= 3
           /\\ UNCHANGED <<x, n>>
Broken(i) == /\\ i.field = 1
             /\\ UNCHANGED <<x, n>>
Next == \\E i \\in 1..3 : Set(i) \\/ Odd(i)
Noisy == \\E i \\in 1..3 : Loud(i)
Fails == \\E i \\in 1..3 : Broken(i)
====
"""


def _calls(tmp_path: Path) -> Model:
    return load_text(tmp_path, CALLS)


def test_an_operators_first_conjunct_selects_its_calls(tmp_path: Path) -> None:
    """An action operator's leading guards are tested before its other steps are set up: the calls
    they reject give nothing, the others every successor, with the argument in the label."""
    m = _calls(tmp_path)
    got = sorted((lab.name, lab.params, succ) for lab, succ in m.successors((2, 5)))
    assert got == [("Odd", (("i", 1),), (1, 5)), ("Odd", (("i", 3),), (3, 5)),
                   ("Set", (("i", 3),), (3, 6))]
    assert sorted(succ for _, succ in m.successors((0, 0))) == [
        (1, 0), (1, 1), (2, 1), (3, 0), (3, 1)]


def test_an_impure_first_conjunct_is_evaluated_once(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    m = _calls(tmp_path)
    assert [succ for _, succ in m.successors((0, 0), "Noisy")] == [(0, 0)]
    assert capsys.readouterr().out.count("loud") == 3


def test_a_failing_first_conjunct_reports_its_error(tmp_path: Path) -> None:
    m = _calls(tmp_path)
    with pytest.raises(TlaError, match="field"):
        list(m.successors((0, 0), "Fails"))
