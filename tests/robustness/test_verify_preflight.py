"""``kraftcheck verify`` checks every argument and input before its first stage: a missing spec
file is an input error (exit 2), not a violation; a bad ``--seeds`` is found before model
checking; a stage that breaks names the stages it skipped."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from conformance.cli import build_parser

SPEC = Path(__file__).resolve().parents[2] / "spec"


def _run(argv: list[str], calls: list[list[str]], codes: dict[str, int] | None = None) -> int:
    args = build_parser().parse_args(["verify", *argv])

    def run_sub(sub: list[str]) -> int:
        calls.append(sub)
        return (codes or {}).get(sub[0], 0)

    return int(args.func(args, main=run_sub))


@pytest.mark.parametrize("missing", ["KRaft.tla", "MC_KRaft.tla", "MC_KRaft_small.cfg"])
def test_missing_spec_file_is_an_input_error_before_any_stage(
    missing: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    spec = tmp_path / "spec"
    shutil.copytree(SPEC, spec)
    (spec / missing).unlink()
    calls: list[list[str]] = []
    assert _run(["--spec-dir", str(spec), "--out", str(tmp_path / "out")], calls) == 2
    assert calls == []
    err = capsys.readouterr().err.replace("\n", "")
    assert f"{spec / missing}: no such file" in err and "no stage was run" in err


def test_bad_seeds_are_found_before_model_checking(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    calls: list[list[str]] = []
    argv = ["--spec-dir", str(SPEC), "--out", str(tmp_path), "--seeds", "5-1", "--faults", "meteor", "--steps", "0"]
    assert _run(argv, calls) == 2
    assert calls == []
    err = capsys.readouterr().err.replace("\n", "")
    assert "--seeds 5-1" in err and "--faults meteor" in err and "--steps 0" in err  # every problem at once


def test_unwritable_out_is_found_first(tmp_path: Path) -> None:
    blocker = tmp_path / "f"
    blocker.write_text("x")
    calls: list[list[str]] = []
    assert _run(["--spec-dir", str(SPEC), "--out", str(blocker)], calls) == 2
    assert calls == []


def test_a_broken_stage_names_what_was_skipped(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    calls: list[list[str]] = []
    assert _run(["--spec-dir", str(SPEC), "--out", str(tmp_path)], calls, {"check": 2}) == 2
    assert [c[0] for c in calls] == ["lint", "check"]
    err = capsys.readouterr().err
    assert ("stage check failed (error (exit 2)); skipped: check-dynamic, simulate-static-3, simulate-static-5, "
            "simulate-dynamic-3, simulate-dynamic-5, simulate-file, validate") in " ".join(err.split())
