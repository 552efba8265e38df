"""Fault kinds of the simulator and their parameters.

Every fault acts on the network or on whole replicas, never inside a step, so a faulty run
is still a behaviour of ``spec/KRaft.tla``: its network keeps every message ever sent and may
deliver any of them again at any time, which is what the stale-message faults (``stale``,
``epoch-duplicate``, ``oldest-first``) use to aim old messages at the moments when the
handlers' staleness checks matter, and ``stale-position`` aims an old FetchResponse at a
follower whose log is back at that response's fetch offset but ends in another epoch.
"""

from __future__ import annotations

from collections.abc import Iterable

FAULTS: dict[str, str] = {
    "crash": "a replica crashes (unflushed writes lost) and restarts later with its durable state; "
    "now and then a new leader crashes between its quorum-state write and its leaderChange record",
    "shutdown": "a replica (most often the leader) shuts down gracefully: a leader resigns "
    "(EndQuorumEpoch to the other voters, preferred successors first) and stays up for a short "
    "grace period to handle the responses; the replica then stops (nothing lost) and restarts later",
    "partition": "symmetric partitions (two sides cannot talk) and asymmetric ones (one direction "
    "of a link is cut), healed after a while",
    "loss": "messages are dropped at random",
    "duplicate": "messages are delivered twice",
    "reorder": "messages get a random extra latency, so a link no longer delivers in order",
    "delay": "a few messages are held back for a long time (up to several fetch timeouts)",
    "stale": "right after a replica changes epoch, leader or role, a few old messages addressed "
    "to it (already delivered or still in flight) are delivered to it again",
    "epoch-duplicate": "the messages a replica sends in the step that changes its epoch are often "
    "delivered twice, the copy up to a request timeout later",
    "oldest-first": "now and then the scheduler delivers the oldest message in flight next, "
    "ahead of its latency",
    "disk-loss": "an observer restarts with an empty disk (same id)",
    "foreign": "a misconfigured peer (claiming the id of a replica) sends requests carrying "
    "another cluster id; they must be refused with INVALID_CLUSTER_ID",
    "isolate-leader": "right after a replica becomes leader, it is now and then cut off from every "
    "other replica for a while (both directions), so the entries of its epoch stay on it and the "
    "others elect another leader: divergent logs of several epochs",
    "stale-position": "when a replica's log end comes back to the fetch offset of a FetchResponse "
    "it was sent earlier, with another last epoch (it truncated, then fetched its log back), that "
    "response is delivered to it again",
    "voter-disk-loss": "a voter restarts with an empty disk. With a dynamic quorum (default there) "
    "it comes back with a new directory id, so it is no longer that voter (KIP-853); with a static "
    "quorum it is OPT-IN and NOT SAFE: KIP-595 assumes voters never lose their disk, so it is "
    "expected to break the safety invariants",
}

# The default set before the stale-message faults (kept to measure their cost, and to pin
# the trace corpus).
PREVIOUS_DEFAULT_FAULTS: tuple[str, ...] = (
    "crash",
    "shutdown",
    "partition",
    "loss",
    "duplicate",
    "reorder",
    "delay",
    "disk-loss",
)

# The stale-message faults (default since they were added).
STALE_FAULTS: tuple[str, ...] = ("stale", "epoch-duplicate", "oldest-first")

# Faults added to the defaults so that the default campaigns reach more of what the spec
# allows: foreign-cluster requests, divergent logs of several epochs, stale fetch positions.
REACH_FAULTS: tuple[str, ...] = ("foreign", "isolate-leader", "stale-position")

DEFAULT_FAULTS: tuple[str, ...] = (*PREVIOUS_DEFAULT_FAULTS, *STALE_FAULTS, *REACH_FAULTS)


# A dynamic quorum survives a voter's disk loss (the replica gets a new directory id).
DYNAMIC_DEFAULT_FAULTS: tuple[str, ...] = (*DEFAULT_FAULTS, "voter-disk-loss")


class UnknownFaultError(ValueError):
    """A fault kind that is not in ``FAULTS``."""


def parse_faults(spec: str | Iterable[str]) -> frozenset[str]:
    """Fault kinds from a comma-separated list (``""``/``none`` for no faults)."""
    names = [s.strip() for s in spec.split(",")] if isinstance(spec, str) else [s.strip() for s in spec]
    names = [n for n in names if n and n != "none"]
    unknown = [n for n in names if n not in FAULTS]
    if unknown:
        raise UnknownFaultError(f"unknown fault kind(s) {', '.join(unknown)}; known: {', '.join(FAULTS)}")
    return frozenset(names)
