"""--time-limit stops a run also in the middle of one long evaluation (``deadline.py``):
the limit verdict, with what was found so far, instead of a run that never ends."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from conformance.tla import deadline
from conformance.tla.cfg import parse_config
from conformance.tla.explorer import check
from conformance.tla.model import Model
from conformance.tla.simulation import simulate

# the invariant counts to fifty million in one evaluation (minutes here)
SLOW = """---- MODULE Slow ----
EXTENDS Naturals
VARIABLE x
Init == x = 0
Next == x < 3 /\\ x' = x + 1
Inv == \\A n \\in 1..(50000000 * x) : n > 0
====
"""


@pytest.fixture
def model(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[Model, object]:
    monkeypatch.setattr(deadline, "GRACE", 0.5)
    (tmp_path / "Slow.tla").write_text(SLOW)
    config = parse_config("INIT Init\nNEXT Next\nINVARIANT Inv\nCHECK_DEADLOCK FALSE\n",
                          str(tmp_path / "Slow.cfg"))
    return Model.load(tmp_path / "Slow.tla"), config


@pytest.mark.parametrize("workers", [1, 2])
def test_search_stops_in_a_long_evaluation(model: tuple[Model, object], workers: int) -> None:
    started = time.monotonic()
    r = check(model[0], model[1], time_limit=0.5, progress=False, workers=workers)  # type: ignore[arg-type]
    assert r.verdict == "limit" and "in the middle of an evaluation" in (r.message or "")
    assert r.distinct_states >= 1 and r.trace == []
    assert time.monotonic() - started < 30  # (minutes when not interrupted)


def test_simulation_stops_in_a_long_evaluation(model: tuple[Model, object]) -> None:
    r = simulate(model[0], model[1], depth=5, traces=3, seed=0, time_limit=0.5,  # type: ignore[arg-type]
                 progress=False)
    assert r.verdict == "limit" and "in the middle of an evaluation" in (r.message or "")


def test_no_alarm_is_left_behind(model: tuple[Model, object]) -> None:
    # a run that ends in time disarms its timer: nothing fires later
    fast = model[1]
    fast.invariants = []  # type: ignore[attr-defined]
    r = check(model[0], fast, time_limit=0.5, progress=False)  # type: ignore[arg-type]
    assert r.verdict == "ok"
    time.sleep(1.2)  # past the limit and its grace: no TimeLimitReached here
