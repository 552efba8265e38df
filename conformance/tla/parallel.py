"""Breadth-first search on several worker processes (``--workers N``).

Level-synchronous: the main process keeps the fingerprint set and the parent links;
each level's states go to forked workers in chunks. A worker expands a state as the
sequential search does (``Search.successors_of``: successors in fingerprint order, their
values shared with equal ones met before), checks the ``[][A]_v`` properties on its
transitions and each successor against the invariants (from its parent, as the
sequential search checks a new state), and returns the fingerprints and values of the
successors to store. Outcomes are consumed in state order, so the states are stored in
the sequential search's order: verdicts, counterexamples and counts are one worker's and
do not depend on timing. The check that stopped a worker is made again by the main
process, which rebuilds the counterexample as the sequential search does.

Needs the ``fork`` start method (workers inherit the compiled model); elsewhere the
search runs on one process.
"""

from __future__ import annotations

import copyreg
import io
import multiprocessing
import pickle
import signal
import time
import traceback
from collections.abc import Iterator
from multiprocessing.connection import Connection, wait
from typing import Any

from conformance.tla.actions import RawLabel, make_label
from conformance.tla.checking import Stop, label_step
from conformance.tla.model import State
from conformance.tla.statequeue import StateQueue
from conformance.tla.syntax import Loc, TlaError
from conformance.tla.values import Fn

# The search being run; set in the main process right before forking the workers.
_SEARCH: Any = None
# In a worker: the fingerprints it has already sent. The main process handles outcomes in
# order and records every fingerprint it receives, so these never need sending again.
_SENT: set[int] = set()

Item = tuple[int, State]
# What a worker made of one state: ("ok", index, generated, new) | ("stop", index, generated,
# new, verdict, prop, message, checked) | ("error", index, generated, new, message, loc,
# checked). ``generated``: its successors generated; ``new``: the (fp, successor) pairs to
# store, up to where it stopped; ``checked``: (fp, raw label, successor, kept) whose check stopped
# it or failed, else None.
Outcome = tuple[Any, ...]
Checked = tuple[int, RawLabel, State, bool]


class _Pickler(pickle.Pickler):
    """Pickles functions with their hashes (``Fn.reduce_with_hash``): the processes of the
    search are forked from one, so they share the hash seed of strings, and rebuilding a
    set of records does not hash each of them again."""

    dispatch_table = {**copyreg.dispatch_table, Fn: Fn.reduce_with_hash}


def _send(conn: Connection, obj: Any) -> None:
    """Send ``obj`` to a process of the search (forked from this one, or its parent)."""
    buf = io.BytesIO()
    _Pickler(buf, pickle.HIGHEST_PROTOCOL).dump(obj)
    conn.send_bytes(buf.getbuffer())


def _recv(conn: Connection) -> Any:
    return pickle.loads(conn.recv_bytes())


def fork_available() -> bool:
    return "fork" in multiprocessing.get_all_start_methods()


def _expand(item: Item, level: int) -> Outcome:
    """Expand one state as the sequential search does (``Search.successors_of``, then each
    successor checked in fingerprint order), except that a kept successor is checked
    against the invariants unless this worker sent it before: whether another worker
    found it first is known to the main process only (a state found before passed)."""
    search = _SEARCH
    index, state = item
    checks = search.checks
    exact = search.identity.exact
    new: list[tuple[int, State]] = []
    checked: Checked | None = None
    search.generated = 0
    try:
        state, successors = search.successors_of(state, level)
        if not successors and search.plan.check_deadlock:
            return ("stop", index, 0, new, "deadlock", None, "Deadlock reached.", None)
        has_props = bool(search.plan.action_properties)
        subs = checks.subscripts(state) if has_props else None
        fresh: set[int] = set()
        for fp, label, succ, _, kept in successors:
            if not kept:  # outside the model: checked against the invariants, then dropped
                checked = (fp, label, succ, False)
                checks.outside_ok(succ, 0, fp if exact else None, state)
                continue
            prop = checks.violated_property(state, succ, subs) if has_props else None
            if prop is not None:
                return ("stop", index, search.generated, new, "violation", prop,
                        f"Action property {prop} is violated.", None)
            if fp in _SENT or fp in fresh:
                continue
            checked = (fp, label, succ, True)
            checks.state_ok(succ, 0, state)
            fresh.add(fp)
            new.append((fp, succ))
        _SENT.update(fresh)  # only once the outcome is certain to be sent
        return ("ok", index, search.generated, new)
    except Stop as stop:
        return ("stop", index, search.generated, new, stop.verdict, stop.prop, stop.message, checked)
    except TlaError as exc:
        return ("error", index, search.generated, new, exc.message, exc.loc, checked)


def _serve(conn: Connection) -> None:
    """A worker: the outcomes of each chunk of states it receives, until its pipe closes."""
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the main process handles Ctrl-C
    while True:
        try:
            chunk = _recv(conn)
        except EOFError:
            return
        try:
            reply: tuple[str, Any] = ("ok", _expand_chunk(chunk))
        except Exception:  # a defect: the main process raises it with this traceback
            reply = ("crash", traceback.format_exc())
        _send(conn, reply)


def _expand_chunk(chunk: tuple[int, list[Item]]) -> list[Outcome]:
    """The outcomes of a chunk: the level of its states, and the states."""
    level, items = chunk
    out: list[Outcome] = []
    for item in items:
        outcome = _expand(item, level)
        out.append(outcome)
        if outcome[0] != "ok":
            break
    return out


def _chunks(queue: StateQueue, size: int, level: int) -> Iterator[tuple[int, list[Item]]]:
    while len(queue):
        yield level, [queue.pop() for _ in range(min(size, len(queue)))]


class _Workers:
    """Forked worker processes, each with a pipe of its own. A chunk is sent only to a
    worker waiting for one, so no side ever waits on a full pipe, and stopping is killing
    the processes: no thread is left to wait for (a ``multiprocessing.Pool`` terminated
    while its task thread writes a large chunk waits for ever)."""

    def __init__(self, count: int) -> None:
        ctx = multiprocessing.get_context("fork")
        self.procs: list[Any] = []
        self.conns: list[Connection] = []
        try:
            for _ in range(count):
                mine, theirs = ctx.Pipe()
                proc = ctx.Process(target=_serve, args=(theirs,), daemon=True)
                proc.start()
                theirs.close()
                self.procs.append(proc)
                self.conns.append(mine)
        except BaseException:
            self.close()
            raise

    def map(self, chunks: Iterator[tuple[int, list[Item]]]) -> Iterator[list[Outcome]]:
        """The outcomes of each chunk, in the order of the chunks."""
        busy: dict[Connection, int] = {}  # a worker's pipe -> the number of its chunk
        done: dict[int, list[Outcome]] = {}
        sent = taken = 0
        idle = list(self.conns)
        while True:
            while idle:  # first the workers get work, then the outcomes are taken
                chunk = next(chunks, None)
                if chunk is None:
                    break
                conn = idle.pop()
                _send(conn, chunk)
                busy[conn] = sent
                sent += 1
            while taken in done:
                yield done.pop(taken)
                taken += 1
            if not busy:
                return
            for ready in wait(list(busy)):
                assert isinstance(ready, Connection)
                done[busy.pop(ready)] = self._reply(ready)
                idle.append(ready)

    def _reply(self, conn: Connection) -> list[Outcome]:
        try:
            kind, body = _recv(conn)
        except EOFError:
            proc = self.procs[self.conns.index(conn)]
            proc.join(5)
            raise RuntimeError("a worker process of the search ended unexpectedly "
                               f"(exit code {proc.exitcode})") from None
        if kind == "crash":
            raise RuntimeError(f"a worker process of the search failed:\n{body}")
        return body

    def close(self) -> None:
        for proc in self.procs:
            if proc.is_alive():
                proc.kill()
        for proc in self.procs:
            proc.join()
        for conn in self.conns:
            conn.close()


def _compile_next(search: Any) -> None:
    """Generate the successors of an initial state here, before the workers are forked:
    they inherit the next-state relation compiled (each would compile it again). Nothing
    is counted or checked; an error is left for the worker that meets it to report."""
    try:
        state = next(iter(search.model.init_states(search.plan.init)), None)
        if state is not None:
            for _ in search.model.raw_successors(state, search.plan.next):
                pass
    except TlaError:
        pass


def run_parallel(search: Any, workers: int, queue_memory: int) -> None:
    """Run ``search`` (an ``explorer.Search``) level by level on ``workers`` processes."""
    global _SEARCH
    seen = search.seen
    search.start()
    frontier = search.queue
    _compile_next(search)
    _SEARCH = search
    pool = _Workers(workers)
    level = 1
    index = -1  # the last state whose outcome was taken
    stored: int | None = None  # the states stored before a stopping outcome was taken
    try:
        while len(frontier):
            nxt = StateQueue.bounded(queue_memory)
            search.queue = _Pending(frontier, nxt)
            size = max(1, min(256, len(frontier) // (workers * 4)))
            for outcomes in pool.map(_chunks(frontier, size, level)):
                for outcome in outcomes:
                    kind, index = outcome[0], outcome[1]
                    search.generated += outcome[2]
                    for fp, succ in outcome[3]:
                        if fp in seen:
                            continue
                        search.limit_check()
                        new = seen.add(fp, index)
                        search.depth = level + 1
                        nxt.push((new, succ))
                    if kind != "ok":
                        stored = len(seen)
                        _finish(search, outcome, level)
                search.progress.update(len(seen), search.generated, len(frontier) + len(nxt), search.depth)
                if search.deadline is not None and time.monotonic() > search.deadline:
                    raise Stop("limit", None, "stopped by the time limit (--time-limit)")
            frontier.close()
            frontier = nxt
            search.queue = frontier
            level += 1
    except (Stop, TlaError):
        # the sequential search's queue at this stop: the states stored after the one being
        # expanded (a successor stored by the check that stopped the search is not queued)
        search.queue = _Stopped(search.queue, (len(seen) if stored is None else stored) - index - 1)
        raise
    finally:
        pool.close()
        _SEARCH = None


class _Pending:
    """The states not yet expanded: the rest of this level and the next one (for counts)."""

    def __init__(self, current: StateQueue, following: StateQueue) -> None:
        self.current = current
        self.following = following

    def __len__(self) -> int:
        return len(self.current) + len(self.following)

    def push(self, item: Item) -> None:
        """A state found now is expanded in the next level."""
        self.following.push(item)

    def close(self) -> None:
        self.current.close()
        self.following.close()


class _Stopped:
    """The states left unexpanded when the search stopped, as the sequential search counts
    them (the workers may have expanded some of them already)."""

    def __init__(self, pending: Any, count: int) -> None:
        self.pending = pending
        self.count = count

    def __len__(self) -> int:
        return self.count

    def close(self) -> None:
        self.pending.close()


def _finish(search: Any, outcome: Outcome, level: int) -> None:
    """Rebuild the counterexample of a stopping outcome and raise its verdict. The check
    of a successor that stopped a worker is made again here as the sequential search
    makes it (with its state number; a state stored before is not checked again)."""
    index = outcome[1]
    path = search.seen.path_to(index)
    replayed = search._replay(path, None)
    state = replayed[-1].state
    search.model.runtime.expanding(state, level)
    checked = outcome[-1]
    if checked is not None:
        fp, label, succ, kept = checked
        try:
            if kept:
                search._new_state(succ, index, level + 1, fp, state)
            else:
                search._dropped_state(succ, index, state, label, fp)
        except TlaError:
            search.trace = replayed
            raise
    search.trace = replayed
    if outcome[0] == "error":
        message, loc = outcome[4], outcome[5]
        raise TlaError(message, loc if isinstance(loc, Loc) else None)
    if checked is not None:  # the check passed here (it is not deterministic): the worker's
        replayed.append(label_step(make_label(checked[1]), checked[2]))  # verdict stands
    verdict, prop, message = outcome[4], outcome[5], outcome[6]
    if verdict == "violation" and checked is None and prop is not None and \
            any(p.name == prop for p in search.plan.action_properties):
        for label, succ in search.model.raw_successors(state, search.plan.next):
            if search.checks.action_allowed(state, succ) and search.checks.violated_property(state, succ) == prop:
                search.trace = search._property_trace(index, state, label, succ, prop)
                break
    raise Stop(verdict, prop, message)
