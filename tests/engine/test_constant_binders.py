"""A binder that reads only its own bound variables is constant and folded once, but its
bound variables still live at the slots of its scope: under operator parameters or an
outer binder the fold must keep those slots (folding with an empty environment read the
wrong slot, a wrong value, or none, a crash)."""

from __future__ import annotations

from pathlib import Path

from conformance.tla.model import Model

SPEC = """---- MODULE Binders ----
EXTENDS Naturals
VARIABLE x, y
Nested(m) == [i \\in {1, 2} |-> [j \\in {3, 4} |-> i]]
Table(m) == [i \\in {1, 2} |-> IF i = 1 THEN 5 ELSE 6]
Image(m) == {i + 1 : i \\in {1, 2}}
Some(m) == \\E i \\in {1, 2} : i > 1
Outer == \\A k \\in {7} : [i \\in {1, 2} |-> i][2] = 2
Start(m) == /\\ x = [i \\in {1, 2} |-> IF i = 1 THEN 5 ELSE 6]
            /\\ y = m
Init == Start(3)
Next == UNCHANGED <<x, y>>
====
"""


def load(tmp_path: Path) -> Model:
    spec = tmp_path / "Binders.tla"
    spec.write_text(SPEC)
    return Model.load(spec)


def test_constant_binders_under_parameters_evaluate_right(tmp_path: Path) -> None:
    model = load(tmp_path)
    (state,) = list(model.init_states())
    assert model.eval_state("Nested(y)[1][3]", state) == 1
    assert model.eval_state("Nested(y)[2][4]", state) == 2
    assert model.eval_state("Table(y)[1]", state) == 5
    assert model.eval_state("Image(y)", state) == frozenset({2, 3})
    assert model.eval_state("Some(y)", state) is True
    assert model.eval_state("Outer", state) is True


def test_constant_binder_in_a_parameterised_initial_predicate(tmp_path: Path) -> None:
    model = load(tmp_path)
    (state,) = list(model.init_states())
    assert model.eval_state("x[1] = 5 /\\ x[2] = 6 /\\ y = 3", state) is True
