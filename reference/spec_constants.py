"""The CONSTANTS of ``spec/KRaft.tla`` for a simulated cluster (the trace header)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from reference.simulator import SimConfig

FOREIGN_CLUSTER_ID = "foreign-cluster"
FOREIGN_REQUEST_TYPES = ("VoteRequest", "BeginQuorumEpochRequest", "FetchRequest")
RULE_TOGGLES = (
    "CommitRequiresCurrentEpoch",
    "VoteRequiresUpToDateLog",
    "DurableVote",
    "TruncateOnDivergence",
    "RejectConflictingLeader",
)


def spec_constants(config: SimConfig) -> dict[str, Any]:
    """Constant name -> value (Python values, ITF-encoded by the trace writer)."""
    return {
        "Voters": frozenset(config.voter_ids),
        "Observers": frozenset(config.observer_ids),
        "Values": frozenset(range(1, config.values + 1)),
        "ClusterId": config.cluster_id,
        "ForeignClusterId": FOREIGN_CLUSTER_ID,
        "ForeignRequests": frozenset(FOREIGN_REQUEST_TYPES) if "foreign" in config.faults else frozenset(),
        # Rule toggles: the reference implementation claims KIP-595 (all TRUE), also when a
        # bug switch is on -- the trace validator is meant to reject such traces.
        **dict.fromkeys(RULE_TOGGLES, True),
    }
