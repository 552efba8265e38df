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
