"""Bounded model checking from ``Init``: ``check --symbolic --length K``.

One incremental z3 solver: the path ``Init(s0) /\\ Next(s0, s1) /\\ ... `` grows by one
transition per depth (states failing a CONSTRAINT have no successors, transitions must
pass the ACTION_CONSTRAINTs), and at each depth one call asks for a state violating an
INVARIANT or a step violating a ``[][A]_v`` PROPERTY. The first depth with an answer
gives a shortest counterexample within the bounds; it is replayed on the explicit engine
(``replay``) before it is reported. A depth without an answer proves the invariants hold at
that depth on every path; they are then added as facts about that state, which prunes the
deeper searches without removing a path (as in k-induction's strengthened BMC). An interval whose ends depend on the state holds at
most ``seq_bound + 1`` integers, an exponent that does is below that, on the paths searched
(``Translator.interval_bound``). ``time_limit`` (seconds) and ``rlimit`` (z3 resource
units, which do not depend on the machine's load) bound the whole search: past either the
verdict is ``limit``, naming the depth reached.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field

import z3

from conformance.symbolic.aligned import aligned_state
from conformance.symbolic.budget import Budget
from conformance.symbolic.counterexample import decode_state
from conformance.symbolic.encoding import disj
from conformance.symbolic.replay import ReplayError, replay
from conformance.symbolic.shapes import (
    Bounds,
    SymbolicState,
    atom_range,
    fresh_state,
    sample_state,
    state_shapes,
)
from conformance.symbolic.split import split_action
from conformance.symbolic.translate import StatePair, Translator
from conformance.tla import syntax as S
from conformance.tla.checking import CheckResult
from conformance.tla.model import Model, State
from conformance.tla.plan import CheckPlan


@dataclass
class DepthFigure:
    depth: int
    seconds: float
    verdict: str  # sat | unsat | unknown
    units: int = 0  # z3 resource units of the call


@dataclass
class BmcOutcome:
    result: CheckResult
    figures: list[DepthFigure] = field(default_factory=list)


def bmc(model: Model, plan: CheckPlan, length: int, bounds: Bounds, time_limit: float | None = None,
        log: Callable[[str], None] | None = None, rlimit: int = 0, witness: bool = True,
        growth: int = 0, boolean_counts: bool = True) -> BmcOutcome:
    """Search counterexamples of at most ``length`` steps within ``time_limit`` seconds and
    ``rlimit`` z3 resource units (0: no limit) in all; ``result.verdict`` is violation, ok
    (none within the bounds), limit (solver gave up or a limit was reached) or error (not
    replayable). With ``witness``, each step translates an action's ``\\E x \\in S`` over a
    set of the state with one witness of its own (``witness.py``), else as a disjunction
    over the slots of ``S``. With ``growth`` > 0, each state's sets keep the slots of the
    state before (``aligned.py``) and gain ``growth`` fresh ones: the initial state's sets
    hold at most their ``bounds``, and a step adds at most ``growth`` elements to each set
    (no bound on the size of a later state); 0: every state's sets are fresh, of at most
    their ``bounds``. ``boolean_counts``: comparisons of counts as formulas over the
    counted conditions (``counting.py``), else as arithmetic. (z3 parameters: call it
    within ``budget.z3_params_set``.)"""
    started = time.monotonic()
    budget = Budget(time_limit if time_limit is not None else float("inf"), rlimit)
    tr = Translator(model, interval_bound=bounds.seq_bound + 1, boolean_counts=boolean_counts)
    shapes = state_shapes(model, sample_state(model, plan.init), bounds)
    disjuncts = split_action(tr, plan.next) if isinstance(plan.next, str) else None
    atom_terms: list[z3.ArithRef] = []
    solver = z3.Solver()
    states: list[SymbolicState] = [fresh_state(shapes, "s0", atom_terms)]
    solver.add(states[0].wellformed)
    solver.add(tr.formula(plan.init, StatePair(states[0].values)))
    solver.add(tr.take_assumptions())
    figures: list[DepthFigure] = []
    variables = model.variables
    outcome = BmcOutcome(CheckResult("ok", variables), figures)
    for depth in range(length + 1):
        cur = states[-1]
        bad = [z3.Not(tr.formula(inv, StatePair(cur.values))) for _, inv in plan.invariants]
        if depth > 0:
            pair = StatePair(states[-2].values, cur.values)
            for prop in plan.action_properties:
                bad.append(z3.Not(tr.formula(S.ActionBox(prop.action.loc, prop.action, prop.sub, True), pair)))
        solver.add(tr.take_assumptions())  # they bound the states searched, not the query
        violated = disj(bad)
        solver.push()
        solver.add(violated)
        solver.add(atom_range(atom_terms, tr.atoms))
        if budget.exhausted():
            solver.pop()
            outcome.result = _limit(variables, depth, started, _which(budget))
            return outcome
        t0 = time.monotonic()
        before = budget.used
        answer, why = budget.check(solver, budget.seconds_left())
        figures.append(DepthFigure(depth, time.monotonic() - t0, str(answer), budget.used - before))
        if log is not None:
            log(f"depth {depth}: {answer} in {figures[-1].seconds:.2f}s ({figures[-1].units} units)")
        if answer == z3.sat:
            m = solver.model()
            trace_states: list[State] = [decode_state(s.values, variables, m, tr.atoms) for s in states]
            solver.pop()
            outcome.result = _replayed(model, plan, trace_states, depth, started)
            return outcome
        solver.pop()
        if answer == z3.unknown:
            outcome.result = _limit(variables, depth, started, why)
            return outcome
        # unsat: every path of this length satisfies the invariants at its end (and the
        # [][A]_v properties on its last step); stated, it prunes the deeper searches and
        # removes no path
        solver.add(z3.Not(violated))
        if depth == length:
            break
        nxt = fresh_state(shapes, f"s{depth + 1}", atom_terms)
        if growth > 0:
            nxt = aligned_state(cur, nxt, variables, f"s{depth + 1}", growth)
        pair = StatePair(cur.values, nxt.values)
        solver.add(nxt.wellformed)
        for c in plan.constraints:
            solver.add(tr.formula(c, StatePair(cur.values)))
        for c in plan.action_constraints:
            solver.add(tr.formula(c, pair))
        tr.witnesses = {} if witness else None  # this step's own choices
        if disjuncts is not None:
            solver.add(disj([d.formula(tr, pair) for d in disjuncts]))
        else:
            solver.add(tr.formula(plan.next, pair))
        solver.add(tr.take_assumptions())
        states.append(nxt)
    outcome.result = CheckResult("ok", variables, depth=length + 1, seconds=time.monotonic() - started,
                                 message=f"no counterexample of at most {length} steps")
    return outcome


def _which(budget: Budget) -> str:
    units = budget.units_left()
    return "resource limit" if units is not None and units <= 0 else "time limit"


def _limit(variables: tuple[str, ...], depth: int, started: float, why: str = "time limit") -> CheckResult:
    return CheckResult("limit", variables, depth=depth, seconds=time.monotonic() - started,
                       message=f"the solver gave up at depth {depth} ({why})")


def _replayed(model: Model, plan: CheckPlan, states: list[State], depth: int, started: float) -> CheckResult:
    try:
        steps, prop, message = replay(model, plan, states)
    except ReplayError as exc:
        return CheckResult("error", model.variables, depth=depth,
                           seconds=time.monotonic() - started,
                           message=f"internal error: the explicit engine cannot replay the symbolic "
                           f"counterexample of depth {depth}: {exc} (a bug of the symbolic translation)")
    return CheckResult("violation", model.variables, property=prop, message=message, depth=len(states),
                       seconds=time.monotonic() - started, trace=steps)
