"""Runs of a real Apalache on the project's specs (skipped, with the reason, when no
Apalache is installed: see conformance/apalache.py for where it is looked for)."""

from __future__ import annotations

from pathlib import Path

import pytest

from conformance.apalache import Apalache, ApalacheError
from conformance.tla.model import Model

pytestmark = pytest.mark.apalache

FIXTURES = Path(__file__).resolve().parent / "fixtures"
SPEC = Path(__file__).resolve().parents[2] / "spec"


@pytest.fixture(scope="module")
def apalache() -> Apalache:
    try:
        found = Apalache.locate(timeout=900)
        found.installation()
    except ApalacheError as exc:
        pytest.skip(str(exc))
    return found


def test_kraft_spec_typechecks(apalache: Apalache) -> None:
    out = apalache.typecheck(SPEC / "MC_KRaft.tla")
    assert out.ok, out.stdout[-2000:]


def test_counter_violation_is_found_and_labelled(apalache: Apalache) -> None:
    spec = FIXTURES / "Counter.tla"
    out = apalache.check(spec, model=Model.load(spec), init="Init", next="Next", inv=["Small"], length=3)
    assert out.outcome == "violation"
    assert [s.action for s in out.counterexample] == ["Init", "Inc", "Inc"]


def test_small_kraft_model_has_no_short_violation(apalache: Apalache) -> None:
    out = apalache.check(SPEC / "MC_KRaft.tla", cinit="ConstInitSmall", inv=["Safety"], length=4)
    assert out.ok, out.stdout[-2000:]


def test_inductive_invariant_initiation(apalache: Apalache) -> None:
    runs = apalache.inductive(SPEC / "MC_KRaftIndInv.tla", ind_inv="IndInv", safety="Safety",
                              cinit="ConstInitSmall")
    assert runs[0][1].ok, runs[0][1].stdout[-2000:]
