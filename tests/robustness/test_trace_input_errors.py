"""Structural errors in a trace are bad input (ERROR naming file, line and field; exit 2),
never a protocol violation (REJECT): missing fields, wrong JSON types, a list for a set,
bad or decreasing ``time_ms``, ITF sets and maps that list an element twice."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from conformance.cli import main
from conformance.validate.validator import TraceValidator
from conformance.validate.verdict import Verdict
from reference.simulator import SimConfig, run_seed

ROOT = Path(__file__).resolve().parents[2]
SPEC = ROOT / "spec" / "KRaft.tla"

Edit = Callable[[list[dict[str, Any]]], int]  # edits the parsed lines, returns the 1-based line edited


@pytest.fixture(scope="module")
def trace(tmp_path_factory: pytest.TempPathFactory) -> list[dict[str, Any]]:
    """A run whose every event carries its full state (the cases below edit states)."""
    out = tmp_path_factory.mktemp("sim")
    result = run_seed(SimConfig(steps=80, out_dir=out, faults=frozenset(), full_state_every=1), 1)
    assert result.trace_path is not None
    return [json.loads(line) for line in Path(result.trace_path).read_text().splitlines()]


@pytest.fixture(scope="module")
def validator() -> TraceValidator:
    return TraceValidator(SPEC)


def _first(lines: list[dict[str, Any]], pred: Callable[[dict[str, Any]], bool]) -> int:
    return next(i for i, o in enumerate(lines) if o.get("kind") == "event" and pred(o))


def _missing_sent(lines: list[dict[str, Any]]) -> int:
    i = _first(lines, lambda o: bool(o["sent"]))
    del lines[i]["sent"]
    return i + 1


def _epoch_as_string(lines: list[dict[str, Any]]) -> int:
    i = _first(lines, lambda o: o["state"]["currentEpoch"] > 0)
    lines[i]["state"]["currentEpoch"] = str(lines[i]["state"]["currentEpoch"])
    return i + 1


def _list_for_set(lines: list[dict[str, Any]]) -> int:
    i = _first(lines, lambda o: bool(o["state"]["votesGranted"]["#set"]))
    lines[i]["state"]["votesGranted"] = lines[i]["state"]["votesGranted"]["#set"]
    return i + 1


def _init_list_for_set(lines: list[dict[str, Any]]) -> int:
    lines[1]["replicas"]["1"]["endorsers"] = []
    return 2


def _param_as_string(lines: list[dict[str, Any]]) -> int:
    i = _first(lines, lambda o: o["action"] == "BecomeCandidate")
    lines[i]["params"]["i"] = str(lines[i]["params"]["i"])
    return i + 1


def _message_missing_field(lines: list[dict[str, Any]]) -> int:
    i = _first(lines, lambda o: bool(o["sent"]))
    del lines[i]["sent"][0]["epoch"]
    return i + 1


def _set_listing_twice(lines: list[dict[str, Any]]) -> int:
    i = _first(lines, lambda o: bool(o["state"]["votesGranted"]["#set"]))
    elements = lines[i]["state"]["votesGranted"]["#set"]
    lines[i]["state"]["votesGranted"]["#set"] = elements + elements[:1]
    return i + 1


def _time(value: Any) -> Edit:
    def edit(lines: list[dict[str, Any]]) -> int:
        lines[5]["time_ms"] = value
        return 6
    return edit


def _time_backwards(lines: list[dict[str, Any]]) -> int:
    i = _first(lines, lambda o: o["time_ms"] > 0)
    lines[i + 1]["time_ms"] = lines[i]["time_ms"] - 1
    return i + 2


def _time_missing(lines: list[dict[str, Any]]) -> int:
    del lines[6]["time_ms"]
    return 7


CASES: dict[str, tuple[Edit, str]] = {
    "missing sent": (_missing_sent, '"sent"'),
    "string for an integer": (_epoch_as_string, "state.currentEpoch"),
    "list for a set": (_list_for_set, "state.votesGranted"),
    "list for a set in init": (_init_list_for_set, "replicas.1.endorsers"),
    "parameter of the wrong type": (_param_as_string, "params.i"),
    "message without a field": (_message_missing_field, "sent[0]"),
    "ITF set listing an element twice": (_set_listing_twice, "#set"),
    "negative time_ms": (_time(-5), '"time_ms"'),
    "huge time_ms": (_time(10**400), '"time_ms"'),
    "float time_ms": (_time(1e300), '"time_ms"'),
    "string time_ms": (_time("12"), '"time_ms"'),
    "time_ms going backwards": (_time_backwards, "backwards"),
    "time_ms missing after earlier events had it": (_time_missing, '"time_ms"'),
}


def _write(path: Path, lines: list[dict[str, Any]]) -> None:
    path.write_text("".join(json.dumps(o) + "\n" for o in lines))


@pytest.mark.parametrize("case", CASES, ids=list(CASES))
def test_structural_error_is_error_with_file_line_field(
    case: str, trace: list[dict[str, Any]], validator: TraceValidator, tmp_path: Path
) -> None:
    edit, field = CASES[case]
    lines = json.loads(json.dumps(trace))
    line = edit(lines)
    path = tmp_path / "bad.ndjson"
    _write(path, lines)
    report = validator.validate(path)
    assert report.verdict is Verdict.ERROR, report.summary_line()
    assert report.error is not None
    assert report.error.startswith(f"{path}:{line}:"), report.error
    assert field in report.error, report.error


def test_the_unedited_trace_is_accepted(trace: list[dict[str, Any]], validator: TraceValidator, tmp_path: Path) -> None:
    path = tmp_path / "good.ndjson"
    _write(path, trace)
    assert validator.validate(path).verdict is Verdict.ACCEPT


def test_cli_exit_code_for_structural_error_is_2(trace: list[dict[str, Any]], tmp_path: Path) -> None:
    lines = json.loads(json.dumps(trace))
    line = _list_for_set(lines)
    path = tmp_path / "bad.ndjson"
    _write(path, lines)
    out = tmp_path / "report.json"
    assert main(["validate", str(path), "--no-progress", "--json", str(out)]) == 2
    (entry,) = json.loads(out.read_text())["traces"]
    assert entry["verdict"] == "ERROR" and f"{path}:{line}:" in entry["error"]
