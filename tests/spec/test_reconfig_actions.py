"""The spec's KIP-853 reconfiguration actions, one step at a time through the engine.

A dynamic quorum (MC_KRaft_dynamic.cfg with bootstrap voters {1, 2} and observer 3): the voter
set read from the log, the leader's checks and errors for AddVoter / RemoveVoter /
UpdateVoter, the answer once the record commits, a leader removing itself, replica keys
in Vote and BeginQuorumEpoch, and a voter's disk loss.
"""

from __future__ import annotations

import pytest

from conformance.tla.model import Model, State
from conformance.tla.values import Fn, Value, fn_items, make_fn, make_record
from tests.spec.test_kraft_actions import (
    at,
    elect,
    field,
    init,
    load,
    messages_of,
    one,
    replace,
    var,
)

CFG = "MC_KRaft_dynamic.cfg"


def dynamic(**overrides: Value) -> Model:
    return load(CFG, Voters=frozenset({1, 2}), Observers=frozenset({3}), **overrides)


@pytest.fixture(scope="module")
def model() -> Model:
    return dynamic()


def keys(model: Model, s: State, i: int) -> Value:
    return model.eval_state(f"VoterKeys({i})", s)


def deliver(model: Model, s: State, action: str, type_: str, **fields: Value) -> State:
    msg = latest(model, s, type_, **fields)
    return one(model, action, [msg], s)


def latest(model: Model, s: State, type_: str, **fields: Value) -> Fn:
    found = [m for m in messages_of(model, s, type_) if all(field(m, k) == v for k, v in fields.items())]
    assert found, f"no {type_} {fields}"
    return max(found, key=lambda m: (field(m, "fetchOffset"), field(m, "epoch")))  # type: ignore[return-value]


def fetch_round(model: Model, s: State, follower: int, leader: int = 1) -> State:
    """The follower fetches at its log end; the leader answers; the follower takes the answer."""
    end = len(at(model, s, "log", follower))  # type: ignore[arg-type]
    s = one(model, "SendFetchRequest", [follower, leader], s)
    s = deliver(model, s, "HandleFetchRequest", "FetchRequest", source=follower, fetchOffset=end)
    resp = [m for m in messages_of(model, s, "FetchResponse")
            if field(m, "dest") == follower and field(m, "fetchOffset") == end]
    # the leader may cap the batch: take the answer carrying the most records
    best = max(resp, key=lambda m: len(field(m, "records")))  # type: ignore[arg-type]
    return one(model, "HandleFetchResponse", [best], s)


def committed_leader(model: Model) -> State:
    """Replica 1 leads epoch 1, replica 2 follows, the leaderChange record is committed."""
    s = elect(model, init(model))
    s = one(model, "SendBeginQuorumEpoch", [1, 2], s)
    s = deliver(model, s, "HandleBeginQuorumEpochRequest", "BeginQuorumEpochRequest", dest=2)
    s = fetch_round(model, s, 2)
    s = fetch_round(model, s, 2)
    assert at(model, s, "highWatermark", 1) == 1
    return s


def observer_caught_up(model: Model) -> State:
    """committed_leader, and observer 3 has fetched up to the leader's log end."""
    s = committed_leader(model)
    # 3 knows no leader: it fetches from a voter of its (bootstrap) set and learns the leader
    s = one(model, "SendFetchRequest", [3, 1], s)
    s = deliver(model, s, "HandleFetchRequest", "FetchRequest", source=3)
    s = deliver(model, s, "HandleFetchResponse", "FetchResponse", dest=3)
    assert at(model, s, "leaderId", 3) == 1 and at(model, s, "role", 3) == "Follower"
    s = fetch_round(model, s, 3)
    s = fetch_round(model, s, 3)
    assert model.eval_state("CaughtUp(1, <<3, 1>>)", s) is True
    return s


def add_voter(model: Model, s: State, v: int = 3, leader: int = 1) -> State:
    s = one(model, "SendAddVoterRequest", [leader, v], s)
    return deliver(model, s, "HandleAddVoterRequest", "AddVoterRequest", voterId=v, dest=leader)


def answers(model: Model, s: State, type_: str) -> list[str]:
    return sorted(str(field(m, "errorCode")) for m in messages_of(model, s, type_))


def test_bootstrap_voter_set_when_the_log_holds_no_voters_record(model: Model) -> None:
    s = init(model)
    assert keys(model, s, 3) == frozenset({(1, 1), (2, 1)})
    assert model.eval_state("IsVoter(1)", s) is True
    assert model.eval_state("IsVoter(3)", s) is False
    assert not list(model.action_successors("BecomeCandidate", [3], s))


def test_add_voter_appends_the_record_and_the_leader_uses_it_at_once(model: Model) -> None:
    s = add_voter(model, observer_caught_up(model))
    last = at(model, s, "log", 1)[-1]  # type: ignore[index]
    assert field(last, "kind") == "voters"
    assert field(last, "voters") == frozenset({(1, 1), (2, 1), (3, 1)})
    assert keys(model, s, 1) == frozenset({(1, 1), (2, 1), (3, 1)})  # uncommitted, already used
    assert keys(model, s, 2) == frozenset({(1, 1), (2, 1)})  # not replicated yet
    assert messages_of(model, s, "AddVoterResponse") == []  # answered only once committed
    assert not list(model.action_successors("CompleteVoterChange", [1], s))


def test_truncating_the_record_reverts_the_voter_set(model: Model) -> None:
    s = add_voter(model, observer_caught_up(model))
    assert model.eval_state("VoterSetOf(SubSeq(log[1], 1, Len(log[1]) - 1))", s) == \
        frozenset({(1, 1), (2, 1)})


def test_consecutive_voter_sets_differ_by_one_key(model: Model) -> None:
    """VoterSetsDifferByOne compares each VotersRecord with the set in force before it:
    the bootstrap set for the first, the previous record's for a later one."""
    s = add_voter(model, observer_caught_up(model))
    log = list(at(model, s, "log", 1))  # type: ignore[call-overload]
    record = log[-1]

    def with_voters(voters: frozenset[tuple[int, int]]) -> Fn:
        return make_record(sorted({**dict(fn_items(record)), "voters": voters}.items()))

    def holds(*tail: Fn) -> bool:
        logs = make_fn({**dict(fn_items(var(model, s, "log"))), 1: tuple(log[:-1]) + tail})  # type: ignore[arg-type]
        return model.eval_state("VoterSetsDifferByOne", replace(model, s, log=logs)) is True

    assert holds(record)
    assert not holds(with_voters(frozenset({(1, 1), (3, 1)})))  # 2 out, 3 in: two keys
    assert not holds(with_voters(frozenset({(1, 1), (2, 1), (2, 2), (3, 1)})))  # two keys in
    assert holds(record, with_voters(frozenset({(1, 1), (3, 1)})))  # one out of the previous record's
    assert not holds(record, with_voters(frozenset({(1, 1), (2, 1), (3, 2)})))  # (3, 1) out, (3, 2) in
    assert holds(record, record)  # UpdateVoter repeats the set


def test_the_answer_comes_once_the_record_commits_under_the_new_set(model: Model) -> None:
    s = add_voter(model, observer_caught_up(model))
    s = fetch_round(model, s, 2)
    s = fetch_round(model, s, 2)
    # new set {1, 2, 3}: the leader and 2 are a majority
    assert at(model, s, "highWatermark", 1) == len(at(model, s, "log", 1))  # type: ignore[arg-type]
    s = one(model, "CompleteVoterChange", [1], s)
    assert answers(model, s, "AddVoterResponse") == [""]
    assert at(model, s, "pendingVoterChange", 1) == frozenset()


def test_a_second_change_while_one_is_uncommitted_times_out() -> None:
    model = dynamic()
    s = add_voter(model, observer_caught_up(model))
    s = one(model, "SendRemoveVoterRequest", [1, 2, 1], s)
    s = deliver(model, s, "HandleRemoveVoterRequest", "RemoveVoterRequest", voterId=2)
    assert answers(model, s, "RemoveVoterResponse") == ["REQUEST_TIMED_OUT"]
    relaxed = dynamic(OneUncommittedChange=False)
    s = add_voter(relaxed, observer_caught_up(relaxed))
    s = one(relaxed, "SendRemoveVoterRequest", [1, 2, 1], s)
    s = deliver(relaxed, s, "HandleRemoveVoterRequest", "RemoveVoterRequest", voterId=2)
    assert keys(relaxed, s, 1) == frozenset({(1, 1), (3, 1)})


def test_no_change_before_an_offset_of_the_leaders_epoch_is_committed() -> None:
    model = dynamic()
    s = elect(model, init(model))  # nothing committed yet
    s = one(model, "SendRemoveVoterRequest", [1, 2, 1], s)
    s = deliver(model, s, "HandleRemoveVoterRequest", "RemoveVoterRequest", voterId=2)
    assert answers(model, s, "RemoveVoterResponse") == ["REQUEST_TIMED_OUT"]
    relaxed = dynamic(ChangeRequiresCurrentEpochCommit=False)
    s = elect(relaxed, init(relaxed))
    s = one(relaxed, "SendRemoveVoterRequest", [1, 2, 1], s)
    s = deliver(relaxed, s, "HandleRemoveVoterRequest", "RemoveVoterRequest", voterId=2)
    assert keys(relaxed, s, 1) == frozenset({(1, 1)})


def test_leader_checks_and_their_errors(model: Model) -> None:
    s = committed_leader(model)
    # not the leader
    s1 = one(model, "SendAddVoterRequest", [2, 3], s)
    s1 = deliver(model, s1, "HandleAddVoterRequest", "AddVoterRequest", dest=2)
    resp = latest(model, s1, "AddVoterResponse")
    assert field(resp, "errorCode") == "NOT_LEADER_FOR_PARTITION" and field(resp, "leaderId") == 1
    # duplicate voter id
    s2 = add_voter(model, s, v=2)
    assert answers(model, s2, "AddVoterResponse") == ["DUPLICATE_VOTER"]
    # the new voter has not caught up (3 never fetched)
    s3 = add_voter(model, s, v=3)
    assert answers(model, s3, "AddVoterResponse") == ["REQUEST_TIMED_OUT"]
    # removing a key the set does not hold
    s4 = one(model, "SendRemoveVoterRequest", [1, 3, 1], s)
    s4 = deliver(model, s4, "HandleRemoveVoterRequest", "RemoveVoterRequest", voterId=3)
    assert answers(model, s4, "RemoveVoterResponse") == ["VOTER_NOT_FOUND"]


def test_static_quorum_answers_unsupported_version() -> None:
    model = load("MC_KRaft_small.cfg", VoterChangeRequests=frozenset({"AddVoterRequest"}))
    s = elect(model, init(model))
    s = one(model, "SendAddVoterRequest", [1, 3], s)
    s = deliver(model, s, "HandleAddVoterRequest", "AddVoterRequest")
    assert answers(model, s, "AddVoterResponse") == ["UNSUPPORTED_VERSION"]


def test_a_leader_that_removes_itself_leads_until_the_record_commits_then_resigns(model: Model) -> None:
    s = add_voter(model, observer_caught_up(model))
    for follower in (2, 3):
        s = fetch_round(model, s, follower)
        s = fetch_round(model, s, follower)
    s = one(model, "CompleteVoterChange", [1], s)
    s = one(model, "SendRemoveVoterRequest", [1, 1, 1], s)
    s = deliver(model, s, "HandleRemoveVoterRequest", "RemoveVoterRequest", voterId=1)
    assert keys(model, s, 1) == frozenset({(2, 1), (3, 1)})
    assert at(model, s, "role", 1) == "Leader"
    assert model.eval_state("IsVoter(1)", s) is False
    # the leader does not count itself: one follower is not a majority of {2, 3}
    s = fetch_round(model, s, 2)
    s = fetch_round(model, s, 2)
    assert model.eval_state("HasUncommittedVoterChange(1)", s) is True
    assert not list(model.action_successors("CompleteVoterChange", [1], s))
    s = fetch_round(model, s, 3)
    s = fetch_round(model, s, 3)
    assert model.eval_state("HasUncommittedVoterChange(1)", s) is False
    s = one(model, "CompleteVoterChange", [1], s)
    assert at(model, s, "role", 1) == "Resigned"
    assert answers(model, s, "RemoveVoterResponse") == [""]
    assert sorted(field(m, "dest") for m in messages_of(model, s, "EndQuorumEpochRequest")) == [2, 3]


def test_a_voter_that_lost_its_disk_is_not_that_voter(model: Model) -> None:
    s = one(model, "BecomeCandidate", [1], init(model))
    s = one(model, "LoseDisk", [2], s)
    assert at(model, s, "dirId", 2) == 2 and at(model, s, "log", 2) == ()
    assert model.eval_state("IsVoter(2)", s) is False
    req = latest(model, s, "VoteRequest", dest=2)
    assert field(req, "voterDirectoryId") == 1
    s2 = one(model, "HandleVoteRequest", [req], s)
    resp = latest(model, s2, "VoteResponse")
    assert field(resp, "errorCode") == "INVALID_VOTER_KEY" and field(resp, "voteGranted") is False
    assert at(model, s2, "votedId", 2) == -1
    unchecked = dynamic(VoteChecksDirectoryId=False)
    s = one(unchecked, "BecomeCandidate", [1], init(unchecked))
    s = one(unchecked, "LoseDisk", [2], s)
    s = one(unchecked, "HandleVoteRequest", [latest(unchecked, s, "VoteRequest", dest=2)], s)
    assert field(latest(unchecked, s, "VoteResponse"), "voteGranted") is True


def test_a_replica_grants_a_candidate_outside_its_voter_set(model: Model) -> None:
    s = add_voter(model, observer_caught_up(model))
    s = fetch_round(model, s, 3)  # 3 holds the uncommitted record naming it; 2 does not
    assert model.eval_state("IsVoter(3)", s) is True
    s = one(model, "Restart", [1], s)
    s = one(model, "BecomeCandidate", [3], s)
    req = latest(model, s, "VoteRequest", dest=2, source=3)
    s = one(model, "HandleVoteRequest", [req], s)
    assert 3 not in {k[0] for k in keys(model, s, 2)}  # type: ignore[index, union-attr]
    assert field(latest(model, s, "VoteResponse", dest=3), "voteGranted") is True


def test_begin_quorum_epoch_for_another_directory_id_is_refused(model: Model) -> None:
    s = elect(model, init(model))
    s = one(model, "LoseDisk", [2], s)
    s = one(model, "SendBeginQuorumEpoch", [1, 2], s)
    s = deliver(model, s, "HandleBeginQuorumEpochRequest", "BeginQuorumEpochRequest", dest=2)
    assert field(latest(model, s, "BeginQuorumEpochResponse"), "errorCode") == "INVALID_VOTER_KEY"
    assert at(model, s, "leaderId", 2) == -1
