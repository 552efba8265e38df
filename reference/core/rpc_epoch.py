"""BeginQuorumEpoch and EndQuorumEpoch handling (KIP-595)."""

from __future__ import annotations

from reference.core.handler_context import HandlerContext
from reference.core.messages import (
    BEGIN_QUORUM_EPOCH_RESPONSE,
    END_QUORUM_EPOCH_RESPONSE,
    FENCED_LEADER_EPOCH,
    INCONSISTENT_VOTER_SET,
    INVALID_CLUSTER_ID,
    INVALID_QUORUM_STATE,
    INVALID_VOTER_KEY,
    NIL,
    NONE,
    Message,
)
from reference.core.rpc_common import cluster_id_mismatch, respond
from reference.core.states import FOLLOWER, LEADER, UNATTACHED, VOTED
from reference.core.voter_set import DYNAMIC


def _respond(r: HandlerContext, m: Message, kind: str, error: str = NONE) -> None:
    respond(r, m, kind, errorCode=error, leaderId=r.leader_id)


def handle_begin_quorum_epoch_request(r: HandlerContext, m: Message) -> None:
    """Accept the sender as leader of an epoch >= ours unless another leader is known
    for that epoch (then INVALID_QUORUM_STATE)."""
    if cluster_id_mismatch(r, m):
        _respond(r, m, BEGIN_QUORUM_EPOCH_RESPONSE, INVALID_CLUSTER_ID)
        return
    if r.kraft_version == DYNAMIC and m.voterDirectoryId != r.directory_id:
        _respond(r, m, BEGIN_QUORUM_EPOCH_RESPONSE, INVALID_VOTER_KEY)
        return
    if m.epoch < r.current_epoch:
        _respond(r, m, BEGIN_QUORUM_EPOCH_RESPONSE, FENCED_LEADER_EPOCH)
        return
    if m.epoch > r.current_epoch:
        r.observe_epoch(m.epoch, m.source)
    elif r.leader_id == NIL:
        r.transition_to_follower(m.epoch, m.source)
    elif r.leader_id != m.source:
        _respond(r, m, BEGIN_QUORUM_EPOCH_RESPONSE, INVALID_QUORUM_STATE)
        return
    _respond(r, m, BEGIN_QUORUM_EPOCH_RESPONSE)


def handle_begin_quorum_epoch_response(r: HandlerContext, m: Message) -> None:
    """Record the endorsement of the current epoch; a larger epoch demotes the leader."""
    if m.errorCode == INVALID_CLUSTER_ID or r.learn_from_response(m):
        return
    if m.errorCode == NONE and r.role == LEADER and m.epoch == r.current_epoch:
        r.endorse(m.source)


def handle_end_quorum_epoch_request(r: HandlerContext, m: Message) -> None:
    """The leader of the epoch resigns: a receiver that knows another leader (or none) for
    that epoch refuses (INVALID_QUORUM_STATE); its preferred successors start elections, the
    first at once and the one at position N after the KIP's successor delay (each
    election is a later ``BecomeCandidate`` step)."""
    if cluster_id_mismatch(r, m):
        _respond(r, m, END_QUORUM_EPOCH_RESPONSE, INVALID_CLUSTER_ID)
        return
    if m.epoch < r.current_epoch:
        _respond(r, m, END_QUORUM_EPOCH_RESPONSE, FENCED_LEADER_EPOCH)
        return
    if m.epoch > r.current_epoch:
        r.observe_epoch(m.epoch, m.leaderId)
    elif r.leader_id != m.leaderId:  # KIP-595: "or the leader id is not known for this epoch"
        _respond(r, m, END_QUORUM_EPOCH_RESPONSE, INVALID_QUORUM_STATE)
        return
    if r.id not in m.preferredSuccessors:
        _respond(r, m, END_QUORUM_EPOCH_RESPONSE, INCONSISTENT_VOTER_SET)
        return
    if r.role in (FOLLOWER, UNATTACHED, VOTED):
        position = 0 if "no-successor-backoff" in r.bugs else m.preferredSuccessors.index(r.id)
        r.schedule_election(r.config.successor_backoff_ms(position))
    _respond(r, m, END_QUORUM_EPOCH_RESPONSE)


def handle_end_quorum_epoch_response(r: HandlerContext, m: Message) -> None:
    """Best effort: only a larger epoch or an unknown leader matters."""
    if m.errorCode != INVALID_CLUSTER_ID:
        r.learn_from_response(m)
