"""Format 3: a run of log entries that a replica's logged log already holds is written as a
reference (``{"#slice": [r, v, a, n]}``); the reader gives the same values as the entries
written out, resolves references against the states before the event, and reports a bad
reference as bad input naming file and line."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from conformance.validate.mutations import read_lines, write_lines
from conformance.validate.trace_reader import TraceFormatError, TraceStream
from conformance.validate.validator import TraceValidator
from conformance.validate.verdict import Verdict
from reference.core.messages import Entry, Message
from reference.sim.simulator import SimConfig, run_seed
from reference.trace.trace_writer import TraceWriter
from tests.robustness.test_trace_deltas import _events

ROOT = Path(__file__).resolve().parents[2]
SPEC = ROOT / "spec" / "KRaft.tla"


def _slices(obj: Any) -> int:
    return json.dumps(obj).count('"#slice"')


def test_references_read_as_the_entries_written_out(tmp_path: Path) -> None:
    """The reader's resolution and the mutations' JSON-level one (written out as entries)
    agree on every event of a run with disk loss (records re-fetched, appended by reference)."""
    path = run_seed(SimConfig(steps=3000, out_dir=tmp_path / "run", quorum="static"), 1).trace_path
    assert path is not None
    raw = read_lines(path, expand=False)
    assert raw[0]["version"] == 3
    in_records = sum(_slices(e["sent"]) + _slices(e["params"]) for e in raw if e.get("kind") == "event")
    in_appends = sum(_slices(e.get("delta")) for e in raw if e.get("kind") == "event")
    assert in_records > 0 and in_appends > 0
    spelt = tmp_path / "spelt.ndjson"
    write_lines(spelt, read_lines(path))  # every reference replaced by its entries, full states
    assert _slices(read_lines(spelt, expand=False)) == 0
    assert _events(path) == _events(spelt)
    validator = TraceValidator(SPEC)
    assert validator.validate(path).verdict is Verdict.ACCEPT
    assert validator.validate(spelt).verdict is Verdict.ACCEPT


def _lines(version: int = 3) -> list[dict[str, Any]]:
    def entry(epoch: int, value: int) -> dict[str, Any]:
        return {"epoch": epoch, "kind": "data", "value": value}

    return [
        {"kind": "header", "format": "kraft-trace", "version": version, "spec": "Toy", "constants": {}},
        {"kind": "init", "replicas": {
            "1": {"log": [entry(1, 1), entry(1, 2)], "role": "Leader"},
            "2": {"log": [entry(1, 1)], "role": "Follower"},
        }},
        {"kind": "event", "step": 1, "replica": 1, "action": "Step",
         "params": {"m": {"records": {"#slice": [2, "log", 0, 1]}}},
         "delta": {"log": {"#keep": 0, "#append": [entry(2, 9)]}},
         "sent": [{"records": {"#slice": [1, "log", 0, 2]}}]},
        {"kind": "event", "step": 2, "replica": 2, "action": "Step", "params": {},
         "delta": {"log": {"#keep": 0, "#append": {"#slice": [1, "log", 0, 1]}}},
         "sent": [{"records": {"#slice": [1, "log", 0, 1]}}]},
    ]


def test_references_are_to_the_states_before_the_event(tmp_path: Path) -> None:
    """Event 1 replaces replica 1's log and sends records that refer to it: they are the
    entries of before the step; event 2 refers to the log event 1 left."""
    path = tmp_path / "t.ndjson"
    write_lines(path, _lines())
    e1, e2 = TraceStream(path).events()
    old = ({"epoch": 1, "kind": "data", "value": 1}, {"epoch": 1, "kind": "data", "value": 2})
    new = ({"epoch": 2, "kind": "data", "value": 9},)

    def plain(records: Any) -> list[dict[str, Any]]:
        return [dict(x.map) for x in records]

    assert plain(e1.sent[0].map["records"]) == list(old)
    assert plain(e1.params["m"].map["records"]) == list(old[:1])
    assert plain(e1.state["log"]) == list(new)
    assert plain(e2.state["log"]) == list(new) and plain(e2.sent[0].map["records"]) == list(new)


@pytest.mark.parametrize(("where", "ref", "needle"), [
    ("sent", [7, "log", 0, 1], "replica 7 is not one of the init line's replicas"),
    ("sent", [1, "role", 0, 1], "replica 1 has no sequence variable 'role'"),
    ("sent", [1, "log", 1, 2], "elements 2..3 of replica 1's log, which has 2"),
    ("sent", [1, "log", 0, 0], "elements 1..0 of replica 1's log"),
    ("sent", [1, "log", 0], "must be [replica, variable, offset, count]"),
    ("append", [2, "log", 0, 5], "elements 1..5 of replica 2's log, which has 1"),
    ("append", ["2", "log", 0, 1], "must be [replica, variable, offset, count]"),
])
def test_bad_references_are_errors_naming_the_line(where: str, ref: Any, needle: str, tmp_path: Path) -> None:
    lines = _lines()
    if where == "sent":
        lines[2]["sent"][0]["records"] = {"#slice": ref}
        line = 3
    else:
        lines[3]["delta"]["log"]["#append"] = {"#slice": ref}
        line = 4
    path = tmp_path / "bad.ndjson"
    write_lines(path, lines)
    with pytest.raises(TraceFormatError) as caught:
        list(TraceStream(path).events())
    assert caught.value.line == line and needle in caught.value.message, caught.value.message


def test_references_are_not_read_in_format_2(tmp_path: Path) -> None:
    path = tmp_path / "v2.ndjson"
    write_lines(path, _lines(version=2))
    with pytest.raises(TraceFormatError) as caught:
        list(TraceStream(path).events())
    assert caught.value.line == 3 and "unknown ITF tag '#slice'" in caught.value.message


def test_the_writer_refers_only_to_entries_a_logged_log_holds(tmp_path: Path) -> None:
    e1, e2, e3, e4 = (Entry(1, "data", v) for v in (1, 2, 3, 4))
    writer = TraceWriter(tmp_path / "w.ndjson")
    writer.init({1: {"log": [e1, e2, e3]}, 2: {"log": [e1]}})
    held = Message(type="FetchResponse", source=1, dest=2, fetchOffset=1, records=(e2, e3))
    assert '"records": {"#slice": [1, "log", 1, 2]}' in writer._message_text(held)
    other = Message(type="FetchResponse", source=1, dest=2, fetchOffset=1, records=(e2, e4))
    assert '"#slice"' not in writer._message_text(other)
    moved = Message(type="FetchResponse", source=1, dest=2, fetchOffset=0, records=(e2, e3))
    assert '"#slice"' not in writer._message_text(moved)  # the same entries at another offset
    writer.close()
