"""One class per replica state (as in Kafka's raft module), holding what that state
needs beyond the spec variables: mostly its timers, as virtual-time deadlines in ms.

``None`` as a deadline means the timer is not armed.
"""

from __future__ import annotations

from dataclasses import dataclass, field

UNATTACHED = "Unattached"
VOTED = "Voted"
CANDIDATE = "Candidate"
LEADER = "Leader"
FOLLOWER = "Follower"
RESIGNED = "Resigned"

ROLES: tuple[str, ...] = (UNATTACHED, VOTED, CANDIDATE, LEADER, FOLLOWER, RESIGNED)


@dataclass(slots=True)
class EpochState:
    """Base of the per-state classes: the role name, the election timer, and the fetch
    timers of a replica that looks for the leader (a follower; a replica outside its voter
    set that knows no leader)."""

    name: str = ""
    election_deadline: int | None = None
    next_fetch_at: int | None = None
    fetch_sent_at: int | None = None
    fetch_target: int | None = None  # where the last Fetch went


@dataclass(slots=True)
class Unattached(EpochState):
    """No leader and no vote in the current epoch. Observers look for the leader by
    fetching from a voter; voters wait for the election timeout."""

    name: str = UNATTACHED


@dataclass(slots=True)
class Voted(EpochState):
    """Voted for a candidate in the current epoch; waits for its BeginQuorumEpoch.
    ``retries``: the failed elections of a two-voter candidate that stepped down (for
    the backoff of its next election), else 0."""

    name: str = VOTED
    retries: int = 0


@dataclass(slots=True)
class Candidate(EpochState):
    """Collecting votes; ``retries`` counts consecutive failed elections (for backoff)."""

    name: str = CANDIDATE
    retries: int = 0
    rejected_by: set[int] = field(default_factory=set)


@dataclass(slots=True)
class Leader(EpochState):
    """Leading the epoch: BeginQuorumEpoch resend timers and the check-quorum timer."""

    name: str = LEADER
    begin_epoch_due: dict[int, int] = field(default_factory=dict)
    last_fetch_ms: dict[int, int] = field(default_factory=dict)
    check_quorum_deadline: int = 0  # armed when the leader is elected (a fetch timeout later)


@dataclass(slots=True)
class Follower(EpochState):
    """Fetching from a known leader; the fetch timeout (voters) starts an election."""

    name: str = FOLLOWER
    fetch_deadline: int | None = None


@dataclass(slots=True)
class Resigned(EpochState):
    """A leader that stepped down: waits for the election timeout, then stands again (one
    that removed itself from the voters waits for a message of a later epoch)."""

    name: str = RESIGNED
    preferred_successors: tuple[int, ...] = ()
