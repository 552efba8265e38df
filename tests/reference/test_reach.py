"""What the default campaigns reach beyond the previous defaults: the operator's refused voter
changes, DescribeQuorum, a client that sticks to a deposed leader, ``Shutdown`` to every role,
and the faults ``isolate-leader`` and ``stale-position``; realistic bugs that need them are
caught (by the simulator's invariants or the trace validator), and not without them."""

from __future__ import annotations

import random
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

from conformance.validate.mutations import read_lines
from conformance.validate.validator import TraceValidator
from conformance.validate.verdict import Verdict
from reference.core import replica as replica_module
from reference.core import rpc_voters
from reference.core.handler_context import HandlerContext
from reference.core.log import ReplicatedLog
from reference.core.messages import (
    ADD_VOTER_REQUEST,
    DUPLICATE_VOTER,
    FETCH_RESPONSE,
    INVALID_CLUSTER_ID,
    NIL,
    NONE,
    REMOVE_VOTER_REQUEST,
    Message,
)
from reference.core.replica import Replica, Shutdown
from reference.core.rpc_fetch import describe_quorum
from reference.core.states import FOLLOWER, LEADER
from reference.sim import simulator
from reference.sim.faults import DEFAULT_FAULTS, DYNAMIC_DEFAULT_FAULTS
from reference.sim.reassignment import VoterChange, refused_change
from reference.sim.simulator import SimConfig, run_seed

SPEC = Path(__file__).resolve().parents[2] / "spec" / "KRaft.tla"


def _events(path: Path) -> Iterator[dict[str, Any]]:
    """The trace's events with full states (deltas expanded)."""
    return (e for e in read_lines(path) if e["kind"] == "event")


# -- the operator's refused voter changes ----------------------------------------------------

def test_refused_change_re_adds_a_rebuilt_voter_first() -> None:
    voters = frozenset({(1, 1), (2, 1), (3, 1)})
    directory_of = {1: 1, 2: 2, 3: 1, 4: 1}  # replica 2 lost its disk: directory id 2 now
    change = refused_change(voters, directory_of, random.Random(0))
    assert change == VoterChange(ADD_VOTER_REQUEST, (2, 2))


def test_refused_change_kinds_are_refusals_the_spec_allows() -> None:
    """A duplicate AddVoter (a voter id under its current key), a RemoveVoter of a current key
    outside the voter set (SendRemoveVoterRequest's KnownKeys), a RemoveVoter of the only voter."""
    voters = frozenset({(1, 1), (2, 1)})
    directory_of = {1: 1, 2: 1, 3: 1}
    seen = {refused_change(voters, directory_of, random.Random(s)) for s in range(50)}
    assert seen == {VoterChange(ADD_VOTER_REQUEST, (1, 1)), VoterChange(ADD_VOTER_REQUEST, (2, 1)),
                    VoterChange(REMOVE_VOTER_REQUEST, (3, 1))}
    assert refused_change(frozenset({(1, 1)}), directory_of, random.Random(0)) == VoterChange(REMOVE_VOTER_REQUEST, (1, 1))
    rebuilt = {1: 2, 2: 1, 3: 1}  # the rebuilt voter goes first, once
    assert refused_change(voters, rebuilt, random.Random(0)) == VoterChange(ADD_VOTER_REQUEST, (1, 2))
    assert refused_change(voters, rebuilt, random.Random(0), {(1, 2)}) != VoterChange(ADD_VOTER_REQUEST, (1, 2))


def test_operator_sends_refused_changes_and_the_traces_are_accepted(tmp_path: Path) -> None:
    config = SimConfig(quorum="dynamic", steps=1000, out_dir=tmp_path, faults=frozenset(DYNAMIC_DEFAULT_FAULTS))
    validator = TraceValidator(SPEC)
    errors: set[tuple[str, str]] = set()
    refused = 0
    wanted = {("AddVoterResponse", "DUPLICATE_VOTER"), ("RemoveVoterResponse", "VOTER_NOT_FOUND")}
    for seed in range(1, 13):  # until both refusals were answered
        if refused and wanted <= errors:
            break
        result = run_seed(config, seed)
        assert result.ok and result.trace_path is not None
        refused += result.stats.refused_change_requests
        errors |= {(m["type"], m["errorCode"]) for e in _events(result.trace_path)
                   for m in e.get("sent") or [] if m.get("errorCode")}
        report = validator.validate(result.trace_path)
        assert report.verdict is Verdict.ACCEPT, report.summary_line()
    assert refused > 0
    assert wanted <= errors


# -- DescribeQuorum ------------------------------------------------------------------------------

def test_describe_quorum_lists_directory_ids_and_counts_a_voter_only_from_its_directory() -> None:
    from tests.reference.helpers import make_leader

    leader = make_leader(1)
    leader.replica_end_offset[2], leader.replica_directory_id[2] = 5, 0
    answer = describe_quorum(leader)
    assert answer.error_code == NONE
    assert [(v, d) for v, d, _ in answer.current_voters] == [(1, 0), (2, 0), (3, 0)]
    assert dict((v, end) for v, _, end in answer.current_voters)[2] == 5
    leader.replica_directory_id[2] = 7  # a Fetch from another directory: not that voter's progress
    assert dict((v, end) for v, _, end in describe_quorum(leader).current_voters)[2] == 0


def test_operator_finds_the_leader_with_describe_quorum(monkeypatch: pytest.MonkeyPatch) -> None:
    answers: list[str] = []
    original = Replica.describe_quorum

    def recording(self: Replica) -> object:
        result = original(self)
        answers.append(result.error_code)
        return result

    monkeypatch.setattr(Replica, "describe_quorum", recording)
    result = run_seed(SimConfig(quorum="dynamic", steps=600, trace=False, faults=frozenset(DYNAMIC_DEFAULT_FAULTS)), 1)
    assert result.ok and result.stats.voter_change_requests > 0
    assert NONE in answers and "NOT_LEADER_FOR_PARTITION" in answers


# -- the client and the shutdown input ------------------------------------------------------------

def test_client_keeps_appending_to_a_deposed_leader(tmp_path: Path) -> None:
    """A ClientAppend step at a leader while another replica leads a later epoch: the client
    stuck to the leader it wrote to (before, it always picked the latest epoch's leader)."""
    result = run_seed(SimConfig(steps=1000, out_dir=tmp_path), 1)
    assert result.ok and result.trace_path is not None
    latest: dict[int, tuple[str, int]] = {}
    stale_appends = 0
    for e in _events(result.trace_path):
        state = e["state"]
        if e["action"] == "ClientAppend":
            epoch = state["currentEpoch"]
            stale_appends += any(role == LEADER and other > epoch for role, other in latest.values())
        latest[e["replica"]] = (state["role"], state["currentEpoch"])
    assert stale_appends > 0


def test_shutdown_input_reaches_every_role(monkeypatch: pytest.MonkeyPatch) -> None:
    roles: list[str] = []
    original = Replica.step

    def recording(self: Replica, inp: object, now_ms: int) -> object:
        if isinstance(inp, Shutdown):
            roles.append(self.role)
        return original(self, inp, now_ms)  # type: ignore[arg-type]

    monkeypatch.setattr(Replica, "step", recording)
    assert run_seed(SimConfig(steps=1500, trace=False, faults=frozenset({"shutdown"})), 1).ok
    assert LEADER in roles and any(r != LEADER for r in roles)


# -- seeded bugs that need what the defaults reach now -----------------------------------------

def _fetch_response(truncate: Callable[[HandlerContext, Message, int], int],
                    stale: Callable[[HandlerContext, Message], bool]) -> Callable[[HandlerContext, Message], None]:
    """``handle_fetch_response`` with its staleness test and its truncation point given."""
    def handle(r: HandlerContext, m: Message) -> None:
        if m.errorCode == INVALID_CLUSTER_ID or r.learn_from_response(m):
            return
        if m.errorCode != NONE or m.epoch != r.current_epoch or r.role != FOLLOWER or m.source != r.leader_id:
            return
        if stale(r, m):
            return
        if m.divergingEpoch != NIL:
            _, local_end = r.log.end_offset_for_epoch(m.divergingEpoch)
            r.truncate_log(truncate(r, m, local_end))
            if r.log.end_offset == 0 or r.log.last_epoch == m.divergingEpoch:
                r.high_watermark = max(r.high_watermark, min(m.highWatermark, r.log.end_offset))
        else:
            r.append_entries(m.records)
            r.high_watermark = max(r.high_watermark, min(m.highWatermark, r.log.end_offset))
        r.fetch_completed()
    return handle


def _stale_by_position(r: HandlerContext, m: Message) -> bool:
    return m.fetchOffset != r.log.end_offset or m.lastFetchedEpoch != r.log.last_epoch


def _refusal_by_key(r: HandlerContext, m: Message) -> str | None:
    """``rpc_voters.refusal`` refusing a duplicate key instead of a duplicate id."""
    error = _CORRECT_REFUSAL(r, m)
    if error == DUPLICATE_VOTER and (m.voterId, m.voterDirectoryId) not in r.voter_set.keys:
        return None if rpc_voters.caught_up(r, m.voterId, m.voterDirectoryId) else "REQUEST_TIMED_OUT"
    return error


_CORRECT_REFUSAL = rpc_voters.refusal


def _complete_without_resigning(r: HandlerContext) -> None:
    r.set_action("CompleteVoterChange", {"i": r.id})
    pending, r.pending_voter_changes = r.pending_voter_changes, []
    for m in pending:
        rpc_voters._respond(r, m, NONE)


@contextmanager
def _seeded(bug: str, monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    with monkeypatch.context() as patch:
        if bug == "uptodate-length-only":
            patch.setattr(ReplicatedLog, "is_up_to_date", lambda self, _epoch, end: end >= len(self.entries))
        elif bug == "fetch-stale-offset-only":
            patch.setitem(replica_module._HANDLERS, FETCH_RESPONSE, _fetch_response(
                lambda _r, m, local: min(m.divergingEndOffset, local), lambda r, m: m.fetchOffset != r.log.end_offset))
        elif bug == "truncate-to-leader-end":
            patch.setitem(replica_module._HANDLERS, FETCH_RESPONSE, _fetch_response(
                lambda _r, m, _local: m.divergingEndOffset, _stale_by_position))
        elif bug == "add-voter-duplicate-by-key":
            patch.setattr(rpc_voters, "refusal", _refusal_by_key)
        elif bug == "removed-leader-stays":
            patch.setattr(rpc_voters, "complete_voter_change", _complete_without_resigning)
        yield


def _caught(tmp_path: Path, config: SimConfig, seed: int) -> bool:
    result = run_seed(config, seed)
    assert result.trace_path is not None
    return not result.ok or TraceValidator(SPEC).validate(result.trace_path).verdict is not Verdict.ACCEPT


# bug -> (quorum, voters, seed, what the run needs: a fault, or a module constant of the
# simulator that switches the operator's refused changes off; None: nothing to switch off)
REACHED = {
    "uptodate-length-only": ("static", 3, 3, "isolate-leader"),
    "truncate-to-leader-end": ("static", 3, 5, "isolate-leader"),
    "fetch-stale-offset-only": ("static", 3, 3, "stale-position"),
    "add-voter-duplicate-by-key": ("dynamic", 3, 2, "_READD_REBUILT_VOTER_PROBABILITY"),
    "removed-leader-stays": ("dynamic", 3, 11, None),
}


@pytest.mark.parametrize("bug", REACHED)
def test_seeded_bug_is_caught_and_needs_what_the_defaults_reach(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                                 bug: str) -> None:
    quorum, voters, seed, needs = REACHED[bug]
    faults = frozenset(DYNAMIC_DEFAULT_FAULTS if quorum == "dynamic" else DEFAULT_FAULTS)
    config = SimConfig(quorum=quorum, voters=voters, steps=1000, out_dir=tmp_path / "run", faults=faults)
    assert not _caught(tmp_path, config, seed)
    with _seeded(bug, monkeypatch):
        assert _caught(tmp_path, config, seed)
        if needs is None:
            return
        if needs in faults:
            config = SimConfig(quorum=quorum, voters=voters, steps=1000, out_dir=tmp_path / "without",
                               faults=faults - {needs})
        else:
            monkeypatch.setattr(simulator, needs, 0.0)
        assert not _caught(tmp_path, config, seed)
