"""Premise slicing (``slicing.py``): a slice of the invariant that refutes a question proves
it; a slice whose model violates a premise left out grows; a question a slice cannot decide
goes to the whole premise, and only the whole premise gives a counterexample."""

from __future__ import annotations

from pathlib import Path

import pytest
import z3

from conformance.symbolic import slicing
from conformance.symbolic.budget import Budget
from conformance.symbolic.prove import ObligationResult, ProofInput, discharge, obligations
from conformance.symbolic.shapes import Bounds
from conformance.symbolic.slicing import Premise, Slices

# Inv/1 (a >= 0) is kept by Step only through Inv/2 and Inv/3, which share no variable
# with it (b >= c and c >= 0 give b >= 0); Inv/4 is irrelevant to it.
CHAIN = """---- MODULE Chain ----
EXTENDS Integers
VARIABLES
  \\* @type: Int;
  a,
  \\* @type: Int;
  b,
  \\* @type: Int;
  c,
  \\* @type: Int;
  d
Init == a = 0 /\\ b = 0 /\\ c = 0 /\\ d = 0
Step == a' = a + b /\\ UNCHANGED <<b, c, d>>
Next == Step
Spec == Init /\\ [][Next]_<<a, b, c, d>>
Inv == a >= 0 /\\ b >= c /\\ c >= 0 /\\ d >= 0
\\* without c >= 0, a state with b = c = -1 steps out of a >= 0
Weak == a >= 0 /\\ b >= c /\\ d >= 0
====
"""


def chain_step(tmp_path: Path, inv: str, slicing_on: bool = True) -> ObligationResult:
    spec = tmp_path / "Chain.tla"
    spec.write_text(CHAIN)
    cfg = tmp_path / "Chain.cfg"
    cfg.write_text("SPECIFICATION Spec\nINVARIANT Inv\n")
    inp = ProofInput(spec, cfg, inv, inv, None, Bounds(2, 2), 60.0, slicing=slicing_on)
    step = next(o for o in obligations(inp) if o.kind == "step")
    return discharge(inp, step)


def sum_slices() -> tuple[Slices, z3.BoolRef]:
    """Premises x >= 0, y >= 0, z >= 0 (one variable each) and the step x' = x + y: the
    question x' < 0 needs y >= 0, which shares no variable with x."""
    x, y, z, x2 = z3.Ints("x y z x2")
    solver = z3.Solver()
    solver.add(x2 == x + y)
    premises = [Premise("X", x >= 0, frozenset({"x"})), Premise("Y", y >= 0, frozenset({"y"})),
                Premise("Z", z >= 0, frozenset({"z"}))]
    return Slices(solver, premises), x2 < 0


def test_slice_of_the_variables_read_is_first() -> None:
    slices, _ = sum_slices()
    assert slices.relevant(frozenset({"x"})) == {0}
    assert slices.relevant(None) == {0, 1, 2}


def test_a_violated_premise_joins_the_slice_and_the_slice_proves() -> None:
    slices, negation = sum_slices()
    assert slices.refutes(frozenset({"x"}), negation, Budget(30))
    assert (slices.proved, slices.given_up) == (1, 0)


def test_a_satisfiable_slice_is_left_to_the_whole_premise(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(slicing, "SLICE_ROUNDS", 1)
    slices, negation = sum_slices()
    assert not slices.refutes(frozenset({"x"}), negation, Budget(30))
    assert (slices.proved, slices.given_up) == (0, 1)


def test_a_question_true_with_every_premise_is_not_refuted() -> None:
    slices, _ = sum_slices()
    x2 = z3.Int("x2")
    assert not slices.refutes(frozenset({"x"}), x2 > 5, Budget(30))  # sat even with all


def test_step_proved_by_a_grown_slice(tmp_path: Path) -> None:
    result = chain_step(tmp_path, "Inv")
    assert result.verdict == "proved", result.message
    assert result.questions == {"sliced": 1, "whole": 0}


def test_step_proved_by_the_whole_premise_where_the_slice_is_satisfiable(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(slicing, "SLICE_ROUNDS", 1)  # the first slice ({a >= 0}) has a model
    result = chain_step(tmp_path, "Inv")
    assert result.verdict == "proved", result.message
    assert result.questions == {"sliced": 0, "whole": 1}


@pytest.mark.parametrize("rounds", [1, 3])
def test_counterexample_to_induction_comes_from_the_whole_premise(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, rounds: int) -> None:
    monkeypatch.setattr(slicing, "SLICE_ROUNDS", rounds)
    result = chain_step(tmp_path, "Weak")
    assert result.verdict == "counterexample", result.message
    assert result.engine_action == "Step" and result.failing == ["Weak/1"]


def test_without_slicing_the_whole_premise_decides(tmp_path: Path) -> None:
    assert not ProofInput(Path("A.tla"), Path("A.cfg"), "Inv", "Inv", None, Bounds(2, 2), 1.0).slicing  # the default
    result = chain_step(tmp_path, "Inv", slicing_on=False)
    assert result.verdict == "proved" and result.questions == {}
