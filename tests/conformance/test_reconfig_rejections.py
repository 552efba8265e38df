"""Reconfiguration traces that break a KIP-853 rule: the validator rejects them at the step where
the rule is broken and names the spec's guard; with that rule's toggle off the spec agrees with
the trace (so the guard, and nothing else, is what rejects it)."""

from __future__ import annotations

from pathlib import Path

import pytest

from conformance.validate.validator import TraceValidator
from conformance.validate.verdict import Verdict

ROOT = Path(__file__).resolve().parents[2]
SPEC = ROOT / "spec" / "KRaft.tla"
SPEC_TEXT = SPEC.read_text().splitlines()
# An UpdateVoter reaches leader 3 while the VotersRecord of the previous change is still
# uncommitted (reference seed 2, --quorum dynamic --inject-bug two-uncommitted-changes).
CHANGE_WHILE_UNCOMMITTED = ROOT / "traces" / "corpus" / "bugs" / "two-uncommitted-changes-seed-2.ndjson.gz"


def _line_of(text: str) -> int:
    return next(i for i, line in enumerate(SPEC_TEXT, 1) if text in line)


def test_voter_change_while_another_is_uncommitted_is_rejected_naming_step_and_guard() -> None:
    report = TraceValidator(SPEC).validate(CHANGE_WHILE_UNCOMMITTED)
    assert report.verdict is Verdict.REJECT
    d = report.diagnostic
    assert d is not None and d.step == 144 and d.event is not None
    assert "replica 3 HandleUpdateVoterRequest" in d.event.describe()
    guard = _line_of("[] OneUncommittedChange /\\ (HasUncommittedVoterChange(l)")
    texts = [(g.location, g.text) for g in d.disabled]
    assert (f"{SPEC}:{guard}:21", 'error is "REQUEST_TIMED_OUT": CASE arm OneUncommittedChange /\\ '
            '(HasUncommittedVoterChange(l) \\/ (pendingVoterChange[l] /= {})) is TRUE') in texts
    assert any(t == 'IF error /= "" is TRUE' for _, t in texts)
    rendered = d.render()
    assert "step 144: no successor of HandleUpdateVoterRequest" in rendered
    assert f"decided at {SPEC}:{guard}:21: error is \"REQUEST_TIMED_OUT\": CASE arm OneUncommittedChange" in rendered


@pytest.mark.parametrize(("trace", "toggle"), [
    ("two-uncommitted-changes-seed-2", "OneUncommittedChange"),
    ("change-before-epoch-commit-seed-14", "ChangeRequiresCurrentEpochCommit"),
])
def test_with_the_toggle_off_the_spec_agrees_with_the_broken_step(trace: str, toggle: str) -> None:
    path = ROOT / "traces" / "corpus" / "bugs" / f"{trace}.ndjson.gz"
    assert TraceValidator(SPEC).validate(path).verdict is Verdict.REJECT
    relaxed = TraceValidator(SPEC, constants={toggle: False}).validate(path)
    assert relaxed.verdict is Verdict.ACCEPT, relaxed.summary_line()
