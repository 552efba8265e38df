"""Builders shared by the reference implementation's tests."""

from __future__ import annotations

import random
from collections.abc import Iterable
from pathlib import Path

from reference.core.config import QuorumConfig
from reference.core.messages import DATA, Entry, Message
from reference.core.replica import Deliver, Ready, Replica, ReplicaOptions, Tick
from reference.storage.base import QuorumState
from reference.storage.file_log import FileLog

CLUSTER = "test-cluster"
VOTERS = frozenset({1, 2, 3})
REPLICAS = (1, 2, 3, 4)
CONFIG = QuorumConfig(voters=VOTERS, fetch_timeout_ms=1000, election_timeout_ms=500,
                      election_backoff_max_ms=200, request_timeout_ms=300,
                      retry_backoff_ms=20, retry_backoff_max_ms=400)


def make_replica(
    node_id: int = 1,
    epoch: int = 0,
    voted: int = -1,
    leader: int = -1,
    log: Iterable[tuple[int, int]] = (),
    bugs: frozenset[str] = frozenset(),
    config: QuorumConfig = CONFIG,
    replicas: tuple[int, ...] = REPLICAS,
) -> Replica:
    """A replica restarted from the given durable state; ``log`` lists (epoch, value)."""
    return Replica(
        node_id,
        config,
        CLUSTER,
        replicas,
        random.Random(node_id),
        quorum_state=QuorumState(leader_id=leader, leader_epoch=epoch, voted_id=voted,
                                 current_voters=tuple(sorted(config.voters))),
        log_entries=[Entry(e, DATA, v) for e, v in log],
        options=ReplicaOptions(bugs=bugs),
    )


def msg(type: str, source: int, dest: int, **fields: object) -> Message:
    fields.setdefault("clusterId", CLUSTER) if type.endswith("Request") else None
    return Message(type=type, source=source, dest=dest, **fields)  # type: ignore[arg-type]


def deliver(r: Replica, m: Message, now: int | None = None) -> Ready:
    return r.step(Deliver(m), r.now if now is None else now)


def fire(r: Replica) -> Ready:
    """Advance to the replica's next deadline and fire it."""
    deadline = r.next_deadline()
    assert deadline is not None, "no timer armed"
    return r.step(Tick(), max(deadline, r.now))


def only(ready: Ready) -> Message:
    assert len(ready.messages) == 1, ready.messages
    return ready.messages[0]


def make_leader(node_id: int = 1, log: Iterable[tuple[int, int]] = ()) -> Replica:
    """A replica that has just won epoch ``last epoch of log + 1``."""
    r = make_replica(node_id, epoch=max((e for e, _ in log), default=0), log=log)
    ready = fire(r)
    assert ready.action == "BecomeCandidate"
    for voter in sorted(VOTERS - {node_id}):
        deliver(r, msg("VoteResponse", voter, node_id, epoch=r.current_epoch, voteGranted=True))
        if r.role == "Leader":
            break
    assert r.role == "Leader"
    return r


def write_log(path: Path, entries: list[Entry]) -> bytes:
    """A log file holding ``entries`` (appended, flushed, closed); its bytes."""
    log = FileLog(path)
    log.append(entries)
    log.flush()
    log.close()
    return path.read_bytes()
