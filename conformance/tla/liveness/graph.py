"""The behaviour graph that liveness is checked on.

Nodes are numbered 0..n-1. Each node carries a bit set of *state atoms* (which state
predicates and ENABLED conditions hold there); each edge carries a bit set of *edge
atoms* (which action steps it is). Every node also has an implicit stuttering self-loop
whose edge atoms are all false (a stuttering step leaves every subscript unchanged, so
it is never an ``<<A>>_v`` step): a behaviour may stutter forever at any state unless
fairness rules it out.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Collection, Iterable, Iterator
from dataclasses import dataclass, field

EdgePred = Callable[[int], bool]
"""A condition on the atom bits of an edge."""

STUTTER = 0
"""The atom bits of a stuttering step."""


@dataclass
class BehaviourGraph:
    """Nodes with state-atom bits, initial nodes, and labelled edges (``succ[n]`` holds
    ``(destination, edge bits)`` pairs, without duplicates)."""

    state_bits: list[int] = field(default_factory=list)
    succ: list[list[tuple[int, int]]] = field(default_factory=list)
    initial: list[int] = field(default_factory=list)

    def add_node(self, bits: int) -> int:
        self.state_bits.append(bits)
        self.succ.append([])
        return len(self.state_bits) - 1

    def add_edge(self, src: int, dst: int, bits: int) -> None:
        edges = self.succ[src]
        if (dst, bits) not in edges:
            edges.append((dst, bits))

    def __len__(self) -> int:
        return len(self.state_bits)

    def edges(self, node: int, within: Collection[int], keep: EdgePred | None = None
              ) -> Iterator[tuple[int, int]]:
        """The edges of ``node`` into ``within`` that ``keep`` accepts, its stuttering
        self-loop included (when ``node`` is in ``within``)."""
        if node in within and (keep is None or keep(STUTTER)):
            yield node, STUTTER
        for dst, bits in self.succ[node]:
            if dst in within and (keep is None or keep(bits)):
                yield dst, bits


def components(graph: BehaviourGraph, nodes: Collection[int], keep: EdgePred | None = None
               ) -> list[list[int]]:
    """The strongly connected components of the subgraph induced by ``nodes`` (edges
    accepted by ``keep``), by Tarjan's algorithm without recursion. With the stuttering
    loops every component, even a single node, has a cycle."""
    index: dict[int, int] = {}
    low: dict[int, int] = {}
    on_stack: set[int] = set()
    stack: list[int] = []
    out: list[list[int]] = []
    counter = 0
    for root in sorted(nodes):
        if root in index:
            continue
        work: list[tuple[int, Iterator[int]]] = []
        entering: int | None = root
        while entering is not None or work:
            if entering is not None:
                v = entering
                entering = None
                index[v] = low[v] = counter
                counter += 1
                stack.append(v)
                on_stack.add(v)
                work.append((v, (d for d, _ in graph.edges(v, nodes, keep) if d != v)))
            v, it = work[-1]
            advanced = False
            for w in it:
                if w not in index:
                    entering = w
                    advanced = True
                    break
                if w in on_stack:
                    low[v] = min(low[v], index[w])
            if advanced:
                continue
            work.pop()
            if work:
                parent = work[-1][0]
                low[parent] = min(low[parent], low[v])
            if low[v] == index[v]:
                comp: list[int] = []
                while True:
                    w = stack.pop()
                    on_stack.discard(w)
                    comp.append(w)
                    if w == v:
                        break
                out.append(comp)
    return out


def bfs_path(graph: BehaviourGraph, sources: Iterable[int], targets: Callable[[int], bool],
             within: Collection[int], keep: EdgePred | None = None) -> list[tuple[int, int]] | None:
    """A shortest path from one of ``sources`` to a node satisfying ``targets``, staying in
    ``within``: a list of ``(node, bits of the edge into it)``, the source first (its bits
    are ``STUTTER``), or None."""
    parent: dict[int, tuple[int, int] | None] = {}
    queue: deque[int] = deque()
    for s in sources:
        if s in within and s not in parent:
            parent[s] = None
            queue.append(s)
    while queue:
        v = queue.popleft()
        if targets(v):
            path: list[tuple[int, int]] = []
            cur: int | None = v
            bits = STUTTER
            while cur is not None:
                link = parent[cur]
                path.append((cur, link[1] if link is not None else STUTTER))
                cur = link[0] if link is not None else None
            path.reverse()
            return path
        for dst, bits in graph.edges(v, within, keep):
            if dst not in parent:
                parent[dst] = (v, bits)
                queue.append(dst)
    return None


def backward_reach(graph: BehaviourGraph, targets: Collection[int], within: Collection[int],
                   keep: EdgePred | None = None) -> set[int]:
    """The nodes of ``within`` from which some node of ``targets`` is reachable inside
    ``within`` (over edges ``keep`` accepts)."""
    preds: dict[int, list[int]] = {}
    for v in within:
        for dst, bits in graph.succ[v]:
            if dst in within and dst != v and (keep is None or keep(bits)):
                preds.setdefault(dst, []).append(v)
    seen = {t for t in targets if t in within}
    queue = deque(seen)
    while queue:
        v = queue.popleft()
        for p in preds.get(v, ()):
            if p not in seen:
                seen.add(p)
                queue.append(p)
    return seen
