"""The symbolic checks on the KRaft spec itself (slow: each obligation or depth translates
the whole protocol). The rule toggles' counterexamples found from Init by bounded model
checking, replayed by the explicit engine; Safety alone is not inductive."""

from __future__ import annotations

from pathlib import Path

import pytest

from conformance.symbolic.bmc import bmc
from conformance.symbolic.prove import ProofInput, discharge, obligations
from conformance.symbolic.shapes import Bounds
from conformance.tla.cfg import read_config
from conformance.tla.model import Model
from conformance.tla.plan import resolve_plan

SPEC_DIR = Path(__file__).resolve().parents[2] / "spec"
SPEC = SPEC_DIR / "MC_KRaft.tla"

pytestmark = pytest.mark.slow


@pytest.mark.parametrize("toggle,prop,steps", [
    ("volatile_vote", "VoteOnce", 4),
    ("second_leader", "KnownLeaderStable", 4),
    ("no_election_timeout", "ElectionTimeoutRespected", 1),  # a timer rule: needs ^ on the state
    ("unflushed_vote_response", "VoteOnce", 4),  # minutes: depth 3's unsat answer dominates
    ("unflushed_vote_request", "VoteOnce", 4),  # minutes, as above
    ("no_timeout_upper_bound", "TimeoutUpperBoundRespected", 5),  # a timer rule, 5 steps
    ("no_dir_check", "VoteOnce", 4),  # minutes; not found within 1,000 s before the witness
])
def test_shallow_toggle_counterexamples_found_from_init(toggle: str, prop: str, steps: int) -> None:
    config = read_config(SPEC_DIR / f"MC_KRaft_{toggle}.cfg")
    model = Model.load(SPEC, constants=config.constants, overrides=config.overrides)
    plan = resolve_plan(model, config)
    result = bmc(model, plan, steps, Bounds(2, 3, {"messages": 6})).result
    assert result.verdict == "violation", result.message
    assert result.property == prop
    assert len(result.trace) == steps + 1  # replayed by the explicit engine, step by step


@pytest.mark.parametrize("toggle,prop,steps", [
    ("volatile_vote", "VoteOnce", 4),  # about 30 s
    ("no_fetch_timeout", "FetchTimeoutRespected", 8),  # minutes; not reached with fresh sets
    ("no_successor_backoff", "SuccessorBackoffRespected", 8),  # minutes; as above
    ("no_check_quorum", "CheckQuorumRespected", 10),  # about 10 minutes; as above
])
def test_toggle_counterexamples_found_from_init_with_aligned_states(toggle: str, prop: str, steps: int) -> None:
    """``--growth 2``: each state's sets keep the previous state's slots and gain at most two
    elements per step (an election's requests to the two other voters; a path needing a
    step that sends more, as a removed leader's answers and EndQuorumEpoch requests, lies
    outside this search)."""
    config = read_config(SPEC_DIR / f"MC_KRaft_{toggle}.cfg")
    model = Model.load(SPEC, constants=config.constants, overrides=config.overrides)
    plan = resolve_plan(model, config)
    result = bmc(model, plan, steps, Bounds(2, 3, {"messages": 6}), growth=2).result
    assert result.verdict == "violation", result.message
    assert result.property == prop
    assert len(result.trace) == steps + 1


def test_kip_configuration_has_no_short_violation() -> None:
    config = read_config(SPEC_DIR / "MC_KRaft_small.cfg")
    model = Model.load(SPEC, constants=config.constants, overrides=config.overrides)
    result = bmc(model, resolve_plan(model, config), 2, Bounds(2, 3, {"messages": 4})).result
    assert result.verdict == "ok", result.message


@pytest.mark.parametrize("slicing", [False, True])
def test_safety_alone_is_not_inductive(slicing: bool) -> None:
    inp = ProofInput(SPEC, SPEC_DIR / "MC_KRaft_indinv.cfg", "Safety", "Safety", None,
                     Bounds(2, 3, {"messages": 3}), 600.0, slicing=slicing)
    step = next(o for o in obligations(inp) if o.action == "HandleVoteResponse")
    result = discharge(inp, step)
    assert result.verdict == "counterexample", result.message
    assert result.engine_action is not None  # the explicit engine confirms the step
    assert result.failing  # names the conjunct of Safety that fails
