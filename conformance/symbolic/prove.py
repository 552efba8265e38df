"""The proof obligations of an inductive invariant, discharged by z3 (in parallel).

For fixed constants (the cfg) and states of bounded size (``shapes.Bounds``):

* ``Init => IndInv``
* ``IndInv /\\ C /\\ A => IndInv'`` for every disjunct ``A`` of ``Next`` (``C``: the cfg's
  CONSTRAINTs, since states failing them are never expanded)
* ``IndInv => Safety``

Each obligation is proved (the negation is unsatisfiable), has a counterexample (a state,
or a pair of states for induction, decoded to engine values and re-checked by the explicit
engine, with the conjunct that fails) or is unknown (the solver's timeout, or with
``rlimit``, its resource budget: ``budget.py``). With a ``refine`` hook (``refine.py``), an
unknown step obligation is decided again in pieces, combined per action by ``per_action``.
"""

from __future__ import annotations

import multiprocessing
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field, replace
from functools import partial
from pathlib import Path
from typing import Any, Protocol, TypeVar

import z3

from conformance.symbolic.aligned import aligned_state
from conformance.symbolic.budget import Budget, Z3Param, z3_params_set
from conformance.symbolic.cases import constant_elements
from conformance.symbolic.counterexample import decode_state
from conformance.symbolic.elements import parts
from conformance.symbolic.encoding import (
    SV,
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
from conformance.symbolic.zygote import Zygote
from conformance.tla import syntax as S
from conformance.tla.cfg import read_config
from conformance.tla.model import Model, State
from conformance.tla.plan import CheckPlan, resolve_plan
from conformance.tla.semantics.scope import Ctx
from conformance.tla.syntax import TlaError

T = TypeVar("T")


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
    # the second state of a step shares the first state's value of every variable the
    # action provably keeps (``_kept_by_action``); False: a fresh value bound by equality
    frame_substitution: bool = True
    # the step's action translates its ``\E x \in S`` over a set of the state with one
    # witness (``witness.py``; the frame question above still uses the disjunction over the
    # slots, on which it is cheaper); False: the disjunction everywhere
    witness: bool = True
    # the second state's changed sets keep the first state's slots and add fresh ones
    # (``aligned.py``); False: fresh slots throughout
    aligned_sets: bool = True
    # a comparison of counts (quorum tests) is stated over the counted conditions
    # (``counting.py``); False: as linear arithmetic, the benchmark's baseline
    boolean_counts: bool = True
    # z3 parameters set (globally) while an obligation is decided (``budget.z3_param``,
    # e.g. ``("smt.arith.solver", 2)``); they are options, so a journal keys them
    z3_params: tuple[Z3Param, ...] = ()
    # a conjunct piece of an unknown attempt (``refine.py``) takes what the attempt found of
    # its step's frame instead of asking again (False: it asks, the benchmark's baseline)
    pieces_take_frame: bool = True
    # an unknown step attempt is decided again in pieces (``kraftcheck prove --split``,
    # refine.py): an attempt that can still be refined (not a conjunct piece) asks each
    # question once, at the first round's cap, and leaves those it could not decide to its
    # pieces instead of sharing the rest of its budget among them (False: that second round
    # first, the baseline the benchmark compares with)
    refined: bool = False
    # z3 resource units per obligation (0: none); the caps of the schedule become shares of
    # it and the wall-clock timeout stays an outer bound (budget.py)
    rlimit: int = 0
    # actions whose step obligation is decided case by case (cases.py): one obligation per
    # case, each with the budget above; the action's obligation holds when all of them do
    cases: tuple[str, ...] = ()
    # a step obligation asks only about these conjuncts of ``inv'`` (a label, or the name
    # before its ``/``), the premise staying the whole of ``inv``: one question, to rebuild
    # or diagnose it (a partial obligation; empty: every conjunct)
    goals: tuple[str, ...] = ()


@dataclass(frozen=True)
class Obligation:
    kind: str  # init | step | safety
    action: str | None = None
    index: int = -1
    case: int = -1  # a step obligation for one case of the action (cases.py), -1: all of it
    label: str = ""  # that case's label
    # a step obligation asking only these conjuncts of ``inv'`` (empty: ``ProofInput.goals``),
    # those an unknown attempt left open (``refine.py``)
    goals: tuple[str, ...] = ()
    # a step obligation asking only this conjunct of ``inv'`` (a piece of an unknown one)
    conjunct: str = ""
    # what the attempt this piece refines (the same action or case) found of its step: the
    # variables it provably keeps (``_kept_by_action``; None: not known, asked) and those a
    # model of its premises changes (not asked about again, ``_kept``)
    kept: tuple[str, ...] | None = None
    changed: tuple[str, ...] = ()

    def title(self, inv: str, safety: str, init: str, whole: bool = False) -> str:
        """The obligation's formula (``whole``: of the whole action, not of one case or conjunct)."""
        if self.kind == "init":
            return f"{init} => {inv}"
        if self.kind == "safety":
            return f"{inv} => {safety}"
        case = f" [{self.label}]" if self.case >= 0 and not whole else ""
        goal = self.conjunct if self.conjunct and not whole else inv
        return f"{inv} /\\ {self.action}{case} => {goal}'"

    def asked(self, goals: tuple[str, ...]) -> tuple[str, ...]:
        """The conjuncts of ``inv'`` this obligation asks about, given ``ProofInput.goals``."""
        return (self.conjunct,) if self.conjunct else self.goals or goals


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
    # z3 resource units the obligation's solver calls spent (machine- and load-independent)
    rlimit_used: int = 0
    # a step obligation: the units of ``rlimit_used`` each conjunct's questions spent
    conjunct_units: dict[str, int] = field(default_factory=dict)
    # unknown, then decided again in this many pieces (``refine.py``; 0: a final verdict)
    split_into: int = 0
    # combined per action (``per_action``): how it was decided (``whole``, ``20 cases``, ...)
    # and what its attempts decided again spent (included in the figures above)
    how: str = ""
    redone_units: int = 0
    redone_cpu: float = 0.0
    # taken from the journal of an earlier run (``journal.py``), not decided in this one
    journaled: bool = False
    # a step obligation: the variables its step provably keeps and those a model of its
    # premises changes (None, (): not asked), for its pieces (``Obligation.kept``)
    kept: tuple[str, ...] | None = None
    changed: tuple[str, ...] = ()


class ResultStore(Protocol):
    """Results kept across runs (``journal.Journal``)."""

    def get(self, ob: Obligation) -> ObligationResult | None: ...

    def record(self, r: ObligationResult) -> None: ...


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


def conjunct_labels(inp: ProofInput) -> list[str]:
    """The labels of the conjuncts of ``inp.inv`` a step obligation asks (``inp.goals``), in order."""
    model, _, _ = load(inp)
    return [label for label, _, _ in conjuncts(Translator(model), inp.inv)
            if not inp.goals or label in inp.goals or label.split("/")[0] in inp.goals]


def obligations(inp: ProofInput, every_case: bool = False) -> list[Obligation]:
    """The obligations of ``inp`` (``every_case``: every action that splits, case by case)."""
    model, plan, init = load(inp)
    state_shapes(model, sample_state(model, init), inp.bounds)  # unsized variables: an input error
    tr = Translator(model)
    if not isinstance(plan.next, str):
        raise ValueError("the next-state action must be a definition")
    found = split_action(tr, plan.next)
    unknown = set(inp.cases) - {d.name for d in found}
    if unknown:
        raise ValueError(f"no action {', '.join(sorted(unknown))} in the next-state relation")
    labels = {label for label, _, _ in conjuncts(tr, inp.inv)}
    missing = set(inp.goals) - labels - {label.split("/")[0] for label in labels}
    if missing:  # else a step obligation would be proved for asking nothing
        raise ValueError(f"no conjunct {', '.join(sorted(missing))} of {inp.inv}")
    steps: list[Obligation] = []
    for i, d in enumerate(found):
        if (every_case or d.name in inp.cases) and d.cases:
            steps.extend(Obligation("step", d.name, i, k, c.label) for k, c in enumerate(d.cases))
        else:
            steps.append(Obligation("step", d.name, i))
    return [Obligation("init"), *steps, Obligation("safety")]


@dataclass
class Shared:
    """What every obligation of a proof starts from: the model, the translator, the first
    state and ``inv`` translated on it. ``prove`` makes it once and forks each obligation
    from it, so that no obligation translates the invariant again (a few CPU seconds
    each); each forked process extends its own copy (the translator's atoms, the memos)."""

    model: Model
    plan: CheckPlan
    init: str
    tr: Translator
    sample: State
    atom_terms: list[z3.ArithRef]
    s: SymbolicState
    here: StatePair
    inv: z3.BoolRef


def shared(inp: ProofInput) -> Shared:
    """The start of every obligation of ``inp`` (``Shared``)."""
    clear_memo()
    model, plan, init = load(inp)
    tr = Translator(model, Atoms(), boolean_counts=inp.boolean_counts)
    sample = sample_state(model, init)
    shapes = state_shapes(model, sample, inp.bounds)
    atom_terms: list[z3.ArithRef] = []
    s = fresh_state(shapes, "s", atom_terms)
    here = StatePair(s.values)
    return Shared(model, plan, init, tr, sample, atom_terms, s, here, tr.formula(inp.inv, here))


def discharge(inp: ProofInput, ob: Obligation, base: Shared | None = None) -> ObligationResult:
    """Decide one obligation (in this process; ``base``: made by ``shared(inp)`` in this
    process or the one it was forked from, and used by this obligation only)."""
    cpu = time.process_time()
    if ob.goals or ob.conjunct:
        inp = replace(inp, goals=ob.asked(inp.goals))
    try:
        start = base if base is not None else shared(inp)
        with z3_params_set(inp.z3_params):
            result = _discharge(inp, ob, start)
    except TlaError as exc:  # a construct outside the fragment, met in this obligation
        result = ObligationResult(ob, "error", 0.0, message=str(exc))
    result.cpu_seconds = time.process_time() - cpu
    return result


def _discharge(inp: ProofInput, ob: Obligation, base: Shared) -> ObligationResult:
    started = time.monotonic()
    model, plan, init, tr, s, here = base.model, base.plan, base.init, base.tr, base.s, base.here
    atom_terms = list(base.atom_terms)
    budget = Budget(inp.timeout, inp.rlimit)
    solver = z3.Solver()
    solver.add(s.wellformed)
    if ob.kind == "init":
        solver.add(tr.formula(init, here), z3.Not(base.inv))
        failing_of = inp.inv
    elif ob.kind == "safety":
        solver.add(base.inv, z3.Not(tr.formula(inp.safety, here)))
        failing_of = inp.safety
    else:
        assert isinstance(plan.next, str)
        disjunct = split_action(tr, plan.next)[ob.index]
        t_shapes = state_shapes(model, base.sample, inp.bounds.widened(4))
        t = fresh_state(t_shapes, "t", atom_terms)
        kept: tuple[str, ...] | None = None
        if inp.frame_substitution:
            kept = ob.kept if ob.kept is not None else tuple(_kept_by_action(
                tr, s, t, disjunct.formula(tr, StatePair(s.values, t.values), ob.case), atom_terms, budget))
            t = SymbolicState({**t.values, **{v: s.values[v] for v in kept}}, t.wellformed)
        if inp.aligned_sets:
            t = aligned_state(s, t, [v for v in t.values if t.values[v] is not s.values[v]])
        solver.add(t.wellformed, base.inv)
        constraints = [tr.formula(c, here) for c in plan.constraints]
        tr.witnesses = {} if inp.witness else None
        action = disjunct.formula(tr, StatePair(s.values, t.values), ob.case)
        atoms = atom_range(atom_terms, tr.atoms)
        solver.add(*constraints, action, atoms)
        slices = _slices(tr, inp.inv, here, [s.wellformed, t.wellformed, *constraints, action, atoms]) \
            if inp.slicing else None
        result = _step(inp, ob, model, plan, init, tr, solver, s, t, started, budget, slices)
        result.rlimit_used = budget.used
        result.kept = kept
        return result
    solver.add(atom_range(atom_terms, tr.atoms))
    answer, why = budget.check(solver, inp.timeout)
    if answer == z3.unsat:
        return ObligationResult(ob, "proved", time.monotonic() - started, rlimit_used=budget.used)
    if answer == z3.unknown:
        return ObligationResult(ob, "unknown", time.monotonic() - started, message=why, rlimit_used=budget.used)
    result = _counterexample(inp, ob, model, plan, init, tr, solver.model(), [s], failing_of, started)
    result.rlimit_used = budget.used
    return result


# Whether an action keeps one variable is asked for at most this long (with a resource
# budget: at most this share of it).
KEEP_SECONDS = 5.0
KEEP_SHARE = 1 / 200


def _kept_by_action(tr: Translator, s: SymbolicState, t: SymbolicState, action: z3.BoolRef,
                    atom_terms: list[z3.ArithRef], budget: Budget, prune: bool = True) -> list[str]:
    """The variables ``v`` such that ``action`` (between ``s`` and ``t``) implies ``v' = v``:
    the negation ``action /\\ v' /= v`` is unsatisfiable (an ``unknown`` answer keeps nothing;
    with ``prune``, a variable that the model of an earlier question changes is not asked about).

    **Frame substitution.** The second state of a step obligation then takes the first
    state's value for each such variable instead of a fresh one bound to it by an
    equality: ``messages' = messages`` between sets of 4 and 8 slots is a matching of
    records that the solver otherwise redoes in every question. This is sound: for any
    model of ``IndInv /\\ A(s, t) /\\ ~Q(t)``, replacing ``t.v`` by ``s.v`` (the same TLA+ value,
    since ``A`` implies ``t.v = s.v``) gives a model of the substituted question, as the
    translation of a formula depends on a value only through the TLA+ value it denotes; so
    a substituted question that is unsatisfiable proves the original one. (A model of the
    substituted question is a model of the original one with ``t.v`` encoding ``s.v``'s
    value, which the wider shape of ``t`` can; the explicit engine re-checks it anyway.)"""
    frame = z3.Solver()
    frame.add(s.wellformed, t.wellformed, action, atom_range(atom_terms, tr.atoms))
    kept: list[str] = []
    changed: set[str] = set()
    for v in sorted(t.values):
        if v in changed:
            continue
        same = eq(t.values[v], s.values[v])
        frame.push()  # (before a first check too: z3's incremental solver heeds its timeout)
        frame.add(z3.Not(same))
        answer, _ = budget.check(frame, KEEP_SECONDS, KEEP_SHARE)
        if answer == z3.sat and prune:  # a step changing v: what else it changes is not kept either
            changed.update(_changed_in(frame.model(), s, t))
        frame.pop()
        if answer == z3.unsat:
            kept.append(v)
    return kept


# A conjunct whose variables the action leaves unchanged needs no look at its primed form;
# telling that is a small question, given at most this long (with a resource budget: at
# most this share of it).
FRAME_SECONDS = 30.0
FRAME_SHARE = 1 / 4


# A first round asks each question for at most this long, so that a hard conjunct does not
# leave the later ones unasked; a second round shares what is left of the timeout among
# the questions still open. With a resource budget, a first-round question gets at most
# this share of it (10 s of the 120 s the benchmark gives an obligation).
FIRST_ROUND_SECONDS = 10.0
FIRST_ROUND_SHARE = 1 / 12
# An attempt that is decided again in pieces (``ProofInput.refined``) has no second round:
# a conjunct with a question its first round left open is unknown for this reason (its
# other questions not asked), and its pieces decide it.
LEFT_TO_PIECES = "left to the pieces"


def _slices(tr: Translator, inv: str, here: StatePair, base: list[z3.BoolRef]) -> Slices:
    """A solver holding ``base`` (all of a step's premises but the invariant) and the
    conjuncts of ``inv`` as premises to slice."""
    solver = z3.Solver()
    solver.add(*base)
    premises = [Premise(label, tr.boolean(expr, {}, ctx, here), state_variables(expr, ctx))
                for label, expr, ctx in conjuncts(tr, inv)]
    return Slices(solver, premises)


def _step(inp: ProofInput, ob: Obligation, model: Model, plan: CheckPlan, init: str, tr: Translator,
          solver: z3.Solver, s: SymbolicState, t: SymbolicState, started: float, budget: Budget,
          slices: Slices | None = None) -> ObligationResult:
    """``IndInv /\\ C /\\ A => IndInv'``, one conjunct of ``IndInv'`` at a time (incrementally):
    a conjunct is proved when ``A`` provably keeps its variables (``unchanged``) or when the
    negation of each of its pieces is unsatisfiable (a conjunct over the elements of a set
    variable asks about the old and the new elements one at a time, ``elements.py``); a
    satisfiable negation is the counterexample. With ``slices``, a question is first asked
    with a slice of the premises (``slicing.py``); only the whole premise (``solver``) gives
    a counterexample. The result tells what each conjunct's questions spent."""
    after = StatePair(t.values)
    outcome: dict[str, str] = {}
    reasons: dict[str, str] = {}
    spent: dict[str, int] = {}  # resource units per conjunct, its frame question included
    pending: list[tuple[str, z3.BoolRef]] = []
    changed = set(ob.changed)  # variables a model of the premises changes (``_kept``)
    refined = inp.refined and not ob.conjunct  # pieces follow this attempt: no second round

    def ask(negation: z3.BoolRef, seconds: float, share: float) -> tuple[z3.CheckSatResult, z3.ModelRef | None, str]:
        """One question (at most ``seconds``, or ``share`` of a resource budget): the answer,
        the model of a satisfiable one, why an unknown one is."""
        if budget.exhausted():
            return z3.unknown, None, "resource limit" if budget.over else "time limit"
        solver.push()
        solver.add(negation)
        answer, why = budget.check(solver, seconds, share)
        found = solver.model() if answer == z3.sat else None
        solver.pop()
        return answer, found, why

    def counterexample(label: str, found: z3.ModelRef) -> ObligationResult:
        outcome[label] = "counterexample"
        result = _counterexample(inp, ob, model, plan, init, tr, found, [s, t], inp.inv, started)
        result.conjuncts = outcome
        result.conjunct_units = spent
        return result

    for label, expr, ctx in conjuncts(tr, inp.inv):
        if inp.goals and label not in inp.goals and label.split("/")[0] not in inp.goals:
            continue  # not asked: absent from ``conjuncts`` of the result
        before = budget.used  # what its questions spend, its frame question included
        names = state_variables(expr, ctx)
        if names is not None and _kept(solver, s, t, names, budget, changed):
            outcome[label] = "unchanged"
            spent[label] = budget.used - before
            continue
        outcome[label] = "proved"
        negations = _negations(tr, solver, s, t, after, expr, ctx, budget, changed, ob.case >= 0) \
            if inp.per_element \
            else iter([negate(tr.boolean(expr, {}, ctx, after))])
        for negation in negations:
            if concrete_bool(negation) is False:
                continue
            if slices is not None and slices.refutes(names, negation, budget):
                continue
            answer, found, _ = ask(negation, FIRST_ROUND_SECONDS, FIRST_ROUND_SHARE)
            if found is not None:
                spent[label] = budget.used - before
                return counterexample(label, found)
            if answer != z3.unknown:
                continue
            if refined:
                outcome[label] = "unknown"  # its piece asks all its questions, with the whole budget
                reasons[label] = LEFT_TO_PIECES
                break
            pending.append((label, negation))  # the second round decides
        spent[label] = budget.used - before
    for k, (label, negation) in enumerate(pending):
        if outcome[label] == "unknown":
            continue  # one of its questions stayed open: the conjunct is unknown
        left = len(pending) - k
        units = budget.units_left()
        before = budget.used
        answer, found, why = ask(negation, budget.seconds_left() / left,
                                 (units / left / budget.rlimit) if units is not None else 1.0)
        spent[label] += budget.used - before
        if found is not None:
            return counterexample(label, found)
        if answer == z3.unknown:
            outcome[label] = "unknown"
            reasons[label] = why
    unknown = [f"{label}: {reasons.get(label, 'time limit')}" for label, v in outcome.items() if v == "unknown"]
    verdict = "unknown" if unknown else "proved"
    questions = {"sliced": slices.proved, "whole": slices.given_up} if slices is not None else {}
    return ObligationResult(ob, verdict, time.monotonic() - started, message="; ".join(unknown), conjuncts=outcome,
                            questions=questions, changed=tuple(sorted(changed)), conjunct_units=spent)


def _negations(tr: Translator, solver: z3.Solver, s: SymbolicState, t: SymbolicState, after: StatePair,
               expr: S.Expr, ctx: Ctx, budget: Budget, changed: set[str],
               per_key: bool = False) -> Iterator[z3.BoolRef]:
    """Formulas whose joint unsatisfiability (with the obligation's premises) proves ``expr'``:
    its negation, or for a conjunct with pieces over a set variable's elements, the negation
    of each piece per old element (unless the step keeps what the piece reads) and per
    new element; with ``per_key``, a piece ``\\A x \\in D : P(x)`` over a constant set ``D``
    also gives one negation per element ``d`` of ``D`` (``~P(d)``)."""
    pieces = parts(expr, ctx)
    if all(p.over is None for p in pieces) and not per_key:
        yield negate(tr.boolean(expr, {}, ctx, after))
        return
    for p in pieces:
        premise = conj([tr.boolean(g, {}, p.ctx, after) for g in p.premises])
        if p.over is None:
            each = _per_element(tr, p.body, p.ctx) if per_key else None
            if each is None:
                yield both(premise, negate(tr.boolean(p.body, {}, p.ctx, after)))
            else:
                x, body, elements = each
                for e in elements:
                    yield both(premise, negate(tr.boolean(body, {x: e}, p.ctx, after)))
            continue
        var, x = p.over
        old, new = s.values[var], t.values[var]
        if not isinstance(old, SSet) or not isinstance(new, SSet):
            raise S.EvalError(f"expected {var} to be a set (it is quantified over)", p.body.loc)
        reads = state_variables(p.body, p.ctx)
        if reads is None or var in reads or \
                not _kept(solver, s, t, reads, budget, changed):
            for g, e in old.slots:
                yield conj([premise, g, member(e, new), negate(tr.boolean(p.body, {x: e}, p.ctx, after))])
        for g, e in new.slots:
            yield conj([premise, g, negate(member(e, old)), negate(tr.boolean(p.body, {x: e}, p.ctx, after))])


def _per_element(tr: Translator, e: S.Expr, ctx: Ctx) -> tuple[str, S.Expr, list[SV]] | None:
    """For ``\\A x \\in D : P`` with ``D`` a constant set of concrete elements (``Replicas``):
    ``x``, ``P`` and the elements of ``D`` (whose instances' conjunction is ``e``); else None."""
    if not (isinstance(e, S.Quant) and e.kind == "A" and len(e.bounds) == 1):
        return None
    b = e.bounds[0]
    if b.tuple_pattern or len(b.names) != 1:
        return None
    elements = constant_elements(tr, b.domain, ctx)
    return None if elements is None else (b.names[0], e.body, elements)


def _kept(solver: z3.Solver, s: SymbolicState, t: SymbolicState, names: frozenset[str], budget: Budget,
          changed: set[str]) -> bool:
    """Whether the action provably leaves the variables ``names`` unchanged (within
    ``FRAME_SECONDS``, or ``FRAME_SHARE`` of a resource budget). ``changed``: the variables
    that a model of ``solver`` (an earlier question's) changes, so that asking about any of
    them again would be satisfiable: not asked; a satisfiable answer adds those its model
    changes."""
    if budget.exhausted() or names & changed:
        return False
    solver.push()
    solver.add(z3.Or([z3.Not(eq(t.values[n], s.values[n])) for n in sorted(names)] or [z3.BoolVal(False)]))
    answer, _ = budget.check(solver, FRAME_SECONDS, FRAME_SHARE)
    if answer == z3.sat:
        changed.update(_changed_in(solver.model(), s, t))
    solver.pop()
    return answer == z3.unsat


def _changed_in(step: z3.ModelRef, s: SymbolicState, t: SymbolicState) -> list[str]:
    """The variables whose value the model ``step`` of a step from ``s`` to ``t`` changes."""
    return [v for v in t.values if z3.is_false(step.eval(eq(t.values[v], s.values[v]), model_completion=True))]


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


def forked(fn: Callable[..., T], *args: Any) -> T:
    """``fn(*args)`` computed in a forked process: the z3 terms it makes stay there. Every
    obligation is forked from this process, and z3 numbers new terms after those alive in
    it, so the units an obligation spends are the same only if nothing between the forks
    adds terms here (the obligations' list is made with a translator)."""
    ctx = multiprocessing.get_context("fork")
    receive, send = ctx.Pipe(duplex=False)

    def child() -> None:
        try:
            send.send(fn(*args))
        except Exception as exc:  # re-raised in the parent
            send.send(_Raised(exc))
        send.close()

    proc = ctx.Process(target=child, daemon=True)
    proc.start()
    send.close()
    try:
        outcome = receive.recv()
    except EOFError:
        raise RuntimeError(f"the process computing {fn.__name__} died (exit code {proc.exitcode})") from None
    finally:
        receive.close()
        proc.join()
    if isinstance(outcome, _Raised):
        raise outcome.exc
    return outcome


@dataclass
class _Raised:
    exc: BaseException


def _shared_or_none(inp: ProofInput) -> Shared | None:
    """``shared(inp)``, or None when the invariant is outside the fragment: each obligation
    then makes its own and reports that error."""
    try:
        return shared(inp)
    except TlaError:
        return None


def _died(ob: Obligation, exitcode: int | None) -> ObligationResult:
    return ObligationResult(ob, "error", 0.0, message=f"the process deciding it died (exit code {exitcode})")


def prove(inp: ProofInput, jobs: int = 2, done: Callable[[ObligationResult], None] | None = None,
          only: Sequence[str] | None = None,
          refine: Callable[[ObligationResult], list[Obligation]] | None = None,
          store: ResultStore | None = None,
          start: Callable[[list[Obligation]], list[Obligation]] | None = None) -> list[ObligationResult]:
    """Every obligation (``only``: the step obligations of these actions), ``jobs`` at a
    time; ``done`` hears of each result as it comes. With ``refine``, a result for which it
    gives pieces (``refine.py``) is marked ``split_into`` and its pieces are decided too; the
    results come grouped per obligation, each followed by its pieces. With ``store``, a
    result it holds is taken instead of being decided, and each new one is given to it.
    With ``start``, the obligations decided first are those it makes of them (``schedule.py``).

    Each obligation is decided in a process of its own, forked from one that made
    ``shared(inp)`` (``zygote.py``): z3's search depends on the terms its context already
    holds, so an obligation decided after others in one process can spend other resource
    units than alone. Forked from the same state, an obligation spends the same units in
    every run (``rlimit_used``), whatever the order and the number of jobs."""
    if inp.refined and refine is None:  # its attempts would leave open questions to no one
        raise ValueError("ProofInput.refined leaves what an attempt cannot decide to its pieces: "
                         "it needs refine")
    obs = forked(obligations, inp)
    if only:
        unknown = set(only) - {o.action for o in obs}
        if unknown:
            raise ValueError(f"no action {', '.join(sorted(unknown))} in the next-state relation")
        obs = [o for o in obs if o.action in only]
    if start is not None:
        obs = start(obs)
    waiting = [((k, 0), ob) for k, ob in enumerate(obs)]
    found: dict[tuple[int, int], ObligationResult] = {}
    serial = 0
    for key, outcome in _run(inp, waiting, jobs, store):
        pieces = refine(outcome) if refine is not None else []
        outcome.split_into = len(pieces)
        for piece in pieces:
            serial += 1
            waiting.append(((key[0], serial), piece))
        found[key] = outcome
        if done is not None:
            done(outcome)
    return [found[key] for key in sorted(found)]


Key = tuple[int, int]


def _run(inp: ProofInput, waiting: list[tuple[Key, Obligation]],
         jobs: int, store: ResultStore | None = None) -> Iterator[tuple[Key, ObligationResult]]:
    """Decide the obligations of ``waiting`` (which may grow meanwhile), ``jobs`` at a time,
    each in a process forked from a zygote that made ``shared(inp)`` (those ``store`` holds:
    taken from it, and no zygote when it holds them all); each result with its key, as it
    comes."""
    zygote: Zygote | None = None
    running: dict[Key, Obligation] = {}
    try:
        while waiting or running:
            while waiting and len(running) < max(1, jobs):
                key, ob = waiting.pop(0)
                kept = store.get(ob) if store is not None else None
                if kept is not None:
                    yield key, kept
                    continue
                if zygote is None:
                    zygote = Zygote(partial(_shared_or_none, inp), partial(_decide, inp), _died)
                zygote.submit(key, ob)
                running[key] = ob
            if not running:
                continue
            assert zygote is not None
            done, outcome = zygote.receive()
            assert isinstance(done, tuple)
            running.pop(done)
            if isinstance(outcome, BaseException):
                raise outcome
            if store is not None:
                store.record(outcome)
            yield done, outcome
    finally:
        if zygote is not None:
            zygote.close()


def _decide(inp: ProofInput, base: Shared | None, ob: Obligation) -> ObligationResult:
    return discharge(inp, ob, base)


# a combined verdict is its pieces' worst: a counterexample, then an error, then unknown
_WORST = ("counterexample", "error", "unknown", "proved")
_CONJUNCT_WORST = ("counterexample", "unknown", "proved", "unchanged")


def per_action(results: Sequence[ObligationResult]) -> list[ObligationResult]:
    """The results with those of one action (its cases, its attempts decided again and
    their pieces) combined into one (``combined``), in the place of the first."""
    out: list[ObligationResult] = []
    groups: dict[int, list[ObligationResult]] = {}
    for r in results:
        if r.obligation.kind != "step":
            out.append(r)
            continue
        if r.obligation.index not in groups:
            groups[r.obligation.index] = []
            out.append(r)  # its place, replaced below
        groups[r.obligation.index].append(r)
    return [combined(groups[r.obligation.index]) if r.obligation.kind == "step" else r for r in out]


def _whole_action(ob: Obligation) -> bool:
    return ob.case < 0 and not ob.conjunct


def combined(group: Sequence[ObligationResult]) -> ObligationResult:
    """One action's result from those of its pieces: proved when every final piece (one
    not decided again) is, else the worst verdict (a counterexample's states are its
    piece's); seconds, CPU seconds and resource units summed over every attempt, those
    decided again included; per conjunct, the worst outcome of the final pieces, or what an
    attempt decided again proved of it, and the units every attempt and piece spent on it."""
    if len(group) == 1 and _whole_action(group[0].obligation) and not group[0].split_into:
        return group[0]
    final = [g for g in group if not g.split_into]
    redone = [g for g in group if g.split_into]
    worst = min(final, key=lambda g: _WORST.index(g.verdict))
    conjuncts: dict[str, str] = {}
    for g in redone:
        conjuncts.update((label, v) for label, v in g.conjuncts.items() if v in ("proved", "unchanged"))
    for g in final:
        for label, v in g.conjuncts.items():
            old = conjuncts.get(label, "unchanged")
            conjuncts[label] = min(old, v, key=_CONJUNCT_WORST.index)
    units: dict[str, int] = {}
    for g in group:
        for label, n in g.conjunct_units.items():
            units[label] = units.get(label, 0) + n
    messages = [f"[{_piece_name(g.obligation)}] {g.message}" for g in final if g.message]
    ob = group[0].obligation
    return ObligationResult(
        Obligation(ob.kind, ob.action, ob.index), worst.verdict, sum(g.seconds for g in group),
        worst.states if worst.verdict == "counterexample" else [], worst.failing, worst.engine_action,
        "; ".join(messages), sum(g.cpu_seconds for g in group), conjuncts,
        rlimit_used=sum(g.rlimit_used for g in group), how=_how(group),
        redone_units=sum(g.rlimit_used for g in redone), redone_cpu=sum(g.cpu_seconds for g in redone),
        journaled=all(g.journaled for g in group), conjunct_units=units)


def _piece_name(ob: Obligation) -> str:
    return " ".join(x for x in (ob.label, ob.conjunct) if x)


def _how(group: Sequence[ObligationResult]) -> str:
    """How an action was decided: ``whole``, ``20 cases``, ``whole (unknown) -> 20 cases (2
    unknown) -> 5 conjunct pieces`` (a level's name ends in ``s``, dropped for one)."""
    levels = [("whole", [g for g in group if _whole_action(g.obligation)]),
              ("cases", [g for g in group if g.obligation.case >= 0 and not g.obligation.conjunct]),
              ("conjunct pieces", [g for g in group if g.obligation.conjunct])]
    steps = []
    for name, level in levels:
        if not level:
            continue
        redone = sum(1 for g in level if g.split_into)
        what = name if name == "whole" else f"{len(level)} {name if len(level) > 1 else name[:-1]}"
        if redone:
            what += " (unknown)" if name == "whole" else f" ({redone} unknown)"
        steps.append(what)
    return " -> ".join(steps)


def figures(results: Sequence[ObligationResult]) -> dict[str, float]:
    """Seconds per obligation title (for the benchmark)."""
    return {r.obligation.kind + (":" + r.obligation.action if r.obligation.action else ""): r.seconds
            for r in results}


__all__ = ["Obligation", "ObligationResult", "ProofInput", "combined", "conj", "discharge", "figures",
           "obligations", "per_action", "prove"]
