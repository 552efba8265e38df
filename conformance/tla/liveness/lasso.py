"""The verdict on one given behaviour in lasso form (random simulation finds these):
states ``s_0 .. s_k``, then back to ``s_loop`` forever."""

from __future__ import annotations

from collections.abc import Sequence

from conformance.tla.liveness.search import Fair, Goal


def is_fair(states: Sequence[int], edges: Sequence[int], loop: int, fairness: Sequence[Fair]) -> bool:
    """Whether the lasso satisfies every fairness constraint. ``states[i]`` are the
    state-atom bits of ``s_i``; ``edges[i]`` the edge-atom bits of the step leaving
    ``s_i`` (the last one returns to ``s_loop``)."""
    cycle_states, cycle_edges = states[loop:], edges[loop:]
    for f in fairness:
        if any(b >> f.taken & 1 for b in cycle_edges):
            continue
        disabled = [not b >> f.enabled & 1 for b in cycle_states]
        if not (all(disabled) if f.strong else any(disabled)):
            return False
    return True


def violates(states: Sequence[int], edges: Sequence[int], loop: int, goal: Goal) -> bool:
    """Whether the lasso (as in ``is_fair``) violates the property ``goal`` describes."""
    assert len(states) == len(edges) and 0 <= loop < len(states)
    if goal.start is not None and not goal.start(states[0]):
        return False
    cycle_states, cycle_edges = states[loop:], edges[loop:]
    if goal.cycle_edge is not None and not all(goal.cycle_edge(b) for b in cycle_edges):
        return False
    if goal.visit_state is not None and not any(goal.visit_state(b) for b in cycle_states):
        return False
    if goal.visit_edge is not None and not any(goal.visit_edge(b) for b in cycle_edges):
        return False
    stay = goal.stay
    if stay is not None and not all(stay(b) for b in cycle_states):
        return False
    path = goal.path_edge
    if path is not None and not all(path(b) for b in cycle_edges):
        return False
    # a trigger at position j needs every later position (the whole cycle included) in
    # ``stay``, and every later step accepted by ``path_edge``
    for j in range(len(states) - 1, -1, -1):
        if stay is not None and not stay(states[j]):
            return False
        if path is not None and not path(edges[j]):
            return False
        if goal.trigger(states[j]) and (j == 0 or not goal.initial_only):
            return True
    return False
