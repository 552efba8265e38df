"""The bridge between the explorer and the liveness search: evaluates the atoms on the
states and transitions the search reports, builds the behaviour graph, checks every
property conjunct on it after the search, and turns a violating lasso back into
counterexample steps."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace

from conformance.tla import syntax as S
from conformance.tla.checking import TraceStep, label_step
from conformance.tla.liveness.formula import Atom, AtomTable, Normaliser, Obligation, goal_for
from conformance.tla.liveness.graph import STUTTER, BehaviourGraph
from conformance.tla.liveness.lasso import is_fair, violates
from conformance.tla.liveness.search import Fair, Goal, Lasso, find_violation
from conformance.tla.model import Model, State
from conformance.tla.plan import CheckPlan
from conformance.tla.syntax import TlaError
from conformance.tla.values import Value, format_value

MESSAGE = "Temporal properties were violated."


@dataclass(frozen=True)
class Violation:
    """A property conjunct and the lasso (graph nodes) of a fair behaviour violating it."""

    obligation: Obligation
    lasso: Lasso


class _Evaluator:
    """The atoms of a table compiled on a model: state bits and edge bits.

    Fairness of the whole next-state action (``WF_v(Next)`` with the spec's own ``Next``)
    is read off the transitions instead of evaluating ``Next`` again: every transition
    is a ``Next`` step, so ``<<Next>>_v`` is "``v`` changes" and ``ENABLED <<Next>>_v``
    is "some successor changes ``v``" (given the successors; exact when no
    ACTION_CONSTRAINT hides successors)."""

    def __init__(self, model: Model, table: AtomTable, plan: CheckPlan) -> None:
        self.model = model
        self.own_next = not plan.action_constraints and isinstance(plan.next, str)
        self.next_name = plan.next if isinstance(plan.next, str) else None
        self.state_fns = [self._compile(a) for a in table.state]
        self.edge_fns = [self._compile(a) for a in table.edge]
        self.enabled_subs = [self._next_sub(a) if a.kind == "enabled" else None for a in table.state]

    def _next_sub(self, atom: Atom) -> Callable[[State], Value] | None:
        """The subscript's function when ``atom`` is about the spec's own next-state action."""
        e = atom.expr
        if (self.own_next and not atom.env and atom.sub is not None and isinstance(e, (S.Name, S.OpApp))
                and e.name == self.next_name and not (isinstance(e, S.OpApp) and e.args)):
            fn, _ = self.model.bound_function(atom.sub)
            return lambda s: fn(s, None, ())
        return None

    def _compile(self, atom: Atom) -> Callable[[State, State | None], bool]:
        expr = atom.expr
        if atom.kind == "step":
            sub = self._next_sub(atom)
            if sub is not None:
                return lambda s, t: t is not None and sub(s) != sub(t)
        if atom.kind == "enabled":
            assert atom.sub is not None
            expr = S.Temporal(expr.loc, "ENABLED", (S.ActionBox(expr.loc, atom.expr, atom.sub, False),))
        elif atom.kind in ("step", "not_box"):
            assert atom.sub is not None
            expr = S.ActionBox(expr.loc, atom.expr, atom.sub, atom.kind == "not_box")
        fn, _ = self.model.bound_function(expr, [n for n, _ in atom.env])
        env = tuple(v for _, v in atom.env)
        negate = atom.kind == "not_box"
        loc = atom.expr.loc

        def evaluate(s: State, t: State | None) -> bool:
            v: Value = fn(s, t, env)
            if type(v) is not bool:
                raise TlaError(f"a temporal property or fairness condition evaluated to {format_value(v)}, "
                               "not a boolean", loc)
            return v is not negate

        return evaluate

    def state_bits(self, s: State, successors: Sequence[State] | None = None) -> int:
        """The state atoms of ``s``; ``successors`` (all of them), when known, spare
        evaluating ``ENABLED`` of the spec's own next-state action."""
        bits = 0
        for i, fn in enumerate(self.state_fns):
            sub = self.enabled_subs[i]
            if sub is not None and successors is not None:
                here = sub(s)
                hit = any(sub(t) != here for t in successors)
            else:
                hit = fn(s, None)
            if hit:
                bits |= 1 << i
        return bits

    def edge_bits(self, s: State, t: State) -> int:
        bits = 0
        for i, fn in enumerate(self.edge_fns):
            if fn(s, t):
                bits |= 1 << i
        return bits


class LivenessRecorder:
    """Records the explored graph for the liveness properties of a plan and checks them.

    The explorer calls ``initial`` for each initial state and ``expanded`` for each state
    it expands (those satisfying the CONSTRAINTs) with its successors that satisfy the
    ACTION_CONSTRAINTs; only expanded states become nodes, so transitions into states
    outside the CONSTRAINTs are not part of any behaviour, as in TLC.
    """

    def __init__(self, model: Model, plan: CheckPlan, identity: Callable[[State], int],
                 allowed: Callable[[State, State], bool]) -> None:
        self.model = model
        self.plan = plan
        self.identity = identity
        self.allowed = allowed
        norm = Normaliser(model)
        self.table = AtomTable()
        self.fairness: list[Fair] = []
        for f in plan.fairness:
            self.fairness.extend(norm.fairness(f, self.table))
        self.obligations: list[Obligation] = []
        for name, expr in plan.liveness:
            self.obligations.extend(norm.obligations(name, expr))
        self.goals: list[Goal] = [self._goal(o) for o in self.obligations]
        # per obligation: the specification's fairness and the one its F => G assumes
        self.fair_of: list[list[Fair]] = [self.fairness + [f.constraint(self.table) for f in o.fair]
                                          for o in self.obligations]
        self.eval = _Evaluator(model, self.table, plan)
        self.graph = BehaviourGraph()
        self.node_of: dict[int, int] = {}
        self.states: list[State] = []
        self._initial: list[int] = []
        self._edges: list[tuple[int, int, int]] = []

    def _goal(self, o: Obligation) -> Goal:
        goal = goal_for(o.form, *(self.table.bit(a) for a in o.atoms))
        if o.start is None:
            return goal
        k = self.table.bit(o.start)
        return replace(goal, start=lambda b: bool(b >> k & 1))

    # recording -----------------------------------------------------------------------------

    def initial(self, fp: int) -> None:
        self._initial.append(fp)

    def expanded(self, fp: int, state: State, successors: Sequence[tuple[int, State]]) -> None:
        if fp in self.node_of:
            return
        node = self.graph.add_node(self.eval.state_bits(state, [succ for _, succ in successors]))
        self.node_of[fp] = node
        self.states.append(state)
        edge_bits = self.eval.edge_bits
        for succ_fp, succ in successors:
            self._edges.append((node, succ_fp, edge_bits(state, succ)))

    def _finish(self) -> None:
        node_of = self.node_of
        for src, dst_fp, bits in self._edges:
            dst = node_of.get(dst_fp)
            if dst is not None:
                self.graph.add_edge(src, dst, bits)
        self._edges = []
        self.graph.initial = sorted({node_of[fp] for fp in self._initial if fp in node_of})

    def lasso_violation(self, states: Sequence[int], edges: Sequence[int], loop: int) -> Obligation | None:
        """The first property conjunct the given lasso violates, when it is fair (bits as in
        ``lasso.is_fair``)."""
        for obligation, goal, fairness in zip(self.obligations, self.goals, self.fair_of, strict=True):
            if is_fair(states, edges, loop, fairness) and violates(states, edges, loop, goal):
                return obligation
        return None

    # checking -------------------------------------------------------------------------------

    def check(self) -> Violation | None:
        """The first property conjunct (in cfg order) some fair behaviour violates."""
        self._finish()
        for obligation, goal, fairness in zip(self.obligations, self.goals, self.fair_of, strict=True):
            lasso = find_violation(self.graph, goal, fairness)
            if lasso is not None:
                return Violation(obligation, lasso)
        return None

    def trace(self, lasso: Lasso) -> list[TraceStep]:
        """The counterexample steps of ``lasso``; the last one returns to step ``lasso.loop``."""
        first = lasso.steps[0][0]
        steps = [TraceStep("Init", (), None, self.states[first])]
        prev = first
        fps = {node: fp for fp, node in self.node_of.items()}
        for node, bits in lasso.steps[1:]:
            steps.append(self._step(prev, node, bits, fps[node]))
            prev = node
        return steps

    def _step(self, src: int, dst: int, bits: int, dst_fp: int) -> TraceStep:
        s = self.states[src]
        if src == dst and bits == STUTTER:
            return TraceStep("Stuttering", (), None, s)
        for label, succ in self.model.successors(s, self.plan.next):
            if self.identity(succ) == dst_fp and self.allowed(s, succ) and self.eval.edge_bits(s, succ) == bits:
                return label_step(label, self.states[dst])
        raise TlaError("internal error: cannot replay a step of the liveness counterexample")


def liveness_recorder(model: Model, plan: CheckPlan, identity: Callable[[State], int],
                      allowed: Callable[[State, State], bool]) -> LivenessRecorder | None:
    """A recorder for the plan's liveness properties, or None when it has none."""
    if not plan.liveness:
        return None
    return LivenessRecorder(model, plan, identity, allowed)
