"""The bundled Graphs module: each operator against values worked out by hand, and the
operators against a small Python implementation on random directed graphs."""

from __future__ import annotations

import re
import subprocess
import sys
from itertools import product
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from conformance.tla.loader import ModuleLoader
from conformance.tla.model import Model
from conformance.tla.parser import parse_module_text
from conformance.tla.syntax import UnsupportedError


@pytest.fixture(scope="module")
def model() -> Model:
    return Model(parse_module_text(
        "---- MODULE T ----\nEXTENDS Naturals, FiniteSets, Graphs\n"
        "Chain == [node |-> {1, 2, 3}, edge |-> {<<1, 2>>, <<2, 3>>}]\n"
        "Ring == [node |-> {1, 2, 3}, edge |-> {<<1, 2>>, <<2, 3>>, <<3, 1>>}]\n"
        "Loop == [node |-> {1, 2}, edge |-> {<<1, 1>>}]\n"
        "Sym == [node |-> {1, 2, 3}, edge |-> {<<1, 2>>, <<2, 1>>}]\n"
        "Tree == [node |-> {\"r\", \"a\", \"b\", \"c\"}, edge |-> {<<\"a\", \"r\">>, <<\"b\", \"a\">>, <<\"c\", \"a\">>}]\n"
        "Six == [node |-> 1..6, edge |-> {<<1, 2>>, <<2, 3>>, <<2, 4>>, <<3, 2>>, <<3, 4>>, <<3, 5>>,\n"
        "                                  <<4, 2>>, <<5, 6>>, <<6, 5>>}]\n"
        "====\n", "T.tla"), ModuleLoader([]))


CASES = [
    ("IsDirectedGraph(Chain)", "TRUE"),
    ("IsDirectedGraph([node |-> {1}, edge |-> {<<1, 2>>}])", "FALSE"),
    ("IsDirectedGraph([node |-> {1}, edge |-> {}, extra |-> 0])", "FALSE"),
    ("IsDirectedGraph(EmptyGraph)", "TRUE"),
    ("Cardinality(DirectedSubgraph(Chain))", "13"),  # node sets: 1 + 3 + 2 + 2 + 1 + 4 edge choices
    ("DirectedSubgraph([node |-> {1}, edge |-> {<<1, 1>>}])",
     "{[node |-> {}, edge |-> {}], [node |-> {1}, edge |-> {}], [node |-> {1}, edge |-> {<<1, 1>>}]}"),
    ("Transpose(Chain)", "[node |-> {1, 2, 3}, edge |-> {<<2, 1>>, <<3, 2>>}]"),
    ("Transpose(Loop)", "Loop"),
    ("IsUndirectedGraph(Sym)", "TRUE"),
    ("IsUndirectedGraph(Chain)", "FALSE"),
    ("IsUndirectedGraph(Loop)", "TRUE"),
    ("Cardinality(UndirectedSubgraph([node |-> {1, 2}, edge |-> {<<1, 2>>, <<2, 1>>}]))", "5"),
    # Path: membership only
    ("<<1, 2, 3, 1, 2>> \\in Path(Ring)", "TRUE"),
    ("<<1, 3>> \\in Path(Ring)", "FALSE"),
    ("<<>> \\in Path(Ring)", "FALSE"),
    ("<<2>> \\in Path(Chain)", "TRUE"),
    ("<<4>> \\in Path(Chain)", "FALSE"),
    ("<<1, 1, 1>> \\in Path(Loop)", "TRUE"),
    # the module's own examples for SimplePath
    ("SimplePath([edge |-> {}, node |-> {}])", "{}"),
    ("SimplePath([edge |-> {}, node |-> {1, 2, 3}])", "{<<1>>, <<2>>, <<3>>}"),
    ("SimplePath(Chain)", "{<<1>>, <<2>>, <<3>>, <<1, 2>>, <<2, 3>>, <<1, 2, 3>>}"),
    ("SimplePath(Loop)", "{<<1>>, <<2>>}"),
    ("Cardinality(SimplePath(Ring))", "9"),  # 3 of each length 1, 2, 3
    ("AreConnectedIn(1, 3, Chain)", "TRUE"),
    ("AreConnectedIn(3, 1, Chain)", "FALSE"),
    ("AreConnectedIn(3, 1, Ring)", "TRUE"),
    ("AreConnectedIn(2, 2, Loop)", "TRUE"),
    ("AreConnectedIn(4, 4, Chain)", "FALSE"),
    ("AreConnectedIn(1, 4, [node |-> {1}, edge |-> {<<1, 4>>}])", "FALSE"),
    ("ConnectionsIn(Chain)", "[p \\in {1, 2, 3} \\X {1, 2, 3} |-> p[1] <= p[2]]"),
    ("ConnectionsIn(EmptyGraph)", "<<>>"),
    ("\\A m, n \\in Six.node : AreConnectedIn(m, n, Six) <=> ConnectionsIn(Six)[m, n]", "TRUE"),
    ("{n \\in Six.node : ConnectionsIn(Six)[n, 5]}", "1..6"),
    ("{n \\in Six.node : ConnectionsIn(Six)[5, n]}", "{5, 6}"),
    ("IsStronglyConnected(Ring)", "TRUE"),
    ("IsStronglyConnected(Chain)", "FALSE"),
    ("IsStronglyConnected(EmptyGraph)", "TRUE"),
    ("IsStronglyConnected([node |-> {7}, edge |-> {}])", "TRUE"),
    # trees: edges from a child to its parent
    ("IsTreeWithRoot(Tree, \"r\")", "TRUE"),
    ("IsTreeWithRoot(Transpose(Tree), \"r\")", "FALSE"),
    ("IsTreeWithRoot([node |-> {\"r\"}, edge |-> {}], \"r\")", "TRUE"),
    ("IsTreeWithRoot([node |-> {\"r\", \"a\"}, edge |-> {}], \"r\")", "FALSE"),  # disconnected
    ("IsTreeWithRoot([node |-> {\"r\", \"a\", \"b\"}, edge |-> {<<\"a\", \"r\">>, <<\"a\", \"b\">>, <<\"b\", \"r\">>}], \"r\")",
     "FALSE"),  # two parents for a
    ("IsTreeWithRoot([node |-> {\"r\", \"a\"}, edge |-> {<<\"a\", \"r\">>, <<\"r\", \"a\">>}], \"r\")", "FALSE"),
    ("IsTreeWithRoot(Chain, 3)", "TRUE"),
    ("IsTreeWithRoot(Chain, 1)", "FALSE"),
    # the other operators
    ("GraphUnion([node |-> {1, 2}, edge |-> {<<1, 2>>}], [node |-> {2, 3}, edge |-> {<<2, 3>>}])", "Chain"),
    ("IsBipartiteWithPartitions([node |-> 1..4, edge |-> {<<1, 2>>, <<2, 3>>, <<3, 4>>}], {1, 3}, {2, 4})",
     "TRUE"),
    ("IsBipartiteWithPartitions(Ring, {1, 3}, {2})", "FALSE"),
    ("<<HasCycle(Chain), HasCycle(Ring), HasCycle(Loop), HasCycle(Sym)>>", "<<FALSE, TRUE, TRUE, TRUE>>"),
    ("<<IsDag(Chain), IsDag(Ring), IsDag(EmptyGraph)>>", "<<TRUE, FALSE, TRUE>>"),
    ("Successors([node |-> {1, 2, 3}, edge |-> {<<1, 2>>, <<1, 3>>}], 1)", "{2, 3}"),
    ("AllSuccessors([node |-> {1, 2, 3}, edge |-> {<<1, 2>>, <<1, 3>>}], {1, 2})", "{2, 3}"),
    ("Predecessors([node |-> {1, 2, 3}, edge |-> {<<2, 1>>, <<3, 1>>}], 1)", "{2, 3}"),
    ("AllPredecessors([node |-> {1, 2, 3}, edge |-> {<<2, 1>>, <<3, 1>>}], {1, 2})", "{2, 3}"),
    ("Ancestors([node |-> {1, 2, 3, 4}, edge |-> {<<4, 2>>, <<2, 1>>, <<3, 1>>}], 1)", "{2, 3, 4}"),
    ("Descendants([node |-> {1, 2, 3, 4}, edge |-> {<<4, 2>>, <<2, 1>>, <<3, 1>>}], 4)", "{1, 2}"),
    ("<<Ancestors(Loop, 1), Descendants(Ring, 1)>>", "<<{1}, {1, 2, 3}>>"),
    ("<<InDegree(Six, 2), OutDegree(Six, 3)>>", "<<3, 3>>"),
    ("<<Roots(Chain), Leaves(Chain), Roots(Ring)>>", "<<{1}, {3}, {}>>"),
    ("Cardinality(Graphs({1, 2}))", "16"),
    ("Graphs({})", "{EmptyGraph}"),
]


@pytest.mark.parametrize(("expr", "expected"), CASES)
def test_operator(model: Model, expr: str, expected: str) -> None:
    assert model.eval_constant(f"({expr}) = ({expected})") is True, (expr, model.eval_constant(expr))


def test_path_is_not_enumerated(model: Model) -> None:
    with pytest.raises(UnsupportedError, match="cannot enumerate"):
        model.eval_constant("Cardinality(Path(Chain))")
    with pytest.raises(UnsupportedError, match="cannot enumerate"):
        model.eval_constant("\\E p \\in Path(Ring) : Len(p) = 4")


def test_path_enumerated_in_a_spec_is_refused_with_its_location(tmp_path: Path) -> None:
    (tmp_path / "P.tla").write_text(
        "---- MODULE P ----\nEXTENDS Graphs\nVARIABLE x\n"
        "Init == x \\in Path([node |-> {1}, edge |-> {}])\nNext == UNCHANGED x\n====\n")
    (tmp_path / "P.cfg").write_text("INIT Init\nNEXT Next\n")
    run = subprocess.run([sys.executable, "-m", "conformance", "check", str(tmp_path / "P.tla"),
                          "--config", str(tmp_path / "P.cfg")], capture_output=True, text=True, check=False)
    assert run.returncode != 0
    assert re.search(r"P\.tla:4:9: cannot enumerate the set", run.stdout + run.stderr), run


# ---- differential: the operators against a Python implementation ------------------------

Edge = tuple[int, int]


def reach(nodes: frozenset[int], edges: frozenset[Edge], m: int) -> set[int]:
    """Nodes reached from m (m included), by a search over the edges between nodes."""
    seen, todo = {m}, [m]
    while todo:
        x = todo.pop()
        for a, b in edges:
            if a == x and b in nodes and b not in seen:
                seen.add(b)
                todo.append(b)
    return seen


def simple_paths(nodes: frozenset[int], edges: frozenset[Edge]) -> set[tuple[int, ...]]:
    out: set[tuple[int, ...]] = set()

    def grow(p: tuple[int, ...]) -> None:
        out.add(p)
        for n in nodes:
            if n not in p and (p[-1], n) in edges:
                grow((*p, n))

    for n in nodes:
        grow((n,))
    return out


@st.composite
def graphs(draw: st.DrawFn) -> tuple[frozenset[int], frozenset[Edge]]:
    nodes = draw(st.frozensets(st.integers(1, 4), max_size=4))
    # edges may leave the node set: such an edge joins nothing
    pairs = sorted(product(nodes | {5}, nodes | {5}))
    edges = draw(st.frozensets(st.sampled_from(pairs), max_size=6))
    return nodes, edges


def tla(x: object) -> str:
    if isinstance(x, tuple):
        return "<<" + ", ".join(map(tla, x)) + ">>"
    if isinstance(x, (set, frozenset)):
        return "{" + ", ".join(tla(e) for e in sorted(x)) + "}"  # type: ignore[type-var]
    return str(x)


@settings(max_examples=120, deadline=None, database=None)
@given(graphs(), st.integers(1, 5))
def test_against_a_python_implementation(model: Model, graph: tuple[frozenset[int], frozenset[Edge]],
                                         r: int) -> None:
    nodes, edges = graph
    G = f"[node |-> {tla(nodes)}, edge |-> {tla(edges)}]"
    directed = all(a in nodes and b in nodes for a, b in edges)
    undirected = directed and all((b, a) in edges for a, b in edges)
    connected = {(m, n): m in nodes and n in nodes and n in reach(nodes, edges, m)
                 for m in range(1, 6) for n in range(1, 6)}
    strongly = all(connected[m, n] for m in nodes for n in nodes)
    tree = (directed and all(a != r and sum(1 for (c, _) in edges if c == a) == 1 for a, _ in edges)
            and all(connected[n, r] for n in nodes))
    strict = {(m, n) for m in nodes for n in nodes
              if any(a == m and b in nodes and n in reach(nodes, edges, b) for a, b in edges)}
    cycle = any((n, n) in strict for n in nodes)
    got = model.eval_constant(
        f"LET G == {G} IN <<IsDirectedGraph(G), IsUndirectedGraph(G), IsStronglyConnected(G), "
        f"IsTreeWithRoot(G, {r}), HasCycle(G), SimplePath(G), "
        "[p \\in (G.node \\cup {5}) \\X (G.node \\cup {5}) |-> AreConnectedIn(p[1], p[2], G)]>>")
    assert got[:5] == (directed, undirected, strongly, tree, cycle), graph
    assert got[5] == frozenset(simple_paths(nodes, edges)), graph
    assert model.eval_constant(
        f"LET G == {G} IN <<[p \\in (G.node \\cup {{5}}) \\X (G.node \\cup {{5}}) |-> AreConnectedIn(p[1], p[2], G)] "
        f"= [p \\in (G.node \\cup {{5}}) \\X (G.node \\cup {{5}}) |-> p \\in {tla({k for k, v in connected.items() if v})}], "
        f"ConnectionsIn(G) = [p \\in G.node \\X G.node |-> p \\in {tla({k for k, v in connected.items() if v})}], "
        f"\\A n \\in G.node : Ancestors(G, n) = {{m \\in G.node : <<m, n>> \\in {tla(strict)}}}, "
        f"Transpose(Transpose(G)) = G>>") == (True, True, True, True), graph
    subgraphs = model.eval_constant(f"Cardinality(DirectedSubgraph({G}))")
    inner = [(a, b) for a, b in edges]
    expected = sum(2 ** sum(1 for a, b in inner if a in ns and b in ns)
                   for ns in (frozenset(n for i, n in enumerate(sorted(nodes)) if mask >> i & 1)
                              for mask in range(2 ** len(nodes))))
    assert subgraphs == expected, graph
