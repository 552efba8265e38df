"""Vote request and response handling (KIP-595 "Vote Request/Response Handling")."""

from __future__ import annotations

from reference.core.handler_context import HandlerContext
from reference.core.messages import (
    FENCED_LEADER_EPOCH,
    INVALID_CLUSTER_ID,
    INVALID_VOTER_KEY,
    NIL,
    NONE,
    VOTE_RESPONSE,
    Message,
)
from reference.core.rpc_common import cluster_id_mismatch, respond
from reference.core.states import CANDIDATE
from reference.core.voter_set import DYNAMIC


def _respond(r: HandlerContext, m: Message, granted: bool, error: str = NONE) -> None:
    respond(r, m, VOTE_RESPONSE, errorCode=error, leaderId=r.leader_id, voteGranted=granted)


def handle_vote_request(r: HandlerContext, m: Message) -> None:
    """KIP-595 Vote Request Handling: cluster id, then epoch; a larger epoch is taken
    first; at most one vote per epoch, to a voter whose log is at least as up-to-date.

    With a dynamic quorum (KIP-853) a request addressed to another directory id of this
    replica's id is refused (``INVALID_VOTER_KEY``: this replica is not that voter), and
    KIP-595's rule that only voters vote, for voters, is reversed: the receiver answers a
    candidate outside its voter set, and answers also when it is not in that set itself."""
    if cluster_id_mismatch(r, m):
        _respond(r, m, False, INVALID_CLUSTER_ID)
        return
    dynamic = r.kraft_version == DYNAMIC
    if dynamic and m.voterDirectoryId != r.directory_id and "vote-ignores-directory-id" not in r.bugs:
        _respond(r, m, False, INVALID_VOTER_KEY)
        return
    if m.epoch < r.current_epoch:
        _respond(r, m, False, FENCED_LEADER_EPOCH)
        return
    if m.epoch > r.current_epoch:
        r.transition_to_unattached(m.epoch)
    may_vote = dynamic or r.is_voter or "observer-votes" in r.bugs
    if not may_vote or (not dynamic and m.source not in r.voters):
        _respond(r, m, False)
        return
    if r.voted_id == m.source:
        _respond(r, m, True)
        return
    log_ok = "vote-without-log-check" in r.bugs or r.log.is_up_to_date(m.lastOffsetEpoch, m.lastOffset)
    if r.voted_id == NIL and r.leader_id == NIL and log_ok:
        r.transition_to_voted(m.source)
        r.voted_directory_id = m.sourceDirectoryId
        _respond(r, m, True)
        return
    _respond(r, m, False)


def handle_vote_response(r: HandlerContext, m: Message) -> None:
    """Learn a larger epoch or the leader; a candidate of the epoch counts granted votes
    of voters, and a majority makes it leader."""
    if r.learn_from_response(m):
        return
    if r.role != CANDIDATE or m.epoch != r.current_epoch:
        return
    counting = r.counting_voter_set()
    counts = m.source in counting.ids or "observer-votes" in r.bugs
    if m.voteGranted and counts:
        r.votes_granted.add(m.source)
        if len(r.votes_granted) >= counting.majority:
            r.become_leader()
    elif not m.voteGranted and len(counting.ids) == 2:
        r.step_down_to_voted()
