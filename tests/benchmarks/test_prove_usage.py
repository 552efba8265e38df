"""Usage errors of ``benchmarks/prove.py``: each stops before any proof, exit 2, naming what
is wrong."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from tests.benchmarks.load import ROOT


@pytest.mark.parametrize("args, message", [
    (["--z3", "smt.arith.solver"], "--z3 'smt.arith.solver': expected KEY=VALUE"),
    (["--z3", "smt.no_such_parameter=3"], "--z3 'smt.no_such_parameter=3': z3 does not take it"),
    (["--journal", "j.jsonl", "--runs", "2"], "--journal with --runs > 1"),
    (["--plan", "j.jsonl"], "--plan needs --split"),
])
def test_usage_errors(tmp_path: Path, args: list[str], message: str) -> None:
    done = subprocess.run([sys.executable, str(ROOT / "benchmarks" / "prove.py"), "--part", "prove", *args],
                          capture_output=True, text=True, timeout=120, cwd=str(tmp_path))
    assert done.returncode == 2, done.stdout[-500:] + done.stderr[-500:]
    assert message in done.stderr
    assert "IndInv" not in done.stdout  # no obligation was decided
