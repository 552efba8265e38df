"""Traces grow linearly with their length (format 2: per-event changes, optional periodic full
states); the reader gives the same states for format 1 and format 2 of one run; bad deltas
are bad input."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from conformance.validate.trace_reader import TraceStream
from conformance.validate.validator import TraceValidator
from conformance.validate.verdict import Verdict
from reference.sim.simulator import SimConfig, run_seed

ROOT = Path(__file__).resolve().parents[2]
SPEC = ROOT / "spec" / "KRaft.tla"
FORMAT1 = ROOT / "tests" / "conformance" / "fixtures" / "kraft_format1.ndjson.gz"  # corpus valid/seed-1, format 1
FORMAT2 = ROOT / "tests" / "conformance" / "fixtures" / "before-writes-seed-1.ndjson.gz"  # the same run, format 2


@pytest.fixture(scope="module")
def validator() -> TraceValidator:
    return TraceValidator(SPEC)


def _events(path: Path) -> list[tuple[Any, ...]]:
    stream = TraceStream(path)
    out = [(e.step, e.replica, e.action, e.params, e.state, e.sent, e.time_ms) for e in stream.events()]
    stream.close()
    return out


def test_format_1_and_format_2_of_one_run_read_the_same(validator: TraceValidator) -> None:
    assert TraceStream(FORMAT1).header.version == 1 and TraceStream(FORMAT2).header.version == 2
    assert _events(FORMAT1) == _events(FORMAT2)
    assert validator.validate(FORMAT1).verdict is Verdict.ACCEPT
    assert validator.validate(FORMAT2).verdict is Verdict.ACCEPT


def test_periodic_full_states_read_the_same_as_deltas_only(tmp_path: Path, validator: TraceValidator) -> None:
    deltas = run_seed(SimConfig(steps=400, out_dir=tmp_path / "d"), 6).trace_path
    mixed = run_seed(SimConfig(steps=400, out_dir=tmp_path / "m", full_state_every=7), 6).trace_path
    assert deltas is not None and mixed is not None
    raw = [json.loads(t) for t in mixed.read_text().splitlines()]
    assert raw[0]["full_every"] == 7
    full = [e["step"] for e in raw if e["kind"] == "event" and "state" in e]
    assert full == list(range(7, 401, 7))
    assert _events(deltas) == _events(mixed)
    assert validator.validate(mixed).verdict is Verdict.ACCEPT


def test_truncations_are_written_as_keep_and_append(validator: TraceValidator) -> None:
    """Seed 3 of the corpus truncates a follower's log; its delta keeps a shorter prefix."""
    path = ROOT / "traces" / "corpus" / "valid" / "seed-3.ndjson.gz"
    from conformance.validate.mutations import read_lines

    lines = read_lines(path, expand=False)
    length = {rid: len(s["log"]) for rid, s in lines[1]["replicas"].items()}
    cuts = 0
    for e in lines[2:]:
        change = e.get("delta", {}).get("log") if e["kind"] == "event" else None
        if change is not None:
            cuts += change["#keep"] < length[str(e["replica"])]
            added = change["#append"]  # entries, or a reference to n of them (format 3)
            length[str(e["replica"])] = change["#keep"] + (added["#slice"][3] if isinstance(added, dict) else len(added))
    assert cuts >= 1
    assert validator.validate(path).verdict is Verdict.ACCEPT


def test_bytes_per_event_do_not_grow_with_the_length(tmp_path: Path) -> None:
    sizes = {}
    for steps in (300, 3000):
        path = run_seed(SimConfig(steps=steps, out_dir=tmp_path / str(steps)), 1).trace_path
        assert path is not None
        sizes[steps] = path.stat().st_size / steps
    assert sizes[3000] < 1.3 * sizes[300], sizes


def _first_log_append(lines: list[dict[str, Any]]) -> int:
    return next(i for i, e in enumerate(lines) if e.get("kind") == "event" and "log" in e.get("delta", {}))


@pytest.mark.parametrize(("edit", "needle"), [
    (lambda e: e["delta"]["log"].__setitem__("#keep", 999), "#keep must be an integer in 0.."),
    (lambda e: e["delta"].__setitem__("nonsense", 1), "delta.nonsense: not a variable"),
    (lambda e: e.__setitem__("state", {}), 'either "state" or "delta"'),
    (lambda e: e["delta"].__setitem__("replicaEndOffset", {"#update": [[77, 1]]}), "not in the function's domain"),
    (lambda e: e["delta"].__setitem__("role", {"#keep": 0, "#append": []}), "not a sequence"),
])
def test_bad_deltas_are_errors(edit: Any, needle: str, tmp_path: Path, validator: TraceValidator) -> None:
    from conformance.validate.mutations import read_lines

    lines = read_lines(FORMAT2, expand=False)
    i = _first_log_append(lines)
    edit(lines[i])
    path = tmp_path / "bad.ndjson"
    path.write_text("".join(json.dumps(x) + "\n" for x in lines))
    report = validator.validate(path)
    assert report.verdict is Verdict.ERROR and report.error is not None
    assert report.error.startswith(f"{path}:{i + 1}:") and needle in report.error, report.error
