"""Trace values against the spec's types: a grown log has its new entries checked, and an
entry that replaced another in a log that was truncated and extended again is checked too,
also when the entries around it are the very objects seen before (decoded entries are shared)."""

from __future__ import annotations

from pathlib import Path

import pytest

from conformance.tla.values import Value, make_record
from conformance.validate.validator import TraceValidator

SPEC = Path(__file__).resolve().parents[2] / "spec" / "KRaft.tla"


def entry(epoch: Value, value: int) -> Value:
    return make_record([("epoch", epoch), ("kind", "data"), ("value", value), ("voters", frozenset())])


@pytest.mark.parametrize("length", [3, 100])
def test_an_entry_between_known_ones_is_checked(length: int) -> None:
    types = TraceValidator(SPEC).types()
    log = tuple(entry(1, k % 3 + 1) for k in range(length))
    assert types.check_state(1, {"log": log}, "state") is None
    bad = (*log[:1], entry("x", 2), *log[2:])  # the same objects but one, the last one too
    problem = types.check_state(1, {"log": bad}, "state")
    assert problem is not None and "state.log" in problem and '"x"' in problem
    assert types.check_state(1, {"log": (*log, entry(2, 1))}, "state") is None  # grown
    assert types.check_state(1, {"log": (*log, entry(2, 1), entry(2, "y"))}, "state") is not None  # a bad new entry
