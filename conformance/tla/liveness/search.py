"""Whether some fair behaviour of a ``BehaviourGraph`` violates a goal, and the lasso
that shows it.

A *goal* describes the violating behaviours of one property conjunct, starting in a state
``start`` accepts (when given: ``P => G``): a *trigger* state
(an initial one only, for ``<>P``), from which the behaviour stays forever in the
states ``stay`` accepts and takes only edges ``path_edge`` accepts, ends in a cycle whose
edges ``cycle_edge`` accepts and which visits a state ``visit_state`` accepts and an edge
``visit_edge`` accepts (when given).

Fairness is decided on strongly connected components, as TLC does: a component
satisfies ``WF_v(A)`` when it holds a state where ``<<A>>_v`` is disabled or an
``<<A>>_v`` edge, and ``SF_v(A)`` when it holds an ``<<A>>_v`` edge or ``<<A>>_v`` is
disabled on all its states. A component failing a weak constraint (or a visit) has no
fair cycle, since its sub-cycles only see less; one failing a strong constraint may
still have one that avoids the states where the action is enabled: those states are
removed and the rest is split into components again.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace

from conformance.tla.liveness.graph import (
    STUTTER,
    BehaviourGraph,
    EdgePred,
    backward_reach,
    bfs_path,
    components,
)

StatePred = Callable[[int], bool]
"""A condition on the atom bits of a state."""


@dataclass(frozen=True)
class Fair:
    """``WF_v(A)`` (strong=False) or ``SF_v(A)``: bit ``enabled`` of the state atoms is
    ``ENABLED <<A>>_v``, bit ``taken`` of the edge atoms is ``<<A>>_v``."""

    strong: bool
    enabled: int
    taken: int


@dataclass(frozen=True)
class Goal:
    """The shape of the behaviours that violate one property conjunct (module docstring)."""

    trigger: StatePred
    initial_only: bool = False
    stay: StatePred | None = None
    path_edge: EdgePred | None = None
    cycle_edge: EdgePred | None = None
    visit_state: StatePred | None = None
    visit_edge: EdgePred | None = None
    # only behaviours whose first state it accepts (``P => G``, P a state predicate)
    start: StatePred | None = None


@dataclass(frozen=True)
class Lasso:
    """A behaviour: ``steps`` are ``(node, bits of the edge into it)``; the last step
    returns to the node of ``steps[loop]`` and the behaviour repeats from there."""

    steps: list[tuple[int, int]]
    loop: int


_Edge = tuple[int, int, int]  # source, destination, bits


class _Component:
    """A set of nodes of a subgraph, with its internal edges (stuttering loops included)."""

    def __init__(self, graph: BehaviourGraph, nodes: set[int], keep: EdgePred | None) -> None:
        self.nodes = nodes
        self.edges: list[_Edge] = [(v, d, b) for v in sorted(nodes) for d, b in graph.edges(v, nodes, keep)]
        union = 0
        for _, _, b in self.edges:
            union |= b
        self.union = union


def _verdict(graph: BehaviourGraph, comp: _Component, goal: Goal, fairness: Sequence[Fair]
             ) -> bool | set[int]:
    """True: the component has a fair violating cycle through all its nodes; False: it
    has none; a set: the nodes to remove before looking again."""
    bits = graph.state_bits
    if goal.visit_state is not None and not any(goal.visit_state(bits[v]) for v in comp.nodes):
        return False
    if goal.visit_edge is not None and not any(goal.visit_edge(b) for _, _, b in comp.edges):
        return False
    drop: set[int] = set()
    for f in fairness:
        if comp.union >> f.taken & 1:
            continue
        enabled = {v for v in comp.nodes if bits[v] >> f.enabled & 1}
        if not f.strong:
            if len(enabled) == len(comp.nodes):
                return False
        elif enabled:
            drop |= enabled
    return drop or True


def fair_components(graph: BehaviourGraph, nodes: set[int], goal: Goal, fairness: Sequence[Fair]
                    ) -> list[_Component]:
    """The node sets inside ``nodes`` on which a fair cycle can visit every node (and
    every internal edge) and meet the goal's cycle conditions."""
    out: list[_Component] = []
    pending = [nodes]
    while pending:
        part = pending.pop()
        for members in components(graph, part, goal.cycle_edge):
            comp = _Component(graph, set(members), goal.cycle_edge)
            verdict = _verdict(graph, comp, goal, fairness)
            if verdict is True:
                out.append(comp)
            elif verdict is not False:
                rest = comp.nodes - verdict
                if rest:
                    pending.append(rest)
    return out


def _cycle(graph: BehaviourGraph, comp: _Component, start: int, goal: Goal, fairness: Sequence[Fair]
           ) -> list[tuple[int, int]]:
    """A closed walk from ``start`` inside ``comp`` meeting the goal's visits and every
    fairness constraint: the steps after ``start``, the last one entering ``start``."""
    bits = graph.state_bits
    nodes_to_visit: list[int] = []
    edges_to_take: list[_Edge] = []
    if goal.visit_state is not None:
        nodes_to_visit.append(next(v for v in sorted(comp.nodes) if goal.visit_state(bits[v])))
    if goal.visit_edge is not None:
        edges_to_take.append(next(e for e in comp.edges if goal.visit_edge(e[2])))
    for f in fairness:
        taken = [e for e in comp.edges if e[2] >> f.taken & 1]
        if taken:
            edges_to_take.append(taken[0])
        elif not f.strong:
            nodes_to_visit.append(next(v for v in sorted(comp.nodes) if not bits[v] >> f.enabled & 1))
    walk: list[tuple[int, int]] = []
    cur = start
    keep = goal.cycle_edge

    def go(target: int) -> None:
        nonlocal cur
        path = bfs_path(graph, [cur], lambda v: v == target, comp.nodes, keep)
        assert path is not None, "a strongly connected component is connected"
        walk.extend(path[1:])
        cur = target

    for v in nodes_to_visit:
        go(v)
    for src, dst, b in edges_to_take:
        go(src)
        walk.append((dst, b))
        cur = dst
    go(start)
    if not walk:
        walk.append((start, STUTTER))
    return walk


def find_violation(graph: BehaviourGraph, goal: Goal, fairness: Sequence[Fair]) -> Lasso | None:
    """A fair behaviour of ``graph`` that violates ``goal``, as a lasso with a shortest
    prefix to its trigger, or None when every fair behaviour satisfies the property."""
    path = goal.path_edge
    if path is not None:  # the cycle's steps come after the trigger too
        cycle = goal.cycle_edge
        goal = replace(goal, cycle_edge=path if cycle is None else lambda b: cycle(b) and path(b))
    bits = graph.state_bits
    everything = range(len(graph))
    stay = set(everything) if goal.stay is None else {v for v in everything if goal.stay(bits[v])}
    first = graph.initial if goal.start is None else [v for v in graph.initial if goal.start(bits[v])]
    starts = first if goal.initial_only else _forward(graph, set(first), set(everything))
    triggers = {v for v in starts if v in stay and goal.trigger(bits[v])}
    if not triggers:
        return None
    reach = _forward(graph, triggers, stay, path)
    accepted: dict[int, _Component] = {}
    for comp in fair_components(graph, reach, goal, fairness):
        for v in comp.nodes:
            accepted[v] = comp
    if not accepted:
        return None
    leads = backward_reach(graph, accepted.keys(), stay, path) & triggers
    prefix = bfs_path(graph, first, lambda v: v in leads, everything)
    assert prefix is not None, "the triggers are reachable"
    middle = bfs_path(graph, [prefix[-1][0]], lambda v: v in accepted, stay, path)
    assert middle is not None
    steps = prefix + middle[1:]
    start = steps[-1][0]
    return Lasso(steps + _cycle(graph, accepted[start], start, goal, fairness), len(steps) - 1)


def _forward(graph: BehaviourGraph, sources: set[int], within: set[int], keep: EdgePred | None = None) -> set[int]:
    seen = set(sources)
    stack = list(sources)
    while stack:
        v = stack.pop()
        for d, bits in graph.succ[v]:
            if d in within and d not in seen and (keep is None or keep(bits)):
                seen.add(d)
                stack.append(d)
    return seen
