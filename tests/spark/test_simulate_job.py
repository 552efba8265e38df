"""``kraftcheck spark simulate`` against the simulator and the local validator run seed by seed:
the same verdicts, steps and coverage; only failing traces kept, byte for byte."""

from __future__ import annotations

import hashlib
from pathlib import Path
from typing import Any

import pytest

from conformance.cli import main
from conformance.spark.sim_source import sim_settings
from conformance.spark.simulate_job import run_simulate
from conformance.validate.coverage import Coverage
from conformance.validate.runner import ValidatorConfig
from conformance.validate.verdict import Verdict
from reference.sim.faults import DEFAULT_FAULTS, DYNAMIC_DEFAULT_FAULTS
from reference.sim.simulator import SimConfig, run_seed
from tests.spark.conftest import MASTER

pytestmark = pytest.mark.spark

STEPS = 60


def local_run(config: ValidatorConfig, seeds: range, bug: str | None, folder: Path,
              quorum: str = "static") -> dict[int, Any]:
    validator = config.build()
    faults = frozenset(DYNAMIC_DEFAULT_FAULTS if quorum == "dynamic" else DEFAULT_FAULTS)
    out = {}
    for seed in seeds:
        result = run_seed(SimConfig(out_dir=folder, steps=STEPS, bug=bug, quorum=quorum, faults=faults), seed)
        assert result.trace_path is not None
        report = validator.validate(result.trace_path, name=result.trace_path.name)
        d = report.diagnostic
        out[seed] = {"trace": result.trace_path.name, "verdict": report.verdict.value, "events": report.steps,
                     "step": d.step if d and report.verdict is not Verdict.ACCEPT else None,
                     "reason": d.reason if d and report.verdict is Verdict.REJECT else report.error,
                     "sha256": hashlib.sha256(result.trace_path.read_bytes()).hexdigest(),
                     "coverage": report.coverage, "bytes": result.trace_path.read_bytes()}
    return out


def test_simulation_campaign_equals_local_runs_even_when_first_attempts_fail(
        spark: Any, config: ValidatorConfig, tmp_path: Path) -> None:
    seeds = range(1, 7)
    want = local_run(config, seeds, None, tmp_path / "local")
    settings = sim_settings(3, 1, ",".join(DEFAULT_FAULTS), STEPS, None)
    result = run_simulate(spark, 1, 6, settings, str(tmp_path / "out"), config, partitions=3,
                          fail_first_attempt_of=frozenset({1}))
    rows = [r.asDict() for r in spark.read.parquet(str(tmp_path / "out" / "verdicts")).collect()]
    assert len(rows) == len(seeds)
    assert list(rows[0]) == ["trace", "sha256", "verdict", "events", "step", "action", "reason", "seconds", "seed"]
    got = {r["seed"]: {k: r[k] for k in ("trace", "verdict", "events", "step", "reason", "sha256")} for r in rows}
    assert got == {s: {k: w[k] for k in ("trace", "verdict", "events", "step", "reason", "sha256")}
                   for s, w in want.items()}
    assert all(r["verdict"] == "ACCEPT" for r in rows)
    assert spark.read.parquet(str(tmp_path / "out" / "failing")).count() == 0
    local = Coverage(config.build().disjuncts())
    for w in want.values():
        local.merge(Coverage.from_counts(local.disjuncts, w["coverage"]))
    assert result.coverage.to_json() == local.to_json()
    result.release()


def test_failing_traces_are_kept_and_the_cli_exits_1(spark: Any, tmp_path: Path, config: ValidatorConfig,
                                                      capsys: pytest.CaptureFixture[str]) -> None:
    want = local_run(config, range(1, 5), "observer-votes", tmp_path / "local")
    out = tmp_path / "out"
    code = main(["spark", "simulate", "--quorum", "static", "--seeds", "1-4", "--steps", str(STEPS),
                 "--inject-bug", "observer-votes",
                 "--out", str(out), "--master", MASTER, "--no-progress", "--partitions", "2"])
    assert code == 1
    assert "REJECT 4" in capsys.readouterr().out
    rows = {r["seed"]: r.asDict() for r in spark.read.parquet(str(out / "verdicts")).collect()}
    assert {s: (r["verdict"], r["step"], r["reason"]) for s, r in rows.items()} == \
        {s: (w["verdict"], w["step"], w["reason"]) for s, w in want.items()}
    failing = {r["seed"]: r.asDict() for r in spark.read.parquet(str(out / "failing")).collect()}
    assert sorted(failing) == [1, 2, 3, 4]
    for seed, row in failing.items():
        assert bytes(row["content"]) == want[seed]["bytes"]
        assert (out / "failing-traces" / row["trace"]).read_bytes() == want[seed]["bytes"]
        assert row["invariant"] is None and row["verdict"] == "REJECT"


def test_a_dynamic_quorum_campaign_is_the_default_and_equals_local_runs(
        spark: Any, tmp_path: Path, config: ValidatorConfig, capsys: pytest.CaptureFixture[str]) -> None:
    """As ``kraftcheck simulate``: a dynamic quorum (KIP-853) with its default faults, unless
    ``--quorum static``; a bug switch that only the validator catches there is REJECTed."""
    bug = "majority-from-committed-voters"
    want = local_run(config, range(1, 4), bug, tmp_path / "local", quorum="dynamic")
    out = tmp_path / "out"
    code = main(["spark", "simulate", "--seeds", "1-3", "--steps", str(STEPS), "--inject-bug", bug,
                 "--out", str(out), "--master", MASTER, "--no-progress", "--partitions", "2"])
    capsys.readouterr()
    rows = {r["seed"]: r.asDict() for r in spark.read.parquet(str(out / "verdicts")).collect()}
    assert {s: (r["verdict"], r["step"], r["sha256"]) for s, r in rows.items()} == \
        {s: (w["verdict"], w["step"], w["sha256"]) for s, w in want.items()}
    assert code == (1 if any(w["verdict"] == "REJECT" for w in want.values()) else 0)
    assert '"KRaftVersion": 1' in want[1]["bytes"].decode().splitlines()[0]


def test_bad_simulation_arguments_are_bad_input(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    assert main(["spark", "simulate", "--seeds", "1-2", "--faults", "meteor", "--out", str(tmp_path)]) == 2
    assert "meteor" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        main(["spark", "simulate", "--seeds", "5-1", "--out", str(tmp_path)])
