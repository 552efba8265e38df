"""What exhaustive search and random simulation share: results and counterexample
steps, state identity (fingerprints under VIEW and SYMMETRY), and the per-state and
per-transition checks (invariants, constraints, ``[][A]_v`` properties)."""

from __future__ import annotations

import builtins
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

from conformance.tla import itf
from conformance.tla.cfg import ModelConfig
from conformance.tla.fpset import Fingerprinter
from conformance.tla.model import ActionLabel, Model, State
from conformance.tla.plan import CheckPlan
from conformance.tla.syntax import Loc, TlaError
from conformance.tla.values import Fn, ModelValue, Value, format_value, make_fn

StateCheck = Callable[[State, int], str | None]
"""An extra per-state check (e.g. type annotations): state, state number -> error or None."""

EXIT_CODES = {"ok": 0, "violation": 12, "deadlock": 12, "error": 1, "limit": 3, "interrupted": 130}
INTERRUPTED = "interrupted by the user (SIGINT): the statistics are those of the partial search"


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
    loop: int | None = None  # a liveness lasso: the last step of ``trace`` returns to step ``loop``

    @builtins.property
    def exit_code(self) -> int:
        return EXIT_CODES[self.verdict]

    def trace_states(self) -> list[dict[str, Value]]:
        return [dict(zip(self.variables, step.state, strict=True)) for step in self.trace]

    def to_json(self) -> dict[str, Any]:
        """The ``kraftcheck check --json`` object (with ``loop`` for a liveness lasso)."""
        out = {
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
        if self.loop is not None:
            out["loop"] = self.loop
        return out


class Stop(Exception):
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


class Checks:
    """Invariants, constraints and ``[][A]_v`` properties of a plan, evaluated on a model."""

    def __init__(self, model: Model, plan: CheckPlan, extra: StateCheck | None) -> None:
        self.model = model
        self.plan = plan
        self.extra = extra

    def _bool(self, value: Value, what: str, name: str) -> bool:
        if type(value) is not bool:
            loc = self.model.definition(name).loc if self.model.has_definition(name) else None
            raise TlaError(f"{what} {name} evaluated to {format_value(value)}, not a boolean", loc)
        return value

    def state_ok(self, state: State, number: int) -> None:
        """Raise ``Stop`` when ``state`` (state ``number``) violates an invariant or the
        extra check."""
        if self.extra is not None:
            problem = self.extra(state, number)
            if problem is not None:
                raise Stop("violation", "type annotations", problem)
        for name, inv in self.plan.invariants:
            if not self._bool(self.model.eval_state(inv, state), "invariant", name):
                raise Stop("violation", name, f"Invariant {name} is violated.")

    def in_model(self, state: State) -> bool:
        """Whether ``state`` satisfies every CONSTRAINT."""
        return all(self._bool(self.model.eval_state(c, state), "CONSTRAINT", c) for c in self.plan.constraints)

    def action_allowed(self, s: State, t: State) -> bool:
        """Whether the step s -> t satisfies every ACTION_CONSTRAINT."""
        return all(self._bool(self.model.eval_action(c, s, t), "ACTION_CONSTRAINT", c)
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
            if not self._bool(self.model.eval_action(prop.action, s, t), "property", prop.name):
                return prop.name
        return None


def label_step(label: ActionLabel, state: State) -> TraceStep:
    """The counterexample step of a transition found by the model."""
    return TraceStep(label.name, label.params, label.loc, state)


def iter_changed(prev: State | None, cur: State, variables: tuple[str, ...]) -> Iterator[tuple[str, Value]]:
    """The variables of ``cur`` that differ from ``prev`` (all of them when ``prev`` is None)."""
    for i, var in enumerate(variables):
        if prev is None or prev[i] != cur[i]:
            yield var, cur[i]

