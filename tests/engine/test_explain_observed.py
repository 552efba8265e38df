"""Explaining why an enabled action cannot produce an observed successor: the primed values are
fixed, and the reasons name the failing conjunct, the IF decision and the CASE arm behind it."""

from __future__ import annotations

from pathlib import Path

from conformance.tla.model import Model
from tests.engine.spec_text import load_text

SPEC = """---- MODULE Answer ----
EXTENDS Naturals
VARIABLES busy, out
Init == busy = 0 /\\ out = 0
Ask(k) ==
    LET error == CASE busy > 0 -> 7
                   [] k > 3 -> 8
                   [] OTHER -> 0
    IN IF error /= 0
       THEN /\\ out' = error
            /\\ UNCHANGED busy
       ELSE /\\ busy' = k
            /\\ out' = 0
Next == \\E k \\in 1..5 : Ask(k)
====
"""


def _model(tmp_path: Path) -> Model:
    return load_text(tmp_path, SPEC)


def test_a_successor_the_action_cannot_produce_names_the_decisions(tmp_path: Path) -> None:
    m = _model(tmp_path)
    assert list(m.action_successors("Ask", (2,), (1, 0))) == [(1, 7)]  # enabled: it answers 7
    reasons = [text for _, text in m.explain_disabled("Ask", (2,), (1, 0), {0: 2, 1: 0})]  # observed: accepted
    assert reasons == ["IF error /= 0 is TRUE", "error is 7: CASE arm busy > 0 is TRUE", "out' = error"]
    reasons = [text for _, text in m.explain_disabled("Ask", (5,), (0, 0), {0: 0, 1: 7})]
    assert reasons == ["IF error /= 0 is TRUE", "error is 8: CASE arm k > 3 is TRUE", "out' = error"]
    reasons = [text for _, text in m.explain_disabled("Ask", (2,), (0, 0), {0: 0, 1: 7})]
    assert reasons == ["IF error /= 0 is FALSE", "error is 0: no CASE arm is TRUE (OTHER)", "busy' = k"]


def test_the_observed_successor_it_produces_needs_no_explanation(tmp_path: Path) -> None:
    m = _model(tmp_path)
    assert m.explain_disabled("Ask", (2,), (1, 0), {0: 1, 1: 7}) == []
    assert m.explain_disabled("Ask", (2,), (0, 0)) == []  # without a successor: enabled
