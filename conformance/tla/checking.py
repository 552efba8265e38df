"""What exhaustive search and random simulation share: results and counterexample
steps, state identity (fingerprints under VIEW and SYMMETRY), and the per-state and
per-transition checks (invariants, constraints, ``[][A]_v`` properties)."""

from __future__ import annotations

import builtins
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from itertools import compress
from operator import is_, is_not
from typing import Any

from conformance.tla import itf
from conformance.tla import syntax as S
from conformance.tla.cfg import ModelConfig
from conformance.tla.fpset import Fingerprinter, state_fingerprint
from conformance.tla.model import ActionLabel, Model, State
from conformance.tla.plan import CheckPlan
from conformance.tla.stateparts import StatePart, StateTest, StepPart
from conformance.tla.syntax import Loc, TlaError
from conformance.tla.values import (
    Fn,
    ModelValue,
    Value,
    format_value,
    make_fn,
    same_value,
    unequal_or_fail,
)

StateCheck = Callable[[State, int], str | None]
"""An extra per-state check (e.g. type annotations): state, state number -> error or None."""

_UNKNOWN = object()

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
    # under ALIAS: per trace step, the alias record's fields (None: print the state)
    alias: list[tuple[tuple[str, Value], ...] | None] = field(default_factory=list)
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
    """``v`` with each model value ``perm`` moves replaced; ``v`` itself when it holds none."""
    t = type(v)
    if t is ModelValue:
        return perm.get(v, v)
    if t is tuple:
        items = [_permute(x, perm) for x in v]
        return v if all(map(is_, items, v)) else tuple(items)
    if t is frozenset:
        items = [_permute(x, perm) for x in v]
        return v if all(map(is_, items, v)) else frozenset(items)
    if t is Fn:
        pairs = [(_permute(k, perm), _permute(x, perm)) for k, x in v.map.items()]
        if all(k2 is k and x2 is x for (k2, x2), (k, x) in zip(pairs, v.map.items(), strict=True)):
            return v
        return make_fn(dict(pairs))
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
    try:
        return generated_group(out)
    except _GroupTooLarge:
        raise TlaError(f"SYMMETRY {plan.symmetry}: the permutations generate a group of more than "
                       f"{MAX_SYMMETRY_GROUP:,} permutations (the cap of the closure under composition); "
                       f"give a smaller symmetry set", where) from None


# the most permutations a SYMMETRY group may have (each state is permuted by every one)
MAX_SYMMETRY_GROUP = 100_000


class _GroupTooLarge(Exception):
    pass


def _compose(p: dict[ModelValue, ModelValue], q: dict[ModelValue, ModelValue]) -> dict[ModelValue, ModelValue]:
    """``p`` then ``q`` (as TLC's MVPerms.compose: a model value outside a permutation's
    domain is left fixed by it), without the values it fixes."""
    out: dict[ModelValue, ModelValue] = {}
    for k, x in p.items():
        y = q.get(x, x)
        if y is not k:
            out[k] = y
    for k, x in q.items():
        if k not in p and x is not k:
            out[k] = x
    return out


def generated_group(gens: list[dict[ModelValue, ModelValue]]) -> list[dict[ModelValue, ModelValue]]:
    """The permutations ``gens`` generate, closed under composition as TLC's
    MVPerms.permutationSubgroup closes a SYMMETRY set (``Permutations(A) \\cup
    Permutations(V)`` is not closed, yet TLC reduces by the product group), without the
    identity (a state is always compared with itself); each mapping lists only the model
    values it moves. Raises ``_GroupTooLarge`` beyond ``MAX_SYMMETRY_GROUP`` elements."""
    def key(p: dict[ModelValue, ModelValue]) -> frozenset[tuple[ModelValue, ModelValue]]:
        return frozenset(p.items())

    group: dict[frozenset[tuple[ModelValue, ModelValue]], dict[ModelValue, ModelValue]] = {}
    for g in gens:
        if g:
            group.setdefault(key(g), g)
    gens = list(group.values())
    frontier = gens
    while frontier:
        fresh: list[dict[ModelValue, ModelValue]] = []
        for p in frontier:
            for g in gens:
                c = _compose(p, g)
                k = key(c)
                if c and k not in group:
                    group[k] = c
                    fresh.append(c)
                    if len(group) > MAX_SYMMETRY_GROUP:
                        raise _GroupTooLarge
        frontier = fresh
    return list(group.values())


class StateIdentity:
    """Fingerprints of states, honouring VIEW and SYMMETRY."""

    def __init__(self, perms: list[dict[ModelValue, ModelValue]],
                 view: Callable[[State], Any] | None = None) -> None:
        """``perms``: the symmetry group without the identity; ``view``: a state's VIEW."""
        self.view = view
        self.fpr = Fingerprinter()
        self.perms = perms
        # whether equal fingerprints mean equal states (no VIEW, no SYMMETRY)
        self.exact = view is None and not perms
        # by id: (a value, kept alive, and its fingerprints under the permutations)
        self._perm_memo: dict[int, tuple[Any, list[int]]] = {}

    @classmethod
    def of(cls, model: Model, plan: CheckPlan, config: ModelConfig) -> StateIdentity:
        """The identity the plan's VIEW and SYMMETRY (the cfg's, for error locations) give."""
        perms = _permutations(model, plan, config.loc_of(plan.symmetry)) if plan.symmetry else []
        view = plan.view
        return cls(perms, None if view is None else lambda state: model.eval_state(view, state))

    def __call__(self, state: State) -> int:
        base: tuple[Any, ...] = state if self.view is None else (self.view(state),)
        if not self.perms:
            return self.fpr.state(base)
        # the least of the fingerprints of the state under each permutation (the identity
        # first), each the sum of its values' shares: a value's fingerprints under every
        # permutation are computed once per object (successors keep their parent's objects
        # for the variables an action leaves alone)
        per_value = [self._permuted_fps(x) for x in base]
        return min(map(state_fingerprint, zip(*per_value, strict=True)))

    def _permuted_fps(self, v: Any) -> list[int]:
        """The fingerprints of ``v`` and of its image under each permutation, in order."""
        hit = self._perm_memo.get(id(v))
        if hit is not None:
            return hit[1]
        value = self.fpr.value
        fps = [value(v), *[value(_permute(v, perm)) for perm in self.perms]]
        if type(v) in (tuple, frozenset, Fn):  # (an atom's id may be reused: not kept)
            if len(self._perm_memo) >= 1 << 16:
                self._perm_memo.clear()
            self._perm_memo[id(v)] = (v, fps)  # v kept alive: its id is not reused
        return fps

    def canonical_successors(self, parent: State) -> tuple[State, Callable[[State], tuple[int, State]]]:
        """``parent`` with its values replaced by the objects of the same values met before,
        and for its successors (computed from that state): a successor's fingerprint and
        the successor with its values replaced likewise. Without VIEW and SYMMETRY; else the
        states themselves. Identity-keyed caches (invariant parts, type checks,
        fingerprints) then recognise equal values at once."""
        if not self.exact:
            return parent, lambda state: (self(state), state)
        fpr = self.fpr
        known = fpr.prefixes(parent, canonical=True)
        return known[0], lambda state: fpr.canonical_after(state, known)  # type: ignore[return-value]


# ---------------------------------------------------------------------------
# Checks shared by exhaustive search and simulation
# ---------------------------------------------------------------------------


class Checks:
    """Invariants, constraints and ``[][A]_v`` properties of a plan, evaluated on a model
    (each compiled once into a function of the state or of the step)."""

    def __init__(self, model: Model, plan: CheckPlan, extra: StateCheck | None) -> None:
        self.model = model
        self.plan = plan
        self.extra = extra
        # per invariant, its conjuncts with the variables each reads (see state_ok)
        self._invariants = [(name, self._parts(inv)) for name, inv in plan.invariants]
        # per constraint, its conjuncts, each remembering its value (see in_model)
        self._constraints = [(c, self._parts(c, StateTest)) for c in plan.constraints]
        self._action_constraints = [(c, model.action_function(c)) for c in plan.action_constraints]
        # whether every CONSTRAINT conjunct is pure: a state stored once (so within them)
        # is then within them whenever it is met again
        self.constraints_pure = all(part.deps is not None for _, parts in self._constraints for part in parts)
        # the distinct subscripts (a name at the top level means one thing: evaluated once
        # per state when pure) and, per property, the index of its own
        self._subs: list[Callable[[State], Any]] = []
        self._sub_index: list[int] = []
        named: dict[str, int] = {}
        for p in plan.action_properties:
            name = p.sub.name if isinstance(p.sub, S.Name) else None
            if name is None or name not in named or not model.is_pure(p.sub):
                if name is not None:
                    named.setdefault(name, len(self._subs))
                self._sub_index.append(len(self._subs))
                self._subs.append(model.state_function(p.sub))
            else:
                self._sub_index.append(named[name])
        self._props = [(p.name, self._step_part(p.action)) for p in plan.action_properties]
        self._passed_outside: set[int] = set()  # exact fingerprints of dropped states checked
        # per set of variables a step changed (their indices), the invariant conjuncts that
        # read one of them (or may read any), in order, with their invariants' names
        self._to_check: dict[tuple[int, ...], list[tuple[str, StatePart]]] = {}

    def _step_part(self, action: S.Expr) -> Callable[[State, State], Any]:
        """A property's action as a function of the step, remembering its values per the
        objects of the variables it reads (``StepPart``) when the compiler knows them."""
        fn = self.model.action_function(action)
        reads = self.model.step_reads(action)
        if reads is None:
            return fn
        return StepPart(fn, tuple(sorted(reads[0])), tuple(sorted(reads[1])))

    def _parts(self, inv: str | S.Expr, kind: type[StatePart] = StatePart) -> list[StatePart]:
        if isinstance(inv, str) and self.model.has_definition(inv):
            return [kind(fn, deps) for fn, deps in self.model.invariant_parts(inv)]
        return [kind(self.model.state_function(inv), None)]

    def outside_ok(self, state: State, number: int, exact_fp: int | None, parent: State | None = None) -> None:
        """``state_ok`` for a state outside the model (it is dropped after the check, so it
        may come again): one that passed, known by its exact fingerprint, is not re-checked."""
        if exact_fp is not None and exact_fp in self._passed_outside:
            return
        self.state_ok(state, number, parent)
        if exact_fp is not None:
            self._passed_outside.add(exact_fp)

    def _bool(self, value: Any, what: str, name: str) -> bool:
        if type(value) is not bool:
            loc = self.model.definition(name).loc if self.model.has_definition(name) else None
            raise TlaError(f"{what} {name} evaluated to {format_value(value)}, not a boolean", loc)
        return value

    def state_ok(self, state: State, number: int, parent: State | None = None) -> None:
        """Raise ``Stop`` when ``state`` (state ``number``) violates an invariant or the
        extra check. ``parent``: a state that passed every invariant; a conjunct whose
        variables are the very same objects in ``state`` (an action's UNCHANGED, or a
        function it did not touch) holds there too and is not evaluated again, nor is one
        that held in a state with the same values of its variables (``StatePart``). The
        conjuncts are taken in order, so the first false one stops the evaluation as the
        conjunction's would."""
        if self.extra is not None:
            problem = self.extra(state, number)
            if problem is not None:
                raise Stop("violation", "type annotations", problem)
        if parent is None or len(parent) != len(state):
            todo = [(name, part) for name, parts in self._invariants for part in parts]
        else:
            todo = self._parts_reading(tuple(compress(range(len(state)), map(is_not, state, parent))))
        for name, part in todo:
            value = part(state)
            if value is not True and not self._bool(value, "invariant", name):
                raise Stop("violation", name, f"Invariant {name} is violated.")

    def _parts_reading(self, changed: tuple[int, ...]) -> list[tuple[str, StatePart]]:
        """The invariant conjuncts, in order, not known to hold in a state whose parent (a
        state where they all held) differs from it by the variables at ``changed`` only:
        those that read one of them, or whose variables are unknown."""
        todo = self._to_check.get(changed)
        if todo is None:
            if len(self._to_check) >= 4_096:
                self._to_check.clear()
            moved = set(changed)
            todo = self._to_check[changed] = [
                (name, part) for name, parts in self._invariants for part in parts
                if part.deps is None or not moved.isdisjoint(part.deps)]
        return todo

    def in_model(self, state: State) -> bool:
        """Whether ``state`` satisfies every CONSTRAINT. Each is evaluated conjunct by
        conjunct, in order (the first false one decides, as the conjunction would), and a
        pure conjunct is not evaluated again for values of its variables met before
        (``StateTest``)."""
        for name, parts in self._constraints:
            for part in parts:
                value = part(state)
                if value is not True and not self._bool(value, "CONSTRAINT", name):
                    return False
        return True

    def action_allowed(self, s: State, t: State) -> bool:
        """Whether the step s -> t satisfies every ACTION_CONSTRAINT."""
        for name, con in self._action_constraints:
            value = con(s, t)
            if value is not True and not self._bool(value, "ACTION_CONSTRAINT", name):
                return False
        return True

    def subscripts(self, s: State) -> list[Any]:
        """The distinct subscripts ``v`` of the ``[][A]_v`` properties in state ``s``."""
        return [sub(s) for sub in self._subs]

    def violated_property(self, s: State, t: State, subs: list[Any] | None = None) -> str | None:
        """The first ``[][A]_v`` property the step s -> t violates; ``subs`` are the
        subscripts in ``s`` when already computed."""
        if subs is None:
            subs = self.subscripts(s)
        afters: list[Any] = [_UNKNOWN] * len(subs)
        for (name, action), k in zip(self._props, self._sub_index, strict=True):
            before, after = subs[k], afters[k]
            if after is _UNKNOWN:
                after = afters[k] = self._subs[k](t)
            if before == after and same_value(before, after):  # v' = v: a stuttering step
                continue
            value = action(s, t)
            if value is not True and not self._bool(value, "property", name):
                # [A]_v is A \/ v' = v: with A false TLC compares v' with v, and fails
                # where it cannot compare them (values.unequal_or_fail)
                try:
                    if unequal_or_fail(after, before):
                        continue
                except TlaError as err:
                    loc = self.model.definition(name).loc if self.model.has_definition(name) else None
                    raise TlaError(f"property {name}: {err.message}", err.loc or loc) from None
                return name
        return None


def label_step(label: ActionLabel, state: State) -> TraceStep:
    """The counterexample step of a transition found by the model."""
    return TraceStep(label.name, label.params, label.loc, state)


def iter_changed(prev: State | None, cur: State, variables: tuple[str, ...]) -> Iterator[tuple[str, Value]]:
    """The variables of ``cur`` that differ from ``prev`` (all of them when ``prev`` is None)."""
    for i, var in enumerate(variables):
        if prev is None or prev[i] != cur[i]:
            yield var, cur[i]



# ---------------------------------------------------------------------------
# Models without behaviours, POSTCONDITION and ALIAS
# ---------------------------------------------------------------------------


def behaviourless(config: ModelConfig) -> bool:
    """Whether the cfg names no behaviour spec (no SPECIFICATION, INIT or NEXT): then, as
    TLC does, only the ASSUMEs (checked when the model is loaded) and the POSTCONDITIONs
    are evaluated. A section that needs behaviours is an error."""
    if config.specification is not None or config.init is not None or config.next is not None:
        return False
    for what, names in (("INVARIANT", config.invariants), ("PROPERTY", config.properties),
                        ("CONSTRAINT", config.constraints),
                        ("ACTION_CONSTRAINT", config.action_constraints),
                        ("VIEW", [config.view] if config.view else []),
                        ("SYMMETRY", [config.symmetry] if config.symmetry else []),
                        ("ALIAS", [config.alias] if config.alias else [])):
        if names:
            raise TlaError(f"{what} {names[0]} needs a behaviour spec (SPECIFICATION, or INIT "
                           "and NEXT)", config.loc_of(names[0]))
    return True


def finish_run(model: Model, config: ModelConfig, result: CheckResult) -> None:
    """After a search: evaluate the POSTCONDITIONs when it found no error (with the
    search's figures for ``TLCGet("stats")``), and the ALIAS on the counterexample."""
    try:
        if result.verdict == "ok":
            _postconditions(model, config, result)
    except TlaError as exc:
        result.verdict, result.message, result.error_loc = "error", str(exc), exc.loc
    if config.alias is not None and result.trace:
        result.alias = alias_trace(model, config.alias, [step.state for step in result.trace])


def _postconditions(model: Model, config: ModelConfig, result: CheckResult) -> None:
    runtime = model.runtime
    runtime.stats = {"generated": result.states_generated, "distinct": result.distinct_states,
                     "queue": result.queue_left, "diameter": result.depth,
                     "duration": int(result.seconds)}
    runtime.expanding(None, -1)  # TLCGet("level") is 0 in a POSTCONDITION
    try:
        for name in config.postconditions:
            if not model.has_definition(name):
                raise TlaError(f"POSTCONDITION {name} is not defined in module "
                               f"{model.module.name}", config.loc_of(name))
            value = model.eval_constant(name)
            if type(value) is not bool:
                raise TlaError(f"POSTCONDITION {name} evaluated to {format_value(value)}, not a "
                               "boolean", model.definition(name).loc)
            if not value:
                result.verdict, result.property = "violation", name
                result.message = f"Postcondition {name} is violated."
                return
    finally:
        runtime.stats = None
        runtime.expanding(None, None)


def alias_trace(model: Model, alias: str, states: list[State]
                ) -> list[tuple[tuple[str, Value], ...] | None]:
    """The ALIAS record on each step s -> t of a trace (the last state is paired with
    itself); a step where it fails or is not a record keeps its state (None), as TLC."""
    if not model.has_definition(alias):
        return [None] * len(states)
    out: list[tuple[tuple[str, Value], ...] | None] = []
    for k, s in enumerate(states):
        t = states[k + 1] if k + 1 < len(states) else s
        model.runtime.expanding(s, k + 1)  # TLCGet("level"): the step's place in the trace
        try:
            value: Any = model.eval_action(alias, s, t)
        except TlaError:
            value = None  # (no record: the state is kept)
        finally:
            model.runtime.expanding(None, None)
        if isinstance(value, Fn) and all(type(key) is str for key in value.map):
            out.append(tuple(value.map.items()))
        else:
            out.append(None)
    return out
