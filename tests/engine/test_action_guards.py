"""Existential quantifiers whose body opens with guards: same successors as the plain reading."""

from __future__ import annotations

from pathlib import Path

from conformance.tla.model import Model

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
