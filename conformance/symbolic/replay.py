"""The explicit engine re-runs a symbolic counterexample before anyone sees it.

A trace found by z3 is an answer only if the engine agrees step by step: the first state
is an initial state, each state is a successor of the previous one under ``Next`` (the
action named as the engine names it), and the last state or step violates what the
solver said it violates. Any disagreement is a translation bug, reported as such.
"""

from __future__ import annotations

from collections.abc import Sequence

from conformance.tla.checking import Checks, Stop, TraceStep, label_step
from conformance.tla.model import Model, State
from conformance.tla.plan import CheckPlan


class ReplayError(Exception):
    """The explicit engine does not reproduce a symbolic counterexample."""


def replay(model: Model, plan: CheckPlan, states: Sequence[State]) -> tuple[list[TraceStep], str, str]:
    """The engine's trace of ``states``, the property violated at its end and the message.

    Raises ``ReplayError`` when a state is not initial or not a successor, or when the
    last state violates nothing.
    """
    checks = Checks(model, plan, None)
    inits = list(model.init_states(plan.init))
    if states[0] not in inits:
        raise ReplayError("state 1 is not an initial state")
    steps = [TraceStep("Init", (), None, states[0])]
    for k in range(1, len(states)):
        prev, want = states[k - 1], states[k]
        if not checks.in_model(prev):
            raise ReplayError(f"state {k} violates a CONSTRAINT, so it has no successors")
        found = None
        for label, succ in model.successors(prev, plan.next):
            if succ == want and checks.action_allowed(prev, succ):
                found = label_step(label, succ)
                break
        if found is None:
            raise ReplayError(f"state {k + 1} is not a successor of state {k}")
        steps.append(found)
        if k < len(states) - 1:
            try:
                checks.state_ok(want, k + 1)
            except Stop as stop:
                raise ReplayError(f"state {k + 1} already violates {stop.prop}") from None
    last = states[-1]
    try:
        checks.state_ok(last, len(states))
    except Stop as stop:
        return steps, stop.prop or "", stop.message or ""
    if len(states) > 1:
        prop = checks.violated_property(states[-2], last)
        if prop is not None:
            return steps, prop, f"Action property {prop} is violated."
    raise ReplayError("the last state violates no invariant or property")
