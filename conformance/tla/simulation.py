"""Random simulation: random walks from random initial states, checking invariants and
``[][A]_v`` properties on every step, and liveness properties on the lassos a walk
closes (``conformance.tla.liveness.walk``); deterministic for a given seed (the order of
initial states and successors never depends on Python's per-process hashing)."""

from __future__ import annotations

import random
import time
from collections.abc import Callable, Iterable, Iterator
from typing import Any

from conformance.tla.cfg import ModelConfig
from conformance.tla.checking import (
    INTERRUPTED,
    CheckResult,
    Checks,
    StateCheck,
    StateIdentity,
    Stop,
    TraceStep,
    behaviourless,
    finish_run,
    label_step,
)
from conformance.tla.deadline import TimeLimitReached, interrupting
from conformance.tla.liveness import liveness_recorder
from conformance.tla.liveness.recorder import MESSAGE as LIVENESS_MESSAGE
from conformance.tla.liveness.walk import WalkMonitor, WalkViolation
from conformance.tla.model import Model, State
from conformance.tla.plan import resolve_plan
from conformance.tla.progress import Progress
from conformance.tla.stdlib import Runtime
from conformance.tla.syntax import TlaError


def _ordered(items: Iterable[Any], key: Callable[[Any], Any]) -> list[Any]:
    """A list in an order that does not depend on Python's per-process hashing."""
    return sorted(items, key=key)


def _check_time(deadline: float | None) -> None:
    """Stop with the limit verdict once ``deadline`` has passed."""
    if deadline is not None and time.monotonic() > deadline:
        raise Stop("limit", None, "stopped by the time limit (--time-limit)")


def _before(deadline: float | None, items: Iterable[Any]) -> Iterator[Any]:
    """``items``, the time limit read as each comes (an Init with many solutions, or slow
    ones, is cut short too)."""
    for item in items:
        _check_time(deadline)
        yield item


def _reading(rt: Runtime, state: State, level: int) -> State:
    """``state``, which the runtime now reads at ``level`` (TLCGet("level"))."""
    rt.expanding(state, level)
    return state


def simulate(model: Model, config: ModelConfig, *, depth: int, traces: int, seed: int,
             time_limit: float | None = None, progress: bool | Progress = True,
             typecheck: StateCheck | None = None) -> CheckResult:
    """Random walks of at most ``depth`` states from random initial states, checking
    invariants and properties on every step; deterministic for a given ``seed``."""
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
        with interrupting(time_limit):
            if behaviourless(config):
                raise Stop("ok", None, None)
            plan = resolve_plan(model, config)
            ident = StateIdentity.of(model, plan, config)
            checks = Checks(model, plan, typecheck)
            recorder = liveness_recorder(model, plan, ident, checks.action_allowed)
            monitor = WalkMonitor(recorder) if recorder is not None else None

            def lasso(found: WalkViolation | None) -> None:
                if found is not None:
                    if found.stutter:
                        walk.append(TraceStep("Stuttering", (), None, walk[-1].state))
                    result.loop = found.loop
                    raise Stop("violation", found.obligation.prop, LIVENESS_MESSAGE)

            rt = model.runtime
            rt.expanding(None, -1)  # TLCGet("level") is 0 in Init
            inits = _ordered(_before(deadline, model.init_states(plan.init)), ident)
            generated += len(inits)
            if not inits:
                raise Stop("error", None, "the initial predicate has no solution")
            for _ in range(traces):
                state = inits[rng.randrange(len(inits))]
                walk = [TraceStep("Init", (), None, state)]
                seen.add(ident(state))
                number += 1
                rt.expanding(state, 1)
                checks.state_ok(state, number)
                if monitor is not None and checks.in_model(state):
                    rt.expanding(None, None)  # (TLCGet("level") refused in temporal properties)
                    lasso(monitor.start(ident(state), state))
                while len(walk) < depth and checks.in_model(_reading(rt, state, len(walk))):
                    _check_time(deadline)
                    succs = _ordered(model.successors(state, plan.next), lambda ls: (ls[0].name, ident(ls[1])))
                    generated += len(succs)
                    if not succs:
                        if plan.check_deadlock:
                            raise Stop("deadlock", None, "Deadlock reached.")
                        break
                    allowed = [ls for ls in succs if checks.action_allowed(state, ls[1])]
                    if not allowed:
                        break
                    label, succ = allowed[rng.randrange(len(allowed))]
                    walk.append(label_step(label, succ))
                    prop = checks.violated_property(state, succ)
                    if prop is not None:
                        raise Stop("violation", prop, f"Action property {prop} is violated.")
                    seen.add(ident(succ))
                    number += 1
                    rt.expanding(succ, len(walk))
                    checks.state_ok(succ, number, state)
                    state = succ
                    if monitor is not None and checks.in_model(state):
                        rt.expanding(None, None)
                        lasso(monitor.step(ident(state), state))
                    prog.update(len(seen), generated, 0, len(walk))
                max_depth = max(max_depth, len(walk))
                walk = []
                _check_time(deadline)
    except TimeLimitReached as late:  # one evaluation ran past the limit
        result.verdict, result.message = "limit", str(late)
        result.trace = []
    except Stop as stop:
        result.verdict, result.property, result.message = stop.verdict, stop.prop, stop.message
        result.trace = [] if stop.verdict == "limit" else walk  # a walk cut short shows nothing
        max_depth = max(max_depth, len(walk))
    except TlaError as exc:
        result.verdict, result.message, result.error_loc = "error", str(exc), exc.loc
        result.trace = walk
    except KeyboardInterrupt:  # Ctrl-C: report what was explored so far
        result.verdict, result.message = "interrupted", INTERRUPTED
    finally:
        prog.close()
        model.runtime.expanding(None, None)
    result.states_generated = generated
    result.distinct_states = len(seen)
    result.depth = max_depth
    result.seconds = time.monotonic() - start
    finish_run(model, config, result)
    return result
