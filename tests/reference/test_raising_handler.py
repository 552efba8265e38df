"""A handler that raises: the simulator traces the input and the error as the last step and
prints the reproduction command; the validator rejects that step naming the exception."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from conformance.cli import main
from conformance.validate.validator import TraceValidator
from conformance.validate.verdict import Verdict
from reference.core import replica as replica_module
from reference.core import rpc_fetch
from reference.core.handler_context import HandlerContext
from reference.core.messages import FETCH_RESPONSE, Message

SPEC = Path(__file__).resolve().parents[2] / "spec" / "KRaft.tla"


def _raise_on_records(r: HandlerContext, m: Message) -> None:
    """The fetch-response handler, seeded to raise on the first response carrying records."""
    if m.records:
        raise KeyError(f"seeded failure at offset {m.fetchOffset}")
    rpc_fetch.handle_fetch_response(r, m)


@pytest.mark.parametrize("quorum", ["static", "dynamic"])
def test_raising_handler_end_to_end(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                    capsys: pytest.CaptureFixture[str], quorum: str) -> None:
    monkeypatch.setitem(replica_module._HANDLERS, FETCH_RESPONSE, _raise_on_records)
    out = tmp_path / "traces"
    code = main(["simulate", "--quorum", quorum, "--seeds", "3", "--steps", "400", "--out", str(out)])
    printed = capsys.readouterr().out
    assert code == 1  # an invariant failure: simulate's exit code for a failing seed
    assert "ReplicaError" in printed and "KeyError" in printed
    assert f"reproduce: kraftcheck simulate --quorum {quorum} --seeds 3" in printed.replace("\n", "")
    trace = out / "seed-3.ndjson"
    lines = [json.loads(line) for line in trace.read_text().splitlines()]
    error, end = lines[-2], lines[-1]
    assert error["kind"] == "error" and error["input"] == "Deliver" and error["action"] == "HandleFetchResponse"
    assert error["error"]["type"] == "KeyError" and "seeded failure" in error["error"]["message"]
    assert error["params"]["m"]["type"] == "FetchResponse" and error["params"]["m"]["records"]
    assert error["step"] == lines[-3]["step"] + 1 and end == {"kind": "end", "steps": error["step"], "reason": "replica raised"}

    report = TraceValidator(SPEC).validate(trace)
    assert report.verdict is Verdict.REJECT and report.diagnostic is not None
    assert report.diagnostic.step == error["step"] and report.steps == error["step"] - 1
    assert "replica" in report.diagnostic.reason and "raised KeyError" in report.diagnostic.reason
    code = main(["validate", str(trace), "--spec", str(SPEC)])
    printed = capsys.readouterr().out
    assert code == 1  # validate's exit code for a rejected trace
    assert "REJECT" in printed and "KeyError" in printed


def test_error_line_must_be_last(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(replica_module._HANDLERS, FETCH_RESPONSE, _raise_on_records)
    main(["simulate", "--quorum", "static", "--seeds", "3", "--steps", "400", "--out", str(tmp_path)])
    trace = tmp_path / "seed-3.ndjson"
    lines = trace.read_text().splitlines()
    event = json.loads(lines[-3])
    event["step"] = json.loads(lines[-2])["step"] + 1
    bad = tmp_path / "bad.ndjson"
    bad.write_text("\n".join([*lines[:-1], json.dumps(event)]) + "\n")
    report = TraceValidator(SPEC).validate(bad)
    assert report.verdict is Verdict.ERROR and "only the end line may follow the error line" in (report.error or "")
