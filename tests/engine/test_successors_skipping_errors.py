"""``Model.successors_skipping_errors``: a disjunct the engine cannot evaluate in a state is
skipped (its partial assignments undone) and its error returned; the other disjuncts give
exactly the successors ``successors`` gives when nothing fails."""

from __future__ import annotations

import pytest

from conformance.tla.syntax import TlaError
from tests.engine.test_actions import model

SPEC = """
VARIABLES s, x, y
\\* assigns x before it applies s beyond its length when x > Len(s)
Bad(i) == x' = 10 + i /\\ y' = s[x + i] /\\ UNCHANGED s
Good(i) == x' = x + i /\\ y' = 0 /\\ UNCHANGED s
Next == \\E i \\in {1, 2} : Bad(i) \\/ Good(i)
"""


def test_every_other_disjunct_still_gives_its_successors() -> None:
    m = model(SPEC)
    state = (("a",), 0, 9)  # s = <<"a">>, x = 0: Bad(1) is defined, Bad(2) is not
    with pytest.raises(TlaError):
        list(m.successors(state, "Next"))
    found, errors = m.successors_skipping_errors(state, "Next")
    assert sorted((t for _, t in found), key=repr) == sorted([(("a",), 11, "a"), (("a",), 1, 0), (("a",), 2, 0)],
                                                             key=repr)
    assert {label.name for label, _ in found} == {"Bad", "Good"}
    assert len(errors) == 1  # Bad(2): s[2]


def test_without_failures_it_agrees_with_successors() -> None:
    m = model(SPEC)
    for state in [(("a", "b", "c"), 0, 9), (("a", "b", "c"), 1, 0)]:
        found, errors = m.successors_skipping_errors(state, "Next")
        assert errors == []
        assert sorted(found, key=repr) == sorted(m.successors(state, "Next"), key=repr)


def test_a_failure_outside_every_disjunction_is_returned() -> None:
    m = model(SPEC + "Top == y' = s[5] /\\ UNCHANGED <<s, x>>\n")
    found, errors = m.successors_skipping_errors((("a",), 0, 9), "Top")
    assert found == [] and len(errors) == 1
