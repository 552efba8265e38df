"""Helpers to build toy traces (``fixtures/Toy.tla``) as JSON lines in tests."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

FIXTURES = Path(__file__).parent / "fixtures"
TOY_SPEC = FIXTURES / "Toy.tla"
TOY_VALID = FIXTURES / "toy_valid.ndjson"


def toy_lines() -> list[dict[str, Any]]:
    """The decoded JSON lines of the hand-written valid toy trace."""
    return [json.loads(t) for t in TOY_VALID.read_text().splitlines()]


def dump(lines: list[dict[str, Any]]) -> list[str]:
    return [json.dumps(line) + "\n" for line in lines]


def write(path: Path, lines: list[dict[str, Any]] | list[str]) -> Path:
    text = "".join(x if isinstance(x, str) else json.dumps(x) + "\n" for x in lines)
    path.write_text(text)
    return path


def msg(source: int, dest: int, n: int) -> dict[str, Any]:
    return {"type": "Ping", "source": source, "dest": dest, "n": n}


def header(replicas: tuple[int, ...] = (1, 2, 3), max_count: int = 3, secrets: tuple[int, ...] = (1, 2, 3),
           spec: str = "Toy") -> dict[str, Any]:
    return {"kind": "header", "format": "kraft-trace", "version": 1, "spec": spec,
            "constants": {"Replicas": {"#set": list(replicas)}, "MaxCount": max_count,
                          "Secrets": {"#set": list(secrets)}},
            "seed": 0, "generator": "test", "faults": [], "bug": None}


def init(replicas: tuple[int, ...] = (1, 2, 3)) -> dict[str, Any]:
    return {"kind": "init", "replicas": {str(r): {"counter": 0, "seen": {"#set": []}} for r in replicas}}


def event(step: int, replica: int, action: str, params: dict[str, Any], counter: int,
          seen: tuple[int, ...] = (), sent: tuple[dict[str, Any], ...] = ()) -> dict[str, Any]:
    return {"kind": "event", "step": step, "replica": replica, "action": action, "params": params,
            "state": {"counter": counter, "seen": {"#set": list(seen)}}, "sent": list(sent)}


def toy_loc(line_text: str, at: str) -> str:
    """``Toy.tla:line:col`` of ``at`` on the (unique) line of Toy.tla containing ``line_text``."""
    lines = [(n, t) for n, t in enumerate(TOY_SPEC.read_text().splitlines(), 1) if line_text in t]
    assert len(lines) == 1, f"{line_text!r} is on {len(lines)} lines of Toy.tla"
    n, t = lines[0]
    return f"Toy.tla:{n}:{t.index(at) + 1}"
