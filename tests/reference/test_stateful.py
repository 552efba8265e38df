"""Hypothesis drives a small cluster through message deliveries (any order, duplicates,
losses), timer expiries, client appends, partitions, crashes and restarts; the safety
invariants must hold after every step."""

from __future__ import annotations

import random

from hypothesis import HealthCheck, settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, initialize, invariant, precondition, rule

from reference.core.config import QuorumConfig
from reference.core.messages import Message
from reference.core.replica import ClientAppend, Deliver, Ready, Replica, ReplicaOptions, Tick
from reference.sim.invariants import SafetyChecker, Violation
from reference.storage.base import MemoryStorage
from reference.storage.persist import persist

VOTERS = (1, 2, 3)
OBSERVERS = (4,)
IDS = VOTERS + OBSERVERS
CONFIG = QuorumConfig(voters=frozenset(VOTERS), fetch_timeout_ms=300, election_timeout_ms=150,
                      election_backoff_max_ms=100, request_timeout_ms=100, retry_backoff_ms=10,
                      retry_backoff_max_ms=100)


class ClusterMachine(RuleBasedStateMachine):
    """A cluster whose every scheduling decision is hypothesis's."""

    bugs: frozenset[str] = frozenset()

    @initialize(seed=st.integers(0, 2**16))
    def start(self, seed: int) -> None:
        self.now = 0
        self.seed = seed
        self.pool: list[Message] = []
        self.checker = SafetyChecker()
        self.violations: list[Violation] = []
        self.storage = {i: MemoryStorage(i, "c") for i in IDS}
        self.replicas: dict[int, Replica] = {}
        for i in IDS:
            self._boot(i)

    def _boot(self, i: int) -> None:
        store = self.storage[i]
        r = Replica(i, CONFIG, "c", IDS, random.Random(f"{self.seed}-{i}-{self.now}"), now_ms=self.now,
                    quorum_state=store.read_quorum_state(), log_entries=store.read_log(),
                    options=ReplicaOptions(bugs=self.bugs))
        self.replicas[i] = r
        self.violations += self.checker.reset_replica(i, r.log.entries, r.current_epoch, False)

    def _apply(self, i: int, ready: Ready) -> None:
        if ready.action is None:
            assert not ready.messages and not ready.log_ops
            return
        persist(self.storage[i], ready)
        self.pool.extend(ready.messages)
        r = self.replicas[i]
        self.violations += self.checker.after_step(i, r.role, r.current_epoch, r.high_watermark, ready.log_ops)

    @precondition(lambda self: bool(self.pool))
    @rule(pick=st.integers(0, 10**6), keep=st.booleans())
    def deliver(self, pick: int, keep: bool) -> None:
        m = self.pool[pick % len(self.pool)]
        if not keep:
            self.pool.remove(m)
        self._apply(m.dest, self.replicas[m.dest].step(Deliver(m), self.now))

    @precondition(lambda self: bool(self.pool))
    @rule()
    def deliver_all(self) -> None:
        """One network round: every message in flight is delivered once, in send order."""
        batch, self.pool = self.pool, []
        for m in batch:
            self._apply(m.dest, self.replicas[m.dest].step(Deliver(m), self.now))

    @precondition(lambda self: bool(self.pool))
    @rule(pick=st.integers(0, 10**6))
    def lose(self, pick: int) -> None:
        del self.pool[pick % len(self.pool)]

    @rule(node=st.sampled_from(IDS))
    def timer(self, node: int) -> None:
        r = self.replicas[node]
        deadline = r.next_deadline()
        if deadline is not None:
            self.now = max(self.now, deadline)
            self._apply(node, r.step(Tick(), self.now))

    @rule(ms=st.integers(1, 80))
    def advance(self, ms: int) -> None:
        """Time passes by ``ms``; every timer that falls due fires, in time order."""
        end = self.now + ms
        while True:
            due = [(d, i) for i, r in self.replicas.items() if (d := r.next_deadline()) is not None and d <= end]
            if not due:
                break
            deadline, node = min(due)
            self.now = max(self.now, deadline)
            ready = self.replicas[node].step(Tick(), self.now)
            self._apply(node, ready)
        self.now = end

    @rule(value=st.integers(1, 3))
    def client_append(self, value: int) -> None:
        for i, r in self.replicas.items():
            if r.role == "Leader":
                self._apply(i, r.step(ClientAppend(value), self.now))
                return

    @rule(node=st.sampled_from(IDS))
    def partition(self, node: int) -> None:
        self.pool = [m for m in self.pool if node not in (m.source, m.dest)]

    @rule(node=st.sampled_from(IDS))
    def crash_and_restart(self, node: int) -> None:
        self.storage[node].crash()
        self._boot(node)

    @rule(node=st.sampled_from(OBSERVERS))
    def observer_loses_disk(self, node: int) -> None:
        self.storage[node].lose_disk()
        store = self.storage[node]
        r = Replica(node, CONFIG, "c", IDS, random.Random(node), now_ms=self.now)
        assert store.read_log() == [] and r.current_epoch == 0
        self.replicas[node] = r
        self.violations += self.checker.reset_replica(node, [], 0, True)

    @invariant()
    def safety(self) -> None:
        assert not self.violations, self.violations

    @invariant()
    def at_most_one_leader_per_epoch_now(self) -> None:
        leaders = [(r.current_epoch, i) for i, r in self.replicas.items() if r.role == "Leader"]
        assert len({e for e, _ in leaders}) == len(leaders), leaders

    @invariant()
    def high_watermark_within_log(self) -> None:
        for r in self.replicas.values():
            assert r.high_watermark <= r.log.end_offset

    @invariant()
    def durable_state_matches_memory(self) -> None:
        for i, r in self.replicas.items():
            store = self.storage[i]
            assert store.read_log() == r.log.entries
            qs = store.read_quorum_state()
            if qs is not None:
                assert (qs.leader_epoch, qs.voted_id, qs.leader_id) == (r.current_epoch, r.voted_id, r.leader_id)


ClusterMachine.TestCase.settings = settings(
    max_examples=40, stateful_step_count=80, deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
)
TestCluster = ClusterMachine.TestCase
