"""Reports: verdict JSON round trip, exit-code precedence, summary and coverage tables,
JSON report, JUnit XML, and CI artifacts."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from pathlib import Path

from rich.console import Console

from conformance.tla.syntax import Loc
from conformance.validate.artifacts import DEFAULT_CI_DIR, artifacts_dir, write_artifacts
from conformance.validate.coverage import Coverage, Disjunct
from conformance.validate.report import coverage_table, json_report, junit_xml, print_summary
from conformance.validate.verdict import (
    Diagnostic,
    DisabledGuard,
    EventSummary,
    TraceReport,
    VariableMismatch,
    Verdict,
    exit_code,
)


def rejected(file: str = "bad.ndjson") -> TraceReport:
    ev = EventSummary(step=4, line=6, replica=2, action="HandlePing", params="m = [n |-> 1]")
    diag = Diagnostic(
        file=file, line=6, step=4, event=ev, reason="no successor agrees",
        mismatches=(VariableMismatch("counter", "1", "7", ""),),
        disabled=(DisabledGuard("Toy.tla:28:8", "m \\in messages"),), candidates=1,
        preceding=(EventSummary(3, 5, 1, "Bump", "i = 1"),),
    )
    return TraceReport(file=file, verdict=Verdict.REJECT, steps=3, diagnostic=diag, spec="Toy", seconds=0.5)


def accepted(file: str = "good.ndjson") -> TraceReport:
    return TraceReport(file=file, verdict=Verdict.ACCEPT, steps=10, spec="Toy", seconds=0.25)


def bad(file: str = "broken.ndjson") -> TraceReport:
    return TraceReport(file=file, verdict=Verdict.ERROR, error=f"{file}:3: invalid JSON")


def inconclusive(file: str = "wide.ndjson") -> TraceReport:
    return TraceReport(file=file, verdict=Verdict.INCONCLUSIVE, steps=2, bound="more than 10 set aside")


def test_exit_code_precedence() -> None:
    assert exit_code([accepted()]) == 0
    assert exit_code([]) == 0
    assert exit_code([accepted(), inconclusive()]) == 3
    assert exit_code([inconclusive(), bad()]) == 2
    assert exit_code([bad(), rejected(), inconclusive()]) == 1


def test_report_json_round_trip() -> None:
    for r in (rejected(), accepted(), bad(), inconclusive()):
        data = json.loads(json.dumps(r.to_json()))
        assert TraceReport.from_json(data) == r


def test_diagnostic_text_names_file_line_step_and_values() -> None:
    text = rejected().diagnostic.render()  # type: ignore[union-attr]
    assert text.splitlines()[0] == "bad.ndjson:6: step 4: no successor agrees"
    assert "guard FALSE at Toy.tla:28:8: m \\in messages" in text
    assert "expected: 1" in text and "observed: 7" in text
    assert "step 3 (line 5): replica 1 Bump(i = 1)" in text


def test_summary_lines() -> None:
    assert rejected().summary_line().startswith("bad.ndjson: REJECT at step 4 (line 6)")
    assert bad().summary_line() == "broken.ndjson: ERROR: broken.ndjson:3: invalid JSON"
    assert "INCONCLUSIVE after 2 steps" in inconclusive().summary_line()


def _coverage() -> Coverage:
    ds = [Disjunct("Bump", Loc("Toy.tla", 22, 5)), Disjunct("Reveal", Loc("Toy.tla", 37, 8)),
          Disjunct("Reveal", Loc("Toy.tla", 40, 8)), Disjunct("Never", Loc("Toy.tla", 50, 5))]
    cov = Coverage(ds)
    cov.record("Bump", ds[0].key)
    cov.record("Bump", ds[0].key)
    cov.record("Reveal", ds[1].key)
    return cov


def test_coverage_lists_unreached_actions_and_disjuncts() -> None:
    cov = _coverage()
    assert cov.unreached_actions() == ["Never"]
    assert [d.loc.line for d in cov.unreached_disjuncts()] == [40, 50]
    data = cov.to_json()
    assert data["actions"] == {"Bump": 2, "Reveal": 1, "Never": 0}
    assert data["unreached_disjuncts"] == ["Reveal@Toy.tla:40:8", "Never@Toy.tla:50:5"]
    again = Coverage.from_counts(cov.disjuncts, cov.to_counts())
    assert again.to_json() == data
    merged = Coverage(cov.disjuncts)
    merged.merge(cov)
    merged.merge(cov)
    assert merged.action_hits["Bump"] == 4


def test_tables_render(tmp_path: Path) -> None:
    console = Console(record=True, width=200)
    print_summary([accepted(), rejected(), bad()], _coverage(), console)
    out = console.export_text()
    assert "good.ndjson" in out and "REJECT" in out and "ERROR" in out
    assert "3 traces, 13 steps: ACCEPT 1, REJECT 1, ERROR 1" in out
    assert "line 3: invalid JSON" in out  # the file is in its own column
    assert "bad.ndjson:6: step 4" in out  # the diagnostic follows the table
    assert "never reached: Never" in out
    console = Console(record=True, width=200)
    console.print(coverage_table(_coverage()))
    assert "Toy.tla:40:8" in console.export_text()


def test_json_report() -> None:
    data = json_report([accepted(), rejected()], _coverage(), {"spec": "Toy.tla"})
    assert data["exit_code"] == 1
    assert data["totals"] == {"traces": 2, "steps": 13, "ACCEPT": 1, "REJECT": 1, "INCONCLUSIVE": 0, "ERROR": 0}
    assert data["traces"][1]["diagnostic"]["step"] == 4
    assert data["coverage"]["unreached_actions"] == ["Never"]
    json.dumps(data)


def test_junit_xml() -> None:
    xml = junit_xml([accepted(), rejected(), bad(), inconclusive()])
    root = ET.fromstring(xml)
    suite = root.find("testsuite")
    assert suite is not None
    assert (suite.get("tests"), suite.get("failures"), suite.get("errors"), suite.get("skipped")) == ("4", "1", "1", "1")
    cases = {c.get("name"): c for c in suite.findall("testcase")}
    assert cases["good.ndjson"].find("failure") is None
    failure = cases["bad.ndjson"].find("failure")
    assert failure is not None and "step 4" in (failure.get("message") or "")
    assert "m \\in messages" in (failure.text or "")
    assert cases["broken.ndjson"].find("error") is not None
    assert cases["wide.ndjson"].find("skipped") is not None


def test_artifacts_dir_from_option_or_ci_env() -> None:
    assert artifacts_dir("out", {}) == Path("out")
    assert artifacts_dir(None, {"CI": "true"}) == Path(DEFAULT_CI_DIR)
    assert artifacts_dir(None, {"CI": "false"}) is None
    assert artifacts_dir(None, {}) is None


def test_write_artifacts_copies_rejected_traces_with_diagnostics(tmp_path: Path) -> None:
    src = tmp_path / "in"
    (src / "a").mkdir(parents=True)
    (src / "b").mkdir()
    for d in ("a", "b"):
        (src / d / "t.ndjson").write_text(f"trace {d}\n")
    (src / "ok.ndjson").write_text("fine\n")
    reports = [rejected(str(src / "a" / "t.ndjson")), rejected(str(src / "b" / "t.ndjson")),
               accepted(str(src / "ok.ndjson")), bad(str(src / "missing.ndjson"))]
    out = tmp_path / "artifacts"
    copied = write_artifacts(out, reports)
    assert sorted(p.name for p in copied) == ["2-t.ndjson", "t.ndjson"]
    assert (out / "t.ndjson").read_text() == "trace a\n"
    assert (out / "2-t.ndjson").read_text() == "trace b\n"
    assert "step 4" in (out / "t.ndjson.diagnostic.txt").read_text()
    assert json.loads((out / "2-t.ndjson.report.json").read_text())["verdict"] == "REJECT"
    assert "invalid JSON" in (out / "missing.ndjson.diagnostic.txt").read_text()
    assert not (out / "ok.ndjson").exists()
