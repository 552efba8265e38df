"""The KRaft liveness models of ``spec/models.json`` (spec/KRaftLiveness.tla) through
the engine: the election model holds, racing timers violate EventuallyLeader with a
lasso, and a seeded change (no fairness) makes the election model fail."""

from __future__ import annotations

from pathlib import Path

from conformance.spec_suite import load_manifest, run_api
from conformance.tla.cfg import read_config
from conformance.tla.explorer import check
from conformance.tla.model import Model

SPEC = Path(__file__).resolve().parents[2] / "spec"
ENTRIES = {e.name: e for e in load_manifest()}


def test_election_model_holds() -> None:
    result = run_api(ENTRIES["live_election"], traces=None, depth=None, time_limit=120)
    assert result.verdict == "ok", result.message


def test_racing_timers_never_elect() -> None:
    entry = ENTRIES["live_racing"]
    result = run_api(entry, traces=None, depth=None, time_limit=120)
    assert (result.verdict, result.failed) == ("violation", "EventuallyLeader")


def test_election_model_without_fairness_fails() -> None:
    config = read_config(SPEC / "MC_KRaftLiveness_election.cfg")
    config.specification = "UnfairSpec"
    model = Model.load(SPEC / "KRaftLiveness.tla", constants=config.constants, overrides=config.overrides)
    result = check(model, config, progress=False)
    assert (result.verdict, result.property, result.loop) == ("violation", "EventuallyLeader", 0)
    assert [step.action for step in result.trace] == ["Init", "Stuttering"]


def test_commit_model_holds() -> None:
    result = run_api(ENTRIES["live_commit"], traces=None, depth=None, time_limit=120)
    assert result.verdict == "ok", result.message


SEEDED = """---- MODULE KRaftLivenessSeeded ----
EXTENDS KRaftLiveness
\\* seeded bug: followers never append to their logs, so nothing is replicated
SeededNext == LiveNext /\\ \\A i \\in Voters : role[i] = "Follower" => log'[i] = log[i]
SeededSpec == Init /\\ [][SeededNext]_vars /\\ WF_vars(SeededNext)
====
"""


def test_commit_model_without_replication_fails(tmp_path: Path) -> None:
    spec = tmp_path / "KRaftLivenessSeeded.tla"
    spec.write_text(SEEDED)
    config = read_config(SPEC / "MC_KRaftLiveness_commit.cfg")
    config.specification = "SeededSpec"
    model = Model.load(spec, constants=config.constants, overrides=config.overrides, search_path=[SPEC])
    result = check(model, config, progress=False)
    assert (result.verdict, result.property) == ("violation", "AppendedEntryCommits")
    assert result.loop is not None and result.trace[-1].action == "Stuttering"
