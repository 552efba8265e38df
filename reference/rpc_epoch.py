"""BeginQuorumEpoch and EndQuorumEpoch handling (KIP-595)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from reference.messages import (
    BEGIN_QUORUM_EPOCH_RESPONSE,
    END_QUORUM_EPOCH_RESPONSE,
    FENCED_LEADER_EPOCH,
    INCONSISTENT_VOTER_SET,
    INVALID_CLUSTER_ID,
    INVALID_QUORUM_STATE,
    NIL,
    NONE,
    Message,
)
from reference.rpc_vote import cluster_id_mismatch
from reference.states import FOLLOWER, LEADER

if TYPE_CHECKING:
    from reference.replica import Replica


def _respond(r: Replica, m: Message, kind: str, error: str = NONE) -> None:
    r.send(
        Message(
            type=kind,
            source=r.id,
            dest=m.source,
            errorCode=error,
            epoch=r.current_epoch,
            leaderId=r.leader_id,
        )
    )


def handle_begin_quorum_epoch_request(r: Replica, m: Message) -> None:
    """Accept the sender as leader of an epoch >= ours unless another leader is known for it."""
    if cluster_id_mismatch(r, m):
        _respond(r, m, BEGIN_QUORUM_EPOCH_RESPONSE, INVALID_CLUSTER_ID)
        return
    if m.epoch < r.current_epoch:
        _respond(r, m, BEGIN_QUORUM_EPOCH_RESPONSE, FENCED_LEADER_EPOCH)
        return
    if m.epoch == r.current_epoch and r.leader_id not in (NIL, m.source):
        _respond(r, m, BEGIN_QUORUM_EPOCH_RESPONSE, INVALID_QUORUM_STATE)
        return
    if not (r.role == FOLLOWER and r.leader_id == m.source and r.current_epoch == m.epoch):
        r.transition_to_follower(m.epoch, m.source)
    _respond(r, m, BEGIN_QUORUM_EPOCH_RESPONSE)


def handle_begin_quorum_epoch_response(r: Replica, m: Message) -> None:
    """Record the endorsement of the current epoch; a larger epoch demotes the leader."""
    if m.epoch > r.current_epoch:
        r.observe_epoch(m.epoch, m.leaderId)
        return
    if (
        r.role == LEADER
        and m.epoch == r.current_epoch
        and m.errorCode == NONE
        and m.source in r.voters
        and m.source != r.id
    ):
        r.endorsers.add(m.source)
        state = r.state
        begin_due = getattr(state, "begin_epoch_due", None)
        if begin_due is not None:
            begin_due.pop(m.source, None)


def handle_end_quorum_epoch_request(r: Replica, m: Message) -> None:
    """The leader of the epoch resigns: its preferred successors start elections, the
    first at once and the one at position N after the KIP's successor delay."""
    if cluster_id_mismatch(r, m):
        _respond(r, m, END_QUORUM_EPOCH_RESPONSE, INVALID_CLUSTER_ID)
        return
    if m.epoch < r.current_epoch:
        _respond(r, m, END_QUORUM_EPOCH_RESPONSE, FENCED_LEADER_EPOCH)
        return
    if m.epoch > r.current_epoch:
        r.observe_epoch(m.epoch, m.leaderId)
    if r.leader_id != m.leaderId or r.leader_id == NIL:
        _respond(r, m, END_QUORUM_EPOCH_RESPONSE, FENCED_LEADER_EPOCH)
        return
    if r.id not in m.preferredSuccessors:
        _respond(r, m, END_QUORUM_EPOCH_RESPONSE, INCONSISTENT_VOTER_SET)
        return
    position = m.preferredSuccessors.index(r.id)
    r.schedule_election(r.config.successor_backoff_ms(position))
    _respond(r, m, END_QUORUM_EPOCH_RESPONSE)


def handle_end_quorum_epoch_response(r: Replica, m: Message) -> None:
    """Best effort: only a larger epoch matters (the resigned leader follows it)."""
    if m.epoch > r.current_epoch:
        r.observe_epoch(m.epoch, m.leaderId)
