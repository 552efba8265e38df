"""What an RPC handler may read and do on a replica.

The handlers (``rpc_vote``, ``rpc_epoch``, ``rpc_fetch``) are written against this
protocol, not against ``Replica``, so that ``replica`` imports the handlers and nothing
imports ``replica`` back.
"""

from __future__ import annotations

from typing import Protocol

from reference.core.config import QuorumConfig, ReplicaOptions
from reference.core.log import ReplicatedLog
from reference.core.messages import Entry, Message
from reference.core.states import EpochState
from reference.core.voter_set import VoterSet


class HandlerContext(Protocol):
    """The replica's spec variables and the transitions its handlers drive."""

    id: int
    config: QuorumConfig
    cluster_id: str
    voters: frozenset[int]
    voter_set: VoterSet
    is_voter: bool
    kraft_version: int
    directory_id: int
    pending_voter_changes: list[Message]
    replica_directory_id: dict[int, int]
    replicas: tuple[int, ...]
    options: ReplicaOptions
    bugs: frozenset[str]
    now: int
    current_epoch: int
    voted_id: int
    voted_directory_id: int
    leader_id: int
    log: ReplicatedLog
    high_watermark: int
    votes_granted: set[int]
    replica_end_offset: dict[int, int]
    state: EpochState

    @property
    def role(self) -> str: ...

    @property
    def key(self) -> tuple[int, int]: ...

    def counting_voter_set(self) -> VoterSet: ...

    def send(self, m: Message) -> None: ...

    def append_entries(self, entries: tuple[Entry, ...] | list[Entry]) -> None: ...

    def truncate_log(self, end_offset: int) -> None: ...

    def transition_to_unattached(self, epoch: int) -> None: ...

    def transition_to_voted(self, candidate: int) -> None: ...

    def transition_to_follower(self, epoch: int, leader: int) -> None: ...

    def observe_epoch(self, epoch: int, leader: int) -> None: ...

    def learn_from_response(self, m: Message) -> bool: ...

    def step_down_to_voted(self) -> None: ...

    def become_leader(self) -> None: ...

    def endorse(self, voter: int) -> None: ...

    def set_action(self, action: str, params: dict[str, object]) -> None: ...

    def step_down(self) -> None: ...

    def update_leader_high_watermark(self) -> None: ...

    def fetch_completed(self) -> None: ...

    def schedule_election(self, delay_ms: int) -> None: ...
