"""The simulator's reassignment driver (KIP-642 on top of KIP-853's RPCs).

An operator keeps a target voter set (replica ids) and, at random times, moves the quorum one
single-member step toward it: a voter whose replica lost its disk (its directory id changed)
is removed first, then a missing target member is added (promoting an observer, with the
directory id it runs with now), then a voter outside the target is removed. When the quorum
has reached its target, now and then a voter's UpdateVoter is sent instead, and a new target
is drawn. Only one request is outstanding at a time; the leader refuses the rest anyway.
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from reference.core.messages import (
    ADD_VOTER_REQUEST,
    REMOVE_VOTER_REQUEST,
    UPDATE_VOTER_REQUEST,
    ReplicaKey,
)


@dataclass(frozen=True)
class VoterChange:
    """One request of the operator: its type and the voter key it names."""

    request: str
    key: ReplicaKey


def draw_target(rng: random.Random, replicas: Sequence[int], sizes: Sequence[int], leader: int | None = None,
                move_leader_probability: float = 0.3) -> frozenset[int]:
    """A random target voter set of one of ``sizes`` (capped by the number of replicas); with
    ``move_leader_probability`` it leaves out the current leader (which then removes itself)."""
    pool = sorted(replicas)
    if leader is not None and len(pool) > 1 and rng.random() < move_leader_probability:
        pool.remove(leader)
    size = min(rng.choice(list(sizes)), len(pool))
    return frozenset(rng.sample(pool, size))


def next_change(
    target: frozenset[int],
    voters: frozenset[ReplicaKey],
    directory_of: Mapping[int, int],
    rng: random.Random,
    update_probability: float = 0.2,
) -> VoterChange | None:
    """The next single-member step from ``voters`` toward ``target`` (``None``: at target and
    no UpdateVoter drawn). ``directory_of`` maps each replica id to its directory id now."""
    stale = sorted(k for k in voters if directory_of.get(k[0], k[1]) != k[1])
    if stale and len(voters) > 1:
        return VoterChange(REMOVE_VOTER_REQUEST, stale[0])
    ids = {k[0] for k in voters}
    missing = sorted(target - ids)
    if missing:
        vid = rng.choice(missing)
        return VoterChange(ADD_VOTER_REQUEST, (vid, directory_of[vid]))
    extra = sorted(k for k in voters if k[0] not in target)
    if extra and len(voters) > 1:
        return VoterChange(REMOVE_VOTER_REQUEST, rng.choice(extra))
    if voters and rng.random() < update_probability:
        return VoterChange(UPDATE_VOTER_REQUEST, rng.choice(sorted(voters)))
    return None
