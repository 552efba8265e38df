"""Verdicts of the symbolic checks against a real Apalache (skipped, with the reason, when
none is installed): bounded model checking on the same spec and length."""

from __future__ import annotations

from pathlib import Path

import pytest

from conformance.apalache import Apalache, ApalacheError
from conformance.symbolic.bmc import bmc
from conformance.symbolic.shapes import Bounds
from conformance.tla.cfg import ModelConfig
from conformance.tla.model import Model
from conformance.tla.plan import resolve_plan

pytestmark = pytest.mark.apalache

SPECS = Path(__file__).resolve().parents[1] / "engine" / "specs"
FIXTURES = Path(__file__).resolve().parents[1] / "apalache" / "fixtures"


@pytest.fixture(scope="module")
def apalache() -> Apalache:
    try:
        found = Apalache.locate(timeout=900)
        found.installation()
    except ApalacheError as exc:
        pytest.skip(str(exc))
    return found


@pytest.mark.parametrize("spec,inv,length", [
    (SPECS / "DieHard.tla", "NotSolved", 8),
    (SPECS / "DieHard.tla", "TypeOK", 6),
    (FIXTURES / "Counter.tla", "Small", 3),
])
def test_bmc_verdicts_match_apalache(apalache: Apalache, spec: Path, inv: str, length: int) -> None:
    model = Model.load(spec)
    config = ModelConfig(str(spec), init="Init", next="Next", invariants=[inv], check_deadlock=False)
    ours = bmc(model, resolve_plan(model, config), length, Bounds()).result
    theirs = apalache.check(spec, model=model, init="Init", next="Next", inv=[inv], length=length)
    assert (ours.verdict == "violation") == (theirs.outcome == "violation")
    if ours.verdict == "violation":
        assert len(ours.trace) == len(theirs.counterexample)
