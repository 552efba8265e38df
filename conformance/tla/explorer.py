"""Breadth-first, exhaustive explicit-state model checking of a ``Model``.

States are identified by 64-bit fingerprints (of the state, of its VIEW, or under
SYMMETRY of the least fingerprint over the states permuted by the group the SYMMETRY set
generates, as TLC closes it under composition). For each distinct state
only its fingerprint and its parent's number are kept; the counterexample is rebuilt
by replaying the model along the parent links, so it is a shortest one.

Semantics and counts follow TLC: every state generated (initial states and every
successor) counts as generated; a state failing a CONSTRAINT, or reached by a transition
failing an ACTION_CONSTRAINT, is checked against the invariants and then dropped: it is
not stored, not counted as distinct and not expanded. Every other new state is stored,
checked against the invariants and expanded. ``[][A]_v`` properties are checked on every
transition kept; a deadlock is an expanded state with no successor at all (unless
CHECK_DEADLOCK FALSE / ``--no-deadlock``). Liveness properties are checked after a
complete search on the graph of the states kept, which the search reports to a
``LivenessRecorder`` (``conformance.tla.liveness``; one worker).

Random simulation (``simulate``) lives in ``simulation.py`` and is re-exported here.
"""

from __future__ import annotations

import time
from operator import itemgetter

from conformance.tla.actions import RawLabel, make_label
from conformance.tla.cfg import ModelConfig
from conformance.tla.checking import (
    EXIT_CODES,
    INTERRUPTED,
    CheckResult,
    Checks,
    StateCheck,
    StateIdentity,
    Stop,
    TraceStep,
    behaviourless,
    finish_run,
    iter_changed,
    label_step,
)
from conformance.tla.deadline import TimeLimitReached, interrupting
from conformance.tla.fpset import FingerprintSet
from conformance.tla.gcpolicy import search_collector
from conformance.tla.liveness import LivenessRecorder, liveness_recorder
from conformance.tla.liveness.recorder import MESSAGE as LIVENESS_MESSAGE
from conformance.tla.liveness.recorder import Violation
from conformance.tla.model import ActionLabel, Model, State
from conformance.tla.parallel import fork_available, run_parallel
from conformance.tla.plan import CheckPlan, resolve_plan
from conformance.tla.progress import Progress
from conformance.tla.simulation import simulate
from conformance.tla.statequeue import StateQueue
from conformance.tla.syntax import TlaError

__all__ = ["EXIT_CODES", "CheckResult", "StateCheck", "TraceStep", "check", "iter_changed", "simulate"]


_BY_FINGERPRINT = itemgetter(0)
# a successor: (fingerprint, raw label, state, allowed by the ACTION_CONSTRAINTs, kept); the
# label is made (``make_label``) only for a step of a counterexample
Successor = tuple[int, RawLabel, State, bool, bool]


class Search:
    """The state of one breadth-first search (sequential; see ``parallel.py`` for more workers)."""

    def __init__(self, model: Model, config: ModelConfig, plan: CheckPlan, max_states: int | None,
                 time_limit: float | None, progress: Progress, extra: StateCheck | None,
                 queue_memory: int) -> None:
        self.model = model
        self.config = config
        self.plan = plan
        self.max_states = max_states
        self.deadline = None if time_limit is None else time.monotonic() + time_limit
        self.progress = progress
        self.identity = StateIdentity.of(model, plan, config)
        self.checks = Checks(model, plan, extra)
        self.seen = FingerprintSet()
        self.queue = StateQueue.bounded(queue_memory)
        self.generated = 0
        self.depth = 0
        self.trace: list[TraceStep] = []
        self.live: LivenessRecorder | None = None  # records the state graph for liveness
        self.replay_note: str | None = None  # why the counterexample is shown cut short

    def _new_state(self, state: State, parent: int, level: int, fp: int | None = None,
                   parent_state: State | None = None) -> None:
        if fp is None:
            fp = self.identity(state)
        if fp in self.seen:
            return
        self.limit_check()
        index = self.seen.add(fp, parent)
        if level > self.depth:
            self.depth = level
        try:
            self.checks.state_ok(state, index + 1, parent_state)
        except Stop:
            self.trace = self._replay(self.seen.path_to(index), state)
            raise
        self.queue.push((index, state))

    def _dropped_state(self, state: State, parent: int, parent_state: State | None,
                       label: RawLabel | None, fp: int | None = None) -> None:
        """A state outside the model (CONSTRAINT or ACTION_CONSTRAINT): checked against the
        invariants, then forgotten. ``fp``: its fingerprint, when already computed."""
        exact = fp if self.identity.exact else None
        try:
            self.checks.outside_ok(state, len(self.seen) + 1, exact, parent_state)
        except Stop:
            if parent < 0 or label is None:
                self.trace = [TraceStep("Init", (), None, state)]
            else:
                self.trace = self._replay(self.seen.path_to(parent), parent_state)
                self.trace.append(label_step(make_label(label), state))
            raise

    def limit_check(self) -> None:
        """Raise the limit verdict when one more distinct state would exceed --max-states."""
        if self.max_states is not None and len(self.seen) >= self.max_states:
            raise Stop("limit", None, f"stopped after {len(self.seen)} distinct states (--max-states)")

    def start(self) -> None:
        """Generate the initial states, in fingerprint order: each is checked, then stored
        and queued, or dropped (outside the CONSTRAINTs). States enter the queue ordered by
        their structural fingerprint, so a run (and the counts it reports when it stops
        early) does not depend on Python's per-process hashing of strings, which sets the
        enumeration order of sets. The time limit is checked as each initial state is
        generated and before each is checked: a slow Init (or CONSTRAINT, or invariant on
        many initial states) stops with the limit verdict as the search does."""
        identity, deadline, now = self.identity, self.deadline, time.monotonic
        inits = []
        rt = self.model.runtime
        rt.expanding(None, -1)  # TLCGet("level") is 0 in Init, as in TLC
        for state in self.model.init_states(self.plan.init):
            if deadline is not None and now() > deadline:
                raise Stop("limit", None, "stopped by the time limit (--time-limit)")
            inits.append((identity(state), state))
            self.generated += 1
        inits.sort(key=_BY_FINGERPRINT)
        rt.expanding(None, 0)  # the initial states are at level 1
        for fp, state in inits:
            # each state is checked (its CONSTRAINTs, invariants), which may take long
            if deadline is not None and now() > deadline:
                raise Stop("limit", None, "stopped by the time limit (--time-limit)")
            if self.checks.in_model(state):
                if self.live is not None:
                    self.live.initial(fp)
                self._new_state(state, -1, 1, fp)
            else:
                self._dropped_state(state, -1, None, None, fp)

    def successors_of(self, state: State, level: int) -> tuple[State, list[Successor]]:
        """``state`` (at ``level``) with its values replaced by the objects of the same values
        met before (``StateIdentity.canonical_successors``), and its successors in fingerprint
        order, each counted as generated: (fingerprint, raw label, successor, allowed by the
        ACTION_CONSTRAINTs, kept: allowed and within the CONSTRAINTs). A successor stored
        before (the same state: no VIEW, no SYMMETRY) is within the CONSTRAINTs when they are
        pure: they are not evaluated again. The runtime is left expanding ``state``."""
        identity, checks, rt = self.identity, self.checks, self.model.runtime
        state, canonical = identity.canonical_successors(state)
        rt.expanding(state, level)
        stored = self.seen if identity.exact and checks.constraints_pure else ()
        successors = []
        times = self.model.multiplicity  # TLC generates a successor once per branch to it
        for label, succ in self.model.raw_successors(state, self.plan.next, not identity.exact):
            self.generated += times[0]
            fp, succ = canonical(succ)
            allowed = checks.action_allowed(state, succ)
            kept = allowed and (fp in stored or checks.in_model(succ))
            successors.append((fp, label, succ, allowed, kept))
        successors.sort(key=_BY_FINGERPRINT)
        return state, successors

    def run(self) -> None:
        self.start()
        live = self.live
        level_end = len(self.seen)
        level = 1
        tick = 0
        checks = self.checks
        has_props = bool(self.plan.action_properties)
        while len(self.queue):
            index, state = self.queue.pop()
            if index >= level_end:
                level += 1
                level_end = len(self.seen)
            tick += 1
            if tick & 63 == 0:
                self.progress.update(len(self.seen), self.generated, len(self.queue), self.depth)
                if self.deadline is not None and time.monotonic() > self.deadline:
                    self.queue.push((index, state))
                    raise Stop("limit", None, "stopped by the time limit (--time-limit)")
            try:
                state, successors = self.successors_of(state, level)
                subs = checks.subscripts(state) if has_props else None
                for fp, label, succ, _, kept in successors:
                    if not kept:
                        self._dropped_state(succ, index, state, label, fp)
                        continue
                    prop = checks.violated_property(state, succ, subs) if has_props else None
                    if prop is not None:
                        self.trace = self._property_trace(index, state, label, succ, prop)
                        raise Stop("violation", prop, f"Action property {prop} is violated.")
                    self._new_state(succ, index, level + 1, fp, state)
                if live is not None:
                    self.model.runtime.expanding(None, None)  # (TLCGet("level") refused there)
                    live.expanded(self.seen.fps[index], state,
                                  [(fp, succ) for fp, _, succ, allowed, _ in successors if allowed])
            except TlaError:
                if not self.trace:
                    self.trace = self._replay(self.seen.path_to(index), state)
                raise
            if not successors and self.plan.check_deadlock:
                self.trace = self._replay(self.seen.path_to(index), state)
                raise Stop("deadlock", None, "Deadlock reached.")

    def _property_trace(self, index: int, state: State, raw: RawLabel, succ: State,
                        prop: str) -> list[TraceStep]:
        """The path to ``state`` followed by a step violating ``prop``. Under VIEW or
        SYMMETRY the replayed path may end in an equivalent state: then its own violating
        successor (same action) is used."""
        label = make_label(raw)
        steps = self._replay(self.seen.path_to(index), state)
        end = steps[-1].state
        if end != state:
            self.model.runtime.expanding(end, len(steps))
            for other_label, other in self.model.successors(end, self.plan.next):
                if other_label.name == label.name and self.checks.violated_property(end, other) == prop:
                    steps.append(label_step(other_label, other))
                    return steps
        steps.append(label_step(label, succ))
        return steps

    def _replay(self, path: list[int], last: State | None) -> list[TraceStep]:
        """Re-execute the model along ``path`` (state numbers) to recover the states and
        actions. The replay takes, at each step, the first successor (in the model's
        enumeration order) with the stored fingerprint: that is the state the search
        stored, since the search kept the first one it met, so the replay retraces the
        stored states exactly, also under VIEW and SYMMETRY (states the search dropped,
        failing a CONSTRAINT or ACTION_CONSTRAINT, are skipped as in the search). ``last`` is preferred at the end
        should several final candidates match."""
        fps = self.seen.fps
        ident = self.identity
        target = fps[path[0]]
        rt = self.model.runtime
        rt.expanding(None, -1)  # Init: level 0
        inits = list(self.model.init_states(self.plan.init))
        rt.expanding(None, 0)  # the initial states: level 1
        cands = [s for s in inits if ident(s) == target and self.checks.in_model(s)]
        if not cands:
            return self._unreplayed([], last, "the initial state")
        first = last if len(path) == 1 and last in cands else cands[0]
        steps = [TraceStep("Init", (), None, first)]
        for k, number in enumerate(path[1:], start=2):
            target = fps[number]
            chosen: tuple[ActionLabel, State] | None = None
            prev = steps[-1].state
            rt.expanding(prev, k - 1)
            for label, succ in self.model.successors(prev, self.plan.next):
                if ident(succ) == target and self.checks.action_allowed(prev, succ) \
                        and self.checks.in_model(succ):
                    if k < len(path) or succ == last:
                        chosen = (label, succ)
                        break
                    if chosen is None:
                        chosen = (label, succ)
            if chosen is None:
                return self._unreplayed(steps, last, f"step {k}")
            steps.append(label_step(*chosen))
        return steps

    def _unreplayed(self, steps: list[TraceStep], last: State | None, where: str) -> list[TraceStep]:
        """The counterexample when its path cannot be executed again (a spec that draws
        random values in Init or Next finds other states the second time): the steps
        replayed so far and the state the search stopped at, so that the verdict stands."""
        if last is None:
            raise TlaError(f"cannot replay {where} of the counterexample (does the spec draw "
                           "random values in Init or Next?)")
        self.replay_note = (f"The path to the last state could not be replayed from {where} on "
                            "(does the spec draw random values in Init or Next?): only the "
                            "steps replayed and that state are shown.")
        return [*steps, TraceStep("Unreplayed", (), None, last)]


def _exact_liveness(search: Search, model: Model, config: ModelConfig, plan: CheckPlan,
                    max_states: int | None, start: float, time_limit: float | None,
                    queue_memory: int) -> Violation | None:
    """The liveness verdict of a search made under SYMMETRY or VIEW that found a violation,
    made again on the states themselves: a lasso of the quotient graph can be no behaviour
    of the spec (its steps mix states of one class; TLC's regression model symmetry/NQ),
    and TLC too then stops with an error. ``search`` takes this search's graph and trace
    (its counts stay the reduced search's, as TLC reports them); None when no violation."""
    left = None if time_limit is None else max(0.0, time_limit - (time.monotonic() - start))
    exact = Search(model, config, plan, max_states, left, Progress(enabled=False),
                   search.checks.extra, queue_memory)
    exact.identity = StateIdentity([])
    exact.live = liveness_recorder(model, plan, exact.identity, exact.checks.action_allowed)
    try:
        exact.run()
    finally:
        exact.queue.close()
    model.runtime.expanding(None, None)
    assert exact.live is not None
    search.live = exact.live
    return exact.live.check()


def check(model: Model, config: ModelConfig, *, max_states: int | None = None,
          time_limit: float | None = None, progress: bool | Progress = True,
          typecheck: StateCheck | None = None, queue_memory: int = 2_000,
          workers: int = 1) -> CheckResult:
    """Explore every reachable state of ``model`` under ``config`` breadth-first, on
    ``workers`` processes (forked; one when the platform cannot fork)."""
    start = time.monotonic()
    prog = progress if isinstance(progress, Progress) else Progress(enabled=progress)
    result = CheckResult("ok", tuple(model.variables))
    search: Search | None = None
    try:
        with interrupting(time_limit):
            if behaviourless(config):
                raise Stop("ok", None, None)
            plan = resolve_plan(model, config)
            search = Search(model, config, plan, max_states, time_limit, prog, typecheck, queue_memory)
            search.live = liveness_recorder(model, plan, search.identity, search.checks.action_allowed)
            with search_collector():
                if workers > 1 and fork_available() and search.live is None:
                    run_parallel(search, workers, queue_memory)
                else:
                    search.run()
            model.runtime.expanding(None, None)  # (the level is not known in temporal properties)
            if search.live is not None:
                found = search.live.check()
                if found is not None and not search.identity.exact:
                    found = _exact_liveness(search, model, config, plan, max_states, start,
                                            time_limit, queue_memory)
                if found is not None:
                    search.trace = search.live.trace(found.lasso)
                    result.loop = found.lasso.loop
                    raise Stop("violation", found.obligation.prop, LIVENESS_MESSAGE)
    except TimeLimitReached as late:  # one evaluation ran past the limit
        result.verdict, result.message = "limit", str(late)
        if search is not None:
            search.trace = []
    except Stop as stop:
        result.verdict, result.property, result.message = stop.verdict, stop.prop, stop.message
    except TlaError as exc:
        result.verdict, result.message, result.error_loc = "error", str(exc), exc.loc
    except KeyboardInterrupt:  # Ctrl-C: report what was explored so far
        result.verdict, result.message = "interrupted", INTERRUPTED
    finally:
        prog.close()
        model.runtime.expanding(None, None)
        if search is not None:
            result.states_generated = search.generated
            result.distinct_states = len(search.seen)
            result.queue_left = len(search.queue)
            result.depth = search.depth
            result.trace = search.trace
            if search.replay_note is not None:
                result.message = f"{result.message or ''} {search.replay_note}".strip()
            search.queue.close()  # also removes the spill folder
    result.seconds = time.monotonic() - start
    finish_run(model, config, result)
    return result
