"""Time in traces: the reference's header claims every timer rule (``TimedRules``) with its
timings (``Timing``), the validator advances the spec's clock to each event's ``time_ms``
(``AdvanceClock``), and the spec's timer guards then judge the steps. Clean runs are accepted,
each timer bug switch is rejected at a timer step, the same bug trace read as untimed (its
header without the two constants) is accepted, and traces written before the timer rules are
read as untimed."""

from __future__ import annotations

import gzip
import json
from pathlib import Path
from typing import Any

import pytest

from conformance.validate.validator import TraceValidator
from conformance.validate.verdict import Verdict
from reference.sim.simulator import SimConfig, run_seed
from reference.trace.spec_constants import TIMER_RULES

ROOT = Path(__file__).resolve().parents[2]
SPEC = ROOT / "spec" / "KRaft.tla"
FIXTURES = Path(__file__).parent / "fixtures"

# bug switch -> (seed, steps, the rejected action, the guard the diagnostic names)
TIMER_BUGS: dict[str, tuple[int, int, str, str]] = {
    "early-election": (1, 100, "BecomeCandidate", "MayStand(i)"),
    "late-election": (1, 100, "BecomeCandidate", "TimeoutOnTime(i)"),
    "no-successor-backoff": (7, 200, "BecomeCandidate", "MayStand(i)"),
    "early-resign": (3, 200, "Resign", "QuorumLost(i)"),
    "check-quorum-counts-observers": (16, 500, "", "OnTime"),
    "begin-epoch-once": (1, 700, "", "OnTime"),
}


@pytest.fixture(scope="module")
def validator() -> TraceValidator:
    return TraceValidator(SPEC)


def _explain(r: Any) -> str:
    return r.summary_line() + "\n" + (r.diagnostic.render() if r.diagnostic else "")


def _lines(path: Path) -> list[dict[str, Any]]:
    opener = gzip.open if path.suffix == ".gz" else open
    with opener(path, "rt") as f:  # type: ignore[operator]
        return [json.loads(line) for line in f]


def _text(lines: list[dict[str, Any]]) -> list[str]:
    return [json.dumps(x) + "\n" for x in lines]


def test_header_claims_every_timer_rule(tmp_path: Path) -> None:
    config = SimConfig(out_dir=tmp_path, steps=20)
    result = run_seed(config, 1)
    assert result.trace_path is not None
    constants = _lines(result.trace_path)[0]["constants"]
    assert sorted(constants["TimedRules"]["#set"]) == sorted(TIMER_RULES)
    q = config.quorum_config()
    assert constants["Timing"] == {"electionTimeout": q.election_timeout_ms, "fetchTimeout": q.fetch_timeout_ms,
                                   "requestTimeout": q.request_timeout_ms, "retryBackoff": q.retry_backoff_ms,
                                   "retryBackoffMax": q.retry_backoff_max_ms,
                                   "electionBackoffMax": q.election_backoff_max_ms}


@pytest.mark.parametrize("quorum", ["static", "dynamic"])
def test_clean_runs_conform_on_time(validator: TraceValidator, tmp_path: Path, quorum: str) -> None:
    timers = {"BecomeCandidate": 0, "Resign": 0, "SendBeginQuorumEpoch": 0}
    for seed in range(1, 5):
        result = run_seed(SimConfig(out_dir=tmp_path, steps=600, quorum=quorum), seed)
        assert result.ok and result.trace_path is not None, result.failures
        r = validator.validate(result.trace_path)
        assert r.verdict is Verdict.ACCEPT, _explain(r)
        for line in _lines(result.trace_path):
            if line.get("action") in timers:
                timers[line["action"]] += 1
    assert timers["BecomeCandidate"] > 0 and timers["SendBeginQuorumEpoch"] > 0, timers


@pytest.mark.parametrize("bug", sorted(TIMER_BUGS))
def test_timer_bug_is_rejected_and_accepted_untimed(validator: TraceValidator, tmp_path: Path, bug: str) -> None:
    seed, steps, action, guard = TIMER_BUGS[bug]
    result = run_seed(SimConfig(out_dir=tmp_path, steps=steps, bug=bug), seed)
    assert result.trace_path is not None
    r = validator.validate(result.trace_path)
    assert r.verdict is Verdict.REJECT, _explain(r)
    assert r.diagnostic is not None and r.diagnostic.event is not None
    if action:
        assert r.diagnostic.event.action == action, _explain(r)
    assert any(guard in g.text for g in r.diagnostic.disabled), _explain(r)
    # the same trace claiming no timer rule: the clock is not checked and the steps conform
    lines = _lines(result.trace_path)
    for key in ("TimedRules", "Timing"):
        del lines[0]["constants"][key]
    for line in lines:  # the untimed spec's Resign is also the graceful shutdown
        if line.get("action") == "Shutdown":
            line["action"] = "Resign"
    untimed = validator.validate(_text(lines), name=f"{bug}-untimed")
    assert untimed.verdict is Verdict.ACCEPT, _explain(untimed)


@pytest.mark.parametrize("name", ["untimed-seed-1.ndjson.gz", "untimed-dynamic-seed-3.ndjson.gz"])
def test_traces_before_the_timer_rules_are_read_untimed(validator: TraceValidator, name: str) -> None:
    path = FIXTURES / name
    assert "TimedRules" not in _lines(path)[0]["constants"]
    r = validator.validate(path)
    assert r.verdict is Verdict.ACCEPT, _explain(r)


def test_time_going_past_a_deadline_is_what_rejects(validator: TraceValidator, tmp_path: Path) -> None:
    """Differential: the first candidacy of a clean run is accepted at its logged time and
    rejected when its time_ms (and the later ones) is moved before the election timeout."""
    result = run_seed(SimConfig(out_dir=tmp_path, steps=60), 2)
    assert result.trace_path is not None
    lines = _lines(result.trace_path)
    assert validator.validate(_text(lines), name="clean").verdict is Verdict.ACCEPT
    events = [x for x in lines if x.get("kind") == "event"]
    first = next(k for k, e in enumerate(events) if e["action"] == "BecomeCandidate")
    timeout = lines[0]["constants"]["Timing"]["electionTimeout"]
    assert events[first]["time_ms"] >= timeout
    early = timeout - 1
    for e in events[: first + 1]:
        e["time_ms"] = min(e["time_ms"], early)
    for e in events[first + 1:]:
        e["time_ms"] = max(e["time_ms"], early)
    r = validator.validate(_text(lines), name="early")
    assert r.verdict is Verdict.REJECT and r.diagnostic is not None
    assert r.diagnostic.step == events[first]["step"], _explain(r)


def test_time_going_past_the_end_of_a_range_is_what_rejects(validator: TraceValidator, tmp_path: Path) -> None:
    """Differential, the other end: the first candidacy of a clean run moved later than any
    timer of its replica can fire (its time plus the election timeout, the backoff max and the
    fetch timeout) is rejected at that step, at the guard ``TimeoutOnTime(i)``; the same trace
    claiming every timer rule but ``TimeoutUpperBound`` gets past that step."""
    result = run_seed(SimConfig(out_dir=tmp_path, steps=60), 2)
    assert result.trace_path is not None
    lines = _lines(result.trace_path)
    events = [x for x in lines if x.get("kind") == "event"]
    first = next(k for k, e in enumerate(events) if e["action"] == "BecomeCandidate")
    timing = lines[0]["constants"]["Timing"]
    late = events[first]["time_ms"] + timing["electionTimeout"] + timing["electionBackoffMax"] + timing["fetchTimeout"] + 1
    for e in events[first:]:
        e["time_ms"] = max(e["time_ms"], late)
    r = validator.validate(_text(lines), name="late")
    assert r.verdict is Verdict.REJECT and r.diagnostic is not None
    assert r.diagnostic.step == events[first]["step"], _explain(r)
    assert any("TimeoutOnTime(i)" in g.text for g in r.diagnostic.disabled), _explain(r)
    rules = lines[0]["constants"]["TimedRules"]["#set"]
    rules.remove("TimeoutUpperBound")
    relaxed = validator.validate(_text(lines), name="late-without-the-rule")
    assert relaxed.verdict is Verdict.ACCEPT or (
        relaxed.diagnostic is not None and relaxed.diagnostic.step > events[first]["step"]), _explain(relaxed)


def test_a_header_before_the_upper_bound_is_read_without_it(validator: TraceValidator, tmp_path: Path) -> None:
    """A trace written before ``TimeoutUpperBound`` (five rules, no ``electionBackoffMax``) is
    read with Kafka's default for the missing timing and accepted."""
    result = run_seed(SimConfig(out_dir=tmp_path, steps=300), 4)
    assert result.trace_path is not None
    lines = _lines(result.trace_path)
    constants = lines[0]["constants"]
    constants["TimedRules"]["#set"].remove("TimeoutUpperBound")
    del constants["Timing"]["electionBackoffMax"]
    r = validator.validate(_text(lines), name="five-rules")
    assert r.verdict is Verdict.ACCEPT, _explain(r)
