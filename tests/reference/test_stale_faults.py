"""Stale-message faults: they reach the handlers' staleness checks, their traces are spec
behaviours, and a seeded staleness bug that the previous fault set never exposed is caught."""

from __future__ import annotations

from pathlib import Path

import pytest

from conformance.validate.validator import TraceValidator
from conformance.validate.verdict import Verdict
from reference.core import replica as replica_module
from reference.core.handler_context import HandlerContext
from reference.core.messages import (
    BEGIN_QUORUM_EPOCH_RESPONSE,
    INVALID_CLUSTER_ID,
    NONE,
    VOTE_RESPONSE,
    Message,
)
from reference.core.states import CANDIDATE, LEADER
from reference.sim.faults import (
    DEFAULT_FAULTS,
    DYNAMIC_DEFAULT_FAULTS,
    FAULTS,
    PREVIOUS_DEFAULT_FAULTS,
    REACH_FAULTS,
)
from reference.sim.simulator import RunStats, SimConfig, run_seed

SPEC = Path(__file__).resolve().parents[2] / "spec" / "KRaft.tla"
STALE = ("stale", "epoch-duplicate", "oldest-first")


def _totals(faults: tuple[str, ...], seeds: range, **config: object) -> RunStats:
    total = RunStats()
    for seed in seeds:
        result = run_seed(SimConfig(faults=frozenset(faults), trace=False, **config), seed)  # type: ignore[arg-type]
        assert result.ok, result.failures[0]
        total.add(result.stats)
    return total


def test_stale_faults_are_default_and_described() -> None:
    for name in STALE:
        assert name in DEFAULT_FAULTS and name in DYNAMIC_DEFAULT_FAULTS and FAULTS[name]
        assert name not in PREVIOUS_DEFAULT_FAULTS
    assert set(DEFAULT_FAULTS) == set(PREVIOUS_DEFAULT_FAULTS) | set(STALE) | set(REACH_FAULTS)


def test_old_messages_arrive_right_after_a_change_much_more_often() -> None:
    """Over the same seeds, old messages (of an older epoch) reach a replica right after it
    changed epoch, leader or role several times more often with the stale-message faults."""
    seeds = range(1, 11)
    before = _totals(PREVIOUS_DEFAULT_FAULTS, seeds, steps=1000)
    after = _totals(DEFAULT_FAULTS, seeds, steps=1000)
    assert before.stale_redeliveries == before.epoch_duplicates == before.oldest_first_deliveries == 0
    assert after.stale_redeliveries > 0 and after.epoch_duplicates > 0 and after.oldest_first_deliveries > 0
    assert after.old_after_change >= 3 * before.old_after_change
    assert after.older_epoch_after_change >= 5 * max(1, before.older_epoch_after_change)


@pytest.mark.parametrize("fault", STALE)
def test_each_stale_fault_acts_alone(fault: str) -> None:
    stats = _totals((fault,), range(1, 4), steps=500)
    acted = {"stale": stats.stale_redeliveries, "epoch-duplicate": stats.epoch_duplicates,
             "oldest-first": stats.oldest_first_deliveries}
    assert acted[fault] > 0 and sum(acted.values()) == acted[fault]


@pytest.mark.parametrize("quorum", ["static", "dynamic"])
def test_stale_fault_traces_are_accepted(tmp_path: Path, quorum: str) -> None:
    faults = DEFAULT_FAULTS if quorum == "static" else DYNAMIC_DEFAULT_FAULTS
    validator = TraceValidator(SPEC)
    for seed in (1, 2):
        result = run_seed(SimConfig(quorum=quorum, faults=frozenset(faults), steps=600, out_dir=tmp_path), seed)
        assert result.ok and result.trace_path is not None
        assert result.stats.stale_redeliveries + result.stats.epoch_duplicates > 0
        report = validator.validate(result.trace_path)
        assert report.verdict is Verdict.ACCEPT, report.summary_line()


def _vote_response_without_epoch_check(r: HandlerContext, m: Message) -> None:
    """``handle_vote_response`` with its staleness check removed: a candidate counts a granted
    vote of an earlier epoch (the seeded bug)."""
    if r.learn_from_response(m) or r.role != CANDIDATE:
        return
    counting = r.counting_voter_set()
    if m.voteGranted and m.source in counting.ids:
        r.votes_granted.add(m.source)
        if len(r.votes_granted) >= counting.majority:
            r.become_leader()
    elif not m.voteGranted and len(counting.ids) == 2:
        r.step_down_to_voted()


def _begin_quorum_epoch_response_without_epoch_check(r: HandlerContext, m: Message) -> None:
    """``handle_begin_quorum_epoch_response`` with its staleness check removed: a leader counts
    the endorsement of an earlier epoch (the seeded bug)."""
    if m.errorCode == INVALID_CLUSTER_ID or r.learn_from_response(m):
        return
    if m.errorCode == NONE and r.role == LEADER:
        r.endorse(m.source)


# (message type, handler without its staleness check, a seed and steps where the current
# faults expose it, the fewest seeds of 1..40 that must expose it, measured: 8 and 3)
SEEDED_BUGS = {
    "vote-response-any-epoch": (VOTE_RESPONSE, _vote_response_without_epoch_check, 4, 300, 5),
    "endorsement-any-epoch": (BEGIN_QUORUM_EPOCH_RESPONSE, _begin_quorum_epoch_response_without_epoch_check, 9, 1000, 2),
}


def _caught(tmp_path: Path, faults: tuple[str, ...], seeds: range, steps: int) -> list[int]:
    """Seeds whose run the simulator's invariants or the validator flag."""
    validator = TraceValidator(SPEC)
    caught = []
    for seed in seeds:
        result = run_seed(SimConfig(faults=frozenset(faults), steps=steps, out_dir=tmp_path), seed)
        assert result.trace_path is not None
        if not result.ok or validator.validate(result.trace_path).verdict is not Verdict.ACCEPT:
            caught.append(seed)
    return caught


@pytest.mark.parametrize("bug", SEEDED_BUGS)
def test_seeded_staleness_bug_caught_only_with_stale_faults(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                            bug: str) -> None:
    kind, handler, seed, steps, _ = SEEDED_BUGS[bug]
    seeds = range(seed, seed + 1)
    assert _caught(tmp_path / "clean", DEFAULT_FAULTS, seeds, steps) == []
    monkeypatch.setitem(replica_module._HANDLERS, kind, handler)
    assert _caught(tmp_path / "old", PREVIOUS_DEFAULT_FAULTS, seeds, steps) == []
    assert _caught(tmp_path / "new", DEFAULT_FAULTS, seeds, steps) == [seed]


@pytest.mark.slow
@pytest.mark.parametrize("bug", SEEDED_BUGS)
def test_seeded_staleness_bug_over_a_seed_range(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, bug: str) -> None:
    """Seeds 1..40, 1000 steps: the previous faults never expose the bug, the new ones in
    several seeds."""
    kind, handler, _, _, at_least = SEEDED_BUGS[bug]
    monkeypatch.setitem(replica_module._HANDLERS, kind, handler)
    assert _caught(tmp_path / "old", PREVIOUS_DEFAULT_FAULTS, range(1, 41), 1000) == []
    assert len(_caught(tmp_path / "new", DEFAULT_FAULTS, range(1, 41), 1000)) >= at_least
