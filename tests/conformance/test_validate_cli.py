"""The ``kraftcheck validate`` subcommand and the multi-process runner, on the toy spec."""

from __future__ import annotations

import argparse
import json
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from conformance import validate_cmd
from conformance.validate.mutations import edit_state
from conformance.validate.runner import ValidatorConfig, validate_files
from conformance.validate.verdict import Verdict
from tests.conformance.toy_traces import TOY_SPEC, TOY_VALID, toy_lines, write


@pytest.fixture()
def traces(tmp_path: Path) -> Path:
    d = tmp_path / "traces"
    d.mkdir()
    write(d / "a-valid.ndjson", toy_lines())
    lines, _ = edit_state(toy_lines(), 3, "counter")
    write(d / "b-edited.ndjson", lines)
    broken = [json.dumps(x) + "\n" for x in toy_lines()]
    broken[4] = broken[4][:30]
    write(d / "c-broken.ndjson", broken[:5])
    return d


def main(argv: list[str]) -> int:
    """The subcommand as ``kraftcheck`` runs it (a parser with just this subcommand)."""
    parser = argparse.ArgumentParser(prog="kraftcheck")
    validate_cmd.register(parser.add_subparsers(dest="command", required=True))
    args = parser.parse_args(argv)
    return int(args.func(args))


def run(*args: str) -> int:
    return main(["validate", "--spec", str(TOY_SPEC), "--no-progress", *args])


def test_all_valid_exits_0(capsys: pytest.CaptureFixture[str]) -> None:
    assert run(str(TOY_VALID)) == 0
    out = capsys.readouterr().out
    assert "ACCEPT" in out and "1 traces, 10 steps: ACCEPT 1" in out
    assert "every action of Next was reached" in out


def test_violation_wins_over_bad_input_and_every_file_is_reported(
        traces: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    js, junit, art = tmp_path / "r.json", tmp_path / "r.xml", tmp_path / "art"
    code = run(str(traces), "--json", str(js), "--junit", str(junit), "--artifacts", str(art))
    assert code == 1
    out = capsys.readouterr().out
    assert "b-edited.ndjson:6: step 4" in out
    data = json.loads(js.read_text())
    verdicts = {Path(t["file"]).name: t["verdict"] for t in data["traces"]}
    assert verdicts == {"a-valid.ndjson": "ACCEPT", "b-edited.ndjson": "REJECT", "c-broken.ndjson": "ERROR"}
    assert data["exit_code"] == 1 and data["totals"]["traces"] == 3
    assert data["coverage"]["actions"]["Bump"] >= 3
    broken = next(t for t in data["traces"] if t["verdict"] == "ERROR")
    assert broken["error"].startswith(str(traces / "c-broken.ndjson") + ":5: invalid JSON")
    assert broken["error"].endswith("(truncated line?)")
    suite = ET.parse(junit).getroot().find("testsuite")
    assert suite is not None and suite.get("failures") == "1" and suite.get("errors") == "1"
    assert sorted(p.name for p in art.iterdir()) == [
        "b-edited.ndjson", "b-edited.ndjson.diagnostic.txt", "b-edited.ndjson.report.json",
        "c-broken.ndjson", "c-broken.ndjson.diagnostic.txt", "c-broken.ndjson.report.json"]


def test_bad_input_alone_exits_2(traces: Path) -> None:
    assert run(str(traces / "c-broken.ndjson")) == 2
    assert run(str(traces / "missing.ndjson")) == 2


def test_bad_arguments_exit_2(traces: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["validate", "--spec", "nowhere/Spec.tla", str(traces)]) == 2
    assert "no such file" in capsys.readouterr().err
    assert run(str(traces / "empty-dir-that-does-not-exist")) == 2
    empty = traces / "empty"
    empty.mkdir()
    assert run(str(empty)) == 2
    assert "no trace files" in capsys.readouterr().err


def test_ci_env_writes_default_artifacts(traces: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("CI", "true")
    assert run(str(traces / "b-edited.ndjson")) == 1
    assert (tmp_path / "validate-artifacts" / "b-edited.ndjson.diagnostic.txt").is_file()


def test_config_overrides_header_constants(tmp_path: Path) -> None:
    cfg = tmp_path / "two.cfg"
    cfg.write_text("CONSTANTS\n    MaxCount = 1\n")
    # with MaxCount = 1 the second Bump of replica 1 (step 4) is not enabled
    assert run(str(TOY_VALID), "--config", str(cfg)) == 1


def test_max_candidates_option(tmp_path: Path) -> None:
    assert run(str(TOY_VALID), "--max-candidates", "1") == 0
    assert run(str(TOY_VALID), "--max-candidates", "0") == 2


def test_worker_processes_give_the_same_reports_in_order(traces: Path) -> None:
    files = sorted(traces.iterdir()) * 2
    config = ValidatorConfig(spec=TOY_SPEC)
    seq = validate_files(files, config, jobs=1)
    par = validate_files(files, config, jobs=2)
    assert [r.file for r in par] == [str(f) for f in files]
    assert [(r.verdict, r.steps, r.error) for r in par] == [(r.verdict, r.steps, r.error) for r in seq]
    assert [r.verdict for r in par[:3]] == [Verdict.ACCEPT, Verdict.REJECT, Verdict.ERROR]


def test_apalache_engine_without_apalache_is_bad_input(monkeypatch: pytest.MonkeyPatch,
                                                       capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setenv("PATH", "/nonexistent")
    monkeypatch.delenv("APALACHE_HOME", raising=False)
    assert run(str(TOY_VALID), "--engine", "apalache") == 2
    assert "Apalache is not installed" in capsys.readouterr().err
