"""The sans-I/O KRaft replica (KIP-595).

A replica is a pure state machine: ``step(input, now_ms)`` takes an inbound message,
a timer tick or a client request and returns a ``Ready`` -- the spec action the step
performed with its parameters, the messages to send, the log operations and the
quorum state to persist (the driver must persist them, and fsync, before sending).
No clock, socket or thread is used; randomness comes from the ``random.Random`` given
to the constructor.

The replica's spec variables (``spec/VOCABULARY.md``) are plain attributes:
``current_epoch``, ``voted_id``, ``leader_id``, ``log``, ``role`` (the name of
``state``), ``high_watermark``, ``votes_granted``, ``endorsers``, ``replica_end_offset``.
Role-specific timers live in the ``state`` object (``reference.states``).
"""

from __future__ import annotations

import random
from collections.abc import Iterable
from dataclasses import dataclass, field

from reference import rpc_epoch, rpc_fetch, rpc_vote
from reference.config import QuorumConfig
from reference.log import ReplicatedLog
from reference.messages import (
    BEGIN_QUORUM_EPOCH_REQUEST,
    BEGIN_QUORUM_EPOCH_RESPONSE,
    DATA,
    END_QUORUM_EPOCH_REQUEST,
    END_QUORUM_EPOCH_RESPONSE,
    FETCH_REQUEST,
    FETCH_RESPONSE,
    HANDLER_ACTION,
    LEADER_CHANGE,
    NIL,
    VOTE_REQUEST,
    VOTE_RESPONSE,
    Entry,
    Message,
)
from reference.states import (
    LEADER,
    UNATTACHED,
    VOTED,
    Candidate,
    EpochState,
    Follower,
    Leader,
    Resigned,
    Unattached,
    Voted,
)
from reference.storage import QuorumState

# Inputs -------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Deliver:
    """An inbound message."""

    message: Message


@dataclass(frozen=True, slots=True)
class Tick:
    """Time has advanced: fire the earliest expired timer, if any."""


@dataclass(frozen=True, slots=True)
class ClientAppend:
    """A client asks the replica to append ``value`` (only a leader accepts)."""

    value: int


@dataclass(frozen=True, slots=True)
class Shutdown:
    """Graceful shutdown: a leader resigns (EndQuorumEpoch); others do nothing."""


Input = Deliver | Tick | ClientAppend | Shutdown


@dataclass(slots=True)
class Ready:
    """What one step produced. ``action is None`` when the step did nothing the spec sees."""

    action: str | None = None
    params: dict[str, object] = field(default_factory=dict)
    messages: list[Message] = field(default_factory=list)
    log_ops: list[tuple[str, object]] = field(default_factory=list)
    quorum_state: QuorumState | None = None


@dataclass(frozen=True)
class ReplicaOptions:
    """Tuning that is not KIP configuration, and the bug switches."""

    fetch_interval_ms: int = 50
    # records per FetchResponse at most (Kafka caps a fetch by bytes, replica.fetch.max.bytes);
    # the spec lets the leader cap the batch, and a cap keeps every message, and so every
    # trace event, bounded in size however long the log grows
    fetch_max_records: int = 100
    bugs: frozenset[str] = frozenset()


class Replica:
    """One KRaft replica (voter or observer)."""

    def __init__(
        self,
        node_id: int,
        config: QuorumConfig,
        cluster_id: str,
        replicas: Iterable[int],
        rng: random.Random,
        now_ms: int = 0,
        quorum_state: QuorumState | None = None,
        log_entries: Iterable[Entry] = (),
        options: ReplicaOptions | None = None,
    ) -> None:
        self.id = node_id
        self.config = config
        self.cluster_id = cluster_id
        self.voters = config.voters
        self.is_voter = node_id in config.voters
        self.replicas = tuple(sorted(set(replicas) | set(config.voters) | {node_id}))
        self.rng = rng
        self.options = options or ReplicaOptions()
        self.bugs = self.options.bugs
        self.now = now_ms
        qs = quorum_state or QuorumState(current_voters=tuple(sorted(config.voters)))
        self.current_epoch = qs.leader_epoch
        self.voted_id = qs.voted_id
        self.leader_id = qs.leader_id
        self.log = ReplicatedLog(log_entries)
        self.high_watermark = 0
        self.votes_granted: set[int] = set()
        self.endorsers: set[int] = set()
        self.replica_end_offset: dict[int, int] = dict.fromkeys(self.replicas, 0)
        self._persisted = (self.current_epoch, self.voted_id, self.leader_id)
        self.state: EpochState = self._initial_state()
        self._ready = Ready()

    # -- spec-visible role --------------------------------------------------

    @property
    def role(self) -> str:
        return self.state.name

    def _initial_state(self) -> EpochState:
        """The state after a (re)start, from the durable quorum state."""
        if self.leader_id == self.id and self.is_voter:
            state: EpochState = Resigned()
            self._arm_election(state)
            return state
        if self.leader_id != NIL:
            return self._new_follower_state()
        if self.voted_id != NIL:
            voted = Voted()
            self._arm_election(voted)
            return voted
        return self._new_unattached_state()

    # -- the step function --------------------------------------------------

    def step(self, inp: Input, now_ms: int) -> Ready:
        """Handle one input at virtual time ``now_ms``; returns what must be done."""
        if now_ms < self.now:
            raise ValueError(f"replica {self.id}: time went backwards ({now_ms} < {self.now})")
        self.now = now_ms
        self._ready = ready = Ready()
        if isinstance(inp, Deliver):
            self._deliver(inp.message)
        elif isinstance(inp, Tick):
            self._fire_timer()
        elif isinstance(inp, ClientAppend):
            self._client_append(inp.value)
        elif isinstance(inp, Shutdown):
            if self.role == LEADER:
                self.resign()
        else:  # pragma: no cover - the Input union is closed
            raise TypeError(f"unknown input {inp!r}")
        if ready.action is not None:
            self._collect_quorum_state()
        return ready

    def _deliver(self, m: Message) -> None:
        if m.dest != self.id:
            raise ValueError(f"replica {self.id}: message for {m.dest} delivered here: {m}")
        self._ready.action = HANDLER_ACTION[m.type]
        self._ready.params = {"m": m}
        handler = _HANDLERS[m.type]
        handler(self, m)

    def _collect_quorum_state(self) -> None:
        current = (self.current_epoch, self.voted_id, self.leader_id)
        if current != self._persisted:
            self._persisted = current
            self._ready.quorum_state = QuorumState(
                leader_id=self.leader_id,
                leader_epoch=self.current_epoch,
                # Bug vote-not-persisted: the vote never reaches the quorum-state file.
                voted_id=NIL if "vote-not-persisted" in self.bugs else self.voted_id,
                applied_offset=self.log.end_offset,
                current_voters=tuple(sorted(self.voters)),
            )

    # -- outputs ------------------------------------------------------------

    def send(self, m: Message) -> None:
        self._ready.messages.append(m)

    def append_entries(self, entries: tuple[Entry, ...] | list[Entry]) -> None:
        if entries:
            self.log.append(entries)
            self._ready.log_ops.append(("append", tuple(entries)))

    def truncate_log(self, end_offset: int) -> None:
        if end_offset < self.log.end_offset:
            self.log.truncate(end_offset)
            self._ready.log_ops.append(("truncate", end_offset))

    # -- timers ---------------------------------------------------------------

    def _random_election_timeout(self) -> int:
        return self.config.election_timeout_ms + self.rng.randint(0, self.config.election_backoff_max_ms)

    def _arm_election(self, state: EpochState, delay: int | None = None) -> None:
        if self.is_voter:
            state.election_deadline = self.now + (self._random_election_timeout() if delay is None else delay)

    def next_deadline(self) -> int | None:
        """The earliest armed timer, for the driver to schedule a ``Tick``."""
        return min((d for d in self._deadlines() if d is not None), default=None)

    def _deadlines(self) -> list[int | None]:
        s = self.state
        out: list[int | None] = [s.election_deadline]
        if isinstance(s, Follower):
            out += [s.fetch_deadline, s.next_fetch_at]
            if s.fetch_sent_at is not None:
                out.append(s.fetch_sent_at + self.config.request_timeout_ms)
        elif isinstance(s, Unattached):
            out.append(s.next_fetch_at)
            if s.fetch_sent_at is not None:
                out.append(s.fetch_sent_at + self.config.request_timeout_ms)
        elif isinstance(s, Leader):
            out.append(s.check_quorum_deadline)
            out += list(s.begin_epoch_due.values())
        return out

    def _fire_timer(self) -> None:
        """Fire one expired timer (one spec action) or do nothing."""
        now = self.now
        s = self.state
        if isinstance(s, Leader):
            if s.check_quorum_deadline is not None and s.check_quorum_deadline <= now:
                self._check_quorum(s)
                if self._ready.action is not None:
                    return
            for voter, due in sorted(s.begin_epoch_due.items()):
                if due <= now:
                    self._send_begin_quorum_epoch(s, voter)
                    if self._ready.action is not None:
                        return
            return
        if s.election_deadline is not None and s.election_deadline <= now and self.is_voter:
            self.become_candidate()
            return
        if isinstance(s, Follower):
            if s.fetch_deadline is not None and s.fetch_deadline <= now and self.is_voter:
                self.become_candidate()
                return
            timed_out = s.fetch_sent_at is not None and s.fetch_sent_at + self.config.request_timeout_ms <= now
            if timed_out or (s.fetch_sent_at is None and s.next_fetch_at is not None and s.next_fetch_at <= now):
                self._send_fetch(s, self.leader_id)
            return
        if isinstance(s, Unattached) and not self.is_voter:
            timed_out = s.fetch_sent_at is not None and s.fetch_sent_at + self.config.request_timeout_ms <= now
            if timed_out or (s.fetch_sent_at is None and s.next_fetch_at is not None and s.next_fetch_at <= now):
                self._send_fetch(s, self.rng.choice(sorted(self.voters)))

    # -- state transitions -----------------------------------------------------

    def _reset_volatile(self) -> None:
        self.votes_granted = set()
        self.endorsers = set()
        if any(self.replica_end_offset.values()):
            self.replica_end_offset = dict.fromkeys(self.replicas, 0)

    def _new_unattached_state(self) -> Unattached:
        state = Unattached()
        if self.is_voter:
            self._arm_election(state)
        else:
            state.next_fetch_at = self.now
        return state

    def _new_follower_state(self) -> Follower:
        state = Follower(next_fetch_at=self.now)
        if self.is_voter:
            state.fetch_deadline = self.now + self.config.fetch_timeout_ms
        return state

    def transition_to_unattached(self, epoch: int) -> None:
        """A new epoch without known leader or vote."""
        self.current_epoch = epoch
        self.voted_id = NIL
        self.leader_id = NIL
        self._reset_volatile()
        self.state = self._new_unattached_state()

    def step_down_to_voted(self) -> None:
        """A candidate of a two-voter quorum refused by the other voter: stays voted for
        itself in its epoch and waits for the election timer (KIP-595 gridlock note)."""
        retries = self.state.retries if isinstance(self.state, Candidate) else 0
        self._reset_volatile()
        state = Voted()
        self._arm_election(state, self._candidate_backoff(retries))
        self.state = state

    def _candidate_backoff(self, retries: int) -> int:
        backoff = min(
            self.config.election_backoff_max_ms,
            self.config.retry_backoff_ms * (2 ** min(retries, 20)),
        )
        return self.config.election_timeout_ms + self.rng.randint(0, backoff)

    def transition_to_voted(self, candidate: int) -> None:
        """Grant the vote of the current epoch to ``candidate``."""
        self.voted_id = candidate
        self._reset_volatile()
        state = Voted()
        self._arm_election(state)
        self.state = state

    def transition_to_follower(self, epoch: int, leader: int) -> None:
        """Follow ``leader`` in ``epoch`` (keeps the vote when the epoch is unchanged)."""
        if epoch != self.current_epoch:
            self.voted_id = NIL
        self.current_epoch = epoch
        self.leader_id = leader
        self._reset_volatile()
        self.state = self._new_follower_state()

    def observe_epoch(self, epoch: int, leader: int) -> None:
        """Take the larger ``epoch`` with ``leader`` (spec ``TakeEpoch``): follow it when
        it names another replica, else unattached; no vote in the new epoch."""
        if leader != NIL and leader != self.id:
            self.transition_to_follower(epoch, leader)
        else:
            self.transition_to_unattached(epoch)
            self.leader_id = leader

    def learn_from_response(self, m: Message) -> bool:
        """What a response teaches: a larger epoch, or the unknown leader of our epoch
        (leader discovery piggybacked on responses). False when it teaches nothing."""
        if m.epoch > self.current_epoch:
            self.observe_epoch(m.epoch, m.leaderId)
            return True
        if m.epoch == self.current_epoch and m.leaderId not in (NIL, self.id) and self.leader_id == NIL:
            self.transition_to_follower(m.epoch, m.leaderId)
            return True
        return False

    def become_candidate(self) -> None:
        """``BecomeCandidate``: bump the epoch, vote for self, ask the other voters."""
        retries = self.state.retries + 1 if isinstance(self.state, Candidate) else 0
        self._ready.action = "BecomeCandidate"
        self._ready.params = {"i": self.id}
        if "second-leader-same-epoch" in self.bugs and self.role in (VOTED, UNATTACHED) and self.current_epoch > 0:
            pass  # stands in its current epoch, over its earlier vote
        else:
            self.current_epoch += 1
        self.voted_id = self.id
        self.leader_id = NIL
        self._reset_volatile()
        self.votes_granted = {self.id}
        state = Candidate(retries=retries)
        self._arm_election(state, self._candidate_backoff(retries))
        self.state = state
        if len(self.votes_granted) >= self.config.majority:
            self.become_leader()
            return
        targets = [v for v in sorted(self.voters) if v != self.id]
        if "observer-votes" in self.bugs:
            targets += [r for r in self.replicas if r not in self.voters]
        for voter in targets:
            self.send(
                Message(
                    type=VOTE_REQUEST,
                    source=self.id,
                    dest=voter,
                    clusterId=self.cluster_id,
                    epoch=self.current_epoch,
                    lastOffsetEpoch=self.log.last_epoch,
                    lastOffset=self.log.end_offset,
                )
            )

    def become_leader(self) -> None:
        """Won the election: append the LeaderChange record, start BeginQuorumEpoch."""
        self.leader_id = self.id
        self.votes_granted = set()
        self.endorsers = set()
        self.replica_end_offset = dict.fromkeys(self.replicas, 0)
        state = Leader(check_quorum_deadline=self.now + self.config.fetch_timeout_ms)
        for voter in sorted(self.voters):
            if voter != self.id:
                state.begin_epoch_due[voter] = self.now
        self.state = state
        self.append_entries([Entry(self.current_epoch, LEADER_CHANGE, self.id)])

    def resign(self) -> None:
        """``Resign``: EndQuorumEpoch to the other voters, preferred successors first."""
        self._ready.action = "Resign"
        self._ready.params = {"i": self.id}
        others = [v for v in self.voters if v != self.id]
        successors = tuple(sorted(others, key=lambda v: (-self.replica_end_offset.get(v, 0), v)))
        self._reset_volatile()
        state = Resigned(preferred_successors=successors)
        self._arm_election(state)
        self.state = state
        for voter in sorted(others):
            self.send(
                Message(
                    type=END_QUORUM_EPOCH_REQUEST,
                    source=self.id,
                    dest=voter,
                    clusterId=self.cluster_id,
                    epoch=self.current_epoch,
                    leaderId=self.id,
                    preferredSuccessors=successors,
                )
            )

    # -- leader timers -------------------------------------------------------

    def _check_quorum(self, state: Leader) -> None:
        window_start = self.now - self.config.fetch_timeout_ms
        recent = sorted(
            (t for v, t in state.last_fetch_ms.items() if v in self.voters and v != self.id and t > window_start),
            reverse=True,
        )
        needed = self.config.majority - 1
        if len(recent) >= needed:
            oldest_needed = recent[needed - 1] if needed > 0 else self.now
            state.check_quorum_deadline = oldest_needed + self.config.fetch_timeout_ms
            if state.check_quorum_deadline <= self.now:
                state.check_quorum_deadline = self.now + self.config.fetch_timeout_ms
            return
        self.resign()

    def _send_begin_quorum_epoch(self, state: Leader, voter: int) -> None:
        if voter in self.endorsers:
            del state.begin_epoch_due[voter]
            return
        self._ready.action = "SendBeginQuorumEpoch"
        self._ready.params = {"i": self.id, "j": voter}
        state.begin_epoch_due[voter] = self.now + self.config.request_timeout_ms
        self.send(
            Message(
                type=BEGIN_QUORUM_EPOCH_REQUEST,
                source=self.id,
                dest=voter,
                clusterId=self.cluster_id,
                epoch=self.current_epoch,
            )
        )

    def _send_fetch(self, state: Follower | Unattached, target: int) -> None:
        self._ready.action = "SendFetchRequest"
        self._ready.params = {"i": self.id, "j": target}
        state.fetch_sent_at = self.now
        state.next_fetch_at = None
        end = self.log.end_offset
        self.send(
            Message(
                type=FETCH_REQUEST,
                source=self.id,
                dest=target,
                clusterId=self.cluster_id,
                epoch=self.current_epoch,
                fetchOffset=end,
                lastFetchedEpoch=self.log.last_epoch,
            )
        )

    def fetch_completed(self) -> None:
        """A fetch response was handled: the next fetch goes out after the fetch interval."""
        s = self.state
        if isinstance(s, Follower | Unattached):
            s.fetch_sent_at = None
            s.next_fetch_at = self.now + self.options.fetch_interval_ms
        if isinstance(s, Follower) and self.is_voter:
            s.fetch_deadline = self.now + self.config.fetch_timeout_ms

    def schedule_election(self, delay_ms: int) -> None:
        """Start an election after ``delay_ms`` (EndQuorumEpoch successor delay)."""
        if not self.is_voter:
            return
        s = self.state
        if isinstance(s, Follower):
            s.fetch_deadline = None
        deadline = self.now + delay_ms
        if s.election_deadline is None or deadline < s.election_deadline:
            s.election_deadline = deadline

    # -- client requests -----------------------------------------------------

    def _client_append(self, value: int) -> None:
        if self.role != LEADER:
            return
        self._ready.action = "ClientAppend"
        self._ready.params = {"i": self.id, "v": value}
        self.append_entries([Entry(self.current_epoch, DATA, value)])

    def endorse(self, voter: int) -> None:
        """A voter other than this leader endorsed the epoch: stop BeginQuorumEpoch to it."""
        if voter in self.voters and voter != self.id:
            self.endorsers.add(voter)
            state = self.state
            if isinstance(state, Leader):
                state.begin_epoch_due.pop(voter, None)

    # -- high watermark --------------------------------------------------------

    def update_leader_high_watermark(self) -> None:
        """Advance the leader's high watermark to the offset a majority of voters hold,
        when the entry below it is of the current epoch (KIP-595 commitment rule)."""
        ends = sorted(
            (self.log.end_offset if v == self.id else self.replica_end_offset.get(v, 0) for v in self.voters),
            reverse=True,
        )
        candidate = ends[self.config.majority - 1]
        if candidate <= self.high_watermark:
            return
        if "hw-on-old-epoch" not in self.bugs and self.log.epoch_at(candidate - 1) != self.current_epoch:
            return
        self.high_watermark = candidate

    # -- read-only queries -----------------------------------------------------

    def describe_quorum(self) -> rpc_fetch.DescribeQuorumResult:
        """DescribeQuorum (read-only; no spec action)."""
        return rpc_fetch.describe_quorum(self)

    def spec_state(self) -> dict[str, object]:
        """The replica's spec variables (VOCABULARY.md names) as Python values."""
        state = self.trace_state()
        state["log"] = tuple(self.log.entries)
        return state

    def trace_state(self) -> dict[str, object]:
        """Like ``spec_state`` but with the log object itself (its ITF text is cached)."""
        return {
            "currentEpoch": self.current_epoch,
            "votedId": self.voted_id,
            "leaderId": self.leader_id,
            "log": self.log,
            "role": self.role,
            "highWatermark": self.high_watermark,
            "votesGranted": frozenset(self.votes_granted),
            "endorsers": frozenset(self.endorsers),
            "replicaEndOffset": dict(self.replica_end_offset),
        }


_HANDLERS = {
    VOTE_REQUEST: rpc_vote.handle_vote_request,
    VOTE_RESPONSE: rpc_vote.handle_vote_response,
    BEGIN_QUORUM_EPOCH_REQUEST: rpc_epoch.handle_begin_quorum_epoch_request,
    BEGIN_QUORUM_EPOCH_RESPONSE: rpc_epoch.handle_begin_quorum_epoch_response,
    END_QUORUM_EPOCH_REQUEST: rpc_epoch.handle_end_quorum_epoch_request,
    END_QUORUM_EPOCH_RESPONSE: rpc_epoch.handle_end_quorum_epoch_response,
    FETCH_REQUEST: rpc_fetch.handle_fetch_request,
    FETCH_RESPONSE: rpc_fetch.handle_fetch_response,
}
