"""Every output path is checked before the work starts (exit 2 and a message naming the option
and the path); a missing parent folder is created; a closed stdout pipe ends the run quietly."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from conformance.cli import main

ROOT = Path(__file__).resolve().parents[2]
TOY = ROOT / "tests" / "conformance" / "fixtures"


@pytest.fixture
def blocker(tmp_path: Path) -> Path:
    """A regular file: nothing can be created under it."""
    f = tmp_path / "a-file"
    f.write_text("x")
    return f


def _validate(*extra: str) -> list[str]:
    return ["validate", str(TOY / "toy_valid.ndjson"), "--spec", str(TOY / "Toy.tla"), "--no-progress", *extra]


@pytest.mark.parametrize("flag", ["--json", "--junit"])
def test_validate_report_path_unwritable(flag: str, blocker: Path, capsys: pytest.CaptureFixture[str]) -> None:
    target = blocker / "report.out"
    assert main(_validate(flag, str(target))) == 2
    captured = capsys.readouterr()
    assert f"{flag} {target}" in captured.err.replace("\n", "")
    assert "Trace validation" not in captured.out  # refused before validating anything


@pytest.mark.parametrize("flag", ["--json", "--junit"])
def test_validate_report_path_is_a_folder(flag: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(_validate(flag, str(tmp_path))) == 2
    assert "is a folder" in capsys.readouterr().err.replace("\n", "")


def test_validate_artifacts_path_is_a_file(blocker: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(_validate("--artifacts", str(blocker))) == 2
    assert "not a folder" in capsys.readouterr().err.replace("\n", "")


def test_validate_report_in_a_missing_folder_is_created(tmp_path: Path) -> None:
    target = tmp_path / "new" / "deeper" / "report.json"
    assert main(_validate("--json", str(target))) == 0
    assert target.is_file()


@pytest.mark.parametrize("where", ["existing file", "under a file"])
def test_simulate_out_unusable(where: str, blocker: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = blocker if where == "existing file" else blocker / "traces"
    assert main(["simulate", "--seeds", "1", "--steps", "5", "--out", str(out)]) == 2
    assert f"--out {out}" in capsys.readouterr().err.replace("\n", "")


def test_simulate_out_with_missing_parents_is_created(tmp_path: Path) -> None:
    out = tmp_path / "x" / "y"
    assert main(["simulate", "--seeds", "1", "--steps", "5", "--out", str(out)]) == 0
    assert list(out.glob("*.ndjson"))


def test_check_itf_path_unwritable(blocker: Path, capsys: pytest.CaptureFixture[str]) -> None:
    spec = ROOT / "tests" / "conformance" / "fixtures" / "Toy.tla"
    assert main(["check", str(spec), "--config", str(TOY / "Toy.cfg"), "--itf", str(blocker / "cex.itf.json")]) == 2
    err = capsys.readouterr().err
    assert "--itf" in err and "states generated" not in err


@pytest.mark.parametrize("command", ["check", "validate", "storage"])
def test_closed_stdout_pipe_exits_quietly(command: str, tmp_path: Path) -> None:
    argv = {
        "check": ["check", str(TOY / "Toy.tla"), "--config", str(TOY / "Toy.cfg")],
        "validate": _validate(),
        "storage": ["storage", "dump", str(tmp_path)],
    }[command]
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    proc = subprocess.Popen([sys.executable, "-m", "conformance", *argv],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env, cwd=ROOT)
    assert proc.stdout is not None and proc.stderr is not None
    proc.stdout.close()  # the reader goes away before the report is printed
    err = proc.stderr.read().decode()
    code = proc.wait(timeout=120)
    assert "Traceback" not in err and "BrokenPipe" not in err, err
    assert code in (1, 141)  # rich's console exits with 1, plain prints with 128 + SIGPIPE
