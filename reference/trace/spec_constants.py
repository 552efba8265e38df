"""The CONSTANTS of ``spec/KRaft.tla`` for a simulated cluster (the trace header)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from reference.trace.itf_encode import Record

FOREIGN_CLUSTER_ID = "foreign-cluster"
FOREIGN_REQUEST_TYPES = ("VoteRequest", "BeginQuorumEpochRequest", "FetchRequest")
RULE_TOGGLES = (
    "CommitRequiresCurrentEpoch",
    "VoteRequiresUpToDateLog",
    "DurableVote",
    "TruncateOnDivergence",
    "RejectConflictingLeader",
)
# KIP-853 (a dynamic quorum's trace header only; a static trace keeps the KIP-595 header).
RECONFIG_TOGGLES = ("OneUncommittedChange", "ChangeRequiresCurrentEpochCommit", "VoteChecksDirectoryId")
VOTER_CHANGE_REQUESTS = ("AddVoterRequest", "RemoveVoterRequest", "UpdateVoterRequest")
# The spec's timer rules (TimedRules): the implementation claims all of them.
TIMER_RULES = (
    "ElectionTimeout", "FetchTimeout", "SuccessorBackoff", "CheckQuorum", "BeginQuorumEpochResend", "TimeoutUpperBound",
)


def spec_constants(
    voter_ids: Iterable[int],
    observer_ids: Iterable[int],
    values: int,
    cluster_id: str,
    foreign_requests: bool,
    dynamic: bool = False,
    timing: Mapping[str, int] | None = None,
    fetch_max_records: int = 0,
) -> dict[str, Any]:
    """Constant name -> value (Python values, ITF-encoded by the trace writer) for a cluster
    of these voters and observers, client values ``1..values``, and foreign-cluster requests
    when ``foreign_requests``. ``dynamic``: a KIP-853 quorum (``KRaftVersion = 1``, voter
    changes on); ``voter_ids`` are then the bootstrap voters (the initial controllers).
    ``timing``: the timer settings (``QuorumConfig.timing``); given, the header claims every
    timer rule (``TimedRules``), so the validator checks the events' times; omitted, the header
    has neither constant (an untimed trace, as before the timer rules). ``fetch_max_records``:
    the leader's cap on a FetchResponse's records (``FetchMaxRecords``; 0: any batch)."""
    if dynamic:
        return {
            **spec_constants(voter_ids, observer_ids, values, cluster_id, foreign_requests, timing=timing,
                             fetch_max_records=fetch_max_records),
            "KRaftVersion": 1,
            "VoterChangeRequests": frozenset(VOTER_CHANGE_REQUESTS),
            **dict.fromkeys(RECONFIG_TOGGLES, True),
        }
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
        # Persistence order: every write durable before the step's sends (KIP-595).
        "SendBeforePersist": frozenset(),
        # A crash may fall between a new leader's quorum-state write and its leaderChange record.
        "CrashBetweenWrites": True,
        # The leader fills a FetchResponse up to its cap: the batch size is not a choice.
        "FetchMaxRecords": fetch_max_records,
        **({} if timing is None else {"TimedRules": frozenset(TIMER_RULES), "Timing": Record(timing)}),
    }
