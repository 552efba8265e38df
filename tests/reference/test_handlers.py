"""Unit tests of each handler against the rules of KIP-595 (and spec/VOCABULARY.md)."""

from __future__ import annotations

from reference.core.messages import LEADER_CHANGE, NIL, Entry
from reference.core.replica import Shutdown, Tick
from tests.reference.helpers import CLUSTER, deliver, fire, make_leader, make_replica, msg, only

# -- Vote ---------------------------------------------------------------------------

def test_vote_granted_to_up_to_date_candidate_and_persisted() -> None:
    r = make_replica(2, epoch=1, log=[(1, 7)])
    ready = deliver(r, msg("VoteRequest", 1, 2, epoch=2, lastOffsetEpoch=1, lastOffset=1))
    resp = only(ready)
    assert ready.action == "HandleVoteRequest"
    assert resp.type == "VoteResponse" and resp.voteGranted and resp.epoch == 2
    assert (r.role, r.voted_id, r.current_epoch) == ("Voted", 1, 2)
    assert ready.quorum_state is not None and ready.quorum_state.voted_id == 1
    assert ready.quorum_state.leader_epoch == 2


def test_vote_rejected_when_candidate_log_is_behind() -> None:
    r = make_replica(2, epoch=1, log=[(1, 7), (1, 8)])
    resp = only(deliver(r, msg("VoteRequest", 1, 2, epoch=2, lastOffsetEpoch=1, lastOffset=1)))
    assert not resp.voteGranted
    # the larger epoch is still taken
    assert (r.current_epoch, r.voted_id, r.role) == (2, NIL, "Unattached")


def test_vote_rejected_when_last_epoch_is_older_even_if_longer() -> None:
    r = make_replica(2, epoch=2, log=[(2, 7)])
    resp = only(deliver(r, msg("VoteRequest", 1, 2, epoch=3, lastOffsetEpoch=1, lastOffset=5)))
    assert not resp.voteGranted


def test_vote_without_log_check_bug_grants_anyway() -> None:
    r = make_replica(2, epoch=1, log=[(1, 7), (1, 8)], bugs=frozenset({"vote-without-log-check"}))
    assert only(deliver(r, msg("VoteRequest", 1, 2, epoch=2, lastOffsetEpoch=1, lastOffset=1))).voteGranted


def test_one_vote_per_epoch_but_repeat_for_same_candidate() -> None:
    r = make_replica(2, epoch=1)
    assert only(deliver(r, msg("VoteRequest", 1, 2, epoch=2, lastOffsetEpoch=0, lastOffset=0))).voteGranted
    assert not only(deliver(r, msg("VoteRequest", 3, 2, epoch=2, lastOffsetEpoch=0, lastOffset=0))).voteGranted
    ready = deliver(r, msg("VoteRequest", 1, 2, epoch=2, lastOffsetEpoch=0, lastOffset=0))
    assert only(ready).voteGranted and ready.quorum_state is None


def test_vote_with_stale_epoch_rejected() -> None:
    r = make_replica(2, epoch=5)
    resp = only(deliver(r, msg("VoteRequest", 1, 2, epoch=4, lastOffsetEpoch=0, lastOffset=0)))
    assert not resp.voteGranted and resp.epoch == 5 and r.current_epoch == 5
    assert resp.errorCode == "FENCED_LEADER_EPOCH"


def test_vote_wrong_cluster_rejected_without_state_change() -> None:
    r = make_replica(2, epoch=1)
    resp = only(deliver(r, msg("VoteRequest", 1, 2, epoch=3, lastOffsetEpoch=0, lastOffset=0, clusterId="other")))
    assert resp.errorCode == "INVALID_CLUSTER_ID" and not resp.voteGranted
    assert r.current_epoch == 1


def test_observer_and_non_voter_candidate_never_get_or_give_votes() -> None:
    observer = make_replica(4, epoch=1)
    assert not only(deliver(observer, msg("VoteRequest", 1, 4, epoch=2, lastOffsetEpoch=0, lastOffset=0))).voteGranted
    voter = make_replica(2, epoch=1)
    assert not only(deliver(voter, msg("VoteRequest", 4, 2, epoch=2, lastOffsetEpoch=0, lastOffset=0))).voteGranted


def test_no_vote_when_leader_known_for_epoch() -> None:
    r = make_replica(2, epoch=2, leader=3)
    assert not only(deliver(r, msg("VoteRequest", 1, 2, epoch=2, lastOffsetEpoch=5, lastOffset=9))).voteGranted


# -- elections -------------------------------------------------------------------------

def test_election_timeout_makes_candidate_with_durable_self_vote() -> None:
    r = make_replica(1, epoch=3, log=[(2, 1), (3, 2)])
    ready = fire(r)
    assert ready.action == "BecomeCandidate" and ready.params == {"i": 1}
    assert (r.role, r.current_epoch, r.voted_id, r.votes_granted) == ("Candidate", 4, 1, {1})
    assert ready.quorum_state is not None and ready.quorum_state.voted_id == 1
    reqs = sorted(ready.messages, key=lambda m: m.dest)
    assert [m.dest for m in reqs] == [2, 3]
    assert all((m.epoch, m.lastOffsetEpoch, m.lastOffset) == (4, 3, 2) for m in reqs)


def test_election_timeout_bounded_by_backoff_max() -> None:
    for seed in range(1, 30):
        r = make_replica(seed % 3 + 1)
        r.rng.seed(seed)
        r.state = r._new_unattached_state()
        deadline = r.next_deadline()
        assert deadline is not None
        assert 500 <= deadline <= 500 + 200


def test_majority_makes_leader_with_leader_change_record() -> None:
    r = make_leader(1, log=[(1, 5)])
    assert r.current_epoch == 2 and r.leader_id == 1
    assert r.log.entries[-1] == Entry(2, LEADER_CHANGE, 1)
    assert r.endorsers == set() and set(r.replica_end_offset.values()) == {0}


def test_vote_response_of_old_epoch_ignored() -> None:
    r = make_replica(1, epoch=1)
    fire(r)
    deliver(r, msg("VoteResponse", 2, 1, epoch=1, voteGranted=True))
    assert r.role == "Candidate" and r.votes_granted == {1}


def test_vote_response_with_larger_epoch_demotes_candidate() -> None:
    r = make_replica(1, epoch=1)
    fire(r)
    deliver(r, msg("VoteResponse", 2, 1, epoch=7, leaderId=3, voteGranted=False))
    assert (r.role, r.current_epoch, r.leader_id, r.voted_id) == ("Follower", 7, 3, NIL)


def test_two_voter_refusal_steps_down_to_voted() -> None:
    from reference.core.config import QuorumConfig

    cfg = QuorumConfig(voters=frozenset({1, 2}))
    r = make_replica(1, config=cfg, replicas=(1, 2))
    fire(r)
    deliver(r, msg("VoteResponse", 2, 1, epoch=1, voteGranted=False))
    assert (r.role, r.voted_id, r.current_epoch) == ("Voted", 1, 1)


def test_single_voter_wins_at_once() -> None:
    from reference.core.config import QuorumConfig

    r = make_replica(1, config=QuorumConfig(voters=frozenset({1})), replicas=(1,))
    ready = fire(r)
    assert ready.action == "BecomeCandidate" and r.role == "Leader" and not ready.messages


# -- BeginQuorumEpoch -----------------------------------------------------------------------

def test_begin_quorum_epoch_makes_follower_and_keeps_vote_of_same_epoch() -> None:
    r = make_replica(2, epoch=3, voted=1)
    ready = deliver(r, msg("BeginQuorumEpochRequest", 1, 2, epoch=3))
    assert (r.role, r.leader_id, r.voted_id) == ("Follower", 1, 1)
    assert only(ready).errorCode == "" and ready.quorum_state is not None


def test_begin_quorum_epoch_stale_is_fenced() -> None:
    r = make_replica(2, epoch=3)
    resp = only(deliver(r, msg("BeginQuorumEpochRequest", 1, 2, epoch=2)))
    assert resp.errorCode == "FENCED_LEADER_EPOCH" and r.role == "Unattached"


def test_begin_quorum_epoch_from_second_leader_rejected() -> None:
    r = make_replica(2, epoch=3, leader=1)
    resp = only(deliver(r, msg("BeginQuorumEpochRequest", 3, 2, epoch=3)))
    assert resp.errorCode == "INVALID_QUORUM_STATE" and r.leader_id == 1


def test_begin_quorum_epoch_response_records_endorsement() -> None:
    r = make_leader(1)
    deliver(r, msg("BeginQuorumEpochResponse", 2, 1, epoch=r.current_epoch, leaderId=1))
    assert r.endorsers == {2}


def test_leader_resends_begin_quorum_epoch_until_endorsed() -> None:
    r = make_leader(1)
    sent = []
    for _ in range(4):
        ready = fire(r)
        if ready.action == "SendBeginQuorumEpoch":
            sent.append(ready.params["j"])
    assert sent.count(2) >= 2 and sent.count(3) >= 2


# -- EndQuorumEpoch -------------------------------------------------------------------------

def test_resign_sends_end_quorum_epoch_with_successors_by_progress() -> None:
    r = make_leader(1)
    r.replica_end_offset[3] = 1
    ready = r.step(Shutdown(), r.now)
    assert ready.action == "Shutdown" and r.role == "Resigned"
    assert {m.dest for m in ready.messages} == {2, 3}
    assert all(m.preferredSuccessors == (3, 2) for m in ready.messages)


def test_first_successor_elects_at_once_in_a_separate_step() -> None:
    r = make_replica(2, epoch=4, leader=1)
    ready = deliver(r, msg("EndQuorumEpochRequest", 1, 2, epoch=4, leaderId=1, preferredSuccessors=(2, 3)))
    assert ready.action == "HandleEndQuorumEpochRequest" and r.role == "Follower"
    ready = fire(r)
    assert ready.action == "BecomeCandidate" and r.current_epoch == 5 and r.now == ready_time(r)


def ready_time(r: object) -> int:
    return r.now  # type: ignore[attr-defined]


def test_second_successor_waits_the_kip_backoff() -> None:
    r = make_replica(3, epoch=4, leader=1)
    deliver(r, msg("EndQuorumEpochRequest", 1, 3, epoch=4, leaderId=1, preferredSuccessors=(2, 3)), now=100)
    assert r.state.election_deadline == 100 + min(400, 20 * 2 ** 0)
    assert r.state.fetch_deadline is None  # type: ignore[attr-defined]


def test_end_quorum_epoch_non_successor_gets_inconsistent_voter_set() -> None:
    r = make_replica(3, epoch=4, leader=1)
    resp = only(deliver(r, msg("EndQuorumEpochRequest", 1, 3, epoch=4, leaderId=1, preferredSuccessors=(2,))))
    assert resp.errorCode == "INCONSISTENT_VOTER_SET"


def test_end_quorum_epoch_response_with_newer_epoch_makes_resigned_follow() -> None:
    r = make_leader(1)
    r.step(Shutdown(), r.now)
    deliver(r, msg("EndQuorumEpochResponse", 2, 1, epoch=r.current_epoch + 1, leaderId=3))
    assert (r.role, r.leader_id) == ("Follower", 3)


def test_check_quorum_resigns_leader_without_fetches() -> None:
    r = make_leader(1)
    start = r.now
    actions: list[str | None] = []
    while "Resign" not in actions and len(actions) < 20:
        actions.append(fire(r).action)
    assert actions[-1] == "Resign" and r.role == "Resigned"
    assert r.now == start + 1000  # quorum.fetch.timeout.ms after winning


def test_check_quorum_keeps_leader_with_majority_fetching() -> None:
    r = make_leader(1)
    end = r.log.end_offset
    for t in range(r.now + 100, r.now + 3000, 100):
        deliver(r, msg("FetchRequest", 2, 1, epoch=r.current_epoch, fetchOffset=end, lastFetchedEpoch=r.current_epoch), now=t)
        while (d := r.next_deadline()) is not None and d <= t:
            assert fire(r).action != "Resign"
    assert r.role == "Leader"


# -- Fetch -------------------------------------------------------------------------------------

def test_fetch_returns_all_entries_and_advances_hw_on_current_epoch() -> None:
    r = make_leader(1, log=[(1, 5)])
    resp = only(deliver(r, msg("FetchRequest", 2, 1, epoch=2, fetchOffset=1, lastFetchedEpoch=1)))
    assert resp.records == (Entry(2, LEADER_CHANGE, 1),) and resp.fetchOffset == 1
    assert r.high_watermark == 0  # follower 2 has 1 entry, entry 0 is of epoch 1
    resp = only(deliver(r, msg("FetchRequest", 2, 1, epoch=2, fetchOffset=2, lastFetchedEpoch=2)))
    assert r.high_watermark == 2 == resp.highWatermark
    assert r.replica_end_offset[2] == 2 and r.endorsers == {2}


def test_hw_not_advanced_on_old_epoch_entry_unless_bug() -> None:
    for bugs, expected in ((frozenset(), 0), (frozenset({"hw-on-old-epoch"}), 1)):
        r = make_leader(1, log=[(1, 5)])
        r.bugs = bugs
        deliver(r, msg("FetchRequest", 2, 1, epoch=2, fetchOffset=1, lastFetchedEpoch=1))
        assert r.high_watermark == expected


def test_observer_fetch_does_not_count_for_hw() -> None:
    r = make_leader(1)
    deliver(r, msg("FetchRequest", 4, 1, epoch=1, fetchOffset=1, lastFetchedEpoch=1))
    assert r.high_watermark == 0 and r.replica_end_offset[4] == 1 and r.endorsers == set()


def test_fetch_diverging_epoch() -> None:
    r = make_leader(1, log=[(1, 5), (1, 6), (3, 7)])  # leader of epoch 4
    resp = only(deliver(r, msg("FetchRequest", 2, 1, epoch=4, fetchOffset=4, lastFetchedEpoch=2)))
    assert (resp.divergingEpoch, resp.divergingEndOffset, resp.records) == (1, 2, ())
    assert r.replica_end_offset[2] == 0


def test_fetch_errors_by_epoch_and_role() -> None:
    leader = make_leader(1)
    e = leader.current_epoch
    assert only(deliver(leader, msg("FetchRequest", 2, 1, epoch=e - 1, fetchOffset=0, lastFetchedEpoch=0))).errorCode == "FENCED_LEADER_EPOCH"
    assert only(deliver(leader, msg("FetchRequest", 2, 1, epoch=e + 1, fetchOffset=0, lastFetchedEpoch=0))).errorCode == "UNKNOWN_LEADER_EPOCH"
    follower = make_replica(2, epoch=e, leader=1)
    resp = only(deliver(follower, msg("FetchRequest", 4, 2, epoch=e, fetchOffset=0, lastFetchedEpoch=0)))
    assert resp.errorCode == "NOT_LEADER_FOR_PARTITION" and resp.leaderId == 1
    assert only(deliver(leader, msg("FetchRequest", 2, 1, epoch=e, fetchOffset=0, lastFetchedEpoch=0, clusterId="x"))).errorCode == "INVALID_CLUSTER_ID"


def _follower_fetch(r: object) -> object:
    ready = fire(r)  # type: ignore[arg-type]
    assert ready.action == "SendFetchRequest"
    return only(ready)


def test_follower_appends_and_takes_hw() -> None:
    r = make_replica(2, epoch=2, leader=1, log=[(1, 5)])
    req = _follower_fetch(r)
    assert (req.fetchOffset, req.lastFetchedEpoch, req.dest) == (1, 1, 2 - 1)  # type: ignore[attr-defined]
    deliver(r, msg("FetchResponse", 1, 2, epoch=2, leaderId=1, highWatermark=2, fetchOffset=1,
                   lastFetchedEpoch=1, records=(Entry(2, LEADER_CHANGE, 1),)))
    assert r.log.end_offset == 2 and r.high_watermark == 2


def test_follower_truncates_on_diverging_epoch_unless_bug() -> None:
    for bugs, end in ((frozenset(), 1), (frozenset({"ignore-diverging-epoch"}), 3)):
        r = make_replica(2, epoch=3, leader=1, log=[(1, 5), (2, 6), (2, 7)], bugs=bugs)
        deliver(r, msg("FetchResponse", 1, 2, epoch=3, leaderId=1, highWatermark=0, fetchOffset=3,
                       lastFetchedEpoch=2, divergingEpoch=1, divergingEndOffset=1))
        assert r.log.end_offset == end


def test_stale_fetch_response_ignored_unless_bug() -> None:
    for bugs, end in ((frozenset(), 1), (frozenset({"accept-stale-fetch"}), 2)):
        r = make_replica(2, epoch=2, leader=1, log=[(1, 5)], bugs=bugs)
        ready = deliver(r, msg("FetchResponse", 1, 2, epoch=2, leaderId=1, highWatermark=0, fetchOffset=0,
                               lastFetchedEpoch=0, records=(Entry(1, "data", 5),)))
        assert ready.action == "HandleFetchResponse"
        assert r.log.end_offset == end


def test_fetch_response_from_newer_epoch_updates_leader() -> None:
    r = make_replica(4, epoch=1, leader=1)
    deliver(r, msg("FetchResponse", 1, 4, epoch=3, leaderId=2, errorCode="FENCED_LEADER_EPOCH"))
    assert (r.current_epoch, r.leader_id, r.role) == (3, 2, "Follower")


def test_observer_discovers_leader_through_fetch_response() -> None:
    r = make_replica(4, epoch=0)
    req = _follower_fetch(r)
    assert req.dest in (1, 2, 3)  # type: ignore[attr-defined]
    deliver(r, msg("FetchResponse", req.dest, 4, epoch=0, leaderId=3, errorCode="NOT_LEADER_FOR_PARTITION"))  # type: ignore[attr-defined]
    assert (r.role, r.leader_id) == ("Follower", 3)


def test_describe_quorum_is_read_only() -> None:
    r = make_leader(1)
    before = r.spec_state()
    d = r.describe_quorum()
    assert d.error_code == "" and d.leader_id == 1 and [v for v, _, _ in d.current_voters] == [1, 2, 3]
    assert r.spec_state() == before
    assert make_replica(2, epoch=1, leader=1).describe_quorum().error_code == "NOT_LEADER_FOR_PARTITION"


# -- restart ------------------------------------------------------------------------------------

def test_restart_roles_from_durable_state() -> None:
    assert make_replica(1, epoch=3, leader=1).role == "Resigned"
    assert make_replica(1, epoch=3, leader=2).role == "Follower"
    assert make_replica(1, epoch=3, voted=2).role == "Voted"
    assert make_replica(1, epoch=3, voted=1).role == "Voted"
    assert make_replica(1, epoch=3).role == "Unattached"
    assert make_replica(1, epoch=3).high_watermark == 0


def test_cluster_id_in_requests() -> None:
    r = make_replica(1, epoch=0)
    assert all(m.clusterId == CLUSTER for m in fire(r).messages)


def test_leader_timer_due_together_with_check_quorum_still_fires() -> None:
    r = make_leader(1)
    state = r.state
    state.check_quorum_deadline = r.now + 10  # type: ignore[attr-defined]
    state.last_fetch_ms = {2: r.now + 5}  # type: ignore[attr-defined]
    state.begin_epoch_due = {3: r.now + 10}  # type: ignore[attr-defined]
    ready = r.step(Tick(), r.now + 10)
    assert ready.action == "SendBeginQuorumEpoch" and ready.params == {"i": 1, "j": 3}
    assert r.role == "Leader"


def test_response_of_current_epoch_teaches_unknown_leader() -> None:
    r = make_replica(1, epoch=1)
    fire(r)  # candidate of epoch 2
    deliver(r, msg("VoteResponse", 2, 1, epoch=2, leaderId=3, voteGranted=False))
    assert (r.role, r.leader_id, r.voted_id, r.current_epoch) == ("Follower", 3, 1, 2)


def test_end_quorum_epoch_of_larger_epoch_follows_resigning_leader() -> None:
    r = make_replica(2, epoch=3)
    resp = only(deliver(r, msg("EndQuorumEpochRequest", 1, 2, epoch=5, leaderId=1, preferredSuccessors=(2, 3))))
    assert (r.current_epoch, r.leader_id, r.role) == (5, 1, "Follower")
    assert resp.errorCode == "" and (resp.epoch, resp.leaderId) == (5, 1)


def test_foreign_cluster_requests_change_nothing() -> None:
    for kind, fields in (("BeginQuorumEpochRequest", {}), ("FetchRequest", {"fetchOffset": 0, "lastFetchedEpoch": 0}),
                         ("EndQuorumEpochRequest", {"leaderId": 1, "preferredSuccessors": (2,)})):
        r = make_replica(2, epoch=3, leader=1)
        before = r.spec_state()
        resp = only(deliver(r, msg(kind, 3, 2, epoch=9, clusterId="foreign", **fields)))
        assert resp.errorCode == "INVALID_CLUSTER_ID" and r.spec_state() == before
