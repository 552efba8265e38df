"""The Apalache engine of ``kraftcheck validate --engine apalache``.

A trace becomes a TLA+ module that EXTENDS the spec and fixes the trace as a constant
operator (trace-validation style): ``TraceInit`` is the spec's ``Init`` constrained by the
init line, ``TraceNext`` takes step ``tIdx + 1`` with the logged action and parameters (and
the bounds ``Next`` puts on them, e.g. a handled message is in ``messages``) and constrains
the stepping replica's observed variables, the other replicas' unchanged ones and the
network (``messages' = messages \\cup sent``). A timed spec (one with ``AdvanceClock`` and
``now``) first takes ``AdvanceClock`` to an event's ``time_ms`` (``TraceClock``, a step that
keeps ``tIdx``), as the embedded validator does. Apalache is asked to violate
``TraceNotMatched == tIdx < Len(TraceLog)`` within ``Len(TraceLog)`` steps: a violation is a
run of the spec that produces the trace (ACCEPT); none means REJECT, and the rejected step is
found by a binary search over trace prefixes. Values are written in TLA+ syntax directed by
the spec's ``@type`` annotations (functions as ``k :> v @@ ...``, records in field order).
"""

from __future__ import annotations

import shutil
import tempfile
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from conformance.tla.apalache_types import (
    TFun,
    TPrim,
    TRec,
    TSeq,
    TSet,
    TTuple,
    Type,
    find_annotations,
    parse_alias,
    parse_type,
    resolve,
    show,
)
from conformance.tla.loader import ModuleLoader
from conformance.tla.printer import render
from conformance.tla.syntax import (
    ConstantDecl,
    Expr,
    Module,
    Name,
    OpApp,
    OpDef,
    Unit,
    VariableDecl,
)
from conformance.tla.values import Fn, Value, fn_items, sorted_values
from conformance.validate.coverage import Disjunct, module_definitions, next_disjuncts
from conformance.validate.spec_binding import declared_constants, spec_constants
from conformance.validate.step_check import CLOCK_ACTION, CLOCK_VARIABLE
from conformance.validate.trace_reader import TraceEvent, TraceFormatError, TraceStream
from conformance.validate.verdict import Diagnostic, EventSummary, TraceReport, Verdict

TRACE_MODULE = "KRaftTraceCheck"
STEP_VAR = "tIdx"
PARAM_PREFIX = "p_"
NO_TIME = -1  # an event without time_ms: the clock stays


class TraceModuleError(ValueError):
    """The spec or trace cannot be written for Apalache (a missing type annotation, ...)."""


# ---------------------------------------------------------------------------
# Types of the spec
# ---------------------------------------------------------------------------


@dataclass
class SpecTypes:
    """The ``@type`` annotations of a spec's variables and constants, aliases resolved."""

    module: Module
    variables: dict[str, Type]
    constants: dict[str, Type]
    definitions: dict[str, Type] = field(default_factory=dict)  # annotated, without parameters

    @classmethod
    def of(cls, module: Module) -> SpecTypes:
        aliases: dict[str, Type] = {}
        for comment in module.comments:
            for text in find_annotations(comment.text, "typeAlias"):
                name, t = parse_alias(text)
                aliases[name] = t

        def typed(annotation: str | None, what: str) -> Type | None:
            found = find_annotations(annotation or "", "type")
            return resolve(parse_type(found[0]), aliases) if found else None

        variables: dict[str, Type] = {}
        constants: dict[str, Type] = {}
        definitions: dict[str, Type] = {}
        for unit in module.units:
            if isinstance(unit, VariableDecl):
                vt = typed(unit.annotation, unit.name)
                if vt is not None:
                    variables[unit.name] = vt
            elif isinstance(unit, ConstantDecl):
                ct = typed(unit.annotation, unit.name)
                if ct is not None:
                    constants[unit.name] = ct
            elif isinstance(unit, OpDef) and not unit.params:
                dt = typed(unit.annotation, unit.name)
                if dt is not None:
                    definitions[unit.name] = dt
        return cls(module, variables, constants, definitions)

    def variable(self, name: str) -> Type:
        t = self.variables.get(name)
        if t is None:
            raise TraceModuleError(f"variable {name} of {self.module.name} has no @type annotation")
        return t

    def constant(self, name: str) -> Type:
        t = self.constants.get(name)
        if t is None:
            raise TraceModuleError(f"constant {name} of {self.module.name} has no @type annotation")
        return t

    def replica_type(self, var: str) -> Type:
        """The type of ``var[i]`` for a per-replica variable ``var : Int -> T``."""
        t = self.variable(var)
        if not isinstance(t, TFun):
            raise TraceModuleError(f"variable {var} is not a function over replicas (type {show(t)})")
        return t.res

    def set_type(self, domain: Expr, definitions: Mapping[str, Unit], depth: int = 0) -> Type | None:
        """The type of a set expression bounding a parameter in ``Next``: a typed variable or
        constant, a definition without parameters annotated with its type or whose body has a
        type, or a union,
        intersection or difference of such sets."""
        if depth > 20:
            return None
        if isinstance(domain, Name):
            t = (self.variables.get(domain.name) or self.constants.get(domain.name)
                 or self.definitions.get(domain.name))
            if t is not None:
                return t
            unit = definitions.get(domain.name)
            if isinstance(unit, OpDef) and not unit.params:
                return self.set_type(unit.body, definitions, depth + 1)
            return None
        if isinstance(domain, OpApp) and domain.name in ("\\cup", "\\cap", "\\") and domain.args:
            return self.set_type(domain.args[0], definitions, depth + 1)
        return None

    def element_type(self, domain: Expr, definitions: Mapping[str, Unit]) -> Type:
        """The element type of a set bounding a parameter in ``Next``."""
        t = self.set_type(domain, definitions)
        if not isinstance(t, TSet):
            raise TraceModuleError(f"cannot type a parameter bound by {render(domain)} (at {domain.loc}): "
                                   "not a typed set")
        return t.elem


# ---------------------------------------------------------------------------
# Values in TLA+ syntax, directed by types
# ---------------------------------------------------------------------------


def _str(s: str) -> str:
    return '"' + s.replace("\\", "\\\\").replace('"', '\\"') + '"'


def value_text(v: Value, t: Type) -> str:
    """TLA+ text of ``v`` read as a value of type ``t``."""
    if isinstance(t, TPrim):
        if t.name == "Bool" and type(v) is bool:
            return "TRUE" if v else "FALSE"
        if t.name == "Int" and type(v) is int:
            return str(v)
        if t.name == "Str" and type(v) is str:
            return _str(v)
    elif isinstance(t, TSet) and isinstance(v, frozenset):
        return "{" + ", ".join(value_text(x, t.elem) for x in sorted_values(v)) + "}"
    elif isinstance(t, TSeq) and isinstance(v, tuple):
        return "<<" + ", ".join(value_text(x, t.elem) for x in v) + ">>"
    elif isinstance(t, TTuple) and isinstance(v, tuple) and len(v) == len(t.items):
        return "<<" + ", ".join(value_text(x, u) for x, u in zip(v, t.items, strict=True)) + ">>"
    elif isinstance(t, TRec) and isinstance(v, Fn) and set(v.map) == {f for f, _ in t.fields}:
        return "[" + ", ".join(f"{f} |-> {value_text(v.map[f], u)}" for f, u in t.fields) + "]"
    elif isinstance(t, TFun) and isinstance(v, (tuple, Fn)):
        items = sorted(fn_items(v), key=lambda kv: str(kv[0]))
        if not items:
            raise TraceModuleError(f"an empty function of type {show(t)} has no TLA+ literal here")
        return "(" + " @@ ".join(f"{value_text(k, t.arg)} :> {value_text(x, t.res)}" for k, x in items) + ")"
    raise TraceModuleError(f"value {v!r} does not have the type {show(t)}")


def default_text(t: Type) -> str:
    """A value of type ``t`` for a parameter an event does not use."""
    if isinstance(t, TPrim):
        return {"Int": "0", "Str": '""', "Bool": "FALSE"}[t.name]
    if isinstance(t, TSet):
        return "{}"
    if isinstance(t, TSeq):
        return "<<>>"
    if isinstance(t, TTuple):
        return "<<" + ", ".join(default_text(u) for u in t.items) + ">>"
    if isinstance(t, TRec):
        return "[" + ", ".join(f"{f} |-> {default_text(u)}" for f, u in t.fields) + "]"
    raise TraceModuleError(f"no default value for a parameter of type {show(t)}")


# ---------------------------------------------------------------------------
# The trace module
# ---------------------------------------------------------------------------


@dataclass
class TraceShape:
    """What the module needs to know of the spec: actions, their bounds, the logged variables."""

    spec: str
    types: SpecTypes
    sites: dict[str, list[Disjunct]]
    logged: list[str]
    messages: bool
    definitions: Mapping[str, Unit]
    clock: bool = False  # the spec has AdvanceClock and now: events carry their time

    def param_types(self) -> dict[str, Type]:
        """Parameter name -> type, over every action of Next (from the bounds in Next)."""
        out: dict[str, Type] = {}
        for sites in self.sites.values():
            for site in sites:
                for name, dom in zip(site.params, site.domains, strict=True):
                    if dom is None:
                        raise TraceModuleError(f"parameter {name} of {site.action} is not a plain bound of Next")
                    t = self.types.element_type(dom[1], self.definitions)
                    if out.setdefault(name, t) != t:
                        raise TraceModuleError(f"parameter name {name} has two types across actions")
        return out

    def event_type(self) -> TRec:
        fields: list[tuple[str, Type]] = [("replica", TPrim("Int")), ("action", TPrim("Str"))]
        if self.clock:
            fields.append(("time", TPrim("Int")))
        fields += [(PARAM_PREFIX + n, t) for n, t in sorted(self.param_types().items())]
        fields.append(("state", TRec(tuple((v, self.types.replica_type(v)) for v in self.logged), None)))
        if self.messages:
            fields.append(("sent", self.types.variable("messages")))
        return TRec(tuple(fields), None)


def event_text(e: TraceEvent, shape: TraceShape) -> str:
    ptypes = shape.param_types()
    parts = [f"replica |-> {e.replica}", f"action |-> {_str(e.action)}"]
    if shape.clock:
        parts.append(f"time |-> {NO_TIME if e.time_ms is None else e.time_ms}")
    for name, t in sorted(ptypes.items()):
        parts.append(f"{PARAM_PREFIX}{name} |-> " + (value_text(e.params[name], t) if name in e.params else default_text(t)))
    state = ", ".join(f"{v} |-> {value_text(e.state[v], shape.types.replica_type(v))}" for v in shape.logged)
    parts.append(f"state |-> [{state}]")
    if shape.messages:
        parts.append("sent |-> " + value_text(frozenset(e.sent), shape.types.variable("messages")))
    return "[" + ", ".join(parts) + "]"


def _action_disjunct(action: str, sites: list[Disjunct]) -> str:
    conds = []
    for site in sites:
        bounds = [f"e.{PARAM_PREFIX}{n} \\in {render(dom[1])}" for n, dom in zip(site.params, site.domains, strict=True)
                  if dom is not None]
        conds.append(" /\\ ".join(bounds) if bounds else "TRUE")
    args = ", ".join(f"e.{PARAM_PREFIX}{n}" for n in (sites[0].params if sites else ()))
    call = f"{action}({args})" if args else action
    bound = conds[0] if len(conds) == 1 else "(" + " \\/ ".join(f"({c})" for c in conds) + ")"
    return f'          \\/ /\\ e.action = "{action}"\n             /\\ {bound}\n             /\\ {call}'


def constants_text(constants: Mapping[str, Value], types: SpecTypes) -> str:
    """``TraceCInit``: Apalache's constant initialisation from the trace header."""
    body = "\n".join(f"    /\\ {name} = {value_text(v, types.constant(name))}" for name, v in constants.items())
    return f"TraceCInit ==\n{body}\n"


def trace_module_text(shape: TraceShape, constants: Mapping[str, Value],
                      init: Mapping[int, Mapping[str, Value]], events: Sequence[TraceEvent]) -> str:
    """The whole trace module for the given events (a prefix of the trace, for the search)."""
    etype = show(shape.event_type())
    init_type = show(TFun(TPrim("Int"), TRec(tuple((v, shape.types.replica_type(v)) for v in shape.logged), None)))
    init_rows = " @@ ".join(
        f"{r} :> [" + ", ".join(f"{v} |-> {value_text(vals[v], shape.types.replica_type(v))}" for v in shape.logged) + "]"
        for r, vals in sorted(init.items()))
    events_text = ",\n    ".join(event_text(e, shape) for e in events)
    observed = "\n".join(f"       /\\ {v}'[e.replica] = e.state.{v}" for v in shape.logged)
    unchanged = "\n".join(f"       /\\ \\A k \\in DOMAIN {v} : k /= e.replica => {v}'[k] = {v}[k]" for v in shape.logged)
    network = "       /\\ messages' = messages \\cup e.sent\n" if shape.messages else ""
    actions = "\n".join(_action_disjunct(a, sites) for a, sites in shape.sites.items())
    init_match = "\n".join(f"    /\\ \\A r \\in DOMAIN TraceInitState : {v}[r] = TraceInitState[r].{v}" for v in shape.logged)
    clock = on_time = ""
    next_text = "TraceClock \\/ TraceStep" if shape.clock else "TraceStep"
    if shape.clock:
        clock = f"""\\* The spec's clock moves to the next event's time first.
TraceClock ==
    /\\ {STEP_VAR} < Len(TraceLog)
    /\\ TraceLog[{STEP_VAR} + 1].time > {CLOCK_VARIABLE}
    /\\ {CLOCK_ACTION}(TraceLog[{STEP_VAR} + 1].time)
    /\\ UNCHANGED {STEP_VAR}

"""
        on_time = f"    /\\ TimedRules = {{}} \\/ TraceLog[{STEP_VAR} + 1].time <= {CLOCK_VARIABLE}\n"
    return f"""---------------------------- MODULE {TRACE_MODULE} ----------------------------
(* Generated by kraftcheck validate --engine apalache: does some run of {shape.spec}
   produce this trace of {len(events)} step(s)? *)
EXTENDS {shape.spec}, TLC, Sequences

\\* @type: Int;
VARIABLE {STEP_VAR}

{constants_text(constants, shape.types)}
\\* @type: () => {init_type};
TraceInitState == {init_rows}

\\* @type: () => Seq({etype});
TraceLog == <<
    {events_text}
>>

TraceInit ==
    /\\ Init
    /\\ {STEP_VAR} = 0
{init_match}

{clock}TraceStep ==
    /\\ {STEP_VAR} < Len(TraceLog)
{on_time}    /\\ {STEP_VAR}' = {STEP_VAR} + 1
    /\\ LET e == TraceLog[{STEP_VAR} + 1] IN
       /\\ {actions.lstrip()}
{observed}
{unchanged}
{network}
TraceNext == {next_text}

TraceNotMatched == {STEP_VAR} < Len(TraceLog)
=============================================================================
"""


# ---------------------------------------------------------------------------
# Running Apalache
# ---------------------------------------------------------------------------


def trace_check_command(executable: Path, module: Path, out_dir: Path, run_dir: Path, length: int) -> list[str]:
    """The ``apalache-mc check`` command line for a trace module of ``length`` steps."""
    from conformance.apalache import check_command

    return check_command(executable, module, out_dir, run_dir, init="TraceInit", next="TraceNext",
                         inv=["TraceNotMatched"], cinit="TraceCInit", length=length, no_deadlock=True)


def longest_matched_prefix(n: int, matches: Callable[[int], bool]) -> int:
    """The largest k <= n such that ``matches(k)`` (prefixes of a trace: monotone), by bisection;
    ``matches(0)`` is taken to be checked by the caller."""
    lo, hi = 0, n  # matches(lo) holds, matches(hi + 1..) unknown
    if matches(n):
        return n
    hi = n - 1
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if matches(mid):
            lo = mid
        else:
            hi = mid - 1
    return lo


@dataclass
class ApalacheTraceRun:
    """One Apalache probe: did a run match the first ``length`` events?"""

    length: int
    outcome: str
    message: str | None
    seconds: float


def _shape(spec: Path, module: Module, loader: ModuleLoader, logged: list[str]) -> TraceShape:
    definitions = module_definitions(module, loader)
    sites: dict[str, list[Disjunct]] = {}
    for d in next_disjuncts(definitions):
        sites.setdefault(d.action, []).append(d)
    variables = [u.name for u in module.units if isinstance(u, VariableDecl)]
    clock = CLOCK_VARIABLE in variables and CLOCK_ACTION in definitions
    if clock:  # the validator applies the clock's step itself; events never name it
        sites.pop(CLOCK_ACTION, None)
    return TraceShape(module.name, SpecTypes.of(module), sites, logged, "messages" in variables, definitions, clock)


def validate_with_apalache(path: Path, config: object, apalache: object | None = None) -> TraceReport:
    """Validate one trace with Apalache; ``config`` is a ``ValidatorConfig``."""
    from conformance.apalache import Apalache, ApalacheError
    from conformance.validate.runner import ValidatorConfig

    assert isinstance(config, ValidatorConfig)
    started = time.perf_counter()
    report = TraceReport(file=str(path), verdict=Verdict.ERROR)
    try:
        stream = TraceStream(path)
        events = list(stream.events())
        loader = ModuleLoader(config.search_path)
        module = loader.load_file(config.spec)
        if stream.header.spec != module.name:
            raise TraceModuleError(f"a trace for spec {stream.header.spec!r}, validated against {module.name!r}")
        consts = spec_constants(declared_constants(module), stream.header.constants, config.constants, config.spec)
        logged = sorted(next(iter(stream.init.replicas.values())))
        shape = _shape(config.spec, module, loader, logged)
        unknown = sorted({e.action for e in events} - set(shape.sites))
        if unknown:
            raise TraceModuleError(f"unknown action(s) {unknown}")
        runner = apalache if apalache is not None else Apalache.locate()
        runs: list[ApalacheTraceRun] = []

        def matches(k: int) -> bool:
            with tempfile.TemporaryDirectory(prefix="trace-module-") as tmp:
                work = Path(tmp)
                for tla in config.spec.resolve().parent.glob("*.tla"):
                    shutil.copy(tla, work / tla.name)
                target = work / f"{TRACE_MODULE}.tla"
                target.write_text(trace_module_text(shape, consts, stream.init.replicas, events[:k]), encoding="utf-8")
                steps = max(k, 1) * (2 if shape.clock else 1)  # a clock step before each event at most
                out = runner.run(lambda o, r: trace_check_command(runner.executable, target, o, r, steps))  # type: ignore[attr-defined]
            runs.append(ApalacheTraceRun(k, out.outcome, out.message, out.seconds))
            if out.outcome == "violation":
                return True
            if out.outcome == "ok":
                return False
            raise TraceModuleError(f"Apalache {out.outcome} on the trace module: {out.message or ''}".strip())

        matched = longest_matched_prefix(len(events), matches)
        report.steps = matched
        report.spec = module.name
        if matched == len(events):
            report.verdict = Verdict.ACCEPT
        elif matched == 0 and not matches(0):
            report.verdict = Verdict.REJECT
            report.diagnostic = Diagnostic(
                file=str(path), line=stream.init.line, step=0, event=None,
                reason=f"Apalache finds no initial state of {module.name} that agrees with the init line")
        else:
            e = events[matched]
            summary = EventSummary(e.step, e.line, e.replica, e.action,
                                   ", ".join(f"{k} = {v!r}" for k, v in e.params.items()))
            report.verdict = Verdict.REJECT
            report.diagnostic = Diagnostic(
                file=str(path), line=e.line, step=e.step, event=summary,
                reason=f"Apalache finds no run of {module.name} that produces steps 1..{e.step} "
                       f"(steps 1..{matched} are matched)")
    except TraceFormatError as exc:
        report.error = str(exc)
    except (TraceModuleError, ApalacheError, ValueError) as exc:
        report.error = f"{path}: {exc}"
    report.seconds = time.perf_counter() - started
    return report
