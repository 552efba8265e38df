"""The CONSTANTS of ``spec/KRaft.tla`` for a simulated cluster (the trace header)."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

FOREIGN_CLUSTER_ID = "foreign-cluster"
FOREIGN_REQUEST_TYPES = ("VoteRequest", "BeginQuorumEpochRequest", "FetchRequest")
RULE_TOGGLES = (
    "CommitRequiresCurrentEpoch",
    "VoteRequiresUpToDateLog",
    "DurableVote",
    "TruncateOnDivergence",
    "RejectConflictingLeader",
)


def spec_constants(
    voter_ids: Iterable[int], observer_ids: Iterable[int], values: int, cluster_id: str, foreign_requests: bool
) -> dict[str, Any]:
    """Constant name -> value (Python values, ITF-encoded by the trace writer) for a cluster
    of these voters and observers, client values ``1..values``, and foreign-cluster requests
    when ``foreign_requests``."""
    return {
        "Voters": frozenset(voter_ids),
        "Observers": frozenset(observer_ids),
        "Values": frozenset(range(1, values + 1)),
        "ClusterId": cluster_id,
        "ForeignClusterId": FOREIGN_CLUSTER_ID,
        "ForeignRequests": frozenset(FOREIGN_REQUEST_TYPES) if foreign_requests else frozenset(),
        # Rule toggles: the reference implementation claims KIP-595 (all TRUE), also when a
        # bug switch is on -- the trace validator is meant to reject such traces.
        **dict.fromkeys(RULE_TOGGLES, True),
    }
