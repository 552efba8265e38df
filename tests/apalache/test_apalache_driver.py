"""The Apalache driver: discovery, command lines, outcomes, ITF decoding, subprocess
control (timeouts, environment), the inductive recipe and the ``apalache`` subcommand.

Apalache is not installed here; a stand-in (fixtures/fake_apalache.py) plays its part.
"""

from __future__ import annotations

import json
import os
import shutil
import stat
import sys
import time
from pathlib import Path

import pytest

from conformance import apalache as A
from conformance import apalache_cmd
from conformance.tla.cfg import read_config
from conformance.tla.model import Model

FIXTURES = Path(__file__).resolve().parent / "fixtures"
SPEC = Path(__file__).resolve().parents[2] / "spec"


def make_executable(path: Path, body: str) -> Path:
    path.write_text(body, encoding="utf-8")
    path.chmod(path.stat().st_mode | stat.S_IXUSR | stat.S_IXGRP | stat.S_IXOTH)
    return path


@pytest.fixture
def fake(tmp_path: Path) -> Path:
    """An executable ``apalache-mc`` that runs the stand-in with this Python."""
    bindir = tmp_path / "bin"
    bindir.mkdir()
    return make_executable(bindir / "apalache-mc",
                           f"#!{sys.executable}\nimport runpy, sys\nsys.argv[0] = {str(FIXTURES / 'fake_apalache.py')!r}\n"
                           f"runpy.run_path(sys.argv[0], run_name='__main__')\n")


@pytest.fixture
def java(tmp_path: Path) -> Path:
    home = tmp_path / "jdk"
    (home / "bin").mkdir(parents=True)
    make_executable(home / "bin" / "java", "#!/bin/sh\necho 'openjdk 17'\n")
    return home


@pytest.fixture
def counter(tmp_path: Path) -> Path:
    work = tmp_path / "specs"
    work.mkdir()
    for name in ("Counter.tla", "Counter.violation.itf.json"):
        shutil.copy(FIXTURES / name, work / name)
    return work / "Counter.tla"


def calls(spec: Path) -> list[dict]:
    path = spec.parent / "calls.jsonl"
    return [json.loads(line) for line in path.read_text().splitlines()] if path.exists() else []


# --- discovery ---------------------------------------------------------------


def test_explicit_path_wins(fake: Path) -> None:
    assert A.find_executable(fake, env={"PATH": ""}) == fake


def test_found_on_path(fake: Path) -> None:
    assert A.find_executable(None, env={"PATH": str(fake.parent)}) == fake


def test_found_under_apalache_home(fake: Path) -> None:
    assert A.find_executable(None, env={"PATH": "", "APALACHE_HOME": str(fake.parent.parent)}) == fake


def test_missing_apalache_names_the_three_places(tmp_path: Path) -> None:
    with pytest.raises(A.ApalacheNotFound) as err:
        A.find_executable(tmp_path / "nope", env={"PATH": str(tmp_path), "APALACHE_HOME": str(tmp_path)})
    text = str(err.value)
    assert "--apalache" in text and "on PATH" in text and "APALACHE_HOME/bin/apalache-mc" in text
    with pytest.raises(A.ApalacheNotFound, match="APALACHE_HOME is not set"):
        A.find_executable(None, env={"PATH": ""})


def test_installation_reads_version_and_requires_java(fake: Path, java: Path) -> None:
    env = {"PATH": os.environ["PATH"], "JAVA_HOME": str(java)}
    inst = A.Apalache(fake, env=env).installation()
    assert inst.version == "0.47.2" and inst.java == str(java / "bin" / "java")
    with pytest.raises(A.ApalacheError, match="needs Java"):
        A.Apalache(fake, env={"PATH": "/nonexistent"}).installation()


def test_version_parsing() -> None:
    assert A.parse_version("0.44.11\n") == "0.44.11"
    assert A.parse_version("# APALACHE version: 0.30.1 | build: abc") == "0.30.1"
    with pytest.raises(A.ApalacheError, match="cannot read a version"):
        A.parse_version("no version here")


# --- command lines and outcomes -------------------------------------------------


def test_check_command_line() -> None:
    cmd = A.check_command(Path("/opt/apalache-mc"), Path("/s/MC.tla"), Path("/t/out"), Path("/t/run"),
                          init="Init", next="Next", inv=["TypeOK", "Safety"], cinit="ConstInitSmall",
                          length=7, max_error=3, no_deadlock=True)
    assert cmd == ["/opt/apalache-mc", "check", "--out-dir=/t/out", "--run-dir=/t/run", "--init=Init",
                   "--next=Next", "--inv=TypeOK,Safety", "--cinit=ConstInitSmall", "--length=7",
                   "--max-error=3", "--no-deadlock", "/s/MC.tla"]


def test_simulate_and_typecheck_command_lines() -> None:
    sim = A.simulate_command(Path("a"), Path("S.tla"), Path("o"), Path("r"), max_run=20, length=5,
                             inv=["Inv"], config=Path("S.cfg"))
    assert sim == ["a", "simulate", "--out-dir=o", "--run-dir=r", "--config=S.cfg", "--inv=Inv",
                   "--length=5", "--max-run=20", "S.tla"]
    assert A.typecheck_command(Path("a"), Path("S.tla"), Path("o"), Path("r")) == [
        "a", "typecheck", "--out-dir=o", "--run-dir=r", "S.tla"]
    with pytest.raises(ValueError):
        A.check_command(Path("a"), Path("S.tla"), Path("o"), Path("r"), length=-1)


def test_inductive_recipe_steps() -> None:
    steps = A.inductive_steps("Init", "IndInit", "IndInv", "Safety")
    assert [(s.init, s.inv, s.length) for s in steps] == [
        ("Init", "IndInv", 0), ("IndInit", "IndInv", 1), ("IndInit", "Safety", 0)]


@pytest.mark.parametrize(("code", "outcome"), [(0, "ok"), (12, "violation"), (75, "eval-error"),
                                               (120, "type-error"), (150, "parse-error"), (255, "error"),
                                               (None, "timeout"), (3, "error")])
def test_exit_codes_classified(code: int | None, outcome: str) -> None:
    assert A.classify(code, "")[0] == outcome


def test_summary_line_is_the_telling_one() -> None:
    out = "I@1 Starting\nThe outcome is: Error I@10:00:00.000\nChecker has found an error\nEXITCODE: ERROR (12)\n"
    assert A.classify(12, out) == ("violation", "Checker has found an error")
    assert A.classify(3, "")[1] == "unexpected Apalache exit code 3"


# --- ITF counterexamples ----------------------------------------------------------


def test_counterexample_decoded_and_labelled_with_actions() -> None:
    model = Model.load(FIXTURES / "Counter.tla")
    data = json.loads((FIXTURES / "Counter.violation.itf.json").read_text())
    steps = A.decode_counterexample(data, model)
    assert [s.action for s in steps] == ["Init", "Inc", "Inc"]
    assert [s.state for s in steps] == [(0,), (1,), (2,)]
    unlabelled = A.decode_counterexample(data)
    assert [s.action for s in unlabelled] == ["Init", "?", "?"]


def test_kraft_counterexample_in_apalache_encoding_is_labelled() -> None:
    cfg = read_config(SPEC / "MC_KRaft_volatile_vote.cfg")
    model = Model.load(SPEC / "MC_KRaft.tla", constants=cfg.constants, overrides=cfg.overrides)
    data = json.loads((FIXTURES / "MC_KRaft.violation.itf.json").read_text())
    steps = A.decode_counterexample(data, model)
    assert [s.action for s in steps] == ["Init", "BecomeCandidate", "BecomeCandidate", "Restart",
                                         "HandleVoteRequest"]
    assert steps[3].params == (("i", 1),)
    last = dict(zip(model.variables, steps[-1].state, strict=True))
    assert model.eval_state("VoteOnce", steps[-1].state) is False
    assert (1, 1, 2) in last["votes"]


def test_counterexample_lacking_a_variable_is_an_error() -> None:
    model = Model.load(FIXTURES / "Counter.tla")
    data = {"vars": ["y"], "states": [{"y": 1}]}
    with pytest.raises(A.ApalacheError, match="lacks variable"):
        A.decode_counterexample(data, model, "v.itf.json")


# --- running the process ----------------------------------------------------------


def test_clean_check_run(fake: Path, counter: Path) -> None:
    out = A.Apalache(fake, timeout=60).check(counter, init="Init", inv=["Small"], length=3)
    assert out.ok and out.exit_code == 0 and out.counterexample == []
    assert out.message == "The outcome is: NoError"
    (call,) = calls(counter)
    run_dir = next(a.split("=", 1)[1] for a in call["argv"] if a.startswith("--run-dir="))
    assert not Path(run_dir).exists()  # the temporary directory is gone


def test_violation_run_reads_the_counterexample(fake: Path, counter: Path) -> None:
    model = Model.load(counter)
    out = A.Apalache(fake, timeout=60).check(counter, model=model, inv=["SmallViolated"], length=3)
    assert out.outcome == "violation" and out.exit_code == 12
    assert [s.action for s in out.counterexample] == ["Init", "Inc", "Inc"]
    assert out.itf is not None and out.itf["vars"] == ["x"]


def test_environment_is_sanitized(fake: Path, counter: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SECRET_TOKEN", "x")
    A.Apalache(fake, timeout=60).typecheck(counter)
    (call,) = calls(counter)
    assert "SECRET_TOKEN" not in call["env"]
    assert set(call["env"]) <= set(A.PASSED_ENV) | {"HOME", "TMPDIR"}
    assert call["env"]["HOME"].startswith(call["cwd"])
    assert call["argv"][0] == "typecheck"


def test_type_error_outcome(fake: Path, counter: Path) -> None:
    counter.write_text(counter.read_text() + "\\* BADTYPE\n")
    out = A.Apalache(fake, timeout=60).typecheck(counter)
    assert out.outcome == "type-error" and out.exit_code == 120
    assert out.message is not None and out.message.startswith("Typing input error")


def test_timeout_kills_the_process_group(fake: Path, counter: Path) -> None:
    start = time.monotonic()
    out = A.Apalache(fake, timeout=3).check(counter, inv=["Hang"])
    assert out.outcome == "timeout" and out.exit_code is None
    assert time.monotonic() - start < 30
    child = int((counter.parent / "child.pid").read_text())
    for _ in range(50):
        if not _alive(child):
            break
        time.sleep(0.1)
    assert not _alive(child), "the child of the killed run survived"


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    try:  # a zombie waiting for its parent is dead for our purpose
        return Path(f"/proc/{pid}/stat").read_text().split()[2] != "Z"
    except OSError:
        return True


def test_inductive_stops_at_the_first_failing_run(fake: Path, counter: Path) -> None:
    runs = A.Apalache(fake, timeout=60).inductive(counter, ind_inv="SmallViolated", safety="Small")
    assert [(s.name, o.outcome) for s, o in runs] == [("initiation", "violation")]
    runs = A.Apalache(fake, timeout=60).inductive(counter, ind_inv="Small", safety="Small", ind_init="IndInit")
    assert [o.outcome for _, o in runs] == ["ok", "ok", "ok"]
    argvs = [c["argv"] for c in calls(counter)][1:]
    assert ["--init=Init" in a and "--length=0" in a for a in argvs] == [True, False, False]
    assert ["--init=IndInit" in a and "--length=1" in a for a in argvs] == [False, True, False]


# --- the subcommand -----------------------------------------------------------------


def cli(*argv: str) -> int:
    import argparse

    parser = argparse.ArgumentParser()
    apalache_cmd.register(parser.add_subparsers())
    args = parser.parse_args(["apalache", *argv])
    return int(args.func(args))


def test_subcommand_exit_codes_and_json(fake: Path, counter: Path, java: Path,
                                        monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setenv("JAVA_HOME", str(java))
    assert cli("check", str(counter), "--apalache", str(fake), "--inv", "Small") == 0
    capsys.readouterr()
    itf_out = counter.parent / "cex.itf.json"
    code = cli("check", str(counter), "--apalache", str(fake), "--inv", "SmallViolated", "--json",
               "--itf", str(itf_out))
    assert code == 12
    report = json.loads(capsys.readouterr().out)
    assert report["runs"][0]["outcome"] == "violation"
    assert [s["action"] for s in report["runs"][0]["trace"]] == ["Init", "Inc", "Inc"]
    assert json.loads(itf_out.read_text())["vars"] == ["x"]
    assert cli("check", str(counter), "--apalache", str(fake), "--inv", "Crash") == 1


def test_subcommand_without_apalache_is_a_clear_error(counter: Path, monkeypatch: pytest.MonkeyPatch,
                                                      capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setenv("PATH", "/nonexistent")
    monkeypatch.delenv("APALACHE_HOME", raising=False)
    assert cli("typecheck", str(counter)) == 2
    err = capsys.readouterr().err
    assert "Apalache is not installed" in err and "APALACHE_HOME" in err
