"""``kraftcheck verify``: stage order, arguments, exit-code policy, and a real small run."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from conformance.cli import build_parser, main
from conformance.spec_location import spec_dir

SPEC = Path(__file__).resolve().parents[2] / "spec"


def _args(tmp_path: Path, *extra: str):  # type: ignore[no-untyped-def]
    return build_parser().parse_args(["verify", "--spec-dir", str(SPEC), "--out", str(tmp_path), *extra])


def _fake(codes: dict[str, int], calls: list[list[str]]):  # type: ignore[no-untyped-def]
    def run_sub(argv: list[str]) -> int:
        calls.append(argv)
        return codes.get(argv[0], 0)

    return run_sub


def test_stages_run_in_order_with_their_arguments(tmp_path: Path) -> None:
    calls: list[list[str]] = []
    args = _args(tmp_path, "--seeds", "3-4", "--steps", "50", "--jobs", "1")
    assert args.func(args, main=_fake({}, calls)) == 0
    assert [c[0] for c in calls] == ["lint", "check", "check", "simulate", "simulate", "simulate", "simulate", "simulate",
                                     "validate"]
    assert calls[1][1:] == [str(SPEC / "MC_KRaft.tla"), "--config", str(SPEC / "MC_KRaft_small.cfg")]
    assert calls[2][1:] == [str(SPEC / "MC_KRaft.tla"), "--config", str(SPEC / "MC_KRaft_dynamic.cfg")]
    campaigns = [("static", "3", "1"), ("static", "5", "2"), ("dynamic", "3", "1"), ("dynamic", "5", "2")]
    sims = calls[3:7]
    assert [(c[c.index("--quorum") + 1], c[c.index("--voters") + 1], c[c.index("--observers") + 1]) for c in sims] == campaigns
    assert [c[c.index("--out") + 1] for c in sims] == [str(tmp_path / "traces" / f"{q}-{v}") for q, v, _ in campaigns]
    assert all(c[c.index("--seeds") + 1] == "3-4" for c in calls[3:8])
    on_files = calls[7]  # the dynamic 3-voter campaign again, on file storage under the crash model
    assert on_files[on_files.index("--storage") + 1] == "file" and on_files[on_files.index("--quorum") + 1] == "dynamic"
    assert on_files[on_files.index("--voters") + 1] == "3" and "--no-trace" in on_files and "--out" not in on_files
    assert calls[8][1] == str(tmp_path / "traces")  # validates what every campaign wrote


@pytest.mark.parametrize(
    ("codes", "expected", "stages"),
    [
        ({"check": 12}, 1, 9),  # a violation is reported, later stages still run
        ({"validate": 1}, 1, 9),
        ({"check": 3}, 3, 9),  # a limit stopped exploration: incomplete
        ({"check": 12, "validate": 3}, 1, 9),  # a violation outranks incompleteness
        ({"lint": 2}, 2, 1),  # broken input stops the run
        ({"simulate": 2}, 2, 4),
    ],
)
def test_exit_code_policy(tmp_path: Path, codes: dict[str, int], expected: int, stages: int) -> None:
    calls: list[list[str]] = []
    args = _args(tmp_path)
    assert args.func(args, main=_fake(codes, calls)) == expected
    assert len(calls) == stages


def test_skip_leaves_a_stage_out(tmp_path: Path) -> None:
    calls: list[list[str]] = []
    args = _args(tmp_path, "--skip", "check", "--skip", "lint")
    assert args.func(args, main=_fake({}, calls)) == 0
    assert [c[0] for c in calls] == ["simulate", "simulate", "simulate", "simulate", "simulate", "validate"]


def _spec_folder(where: Path) -> Path:
    where.mkdir(parents=True)
    (where / "KRaft.tla").write_text("---- MODULE KRaft ----\n====\n")
    return where


def test_spec_folder_lookup(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from conformance import spec_location

    source_tree = _spec_folder(tmp_path / "checkout" / "spec")
    monkeypatch.setattr(spec_location, "SOURCE_TREE_SPEC", source_tree)
    monkeypatch.chdir(tmp_path)
    assert spec_dir() == source_tree  # from elsewhere: the spec/ beside the source tree
    here = _spec_folder(tmp_path / "spec")
    assert spec_dir() == here  # ./spec comes first
    mine = _spec_folder(tmp_path / "mine")
    monkeypatch.setenv("KRAFTCHECK_SPEC_DIR", str(mine))
    assert spec_dir() == mine  # the environment comes before both
    monkeypatch.setenv("KRAFTCHECK_SPEC_DIR", str(tmp_path / "nowhere"))
    with pytest.raises(FileNotFoundError, match="nowhere"):
        spec_dir()  # an explicit setting that holds no spec is an error, not a fallback


def test_no_spec_anywhere_names_the_places_searched(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from conformance import spec_location

    monkeypatch.setattr(spec_location, "SOURCE_TREE_SPEC", tmp_path / "gone")
    monkeypatch.chdir(tmp_path)
    with pytest.raises(FileNotFoundError) as err:
        spec_dir()
    assert str(tmp_path / "spec") in str(err.value)
    assert str(tmp_path / "gone") in str(err.value)


def test_missing_spec_fails_verify_with_exit_2(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("KRAFTCHECK_SPEC_DIR", str(tmp_path / "nowhere"))
    calls: list[list[str]] = []
    args = build_parser().parse_args(["verify", "--out", str(tmp_path / "out")])
    assert args.func(args, main=_fake({}, calls)) == 2
    assert calls == []


def test_small_real_run_simulates_and_validates(tmp_path: Path) -> None:
    code = main(["verify", "--spec-dir", str(SPEC), "--out", str(tmp_path), "--skip", "check",
                 "--seeds", "1-3", "--steps", "200", "--jobs", "1"])
    report = json.loads((tmp_path / "validation.json").read_text())
    for campaign in ("static-3", "static-5", "dynamic-3", "dynamic-5"):
        assert len(list((tmp_path / "traces" / campaign).iterdir())) == 3
    assert code == 0, report
    assert len(report["traces"]) == 12 and {t["verdict"] for t in report["traces"]} == {"ACCEPT"}
    assert (tmp_path / "validation-junit.xml").is_file()
