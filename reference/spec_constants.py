"""The CONSTANTS of ``spec/KRaft.tla`` for a simulated cluster (the trace header)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from reference.simulator import SimConfig

FOREIGN_CLUSTER_ID = "foreign-cluster"


def spec_constants(config: SimConfig) -> dict[str, Any]:
    """Constant name -> value (Python values, ITF-encoded by the trace writer)."""
    return {
        "Voters": frozenset(config.voter_ids),
        "Observers": frozenset(config.observer_ids),
        "Values": frozenset(range(1, config.values + 1)),
        "ClusterId": config.cluster_id,
        "ForeignClusterId": FOREIGN_CLUSTER_ID,
    }
