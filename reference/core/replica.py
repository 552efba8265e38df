"""The sans-I/O KRaft replica (KIP-595, with KIP-853 voter changes).

A replica is a pure state machine: ``step(input, now_ms)`` takes an inbound message,
a timer tick or a client request and returns a ``Ready`` -- the spec action the step
performed with its parameters, the messages to send, the log operations and the
quorum state to persist (the driver must persist them, and fsync, before sending).
No clock, socket or thread is used; randomness comes from the ``random.Random`` given
to the constructor.

The replica's spec variables (``spec/VOCABULARY.md``) are plain attributes:
``current_epoch``, ``voted_id``, ``leader_id``, ``log``, ``role`` (the name of
``state``), ``high_watermark``, ``votes_granted``, ``endorsers``, ``replica_end_offset``.
Role-specific timers live in the ``state`` object (``reference.core.states``).

The voter set (``voter_set``; ``voters`` are its ids) is recomputed whenever the log changes:
with kraft.version 1 it is the latest ``VotersRecord`` of the log, committed or not, else the
bootstrap set (``reference.core.voter_set``); with kraft.version 0 it is the configured one.
"""

from __future__ import annotations

import random
from collections.abc import Iterable
from dataclasses import dataclass, field

from reference.core import rpc_epoch, rpc_fetch, rpc_vote, rpc_voters
from reference.core.config import QuorumConfig, ReplicaOptions
from reference.core.log import ReplicatedLog
from reference.core.messages import (
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
    NO_DIRECTORY,
    UPDATE_VOTER_REQUEST,
    UPDATE_VOTER_RESPONSE,
    VOTE_REQUEST,
    VOTE_RESPONSE,
    VOTER_CHANGE_REQUESTS,
    Entry,
    Message,
    ReplicaKey,
)
from reference.core.quorum_state import DYNAMIC_QUORUM_STATE_DATA_VERSION, QuorumState
from reference.core.states import (
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
from reference.core.voter_set import DYNAMIC, STATIC, VoterSet, static_keys

_NO_MESSAGES: frozenset[Message] = frozenset()

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


@dataclass(frozen=True, slots=True)
class UpdateVoter:
    """A voter of a dynamic quorum sends UpdateVoter for its own key to its leader (KIP-853;
    endpoints and supported versions are abstracted away); others do nothing."""


Input = Deliver | Tick | ClientAppend | Shutdown | UpdateVoter


@dataclass(slots=True)
class Ready:
    """What one step produced. ``action is None`` when the step did nothing the spec sees."""

    action: str | None = None
    params: dict[str, object] = field(default_factory=dict)
    messages: list[Message] = field(default_factory=list)
    log_ops: list[tuple[str, object]] = field(default_factory=list)
    quorum_state: QuorumState | None = None


@dataclass(frozen=True)
class Membership:
    """What formatting gave a replica (KIP-853): its kraft.version, its directory id and the
    bootstrap voter set (static: the configured voters without directory ids; standalone: the
    replica itself; initial controllers: those; a replica formatted to join later: empty)."""

    kraft_version: int = STATIC
    directory_id: int = NO_DIRECTORY
    bootstrap: frozenset[ReplicaKey] | None = None  # None: the configured voters (static)


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
        membership: Membership | None = None,
    ) -> None:
        self.id = node_id
        self.config = config
        self.cluster_id = cluster_id
        member = membership or Membership()
        self.kraft_version = member.kraft_version
        self.directory_id = member.directory_id
        self.bootstrap = VoterSet.of(static_keys(config.voters) if member.bootstrap is None else member.bootstrap)
        self.replicas = tuple(sorted(set(replicas) | set(config.voters) | {node_id}))
        self.rng = rng
        self.options = options or ReplicaOptions()
        self.bugs = self.options.bugs
        self.now = now_ms
        qs = quorum_state or QuorumState(current_voters=tuple(sorted(config.voters)))
        self.current_epoch = qs.leader_epoch
        self.voted_id = qs.voted_id
        # The voted candidate's directory id (KIP-853 quorum-state; not a spec variable).
        self.voted_directory_id = qs.voted_directory_id
        self.leader_id = qs.leader_id
        self.log = ReplicatedLog(log_entries, keyed=self.kraft_version == DYNAMIC)
        self.voter_set = self.bootstrap
        self._voters_source: frozenset[ReplicaKey] | None = None
        self.voters: frozenset[int] = self.bootstrap.ids
        self.is_voter = self.voter_set.holds(self.key)
        self._refresh_voters()
        # Leader only: the voter-change requests whose VotersRecord is appended, not answered.
        self.pending_voter_changes: list[Message] = []
        self.high_watermark = 0
        self.votes_granted: set[int] = set()
        self.endorsers: set[int] = set()
        self.replica_end_offset: dict[int, int] = dict.fromkeys(self.replicas, 0)
        # Leader only: the directory id of the Fetch whose offset replica_end_offset holds.
        self.replica_directory_id: dict[int, int] = dict.fromkeys(self.replicas, NO_DIRECTORY)
        self._persisted = (self.current_epoch, self.voted_id, self.leader_id)
        self.state: EpochState = self._initial_state()
        self._ready = Ready()

    # -- spec-visible role --------------------------------------------------

    @property
    def role(self) -> str:
        return self.state.name

    def _initial_state(self) -> EpochState:
        """The state after a (re)start, from the durable quorum state."""
        if self.leader_id == self.id:
            state: EpochState = Resigned()
            self._arm_election(state)
            return state
        if self.leader_id != NIL:
            return self._new_follower_state()
        if self.voted_id != NIL:
            voted = Voted()
            self._arm_election(voted)
            if not self.is_voter and self.kraft_version == DYNAMIC:  # removed: looks for the leader
                voted.next_fetch_at = self.now
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
                self.resign("Shutdown")
        elif isinstance(inp, UpdateVoter):
            self._send_update_voter()
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
            voted = NIL if "vote-not-persisted" in self.bugs else self.voted_id
            if self.kraft_version == DYNAMIC:
                self._ready.quorum_state = QuorumState(
                    leader_id=self.leader_id,
                    leader_epoch=self.current_epoch,
                    voted_id=voted,
                    applied_offset=self.log.end_offset,
                    data_version=DYNAMIC_QUORUM_STATE_DATA_VERSION,
                    voted_directory_id=self.voted_directory_id if voted != NIL else NIL,
                    kraft_version=DYNAMIC,
                )
                return
            self._ready.quorum_state = QuorumState(
                leader_id=self.leader_id,
                leader_epoch=self.current_epoch,
                # Bug vote-not-persisted: the vote never reaches the quorum-state file.
                voted_id=voted,
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
            if self.kraft_version == DYNAMIC:
                self._refresh_voters()

    def truncate_log(self, end_offset: int) -> None:
        if end_offset < self.log.end_offset:
            self.log.truncate(end_offset)
            self._ready.log_ops.append(("truncate", end_offset))
            if self.kraft_version == DYNAMIC:
                self._refresh_voters()

    # -- the voter set -----------------------------------------------------------

    @property
    def key(self) -> ReplicaKey:
        """This replica's key (id, directory id)."""
        return (self.id, self.directory_id)

    @property
    def majority(self) -> int:
        """The number of voters of the current voter set that forms a majority."""
        return self.voter_set.majority

    def _refresh_voters(self) -> None:
        """The voter set from the log (latest VotersRecord, committed or not) or bootstrap."""
        latest = self.log.latest_voters() if self.kraft_version == DYNAMIC else None
        source = None if latest is None else latest[1]
        if source is self._voters_source and source is not None:
            return  # the same VotersRecord as before
        self._voters_source = source
        voter_set = self.bootstrap if latest is None else VoterSet.of(latest[1])
        if voter_set is self.voter_set:
            return
        previous = self.voter_set
        self.voter_set = voter_set
        self.voters = voter_set.ids
        self.is_voter = voter_set.holds(self.key)
        if previous.keys != voter_set.keys:
            self._voters_changed(previous)

    def _voters_changed(self, previous: VoterSet) -> None:
        """A leader starts BeginQuorumEpoch to new voters and forgets removed ones."""
        state = getattr(self, "state", None)
        if isinstance(state, Leader):
            for voter in sorted(self.voters - previous.ids):
                if voter != self.id:
                    state.begin_epoch_due[voter] = self.now
            for voter in previous.ids - self.voters:
                state.begin_epoch_due.pop(voter, None)

    def voter_change_committed(self) -> bool:
        """A leader's voter-change requests await their answer and its latest VotersRecord
        is committed (``CompleteVoterChange`` is due)."""
        if not self.pending_voter_changes:
            return False
        latest = self.log.latest_voters()
        return latest is not None and latest[0] < self.high_watermark

    def _send_update_voter(self) -> None:
        """``SendUpdateVoterRequest(i, j)``: a voter of a dynamic quorum that follows leader
        ``j`` asks it to update its own key."""
        j = self.leader_id
        if self.kraft_version != DYNAMIC or not self.is_voter or j in (NIL, self.id):
            return
        self.set_action("SendUpdateVoterRequest", {"i": self.id, "j": j})
        self.send(Message(type=UPDATE_VOTER_REQUEST, source=self.id, dest=j, clusterId=self.cluster_id,
                          epoch=self.current_epoch, voterId=self.id, voterDirectoryId=self.directory_id))

    def set_action(self, action: str, params: dict[str, object]) -> None:
        """Name the spec action this step performs."""
        self._ready.action = action
        self._ready.params = params

    def committed_voter_set(self) -> VoterSet:
        """The voter set of the latest committed VotersRecord (else the bootstrap set)."""
        for offset in reversed(self.log.voters_record_offsets()):
            if offset < self.high_watermark:
                return VoterSet.of(self.log.entries[offset].voters)
        return self.bootstrap

    def counting_voter_set(self) -> VoterSet:
        """The voter set majorities are counted in (bug ``majority-from-committed-voters``:
        the committed one instead of the latest)."""
        if "majority-from-committed-voters" in self.bugs:
            return self.committed_voter_set()
        return self.voter_set

    # -- timers ---------------------------------------------------------------

    def _random_election_timeout(self) -> int:
        if "early-election" in self.bugs:  # the random backoff without the timeout under it
            return self.rng.randint(0, self.config.election_timeout_ms + self.config.election_backoff_max_ms)
        if "late-election" in self.bugs:  # the backoff max added on top of the random backoff
            backoff = self.config.election_backoff_max_ms
            return self.config.election_timeout_ms + backoff + self.rng.randint(1, backoff)
        return self.config.election_timeout_ms + self.rng.randint(0, self.config.election_backoff_max_ms)

    def _arm_election(self, state: EpochState, delay: int | None = None) -> None:
        if self.is_voter:
            state.election_deadline = self.now + (self._random_election_timeout() if delay is None else delay)

    def next_deadline(self) -> int | None:
        """The earliest armed timer, for the driver to schedule a ``Tick``."""
        deadlines = self._deadlines()
        return min(deadlines) if deadlines else None

    def _deadlines(self) -> list[int]:
        """The armed timers (a leader's due high watermark or voter change: now)."""
        s = self.state
        voter = self.is_voter
        out: list[int] = [s.election_deadline] if voter and s.election_deadline is not None else []
        if isinstance(s, Follower):
            if voter and s.fetch_deadline is not None:
                out.append(s.fetch_deadline)
            if s.next_fetch_at is not None:
                out.append(s.next_fetch_at)
            if s.fetch_sent_at is not None:
                out.append(s.fetch_sent_at + self.config.request_timeout_ms)
        elif not isinstance(s, Leader) and not voter and self.leader_id == NIL:
            if s.next_fetch_at is not None:
                out.append(s.next_fetch_at)
            if s.fetch_sent_at is not None:
                out.append(s.fetch_sent_at + self.config.request_timeout_ms)
        elif isinstance(s, Leader):
            if self.leader_high_watermark_due() or (self.pending_voter_changes and self.voter_change_committed()):
                out.append(self.now)
            out.append(s.check_quorum_deadline)
            out += s.begin_epoch_due.values()
        return out

    def _fire_timer(self) -> None:
        """Fire one expired timer (one spec action) or do nothing."""
        now = self.now
        s = self.state
        if isinstance(s, Leader):
            if self.leader_high_watermark_due():
                self._advance_high_watermark()
                return
            if self.voter_change_committed():
                rpc_voters.complete_voter_change(self)
                return
            if s.check_quorum_deadline <= now:
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
            if timed_out and not self.is_voter:  # KIP-595: "one of the remaining voters at random"
                others = [v for v in self.fetch_targets() if v != s.fetch_target]
                self._send_fetch(s, self.rng.choice(others) if others else self.leader_id)
            elif timed_out or (s.fetch_sent_at is None and s.next_fetch_at is not None and s.next_fetch_at <= now):
                self._send_fetch(s, self.leader_id)
            return
        if not self.is_voter and self.leader_id == NIL:
            timed_out = s.fetch_sent_at is not None and s.fetch_sent_at + self.config.request_timeout_ms <= now
            if timed_out or (s.fetch_sent_at is None and s.next_fetch_at is not None and s.next_fetch_at <= now):
                targets = self.fetch_targets()
                if targets:
                    self._send_fetch(s, self.rng.choice(targets))
                else:  # nobody to ask; look again later
                    s.fetch_sent_at = None
                    s.next_fetch_at = now + self.options.fetch_interval_ms

    def fetch_targets(self) -> list[int]:
        """Where a replica without a leader looks for one: the voters of its set (the spec's
        ``j`` in ``VoterIds(i)``), never itself. A replica that lost its disk may still have its
        id, with its old directory id, among the voters; if that is the whole set (the only
        voter of a standalone quorum), it has nobody to ask."""
        return [v for v in sorted(self.voters) if v != self.id]

    # -- state transitions -----------------------------------------------------

    def _reset_volatile(self) -> None:
        self.votes_granted = set()
        self.endorsers = set()
        self.pending_voter_changes = []
        if any(self.replica_end_offset.values()):
            self.replica_end_offset = dict.fromkeys(self.replicas, 0)
        if any(self.replica_directory_id.values()):
            self.replica_directory_id = dict.fromkeys(self.replicas, NO_DIRECTORY)

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
        itself in its epoch and stands again after a random backoff of at most
        quorum.election.backoff.max.ms, not a whole election timeout (KIP-595 gridlock
        note: "no need to wait for the election timeout ... immediately step down and
        backoff")."""
        retries = self.state.retries if isinstance(self.state, Candidate) else 0
        self._reset_volatile()
        state = Voted(retries=retries + 1)
        self._arm_election(state, self._election_backoff(retries))
        self.state = state

    def _election_backoff(self, retries: int) -> int:
        """A random delay, growing with the failed elections, bounded by
        quorum.election.backoff.max.ms."""
        backoff = min(
            self.config.election_backoff_max_ms,
            self.config.retry_backoff_ms * (2 ** min(retries, 20)),
        )
        return self.rng.randint(0, backoff)

    def _candidate_backoff(self, retries: int) -> int:
        return self.config.election_timeout_ms + self._election_backoff(retries)

    def transition_to_voted(self, candidate: int) -> None:
        """Grant the vote of the current epoch to ``candidate``."""
        self.voted_id = candidate
        self._reset_volatile()
        state = Voted()
        self._arm_election(state)
        if not self.is_voter and self.kraft_version == DYNAMIC:  # KIP-853: non-voters vote too
            state.next_fetch_at = self.now
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
        s = self.state
        retries = s.retries + 1 if isinstance(s, Candidate) else s.retries if isinstance(s, Voted) else 0
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
        counting = self.counting_voter_set()
        if len(self.votes_granted) >= counting.majority:
            self.become_leader()
            return
        targets = [v for v in sorted(counting.ids) if v != self.id]
        if "observer-votes" in self.bugs:
            targets += [r for r in self.replicas if r not in self.voters]
        dynamic = self.kraft_version == DYNAMIC
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
                    sourceDirectoryId=self.directory_id if dynamic else NIL,
                    voterDirectoryId=counting.directory_of(voter) if dynamic else NIL,
                )
            )

    def become_leader(self) -> None:
        """Won the election: append the LeaderChange record, start BeginQuorumEpoch."""
        self.leader_id = self.id
        self.votes_granted = set()
        self.endorsers = set()
        self.replica_end_offset = dict.fromkeys(self.replicas, 0)
        self.replica_directory_id = dict.fromkeys(self.replicas, NO_DIRECTORY)
        self.pending_voter_changes = []
        state = Leader(check_quorum_deadline=self.now + self.config.fetch_timeout_ms)
        for voter in sorted(self.voters):
            if voter != self.id:
                state.begin_epoch_due[voter] = self.now
        self.state = state
        self.append_entries([Entry(self.current_epoch, LEADER_CHANGE, self.id)])

    def resign(self, action: str = "Resign") -> None:
        """``Resign`` (check-quorum failed) or ``Shutdown`` (graceful): EndQuorumEpoch to the
        other voters, preferred successors first."""
        self._ready.action = action
        self._ready.params = {"i": self.id}
        self.step_down()

    def step_down(self) -> None:
        """What ``Resign`` does (also the end of ``CompleteVoterChange`` when this leader
        removed itself)."""
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
        window = self.config.fetch_timeout_ms // 2 if "early-resign" in self.bugs else self.config.fetch_timeout_ms
        window_start = self.now - window
        counted = self.voters if "check-quorum-counts-observers" not in self.bugs else frozenset(self.replicas)
        recent = sorted(
            (t for v, t in state.last_fetch_ms.items() if v in counted and v != self.id and t > window_start),
            reverse=True,
        )
        needed = self.majority - (1 if self.is_voter else 0)
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
        if "begin-epoch-once" in self.bugs:
            del state.begin_epoch_due[voter]
        else:
            state.begin_epoch_due[voter] = self.now + self.config.request_timeout_ms
        dynamic = self.kraft_version == DYNAMIC
        self.send(
            Message(
                type=BEGIN_QUORUM_EPOCH_REQUEST,
                source=self.id,
                dest=voter,
                clusterId=self.cluster_id,
                epoch=self.current_epoch,
                sourceDirectoryId=self.directory_id if dynamic else NIL,
                voterDirectoryId=self.voter_set.directory_of(voter) if dynamic else NIL,
            )
        )

    def _send_fetch(self, state: EpochState, target: int) -> None:
        self._ready.action = "SendFetchRequest"
        self._ready.params = {"i": self.id, "j": target}
        state.fetch_sent_at = self.now
        state.next_fetch_at = None
        state.fetch_target = target
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
                sourceDirectoryId=self.directory_id if self.kraft_version == DYNAMIC else NIL,
            )
        )

    def fetch_completed(self) -> None:
        """A fetch response was handled: the next fetch goes out after the fetch interval."""
        s = self.state
        if isinstance(s, Follower) or not self.is_voter:
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
        if voter == self.id or voter not in self.voters:
            return
        self.endorsers.add(voter)
        state = self.state
        if isinstance(state, Leader):
            state.begin_epoch_due.pop(voter, None)

    # -- high watermark --------------------------------------------------------

    def update_leader_high_watermark(self) -> None:
        """Advance the leader's high watermark to the offset a majority of voters hold,
        when the entry below it is of the current epoch (KIP-595 commitment rule)."""
        self.high_watermark = self._leader_high_watermark()

    def leader_high_watermark_due(self) -> bool:
        """The leader's own appends (or a voter set it appended) let its high watermark
        advance without a Fetch: a one-voter quorum (spec ``AdvanceHighWatermark``)."""
        return self.role == LEADER and self._leader_high_watermark() > self.high_watermark

    def _advance_high_watermark(self) -> None:
        """``AdvanceHighWatermark``: the leader's high watermark follows its own log end."""
        self.set_action("AdvanceHighWatermark", {"i": self.id})
        self.update_leader_high_watermark()

    def _leader_high_watermark(self) -> int:
        """The high watermark the leader's view of the voters' log ends allows."""
        counting = self.counting_voter_set()
        if self.kraft_version == DYNAMIC:
            ends = sorted((self._voter_end_offset(k) for k in counting.keys), reverse=True)
        else:
            ends = sorted(
                (self.log.end_offset if v == self.id else self.replica_end_offset.get(v, 0) for v in counting.ids),
                reverse=True,
            )
        candidate = ends[counting.majority - 1]
        if candidate <= self.high_watermark:
            return self.high_watermark
        if "hw-on-old-epoch" not in self.bugs and self.log.epoch_at(candidate - 1) != self.current_epoch:
            return self.high_watermark
        return candidate

    def _voter_end_offset(self, key: ReplicaKey) -> int:
        """The leader's view of voter ``key``'s log end: its own log end if it is that voter,
        the fetch offset last accepted from that id with that directory id, else 0."""
        vid, directory = key
        if vid == self.id:
            return self.log.end_offset if directory == self.directory_id else 0
        if self.replica_directory_id.get(vid) != directory:
            return 0
        return self.replica_end_offset.get(vid, 0)

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
        if self.kraft_version == DYNAMIC:
            return {
                **self._kip595_state(),
                "dirId": self.directory_id,
                "replicaDirectoryId": dict(self.replica_directory_id),
                "pendingVoterChange": frozenset(self.pending_voter_changes) if self.pending_voter_changes else _NO_MESSAGES,
            }
        return self._kip595_state()

    def _kip595_state(self) -> dict[str, object]:
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
    **dict.fromkeys(VOTER_CHANGE_REQUESTS, rpc_voters.handle_voter_change_request),
    UPDATE_VOTER_RESPONSE: rpc_voters.handle_update_voter_response,
}
