"""The reference package's rooms import downward only, and no module imports itself back
through others (also not under ``TYPE_CHECKING``)."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2] / "reference"
# room -> rooms it may import from (besides itself and the package root).
ALLOWED = {
    "core": set(),
    "storage": {"core"},
    "trace": {"core"},
    "crashfs": {"core", "storage"},
    "sim": {"core", "storage", "trace", "crashfs"},
}


def _module_name(path: Path) -> str:
    parts = path.relative_to(ROOT.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _imports(path: Path) -> set[str]:
    """The ``reference`` modules ``path`` imports (``from pkg import mod`` names ``pkg.mod``)."""
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            if node.module == "reference" or node.module.startswith("reference."):
                for alias in node.names:
                    sub = f"{node.module}.{alias.name}"
                    found.add(sub if _is_module(sub) else node.module)
        elif isinstance(node, ast.Import):
            found |= {a.name for a in node.names if a.name.startswith("reference.")}
    found.discard("reference")
    return found


def _is_module(name: str) -> bool:
    rel = Path(*name.split(".")[1:])
    return (ROOT / rel).with_suffix(".py").exists() or (ROOT / rel / "__init__.py").exists()


def _graph() -> dict[str, set[str]]:
    return {_module_name(p): _imports(p) for p in ROOT.rglob("*.py")}


def test_rooms_import_downward_only() -> None:
    wrong = []
    for module, imports in _graph().items():
        parts = module.split(".")
        if len(parts) < 3:
            continue
        room = parts[1]
        for target in imports:
            target_room = target.split(".")[1]
            if target_room != room and target_room not in ALLOWED[room]:
                wrong.append(f"{module} -> {target}")
    assert not wrong, wrong


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Every back edge of a depth-first search, as the cycle it closes."""
    state: dict[str, int] = {}
    cycles: list[list[str]] = []

    def visit(node: str, path: list[str]) -> None:
        state[node] = 1
        for nxt in sorted(graph.get(node, ())):
            if state.get(nxt) == 1:
                cycles.append([*path[path.index(nxt) :], nxt])
            elif nxt in graph and nxt not in state:
                visit(nxt, [*path, nxt])
        state[node] = 2

    for node in sorted(graph):
        if node not in state:
            visit(node, [node])
    return cycles


def test_no_import_cycles() -> None:
    assert not _cycles(_graph())


def test_the_cycle_search_sees_the_old_replica_handler_cycle() -> None:
    graph = {"reference.replica": {"reference.rpc_vote"}, "reference.rpc_vote": {"reference.replica", "reference.messages"}}
    assert _cycles(graph) == [["reference.replica", "reference.rpc_vote", "reference.replica"]]
