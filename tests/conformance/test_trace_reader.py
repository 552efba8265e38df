"""The trace reader: shapes of lines, streaming, gzip, and errors naming file and line."""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import pytest

from conformance.tla.values import Fn
from conformance.validate.trace_reader import TraceFormatError, TraceStream, iter_trace_files
from tests.conformance.toy_traces import TOY_VALID, dump, toy_lines, write


def read_all(source: Path | list[str], name: str = "t.ndjson") -> tuple[TraceStream, list]:
    stream = TraceStream(source, name)
    return stream, list(stream.events())


def error_of(lines: list[str], name: str = "t.ndjson") -> TraceFormatError:
    with pytest.raises(TraceFormatError) as info:
        read_all(lines, name)
    return info.value


def test_reads_the_valid_toy_trace() -> None:
    stream, events = read_all(TOY_VALID)
    assert stream.header.spec == "Toy"
    assert stream.header.constants["Replicas"] == frozenset({1, 2, 3})
    assert stream.header.constants["MaxCount"] == 3
    assert sorted(stream.init.replicas) == [1, 2, 3]
    assert stream.init.replicas[2] == {"counter": 0, "seen": frozenset()}
    assert [e.step for e in events] == list(range(1, 11))
    assert [e.line for e in events] == list(range(3, 13))
    first = events[0]
    assert (first.replica, first.action, first.params) == (1, "Bump", {"i": 1})
    assert isinstance(first.sent[0], Fn) and first.sent[0].map["dest"] == 2
    assert stream.end is not None and stream.end.steps == 10


def test_reads_gzip_by_content(tmp_path: Path) -> None:
    path = tmp_path / "t.ndjson.gz"
    path.write_bytes(gzip.compress(TOY_VALID.read_bytes()))
    _, events = read_all(path)
    assert len(events) == 10


def test_truncated_gzip_names_the_file(tmp_path: Path) -> None:
    path = tmp_path / "cut.ndjson.gz"
    data = gzip.compress(TOY_VALID.read_bytes())
    path.write_bytes(data[: len(data) // 2])
    with pytest.raises(TraceFormatError) as info:
        read_all(path, str(path))
    assert str(path) in str(info.value) and "gzip" in str(info.value)


def test_a_trace_without_end_line_is_read() -> None:
    lines = toy_lines()[:-1]
    _, events = read_all(dump(lines))
    assert len(events) == 10


def test_truncated_json_line_names_its_line() -> None:
    text = dump(toy_lines())
    text[5] = text[5][:40]  # the 4th event cut in the middle, no newline
    err = error_of(text[:6])
    assert err.line == 6 and "invalid JSON" in err.message and "truncated" in err.message
    assert str(err).startswith("t.ndjson:6:")


def test_missing_header() -> None:
    err = error_of(dump(toy_lines()[1:]))
    assert err.line == 1 and "missing header" in err.message


def test_empty_file() -> None:
    err = error_of([])
    assert err.line == 1 and "empty trace" in err.message


def test_other_format_and_version() -> None:
    lines = toy_lines()
    lines[0]["format"] = "jepsen-history"
    assert "not a kraft-trace" in error_of(dump(lines)).message
    lines = toy_lines()
    lines[0]["version"] = 9
    assert "unsupported trace format version 9" in error_of(dump(lines)).message


def test_missing_init_line() -> None:
    err = error_of(dump(toy_lines()[:1]))
    assert err.line == 2 and "missing init line" in err.message
    lines = toy_lines()
    del lines[1]
    err = error_of(dump(lines))
    assert err.line == 2 and 'kind "init"' in err.message


def test_non_consecutive_steps() -> None:
    lines = toy_lines()
    del lines[4]  # step 3 missing
    err = error_of(dump(lines))
    assert err.line == 5 and "expected step 3, got 4" in err.message


def test_wrong_value_encoding_names_the_path() -> None:
    lines = toy_lines()
    lines[3]["state"]["seen"] = {"#sett": [1]}
    err = error_of(dump(lines))
    assert err.line == 4 and "state.seen" in err.message and "#sett" in err.message
    lines = toy_lines()
    lines[2]["state"]["counter"] = 1.5
    err = error_of(dump(lines))
    assert err.line == 3 and "state.counter" in err.message


def test_event_state_must_list_every_variable() -> None:
    lines = toy_lines()
    del lines[4]["state"]["seen"]
    err = error_of(dump(lines))
    assert err.line == 5 and "missing ['seen']" in err.message


def test_unknown_replica_and_missing_fields() -> None:
    lines = toy_lines()
    lines[2]["replica"] = 9
    assert "replica 9 is not one of" in error_of(dump(lines)).message
    lines = toy_lines()
    del lines[2]["action"]
    err = error_of(dump(lines))
    assert err.line == 3 and 'missing field "action"' in err.message
    lines = toy_lines()
    lines[2]["step"] = "1"
    assert 'field "step" must be int' in error_of(dump(lines)).message


def test_end_line_checks() -> None:
    lines = toy_lines()
    lines[-1]["steps"] = 7
    err = error_of(dump(lines))
    assert err.line == 13 and "says 7 steps, the trace has 10" in err.message
    lines = [*toy_lines(), toy_lines()[2]]
    assert "after the end line" in error_of(dump(lines)).message


def test_empty_line_is_an_error() -> None:
    text = dump(toy_lines())
    text.insert(4, "\n")
    err = error_of(text)
    assert err.line == 5 and "empty line" in err.message


def test_missing_file(tmp_path: Path) -> None:
    with pytest.raises(TraceFormatError) as info:
        TraceStream(tmp_path / "nope.ndjson")
    assert "cannot open" in info.value.message


def test_events_are_streamed_lazily() -> None:
    text = dump(toy_lines())
    text[6] = "{broken\n"
    stream = TraceStream(text, "t")
    events = stream.events()
    got = [next(events).step for _ in range(4)]  # lines 3..6 are fine
    assert got == [1, 2, 3, 4]
    with pytest.raises(TraceFormatError) as info:
        next(events)
    assert info.value.line == 7


def test_iter_trace_files_finds_both_suffixes_sorted(tmp_path: Path) -> None:
    (tmp_path / "b").mkdir()
    write(tmp_path / "b" / "z.ndjson", toy_lines())
    (tmp_path / "a.ndjson.gz").write_bytes(gzip.compress(b"{}"))
    (tmp_path / "notes.txt").write_text("x")
    found = list(iter_trace_files([tmp_path]))
    assert [p.name for p in found] == ["a.ndjson.gz", "z.ndjson"]
    assert json.loads((tmp_path / "b" / "z.ndjson").read_text().splitlines()[0])["kind"] == "header"
