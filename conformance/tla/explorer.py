"""Breadth-first, exhaustive explicit-state model checking of a ``Model``.

States are identified by 64-bit fingerprints (of the state, of its VIEW, or under
SYMMETRY of the least fingerprint over the permuted states). For each distinct state
only its fingerprint and its parent's number are kept; the counterexample is rebuilt
by replaying the model along the parent links, so it is a shortest one.

Semantics follow TLC: invariants are checked on every new distinct state (initial
states too); a state failing a CONSTRAINT is counted (and checked) but not expanded; a
transition failing an ACTION_CONSTRAINT is counted as generated and otherwise ignored;
``[][A]_v`` properties are checked on every transition; a deadlock is an expanded state
with no successor at all (unless CHECK_DEADLOCK FALSE / ``--no-deadlock``).
"""

from __future__ import annotations

import builtins
import time
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any

from conformance.tla import itf
from conformance.tla.cfg import ModelConfig
from conformance.tla.fpset import Fingerprinter, FingerprintSet
from conformance.tla.model import ActionLabel, Model, State
from conformance.tla.plan import CheckPlan, resolve_plan
from conformance.tla.progress import Progress
from conformance.tla.statequeue import StateQueue
from conformance.tla.syntax import Loc, TlaError
from conformance.tla.values import Fn, ModelValue, Value, format_value, make_fn

StateCheck = Callable[[State, int], str | None]
"""An extra per-state check (e.g. type annotations): state, state number -> error or None."""

EXIT_CODES = {"ok": 0, "violation": 12, "deadlock": 12, "error": 1, "limit": 3}


@dataclass(frozen=True)
class TraceStep:
    """One state of a counterexample and the action that produced it."""

    action: str
    params: tuple[tuple[str, Value], ...]
    loc: Loc | None
    state: State


@dataclass
class CheckResult:
    """The outcome of ``check`` or ``simulate``."""

    verdict: str  # "ok" | "violation" | "deadlock" | "error" | "limit"
    variables: tuple[str, ...]
    property: str | None = None
    message: str | None = None
    states_generated: int = 0
    distinct_states: int = 0
    queue_left: int = 0
    depth: int = 0
    seconds: float = 0.0
    trace: list[TraceStep] = field(default_factory=list)
    error_loc: Loc | None = None

    @builtins.property
    def exit_code(self) -> int:
        return EXIT_CODES[self.verdict]

    def trace_states(self) -> list[dict[str, Value]]:
        return [dict(zip(self.variables, step.state, strict=True)) for step in self.trace]

    def to_json(self) -> dict[str, Any]:
        """The ``kraftcheck check --json`` object."""
        return {
            "verdict": self.verdict,
            "property": self.property,
            "message": self.message,
            "states_generated": self.states_generated,
            "distinct_states": self.distinct_states,
            "queue_left": self.queue_left,
            "depth": self.depth,
            "seconds": round(self.seconds, 3),
            "trace": [
                {
                    "action": step.action,
                    "params": {k: itf.encode(v) for k, v in step.params},
                    "state": {var: itf.encode(v) for var, v in zip(self.variables, step.state, strict=True)},
                }
                for step in self.trace
            ],
        }


class _Stop(Exception):
    """Ends an exploration with a verdict (raised from deep inside the loop)."""

    def __init__(self, verdict: str, prop: str | None, message: str | None) -> None:
        super().__init__(message)
        self.verdict = verdict
        self.prop = prop
        self.message = message


# ---------------------------------------------------------------------------
# Fingerprinting with VIEW and SYMMETRY
# ---------------------------------------------------------------------------


def _permute(v: Any, perm: dict[ModelValue, ModelValue]) -> Any:
    t = type(v)
    if t is ModelValue:
        return perm.get(v, v)
    if t is tuple:
        return tuple(_permute(x, perm) for x in v)
    if t is frozenset:
        return frozenset(_permute(x, perm) for x in v)
    if t is Fn:
        return make_fn({_permute(k, perm): _permute(x, perm) for k, x in v.map.items()})
    return v


def _permutations(model: Model, plan: CheckPlan, where: Loc) -> list[dict[ModelValue, ModelValue]]:
    assert plan.symmetry is not None
    perms = model.eval_constant(plan.symmetry)
    if not isinstance(perms, frozenset):
        raise TlaError(f"SYMMETRY {plan.symmetry} must be a set of permutations, got {format_value(perms)}", where)
    out: list[dict[ModelValue, ModelValue]] = []
    for p in perms:
        if not isinstance(p, Fn):
            raise TlaError(f"SYMMETRY {plan.symmetry}: {format_value(p)} is not a permutation of model values",
                           where)
        mapping: dict[ModelValue, ModelValue] = {}
        for k, x in p.map.items():
            if not (isinstance(k, ModelValue) and isinstance(x, ModelValue)):
                raise TlaError(f"SYMMETRY {plan.symmetry}: permutations must map model values to model values, "
                               f"found {format_value(k)} :> {format_value(x)}", where)
            if k is not x:
                mapping[k] = x
        if mapping:
            out.append(mapping)
    return out


class StateIdentity:
    """Fingerprints of states, honouring VIEW and SYMMETRY."""

    def __init__(self, model: Model, plan: CheckPlan, config: ModelConfig) -> None:
        self.model = model
        self.view = plan.view
        self.fpr = Fingerprinter()
        self.perms = _permutations(model, plan, config.loc_of(plan.symmetry)) if plan.symmetry else []

    def __call__(self, state: State) -> int:
        base: tuple[Any, ...] = state if self.view is None else (self.model.eval_state(self.view, state),)
        fp = self.fpr.state(base)
        for perm in self.perms:
            other = self.fpr.state(_permute(base, perm))
            if other < fp:
                fp = other
        return fp


# ---------------------------------------------------------------------------
# Checks shared by exhaustive search and simulation
# ---------------------------------------------------------------------------


def _bool(value: Value, what: str, name: str) -> bool:
    if type(value) is not bool:
        raise TlaError(f"{what} {name} evaluated to {format_value(value)}, not a boolean")
    return value


class _Checks:
    def __init__(self, model: Model, plan: CheckPlan, extra: StateCheck | None) -> None:
        self.model = model
        self.plan = plan
        self.extra = extra

    def state_ok(self, state: State, number: int) -> None:
        """Raise ``_Stop`` when ``state`` violates an invariant or the extra check."""
        if self.extra is not None:
            problem = self.extra(state, number)
            if problem is not None:
                raise _Stop("violation", "type annotations", problem)
        for name, inv in self.plan.invariants:
            if not _bool(self.model.eval_state(inv, state), "invariant", name):
                raise _Stop("violation", name, f"Invariant {name} is violated.")

    def in_model(self, state: State) -> bool:
        return all(_bool(self.model.eval_state(c, state), "CONSTRAINT", c) for c in self.plan.constraints)

    def action_allowed(self, s: State, t: State) -> bool:
        return all(_bool(self.model.eval_action(c, s, t), "ACTION_CONSTRAINT", c)
                   for c in self.plan.action_constraints)

    def subscripts(self, s: State) -> list[Value]:
        """The subscripts ``v`` of the ``[][A]_v`` properties in state ``s``."""
        return [self.model.eval_state(prop.sub, s) for prop in self.plan.action_properties]

    def violated_property(self, s: State, t: State, subs: list[Value] | None = None) -> str | None:
        """The first ``[][A]_v`` property the step s -> t violates; ``subs`` are the
        subscripts in ``s`` when already computed."""
        if subs is None:
            subs = self.subscripts(s)
        for prop, before in zip(self.plan.action_properties, subs, strict=True):
            if before == self.model.eval_state(prop.sub, t):
                continue
            if not _bool(self.model.eval_action(prop.action, s, t), "property", prop.name):
                return prop.name
        return None


def _label_step(label: ActionLabel, state: State) -> TraceStep:
    return TraceStep(label.name, label.params, label.loc, state)


# ---------------------------------------------------------------------------
# Exhaustive breadth-first search
# ---------------------------------------------------------------------------


class _Search:
    def __init__(self, model: Model, config: ModelConfig, plan: CheckPlan, max_states: int | None,
                 time_limit: float | None, progress: Progress, extra: StateCheck | None,
                 queue_memory: int) -> None:
        self.model = model
        self.config = config
        self.plan = plan
        self.max_states = max_states
        self.deadline = None if time_limit is None else time.monotonic() + time_limit
        self.progress = progress
        self.identity = StateIdentity(model, plan, config)
        self.checks = _Checks(model, plan, extra)
        self.seen = FingerprintSet()
        self.queue = StateQueue(memory_limit=queue_memory, chunk_size=max(1, min(20_000, queue_memory)))
        self.generated = 0
        self.depth = 0
        self.trace: list[TraceStep] = []

    def _new_state(self, state: State, parent: int, level: int) -> None:
        fp = self.identity(state)
        if fp in self.seen:
            return
        if self.max_states is not None and len(self.seen) >= self.max_states:
            raise _Stop("limit", None, f"stopped after {len(self.seen)} distinct states (--max-states)")
        index = self.seen.add(fp, parent)
        if level > self.depth:
            self.depth = level
        try:
            self.checks.state_ok(state, index + 1)
        except _Stop:
            self.trace = self._replay(self.seen.path_to(index), state)
            raise
        if self.checks.in_model(state):
            self.queue.push((index, state))

    def run(self) -> None:
        for state in self.model.init_states(self.plan.init):
            self.generated += 1
            self._new_state(state, -1, 1)
        level_end = len(self.seen)
        level = 1
        tick = 0
        model, nxt, checks = self.model, self.plan.next, self.checks
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
                    raise _Stop("limit", None, "stopped by the time limit (--time-limit)")
            any_successor = False
            try:
                subs = checks.subscripts(state) if has_props else None
                for label, succ in model.successors(state, nxt):
                    any_successor = True
                    self.generated += 1
                    if not checks.action_allowed(state, succ):
                        continue
                    prop = checks.violated_property(state, succ, subs) if has_props else None
                    if prop is not None:
                        self.trace = self._property_trace(index, state, label, succ, prop)
                        raise _Stop("violation", prop, f"Action property {prop} is violated.")
                    self._new_state(succ, index, level + 1)
            except TlaError:
                if not self.trace:
                    self.trace = self._replay(self.seen.path_to(index), state)
                raise
            if not any_successor and self.plan.check_deadlock:
                self.trace = self._replay(self.seen.path_to(index), state)
                raise _Stop("deadlock", None, "Deadlock reached.")

    def _property_trace(self, index: int, state: State, label: ActionLabel, succ: State,
                        prop: str) -> list[TraceStep]:
        """The path to ``state`` followed by a step violating ``prop``. Under VIEW or
        SYMMETRY the replayed path may end in an equivalent state: then its own violating
        successor (same action) is used."""
        steps = self._replay(self.seen.path_to(index), state)
        end = steps[-1].state
        if end != state:
            for other_label, other in self.model.successors(end, self.plan.next):
                if other_label.name == label.name and self.checks.violated_property(end, other) == prop:
                    steps.append(_label_step(other_label, other))
                    return steps
        steps.append(_label_step(label, succ))
        return steps

    def _replay(self, path: list[int], last: State) -> list[TraceStep]:
        """Re-execute the model along ``path`` (state numbers) to recover the states and
        actions; the final state is ``last`` when reachable exactly."""
        fps = self.seen.fps
        ident = self.identity
        target = fps[path[0]]
        cands = [s for s in self.model.init_states(self.plan.init) if ident(s) == target]
        if not cands:
            raise TlaError("internal error: cannot replay the initial state of the counterexample")
        first = last if len(path) == 1 and last in cands else cands[0]
        steps = [TraceStep("Init", (), None, first)]
        for k, number in enumerate(path[1:], start=2):
            target = fps[number]
            chosen: tuple[ActionLabel, State] | None = None
            for label, succ in self.model.successors(steps[-1].state, self.plan.next):
                if ident(succ) == target:
                    if k < len(path) or succ == last:
                        chosen = (label, succ)
                        break
                    if chosen is None:
                        chosen = (label, succ)
            if chosen is None:
                raise TlaError("internal error: cannot replay a step of the counterexample")
            steps.append(_label_step(*chosen))
        return steps


def check(model: Model, config: ModelConfig, *, max_states: int | None = None,
          time_limit: float | None = None, progress: bool | Progress = True,
          typecheck: StateCheck | None = None, queue_memory: int = 20_000) -> CheckResult:
    """Explore every reachable state of ``model`` under ``config`` breadth-first."""
    start = time.monotonic()
    prog = progress if isinstance(progress, Progress) else Progress(enabled=progress)
    result = CheckResult("ok", tuple(model.variables))
    search: _Search | None = None
    try:
        plan = resolve_plan(model, config)
        search = _Search(model, config, plan, max_states, time_limit, prog, typecheck, queue_memory)
        search.run()
    except _Stop as stop:
        result.verdict, result.property, result.message = stop.verdict, stop.prop, stop.message
    except TlaError as exc:
        result.verdict, result.message, result.error_loc = "error", str(exc), exc.loc
    finally:
        prog.close()
    if search is not None:
        result.states_generated = search.generated
        result.distinct_states = len(search.seen)
        result.queue_left = len(search.queue)
        result.depth = search.depth
        result.trace = search.trace
        search.queue.close()
    result.seconds = time.monotonic() - start
    return result


# ---------------------------------------------------------------------------
# Random simulation
# ---------------------------------------------------------------------------


def _ordered(items: Iterable[Any], key: Callable[[Any], Any]) -> list[Any]:
    """A list in an order that does not depend on Python's per-process hashing."""
    return sorted(items, key=key)


def simulate(model: Model, config: ModelConfig, *, depth: int, traces: int, seed: int,
             time_limit: float | None = None, progress: bool | Progress = True,
             typecheck: StateCheck | None = None) -> CheckResult:
    """Random walks of at most ``depth`` states from random initial states, checking
    invariants and properties on every step; deterministic for a given ``seed``."""
    import random

    start = time.monotonic()
    deadline = None if time_limit is None else start + time_limit
    prog = progress if isinstance(progress, Progress) else Progress(enabled=progress, label="distinct states seen")
    result = CheckResult("ok", tuple(model.variables))
    rng = random.Random(seed)
    seen: set[int] = set()
    generated = 0
    max_depth = 0
    walk: list[TraceStep] = []
    number = 0
    try:
        plan = resolve_plan(model, config)
        ident = StateIdentity(model, plan, config)
        checks = _Checks(model, plan, typecheck)
        inits = _ordered(model.init_states(plan.init), ident)
        generated += len(inits)
        if not inits:
            raise _Stop("error", None, "the initial predicate has no solution")
        for _ in range(traces):
            state = inits[rng.randrange(len(inits))]
            walk = [TraceStep("Init", (), None, state)]
            seen.add(ident(state))
            number += 1
            checks.state_ok(state, number)
            while len(walk) < depth and checks.in_model(state):
                succs = _ordered(model.successors(state, plan.next), lambda ls: (ls[0].name, ident(ls[1])))
                generated += len(succs)
                if not succs:
                    if plan.check_deadlock:
                        raise _Stop("deadlock", None, "Deadlock reached.")
                    break
                allowed = [ls for ls in succs if checks.action_allowed(state, ls[1])]
                if not allowed:
                    break
                label, succ = allowed[rng.randrange(len(allowed))]
                walk.append(_label_step(label, succ))
                prop = checks.violated_property(state, succ)
                if prop is not None:
                    raise _Stop("violation", prop, f"Action property {prop} is violated.")
                seen.add(ident(succ))
                number += 1
                checks.state_ok(succ, number)
                state = succ
                prog.update(len(seen), generated, 0, len(walk))
            max_depth = max(max_depth, len(walk))
            walk = []
            if deadline is not None and time.monotonic() > deadline:
                raise _Stop("limit", None, "stopped by the time limit (--time-limit)")
    except _Stop as stop:
        result.verdict, result.property, result.message = stop.verdict, stop.prop, stop.message
        result.trace = walk
        max_depth = max(max_depth, len(walk))
    except TlaError as exc:
        result.verdict, result.message, result.error_loc = "error", str(exc), exc.loc
        result.trace = walk
    finally:
        prog.close()
    result.states_generated = generated
    result.distinct_states = len(seen)
    result.depth = max_depth
    result.seconds = time.monotonic() - start
    return result


def iter_changed(prev: State | None, cur: State, variables: tuple[str, ...]) -> Iterator[tuple[str, Value]]:
    """The variables of ``cur`` that differ from ``prev`` (all of them when ``prev`` is None)."""
    for i, var in enumerate(variables):
        if prev is None or prev[i] != cur[i]:
            yield var, cur[i]
