"""What a replica acknowledges (epoch, vote, fetch offset, a leader's high watermark), what a
truncation releases, and the checks of a recovered folder, on hand-made cases."""

from __future__ import annotations

from reference.core.messages import DATA, FETCH_REQUEST, VOTE_REQUEST, VOTE_RESPONSE, Entry, Message
from reference.core.quorum_state import QuorumState
from reference.core.states import FOLLOWER, LEADER
from reference.crashfs.acknowledged import AcknowledgedState, Promise, broken_promises

A, B, C, X = Entry(1, DATA, 1), Entry(1, DATA, 2), Entry(2, DATA, 3), Entry(2, DATA, 9)


def _names(promise: Promise, acks: AcknowledgedState, log: list[Entry], state: QuorumState | None) -> list[str]:
    return [name for name, _ in broken_promises(promise, acks.held, log, state)]


def test_a_fetch_offset_acknowledges_the_log_prefix_and_a_truncation_releases_it() -> None:
    acks = AcknowledgedState()
    acks.apply_log_ops([("append", (A, B, C))])
    acks.after_send(2, [Message(FETCH_REQUEST, 2, 1, epoch=2, fetchOffset=2)], FOLLOWER, 0)
    assert (acks.promise.epoch, acks.promise.log_length) == (2, 2)
    qs = QuorumState(leader_id=1, leader_epoch=2)
    assert _names(acks.promise, acks, [A, B, C], qs) == []
    assert _names(acks.promise, acks, [A, B], qs) == []  # C was never acknowledged
    assert _names(acks.promise, acks, [A], qs) == ["AcknowledgedEntryLost"]
    assert _names(acks.promise, acks, [A, B], QuorumState(leader_epoch=1)) == ["AcknowledgedEpochLost"]
    window = acks.promise
    acks.apply_log_ops([("truncate", 1), ("append", (X,))])
    assert acks.promise.log_length == 1
    assert acks.released(window, [("truncate", 1)]).log_length == 1
    assert _names(acks.promise, acks, [A], qs) == []
    assert _names(acks.promise, acks, [A, X], qs) == []
    assert _names(acks.promise, acks, [A, B, X], qs) == ["RecoveredLogNeverHeld"]  # a mix of two logs
    assert _names(acks.promise, acks, [A, Entry(2, DATA, 0)], qs) == ["RecoveredLogNeverHeld"]  # never written


def test_a_leader_acknowledges_its_log_up_to_its_high_watermark() -> None:
    acks = AcknowledgedState([A, B])
    acks.after_send(1, [], LEADER, 1)
    assert acks.promise.log_length == 1
    acks.after_send(1, [], FOLLOWER, 2)  # a follower's high watermark is the leader's word, not its own
    assert acks.promise.log_length == 1


def test_a_granted_vote_and_a_candidacy_bind_the_vote_of_their_epoch() -> None:
    acks = AcknowledgedState()
    acks.after_send(3, [Message(VOTE_RESPONSE, 3, 1, epoch=4, voteGranted=True),
                        Message(VOTE_RESPONSE, 3, 2, epoch=4, voteGranted=False)], FOLLOWER, 0)
    assert acks.promise.vote == (4, 1)
    assert _names(acks.promise, acks, [], QuorumState(leader_epoch=4, voted_id=1)) == []
    assert _names(acks.promise, acks, [], QuorumState(leader_epoch=5)) == []  # a later epoch
    assert _names(acks.promise, acks, [], QuorumState(leader_epoch=4)) == ["AcknowledgedVoteLost"]
    assert _names(acks.promise, acks, [], QuorumState(leader_epoch=4, voted_id=2)) == ["AcknowledgedVoteLost"]
    assert "AcknowledgedVoteLost" in _names(acks.promise, acks, [], QuorumState(leader_epoch=3))
    acks.after_send(3, [Message(VOTE_REQUEST, 3, 1, epoch=5)], FOLLOWER, 0)
    assert acks.promise.vote == (5, 3)  # its own candidacy
