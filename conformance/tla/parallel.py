"""Breadth-first search on several worker processes (``--workers N``).

Level-synchronous: the main process keeps the fingerprint set and the parent links;
each level's states go to forked workers in chunks. A worker checks a state (type
annotations, invariants, constraints, as the sequential search does when the state is
found), expands it, checks ``[][A]_v`` properties on its transitions and returns the
fingerprints and values of the allowed successors. Results are consumed in state order,
so verdicts and counterexamples do not depend on timing. Counterexamples are rebuilt by
the main process exactly as in the sequential search.

Needs the ``fork`` start method (workers inherit the compiled model); elsewhere the
search runs on one process.
"""

from __future__ import annotations

import multiprocessing
import signal
import time
from collections.abc import Iterator
from typing import Any

from conformance.tla.checking import Stop, label_step
from conformance.tla.model import State
from conformance.tla.statequeue import StateQueue
from conformance.tla.syntax import Loc, TlaError

# The search being run; set in the main process right before forking the workers.
_SEARCH: Any = None
# In a worker: the fingerprints it has already sent. The main process handles outcomes in
# order and records every fingerprint it receives, so these never need sending again.
_SENT: set[int] = set()

Item = tuple[int, State]
# ("ok", index, generated, [(fp, successor)...]) | ("stop", index, verdict, prop, message)
# | ("stop", index, verdict, prop, message, label, successor) (a dropped successor that
# violates an invariant) | ("error", index, message, loc)
Outcome = tuple[Any, ...]


def fork_available() -> bool:
    return "fork" in multiprocessing.get_all_start_methods()


def _expand(item: Item) -> Outcome:
    search = _SEARCH
    index, state = item
    checks, model, nxt, ident = search.checks, search.model, search.plan.next, search.identity
    try:
        checks.state_ok(state, index + 1)
        succs = list(model.successors(state, nxt))
        if not succs and search.plan.check_deadlock:
            return ("stop", index, "deadlock", None, "Deadlock reached.")
        has_props = bool(search.plan.action_properties)
        subs = checks.subscripts(state) if has_props else None
        out: list[tuple[int, State]] = []
        fresh: set[int] = set()
        fingerprint = ident.of_successors(state)
        for label, succ in succs:
            if not (checks.in_model(succ) and checks.action_allowed(state, succ)):
                # outside the model: checked against the invariants, then dropped
                try:
                    checks.outside_ok(succ, 0, fingerprint(succ) if ident.exact else None, state)
                except Stop as stop:
                    return ("stop", index, stop.verdict, stop.prop, stop.message, label, succ)
                continue
            prop = checks.violated_property(state, succ, subs) if has_props else None
            if prop is not None:
                return ("stop", index, "violation", prop, f"Action property {prop} is violated.")
            fp = fingerprint(succ)
            if fp not in _SENT and fp not in fresh:
                fresh.add(fp)
                out.append((fp, succ))
        _SENT.update(fresh)  # only once the outcome is certain to be sent
        return ("ok", index, len(succs), out)
    except Stop as stop:
        return ("stop", index, stop.verdict, stop.prop, stop.message)
    except TlaError as exc:
        return ("error", index, exc.message, exc.loc)


def _worker_init() -> None:
    """Workers end at once when the pool terminates them."""
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the main process handles Ctrl-C


def _expand_chunk(items: list[Item]) -> list[Outcome]:
    out: list[Outcome] = []
    for item in items:
        outcome = _expand(item)
        out.append(outcome)
        if outcome[0] != "ok":
            break
    return out


def _chunks(queue: StateQueue, size: int) -> Iterator[list[Item]]:
    while len(queue):
        chunk = [queue.pop() for _ in range(min(size, len(queue)))]
        yield chunk


def run_parallel(search: Any, workers: int, queue_memory: int) -> None:
    """Run ``search`` (an ``explorer.Search``) level by level on ``workers`` processes."""
    global _SEARCH
    seen = search.seen
    frontier = search.queue
    for state in search.model.init_states(search.plan.init):
        search.generated += 1
        if not search.checks.in_model(state):
            search._dropped_state(state, -1, None, None)
            continue
        fp = search.identity(state)
        if fp in seen:
            continue
        search.limit_check()
        index = seen.add(fp, -1)
        search.depth = 1
        frontier.push((index, state))
    _SEARCH = search
    ctx = multiprocessing.get_context("fork")
    pool = ctx.Pool(workers, initializer=_worker_init)
    level = 1
    try:
        while len(frontier):
            nxt = StateQueue.bounded(queue_memory)
            search.queue = _Pending(frontier, nxt)
            size = max(1, min(256, len(frontier) // (workers * 4)))
            for outcomes in pool.imap(_expand_chunk, _chunks(frontier, size)):
                for outcome in outcomes:
                    kind, index = outcome[0], outcome[1]
                    if kind == "ok":
                        search.generated += outcome[2]
                        for fp, succ in outcome[3]:
                            if fp in seen:
                                continue
                            search.limit_check()
                            new = seen.add(fp, index)
                            search.depth = level + 1
                            nxt.push((new, succ))
                        continue
                    _finish(search, outcome)
                search.progress.update(len(seen), search.generated, len(frontier) + len(nxt), search.depth)
                if search.deadline is not None and time.monotonic() > search.deadline:
                    raise Stop("limit", None, "stopped by the time limit (--time-limit)")
            frontier.close()
            frontier = nxt
            search.queue = frontier
            level += 1
    finally:
        pool.terminate()
        pool.join()
        _SEARCH = None


class _Pending:
    """The states not yet expanded: the rest of this level and the next one (for counts)."""

    def __init__(self, current: StateQueue, following: StateQueue) -> None:
        self.current = current
        self.following = following

    def __len__(self) -> int:
        return len(self.current) + len(self.following)

    def close(self) -> None:
        self.current.close()
        self.following.close()


def _finish(search: Any, outcome: Outcome) -> None:
    """Rebuild the counterexample of a stopping outcome and raise its verdict."""
    index = outcome[1]
    path = search.seen.path_to(index)
    replayed = search._replay(path, None)
    state = replayed[-1].state
    if outcome[0] == "error":
        search.trace = replayed
        message, loc = outcome[2], outcome[3]
        raise TlaError(message, loc if isinstance(loc, Loc) else None)
    verdict, prop, message = outcome[2], outcome[3], outcome[4]
    if len(outcome) > 5:  # a dropped successor violating an invariant
        label, succ = outcome[5], outcome[6]
        search.trace = replayed
        search.trace.append(label_step(label, succ))
        raise Stop(verdict, prop, message)
    if verdict == "violation" and prop is not None and any(p.name == prop for p in search.plan.action_properties):
        for label, succ in search.model.successors(state, search.plan.next):
            if search.checks.action_allowed(state, succ) and search.checks.violated_property(state, succ) == prop:
                search.trace = search._property_trace(index, state, label, succ, prop)
                break
        else:
            search.trace = replayed
    else:
        search.trace = replayed
    raise Stop(verdict, prop, message)
