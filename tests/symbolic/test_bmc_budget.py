"""``check --symbolic --rlimit N``: the search's z3 resource units are counted per depth and
capped in all; past the cap the verdict is ``limit`` at the depth reached, never ``ok``."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from conformance.symbolic.bmc import BmcOutcome, bmc
from conformance.symbolic.shapes import Bounds
from conformance.tla.cfg import read_config
from conformance.tla.checking import EXIT_CODES
from conformance.tla.model import Model
from conformance.tla.plan import resolve_plan

SPECS = Path(__file__).resolve().parents[1] / "engine" / "specs"
ROOT = Path(__file__).resolve().parents[2]


def die_hard(length: int, rlimit: int = 0) -> BmcOutcome:
    config = read_config(SPECS / "DieHard.cfg")
    model = Model.load(SPECS / "DieHard.tla", constants=config.constants, overrides=config.overrides)
    return bmc(model, resolve_plan(model, config), length, Bounds(4, 4), rlimit=rlimit)


def test_units_are_counted_per_depth_and_enough_of_them_change_nothing() -> None:
    free = die_hard(8)
    assert free.result.verdict == "violation"
    assert all(f.units > 0 for f in free.figures)
    spent = sum(f.units for f in free.figures)
    capped = die_hard(8, rlimit=2 * spent)
    assert capped.result.verdict == "violation"
    assert len(capped.result.trace) == len(free.result.trace)


def test_too_few_units_stop_the_search_at_the_depth_reached() -> None:
    free = die_hard(8)  # units vary a little from run to run; depth 3 costs more than depths 0-2
    assert free.figures[3].units > 1.3 * sum(f.units for f in free.figures[:3])
    out = die_hard(8, rlimit=sum(f.units for f in free.figures[:3]))
    assert out.result.verdict == "limit"
    assert "resource limit" in out.result.message
    assert 1 <= out.result.depth <= 3
    assert [f.verdict for f in out.figures[:-1]] == ["unsat"] * (len(out.figures) - 1)


def test_the_cli_reports_the_limit_and_refuses_a_negative_one() -> None:
    base = [sys.executable, "-m", "conformance", "check", str(SPECS / "DieHard.tla"), "--config",
            str(SPECS / "DieHard.cfg"), "--symbolic", "--length", "8", "--quiet"]
    out = subprocess.run([*base, "--rlimit", "1000"], capture_output=True, text=True, cwd=ROOT)
    assert "resource limit" in out.stdout, out.stdout + out.stderr
    assert out.returncode == EXIT_CODES["limit"], out.stdout
    bad = subprocess.run([*base, "--rlimit", "-1"], capture_output=True, text=True, cwd=ROOT)
    assert bad.returncode == 2 and "--rlimit" in bad.stderr
