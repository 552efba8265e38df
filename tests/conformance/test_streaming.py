"""Streaming and process-level reuse: memory is bounded by the candidate set and a small
window of events, not by the trace length; a validator can be shipped to worker processes."""

from __future__ import annotations

import gc
import pickle
from collections.abc import Iterator
from pathlib import Path

from conformance.tla.cfg import read_config
from conformance.validate.mutations import read_lines
from conformance.validate.trace_reader import TraceEvent
from conformance.validate.validator import TraceValidator, ValidatorOptions
from conformance.validate.verdict import Verdict
from tests.conformance.toy_traces import TOY_SPEC, TOY_VALID, dump

ROOT = Path(__file__).resolve().parents[2]


def live_events() -> int:
    return sum(1 for o in gc.get_objects() if type(o) is TraceEvent)


def test_events_are_not_kept_beyond_the_window() -> None:
    validator = TraceValidator(ROOT / "spec" / "KRaft.tla",
                               constants=read_config(Path(__file__).parent / "fixtures" / "kraft_toggles.cfg").constants,
                               options=ValidatorOptions(window=4))
    lines = dump(read_lines(ROOT / "traces" / "corpus" / "valid" / "seed-3.ndjson.gz"))
    peak = 0

    def feed() -> Iterator[str]:
        nonlocal peak
        for k, line in enumerate(lines):
            if k % 25 == 0:
                peak = max(peak, live_events())
            yield line

    report = validator.validate(feed(), name="seed-3")
    assert report.verdict is Verdict.ACCEPT and report.steps == 200
    assert peak <= 4 + 2, peak  # the diagnostic window and the event being validated


def test_a_fresh_validator_pickles_for_worker_processes() -> None:
    validator = TraceValidator(TOY_SPEC, options=ValidatorOptions(max_candidates=7))
    clone = pickle.loads(pickle.dumps(validator))
    assert clone.options.max_candidates == 7
    assert clone.validate(TOY_VALID).verdict is Verdict.ACCEPT
