"""Deterministic discrete-event simulator of a KRaft cluster with fault injection.

Virtual clock, one seeded ``random.Random`` per concern (network and faults, client,
each replica), in-memory storage with crash semantics, graceful shutdowns (a leader
resigns with EndQuorumEpoch before stopping), and a network that may lose, duplicate,
reorder and delay messages and be partitioned. The stale-message faults aim old messages at
the moments when they matter: right after a replica changes epoch, leader or role (or
restarts) some messages it was sent earlier arrive again (``stale``), the messages of a step
that changes the sender's epoch are often delivered twice (``epoch-duplicate``), and now and
then the oldest message in flight is delivered next (``oldest-first``); when a replica's log
end comes back to the fetch offset of an old FetchResponse with another last epoch, that
response arrives again (``stale-position``); the spec's network keeps every message sent, so
each of these deliveries is a spec step. A client appends to the replica it wrote to last
until that one refuses (a deposed leader cut off from the quorum keeps taking appends, as
with a real client), then to the leader of the latest epoch. A replica whose step
raises stops the run: the input and the exception are traced as the last step (an ``error``
line), so that the validator reports that step. After every protocol step
the safety invariants (``reference.sim.invariants``) are checked; a failing seed is
reported with the command that reproduces it. Every step is traced (``traces/FORMAT.md``).

With ``quorum="dynamic"`` (KIP-853, kraft.version 1) the voter set lives in the log: the
voters are formatted as initial controllers (or the first one standalone), every other replica
is formatted to join later, a disk loss gives a replica a new directory id, and the
reassignment driver (``reference.sim.reassignment``) sends AddVoter / RemoveVoter /
UpdateVoter requests to the leader at random times (it finds the leader and the new voters'
progress with DescribeQuorum, and now and then sends a request the leader must refuse); the voter-change rules are checked after
every step too (``reference.sim.voter_invariants``). ``quorum="static"`` is KIP-595 as before.

With ``storage="file"`` every replica keeps its state in real files (a temporary folder each)
under the crash model of ``reference.crashfs``: a crash explores the states the disk may be
left in (unsynced writes dropped, reordered, the last one torn), recovers each from the files,
and fails the run when one loses an acknowledged epoch, vote or record or refuses to start.

``run_seed(config, seed) -> RunResult`` is the API used by the CLI and the pipeline.
"""

from __future__ import annotations

import heapq
import random
from collections import deque
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from reference.core.config import QuorumConfig
from reference.core.log import ReplicatedLog
from reference.core.messages import (
    ADD_VOTER_REQUEST,
    ADD_VOTER_RESPONSE,
    DUPLICATE_VOTER,
    FETCH_REQUEST,
    FETCH_RESPONSE,
    HANDLER_ACTION,
    INVALID_CLUSTER_ID,
    INVALID_REQUEST,
    NIL,
    NONE,
    REMOVE_VOTER_REQUEST,
    REMOVE_VOTER_RESPONSE,
    UPDATE_VOTER_REQUEST,
    UPDATE_VOTER_RESPONSE,
    VOTE_REQUEST,
    VOTER_CHANGE_RESPONSE,
    VOTER_NOT_FOUND,
    Message,
)
from reference.core.replica import (
    ClientAppend,
    Deliver,
    Input,
    Membership,
    Ready,
    Replica,
    ReplicaOptions,
    Shutdown,
    Tick,
    UpdateVoter,
)
from reference.core.rpc_fetch import DescribeQuorumResult
from reference.core.rpc_voters import change_uncommitted, own_epoch_committed
from reference.core.states import LEADER, RESIGNED
from reference.core.voter_set import DYNAMIC
from reference.crashfs.file_disk import FileDisks, Problem, ReplicaDisk
from reference.sim.bugs import parse_bug
from reference.sim.faults import DEFAULT_FAULTS, parse_faults
from reference.sim.invariants import SafetyChecker, Violation
from reference.sim.reassignment import VoterChange, draw_target, next_change, refused_change
from reference.sim.voter_invariants import VoterChangeChecker
from reference.storage.base import MemoryStorage
from reference.storage.persist import persist, persist_until_crash, stage
from reference.trace.itf_encode import encode_keyed_message
from reference.trace.spec_constants import FOREIGN_CLUSTER_ID, FOREIGN_REQUEST_TYPES, spec_constants
from reference.trace.trace_writer import TraceWriter

_DELIVER, _TICK, _CLIENT, _FAULT, _RESTART, _HEAL, _STOP, _ADMIN, _FSYNC = range(9)

QUORUMS = ("dynamic", "static")
STORAGES = ("memory", "file")
BOOTSTRAPS = ("initial-controllers", "standalone")
# The operator's requests come from Nil (the spec's admin client; no replica has that id).
ADMIN_ID = NIL
# Probability that a crash picks the leader while a voter change is under way.
_CRASH_LEADER_MID_CHANGE_PROBABILITY = 0.5

# Probability that a graceful shutdown picks the current leader (when one is up).
_SHUTDOWN_LEADER_PROBABILITY = 0.7

# Stale-message faults: how many recent messages of each type to each replica are kept for
# re-delivery, the chance that a change of epoch, leader or role (or a restart) brings some
# of them back (of at most _STALE_MAX types, within _STALE_LATENCY_MS), the chance that a
# message sent in a step that changed the sender's epoch is delivered twice, and the chance,
# after each event, that the oldest message in flight is delivered next.
_RECENT_MESSAGES = 3
_STALE_PROBABILITY = 0.5
_STALE_MAX = 2
_STALE_LATENCY_MS = 5
_EPOCH_DUPLICATE_PROBABILITY = 0.5
_OLDEST_FIRST_PROBABILITY = 0.05
# A message sent before the receiver's last change of epoch, leader or role and delivered
# at most this long after it counts as "old message right after a change" (RunStats).
STALE_WINDOW_MS = 100
# Probability that a crash falls inside the crashing replica's next step, after the step's
# durable writes and after a random number of its sends, instead of between steps.
_CRASH_IN_STEP_PROBABILITY = 0.5
# Fault crash, on memory storage: a new leader crashes inside its winning step, between its
# quorum-state write and its leaderChange record (the spec's CrashBetweenWrites), with this
# probability per election won (drawn from its own generator: the other faults' draws stay
# the same); a crash already due inside that step falls there with the second probability.
_CRASH_AT_ELECTION_PROBABILITY = 0.05
_CRASH_BETWEEN_WRITES_PROBABILITY = 0.5
# Bug respond-then-fsync: the fsync of a step's writes comes this many ms after its sends.
_LATE_FSYNC_MS = (1, 30)
# Fault stale-position: the chance that an old FetchResponse at a replica's new log end (with
# another last epoch) is delivered again.
_STALE_POSITION_PROBABILITY = 0.5
# Fault isolate-leader: the chance that a new leader is cut off right after its election.
_ISOLATE_LEADER_PROBABILITY = 0.2
# The operator: the chance that a request it sends to a leader ready for a change is one the
# leader must refuse (reassignment.refused_change), that a new target is a single voter, and
# that it leaves out the current leader.
_REFUSED_CHANGE_PROBABILITY = 0.1
# ... and, while a voter's replica runs with a new directory id (it lost its disk), the chance
# that the operator first tries to add that replica again (refused: its id is a voter; once
# per new directory id).
_READD_REBUILT_VOTER_PROBABILITY = 0.5
_SINGLE_VOTER_TARGET_PROBABILITY = 0.1
_MOVE_LEADER_PROBABILITY = 0.3
# DescribeQuorum: how many times the operator follows a "not the leader, ask that one" answer,
# and how many replicas it asks first when the answers lead nowhere.
_DESCRIBE_REDIRECTS = 2
_DESCRIBE_ATTEMPTS = 3


@dataclass(frozen=True)
class SimConfig:
    """One simulation setting; every seed of a batch runs with it."""

    voters: int = 3
    observers: int = 1
    faults: frozenset[str] = frozenset(DEFAULT_FAULTS)
    steps: int = 1000
    out_dir: Path | None = None
    bug: str | None = None
    trace: bool = True
    gzip: bool = False
    full_state_every: int = 0  # every N-th trace event carries the full state (0: deltas only)
    values: int = 3
    cluster_id: str = "kraft-sim-cluster"
    fetch_timeout_ms: int = 1000
    election_timeout_ms: int = 500
    election_backoff_max_ms: int = 500
    request_timeout_ms: int = 400
    retry_backoff_ms: int = 20
    retry_backoff_max_ms: int = 400
    fetch_interval_ms: int = 50
    client_interval_ms: int = 120
    fault_interval_ms: int = 1500
    loss_probability: float = 0.05
    duplicate_probability: float = 0.05
    max_time_ms: int = 0
    quorum: str = "static"
    bootstrap: str = "initial-controllers"
    reassign_interval_ms: int = 1200
    target_sizes: tuple[int, ...] = (3, 5)
    storage: str = "memory"

    def __post_init__(self) -> None:
        if self.storage not in STORAGES:
            raise ValueError(f"unknown storage {self.storage!r}; known: {', '.join(STORAGES)}")
        if self.bug == "respond-then-fsync" and self.storage != "memory":
            raise ValueError("bug switch respond-then-fsync stages writes in memory storage: use --storage memory")
        if self.quorum not in QUORUMS:
            raise ValueError(f"unknown quorum {self.quorum!r}; known: {', '.join(QUORUMS)}")
        if self.bootstrap not in BOOTSTRAPS:
            raise ValueError(f"unknown bootstrap {self.bootstrap!r}; known: {', '.join(BOOTSTRAPS)}")
        if self.voters < 1:
            raise ValueError("the simulator needs at least 1 voter")
        if self.observers < 0 or self.steps < 1 or self.values < 1:
            raise ValueError("observers must be >= 0, steps and values >= 1")
        parse_faults(self.faults)
        parse_bug(self.bug)

    @property
    def dynamic(self) -> bool:
        return self.quorum == "dynamic"

    @property
    def initial_voter_ids(self) -> tuple[int, ...]:
        """The voters the quorum is formatted with (one when standalone)."""
        if self.dynamic and self.bootstrap == "standalone":
            return (1,)
        return self.voter_ids

    @property
    def voter_ids(self) -> tuple[int, ...]:
        return tuple(range(1, self.voters + 1))

    @property
    def observer_ids(self) -> tuple[int, ...]:
        return tuple(range(self.voters + 1, self.voters + self.observers + 1))

    def quorum_config(self) -> QuorumConfig:
        return QuorumConfig(
            voters=frozenset(self.voter_ids),
            fetch_timeout_ms=self.fetch_timeout_ms,
            election_timeout_ms=self.election_timeout_ms,
            election_backoff_max_ms=self.election_backoff_max_ms,
            request_timeout_ms=self.request_timeout_ms,
            retry_backoff_ms=self.retry_backoff_ms,
            retry_backoff_max_ms=self.retry_backoff_max_ms,
        )

    def trace_path(self, seed: int) -> Path | None:
        if not self.trace or self.out_dir is None:
            return None
        name = f"seed-{seed}" + (f"-{self.bug}" if self.bug else "") + ".ndjson"
        return self.out_dir / (name + (".gz" if self.gzip else ""))

    def crash_state_path(self, seed: int) -> Path | None:
        """Where ``--storage file`` writes a crash state that fails (next to the trace)."""
        if not self.trace or self.out_dir is None:
            return None
        return self.out_dir / (f"seed-{seed}" + (f"-{self.bug}" if self.bug else "") + "-crash-state")

    def repro_command(self, seed: int) -> str:
        faults = ",".join(sorted(self.faults)) or "none"
        cmd = (
            f"kraftcheck simulate --quorum {self.quorum} --seeds {seed} --voters {self.voters} "
            f"--observers {self.observers} --faults {faults} --steps {self.steps}"
        )
        if self.dynamic and self.bootstrap != "initial-controllers":
            cmd += f" --bootstrap {self.bootstrap}"
        if self.bug:
            cmd += f" --inject-bug {self.bug}"
        if self.storage != "memory":
            cmd += f" --storage {self.storage}"
        return cmd + f" --out {self.out_dir or 'sim-out'}"


@dataclass(frozen=True)
class Failure:
    """An invariant that failed, where, and how to reproduce it."""

    seed: int
    step: int
    time_ms: int
    invariant: str
    replica: int
    detail: str
    repro: str

    def __str__(self) -> str:
        return (
            f"seed {self.seed}, step {self.step} (t={self.time_ms} ms), replica {self.replica}: "
            f"{self.invariant}: {self.detail}\n  reproduce: {self.repro}"
        )


@dataclass
class RunStats:
    events: int = 0
    elections: int = 0
    commits: int = 0
    client_appends: int = 0
    messages_sent: int = 0
    messages_delivered: int = 0
    messages_dropped: int = 0
    crashes: int = 0
    crashes_in_step: int = 0  # of which inside a step's window (after its writes, amid its sends)
    crashes_between_writes: int = 0  # of which between a new leader's quorum-state and log writes
    shutdowns: int = 0
    disk_losses: int = 0
    partitions: int = 0
    voter_change_requests: int = 0
    voter_changes_committed: int = 0
    adds_committed: int = 0
    removes_committed: int = 0
    updates_committed: int = 0
    self_removals: int = 0
    rejoins_committed: int = 0
    refused_change_requests: int = 0  # requests the operator sent that the leader must refuse
    stale_position_redeliveries: int = 0
    leader_isolations: int = 0
    stale_redeliveries: int = 0
    epoch_duplicates: int = 0
    oldest_first_deliveries: int = 0
    # Messages handled within STALE_WINDOW_MS after the receiver changed epoch, leader or
    # role (or restarted) that were sent before that change; those of an older epoch.
    old_after_change: int = 0
    older_epoch_after_change: int = 0
    replica_errors: int = 0
    sim_time_ms: int = 0
    crash_points: int = 0  # file storage: crash points explored
    crash_states: int = 0  # file storage: distinct crash states recovered and checked

    def add(self, other: RunStats) -> None:
        for name in self.__dataclass_fields__:
            setattr(self, name, getattr(self, name) + getattr(other, name))


@dataclass
class RunResult:
    seed: int
    events: int
    stats: RunStats
    failures: list[Failure] = field(default_factory=list)
    trace_path: Path | None = None

    @property
    def ok(self) -> bool:
        return not self.failures


@dataclass
class _Node:
    id: int
    storage: MemoryStorage | ReplicaDisk
    replica: Replica | None
    rng: random.Random
    tick_at: int | None = None
    # While a resigned leader's graceful shutdown is under way: the epoch it resigned.
    resigned_epoch: int | None = None
    # What formatting gave the node (a dynamic quorum's disk loss reformats it).
    membership: Membership = field(default_factory=Membership)
    # When the replica last changed epoch, leader or role, or restarted.
    changed_at: int = -1
    # A crash is due inside the window of this node's next step (fault crash).
    crash_in_step: bool = False
    # Bug respond-then-fsync: the files written since the last fsync (durable at the next).
    staged: list[str] = field(default_factory=list)


class Simulation:
    """One run of one seed."""

    def __init__(self, config: SimConfig, seed: int) -> None:
        self.config = config
        self.seed = seed
        self.quorum = config.quorum_config()
        self.options = ReplicaOptions(fetch_interval_ms=config.fetch_interval_ms, bugs=parse_bug(config.bug))
        self.respond_then_fsync = "respond-then-fsync" in self.options.bugs
        self.faults = config.faults
        self.net_rng = random.Random(f"net-{seed}")
        self.fault_rng = random.Random(f"fault-{seed}")
        self.client_rng = random.Random(f"client-{seed}")
        self.ids = config.voter_ids + config.observer_ids
        self.now = 0
        self.queue: list[tuple[int, int, int, int, Any]] = []
        self.seq = 0
        self.blocked: dict[tuple[int, int], int] = {}
        self.link_last: dict[tuple[int, int], int] = {}
        self.stats = RunStats()
        self.checker = SafetyChecker()
        self.failures: list[Failure] = []
        self.nodes: dict[int, _Node] = {}
        self.last_state: dict[int, dict[str, object]] = {}
        self.admin_rng = random.Random(f"admin-{seed}")
        self.voter_checker = VoterChangeChecker() if config.dynamic else None
        self.target: frozenset[int] = frozenset(config.initial_voter_ids)
        self.admin_waiting: Message | None = None
        # The operator was told its last request was a mistake: its next one is not.
        self.admin_corrects = False
        # The keys of rebuilt voters the operator tried to add again (once each).
        self.readded: set[tuple[int, int]] = set()
        self.disks = FileDisks(config.cluster_id, seed, config.crash_state_path(seed)) if config.storage == "file" else None
        self.stale_rng = random.Random(f"stale-{seed}")
        self.stale = "stale" in config.faults
        self.epoch_duplicate = "epoch-duplicate" in config.faults
        self.oldest_first = "oldest-first" in config.faults
        # Recent messages sent to each replica by type, with their send times (fault ``stale``).
        self.recent: dict[int, dict[str, deque[tuple[Message, int]]]] = {rid: {} for rid in self.ids}
        # Deliveries in the queue by sequence number, oldest first (fault ``oldest-first``).
        self.in_flight: dict[int, tuple[Message, int]] = {}
        self.stale_position = "stale-position" in config.faults
        self.isolate_leader = "isolate-leader" in config.faults
        self.isolate_rng = random.Random(f"isolate-{seed}")
        self.position_rng = random.Random(f"position-{seed}")
        self.crash_at_election = "crash" in config.faults
        self.window_rng = random.Random(f"window-{seed}")
        # The last FetchResponse sent to each replica per fetch offset (fault ``stale-position``).
        self.fetch_responses: dict[int, dict[int, tuple[Message, int]]] = {rid: {} for rid in self.ids}
        # The replica the client appended to last.
        self.client_target: int | None = None
        for rid in self.ids:
            rng = random.Random(f"replica-{seed}-{rid}")
            storage: MemoryStorage | ReplicaDisk = (
                self.disks.new_disk(rid) if self.disks is not None else MemoryStorage(rid, config.cluster_id))
            membership = self._format(rid, 1)
            replica = self._new_replica(rid, storage, rng, membership)
            self.nodes[rid] = _Node(rid, storage, replica, rng, membership=membership)
        self.trace_path = config.trace_path(seed)
        self.writer = (TraceWriter(self.trace_path, config.full_state_every)
                       if self.trace_path is not None else None)
        self.max_time = config.max_time_ms or config.steps * 200 + 60_000

    # -- setup -------------------------------------------------------------------

    def _format(self, rid: int, directory_id: int) -> Membership:
        """Formatting: static (kraft.version 0), or kraft.version 1 with a directory id; every
        replica knows the initial controllers' keys as its bootstrap voter set (the spec's
        ``Voters``; a replica that is not among them is an observer until a VotersRecord
        names it)."""
        cfg = self.config
        if not cfg.dynamic:
            return Membership()
        bootstrap = frozenset((v, 1) for v in cfg.initial_voter_ids)
        return Membership(kraft_version=DYNAMIC, directory_id=directory_id, bootstrap=bootstrap)

    def _new_replica(self, rid: int, storage: MemoryStorage | ReplicaDisk, rng: random.Random, membership: Membership) -> Replica:
        return Replica(
            rid,
            self.quorum,
            self.config.cluster_id,
            self.ids,
            rng,
            now_ms=self.now,
            quorum_state=storage.read_quorum_state(),
            log_entries=storage.read_log(),
            options=self.options,
            membership=membership,
        )

    def _push(self, time: int, kind: int, node: int, payload: Any = None) -> None:
        self.seq += 1
        heapq.heappush(self.queue, (time, self.seq, kind, node, payload))

    def _schedule_tick(self, node: _Node) -> None:
        if node.replica is None:
            return
        deadline = node.replica.next_deadline()
        if deadline is None:
            return
        deadline = max(deadline, self.now)
        if node.tick_at is None or deadline < node.tick_at:
            node.tick_at = deadline
            self._push(deadline, _TICK, node.id)

    # -- running -------------------------------------------------------------------

    def run(self) -> RunResult:
        try:
            reason = self._run()
        finally:
            if self.writer is not None:
                self.writer.close()
            if self.disks is not None:
                self.disks.close()
                self.stats.crash_points = self.disks.figures.crash_points
                self.stats.crash_states = self.disks.figures.crash_states
        del reason
        self.stats.sim_time_ms = self.now
        self.stats.commits = self.checker.committed_length
        return RunResult(self.seed, self.stats.events, self.stats, self.failures, self.trace_path)

    def _run(self) -> str:
        cfg = self.config
        if self.writer is not None:
            initial = cfg.initial_voter_ids
            observers = tuple(r for r in self.ids if r not in initial)
            constants = spec_constants(initial, observers, cfg.values, cfg.cluster_id, "foreign" in cfg.faults, cfg.dynamic,
                                       timing=self.quorum.timing(), fetch_max_records=self.options.fetch_max_records)
            self.writer.header(constants, self.seed, sorted(cfg.faults), cfg.bug)
            self.last_state = {rid: n.replica.trace_state() for rid, n in self.nodes.items() if n.replica}
            self.writer.init(self.last_state)
        for node in self.nodes.values():
            assert node.replica is not None
            self.checker.reset_replica(node.id, node.replica.log.entries, node.replica.current_epoch, True)
            self._schedule_tick(node)
        self._push(cfg.client_interval_ms, _CLIENT, 0)
        if self._fault_kinds():
            self._push(self._fault_gap(), _FAULT, 0)
        if cfg.dynamic:
            self._push(self._admin_gap(), _ADMIN, 0)
        reason = "step limit reached"
        queue, nodes, stats, failures, in_flight = self.queue, self.nodes, self.stats, self.failures, self.in_flight
        oldest_first, max_time, steps = self.oldest_first, self.max_time, cfg.steps
        while queue:
            time, seq, kind, nid, payload = heapq.heappop(queue)
            if time > max_time:
                reason = "time limit reached"
                break
            if kind == _DELIVER and oldest_first and in_flight.pop(seq, None) is None:
                continue  # delivered early by the oldest-first bias
            self.now = time
            if kind == _DELIVER:
                self._deliver(*payload)
            elif kind == _TICK:
                node = nodes[nid]
                if node.tick_at == time:
                    node.tick_at = None
                    self._tick(node)
            elif kind == _CLIENT:
                self._client()
            elif kind == _FAULT:
                self._inject_fault()
            elif kind == _RESTART:
                self._restart(nodes[nid], disk_lost=bool(payload))
            elif kind == _HEAL:
                self._heal(payload)
            elif kind == _STOP:
                self._stop(nodes[nid], payload)
            elif kind == _ADMIN:
                self._admin(periodic=payload is None)
            elif kind == _FSYNC:
                self._fsync(nodes[nid], payload)
            if (oldest_first and in_flight and not failures and stats.events < steps
                    and self.stale_rng.random() < _OLDEST_FIRST_PROBABILITY):
                self._deliver_oldest()
            if failures:
                reason = "replica raised" if stats.replica_errors else "invariant violated"
                break
            if stats.events >= steps:
                break
        if self.writer is not None:
            self.writer.end(reason)
        return reason

    def _tick(self, node: _Node) -> None:
        replica = node.replica
        if replica is None:
            return
        ready = self._step(node, Tick())
        if ready is not None and ready.action is None:
            deadline = replica.next_deadline()
            if deadline is not None and deadline <= self.now:
                raise RuntimeError(f"replica {node.id}: timer due at {deadline} fired nothing at {self.now}")

    def _deliver(self, m: Message, sent_at: int) -> None:
        if m.dest == ADMIN_ID:
            self._admin_response(m)
            return
        node = self.nodes[m.dest]
        replica = node.replica
        if replica is None or self.blocked.get((m.source, m.dest)):
            self.stats.messages_dropped += 1
            return
        self.stats.messages_delivered += 1
        if sent_at < node.changed_at and self.now - node.changed_at <= STALE_WINDOW_MS:
            self.stats.old_after_change += 1
            if m.epoch < replica.current_epoch:
                self.stats.older_epoch_after_change += 1
        self._step(node, Deliver(m))

    def _deliver_oldest(self) -> None:
        """Fault ``oldest-first``: the oldest message in flight is delivered now."""
        seq = next(iter(self.in_flight))
        m, sent_at = self.in_flight.pop(seq)
        self.stats.oldest_first_deliveries += 1
        self._deliver(m, sent_at)

    def _step(self, node: _Node, inp: Input) -> Ready | None:
        """Step a replica. An exception inside it stops the run: the input and the error are
        traced as the last step and reported as the failure ``ReplicaError``."""
        replica = node.replica
        assert replica is not None
        before = (replica.current_epoch, replica.leader_id, replica.role)
        try:
            ready = replica.step(inp, self.now)
        except Exception as exc:
            self._raised(node, inp, exc)
            return None
        self._after_step(node, ready)
        if node.replica is replica and (replica.current_epoch, replica.leader_id, replica.role) != before:
            self._changed(node, epoch_changed=replica.current_epoch != before[0], sent=ready.messages)
        return ready

    def _raised(self, node: _Node, inp: Input, exc: Exception) -> None:
        """Trace the input that made the replica raise, with the error, and fail the run."""
        error = f"{type(exc).__name__}: {exc}"
        self.stats.events += 1
        self.stats.replica_errors += 1
        if self.writer is not None:
            action, params = _input_action(node.id, inp)
            if self.config.dynamic and isinstance(inp, Deliver):
                encode_keyed_message(inp.message)
            self.writer.error(self.now, node.id, type(inp).__name__, action, params, type(exc).__name__, str(exc))
        self._check(node.id, [Violation("ReplicaError", node.id, error)])

    def _changed(self, node: _Node, epoch_changed: bool, sent: Sequence[Message]) -> None:
        """The replica changed epoch, leader or role, or restarted: aim old messages at it."""
        node.changed_at = self.now
        rng = self.stale_rng
        recent = self.recent[node.id]
        if self.stale and recent and rng.random() < _STALE_PROBABILITY:
            types = sorted(recent)
            for kind in rng.sample(types, min(len(types), rng.randint(1, _STALE_MAX))):
                m, sent_at = rng.choice(recent[kind])
                self.stats.stale_redeliveries += 1
                self._enqueue(self.now + rng.randint(0, _STALE_LATENCY_MS), m, sent_at)
        if self.isolate_leader and node.replica is not None and node.replica.role == LEADER and len(self.ids) > 1:
            self._isolate(node.id)
        if self.epoch_duplicate and epoch_changed:
            for m in sent:
                if rng.random() < _EPOCH_DUPLICATE_PROBABILITY:
                    self.stats.epoch_duplicates += 1
                    self._enqueue(self.now + rng.randint(5, self.config.request_timeout_ms), m, self.now)

    def _client(self) -> None:
        """A client appends to the replica it appended to last while that one runs: a deposed
        leader that has not noticed yet (cut off from the quorum) takes the append, any other
        role refuses it. After a refusal, or when that replica is down, the client appends to
        the leader of the latest epoch (as a client told NOT_LEADER asks the leader it is named)."""
        cfg = self.config
        self._push(self.now + self.client_rng.randint(cfg.client_interval_ms // 2, cfg.client_interval_ms * 3 // 2), _CLIENT, 0)
        value = self.client_rng.randint(1, cfg.values)
        last = self.nodes[self.client_target] if self.client_target is not None else None
        if last is not None and last.replica is not None:
            ready = self._step(last, ClientAppend(value))
            if ready is None:
                return
            if ready.action is not None:
                self.stats.client_appends += 1
                return
        leaders = [n for n in self.nodes.values() if n.replica is not None and n.replica.role == LEADER]
        if not leaders:
            return
        node = max(leaders, key=lambda n: (n.replica.current_epoch if n.replica else -1, n.id))
        self.client_target = node.id
        ready = self._step(node, ClientAppend(value))
        if ready is not None and ready.action is not None:
            self.stats.client_appends += 1

    def _after_step(self, node: _Node, ready: Ready) -> None:
        replica = node.replica
        assert replica is not None
        if ready.action is None:
            if ready.messages or ready.log_ops:
                raise RuntimeError(f"replica {node.id}: a step without action produced output")
            self._schedule_tick(node)
            return
        disk = node.storage if isinstance(node.storage, ReplicaDisk) else None
        if disk is not None:
            disk.begin_step(ready.log_ops, ready.quorum_state is not None)
        between_writes = False
        if self.respond_then_fsync:
            # Bug: the writes are staged, the messages leave, the fsync comes later.
            writes: tuple[str, ...] = ()
            assert isinstance(node.storage, MemoryStorage)  # SimConfig refuses file storage with it
            staged = stage(node.storage, ready)
            if staged:
                if not node.staged:
                    self._push(self.now + self.fault_rng.randint(*_LATE_FSYNC_MS), _FSYNC, node.id, replica)
                node.staged += [f for f in staged if f not in node.staged]
        elif isinstance(node.storage, MemoryStorage) and self._crashes_between_writes(node, ready):
            writes = persist_until_crash(node.storage, ready)
            node.crash_in_step = between_writes = True
        else:
            writes = persist(node.storage, ready)
        self.stats.events += 1
        if ready.action == "HandleVoteResponse" and replica.role == LEADER and ready.log_ops:
            self.stats.elections += 1
        # A crash inside the step's window falls after its writes and after some of its sends;
        # the trace lists every message of the step (the spec's step sends them all), the
        # unsent ones being lost in the network.
        crash_in_step = node.crash_in_step
        sends = len(ready.messages)
        if crash_in_step:
            node.crash_in_step = False
            if between_writes:
                sends = 0  # the crash came before the log write, so before any send
                self.stats.crashes_between_writes += 1
            else:
                sends = self.fault_rng.randint(0, sends)
        for m in ready.messages[:sends]:
            self._send(m)
        if disk is not None:
            disk.after_step(ready.log_ops, ready.messages, replica.role, replica.high_watermark)
            self._check_disk(node.id, disk.explore_step())
        if self.writer is not None:
            state = self.last_state[node.id] = replica.trace_state()
            self._trace(self.now, node.id, ready.action, ready.params, state, ready.messages, writes)
        self._check(
            node.id,
            self.checker.after_step(node.id, replica.role, replica.current_epoch, replica.high_watermark, ready.log_ops),
        )
        if self.voter_checker is not None:
            self._check(node.id, self.voter_checker.after_step(replica, ready))
            if ready.action == "CompleteVoterChange":
                self._count_completion(replica, ready)
        if crash_in_step:
            self.stats.crashes_in_step += 1
            self._crash(node, disk_lost=False)
            return
        if self.stale_position and ready.log_ops:
            self._replay_position(node, replica)
        if node.resigned_epoch is not None and replica.current_epoch > node.resigned_epoch:
            self._push(self.now, _STOP, node.id, replica)
        self._schedule_tick(node)

    def _crashes_between_writes(self, node: _Node, ready: Ready) -> bool:
        """A crash falls inside this step, between its two writes: a new leader's quorum-state
        (durable) and its leaderChange record (lost). On memory storage only: file storage
        explores every crash point of a step's writes itself."""
        replica = node.replica
        if not (self.crash_at_election and replica is not None and replica.role == LEADER
                and ready.quorum_state is not None and ready.log_ops):
            return False
        chance = _CRASH_BETWEEN_WRITES_PROBABILITY if node.crash_in_step else _CRASH_AT_ELECTION_PROBABILITY
        return self.window_rng.random() < chance

    def _replay_position(self, node: _Node, replica: Replica) -> None:
        """Fault ``stale-position``: the log of ``replica`` changed; an old FetchResponse to it
        whose fetch offset is its new log end but whose last fetched epoch is not its last
        epoch (the log was truncated and fetched back) may arrive again."""
        kept = self.fetch_responses[node.id].get(replica.log.end_offset)
        if kept is None or kept[0].lastFetchedEpoch == replica.log.last_epoch:
            return
        rng = self.position_rng
        if rng.random() < _STALE_POSITION_PROBABILITY:
            self.stats.stale_position_redeliveries += 1
            self._enqueue(self.now + rng.randint(0, _STALE_LATENCY_MS), kept[0], kept[1])

    def _fsync(self, node: _Node, replica: Replica) -> None:
        """Bug respond-then-fsync: the late fsync of the staged writes of ``replica`` (nothing
        when that replica crashed meanwhile: the crash dropped them). Traced as ``Flush``."""
        if node.replica is not replica or not node.staged:
            return
        node.storage.flush()
        writes = [f for f in ("quorumState", "log") if f in node.staged]
        node.staged = []
        self.stats.events += 1
        if self.writer is not None:
            self._trace(self.now, node.id, "Flush", {"i": node.id}, self.last_state[node.id], (), writes)

    def _trace(self, time_ms: int, replica: int, action: str, params: dict[str, Any],
               state: dict[str, object], sent: Sequence[Message], writes: Sequence[str] = ()) -> None:
        """Write one event (a dynamic quorum's messages carry the KIP-853 fields)."""
        assert self.writer is not None
        if self.config.dynamic:
            for m in sent:
                encode_keyed_message(m)
        self.writer.event(time_ms, replica, action, params, state, sent, writes)

    def _check_disk(self, rid: int, problems: list[Problem]) -> None:
        """Failures of the file storage under the crash model (``--storage file``)."""
        self._check(rid, [Violation(p.invariant, rid, p.detail) for p in problems])

    def _check(self, rid: int, violations: list[Violation]) -> None:
        for v in violations:
            self.failures.append(
                Failure(self.seed, self.stats.events, self.now, v.invariant, v.replica, v.detail, self.config.repro_command(self.seed))
            )

    # -- network -------------------------------------------------------------------

    def _send(self, m: Message) -> None:
        rng = self.net_rng
        faults = self.faults
        self.stats.messages_sent += 1
        if "loss" in faults and rng.random() < self.config.loss_probability:
            self.stats.messages_dropped += 1
            return
        at = self.now + rng.randint(1, 5)
        link = (m.source, m.dest)
        if "reorder" in faults:
            at += rng.randint(0, 40)
        else:
            at = max(at, self.link_last.get(link, 0))
            self.link_last[link] = at
        if "delay" in faults and rng.random() < 0.01:
            at += rng.randint(100, 3 * self.config.fetch_timeout_ms)
        self._enqueue(at, m, self.now)
        if "duplicate" in faults and rng.random() < self.config.duplicate_probability:
            self._enqueue(at + rng.randint(0, 60), m, self.now)
        if self.stale_position and m.type == FETCH_RESPONSE:
            self.fetch_responses[m.dest][m.fetchOffset] = (m, self.now)
        if self.stale and m.dest != ADMIN_ID:
            recent = self.recent[m.dest]
            kept = recent.get(m.type)
            if kept is None:
                kept = recent[m.type] = deque(maxlen=_RECENT_MESSAGES)
            kept.append((m, self.now))

    def _enqueue(self, at: int, m: Message, sent_at: int) -> None:
        """Schedule one delivery of ``m`` (sent at ``sent_at``) at time ``at``."""
        self._push(at, _DELIVER, m.dest, (m, sent_at))
        if self.oldest_first:
            self.in_flight[self.seq] = (m, sent_at)

    # -- faults ----------------------------------------------------------------------

    def _fault_kinds(self) -> list[str]:
        kinds = []
        if "crash" in self.faults:
            kinds.append("crash")
        if "shutdown" in self.faults:
            kinds.append("shutdown")
        if "partition" in self.faults:
            kinds += ["partition", "one-way"]
        if "disk-loss" in self.faults and self.config.observers:
            kinds.append("disk-loss")
        if "voter-disk-loss" in self.faults:
            kinds.append("voter-disk-loss")
        if "foreign" in self.faults:
            kinds.append("foreign")
        return kinds

    def _fault_gap(self) -> int:
        mean = self.config.fault_interval_ms
        return self.now + self.fault_rng.randint(mean // 2, mean * 3 // 2)

    def _inject_fault(self) -> None:
        rng = self.fault_rng
        self._push(self._fault_gap(), _FAULT, 0)
        kind = rng.choice(self._fault_kinds())
        if kind == "crash":
            up = [n for n in self.nodes.values() if n.replica is not None]
            changing = [n for n in up if n.replica is not None and n.replica.pending_voter_changes]
            target = None
            if changing and rng.random() < _CRASH_LEADER_MID_CHANGE_PROBABILITY:
                target = rng.choice(changing)
            elif up:
                target = rng.choice(up)
            if target is not None:
                if rng.random() < _CRASH_IN_STEP_PROBABILITY:
                    target.crash_in_step = True
                else:
                    self._crash(target, disk_lost=False)
        elif kind == "shutdown":
            self._shutdown()
        elif kind == "disk-loss":
            up = [self.nodes[o] for o in self.config.observer_ids if self.nodes[o].replica is not None]
            if up:
                self._crash(rng.choice(up), disk_lost=True)
        elif kind == "voter-disk-loss":
            voters = self._current_voter_ids() if self.config.dynamic else self.config.voter_ids
            up = [self.nodes[v] for v in voters if self.nodes[v].replica is not None]
            if up:
                self._crash(rng.choice(up), disk_lost=True)
        elif len(self.ids) < 2:  # a lone replica: no link to cut, no peer to claim
            return
        elif kind == "foreign":
            self._foreign_request()
        elif kind == "partition":
            ids = list(self.ids)
            rng.shuffle(ids)
            cut = rng.randint(1, len(ids) - 1)
            left, right = ids[:cut], ids[cut:]
            pairs = [(a, b) for a in left for b in right] + [(b, a) for a in left for b in right]
            self._partition(pairs)
        else:
            a, b = rng.sample(list(self.ids), 2)
            pairs = [(a, b)] if rng.random() < 0.5 else [(a, x) for x in self.ids if x != a]
            self._partition(pairs)

    def _foreign_request(self) -> None:
        """``SendForeignRequest(i, j, t)``: a peer claiming id ``i`` sends ``j`` a request
        with the foreign cluster id and ``j``'s current epoch."""
        rng = self.fault_rng
        up = [n for n in self.nodes.values() if n.replica is not None]
        if not up:
            return
        target = rng.choice(up)
        assert target.replica is not None
        claimed = rng.choice([r for r in self.ids if r != target.id])
        kind = rng.choice(FOREIGN_REQUEST_TYPES)
        epoch = target.replica.current_epoch
        if kind == VOTE_REQUEST:
            m = Message(kind, claimed, target.id, FOREIGN_CLUSTER_ID, epoch, lastOffsetEpoch=0, lastOffset=0)
        elif kind == FETCH_REQUEST:
            m = Message(kind, claimed, target.id, FOREIGN_CLUSTER_ID, epoch, fetchOffset=0, lastFetchedEpoch=0)
        else:
            m = Message(kind, claimed, target.id, FOREIGN_CLUSTER_ID, epoch)
        if self.config.dynamic:  # the claimed replica's directory id; a request to a voter
            m.sourceDirectoryId = self.nodes[claimed].membership.directory_id  # is addressed to
            if kind != FETCH_REQUEST:  # the target's (a Fetch names no voter)
                m.voterDirectoryId = target.membership.directory_id
        self.stats.events += 1
        if self.writer is not None:
            self._trace(self.now, claimed, "SendForeignRequest", {"i": claimed, "j": target.id, "t": kind},
                              self.last_state[claimed], (m,))
        self._send(m)

    def _partition(self, pairs: list[tuple[int, int]], duration: int | None = None) -> None:
        self.stats.partitions += 1
        for p in pairs:
            self.blocked[p] = self.blocked.get(p, 0) + 1
        if duration is None:
            duration = self.fault_rng.randint(300, 4 * self.config.fetch_timeout_ms)
        self._push(self.now + duration, _HEAL, 0, pairs)

    def _isolate(self, rid: int) -> None:
        """Fault ``isolate-leader``: now and then cut a new leader off from every other
        replica, both directions, for as long as a partition lasts."""
        rng = self.isolate_rng
        if rng.random() >= _ISOLATE_LEADER_PROBABILITY:
            return
        self.stats.leader_isolations += 1
        pairs = [p for x in self.ids if x != rid for p in ((rid, x), (x, rid))]
        self._partition(pairs, rng.randint(300, 4 * self.config.fetch_timeout_ms))

    def _heal(self, pairs: list[tuple[int, int]]) -> None:
        for p in pairs:
            left = self.blocked[p] - 1
            if left:
                self.blocked[p] = left
            else:
                del self.blocked[p]

    def _crash(self, node: _Node, disk_lost: bool) -> None:
        if isinstance(node.storage, ReplicaDisk):
            self._check_disk(node.id, node.storage.crash())
        else:
            node.storage.crash()
        node.staged = []
        node.crash_in_step = False
        self.stats.crashes += 1
        self._take_down(node, disk_lost)

    def _take_down(self, node: _Node, disk_lost: bool) -> None:
        """The node is down (messages to it dropped, no timers) until its restart."""
        node.replica = None
        node.tick_at = None
        node.resigned_epoch = None
        downtime = self.fault_rng.randint(50, 2 * self.config.fetch_timeout_ms)
        self._push(self.now + downtime, _RESTART, node.id, disk_lost)

    def _shutdown(self) -> None:
        """Graceful shutdown, most often of the leader. A leader gets the ``Shutdown``
        input (the spec's ``Resign``: EndQuorumEpoch to the other voters) and stays up for
        a grace period, handling the EndQuorumEpoch responses and anything else, until it
        knows a later epoch or the period ends; then it stops. The spec has no shutdown
        action for other roles (``Resign`` needs a leader), so any other replica just stops (its
        ``Shutdown`` input does nothing).
        Nothing is lost either way: every write was flushed when its step was persisted."""
        rng = self.fault_rng
        up = [n for n in self.nodes.values() if n.replica is not None and n.resigned_epoch is None]
        if not up:
            return
        leaders = [n for n in up if n.replica is not None and n.replica.role == LEADER]
        if leaders and rng.random() < _SHUTDOWN_LEADER_PROBABILITY:
            node = rng.choice(leaders)
        else:
            node = rng.choice(up)
        replica = node.replica
        assert replica is not None
        self.stats.shutdowns += 1
        if replica.role != LEADER:
            self._step(node, Shutdown())  # nothing to do: the spec's Resign needs a leader
            if node.replica is replica:
                self._stop(node, replica)
            return
        node.resigned_epoch = replica.current_epoch
        self._step(node, Shutdown())
        # Within one request timeout, and shorter than the election timeout (no new candidacy).
        longest = max(1, min(self.config.request_timeout_ms, self.config.election_timeout_ms - 1))
        grace = rng.randint(longest // 4, longest)
        self._push(self.now + grace, _STOP, node.id, replica)

    def _stop(self, node: _Node, replica: Replica) -> None:
        """End a graceful shutdown of ``replica`` (ignored when that replica is no longer
        running: it crashed or already stopped meanwhile)."""
        if node.replica is not replica:
            return
        self._fsync(node, replica)  # a graceful stop syncs what a late fsync still holds
        if node.storage.has_unflushed():
            raise RuntimeError(f"replica {node.id}: unflushed writes at a graceful shutdown")
        if isinstance(node.storage, ReplicaDisk):
            node.storage.stop()
        self._take_down(node, disk_lost=False)

    def _restart(self, node: _Node, disk_lost: bool) -> None:
        if disk_lost:
            self.stats.disk_losses += 1
            if self.config.dynamic:
                node.membership = self._format(node.id, node.membership.directory_id + 1)
            if isinstance(node.storage, ReplicaDisk):
                assert self.disks is not None
                node.storage.discard()
                node.storage = self.disks.new_disk(node.id, max(1, node.membership.directory_id))
            else:
                node.storage.lose_disk()
        elif isinstance(node.storage, ReplicaDisk):
            problems = node.storage.restart()
            self._check_disk(node.id, problems)
            if problems:
                return
        replica = node.replica = self._new_replica(node.id, node.storage, node.rng, node.membership)
        self.stats.events += 1
        action = "LoseDisk" if disk_lost else "Restart"
        if self.writer is not None:
            previous = self.last_state[node.id]
            state = self.last_state[node.id] = replica.trace_state()
            self._trace(self.now, node.id, action, {"i": node.id}, state, (), _wiped(previous, state) if disk_lost else ())
        self._check(node.id, self.checker.reset_replica(node.id, replica.log.entries, replica.current_epoch, disk_lost))
        self._changed(node, epoch_changed=False, sent=())
        self._schedule_tick(node)


    # -- the operator (dynamic quorum) -------------------------------------------------

    def _admin_gap(self) -> int:
        mean = self.config.reassign_interval_ms
        return self.now + self.admin_rng.randint(mean // 2, mean * 3 // 2)

    def _leader(self) -> Replica | None:
        leaders = [n.replica for n in self.nodes.values() if n.replica is not None and n.replica.role == LEADER]
        return max(leaders, key=lambda r: (r.current_epoch, r.id), default=None)

    def _current_voter_ids(self) -> tuple[int, ...]:
        leader = self._leader()
        if leader is None:
            return tuple(self.config.initial_voter_ids)
        return tuple(sorted(leader.voters))

    def _admin(self, periodic: bool) -> None:
        """The operator: one request toward the target voter set (KIP-642 single steps), at
        most one outstanding; a new target once the quorum is there. It finds the leader and
        the new voter's progress with DescribeQuorum. Now and then, when the leader would take
        a change, it errs instead: a request the leader must refuse (``refused_change``; not in
        a quick retry, nor right after a refusal of a mistake). A non-periodic call is the quick
        retry after a refusal or of an AddVoter that waited for the new voter to catch up."""
        rng = self.admin_rng
        if periodic:
            self._push(self._admin_gap(), _ADMIN, 0)
        found = self._describe_quorum()
        if found is None:
            return
        leader, described = found
        if self.admin_waiting is not None and rng.random() < 0.5:
            return  # waiting for the answer (it may be lost; an impatient operator sends the next)
        directory_of = {n.id: n.membership.directory_id for n in self.nodes.values()}
        voters = leader.voter_set.keys
        rebuilt = {(v, directory_of[v]) for v, d in voters if directory_of.get(v, d) != d} - self.readded
        err = _READD_REBUILT_VOTER_PROBABILITY if rebuilt else _REFUSED_CHANGE_PROBABILITY
        change: VoterChange | None
        corrects, self.admin_corrects = self.admin_corrects, False
        if (periodic and not corrects and own_epoch_committed(leader) and not change_uncommitted(leader)
                and rng.random() < err):
            change = refused_change(voters, directory_of, rng, self.readded)
            self.readded.add(change.key)
            self.stats.refused_change_requests += 1
        else:
            change = next_change(self.target, voters, directory_of, rng)
            if change is None:
                self.target = draw_target(rng, self.ids, self.config.target_sizes, leader.id,
                                          _MOVE_LEADER_PROBABILITY, _SINGLE_VOTER_TARGET_PROBABILITY)
                return
            if change.request == ADD_VOTER_REQUEST and not _caught_up(described, *change.key):
                # An operator watching DescribeQuorum adds the observer once it has caught up.
                self._push(self.now + self.admin_rng.randint(10, 60), _ADMIN, 0, "retry")
                return
        vid, directory = change.key
        self.stats.voter_change_requests += 1
        if change.request == UPDATE_VOTER_REQUEST:
            # UpdateVoter comes from the voter itself (when it is up and follows a leader).
            node = self.nodes[vid]
            if node.replica is not None:
                self._step(node, UpdateVoter())
            return
        m = Message(change.request, ADMIN_ID, leader.id, clusterId=self.config.cluster_id,
                    voterId=vid, voterDirectoryId=directory)
        self.admin_waiting = m
        params: dict[str, object] = {"i": leader.id, "v": vid}
        if change.request == REMOVE_VOTER_REQUEST:
            params["d"] = directory
        self.stats.events += 1
        if self.writer is not None:
            self._trace(self.now, leader.id, "Send" + m.type, params, self.last_state[leader.id], (m,))
        self._send(m)

    def _describe_quorum(self) -> tuple[Replica, DescribeQuorumResult] | None:
        """DescribeQuorum as an operator sends it: to a running replica at random; one that
        does not lead answers NOT_LEADER_FOR_PARTITION naming the leader it knows, which is
        asked next (when it knows none, or that one is down, another replica is asked). The
        leader and its answer, or ``None`` (no leader found)."""
        up = [n.replica for n in self.nodes.values() if n.replica is not None]
        for first in self.admin_rng.sample(up, min(len(up), _DESCRIBE_ATTEMPTS)):
            replica = first
            for _ in range(_DESCRIBE_REDIRECTS + 1):
                answer = replica.describe_quorum()
                if answer.error_code == NONE:
                    return replica, answer
                named = self.nodes.get(answer.leader_id)
                if named is None or named.replica is None or named.replica is replica:
                    break
                replica = named.replica
        return None

    def _admin_response(self, m: Message) -> None:
        """The operator retries soon after a refusal (another leader, a change under way, or
        its own mistake, which it does not repeat at once)."""
        self.stats.messages_delivered += 1
        if self.admin_waiting is not None and m.type == VOTER_CHANGE_RESPONSE[self.admin_waiting.type]:
            self.admin_waiting = None
        if m.errorCode in (DUPLICATE_VOTER, VOTER_NOT_FOUND, INVALID_REQUEST):
            self.admin_corrects = True
        if m.errorCode not in (NONE, INVALID_CLUSTER_ID):
            self._push(self.now + self.admin_rng.randint(20, 200), _ADMIN, 0, "retry")

    def _count_completion(self, replica: Replica, ready: Ready) -> None:
        """Coverage figures of a ``CompleteVoterChange`` step."""
        stats = self.stats
        stats.voter_changes_committed += 1
        for m in ready.messages:
            if m.type == ADD_VOTER_RESPONSE:
                stats.adds_committed += 1
                if m.voterDirectoryId > 1:
                    stats.rejoins_committed += 1
            elif m.type == REMOVE_VOTER_RESPONSE:
                stats.removes_committed += 1
            elif m.type == UPDATE_VOTER_RESPONSE:
                stats.updates_committed += 1
        if replica.role == RESIGNED:
            stats.self_removals += 1


def _caught_up(described: DescribeQuorumResult, vid: int, directory: int) -> bool:
    """DescribeQuorum lists replica ``vid`` with that directory id at the leader's log end."""
    progress = {rid: (d, end) for rid, d, end in (*described.current_voters, *described.observers)}
    fetched_from, end = progress.get(vid, (NIL, -1))
    return fetched_from == directory and end >= progress[described.leader_id][1]


def _input_action(rid: int, inp: Input) -> tuple[str | None, dict[str, Any]]:
    """The spec action an input stands for, with its parameters, when the input alone decides
    it (a timer or an UpdateVoter input decides inside the replica: ``None``)."""
    if isinstance(inp, Deliver):
        return HANDLER_ACTION[inp.message.type], {"m": inp.message}
    if isinstance(inp, ClientAppend):
        return "ClientAppend", {"i": rid, "v": inp.value}
    if isinstance(inp, Shutdown):
        return "Shutdown", {"i": rid}
    return None, {"i": rid}


def _wiped(before: dict[str, object], after: dict[str, object]) -> list[str]:
    """The durable files a disk loss changed (a restart writes nothing): the quorum-state
    file when its (epoch, vote, leader) differs from a fresh disk's, the log when it was
    not empty.
    ``before`` is the replica's last traced state: every write of it was flushed, since a
    disk is lost only between steps."""
    qs = ("currentEpoch", "votedId", "leaderId")
    files = ["quorumState"] if any(before[k] != after[k] for k in qs) else []
    log = before["log"]
    assert isinstance(log, ReplicatedLog)
    return files + (["log"] if log.end_offset > 0 else [])


def run_seed(config: SimConfig, seed: int) -> RunResult:
    """Simulate one seed; deterministic for a given (config, seed)."""
    return Simulation(config, seed).run()
