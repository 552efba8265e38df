"""What to check, resolved from a model configuration against a loaded model.

``SPECIFICATION Spec`` is split (through definitions) into the initial predicate,
the next-state action and its subscript from ``Init /\\ [][Next]_vars /\\ fairness``;
the fairness conjuncts are kept for the liveness checker. ``PROPERTY`` conjuncts of the
form ``[][A]_v`` (checked on every transition) or ``[]P`` with ``P`` a state predicate
(checked on every state) are safety; the other conjuncts go to the liveness checker
(``conformance.tla.liveness``), which refuses the forms it does not know.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from conformance.tla import syntax as S
from conformance.tla.astwalk import walk
from conformance.tla.cfg import ModelConfig
from conformance.tla.model import Model
from conformance.tla.syntax import Loc, TlaError, UnsupportedError
from conformance.tla.temporal_lift import lift_reference


@dataclass(frozen=True)
class ActionProperty:
    """``[][action]_sub``: every transition satisfies ``action`` or leaves ``sub`` unchanged."""

    name: str
    action: S.Expr
    sub: S.Expr


@dataclass
class CheckPlan:
    """Everything the explorer evaluates, by definition name or expression."""

    init: str | S.Expr
    next: str | S.Expr
    invariants: list[tuple[str, str | S.Expr]] = field(default_factory=list)
    action_properties: list[ActionProperty] = field(default_factory=list)
    constraints: list[str] = field(default_factory=list)
    action_constraints: list[str] = field(default_factory=list)
    view: str | None = None
    symmetry: str | None = None
    check_deadlock: bool = True
    fairness: list[S.Expr] = field(default_factory=list)  # WF/SF conjuncts of the SPECIFICATION
    liveness: list[tuple[str, S.Expr]] = field(default_factory=list)  # (PROPERTY, conjunct)


def _require(model: Model, config: ModelConfig, name: str, what: str) -> None:
    if not model.has_definition(name):
        raise TlaError(f"{what} {name} is not defined in module {model.module.name}", config.loc_of(name))


def _zero_arity_body(model: Model, e: S.Expr) -> S.Expr | None:
    """The body of the parameterless definition ``e`` names, if it names one."""
    name: str | None = None
    if isinstance(e, S.Name) or (isinstance(e, S.OpApp) and not e.args):
        name = e.name
    if name is None or not model.has_definition(name):
        return None
    unit = model.definition(name)
    if isinstance(unit, S.OpDef) and not unit.params:
        return unit.body
    return None


def _conjuncts(model: Model, e: S.Expr, depth: int = 0) -> list[S.Expr]:
    """Flatten ``/\\`` through parameterless definitions that contain temporal operators."""
    if depth > 50:
        raise TlaError("definitions nest too deeply while reading the specification", e.loc)
    if isinstance(e, S.And):
        out: list[S.Expr] = []
        for item in e.items:
            out.extend(_conjuncts(model, item, depth + 1))
        return out
    lifted = lift_reference(model.root, e)  # I!Spec: the instance's formula, at the root
    if lifted is not None:
        return _conjuncts(model, lifted, depth + 1)
    body = _zero_arity_body(model, e)
    if body is not None and any(isinstance(n, (S.Temporal, S.ActionBox, S.Fairness))
                                for n in _through_definitions(model, body)):
        return _conjuncts(model, body, depth + 1)  # (also Alias == LiveSpec, a name of one)
    return [e]


def _is_temporal(e: S.Expr) -> bool:
    return any(isinstance(n, (S.Temporal, S.ActionBox, S.Fairness)) for n in walk(e))


def _through_definitions(model: Model, e: S.Expr) -> list[object]:
    """The nodes of ``e`` and of the bodies of the definitions it uses, transitively."""
    out: list[object] = []
    todo, done = [e], set()
    while todo:
        for n in walk(todo.pop()):
            out.append(n)
            if isinstance(n, (S.Name, S.OpApp)) and n.name not in done and model.has_definition(n.name):
                done.add(n.name)
                unit = model.definition(n.name)
                if isinstance(unit, S.OpDef):
                    todo.append(unit.body)
    return out


def _is_fairness(e: S.Expr, model: Model | None = None) -> bool:
    """A fairness conjunct, possibly quantified: ``WF_v(A)``, ``\\A p \\in S : SF_v(A(p))``
    (with ``model``: also through definitions, e.g. ``\\A p \\in S : Fair(p)``)."""
    nodes = list(walk(e))
    deep = nodes if model is None else _through_definitions(model, e)
    return any(isinstance(n, S.Fairness) for n in deep) and not any(
        isinstance(n, (S.ActionBox, S.Temporal)) for n in nodes)


def _is_action_level(e: S.Expr) -> bool:
    return any(isinstance(n, (S.Prime, S.Unchanged, S.ActionBox, S.Temporal, S.Fairness)) for n in walk(e))


def _name_of(model: Model, e: S.Expr) -> str | S.Expr:
    """A definition name when ``e`` is a reference to a parameterless definition."""
    if isinstance(e, (S.Name, S.OpApp)) and _zero_arity_body(model, e) is not None:
        return e.name
    return e


def _split_spec(model: Model, config: ModelConfig
                ) -> tuple[str | S.Expr, str | S.Expr, list[S.Expr]]:
    name = config.specification
    assert name is not None
    _require(model, config, name, "SPECIFICATION")
    unit = model.definition(name)
    if not isinstance(unit, S.OpDef) or unit.params:
        raise TlaError(f"SPECIFICATION {name} must be a definition without parameters", config.loc_of(name))
    init_parts: list[S.Expr] = []
    nexts: list[S.Expr] = []
    fairness: list[S.Expr] = []
    for c in _conjuncts(model, unit.body):
        if _is_fairness(c, model):
            fairness.append(c)
            continue
        if isinstance(c, S.Temporal) and c.op == "[]" and len(c.args) == 1 and isinstance(c.args[0], S.ActionBox):
            box = c.args[0]
            if not box.box:
                raise UnsupportedError("the next-state action must be boxed: [][Next]_vars", c.loc)
            nexts.append(box.action)
            continue
        if _is_temporal(c):
            raise UnsupportedError(
                f"conjunct of SPECIFICATION {name} is neither the initial predicate, [][Next]_vars "
                "nor a fairness condition", c.loc)
        init_parts.append(c)
    if len(nexts) != 1:
        raise TlaError(f"SPECIFICATION {name} must have exactly one conjunct [][Next]_vars, found {len(nexts)}",
                       unit.loc)
    if not init_parts:
        raise TlaError(f"SPECIFICATION {name} has no initial predicate", unit.loc)
    init: str | S.Expr
    if len(init_parts) == 1:
        init = _name_of(model, init_parts[0])
    else:
        init = S.And(init_parts[0].loc, tuple(init_parts))
    return init, _name_of(model, nexts[0]), fairness


def _property(model: Model, config: ModelConfig, name: str, plan: CheckPlan) -> None:
    _require(model, config, name, "PROPERTY")
    unit = model.definition(name)
    if not isinstance(unit, S.OpDef) or unit.params:
        raise TlaError(f"PROPERTY {name} must be a definition without parameters", config.loc_of(name))
    for c in _conjuncts(model, unit.body):
        if isinstance(c, S.Temporal) and c.op == "[]" and len(c.args) == 1:
            inner = c.args[0]
            if isinstance(inner, S.ActionBox) and inner.box:
                plan.action_properties.append(ActionProperty(name, inner.action, inner.sub))
                continue
            if not _is_action_level(inner):
                plan.invariants.append((name, inner))
                continue
        plan.liveness.append((name, c))


def resolve_plan(model: Model, config: ModelConfig) -> CheckPlan:
    """Resolve ``config`` against ``model``; errors name the cfg or module location."""
    if config.specification is not None:
        if config.init is not None or config.next is not None:
            raise TlaError("give either SPECIFICATION or INIT/NEXT, not both", config.loc_of(config.specification))
        init, nxt, fairness = _split_spec(model, config)
    else:
        if config.init is None or config.next is None:
            raise TlaError("the configuration needs SPECIFICATION or both INIT and NEXT", Loc(config.file, 1, 1))
        _require(model, config, config.init, "INIT")
        _require(model, config, config.next, "NEXT")
        init, nxt, fairness = config.init, config.next, []
    plan = CheckPlan(init=init, next=nxt, check_deadlock=config.check_deadlock, fairness=fairness)
    for inv in config.invariants:
        _require(model, config, inv, "INVARIANT")
        plan.invariants.append((inv, inv))
    for prop in config.properties:
        _property(model, config, prop, plan)
    for con in config.constraints:
        _require(model, config, con, "CONSTRAINT")
        plan.constraints.append(con)
    for con in config.action_constraints:
        _require(model, config, con, "ACTION_CONSTRAINT")
        plan.action_constraints.append(con)
    if config.view is not None:
        _require(model, config, config.view, "VIEW")
        plan.view = config.view
    if config.symmetry is not None:
        _require(model, config, config.symmetry, "SYMMETRY")
        plan.symmetry = config.symmetry
    if config.alias is not None:
        _require(model, config, config.alias, "ALIAS")
    for post in config.postconditions:
        _require(model, config, post, "POSTCONDITION")
    return plan

