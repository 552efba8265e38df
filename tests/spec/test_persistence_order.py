"""Persistence order in the spec: each SendBeforePersist toggle (a send that no longer waits
for a durable write) yields a counterexample to the property its reason names, through a
Restart that drops the pending write; with KIP-595's order nothing is ever pending, but for a
crash between a new leader's quorum-state write and its leaderChange record
(CrashBetweenWrites)."""

from __future__ import annotations

from pathlib import Path

import pytest

from conformance.spec_suite import load_manifest
from conformance.tla.cfg import read_config
from conformance.tla.explorer import check
from conformance.tla.model import Model
from conformance.tla.values import Fn, fn_apply, fn_items
from tests.spec.test_kraft_actions import at, init, load, one, var

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
        assert cfg.constants["CrashBetweenWrites"] is False  # the spec assumes one fault or the other
        others = {k: v for k, v in cfg.constants.items() if isinstance(v, bool) and k != "CrashBetweenWrites"}
        assert all(others.values()), f"{name} switches off another toggle: {others}"


def _win_election(model: Model) -> tuple[object, Fn]:
    """Voter 1 stands in epoch 1 and voter 2 grants: (the state before the winning response,
    the response)."""
    s = one(model, "BecomeCandidate", [1], init(model))
    (req,) = [m for m in var(model, s, "messages") if fn_apply(m, "dest") == 2]  # type: ignore[union-attr]
    t = one(model, "HandleVoteRequest", [req], s)
    (resp,) = [m for m in var(model, t, "messages") if fn_apply(m, "type") == "VoteResponse"]  # type: ignore[union-attr]
    return t, resp


def test_a_crash_between_a_new_leaders_writes_loses_its_record() -> None:
    """With CrashBetweenWrites the winning step has two outcomes: both writes durable, or the
    crash fell after the quorum-state write.  Inside that window the leader takes no step
    (no BeginQuorumEpoch, no Fetch answered, no Flush); its Restart finds the quorum-state
    naming it leader of epoch 1 (it comes back resigned) and a log without the record."""
    model = load(CrashBetweenWrites=True)
    s, resp = _win_election(model)
    outcomes = list(model.action_successors("HandleVoteResponse", [resp], s))
    assert len(outcomes) == 2
    window = next(t for t in outcomes if fn_apply(at(model, t, "unflushed", 1), "logLen") == 0)
    assert at(model, window, "role", 1) == "Leader" and len(at(model, window, "log", 1)) == 1  # type: ignore[arg-type]
    for action, args in (("SendBeginQuorumEpoch", [1, 2]), ("Resign", [1]), ("Flush", [1])):
        assert list(model.action_successors(action, args, window)) == [], action
    completed = next(t for t in outcomes if t is not window)
    assert len(list(model.action_successors("SendBeginQuorumEpoch", [1, 2], completed))) == 1
    restarted = one(model, "Restart", [1], window)
    assert at(model, restarted, "role", 1) == "Resigned"
    assert at(model, restarted, "currentEpoch", 1) == 1 and at(model, restarted, "leaderId", 1) == 1
    assert at(model, restarted, "log", 1) == ()
    assert fn_apply(at(model, restarted, "unflushed", 1), "logLen") == -1
    # FALSE (KIP-595's models): the step has one outcome, both writes durable
    kip = load()
    s, resp = _win_election(kip)
    (only,) = kip.action_successors("HandleVoteResponse", [resp], s)
    assert fn_apply(at(kip, only, "unflushed", 1), "logLen") == -1


@pytest.mark.slow  # the model itself is checked by the spec suite (crash_windows), CI's step before the tests
def test_the_crash_window_model_keeps_safety_and_indinv() -> None:
    """MC_KRaft_crash_windows.cfg: the small model's bounds with CrashBetweenWrites, every
    safety invariant and IndInv; it reaches states the same bounds without the crash window do
    not (a resigned replica whose log lacks the record of the epoch it won)."""
    entry = ENTRIES["crash_windows"]
    config = read_config(entry.config)
    assert config.constants["CrashBetweenWrites"] is True and "IndInv" in config.invariants
    model = Model.load(SPEC / "MC_KRaft.tla", constants=config.constants, overrides=config.overrides)
    result = check(model, config, time_limit=600, progress=False)  # type: ignore[arg-type]
    assert result.verdict == "ok", result.message
    without = Model.load(SPEC / "MC_KRaft.tla", constants={**config.constants, "CrashBetweenWrites": False},
                         overrides=config.overrides)
    plain = check(without, config, time_limit=600, progress=False)  # type: ignore[arg-type]
    assert plain.verdict == "ok" and plain.distinct_states < result.distinct_states, (plain.distinct_states, result.distinct_states)
