"""The mutation tool: well-formed results, forced rejection steps, deterministic choice."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from conformance.validate.mutations import (
    KINDS,
    causal_pairs,
    drop,
    drop_points,
    duplicate,
    mutate,
    read_lines,
    swap,
    write_lines,
)
from conformance.validate.trace_reader import TraceStream
from tests.conformance.toy_traces import dump, toy_lines


def steps(lines: list[dict]) -> list[int]:
    return [line["step"] for line in lines if line["kind"] == "event"]


def actions(lines: list[dict]) -> list[str]:
    return [line["action"] for line in lines if line["kind"] == "event"]


def test_causal_pairs_of_the_toy_trace() -> None:
    events = [line for line in toy_lines() if line["kind"] == "event"]
    # step 2 handles a message of step 1; step 5 of step 4; step 10 of step 9
    assert causal_pairs(events) == [0, 3, 8]


def test_drop_points_skip_over_independent_events() -> None:
    events = [line for line in toy_lines() if line["kind"] == "event"]
    # step 1's messages are first handled at step 2; step 4's at step 5 (r3), step 9's at step 10
    assert drop_points(events) == [(0, 1), (3, 4), (8, 9)]
    events[1], events[2] = events[2], events[1]  # Reveal by r3 now stands between
    assert drop_points(events)[0] == (0, 2)
    events[1]["replica"] = 1  # an event of the sender's replica in between: not a forced point
    assert drop_points(events)[0] == (3, 4)


def test_drop_renumbers_and_fixes_the_end_line() -> None:
    out, m = drop(toy_lines(), 3, 4)
    assert steps(out) == list(range(1, 10)) and out[-1]["steps"] == 9
    assert (m.kind, m.step, m.reject_step) == ("drop", 4, 4)
    assert actions(out)[3] == "HandlePing"
    stream = TraceStream(dump(out), "m")
    assert len(list(stream.events())) == 9  # still well-formed


def test_swap_and_duplicate() -> None:
    out, m = swap(toy_lines(), 0)
    assert actions(out)[:2] == ["HandlePing", "Bump"] and m.reject_step == 1
    out, m = duplicate(toy_lines(), 0)
    assert actions(out)[:3] == ["Bump", "Bump", "HandlePing"] and m.reject_step == 2
    assert out[-1]["steps"] == 11


def test_mutate_every_kind_is_deterministic_and_well_formed() -> None:
    for kind in KINDS:
        a = mutate(toy_lines(), kind, random.Random(5), growing_actions=("Bump",))
        b = mutate(toy_lines(), kind, random.Random(5), growing_actions=("Bump",))
        assert a is not None and b is not None
        assert a == b
        lines, m = a
        assert m.kind == kind
        assert len(list(TraceStream(dump(lines), kind).events())) == len(steps(lines))


def test_edit_moves_the_value_out_of_range() -> None:
    lines, m = mutate(toy_lines(), "edit-state", random.Random(1)) or pytest.fail("no edit")
    original = [line for line in toy_lines() if line["kind"] == "event"][m.step - 1]
    edited = [line for line in lines if line["kind"] == "event"][m.step - 1]
    assert edited["state"] != original["state"] and m.reject_step == m.step


def test_unknown_kind() -> None:
    with pytest.raises(ValueError, match="unknown mutation kind"):
        mutate(toy_lines(), "scramble", random.Random(0))


def test_write_and_read_gzip_deterministically(tmp_path: Path) -> None:
    write_lines(tmp_path / "a.ndjson.gz", toy_lines())
    write_lines(tmp_path / "b.ndjson.gz", toy_lines())
    assert (tmp_path / "a.ndjson.gz").read_bytes() == (tmp_path / "b.ndjson.gz").read_bytes()
    assert read_lines(tmp_path / "a.ndjson.gz") == toy_lines()


def test_first_divergence_ignores_timestamps() -> None:
    from conformance.validate.corpus import first_divergence

    a = toy_lines()
    b = toy_lines()
    for line in b:
        if line["kind"] == "event":
            line["time_ms"] = 7
    assert first_divergence(a, b) is None
    b[6]["state"]["counter"] = 9  # step 5
    assert first_divergence(a, b) == 5
