"""The KRaft spec's actions, evaluated through the engine one step at a time.

Each test builds a state from Init with the Model API and checks what one action does:
the KIP-595 rule it implements, in the vocabulary of spec/VOCABULARY.md.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

import pytest

from conformance.tla.cfg import read_config
from conformance.tla.model import Model, State
from conformance.tla.values import Fn, Value, fn_apply, make_fn, make_record

SPEC = Path(__file__).resolve().parents[2] / "spec"
NIL = -1


def load(cfg: str = "MC_KRaft_small.cfg", **overrides: Value) -> Model:
    config = read_config(SPEC / cfg)
    constants = dict(config.constants)
    constants.update(overrides)
    return Model.load(SPEC / "MC_KRaft.tla", constants=constants, overrides=config.overrides)


@pytest.fixture(scope="module")
def model() -> Model:
    return load()


def var(model: Model, state: State, name: str) -> Value:
    return state[model.variables.index(name)]


def at(model: Model, state: State, name: str, i: Value) -> Value:
    return fn_apply(var(model, state, name), i)  # type: ignore[arg-type]


def replace(model: Model, state: State, **changes: Value) -> State:
    values = list(state)
    for name, value in changes.items():
        values[model.variables.index(name)] = value
    return tuple(values)


def per_replica(values: Mapping[int, Value]) -> Value:
    return make_fn(dict(values))


def init(model: Model) -> State:
    states = list(model.init_states())
    assert len(states) == 1
    return states[0]


def one(model: Model, action: str, args: list[Value], state: State) -> State:
    succs = list(model.action_successors(action, args, state))
    assert len(succs) == 1, f"{action}{args}: {len(succs)} successors"
    return succs[0]


def entry(epoch: int, kind: str = "leaderChange", value: int = 1) -> Fn:
    return make_record([("epoch", epoch), ("kind", kind), ("value", value), ("voters", frozenset())])


def messages_of(model: Model, state: State, type_: str) -> list[Fn]:
    msgs = var(model, state, "messages")
    assert isinstance(msgs, frozenset)
    return [m for m in msgs if fn_apply(m, "type") == type_]


def field(m: Fn, name: str) -> Value:
    return fn_apply(m, name)


def elect(model: Model, state: State, leader: int = 1, voter: int = 2) -> State:
    """BecomeCandidate(leader), the voter grants, the candidate wins."""
    s = one(model, "BecomeCandidate", [leader], state)
    req = next(m for m in messages_of(model, s, "VoteRequest") if field(m, "dest") == voter
               and field(m, "source") == leader and field(m, "epoch") == at(model, s, "currentEpoch", leader))
    s = one(model, "HandleVoteRequest", [req], s)
    resp = next(m for m in messages_of(model, s, "VoteResponse") if field(m, "dest") == leader
                and field(m, "voteGranted") is True and field(m, "epoch") == at(model, s, "currentEpoch", leader))
    return one(model, "HandleVoteResponse", [resp], s)


def test_become_candidate_votes_for_itself_durably_and_asks_the_other_voters(model: Model) -> None:
    s = one(model, "BecomeCandidate", [1], init(model))
    assert at(model, s, "currentEpoch", 1) == 1
    assert at(model, s, "votedId", 1) == 1
    assert at(model, s, "role", 1) == "Candidate"
    assert at(model, s, "votesGranted", 1) == frozenset({1})
    reqs = messages_of(model, s, "VoteRequest")
    assert sorted(field(m, "dest") for m in reqs) == [2, 3]
    assert all(field(m, "lastOffsetEpoch") == 0 and field(m, "lastOffset") == 0 for m in reqs)
    assert (1, 1, 1) in var(model, s, "votes")  # type: ignore[operator]


def test_winning_candidate_appends_its_leader_change_record(model: Model) -> None:
    s = elect(model, init(model))
    assert at(model, s, "role", 1) == "Leader"
    assert at(model, s, "leaderId", 1) == 1
    assert at(model, s, "log", 1) == (entry(1, "leaderChange", 1),)
    assert var(model, s, "elections") == frozenset({(1, 1)})


def test_vote_is_refused_to_a_candidate_with_a_less_up_to_date_log(model: Model) -> None:
    s = elect(model, init(model))  # replica 1 holds an epoch-1 entry
    s = one(model, "BecomeCandidate", [3], s)
    s = one(model, "BecomeCandidate", [3], s)  # epoch 2, empty log
    req = next(m for m in messages_of(model, s, "VoteRequest") if field(m, "source") == 3
               and field(m, "dest") == 1 and field(m, "epoch") == 2)
    s2 = one(model, "HandleVoteRequest", [req], s)
    resp = next(m for m in messages_of(model, s2, "VoteResponse") if field(m, "dest") == 3)
    assert field(resp, "voteGranted") is False
    # the larger epoch is taken: the leader steps down, without voting
    assert at(model, s2, "currentEpoch", 1) == 2
    assert at(model, s2, "role", 1) == "Unattached"
    assert at(model, s2, "votedId", 1) == NIL


def test_without_the_up_to_date_rule_the_vote_is_granted() -> None:
    model = load(VoteRequiresUpToDateLog=False)
    s = elect(model, init(model))
    s = one(model, "BecomeCandidate", [3], s)
    s = one(model, "BecomeCandidate", [3], s)
    req = next(m for m in messages_of(model, s, "VoteRequest") if field(m, "source") == 3
               and field(m, "dest") == 1 and field(m, "epoch") == 2)
    s2 = one(model, "HandleVoteRequest", [req], s)
    resp = next(m for m in messages_of(model, s2, "VoteResponse") if field(m, "dest") == 3)
    assert field(resp, "voteGranted") is True


def test_a_voter_votes_once_per_epoch(model: Model) -> None:
    s = one(model, "BecomeCandidate", [1], init(model))
    s = one(model, "BecomeCandidate", [2], s)  # both candidates of epoch 1
    req1 = next(m for m in messages_of(model, s, "VoteRequest") if field(m, "source") == 1 and field(m, "dest") == 3)
    req2 = next(m for m in messages_of(model, s, "VoteRequest") if field(m, "source") == 2 and field(m, "dest") == 3)
    s = one(model, "HandleVoteRequest", [req1], s)
    assert at(model, s, "votedId", 3) == 1 and at(model, s, "role", 3) == "Voted"
    s = one(model, "HandleVoteRequest", [req2], s)
    refusal = next(m for m in messages_of(model, s, "VoteResponse") if field(m, "dest") == 2)
    assert field(refusal, "voteGranted") is False
    # a duplicate of the first request is granted again
    s = one(model, "HandleVoteRequest", [req1], s)
    grants = [m for m in messages_of(model, s, "VoteResponse") if field(m, "dest") == 1]
    assert [field(m, "voteGranted") for m in grants] == [True]


def test_restart_keeps_the_vote_only_when_it_is_durable() -> None:
    durable = load()
    s = one(durable, "BecomeCandidate", [1], init(durable))
    s = one(durable, "Restart", [1], s)
    assert at(durable, s, "votedId", 1) == 1 and at(durable, s, "role", 1) == "Voted"
    volatile = load(DurableVote=False)
    s = one(volatile, "BecomeCandidate", [1], init(volatile))
    s = one(volatile, "Restart", [1], s)
    assert at(volatile, s, "votedId", 1) == NIL and at(volatile, s, "role", 1) == "Unattached"


def test_a_restarted_leader_comes_back_resigned_with_its_log(model: Model) -> None:
    s = elect(model, init(model))
    s = one(model, "Restart", [1], s)
    assert at(model, s, "role", 1) == "Resigned"
    assert at(model, s, "leaderId", 1) == 1
    assert at(model, s, "log", 1) == (entry(1),)
    assert at(model, s, "highWatermark", 1) == 0
    assert var(model, s, "restarts") == 1


def test_two_voter_candidate_steps_down_on_a_refusal() -> None:
    model = load(Voters=frozenset({1, 2}))
    s = one(model, "BecomeCandidate", [1], init(model))
    s = one(model, "BecomeCandidate", [2], s)
    req = next(m for m in messages_of(model, s, "VoteRequest") if field(m, "source") == 1)
    s = one(model, "HandleVoteRequest", [req], s)  # 2 voted for itself: refusal
    resp = next(m for m in messages_of(model, s, "VoteResponse") if field(m, "dest") == 1)
    s = one(model, "HandleVoteResponse", [resp], s)
    assert at(model, s, "role", 1) == "Voted"
    assert at(model, s, "votedId", 1) == 1


def follower_of_1(model: Model) -> State:
    """Replica 1 leads epoch 1; replica 2 accepted its BeginQuorumEpoch."""
    s = elect(model, init(model))
    s = one(model, "SendBeginQuorumEpoch", [1, 2], s)
    bqe = messages_of(model, s, "BeginQuorumEpochRequest")[0]
    s = one(model, "HandleBeginQuorumEpochRequest", [bqe], s)
    assert at(model, s, "role", 2) == "Follower" and at(model, s, "leaderId", 2) == 1
    return s


def fetch(model: Model, s: State, follower: int = 2, leader: int = 1) -> tuple[State, Fn]:
    s = one(model, "SendFetchRequest", [follower, leader], s)
    req = next(m for m in messages_of(model, s, "FetchRequest")
               if field(m, "source") == follower and field(m, "fetchOffset") == len(at(model, s, "log", follower)))  # type: ignore[arg-type]
    return s, req


def test_fetch_replicates_then_the_high_watermark_advances_on_a_majority(model: Model) -> None:
    s = follower_of_1(model)
    s, req = fetch(model, s)
    s = one(model, "HandleFetchRequest", [req], s)
    resp = messages_of(model, s, "FetchResponse")[0]
    assert field(resp, "records") == (entry(1),) and field(resp, "highWatermark") == 0
    assert at(model, s, "endorsers", 1) == frozenset({2})  # endorsement inferred from the Fetch
    s = one(model, "HandleFetchResponse", [resp], s)
    assert at(model, s, "log", 2) == (entry(1),)
    s, req2 = fetch(model, s)
    s = one(model, "HandleFetchRequest", [req2], s)
    assert at(model, s, "highWatermark", 1) == 1
    assert var(model, s, "committed") == frozenset({(0, entry(1), 1)})
    resp2 = next(m for m in messages_of(model, s, "FetchResponse") if field(m, "fetchOffset") == 1)
    s = one(model, "HandleFetchResponse", [resp2], s)
    assert at(model, s, "highWatermark", 2) == 1
    # the high watermark is volatile: a restart forgets it, the committed log stays
    s = one(model, "Restart", [2], s)
    assert at(model, s, "highWatermark", 2) == 0 and at(model, s, "log", 2) == (entry(1),)


def test_stale_fetch_response_is_ignored(model: Model) -> None:
    s = follower_of_1(model)
    s, req = fetch(model, s)
    s = one(model, "HandleFetchRequest", [req], s)
    resp = messages_of(model, s, "FetchResponse")[0]
    s = one(model, "HandleFetchResponse", [resp], s)
    again = one(model, "HandleFetchResponse", [resp], s)  # duplicate delivery
    assert at(model, again, "log", 2) == (entry(1),)


def diverged(model: Model) -> State:
    """Replica 2 leads epoch 2 with [LC(2)]; replica 1 (old leader of epoch 1, log [LC(1)])
    follows it and fetches with FetchOffset 1, LastFetchedEpoch 1."""
    s = elect(model, init(model), leader=1, voter=3)
    s = one(model, "BecomeCandidate", [2], s)
    s = one(model, "BecomeCandidate", [2], s)
    req = next(m for m in messages_of(model, s, "VoteRequest") if field(m, "source") == 2
               and field(m, "dest") == 3 and field(m, "epoch") == 2)
    s = one(model, "HandleVoteRequest", [req], s)
    resp = next(m for m in messages_of(model, s, "VoteResponse") if field(m, "dest") == 2 and field(m, "epoch") == 2)
    s = one(model, "HandleVoteResponse", [resp], s)
    assert at(model, s, "role", 2) == "Leader"
    s = one(model, "SendBeginQuorumEpoch", [2, 1], s)
    bqe = next(m for m in messages_of(model, s, "BeginQuorumEpochRequest") if field(m, "source") == 2)
    s = one(model, "HandleBeginQuorumEpochRequest", [bqe], s)
    assert at(model, s, "role", 1) == "Follower" and at(model, s, "leaderId", 1) == 2
    return s


def test_leader_answers_a_diverging_fetch_with_the_diverging_epoch(model: Model) -> None:
    s = diverged(model)
    s, req = fetch(model, s, follower=1, leader=2)
    assert field(req, "lastFetchedEpoch") == 1 and field(req, "fetchOffset") == 1
    s = one(model, "HandleFetchRequest", [req], s)
    resp = next(m for m in messages_of(model, s, "FetchResponse") if field(m, "dest") == 1)
    assert field(resp, "divergingEpoch") == 0 and field(resp, "divergingEndOffset") == 0
    assert field(resp, "records") == ()
    assert at(model, s, "replicaEndOffset", 2) == at(model, diverged(model), "replicaEndOffset", 2)
    s = one(model, "HandleFetchResponse", [resp], s)
    assert at(model, s, "log", 1) == ()


def test_without_truncation_the_follower_keeps_its_diverging_log() -> None:
    model = load(TruncateOnDivergence=False)
    s = diverged(model)
    s, req = fetch(model, s, follower=1, leader=2)
    s = one(model, "HandleFetchRequest", [req], s)
    resp = next(m for m in messages_of(model, s, "FetchResponse") if field(m, "dest") == 1)
    s = one(model, "HandleFetchResponse", [resp], s)
    assert at(model, s, "log", 1) == (entry(1),)


def test_begin_quorum_epoch_from_a_second_leader_of_the_epoch_is_rejected(model: Model) -> None:
    s = follower_of_1(model)
    forged = make_record([*((k, v) for k, v in messages_of(model, s, "BeginQuorumEpochRequest")[0].map.items()
                            if k != "source"), ("source", 3)])
    s = replace(model, s, messages=var(model, s, "messages") | {forged})  # type: ignore[operator]
    s2 = one(model, "HandleBeginQuorumEpochRequest", [forged], s)
    assert at(model, s2, "leaderId", 2) == 1
    reply = next(m for m in messages_of(model, s2, "BeginQuorumEpochResponse") if field(m, "dest") == 3)
    assert field(reply, "errorCode") == "INVALID_QUORUM_STATE"
    lax = load(RejectConflictingLeader=False)
    s3 = one(lax, "HandleBeginQuorumEpochRequest", [forged], s)
    assert at(lax, s3, "leaderId", 2) == 3


def test_foreign_cluster_id_is_rejected_without_a_state_change() -> None:
    model = load(ForeignRequests=frozenset({"VoteRequest", "FetchRequest", "BeginQuorumEpochRequest"}))
    s = init(model)
    for t, handler, response in (("VoteRequest", "HandleVoteRequest", "VoteResponse"),
                                 ("FetchRequest", "HandleFetchRequest", "FetchResponse"),
                                 ("BeginQuorumEpochRequest", "HandleBeginQuorumEpochRequest",
                                  "BeginQuorumEpochResponse")):
        s1 = one(model, "SendForeignRequest", [3, 1, t], s)
        req = messages_of(model, s1, t)[0]
        assert field(req, "clusterId") == "other"
        s2 = one(model, handler, [req], s1)
        reply = messages_of(model, s2, response)[0]
        assert field(reply, "errorCode") == "INVALID_CLUSTER_ID"
        assert replace(model, s2, messages=var(model, s1, "messages")) == s1
        # the INVALID_CLUSTER_ID answer is ignored by the replica that shares the id
        if response != "VoteResponse":
            handle = "Handle" + response
            assert one(model, handle, [reply], s2) == s2


def test_no_foreign_request_unless_a_type_is_enabled(model: Model) -> None:
    assert list(model.action_successors("SendForeignRequest", [3, 1, "VoteRequest"], init(model))) == []


def test_end_quorum_epoch_lists_successors_by_replicated_offset(model: Model) -> None:
    s = follower_of_1(model)
    zeros = per_replica({1: 0, 2: 0, 3: 0})
    s = replace(model, s, replicaEndOffset=per_replica({1: per_replica({1: 0, 2: 0, 3: 1}), 2: zeros, 3: zeros}))
    s = one(model, "Resign", [1], s)
    assert at(model, s, "role", 1) == "Resigned"
    eqe = messages_of(model, s, "EndQuorumEpochRequest")
    assert sorted(field(m, "dest") for m in eqe) == [2, 3]
    assert all(field(m, "preferredSuccessors") == (3, 2) for m in eqe)
    # a voter that is not listed answers INCONSISTENT_VOTER_SET; a listed one takes no step
    s2 = one(model, "HandleEndQuorumEpochRequest", [eqe[0]], s)
    reply = messages_of(model, s2, "EndQuorumEpochResponse")[0]
    assert field(reply, "errorCode") == ""


def test_high_watermark_needs_an_entry_of_the_leaders_epoch() -> None:
    """Raft's Figure 8 guard: a majority on an older-epoch entry does not commit it."""
    for rule, expected in ((True, 0), (False, 1)):
        model = load(CommitRequiresCurrentEpoch=rule)
        s = follower_of_1(model)
        old = (entry(1), entry(2, "leaderChange", 1))
        # leader 1 now leads epoch 2 with [LC(1), LC(2)]; follower 2 holds [LC(1)]
        s = replace(model, s,
                    currentEpoch=per_replica({1: 2, 2: 2, 3: 0}),
                    log=per_replica({1: old, 2: (entry(1),), 3: ()}),
                    elections=frozenset({(1, 1), (2, 1)}))
        s, req = fetch(model, s)
        assert field(req, "fetchOffset") == 1
        succs = list(model.action_successors("HandleFetchRequest", [req], s))
        assert succs, "the fetch must be handled"
        assert {at(model, t, "highWatermark", 1) for t in succs} == {expected}


def test_fetch_offset_beyond_the_end_of_its_epoch_diverges(model: Model) -> None:
    """The leader holds epoch 1 only up to offset 1; a follower with two epoch-1 entries
    fetching at offset 2 is told to truncate to offset 1."""
    s = follower_of_1(model)
    stale = make_record([("epoch", 1), ("kind", "data"), ("value", 1)])
    s = replace(model, s,
                currentEpoch=per_replica({1: 2, 2: 2, 3: 0}),
                log=per_replica({1: (entry(1), entry(2)), 2: (entry(1), stale), 3: ()}),
                elections=frozenset({(1, 1), (2, 1)}))
    s, req = fetch(model, s)
    assert (field(req, "fetchOffset"), field(req, "lastFetchedEpoch")) == (2, 1)
    s = one(model, "HandleFetchRequest", [req], s)
    resp = next(m for m in messages_of(model, s, "FetchResponse") if field(m, "dest") == 2)
    assert (field(resp, "divergingEpoch"), field(resp, "divergingEndOffset")) == (1, 1)
    s = one(model, "HandleFetchResponse", [resp], s)
    assert at(model, s, "log", 2) == (entry(1),)


def test_high_watermark_waits_until_the_truncated_log_is_known_to_match(model: Model) -> None:
    """A follower without an entry of the diverging epoch truncates but keeps its high
    watermark: its shorter log may still diverge from the leader's."""
    s = follower_of_1(model)
    own = make_record([("epoch", 3), ("kind", "data"), ("value", 1)])
    s = replace(model, s,
                currentEpoch=per_replica({1: 4, 2: 4, 3: 0}),
                log=per_replica({1: (entry(1), entry(2), entry(4)), 2: (entry(1), own), 3: ()}),
                highWatermark=per_replica({1: 3, 2: 0, 3: 0}),
                elections=frozenset({(1, 1), (2, 1), (3, 1), (4, 1)}))
    s, req = fetch(model, s)
    assert (field(req, "fetchOffset"), field(req, "lastFetchedEpoch")) == (2, 3)
    s = one(model, "HandleFetchRequest", [req], s)
    resp = next(m for m in messages_of(model, s, "FetchResponse") if field(m, "dest") == 2)
    assert (field(resp, "divergingEpoch"), field(resp, "divergingEndOffset"), field(resp, "highWatermark")) == (2, 2, 3)
    s = one(model, "HandleFetchResponse", [resp], s)
    assert at(model, s, "log", 2) == (entry(1),)
    assert at(model, s, "highWatermark", 2) == 0
