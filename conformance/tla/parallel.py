"""Breadth-first search on several worker processes (``--workers N``).

Level-synchronous. The main process keeps the fingerprint set, the parent links and the
frontier; a state itself stays in the worker that generated it (its *owner*), which
expands it at the next level. The main process sends a worker only state numbers and its
own local ids, and receives fingerprints and local ids: states are never copied between
processes (only the initial states are sent), so a successor keeps sharing the objects of
the values an action left alone with its parent, which the identity-keyed caches
(fingerprints, unchanged invariant conjuncts, type checks) rely on, as in the sequential
search.

A worker checks a state (type annotations, invariants — skipping the conjuncts whose
variables are its parent's very objects — as the sequential search does when the state is
found), expands it, checks constraints and ``[][A]_v`` properties on its transitions and
returns the fingerprints of the allowed successors it has not reported before, keeping
those successors (with their parent) in a queue of its own that spills to disk like the
search's. The main process takes the outcomes in state order, whichever worker sent them,
so the fingerprint set, the owners, verdicts and counterexamples do not depend on timing;
the main process then asks each owner for the states it accepted, in the order the owner
generated them (the owner drops the ones it skips: another worker or an earlier level had
them). Counterexamples are rebuilt by the main process exactly as in the sequential
search.

Needs the ``fork`` start method (workers inherit the compiled model); elsewhere the
search runs on one process.
"""

from __future__ import annotations

import multiprocessing
import queue as queue_module
import signal
import time
import traceback
from array import array
from collections import deque
from typing import Any

from conformance.tla.checking import Stop, label_step
from conformance.tla.model import State
from conformance.tla.statequeue import StateQueue
from conformance.tla.syntax import Loc, TlaError

# The search being run; set in the main process right before forking the workers.
_SEARCH: Any = None

# A task: [(state number, local id, state)...]: the state itself only for initial states
# (local id -1); otherwise the worker takes the state it keeps under that local id.
Task = list[tuple[int, int, Any]]
# ("ok", index, generated, [(fp, local id)...]) | ("stop", index, verdict, prop, message)
# | ("stop", index, verdict, prop, message, label, successor) (a dropped successor that
# violates an invariant) | ("error", index, message, loc) | ("crash", index, traceback)
Outcome = tuple[Any, ...]
_WAIT = 0.5  # seconds between checks that every worker is still alive


def fork_available() -> bool:
    return "fork" in multiprocessing.get_all_start_methods()


class _Owned:
    """A worker's successors waiting to be accepted: (local id, state, parent), in the
    order it generated them, which is also the order the main process asks for them."""

    def __init__(self, queue_memory: int) -> None:
        self.queue = StateQueue.bounded(queue_memory)
        self.next_id = 0

    def keep(self, state: State, parent: State) -> int:
        local = self.next_id
        self.next_id += 1
        self.queue.push((local, state, parent))
        return local

    def take(self, local: int) -> tuple[State, State]:
        """The state kept under ``local`` and its parent; the ones kept before it that were
        not asked for are dropped."""
        while True:
            got, state, parent = self.queue.pop()
            if got == local:
                return state, parent
            if got > local:
                raise RuntimeError(f"worker asked for state {local} after {got}: out of order")


def _expand(index: int, state: State, parent: State | None, owned: _Owned, sent: set[int]) -> Outcome:
    search = _SEARCH
    checks, model, nxt, ident = search.checks, search.model, search.plan.next, search.identity
    try:
        checks.state_ok(state, index + 1, parent)
        succs = list(model.successors(state, nxt))
        if not succs and search.plan.check_deadlock:
            return ("stop", index, "deadlock", None, "Deadlock reached.")
        has_props = bool(search.plan.action_properties)
        subs = checks.subscripts(state) if has_props else None
        out: list[tuple[int, int]] = []
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
            if fp not in sent and fp not in fresh:
                fresh.add(fp)
                out.append((fp, owned.keep(succ, state)))
        sent.update(fresh)  # only once the outcome is certain to be sent
        return ("ok", index, len(succs), out)
    except Stop as stop:
        return ("stop", index, stop.verdict, stop.prop, stop.message)
    except TlaError as exc:
        return ("error", index, exc.message, exc.loc)


def _stop_worker(signum: int, frame: object) -> None:
    raise SystemExit(128 + signum)  # unwinds, so the worker removes its spill folder


def _worker(number: int, tasks: Any, results: Any, queue_memory: int) -> None:
    """Expand the tasks sent to worker ``number`` until ``None`` comes."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the main process handles Ctrl-C
    signal.signal(signal.SIGTERM, _stop_worker)
    results.cancel_join_thread()  # never wait at exit for a main process that stopped reading
    owned = _Owned(queue_memory)
    sent: set[int] = set()  # fingerprints reported already: the main process has them
    try:
        while (task := tasks.get()) is not None:
            out: list[Outcome] = []
            for index, local, given in task:
                try:
                    state, parent = (given, None) if local < 0 else owned.take(local)
                    outcome = _expand(index, state, parent, owned, sent)
                except Exception:  # a bug, not a verdict: the main process reports it
                    outcome = ("crash", index, traceback.format_exc())
                out.append(outcome)
                if outcome[0] != "ok":
                    break
            results.put((number, out))
    finally:
        owned.queue.close()


class _Frontier:
    """What is left to expand, for the counts: the rest of this level and the next one."""

    def __init__(self, following: StateQueue) -> None:
        self.current = 0
        self.following = following

    def __len__(self) -> int:
        return self.current + len(self.following)

    def close(self) -> None:
        self.following.close()


class _Workers:
    """The forked worker processes, a task queue each and one queue of results."""

    def __init__(self, count: int, queue_memory: int) -> None:
        ctx = multiprocessing.get_context("fork")
        self.results = ctx.Queue()
        self.tasks = [ctx.Queue() for _ in range(count)]
        self.procs = [ctx.Process(target=_worker, args=(w, self.tasks[w], self.results, queue_memory),
                                  daemon=True) for w in range(count)]
        for proc in self.procs:
            proc.start()
        self.outcomes: list[deque[Outcome]] = [deque() for _ in range(count)]

    def next_outcome(self, owner: int) -> Outcome:
        """The next outcome of worker ``owner``'s tasks, in the order they were sent."""
        pending = self.outcomes[owner]
        while not pending:
            try:
                number, out = self.results.get(timeout=_WAIT)
            except queue_module.Empty:
                for w, proc in enumerate(self.procs):
                    if proc.exitcode is not None:
                        raise RuntimeError(f"worker process {w} ended unexpectedly "
                                           f"(exit code {proc.exitcode})") from None
                continue
            self.outcomes[number].extend(out)
        return pending.popleft()

    def close(self) -> None:
        for tasks in self.tasks:
            tasks.cancel_join_thread()
        for proc in self.procs:
            if proc.is_alive():
                proc.terminate()
        for proc in self.procs:
            proc.join(10)
            if proc.is_alive():
                proc.kill()
                proc.join()
        for q in [*self.tasks, self.results]:
            q.close()


def run_parallel(search: Any, workers: int, queue_memory: int) -> None:
    """Run ``search`` (an ``explorer.Search``) level by level on ``workers`` processes."""
    global _SEARCH
    seen = search.seen
    # the frontier: (state number, owner, local id, the state for an initial state)
    frontier = StateQueue.bounded(queue_memory)
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
        frontier.push((index, index % workers, -1, state))
    search.queue.close()
    search.queue = _Frontier(frontier)
    _SEARCH = search
    pool = _Workers(workers, queue_memory)
    level = 1
    try:
        while len(frontier):
            nxt = StateQueue.bounded(queue_memory)
            pending = _Frontier(nxt)
            search.queue = pending
            owners = _dispatch(pool, frontier, workers)
            frontier.close()
            pending.current = len(owners)
            for done, owner in enumerate(owners, 1):
                outcome = pool.next_outcome(owner)
                pending.current -= 1
                if outcome[0] != "ok":
                    _finish(search, outcome)
                index = outcome[1]
                search.generated += outcome[2]
                for fp, local in outcome[3]:
                    if fp in seen:
                        continue
                    search.limit_check()
                    new = seen.add(fp, index)
                    search.depth = level + 1
                    nxt.push((new, owner, local, None))
                if done & 63 == 0:
                    search.progress.update(len(seen), search.generated, len(pending), search.depth)
                    if search.deadline is not None and time.monotonic() > search.deadline:
                        raise Stop("limit", None, "stopped by the time limit (--time-limit)")
            frontier = nxt
            level += 1
    finally:
        pool.close()
        _SEARCH = None


def _dispatch(pool: _Workers, frontier: StateQueue, workers: int) -> array:
    """Send this level's states to their owners in chunks; the owners in frontier order."""
    owners = array("H")
    size = max(1, min(256, len(frontier) // (workers * 4)))
    chunks: list[Task] = [[] for _ in range(workers)]
    while len(frontier):
        index, owner, local, state = frontier.pop()
        owners.append(owner)
        chunk = chunks[owner]
        chunk.append((index, local, state))
        if len(chunk) >= size:
            pool.tasks[owner].put(chunk)
            chunks[owner] = []
    for owner, chunk in enumerate(chunks):
        if chunk:
            pool.tasks[owner].put(chunk)
    return owners


def _finish(search: Any, outcome: Outcome) -> None:
    """Rebuild the counterexample of a stopping outcome and raise its verdict."""
    index = outcome[1]
    if outcome[0] == "crash":
        raise RuntimeError(f"a worker failed while expanding state {index + 1}:\n{outcome[2]}")
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
