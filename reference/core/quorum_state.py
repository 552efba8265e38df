"""The quorum-state record: what a replica keeps durable besides its log (KIP-595's
quorum-state file). The replica produces it in ``Ready``; ``reference.storage`` writes it."""

from __future__ import annotations

from dataclasses import dataclass

from reference.core.messages import NIL

QUORUM_STATE_DATA_VERSION = 0
# data_version 1 (a dynamic quorum, KIP-853) adds the voted candidate's directory id and the
# kraft.version the replica runs.
DYNAMIC_QUORUM_STATE_DATA_VERSION = 1


@dataclass(frozen=True)
class QuorumState:
    """The quorum-state record (KIP-595 field names in the file)."""

    leader_id: int = NIL
    leader_epoch: int = 0
    voted_id: int = NIL
    applied_offset: int = 0
    current_voters: tuple[int, ...] = ()
    data_version: int = QUORUM_STATE_DATA_VERSION
    voted_directory_id: int = NIL
    kraft_version: int = 0
