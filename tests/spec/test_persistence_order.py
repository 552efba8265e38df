"""Persistence order in the spec: each SendBeforePersist toggle (a send that no longer waits
for a durable write) yields a counterexample to the property its reason names, through a
Restart that drops the pending write; with KIP-595's order nothing is ever pending."""

from __future__ import annotations

from pathlib import Path

import pytest

from conformance.spec_suite import load_manifest
from conformance.tla.cfg import read_config
from conformance.tla.explorer import check
from conformance.tla.model import Model
from conformance.tla.values import fn_apply, fn_items

SPEC = Path(__file__).resolve().parents[2] / "spec"
ENTRIES = {e.name: e for e in load_manifest()}
# manifest entry -> (the toggle it switches, the property its reason says breaks)
TOGGLES = {
    "unflushed_vote_request": ("VoteRequest", "VoteOnce"),
    "unflushed_vote_response": ("VoteResponse", "VoteOnce"),
    "unflushed_fetch_ack": ("FetchRequest", "CommittedNeverTruncated"),
}


def _run(name: str) -> tuple[object, Model]:
    entry = ENTRIES[name]
    config = read_config(entry.config)
    model = Model.load(SPEC / "MC_KRaft.tla", constants=config.constants, overrides=config.overrides)
    return check(model, config, time_limit=600, progress=False), model  # type: ignore[arg-type]


def _counterexample(name: str) -> None:
    toggle, prop = TOGGLES[name]
    entry = ENTRIES[name]
    assert entry.expect == "violation" and entry.property == prop
    config = read_config(entry.config)
    assert config.constants["SendBeforePersist"] == frozenset({toggle})
    result, model = _run(name)
    assert result.verdict == "violation", result.message  # type: ignore[attr-defined]
    assert result.property == prop  # type: ignore[attr-defined]
    actions = [step.action for step in result.trace]  # type: ignore[attr-defined]
    # the write left pending by the toggled step is dropped by a restart before any Flush
    assert "Restart" in actions and "Flush" not in actions[: actions.index("Restart")]
    unflushed = model.variables.index("unflushed")
    before_restart = result.trace[actions.index("Restart") - 1].state  # type: ignore[attr-defined]
    pending = [p for _, p in fn_items(before_restart[unflushed])]
    assert any(fn_apply(p, "epoch") != -1 or fn_apply(p, "logLen") != -1 for p in pending)


@pytest.mark.parametrize("name", ["unflushed_vote_request", "unflushed_vote_response"])
def test_vote_toggles_break_vote_once(name: str) -> None:
    _counterexample(name)


@pytest.mark.slow
def test_fetch_ack_toggle_loses_a_committed_entry() -> None:
    _counterexample("unflushed_fetch_ack")


def test_kip_order_leaves_nothing_pending() -> None:
    """On a bounded prefix of the small model (KIP-595's order) no write is ever pending, so
    Flush is never enabled and Restart restores exactly the memory's durable variables."""
    config = read_config(SPEC / "MC_KRaft_small.cfg")
    assert config.constants["SendBeforePersist"] == frozenset()
    model = Model.load(SPEC / "MC_KRaft.tla", constants=config.constants, overrides=config.overrides)
    config.invariants.append("NothingUnflushed")
    result = check(model, config, max_states=3000, progress=False)  # type: ignore[arg-type]
    assert result.verdict == "limit", result.message


def test_every_persistence_toggle_has_a_config() -> None:
    assert {t for t, _ in TOGGLES.values()} == {"VoteRequest", "VoteResponse", "FetchRequest"}
    for name in TOGGLES:
        cfg = read_config(ENTRIES[name].config)
        others = {k: v for k, v in cfg.constants.items() if isinstance(v, bool)}
        assert all(others.values()), f"{name} switches off another toggle: {others}"
