"""The simulator's reassignment driver (KIP-642 on top of KIP-853's RPCs).

An operator keeps a target voter set (replica ids) and, at random times, moves the quorum one
single-member step toward it: a voter whose replica lost its disk (its directory id changed)
is removed first, then a missing target member is added (promoting an observer, with the
directory id it runs with now), then a voter outside the target is removed. When the quorum
has reached its target, now and then a voter's UpdateVoter is sent instead, and a new target
is drawn (now and then a single voter: KIP-853 lets a quorum shrink to one). Only one request
is outstanding at a time; the leader refuses the rest anyway.

Now and then the operator errs (``refused_change``): it sends a request the leader must refuse
with one of the errors of KIP-853 the spec models (``HandleVoterChangeRequest``), each a request
``SendAddVoterRequest`` / ``SendRemoveVoterRequest`` allows: AddVoter of a replica whose id is a
voter (``DUPLICATE_VOTER``), also one that lost its disk and runs with a new directory id;
RemoveVoter of a replica key that is not a voter (``VOTER_NOT_FOUND``); RemoveVoter of the only
voter (``INVALID_REQUEST``).
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence, Set
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
                move_leader_probability: float = 0.3, single_probability: float = 0.0) -> frozenset[int]:
    """A random target voter set of one of ``sizes`` (capped by the number of replicas), or
    with ``single_probability`` of one replica; with ``move_leader_probability`` it leaves out
    the current leader (which then removes itself)."""
    pool = sorted(replicas)
    if leader is not None and len(pool) > 1 and rng.random() < move_leader_probability:
        pool.remove(leader)
    size = 1 if rng.random() < single_probability else min(rng.choice(list(sizes)), len(pool))
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


def refused_change(voters: frozenset[ReplicaKey], directory_of: Mapping[int, int],
                   rng: random.Random, readded: Set[ReplicaKey] = frozenset()) -> VoterChange:
    """A request the leader of ``voters`` must refuse (the module's docstring): while a voter's
    replica runs with a new directory id (it lost its disk), an AddVoter of that replica (unless
    that key is in ``readded``); else, with a single voter, a RemoveVoter of it; else a
    duplicate AddVoter or a RemoveVoter of a replica's current key that is not a voter."""
    stale = sorted(k[0] for k in voters if directory_of.get(k[0], k[1]) != k[1]
                   and (k[0], directory_of[k[0]]) not in readded)
    if stale:  # the operator adds a rebuilt controller again before removing its old key
        return VoterChange(ADD_VOTER_REQUEST, (stale[0], directory_of[stale[0]]))
    if len(voters) == 1:  # shrunk to one voter, the operator goes one step too far
        return VoterChange(REMOVE_VOTER_REQUEST, next(iter(voters)))
    vid = rng.choice(sorted(k[0] for k in voters))
    choices = [VoterChange(ADD_VOTER_REQUEST, (vid, directory_of[vid]))]
    outside = sorted((r, d) for r, d in directory_of.items() if (r, d) not in voters)
    if outside:
        choices.append(VoterChange(REMOVE_VOTER_REQUEST, rng.choice(outside)))
    return rng.choice(choices)
