"""AddVoter, RemoveVoter and UpdateVoter at the leader (KIP-853 "Voter Changes").

One voter change at a time: the leader appends a ``VotersRecord`` holding the new voter set,
which takes effect at once on every replica that has it in its log (committed or not); the
request is answered once that record is committed (``complete_voter_change``, the spec's
``CompleteVoterChange``), and a leader that removed itself resigns then. Preconditions, in
order, with their errors: the cluster id (``INVALID_CLUSTER_ID``); the receiver leads
(``NOT_LEADER_FOR_PARTITION``); kraft.version 1 (``UNSUPPORTED_VERSION``); an offset of the
leader's own epoch committed (``REQUEST_TIMED_OUT``); no voter change uncommitted
(``REQUEST_TIMED_OUT``); AddVoter: the id is not a voter yet (``DUPLICATE_VOTER``),
RemoveVoter / UpdateVoter: the key is a voter (``VOTER_NOT_FOUND``); AddVoter: the new voter
fetched up to the leader's log end with that directory id (``REQUEST_TIMED_OUT``), RemoveVoter:
the voter set does not become empty (``INVALID_REQUEST``).
"""

from __future__ import annotations

from reference.core.handler_context import HandlerContext
from reference.core.messages import (
    ADD_VOTER_REQUEST,
    DUPLICATE_VOTER,
    INVALID_CLUSTER_ID,
    INVALID_REQUEST,
    NIL,
    NONE,
    NOT_LEADER_FOR_PARTITION,
    REMOVE_VOTER_REQUEST,
    REQUEST_TIMED_OUT,
    UNSUPPORTED_VERSION,
    VOTER_CHANGE_RESPONSE,
    VOTER_NOT_FOUND,
    VOTERS_RECORD,
    Entry,
    Message,
)
from reference.core.rpc_common import cluster_id_mismatch, respond
from reference.core.states import LEADER
from reference.core.voter_set import DYNAMIC


def _respond(r: HandlerContext, m: Message, error: str) -> None:
    respond(r, m, VOTER_CHANGE_RESPONSE[m.type], errorCode=error, leaderId=r.leader_id,
            voterId=m.voterId, voterDirectoryId=m.voterDirectoryId)


def change_uncommitted(r: HandlerContext) -> bool:
    """A VotersRecord of the leader's log is not committed, or a request is not answered."""
    if r.pending_voter_changes:
        return True
    latest = r.log.latest_voters()
    return latest is not None and latest[0] >= r.high_watermark


def own_epoch_committed(r: HandlerContext) -> bool:
    """The leader has committed an offset of its own epoch (its LeaderChange record at least)."""
    hw = r.high_watermark
    return hw > 0 and r.log.epoch_at(hw - 1) == r.current_epoch


def caught_up(r: HandlerContext, voter_id: int, directory_id: int) -> bool:
    """The new voter's last accepted Fetch came from that directory and reached the log end."""
    return (r.replica_directory_id.get(voter_id) == directory_id
            and r.replica_end_offset.get(voter_id, 0) >= r.log.end_offset)


def refusal(r: HandlerContext, m: Message) -> str | None:
    """The error a voter-change request gets, or ``None`` when the change may be appended."""
    if cluster_id_mismatch(r, m):
        return INVALID_CLUSTER_ID
    if r.role != LEADER:
        return NOT_LEADER_FOR_PARTITION
    if r.kraft_version != DYNAMIC:
        return UNSUPPORTED_VERSION
    if not own_epoch_committed(r) and "change-before-epoch-commit" not in r.bugs:
        return REQUEST_TIMED_OUT
    if change_uncommitted(r) and "two-uncommitted-changes" not in r.bugs:
        return REQUEST_TIMED_OUT
    key = (m.voterId, m.voterDirectoryId)
    if m.type == ADD_VOTER_REQUEST:
        if m.voterId in r.voters:
            return DUPLICATE_VOTER
        if not caught_up(r, m.voterId, m.voterDirectoryId):
            return REQUEST_TIMED_OUT
        return None
    if key not in r.voter_set.keys:
        return VOTER_NOT_FOUND
    if m.type == REMOVE_VOTER_REQUEST and r.voter_set.keys == {key}:
        return INVALID_REQUEST
    return None


def handle_voter_change_request(r: HandlerContext, m: Message) -> None:
    """Refuse with the first failed precondition, or append the VotersRecord and keep the
    request until the record commits."""
    error = refusal(r, m)
    if error is not None:
        _respond(r, m, error)
        return
    key = (m.voterId, m.voterDirectoryId)
    keys = r.voter_set.keys
    if m.type == ADD_VOTER_REQUEST:
        keys = keys | {key}
    elif m.type == REMOVE_VOTER_REQUEST:
        keys = keys - {key}
    r.append_entries([Entry(r.current_epoch, VOTERS_RECORD, NIL, voters=keys)])
    r.pending_voter_changes.append(m)


def complete_voter_change(r: HandlerContext) -> None:
    """``CompleteVoterChange``: the latest VotersRecord is committed; answer every pending
    request, and resign if this leader is no longer a voter."""
    r.set_action("CompleteVoterChange", {"i": r.id})
    pending = r.pending_voter_changes
    r.pending_voter_changes = []
    for m in pending:
        _respond(r, m, NONE)
    if not r.is_voter:
        r.step_down()


def handle_update_voter_response(r: HandlerContext, m: Message) -> None:
    """Like an EndQuorumEpoch response: only a larger epoch or an unknown leader matters."""
    if m.errorCode != INVALID_CLUSTER_ID:
        r.learn_from_response(m)
