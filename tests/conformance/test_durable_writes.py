"""Durable writes in traces: the reference logs each step's ``writes`` (the files it made
durable before its sends, in order), the simulator crashes inside a step's window, and the
validator checks the writes against the spec's ``DurableQuorumState`` / ``DurableLog`` and
``DurableFiles`` order: the KIP order is accepted, a write after the sends (bug
``respond-then-fsync``), a missing, extra or reordered write is rejected at its step; traces
written before the field existed are still read."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from conformance.tla.cfg import read_config
from conformance.validate.mutations import read_lines
from conformance.validate.validator import TraceValidator
from conformance.validate.verdict import Verdict
from reference.sim.simulator import SimConfig, run_seed

ROOT = Path(__file__).resolve().parents[2]
SPEC = ROOT / "spec" / "KRaft.tla"
FIXTURES = Path(__file__).parent / "fixtures"


@pytest.fixture(scope="module")
def validator() -> TraceValidator:
    """For traces the simulator writes now: their headers give every constant (the
    ``--config`` constants of ``legacy_validator`` would override them, foreign requests
    included)."""
    return TraceValidator(SPEC)


@pytest.fixture(scope="module")
def legacy_validator() -> TraceValidator:
    """For old traces whose headers lack constants."""
    return TraceValidator(SPEC, constants=read_config(FIXTURES / "kraft_toggles.cfg").constants)


def _lines(validator: TraceValidator, lines: list[dict[str, Any]], name: str) -> Any:
    return validator.validate([json.dumps(x) + "\n" for x in lines], name=name)


@pytest.mark.parametrize("quorum", ["static", "dynamic"])
def test_correct_runs_with_crashes_inside_steps_conform(validator: TraceValidator, tmp_path: Path,
                                                        quorum: str) -> None:
    config = SimConfig(out_dir=tmp_path, steps=400, quorum=quorum, fault_interval_ms=400)
    inside = 0
    for seed in range(1, 7):
        result = run_seed(config, seed)
        assert result.ok, result.failures
        inside += result.stats.crashes_in_step
        assert result.trace_path is not None
        r = validator.validate(result.trace_path)
        assert r.verdict is Verdict.ACCEPT, r.summary_line() + "\n" + (r.diagnostic.render() if r.diagnostic else "")
    assert inside > 0, "no crash fell inside a step's window"


def test_respond_then_fsync_is_rejected_at_its_first_late_write(validator: TraceValidator, tmp_path: Path) -> None:
    """Every seed is rejected, exactly at the first step whose writes differ from the same
    seed without the bug (the first write the bug postpones past the step's sends)."""
    for seed in range(1, 6):
        runs = {}
        for bug in (None, "respond-then-fsync"):
            result = run_seed(SimConfig(out_dir=tmp_path / str(bug), steps=300, bug=bug), seed)
            assert result.trace_path is not None
            runs[bug] = result.trace_path
        clean = [x for x in read_lines(runs[None]) if x["kind"] == "event"]
        buggy = [x for x in read_lines(runs["respond-then-fsync"]) if x["kind"] == "event"]
        # the bug's steps log no write before their sends; the late fsync is a Flush step
        assert any(e["action"] == "Flush" and e["writes"] for e in buggy)
        first = next(b for c, b in zip(clean, buggy, strict=False) if c["writes"] != b["writes"])
        assert first["writes"] == []
        r = validator.validate(runs["respond-then-fsync"])
        d = r.diagnostic
        assert r.verdict is Verdict.REJECT and d is not None, r.summary_line()
        assert d.step == first["step"]
        assert [m.variable for m in d.mismatches] == ["writes"]
        assert d.mismatches[0].observed == "<<>>"


def _valid_events(tmp_path: Path) -> list[dict[str, Any]]:
    result = run_seed(SimConfig(out_dir=tmp_path, steps=300, quorum="static"), 3)
    assert result.trace_path is not None
    return read_lines(result.trace_path)


def test_writes_in_another_order_are_rejected(validator: TraceValidator, tmp_path: Path) -> None:
    lines = _valid_events(tmp_path)
    k = next(i for i, x in enumerate(lines) if x.get("writes") == ["quorumState", "log"])
    assert _lines(validator, lines, "ok.ndjson").verdict is Verdict.ACCEPT
    lines[k]["writes"] = ["log", "quorumState"]
    r = _lines(validator, lines, "reordered.ndjson")
    assert r.verdict is Verdict.REJECT and r.diagnostic is not None
    assert r.diagnostic.step == lines[k]["step"]
    assert "writes" in r.diagnostic.reason


@pytest.mark.parametrize("change", ["drop", "add"])
def test_a_missing_or_extra_write_is_rejected(validator: TraceValidator, tmp_path: Path, change: str) -> None:
    lines = _valid_events(tmp_path)
    if change == "drop":
        k = next(i for i, x in enumerate(lines) if x.get("writes") == ["quorumState"])
        lines[k]["writes"] = []
    else:
        k = next(i for i, x in enumerate(lines) if x.get("action") == "SendFetchRequest")
        lines[k]["writes"] = ["log"]
    r = _lines(validator, lines, f"{change}.ndjson")
    assert r.verdict is Verdict.REJECT and r.diagnostic is not None
    assert r.diagnostic.step == lines[k]["step"]
    assert [m.variable for m in r.diagnostic.mismatches] == ["writes"]


def test_malformed_writes_are_bad_input(validator: TraceValidator, tmp_path: Path) -> None:
    lines = _valid_events(tmp_path)
    k = next(i for i, x in enumerate(lines) if x.get("kind") == "event")
    lines[k]["writes"] = ["meta.properties"]
    r = _lines(validator, lines, "bad.ndjson")
    assert r.verdict is Verdict.ERROR and r.error is not None
    assert r.error.startswith(f"bad.ndjson:{k + 1}:") and "writes" in r.error


@pytest.mark.parametrize("name", ["before-writes-seed-1.ndjson.gz", "before-writes-dynamic-seed-1.ndjson.gz"])
def test_traces_written_before_the_writes_field_are_read(legacy_validator: TraceValidator, name: str) -> None:
    lines = read_lines(FIXTURES / name)
    assert "SendBeforePersist" not in lines[0]["constants"]
    assert not any("writes" in x for x in lines)
    r = legacy_validator.validate(FIXTURES / name)
    assert r.verdict is Verdict.ACCEPT, r.summary_line()


def test_memory_storage_late_fsync() -> None:
    """A staged write (bug respond-then-fsync) is durable only after ``flush``; a crash drops it."""
    from reference.core.messages import Entry
    from reference.storage.base import MemoryStorage, QuorumState

    store = MemoryStorage(1, "c")
    store.write_quorum_state(QuorumState(leader_epoch=1, voted_id=1, leader_id=-1, current_voters=(1, 2, 3)))
    store.stage_quorum_state(QuorumState(leader_epoch=2, voted_id=2, leader_id=-1, current_voters=(1, 2, 3)))
    store.append([Entry(epoch=1, kind="data", value=7)])
    assert store.has_unflushed()
    store.crash()
    assert not store.has_unflushed() and store.read_log() == []
    qs = store.read_quorum_state()
    assert qs is not None and (qs.leader_epoch, qs.voted_id) == (1, 1)
    store.stage_quorum_state(QuorumState(leader_epoch=2, voted_id=2, leader_id=-1, current_voters=(1, 2, 3)))
    store.flush()
    qs = store.read_quorum_state()
    assert qs is not None and (qs.leader_epoch, qs.voted_id) == (2, 2)


def test_trace_lines_follow_the_schema(tmp_path: Path) -> None:
    """Every line of fresh traces (static, dynamic, with the late-fsync bug) and of a trace
    written before ``writes`` existed fits ``traces/schemas/kraft-trace.schema.json``; a
    misspelt file name in ``writes`` does not."""
    import jsonschema

    from conformance.json_output import SCHEMAS

    schema = json.loads(SCHEMAS["kraft-trace"].read_text())
    jsonschema.Draft202012Validator.check_schema(schema)
    check = jsonschema.Draft202012Validator(schema)
    paths = [FIXTURES / "before-writes-seed-1.ndjson.gz"]
    for quorum, bug in (("static", None), ("dynamic", None), ("static", "respond-then-fsync")):
        result = run_seed(SimConfig(out_dir=tmp_path / f"{quorum}-{bug}", steps=200, quorum=quorum, bug=bug), 2)
        assert result.trace_path is not None
        paths.append(result.trace_path)
    slices = 0
    for path in paths:
        for line in read_lines(path):
            check.validate(line)
        for line in read_lines(path, expand=False):  # as written: deltas and references
            check.validate(line)
            slices += json.dumps(line).count('"#slice"')
    assert slices > 0
    bad = next(x for x in read_lines(paths[1]) if x.get("kind") == "event")
    bad["writes"] = ["quorum-state"]
    assert not check.is_valid(bad)
    grown = next(x for x in read_lines(paths[1], expand=False)
                 if x.get("kind") == "event" and '"#slice"' in json.dumps(x.get("delta")))
    assert check.is_valid(grown)
    (ref,) = [c["#append"] for c in grown["delta"].values() if isinstance(c, dict) and "#append" in c]
    ref["#slice"] = ref["#slice"][:3]  # no count
    assert not check.is_valid(grown)


def test_cli_simulate_and_validate_catch_respond_then_fsync(tmp_path: Path) -> None:
    """``kraftcheck simulate --inject-bug respond-then-fsync`` over seeds 1..8, then
    ``kraftcheck validate``: every trace is rejected (exit 1), at a step whose writes differ."""
    from conformance.cli import main

    out = tmp_path / "bug"
    assert main(["simulate", "--seeds", "1-8", "--steps", "300", "--out", str(out), "--jobs", "1",
                 "--inject-bug", "respond-then-fsync"]) in (0, 1)
    report = tmp_path / "report.json"
    assert main(["validate", str(out), "--jobs", "1", "--no-progress", "--json", str(report)]) == 1
    doc = json.loads(report.read_text())
    assert doc["totals"]["traces"] == 8 and doc["totals"]["REJECT"] == 8
    for trace in doc["traces"]:
        assert any(m["variable"] == "writes" for m in trace["diagnostic"]["mismatches"])


def _window_crash(tmp_path: Path) -> tuple[list[dict[str, Any]], dict[str, Any], dict[str, Any]]:
    """A static run with a crash between a new leader's two writes: (its lines, the event
    that logs the quorum-state write alone, the same replica's next event)."""
    for seed in range(1, 30):
        result = run_seed(SimConfig(out_dir=tmp_path, steps=400), seed)
        if result.stats.crashes_between_writes == 0:
            continue
        assert result.trace_path is not None
        lines = list(read_lines(result.trace_path))
        events = [x for x in lines if x["kind"] == "event"]
        k, cut = next((k, e) for k, e in enumerate(events) if e["writes"] == ["quorumState"]
                      and e.get("delta", e.get("state", {})).get("role") == "Leader")
        after = next(e for e in events[k + 1:] if e["replica"] == cut["replica"])
        return lines, cut, after
    raise AssertionError("no crash between two writes in seeds 1..29")


def test_a_crash_between_a_new_leaders_writes_conforms(validator: TraceValidator, tmp_path: Path) -> None:
    """The trace logs the winning step's quorum-state write alone, no message, and the
    replica's next step is its Restart: resigned in the epoch it won, without the leaderChange
    record. Accepted; rejected at that step when the header says no crash falls between two
    writes (CrashBetweenWrites = FALSE), and at the Restart when the step claims both writes
    (the spec's restart then keeps the record)."""
    lines, cut, after = _window_crash(tmp_path)
    assert cut["sent"] == [] and after["action"] == "Restart"
    assert lines[0]["constants"]["CrashBetweenWrites"] is True
    r = _lines(validator, lines, "window")
    assert r.verdict is Verdict.ACCEPT, r.summary_line() + "\n" + (r.diagnostic.render() if r.diagnostic else "")
    atomic = json.loads(json.dumps(lines))
    atomic[0]["constants"]["CrashBetweenWrites"] = False
    r = _lines(validator, atomic, "atomic-writes")
    assert r.verdict is Verdict.REJECT and r.diagnostic is not None and r.diagnostic.step == cut["step"], r.summary_line()
    both = json.loads(json.dumps(lines))
    next(x for x in both if x.get("step") == cut["step"])["writes"] = ["quorumState", "log"]
    r = _lines(validator, both, "both-writes")
    assert r.verdict is Verdict.REJECT and r.diagnostic is not None and r.diagnostic.step == after["step"], r.summary_line()
