"""Deterministic discrete-event simulator of a KRaft cluster with fault injection.

Virtual clock, one seeded ``random.Random`` per concern (network and faults, client,
each replica), in-memory storage with crash semantics, graceful shutdowns (a leader
resigns with EndQuorumEpoch before stopping), and a network that may lose, duplicate,
reorder and delay messages and be partitioned. After every protocol step
the safety invariants (``reference.invariants``) are checked; a failing seed is
reported with the command that reproduces it. Every step is traced (``traces/FORMAT.md``).

``run_seed(config, seed) -> RunResult`` is the API used by the CLI and the pipeline.
"""

from __future__ import annotations

import heapq
import random
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from reference.bugs import parse_bug
from reference.config import QuorumConfig
from reference.faults import DEFAULT_FAULTS, parse_faults
from reference.invariants import SafetyChecker, Violation
from reference.messages import FETCH_REQUEST, VOTE_REQUEST, Message
from reference.persist import persist
from reference.replica import (
    ClientAppend,
    Deliver,
    Input,
    Ready,
    Replica,
    ReplicaOptions,
    Shutdown,
    Tick,
)
from reference.spec_constants import FOREIGN_CLUSTER_ID, FOREIGN_REQUEST_TYPES, spec_constants
from reference.states import LEADER
from reference.storage import MemoryStorage
from reference.trace_writer import TraceWriter

_DELIVER, _TICK, _CLIENT, _FAULT, _RESTART, _HEAL, _STOP = range(7)

# Probability that a graceful shutdown picks the current leader (when one is up).
_SHUTDOWN_LEADER_PROBABILITY = 0.7


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

    def __post_init__(self) -> None:
        if self.voters < 2:
            raise ValueError("the simulator needs at least 2 voters")
        if self.observers < 0 or self.steps < 1 or self.values < 1:
            raise ValueError("observers must be >= 0, steps and values >= 1")
        parse_faults(self.faults)
        parse_bug(self.bug)

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

    def repro_command(self, seed: int) -> str:
        faults = ",".join(sorted(self.faults)) or "none"
        cmd = (
            f"kraftcheck simulate --seeds {seed} --voters {self.voters} --observers {self.observers} "
            f"--faults {faults} --steps {self.steps}"
        )
        if self.bug:
            cmd += f" --inject-bug {self.bug}"
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
    shutdowns: int = 0
    disk_losses: int = 0
    partitions: int = 0
    sim_time_ms: int = 0

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
    storage: MemoryStorage
    replica: Replica | None
    rng: random.Random
    tick_at: int | None = None
    # While a resigned leader's graceful shutdown is under way: the epoch it resigned.
    resigned_epoch: int | None = None


class Simulation:
    """One run of one seed."""

    def __init__(self, config: SimConfig, seed: int) -> None:
        self.config = config
        self.seed = seed
        self.quorum = config.quorum_config()
        self.options = ReplicaOptions(fetch_interval_ms=config.fetch_interval_ms, bugs=parse_bug(config.bug))
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
        for rid in self.ids:
            rng = random.Random(f"replica-{seed}-{rid}")
            storage = MemoryStorage(rid, config.cluster_id)
            self.nodes[rid] = _Node(rid, storage, self._new_replica(rid, storage, rng), rng)
        self.trace_path = config.trace_path(seed)
        self.writer = (TraceWriter(self.trace_path, config.full_state_every)
                       if self.trace_path is not None else None)
        self.max_time = config.max_time_ms or config.steps * 200 + 60_000

    # -- setup -------------------------------------------------------------------

    def _new_replica(self, rid: int, storage: MemoryStorage, rng: random.Random) -> Replica:
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
        del reason
        self.stats.sim_time_ms = self.now
        self.stats.commits = self.checker.committed_length
        return RunResult(self.seed, self.stats.events, self.stats, self.failures, self.trace_path)

    def _run(self) -> str:
        cfg = self.config
        if self.writer is not None:
            self.writer.header(spec_constants(cfg), self.seed, sorted(cfg.faults), cfg.bug)
            self.last_state = {rid: n.replica.trace_state() for rid, n in self.nodes.items() if n.replica}
            self.writer.init(self.last_state)
        for node in self.nodes.values():
            assert node.replica is not None
            self.checker.reset_replica(node.id, node.replica.log.entries, node.replica.current_epoch, True)
            self._schedule_tick(node)
        self._push(cfg.client_interval_ms, _CLIENT, 0)
        if self._fault_kinds():
            self._push(self._fault_gap(), _FAULT, 0)
        reason = "step limit reached"
        while self.queue:
            time, _, kind, nid, payload = heapq.heappop(self.queue)
            if time > self.max_time:
                reason = "time limit reached"
                break
            self.now = time
            if kind == _DELIVER:
                self._deliver(payload)
            elif kind == _TICK:
                node = self.nodes[nid]
                if node.tick_at == time:
                    node.tick_at = None
                    self._tick(node)
            elif kind == _CLIENT:
                self._client()
            elif kind == _FAULT:
                self._inject_fault()
            elif kind == _RESTART:
                self._restart(self.nodes[nid], disk_lost=bool(payload))
            elif kind == _HEAL:
                self._heal(payload)
            elif kind == _STOP:
                self._stop(self.nodes[nid], payload)
            if self.failures:
                reason = "invariant violated"
                break
            if self.stats.events >= cfg.steps:
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

    def _deliver(self, m: Message) -> None:
        node = self.nodes[m.dest]
        if node.replica is None or self.blocked.get((m.source, m.dest)):
            self.stats.messages_dropped += 1
            return
        self.stats.messages_delivered += 1
        self._step(node, Deliver(m))

    def _step(self, node: _Node, inp: Input) -> Ready | None:
        """Step a replica; an exception inside it is reported as a failure of the run."""
        assert node.replica is not None
        try:
            ready = node.replica.step(inp, self.now)
        except (ValueError, AssertionError, KeyError, IndexError) as exc:
            self._check(node.id, [Violation("ReplicaError", node.id, f"{type(exc).__name__}: {exc}")])
            return None
        self._after_step(node, ready)
        return ready

    def _client(self) -> None:
        cfg = self.config
        self._push(self.now + self.client_rng.randint(cfg.client_interval_ms // 2, cfg.client_interval_ms * 3 // 2), _CLIENT, 0)
        leaders = [n for n in self.nodes.values() if n.replica is not None and n.replica.role == LEADER]
        if not leaders:
            return
        node = max(leaders, key=lambda n: (n.replica.current_epoch if n.replica else -1, n.id))
        assert node.replica is not None
        ready = self._step(node, ClientAppend(self.client_rng.randint(1, cfg.values)))
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
        persist(node.storage, ready)
        self.stats.events += 1
        if ready.action == "HandleVoteResponse" and replica.role == LEADER and ready.log_ops:
            self.stats.elections += 1
        for m in ready.messages:
            self._send(m)
        if self.writer is not None:
            state = self.last_state[node.id] = replica.trace_state()
            self.writer.event(self.now, node.id, ready.action, ready.params, state, ready.messages)
        self._check(
            node.id,
            self.checker.after_step(node.id, replica.role, replica.current_epoch, replica.high_watermark, ready.log_ops),
        )
        if node.resigned_epoch is not None and replica.current_epoch > node.resigned_epoch:
            self._push(self.now, _STOP, node.id, replica)
        self._schedule_tick(node)

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
        self._push(at, _DELIVER, m.dest, m)
        if "duplicate" in faults and rng.random() < self.config.duplicate_probability:
            self._push(at + rng.randint(0, 60), _DELIVER, m.dest, m)

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
            if up:
                self._crash(rng.choice(up), disk_lost=False)
        elif kind == "shutdown":
            self._shutdown()
        elif kind == "disk-loss":
            up = [self.nodes[o] for o in self.config.observer_ids if self.nodes[o].replica is not None]
            if up:
                self._crash(rng.choice(up), disk_lost=True)
        elif kind == "voter-disk-loss":
            up = [self.nodes[v] for v in self.config.voter_ids if self.nodes[v].replica is not None]
            if up:
                self._crash(rng.choice(up), disk_lost=True)
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
        self.stats.events += 1
        if self.writer is not None:
            self.writer.event(self.now, claimed, "SendForeignRequest", {"i": claimed, "j": target.id, "t": kind},
                              self.last_state[claimed], (m,))
        self._send(m)

    def _partition(self, pairs: list[tuple[int, int]]) -> None:
        self.stats.partitions += 1
        for p in pairs:
            self.blocked[p] = self.blocked.get(p, 0) + 1
        duration = self.fault_rng.randint(300, 4 * self.config.fetch_timeout_ms)
        self._push(self.now + duration, _HEAL, 0, pairs)

    def _heal(self, pairs: list[tuple[int, int]]) -> None:
        for p in pairs:
            left = self.blocked[p] - 1
            if left:
                self.blocked[p] = left
            else:
                del self.blocked[p]

    def _crash(self, node: _Node, disk_lost: bool) -> None:
        node.storage.crash()
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
        action for other roles (``Resign`` needs a leader), so any other replica just stops.
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
        if node.storage.has_unflushed():
            raise RuntimeError(f"replica {node.id}: unflushed writes at a graceful shutdown")
        self._take_down(node, disk_lost=False)

    def _restart(self, node: _Node, disk_lost: bool) -> None:
        if disk_lost:
            node.storage.lose_disk()
            self.stats.disk_losses += 1
        replica = node.replica = self._new_replica(node.id, node.storage, node.rng)
        self.stats.events += 1
        action = "LoseDisk" if disk_lost else "Restart"
        if self.writer is not None:
            state = self.last_state[node.id] = replica.trace_state()
            self.writer.event(self.now, node.id, action, {"i": node.id}, state, ())
        self._check(node.id, self.checker.reset_replica(node.id, replica.log.entries, replica.current_epoch, disk_lost))
        self._schedule_tick(node)


def run_seed(config: SimConfig, seed: int) -> RunResult:
    """Simulate one seed; deterministic for a given (config, seed)."""
    return Simulation(config, seed).run()
