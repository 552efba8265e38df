"""Loops over integer ranges skip the values their leading comparisons reject: same results,
same errors as evaluating the predicate for every value."""

from __future__ import annotations

from pathlib import Path

import pytest

from conformance.tla.model import Model
from conformance.tla.syntax import EvalError

SPEC = """---- MODULE Narrow ----
EXTENDS Naturals, Sequences
VARIABLES lg, lo, hi
Between == {p \\in DOMAIN lg : p > lo /\\ p <= hi}
Flipped == {p \\in DOMAIN lg : lo < p /\\ hi >= p /\\ lg[p] # 0}
Strict == {p \\in DOMAIN lg : p >= lo /\\ p < hi}
Lazy == {p \\in DOMAIN lg : p > 100 /\\ p <= 1 \\div 0}
Bad == {p \\in DOMAIN lg : p > "x"}
Init == lg = <<>> /\\ lo = 0 /\\ hi = 0
Pick == \\E k \\in DOMAIN lg : /\\ k > lo
                              /\\ k <= hi
                              /\\ lo' = k
                              /\\ UNCHANGED <<lg, hi>>
Next == Pick
====
"""


@pytest.fixture()
def model(tmp_path: Path) -> Model:
    (tmp_path / "Narrow.tla").write_text(SPEC)
    return Model.load(tmp_path / "Narrow.tla")


@pytest.mark.parametrize("n", [0, 1, 5])
def test_filters_agree_with_the_definition(model: Model, n: int) -> None:
    lg = tuple(range(n))
    for lo in range(-2, n + 3):
        for hi in range(-2, n + 3):
            state = (lg, lo, hi)
            dom = range(1, n + 1)
            assert model.eval_state("Between", state) == frozenset(p for p in dom if lo < p <= hi)
            assert model.eval_state("Flipped", state) == \
                frozenset(p for p in dom if lo < p <= hi and lg[p - 1] != 0)
            assert model.eval_state("Strict", state) == frozenset(p for p in dom if lo <= p < hi)
            succ = sorted(t[1] for t in model.action_successors("Pick", (), state))
            assert succ == [p for p in dom if lo < p <= hi]


def test_errors_are_those_of_the_plain_loop(model: Model) -> None:
    # the bound 1 \div 0 is never evaluated: no value passes p > 100
    assert model.eval_state("Lazy", ((1, 2, 3), 0, 0)) == frozenset()
    assert model.eval_state("Bad", ((), 0, 0)) == frozenset()  # no value, no comparison
    with pytest.raises(EvalError):
        model.eval_state("Bad", ((1,), 0, 0))
