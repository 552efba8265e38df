"""The leader's batch cap (constant ``FetchMaxRecords``): 0 lets a FetchResponse carry any
non-empty run of records from the fetch offset on (the models), N > 0 exactly the next N, or
all the leader holds beyond the fetch offset if fewer (the reference implementation, whose
traces claim its cap of 100). The validator holds a trace to the cap its header claims."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from conformance.tla.cfg import read_config
from conformance.tla.model import Model
from conformance.validate.mutations import read_lines, write_lines
from conformance.validate.validator import TraceValidator
from conformance.validate.verdict import Verdict
from reference.sim.simulator import SimConfig, run_seed

SPEC = Path(__file__).resolve().parents[2] / "spec"


def _model(cap: int) -> Model:
    config = read_config(SPEC / "MC_KRaft_small.cfg")
    return Model.load(SPEC / "MC_KRaft.tla", constants={**config.constants, "FetchMaxRecords": cap},
                      overrides=config.overrides)


LOG = '<<[epoch |-> 1, kind |-> "data", value |-> 1], [epoch |-> 1, kind |-> "data", value |-> 2], ' \
      '[epoch |-> 2, kind |-> "data", value |-> 3]>>'


@pytest.mark.parametrize(("cap", "fetch_offset", "ends"), [
    (0, 0, {1, 2, 3}), (0, 2, {3}), (0, 3, set()),
    (1, 0, {1}), (2, 0, {2}), (2, 2, {3}), (5, 1, {3}), (5, 3, set()),
])
def test_batch_ends(cap: int, fetch_offset: int, ends: set[int]) -> None:
    assert _model(cap).eval_constant(f"BatchEnds({LOG}, {fetch_offset})") == frozenset(ends)


def _largest_batch(lines: list[dict[str, Any]]) -> int:
    return max(len(m["records"]) for e in lines if e.get("kind") == "event" for m in e["sent"]
               if m["type"] == "FetchResponse")


def test_the_validator_holds_a_trace_to_the_cap_its_header_claims(tmp_path: Path) -> None:
    """A run whose observer re-fetches a log longer than the reference's cap (100) after a
    disk loss: accepted under its header's cap and under 0 (any batch, as before the cap);
    rejected under a cap of 40 (a batch too large) and of 150 (a batch too small), at the
    first full batch."""
    path = run_seed(SimConfig(steps=4000, out_dir=tmp_path / "run", quorum="static"), 1).trace_path
    assert path is not None
    lines = read_lines(path)
    assert lines[0]["constants"]["FetchMaxRecords"] == 100 and _largest_batch(lines) == 100
    first_full = next(e["step"] for e in lines if e.get("kind") == "event"
                      and any(m["type"] == "FetchResponse" and len(m["records"]) == 100 for m in e["sent"]))
    validator = TraceValidator(SPEC / "KRaft.tla")
    verdicts = {}
    for cap in (100, 0, 40, 150):
        header = {**lines[0], "constants": {**lines[0]["constants"], "FetchMaxRecords": cap}}
        out = tmp_path / f"cap-{cap}.ndjson"
        write_lines(out, [header, *lines[1:]])
        report = validator.validate(out)
        verdicts[cap] = report.verdict
        if report.verdict is Verdict.REJECT:
            assert report.diagnostic is not None
            if cap == 150:  # every earlier batch held all the leader had beyond the offset
                assert report.diagnostic.step == first_full, json.dumps(report.to_json())[:400]
            assert report.diagnostic.step <= first_full
    assert verdicts == {100: Verdict.ACCEPT, 0: Verdict.ACCEPT, 40: Verdict.REJECT, 150: Verdict.REJECT}
