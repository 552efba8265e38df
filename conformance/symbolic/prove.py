"""The proof obligations of an inductive invariant, discharged by z3 (in parallel).

For fixed constants (the cfg) and states of bounded size (``shapes.Bounds``):

* ``Init => IndInv``
* ``IndInv /\\ C /\\ A => IndInv'`` for every disjunct ``A`` of ``Next`` (``C``: the cfg's
  CONSTRAINTs, since states failing them are never expanded)
* ``IndInv => Safety``

Each obligation is proved (the negation is unsatisfiable), has a counterexample (a state,
or a pair of states for induction, decoded to engine values and re-checked by the explicit
engine, with the conjunct that fails) or is unknown (the solver's timeout).
"""

from __future__ import annotations

import multiprocessing
import time
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import ProcessPoolExecutor, as_completed
from dataclasses import dataclass, field
from pathlib import Path

import z3

from conformance.symbolic.counterexample import decode_state
from conformance.symbolic.elements import parts
from conformance.symbolic.encoding import (
    Atoms,
    SSet,
    both,
    clear_memo,
    concrete_bool,
    conj,
    eq,
    member,
    negate,
)
from conformance.symbolic.frame import state_variables
from conformance.symbolic.shapes import (
    Bounds,
    SymbolicState,
    atom_range,
    fresh_state,
    sample_state,
    state_shapes,
)
from conformance.symbolic.slicing import Premise, Slices
from conformance.symbolic.split import conjuncts, split_action
from conformance.symbolic.translate import StatePair, Translator
from conformance.tla import syntax as S
from conformance.tla.cfg import read_config
from conformance.tla.model import Model, State
from conformance.tla.plan import CheckPlan, resolve_plan
from conformance.tla.semantics.scope import Ctx
from conformance.tla.syntax import TlaError


@dataclass(frozen=True)
class ProofInput:
    """What a worker process needs to rebuild the translation."""

    spec: Path
    cfg: Path
    inv: str
    safety: str
    init: str | None
    bounds: Bounds
    timeout: float
    search_path: tuple[Path, ...] = ()
    # a conjunct over a set variable's elements is asked per old and new element (False:
    # as one question about the whole set, the baseline the benchmark compares with)
    per_element: bool = True
    # a step question is first asked with a slice of the invariant's conjuncts (slicing.py;
    # off by default: not shown to decide more within a timeout, see spec/README.md)
    slicing: bool = False


@dataclass(frozen=True)
class Obligation:
    kind: str  # init | step | safety
    action: str | None = None
    index: int = -1

    def title(self, inv: str, safety: str, init: str) -> str:
        if self.kind == "init":
            return f"{init} => {inv}"
        if self.kind == "safety":
            return f"{inv} => {safety}"
        return f"{inv} /\\ {self.action} => {inv}'"


@dataclass
class ObligationResult:
    obligation: Obligation
    verdict: str  # proved | counterexample | unknown | error
    seconds: float
    states: list[State] = field(default_factory=list)
    failing: list[str] = field(default_factory=list)
    engine_action: str | None = None
    message: str = ""
    cpu_seconds: float = 0.0
    # A step obligation, per conjunct of the invariant: proved | unchanged | unknown | counterexample
    conjuncts: dict[str, str] = field(default_factory=dict)
    # A step obligation: how many questions a slice of the premises proved (``sliced``) and
    # how many it left to the whole premise (``whole``)
    questions: dict[str, int] = field(default_factory=dict)


def load(inp: ProofInput) -> tuple[Model, CheckPlan, str]:
    config = read_config(inp.cfg)
    model = Model.load(inp.spec, constants=config.constants, overrides=config.overrides,
                       search_path=inp.search_path)
    plan = resolve_plan(model, config)
    init = inp.init if inp.init is not None else plan.init
    if not isinstance(init, str):
        init = "Init"
    for name in (inp.inv, inp.safety, init):
        model.definition(name)  # a missing definition is an input error
    return model, plan, init


def obligations(inp: ProofInput) -> list[Obligation]:
    model, plan, init = load(inp)
    state_shapes(model, sample_state(model, init), inp.bounds)  # unsized variables: an input error
    tr = Translator(model)
    if not isinstance(plan.next, str):
        raise ValueError("the next-state action must be a definition")
    steps = [Obligation("step", d.name, i) for i, d in enumerate(split_action(tr, plan.next))]
    return [Obligation("init"), *steps, Obligation("safety")]


def discharge(inp: ProofInput, ob: Obligation) -> ObligationResult:
    """Decide one obligation (in this process)."""
    cpu = time.process_time()
    try:
        result = _discharge(inp, ob)
    except TlaError as exc:  # a construct outside the fragment, met in this obligation
        result = ObligationResult(ob, "error", 0.0, message=str(exc))
    result.cpu_seconds = time.process_time() - cpu
    return result


def _discharge(inp: ProofInput, ob: Obligation) -> ObligationResult:
    started = time.monotonic()
    clear_memo()
    model, plan, init = load(inp)
    tr = Translator(model, Atoms())
    shapes = state_shapes(model, sample_state(model, init), inp.bounds)
    atom_terms: list[z3.ArithRef] = []
    s = fresh_state(shapes, "s", atom_terms)
    here = StatePair(s.values)
    solver = z3.Solver()
    solver.set("timeout", max(1, int(inp.timeout * 1000)))
    solver.add(s.wellformed)
    if ob.kind == "init":
        solver.add(tr.formula(init, here), z3.Not(tr.formula(inp.inv, here)))
        failing_of = inp.inv
    elif ob.kind == "safety":
        solver.add(tr.formula(inp.inv, here), z3.Not(tr.formula(inp.safety, here)))
        failing_of = inp.safety
    else:
        assert isinstance(plan.next, str)
        disjunct = split_action(tr, plan.next)[ob.index]
        t_shapes = state_shapes(model, sample_state(model, init), inp.bounds.widened(4))
        t = fresh_state(t_shapes, "t", atom_terms)
        solver.add(t.wellformed, tr.formula(inp.inv, here))
        constraints = [tr.formula(c, here) for c in plan.constraints]
        action = disjunct.formula(tr, StatePair(s.values, t.values))
        atoms = atom_range(atom_terms, tr.atoms)
        solver.add(*constraints, action, atoms)
        slices = _slices(tr, inp.inv, here, [s.wellformed, t.wellformed, *constraints, action, atoms]) \
            if inp.slicing else None
        return _step(inp, ob, model, plan, init, tr, solver, s, t, started, slices)
    solver.add(atom_range(atom_terms, tr.atoms))
    answer = solver.check()
    if answer == z3.unsat:
        return ObligationResult(ob, "proved", time.monotonic() - started)
    if answer == z3.unknown:
        return ObligationResult(ob, "unknown", time.monotonic() - started, message=solver.reason_unknown())
    return _counterexample(inp, ob, model, plan, init, tr, solver.model(), [s], failing_of, started)


# A conjunct whose variables the action leaves unchanged needs no look at its primed form;
# telling that is a small question, given at most this long.
FRAME_SECONDS = 30.0


# A first round asks each question for at most this long, so that a hard conjunct does not
# leave the later ones unasked; a second round shares what is left of the timeout among
# the questions still open.
FIRST_ROUND_SECONDS = 10.0


def _slices(tr: Translator, inv: str, here: StatePair, base: list[z3.BoolRef]) -> Slices:
    """A solver holding ``base`` (all of a step's premises but the invariant) and the
    conjuncts of ``inv`` as premises to slice."""
    solver = z3.Solver()
    solver.add(*base)
    premises = [Premise(label, tr.boolean(expr, {}, ctx, here), state_variables(expr, ctx))
                for label, expr, ctx in conjuncts(tr, inv)]
    return Slices(solver, premises)


def _step(inp: ProofInput, ob: Obligation, model: Model, plan: CheckPlan, init: str, tr: Translator,
          solver: z3.Solver, s: SymbolicState, t: SymbolicState, started: float,
          slices: Slices | None = None) -> ObligationResult:
    """``IndInv /\\ C /\\ A => IndInv'``, one conjunct of ``IndInv'`` at a time (incrementally):
    a conjunct is proved when ``A`` provably keeps its variables (``unchanged``) or when the
    negation of each of its pieces is unsatisfiable (a conjunct over the elements of a set
    variable asks about the old and the new elements one at a time, ``elements.py``); a
    satisfiable negation is the counterexample. With ``slices``, a question is first asked
    with a slice of the premises (``slicing.py``); only the whole premise (``solver``) gives
    a counterexample."""
    deadline = started + inp.timeout
    after = StatePair(t.values)
    outcome: dict[str, str] = {}
    reasons: dict[str, str] = {}
    pending: list[tuple[str, z3.BoolRef]] = []

    def ask(negation: z3.BoolRef, seconds: float) -> tuple[z3.CheckSatResult, z3.ModelRef | None, str]:
        """One question: the answer, the model of a satisfiable one, why an unknown one is."""
        if seconds <= 0:
            return z3.unknown, None, "time limit"
        solver.push()
        solver.set("timeout", max(1, int(seconds * 1000)))
        solver.add(negation)
        answer = solver.check()
        found = solver.model() if answer == z3.sat else None
        why = solver.reason_unknown() if answer == z3.unknown else ""
        solver.pop()
        return answer, found, why

    def counterexample(label: str, found: z3.ModelRef) -> ObligationResult:
        outcome[label] = "counterexample"
        result = _counterexample(inp, ob, model, plan, init, tr, found, [s, t], inp.inv, started)
        result.conjuncts = outcome
        return result

    for label, expr, ctx in conjuncts(tr, inp.inv):
        names = state_variables(expr, ctx)
        if names is not None and _kept(solver, s, t, names, min(FRAME_SECONDS, deadline - time.monotonic())):
            outcome[label] = "unchanged"
            continue
        outcome[label] = "proved"
        negations = _negations(tr, solver, s, t, after, expr, ctx, deadline) if inp.per_element \
            else iter([negate(tr.boolean(expr, {}, ctx, after))])
        for negation in negations:
            if concrete_bool(negation) is False:
                continue
            if slices is not None and slices.refutes(names, negation, deadline):
                continue
            answer, found, _ = ask(negation, min(FIRST_ROUND_SECONDS, deadline - time.monotonic()))
            if found is not None:
                return counterexample(label, found)
            if answer == z3.unknown:
                pending.append((label, negation))  # the second round decides
    for k, (label, negation) in enumerate(pending):
        if outcome[label] == "unknown":
            continue  # one of its questions stayed open: the conjunct is unknown
        answer, found, why = ask(negation, (deadline - time.monotonic()) / (len(pending) - k))
        if found is not None:
            return counterexample(label, found)
        if answer == z3.unknown:
            outcome[label] = "unknown"
            reasons[label] = why
    unknown = [f"{label}: {reasons.get(label, 'time limit')}" for label, v in outcome.items() if v == "unknown"]
    verdict = "unknown" if unknown else "proved"
    questions = {"sliced": slices.proved, "whole": slices.given_up} if slices is not None else {}
    return ObligationResult(ob, verdict, time.monotonic() - started, message="; ".join(unknown), conjuncts=outcome,
                            questions=questions)


def _negations(tr: Translator, solver: z3.Solver, s: SymbolicState, t: SymbolicState, after: StatePair,
               expr: S.Expr, ctx: Ctx, deadline: float) -> Iterator[z3.BoolRef]:
    """Formulas whose joint unsatisfiability (with the obligation's premises) proves ``expr'``:
    its negation, or for a conjunct with pieces over a set variable's elements, the negation
    of each piece per old element (unless the step keeps what the piece reads) and per
    new element."""
    pieces = parts(expr, ctx)
    if all(p.over is None for p in pieces):
        yield negate(tr.boolean(expr, {}, ctx, after))
        return
    for p in pieces:
        premise = conj([tr.boolean(g, {}, p.ctx, after) for g in p.premises])
        if p.over is None:
            yield both(premise, negate(tr.boolean(p.body, {}, p.ctx, after)))
            continue
        var, x = p.over
        old, new = s.values[var], t.values[var]
        if not isinstance(old, SSet) or not isinstance(new, SSet):
            raise S.EvalError(f"expected {var} to be a set (it is quantified over)", p.body.loc)
        reads = state_variables(p.body, p.ctx)
        if reads is None or var in reads or \
                not _kept(solver, s, t, reads, min(FRAME_SECONDS, deadline - time.monotonic())):
            for g, e in old.slots:
                yield conj([premise, g, member(e, new), negate(tr.boolean(p.body, {x: e}, p.ctx, after))])
        for g, e in new.slots:
            yield conj([premise, g, negate(member(e, old)), negate(tr.boolean(p.body, {x: e}, p.ctx, after))])


def _kept(solver: z3.Solver, s: SymbolicState, t: SymbolicState, names: frozenset[str], seconds: float) -> bool:
    """Whether the action provably leaves the variables ``names`` unchanged."""
    if seconds <= 0:
        return False
    solver.push()
    solver.set("timeout", max(1, int(seconds * 1000)))
    solver.add(z3.Or([z3.Not(eq(t.values[n], s.values[n])) for n in sorted(names)] or [z3.BoolVal(False)]))
    kept = solver.check() == z3.unsat
    solver.pop()
    return kept


def _counterexample(inp: ProofInput, ob: Obligation, model: Model, plan: CheckPlan, init: str, tr: Translator,
                    m: z3.ModelRef, checked: list[SymbolicState], failing_of: str,
                    started: float) -> ObligationResult:
    """The decoded counterexample, the conjuncts it violates, re-checked by the explicit engine."""
    names = model.variables
    states = [decode_state(x.values, names, m, tr.atoms) for x in checked]
    failing = [label for label, expr, ctx in conjuncts(tr, failing_of)
               if z3.is_false(m.eval(tr.boolean(expr, {}, ctx, StatePair(checked[-1].values)),
                                     model_completion=True))]
    result = ObligationResult(ob, "counterexample", time.monotonic() - started, states, failing)
    try:
        problem = _engine_disagrees(model, plan, inp, init, ob, states, result)
    except TlaError as exc:  # the symbolic semantics gave a value where TLA+ has none
        result.verdict = "error"
        result.message = (f"the explicit engine cannot evaluate the counterexample ({exc}): the solver "
                          f"chose a value for an expression TLA+ leaves undefined there (a function "
                          f"applied outside its domain); strengthen {inp.inv} so that it is defined, "
                          f"e.g. bound the offsets it applies a sequence to")
        return result
    if problem is not None:
        result.verdict = "error"
        result.message = (f"internal error: the explicit engine does not confirm the counterexample "
                          f"({problem}): a bug of the symbolic translation")
    return result


def _engine_disagrees(model: Model, plan: CheckPlan, inp: ProofInput, init: str, ob: Obligation,
                      states: list[State], result: ObligationResult) -> str | None:
    """Re-check a counterexample with the explicit engine; a description of the
    disagreement, or None."""
    def holds(name: str, st: State) -> bool:
        return model.eval_state(name, st) is True

    if ob.kind == "init":
        if states[0] not in list(model.init_states(init)):
            return f"the state is not a state of {init}"
        return None if not holds(inp.inv, states[0]) else f"{inp.inv} holds in the state"
    if ob.kind == "safety":
        if not holds(inp.inv, states[0]):
            return f"{inp.inv} does not hold in the state"
        return None if not holds(inp.safety, states[0]) else f"{inp.safety} holds in the state"
    s, t = states
    if not holds(inp.inv, s):
        return f"{inp.inv} does not hold in the first state"
    if holds(inp.inv, t):
        return f"{inp.inv} holds in the second state"
    assert isinstance(plan.next, str)
    # the obligation is about one action: another one that the engine cannot evaluate in
    # the first state (a sequence applied beyond its length, say) does not hide the step
    found, errors = model.successors_skipping_errors(s, plan.next)
    for label, succ in found:
        if succ == t:
            result.engine_action = label.name
            return None
    if errors:
        raise errors[0]
    return "the second state is not a successor of the first"


def prove(inp: ProofInput, jobs: int = 2, done: Callable[[ObligationResult], None] | None = None,
          only: Sequence[str] | None = None) -> list[ObligationResult]:
    """Every obligation (``only``: the step obligations of these actions), ``jobs`` at a
    time (worker processes); ``done`` hears of each result as it comes."""
    obs = obligations(inp)
    if only:
        unknown = set(only) - {o.action for o in obs}
        if unknown:
            raise ValueError(f"no action {', '.join(sorted(unknown))} in the next-state relation")
        obs = [o for o in obs if o.action in only]
    if jobs <= 1:
        results = []
        for ob in obs:
            results.append(discharge(inp, ob))
            if done is not None:
                done(results[-1])
        return results
    ctx = multiprocessing.get_context("fork")
    with ProcessPoolExecutor(max_workers=jobs, mp_context=ctx) as pool:
        futures = {pool.submit(discharge, inp, ob): k for k, ob in enumerate(obs)}
        by_index: dict[int, ObligationResult] = {}
        for fut in as_completed(futures):
            by_index[futures[fut]] = fut.result()
            if done is not None:
                done(by_index[futures[fut]])
        return [by_index[k] for k in range(len(obs))]


def figures(results: Sequence[ObligationResult]) -> dict[str, float]:
    """Seconds per obligation title (for the benchmark)."""
    return {r.obligation.kind + (":" + r.obligation.action if r.obligation.action else ""): r.seconds
            for r in results}


__all__ = ["Obligation", "ObligationResult", "ProofInput", "conj", "discharge", "figures",
           "obligations", "prove"]
