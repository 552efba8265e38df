"""The spec's actions where they follow a KIP-595 sentence they once departed from
(spec/README.md, "KIP fidelity"), evaluated through the engine one step at a time."""

from __future__ import annotations

import pytest

from conformance.tla.model import Model, State
from conformance.tla.values import Fn, Value, make_record
from tests.spec.test_kraft_actions import (
    NIL,
    at,
    elect,
    entry,
    fetch,
    field,
    follower_of_1,
    init,
    load,
    messages_of,
    one,
    per_replica,
    replace,
    var,
)


@pytest.fixture(scope="module")
def model() -> Model:
    return load()


def edited(m: Fn, **changes: Value) -> Fn:
    """Message ``m`` with some fields changed."""
    return make_record({**m.map, **changes}.items())


def test_a_request_without_cluster_id_skips_validation(model: Model) -> None:
    """(c) "it will specify a clusterId value of 'null' and the destination broker will skip
    validation": the vote is granted, not refused with INVALID_CLUSTER_ID."""
    s = one(model, "BecomeCandidate", [1], init(model))
    req = next(m for m in messages_of(model, s, "VoteRequest") if field(m, "dest") == 2)
    s = one(model, "HandleVoteRequest", [edited(req, clusterId="")], s)
    resp = messages_of(model, s, "VoteResponse")[0]
    assert (field(resp, "errorCode"), field(resp, "voteGranted")) == ("", True)
    foreign = edited(req, clusterId="other")
    s2 = one(model, "HandleVoteRequest", [foreign], one(model, "BecomeCandidate", [1], init(model)))
    assert [field(m, "errorCode") for m in messages_of(model, s2, "VoteResponse")] == ["INVALID_CLUSTER_ID"]


def end_quorum_epoch(model: Model, s: State, dest: int) -> Fn:
    s = one(model, "Resign", [1], s)
    return next(m for m in messages_of(model, s, "EndQuorumEpochRequest") if field(m, "dest") == dest)


def test_end_quorum_epoch_is_rejected_when_the_receiver_knows_no_leader_of_its_epoch(model: Model) -> None:
    """(d) "or the leader id is not known for this epoch, the request is rejected"."""
    s = elect(model, init(model))  # 1 leads epoch 1; 2 voted for it, knows no leader
    assert at(model, s, "leaderId", 2) == NIL and at(model, s, "currentEpoch", 2) == 1
    eqe = end_quorum_epoch(model, s, 2)
    s2 = one(model, "HandleEndQuorumEpochRequest", [eqe], s)
    resp = next(m for m in messages_of(model, s2, "EndQuorumEpochResponse"))
    assert (field(resp, "errorCode"), field(resp, "leaderId")) == ("INVALID_QUORUM_STATE", NIL)
    # a follower that knows the leader accepts it
    s = follower_of_1(model)
    s3 = one(model, "HandleEndQuorumEpochRequest", [end_quorum_epoch(model, s, 2)], s)
    assert [field(m, "errorCode") for m in messages_of(model, s3, "EndQuorumEpochResponse")] == [""]


@pytest.mark.parametrize("fetch_offset, last_fetched_epoch", [(-1, 0), (0, -1), (0, 2)])
def test_a_malformed_fetch_position_is_an_invalid_request(model: Model, fetch_offset: int,
                                                          last_fetched_epoch: int) -> None:
    """(i) Neither records nor recorded progress: INVALID_REQUEST, as Kafka's leader."""
    s, req = fetch(model, follower_of_1(model))
    bad = edited(req, fetchOffset=fetch_offset, lastFetchedEpoch=last_fetched_epoch)
    s = one(model, "HandleFetchRequest", [bad], s)
    resp = messages_of(model, s, "FetchResponse")[0]
    assert (field(resp, "errorCode"), field(resp, "records")) == ("INVALID_REQUEST", ())
    assert at(model, s, "replicaEndOffset", 1) == per_replica({1: 0, 2: 0, 3: 0})
    assert at(model, s, "endorsers", 1) == frozenset()


def test_a_single_voter_leader_commits_without_a_fetch() -> None:
    """(f) KIP-853 standalone: the leader alone is a majority of its voter set."""
    single = load("MC_KRaft_single.cfg")
    s = one(single, "BecomeCandidate", [1], init(single))
    assert at(single, s, "role", 1) == "Leader" and at(single, s, "highWatermark", 1) == 0
    s = one(single, "AdvanceHighWatermark", [1], s)
    assert at(single, s, "highWatermark", 1) == 1
    assert var(single, s, "committed") == frozenset({(0, entry(1), 1)})
    assert not list(single.action_successors("AdvanceHighWatermark", [1], s))


def test_a_three_voter_leader_needs_a_fetch_to_commit(model: Model) -> None:
    """(f) With followers the leader's own append is no majority: the action is disabled."""
    s = elect(model, init(model))
    assert not list(model.action_successors("AdvanceHighWatermark", [1], s))


def test_an_observer_follower_may_fetch_from_another_voter() -> None:
    """(h) "retry to the Fetch request again against one of the remaining voters at random"."""
    sim = load("MC_KRaft_sim.cfg")
    s = elect(sim, init(sim))
    s = replace(sim, s, role=per_replica({1: "Leader", 2: "Voted", 3: "Unattached", 4: "Follower"}),
                leaderId=per_replica({1: 1, 2: NIL, 3: NIL, 4: 1}),
                currentEpoch=per_replica({1: 1, 2: 1, 3: 0, 4: 1}))
    for j in (1, 2, 3):
        s2 = one(sim, "SendFetchRequest", [4, j], s)
        assert [field(m, "dest") for m in messages_of(sim, s2, "FetchRequest")] == [j]
    # a voter follower fetches from its leader only
    s = replace(sim, s, role=per_replica({1: "Leader", 2: "Follower", 3: "Unattached", 4: "Follower"}),
                leaderId=per_replica({1: 1, 2: 1, 3: NIL, 4: 1}))
    assert not list(sim.action_successors("SendFetchRequest", [2, 3], s))


def test_an_answer_from_a_voter_following_the_same_leader_changes_nothing() -> None:
    """(h) The observer keeps its leader when another voter of the epoch answers."""
    sim = load("MC_KRaft_sim.cfg")
    s = follower_of_1(sim)
    s = replace(sim, s, role=per_replica({1: "Leader", 2: "Follower", 3: "Unattached", 4: "Follower"}),
                leaderId=per_replica({1: 1, 2: 1, 3: NIL, 4: 1}),
                currentEpoch=per_replica({1: 1, 2: 1, 3: 0, 4: 1}))
    s = one(sim, "SendFetchRequest", [4, 2], s)
    req = next(m for m in messages_of(sim, s, "FetchRequest") if field(m, "source") == 4)
    s = one(sim, "HandleFetchRequest", [req], s)
    resp = next(m for m in messages_of(sim, s, "FetchResponse") if field(m, "dest") == 4)
    assert field(resp, "errorCode") == "NOT_LEADER_FOR_PARTITION"
    s2 = one(sim, "HandleFetchResponse", [resp], s)
    assert (at(sim, s2, "role", 4), at(sim, s2, "leaderId", 4)) == ("Follower", 1)


def test_the_high_watermark_is_not_durable(model: Model) -> None:
    """(b) Documented departure: Restart resets the high watermark (Kafka does not persist
    the metadata log's high watermark)."""
    s = elect(model, init(model))
    s = replace(model, s, highWatermark=per_replica({1: 1, 2: 0, 3: 0}))
    s = one(model, "Restart", [1], s)
    assert at(model, s, "highWatermark", 1) == 0 and at(model, s, "log", 1) == (entry(1),)
