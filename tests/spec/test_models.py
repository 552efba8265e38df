"""The spec's model configs through the engine: every rule toggle makes its named
property fail, the KIP configs run clean within a bound (the full exhaustive runs are
``tox -e spec``), and the spec suite reads its manifest strictly."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from conformance import spec_suite
from conformance.spec_suite import Entry, ManifestError, Result, load_manifest, run_api
from conformance.tla.cfg import read_config
from conformance.tla.explorer import check, simulate
from conformance.tla.model import Model

SPEC = Path(__file__).resolve().parents[2] / "spec"
ENTRIES = {e.name: e for e in load_manifest()}
TOGGLES = ["volatile_vote", "second_leader", "no_uptodate", "no_commit_rule", "no_truncation",
           "two_changes", "change_before_commit", "no_dir_check"]
# KIP-853's rule toggles
RECONFIG_TOGGLES = {"OneUncommittedChange", "ChangeRequiresCurrentEpochCommit", "VoteChecksDirectoryId"}
# the models of a dynamic quorum the issue asks for, by what they show
RECONFIG_MODELS = {"dynamic": "ok", "dynamic_witness": "WitnessNoAddCommitted",
                   "reassign_3to5": "ok", "reassign_5to3": "ok",
                   "witness_add": "WitnessNoAddCommitted", "witness_remove": "WitnessNoRemoveCommitted",
                   "witness_self_removal": "WitnessNoSelfRemoval", "witness_rejoin": "WitnessNoDiskLossRejoin"}


def load(cfg: str) -> tuple[Model, object]:
    config = read_config(SPEC / cfg)
    return Model.load(SPEC / "MC_KRaft.tla", constants=config.constants, overrides=config.overrides), config


@pytest.mark.parametrize("name", TOGGLES)
def test_toggle_config_fails_with_the_named_property(name: str) -> None:
    entry = ENTRIES[name]
    assert entry.expect == "violation"
    result = run_api(entry, traces=None, depth=None, time_limit=120)
    assert result.verdict == "violation", result.message
    assert result.failed == entry.property
    assert result.trace_length >= 2


@pytest.mark.parametrize("name", ["volatile_vote", "no_truncation"])
def test_two_workers_find_one_workers_counterexample(name: str) -> None:
    model, config = load(f"MC_KRaft_{name}.cfg")
    one, two = (check(model, config, progress=False, workers=n)  # type: ignore[arg-type]
                for n in (1, 2))
    assert one.verdict == "violation"
    assert (two.property, two.trace) == (one.property, one.trace)
    assert (two.states_generated, two.distinct_states, two.queue_left) == (
        one.states_generated, one.distinct_states, one.queue_left)


def test_every_toggle_has_a_config() -> None:
    toggles = {"CommitRequiresCurrentEpoch", "VoteRequiresUpToDateLog", "DurableVote",
               "TruncateOnDivergence", "RejectConflictingLeader"} | RECONFIG_TOGGLES
    switched_off: set[str] = set()
    for name in TOGGLES:
        config = read_config(ENTRIES[name].config)
        off = {t for t in toggles if config.constants[t] is False}
        assert len(off) == 1, f"{name} switches off {off}"
        switched_off |= off
    assert switched_off == toggles


def test_reconfiguration_models_are_in_the_manifest() -> None:
    for name, shows in RECONFIG_MODELS.items():
        entry = ENTRIES[name]
        config = read_config(entry.config)
        assert config.constants["KRaftVersion"] == 1, name
        assert (entry.expect, entry.property) == (("ok", None) if shows == "ok" else ("violation", shows))
    assert ENTRIES["dynamic"].mode == "exhaustive"
    assert {ENTRIES["reassign_3to5"].mode, ENTRIES["reassign_5to3"].mode} == {"simulate"}


# witness_add also runs in the spec suite (CI's step before the tests): slow here
@pytest.mark.parametrize("name", [pytest.param("witness_add", marks=pytest.mark.slow), "witness_self_removal"])
def test_reconfiguration_witness_is_reached(name: str) -> None:
    result = run_api(ENTRIES[name], traces=None, depth=None, time_limit=120)
    assert (result.verdict, result.failed) == ("violation", ENTRIES[name].property), result.message


def test_small_model_is_clean_on_a_bounded_prefix() -> None:
    model, config = load("MC_KRaft_small.cfg")
    result = check(model, config, max_states=4000, progress=False)  # type: ignore[arg-type]
    assert result.verdict == "limit", result.message
    assert result.distinct_states >= 4000


def test_inductive_invariant_holds_on_a_bounded_prefix() -> None:
    model, config = load("MC_KRaft_indinv.cfg")
    result = check(model, config, max_states=2000, progress=False)  # type: ignore[arg-type]
    assert result.verdict == "limit", result.message


def test_scenario_with_kip_rules_is_clean() -> None:
    result = run_api(ENTRIES["scenario_stale_entry"], traces=None, depth=None, time_limit=120)
    assert result.verdict == "ok", result.message


def test_simulation_config_runs_clean_briefly() -> None:
    model, config = load("MC_KRaft_sim.cfg")
    result = simulate(model, config, depth=25, traces=4, seed=3, progress=False)  # type: ignore[arg-type]
    assert result.verdict == "ok", result.message


def test_inductive_invariant_catches_a_broken_state() -> None:
    """IndInv is not vacuous: a state where a follower holds an entry of an epoch that
    elected nobody violates it."""
    model, _ = load("MC_KRaft_indinv.cfg")
    (state,) = list(model.init_states("ScenarioStaleLeaderEntry"))
    assert model.eval_state("IndInv", state) is True
    elections = model.variables.index("elections")
    broken = (*state[:elections], frozenset({(2, 2)}), *state[elections + 1:])
    assert model.eval_state("IndInv", broken) is False
    assert model.eval_state("Safety", broken) is True


# --- the suite runner ----------------------------------------------------------------


def write_manifest(tmp_path: Path, models: list[dict]) -> Path:
    (tmp_path / "MC.tla").write_text("")
    (tmp_path / "MC.cfg").write_text("")
    path = tmp_path / "models.json"
    path.write_text(json.dumps({"spec": "MC.tla", "models": models}))
    return path


def test_manifest_errors_name_the_entry(tmp_path: Path) -> None:
    good = {"name": "a", "config": "MC.cfg", "mode": "exhaustive", "expect": "ok"}
    assert [e.name for e in load_manifest(write_manifest(tmp_path, [good]))] == ["a"]
    bad_cases = [
        ({**good, "mode": "bfs"}, "'mode'"),
        ({**good, "expect": "violation"}, "'property'"),
        ({**good, "property": "TypeOK"}, "'property'"),
        ({**good, "config": "missing.cfg"}, "does not exist"),
        ({**good, "depth": -1}, "'depth'"),
        ({**good, "colour": "red"}, "unknown key"),
    ]
    for raw, message in bad_cases:
        with pytest.raises(ManifestError, match=message) as err:
            load_manifest(write_manifest(tmp_path, [raw]))
        assert "model 'a'" in str(err.value)
    with pytest.raises(ManifestError, match="duplicate"):
        load_manifest(write_manifest(tmp_path, [good, good]))


def test_expected_outcomes() -> None:
    ok = Entry("a", Path("s"), Path("c"), "exhaustive", "ok", None)
    sim = Entry("b", Path("s"), Path("c"), "simulate", "ok", None)
    bad = Entry("c", Path("s"), Path("c"), "exhaustive", "violation", "VoteOnce")
    assert Result(ok, "ok", None, None, 1, 1, 0.0).as_expected
    assert not Result(ok, "limit", None, None, 1, 1, 0.0).as_expected
    assert Result(sim, "limit", None, None, 1, 1, 0.0).as_expected
    assert Result(bad, "violation", "VoteOnce", None, 1, 1, 0.0).as_expected
    assert not Result(bad, "violation", "TypeOK", None, 1, 1, 0.0).as_expected
    assert not Result(bad, "ok", None, None, 1, 1, 0.0).as_expected


def test_suite_exit_code_reflects_unexpected_outcomes(monkeypatch: pytest.MonkeyPatch,
                                                      capsys: pytest.CaptureFixture[str]) -> None:
    def fake_run(entry: Entry, **_: object) -> Result:
        return Result(entry, "ok", None, None, 10, 2, 0.1)

    monkeypatch.setattr(spec_suite, "run_api", fake_run)
    assert spec_suite.main(["--only", "small"]) == 0
    assert "small" in capsys.readouterr().out
    assert spec_suite.main(["--only", "volatile_vote"]) == 1
    out = capsys.readouterr().out
    assert "UNEXPECTED" in out and "1 unexpected outcome(s): volatile_vote" in out
    assert spec_suite.main(["--only", "nonesuch"]) == 2


def test_cli_command_line() -> None:
    cmd = spec_suite.cli_command(ENTRIES["sim3"], traces=7, depth=None, time_limit=30.0)
    assert cmd[1:5] == ["-m", "conformance", "check", str(ENTRIES["sim3"].spec)]
    assert cmd[cmd.index("--traces") + 1] == "7"
    assert cmd[cmd.index("--depth") + 1] == str(ENTRIES["sim3"].depth)
    assert cmd[-2:] == ["--time-limit", "30.0"]


@pytest.mark.parametrize(("cinit", "cfg"), [("ConstInitSmall", "MC_KRaft_small.cfg"),
                                            ("ConstInitSim", "MC_KRaft_sim.cfg")])
def test_apalache_constant_initialisation_matches_its_config(cinit: str, cfg: str) -> None:
    model, _ = load(cfg)
    assert model.eval_constant(cinit) is True
    other, _ = load("MC_KRaft_volatile_vote.cfg")
    assert other.eval_constant(cinit) is False
