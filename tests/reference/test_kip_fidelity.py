"""The reference replica where it follows a KIP-595 sentence the spec once departed from, or
where it departs from the KIP as spec/README.md ("KIP fidelity") states and Kafka does."""

from __future__ import annotations

import random
from pathlib import Path

from reference.core.config import QuorumConfig
from reference.core.messages import NIL
from reference.core.replica import ClientAppend, Replica, Tick
from reference.sim.simulator import SimConfig, run_seed
from reference.storage.base import QuorumState
from tests.reference.helpers import CLUSTER, deliver, fire, make_leader, make_replica, msg, only

SPEC = Path(__file__).resolve().parents[2] / "spec" / "KRaft.tla"


def test_single_voter_leader_commits_its_own_appends() -> None:
    """(f) A one-voter quorum: no Fetch ever arrives, the leader's own log end is a majority."""
    r = make_replica(1, config=QuorumConfig(voters=frozenset({1})), replicas=(1,))
    assert fire(r).action == "BecomeCandidate" and r.role == "Leader"
    assert r.high_watermark == 0
    ready = fire(r)
    assert (ready.action, ready.params) == ("AdvanceHighWatermark", {"i": 1})
    assert r.high_watermark == 1 and not ready.messages
    r.step(ClientAppend(7), r.now)
    assert fire(r).action == "AdvanceHighWatermark" and r.high_watermark == 2


def test_three_voter_leader_never_advances_without_a_fetch() -> None:
    """(f) With followers, the leader's own append is not a majority: no step is due."""
    r = make_leader(1)
    assert not r.leader_high_watermark_due()
    for _ in range(5):
        assert fire(r).action != "AdvanceHighWatermark"


def test_two_voter_refused_candidate_backs_off_at_most_the_backoff_max() -> None:
    """(g) "The candidate in this case can immediately step down and backoff", bounded by
    quorum.election.backoff.max.ms, not a whole election timeout."""
    cfg = QuorumConfig(voters=frozenset({1, 2}), election_timeout_ms=5000, election_backoff_max_ms=300)
    for seed in range(1, 20):
        r = make_replica(1, config=cfg, replicas=(1, 2))
        r.rng.seed(seed)
        fire(r)
        refused_at = r.now
        deliver(r, msg("VoteResponse", 2, 1, epoch=1, voteGranted=False))
        assert r.role == "Voted"
        deadline = r.next_deadline()
        assert deadline is not None and deadline - refused_at <= 300
        ready = fire(r)
        assert ready.action == "BecomeCandidate" and r.current_epoch == 2


def test_end_quorum_epoch_rejected_when_the_epochs_leader_is_unknown() -> None:
    """(d) "If the epoch is smaller than the last known epoch, or the leader id is not known
    for this epoch, the request is rejected.\""""
    r = make_replica(2, epoch=4, voted=1)  # voted for 1, never got its BeginQuorumEpoch
    ready = deliver(r, msg("EndQuorumEpochRequest", 1, 2, epoch=4, leaderId=1, preferredSuccessors=(2, 3)))
    resp = only(ready)
    assert (resp.errorCode, resp.leaderId, resp.epoch) == ("INVALID_QUORUM_STATE", NIL, 4)
    assert (r.role, r.current_epoch, r.voted_id) == ("Voted", 4, 1)
    assert r.state.election_deadline is not None and r.state.election_deadline > r.now  # no early election


def test_end_quorum_epoch_of_a_larger_epoch_teaches_its_leader() -> None:
    """(d) A larger epoch is taken with the leader the request names; then it is known."""
    r = make_replica(2, epoch=3)
    resp = only(deliver(r, msg("EndQuorumEpochRequest", 1, 2, epoch=4, leaderId=1, preferredSuccessors=(2, 3))))
    assert resp.errorCode == "" and (r.current_epoch, r.leader_id) == (4, 1)


def test_negative_fetch_position_is_an_invalid_request() -> None:
    """(i) Neither records nor progress for a fetch position no replica can hold."""
    for fields in ({"fetchOffset": -1, "lastFetchedEpoch": 0},
                   {"fetchOffset": 0, "lastFetchedEpoch": -1},
                   {"fetchOffset": 1, "lastFetchedEpoch": 9}):
        r = make_leader(1, log=[(1, 5)])
        ready = deliver(r, msg("FetchRequest", 2, 1, epoch=r.current_epoch, **fields))
        resp = only(ready)
        assert resp.errorCode == "INVALID_REQUEST" and resp.records == ()
        assert r.replica_end_offset[2] == 0 and r.endorsers == set()


def test_null_cluster_id_is_not_validated() -> None:
    """(c) "If the clusterId is not known ... it will specify a clusterId value of 'null' and
    the destination broker will skip validation" (the spec agrees: ClusterIdAccepted)."""
    r = make_replica(2, epoch=1)
    resp = only(deliver(r, msg("VoteRequest", 1, 2, clusterId="", epoch=2, lastOffsetEpoch=0, lastOffset=0)))
    assert resp.errorCode == "" and resp.voteGranted is True


def _observer_following(leader: int = 1) -> Replica:
    return Replica(4, QuorumConfig(voters=frozenset({1, 2, 3}), request_timeout_ms=300), CLUSTER, (1, 2, 3, 4),
                   random.Random(4), quorum_state=QuorumState(leader_id=leader, leader_epoch=2,
                                                              current_voters=(1, 2, 3)))


def test_observer_whose_leader_stops_answering_asks_another_voter() -> None:
    """(h) "Otherwise, retry to the Fetch request again against one of the remaining voters
    at random": after a request timeout the observer's next Fetch goes elsewhere."""
    targets = []
    for seed in range(10):
        r = _observer_following()
        r.rng.seed(seed)
        assert only(fire(r)).dest == 1  # the known leader first
        ready = fire(r)  # no answer: the request times out
        assert ready.action == "SendFetchRequest"
        target = only(ready).dest
        assert target in (2, 3)
        targets.append(target)
        assert (r.role, r.leader_id) == ("Follower", 1)
        # another timeout: not the voter just asked
        assert only(fire(r)).dest != target
    assert set(targets) == {2, 3}


def test_voter_follower_keeps_fetching_its_leader() -> None:
    """(h) A voter follower retries its leader until its fetch timeout starts an election."""
    r = make_replica(2, epoch=2, leader=1)
    dests = []
    while True:
        ready = r.step(Tick(), r.next_deadline() or r.now)
        if ready.action != "SendFetchRequest":
            break
        dests.append(only(ready).dest)
    assert dests and set(dests) == {1} and ready.action == "BecomeCandidate"


def test_check_quorum_resigns_then_stands_after_the_election_timeout() -> None:
    """(a) Documented departure (as Kafka): the leader without fetches from a majority resigns
    (EndQuorumEpoch), then its election timer makes it a candidate of the next epoch."""
    r = make_leader(1)
    epoch = r.current_epoch
    for voter in (2, 3):
        deliver(r, msg("BeginQuorumEpochResponse", voter, 1, epoch=epoch, leaderId=1))
    ready = fire(r)
    assert ready.action == "Resign" and r.role == "Resigned"
    resigned_at = r.now
    ready = fire(r)
    assert ready.action == "BecomeCandidate" and r.current_epoch == epoch + 1
    assert r.now - resigned_at >= r.config.election_timeout_ms


def test_restart_forgets_the_high_watermark() -> None:
    """(b) Documented departure (as Kafka's metadata log): the high watermark is not durable;
    a restarted replica starts at 0 and learns it again."""
    r = make_replica(1, epoch=2, leader=1, log=[(1, 5), (2, 6)])
    assert r.high_watermark == 0 and r.role == "Resigned"


def test_unattached_voter_waits_for_its_election_timeout_without_fetching() -> None:
    """(e) Documented departure (as Kafka): a voter that knows no leader does not fetch from
    random voters; its election timer is its only timer."""
    r = make_replica(2, epoch=3)
    ready = fire(r)
    assert ready.action == "BecomeCandidate" and all(m.type == "VoteRequest" for m in ready.messages)


def test_a_single_voter_simulation_commits_and_conforms(tmp_path: Path) -> None:
    """Single-voter quorums are valid: the simulator runs one (an observer besides, or none),
    the leader commits, and the trace conforms to the spec."""
    from conformance.validate.validator import TraceValidator
    from conformance.validate.verdict import Verdict

    validator = TraceValidator(SPEC)
    for observers in (0, 1):
        result = run_seed(SimConfig(voters=1, observers=observers, steps=300, out_dir=tmp_path / str(observers)), 2)
        assert result.ok and result.stats.commits > 0 and result.trace_path is not None
        assert validator.validate(result.trace_path).verdict is Verdict.ACCEPT
