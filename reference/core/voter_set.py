"""The voter set of KIP-853: replica keys, where a replica's voter set comes from, majorities.

A replica key is ``(id, directory id)``. With kraft.version 0 (a static quorum) the voter set
is the configured ids and directory ids are never checked (``NO_DIRECTORY``). With
kraft.version 1 the voter set is the one of the latest ``VotersRecord`` in the replica's log,
committed or not, else the bootstrap set its storage was formatted with; a replica whose
directory id differs from the voter's is not that voter.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from reference.core.messages import NO_DIRECTORY, ReplicaKey

STATIC = 0  # kraft.version 0: the voters are controller.quorum.voters
DYNAMIC = 1  # kraft.version 1: the voters are in the log
KRAFT_VERSIONS = (STATIC, DYNAMIC)


def static_keys(ids: Iterable[int]) -> frozenset[ReplicaKey]:
    """The voter keys of a static quorum (no directory ids)."""
    return frozenset((i, NO_DIRECTORY) for i in ids)


@dataclass(frozen=True, slots=True)
class VoterSet:
    """A voter set: its keys, their ids, and the size of a majority."""

    keys: frozenset[ReplicaKey]
    ids: frozenset[int]
    majority: int

    @classmethod
    def of(cls, keys: Iterable[ReplicaKey]) -> VoterSet:
        keys = frozenset(keys)
        ids = frozenset(k[0] for k in keys)
        return cls(keys, ids, len(keys) // 2 + 1)

    def holds(self, key: ReplicaKey) -> bool:
        """Whether ``key`` is a voter: same id and, unless the voter's directory id is
        ``NO_DIRECTORY`` (static quorum), the same directory id."""
        if key in self.keys:
            return True
        return (key[0], NO_DIRECTORY) in self.keys

    def directory_of(self, voter_id: int) -> int:
        """The directory id of voter ``voter_id`` (``NO_DIRECTORY`` when unknown)."""
        for vid, directory in self.keys:
            if vid == voter_id:
                return directory
        return NO_DIRECTORY
