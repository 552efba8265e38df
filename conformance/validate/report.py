"""Reports of a validation run: a summary table, a coverage table, JSON and JUnit XML."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.table import Table

from conformance.validate.coverage import Coverage
from conformance.validate.verdict import TraceReport, Verdict, exit_code

INTERRUPTED_EXIT = 130  # 128 + SIGINT

_STYLE = {Verdict.ACCEPT: "green", Verdict.REJECT: "bold red", Verdict.INCONCLUSIVE: "yellow",
          Verdict.ERROR: "magenta"}


def _detail(r: TraceReport) -> str:
    if r.verdict is Verdict.REJECT and r.diagnostic is not None:
        return f"step {r.diagnostic.step} (line {r.diagnostic.line}): {r.diagnostic.reason}"
    if r.verdict is Verdict.ERROR:
        error = r.error or ""
        prefix = f"{r.file}:"
        return "line " + error[len(prefix):] if error.startswith(prefix) and error[len(prefix):][:1].isdigit() else error
    if r.verdict is Verdict.INCONCLUSIVE:
        return r.bound or ""
    return ""


@dataclass(frozen=True)
class Tally:
    """Totals of a run: traces, steps validated, traces per verdict."""

    traces: int
    steps: int
    counts: Mapping[Verdict, int]

    @classmethod
    def of(cls, reports: Sequence[TraceReport]) -> Tally:
        return cls(len(reports), sum(r.steps for r in reports), Counter(r.verdict for r in reports))


def summary_table(reports: Sequence[TraceReport], max_rows: int = 50, tally: Tally | None = None) -> Table:
    """One row per trace that did not conform (all rows when few), then the totals.

    With ``tally`` (the totals of a run whose reports are not all at hand), ``reports`` needs to
    hold only the traces that did not conform, or every trace when there are at most ``max_rows``."""
    tally = tally or Tally.of(reports)
    table = Table(title="Trace validation", show_lines=False)
    for col in ("trace", "verdict", "steps", "seconds", "detail"):
        table.add_column(col, overflow="fold")
    few = tally.traces <= max_rows
    shown = list(reports) if few else [r for r in reports if r.verdict is not Verdict.ACCEPT]
    for r in shown[:max_rows]:
        table.add_row(r.file, f"[{_STYLE[r.verdict]}]{r.verdict.value}[/]", str(r.steps), f"{r.seconds:.2f}", _detail(r))
    hidden = (tally.traces if few else tally.traces - tally.counts.get(Verdict.ACCEPT, 0)) - min(len(shown), max_rows)
    if hidden > 0:
        table.add_row(f"... {hidden} more", "", "", "", "")
    totals = ", ".join(f"{v.value} {tally.counts[v]}" for v in Verdict if tally.counts.get(v))
    table.caption = f"{tally.traces} traces, {tally.steps} steps: {totals}"
    return table


def coverage_table(coverage: Coverage) -> Table:
    """Hits per action and per disjunct of Next; never-reached rows are highlighted."""
    table = Table(title="Coverage of Next")
    for col in ("action", "disjunct", "hits"):
        table.add_column(col)
    for action in coverage.actions():
        ds = [d for d in coverage.disjuncts if d.action == action]
        hits = coverage.action_hits[action]
        style = "red" if hits == 0 else ""
        table.add_row(f"[{style}]{action}[/]" if style else action, "(all)", str(hits))
        if len(ds) > 1:
            for d in ds:
                n = coverage.disjunct_hits[d.key]
                table.add_row("", f"[red]{d.loc}[/]" if n == 0 else str(d.loc), str(n))
    unreached = coverage.unreached_actions()
    table.caption = ("never reached: " + ", ".join(unreached)) if unreached else "every action of Next was reached"
    return table


def print_summary(reports: Sequence[TraceReport], coverage: Coverage | None, console: Console,
                  tally: Tally | None = None) -> None:
    console.print(summary_table(reports, tally=tally))
    for r in reports:
        if r.verdict in (Verdict.REJECT, Verdict.INCONCLUSIVE) and r.diagnostic is not None:
            console.print(r.diagnostic.render(), markup=False, highlight=False, soft_wrap=True)
    if coverage is not None:
        console.print(coverage_table(coverage))


def json_report(reports: Sequence[TraceReport], coverage: Coverage | None, meta: dict[str, Any],
                interrupted: bool = False, total: int | None = None) -> dict[str, Any]:
    """The ``--json`` report; an interrupted run says so and counts the traces not validated."""
    counts = Counter(r.verdict.value for r in reports)
    return {
        "tool": "kraftcheck validate",
        **meta,
        "interrupted": interrupted,
        "not_validated": (total - len(reports)) if total is not None else 0,
        "exit_code": INTERRUPTED_EXIT if interrupted else exit_code(list(reports)),
        "totals": {"traces": len(reports), "steps": sum(r.steps for r in reports),
                   **{v.value: counts.get(v.value, 0) for v in Verdict}},
        "traces": [r.to_json() for r in reports],
        "coverage": coverage.to_json() if coverage is not None else None,
    }


def write_json(path: Path, data: dict[str, Any]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data, indent=2, default=str) + "\n", encoding="utf-8")


def junit_xml(reports: Sequence[TraceReport], suite: str = "kraftcheck.validate", interrupted: bool = False) -> str:
    """JUnit XML: one test case per trace; REJECT is a failure, ERROR an error, INCONCLUSIVE skipped;
    an interrupted run has the suite property ``interrupted = true``."""
    counts = Counter(r.verdict for r in reports)
    root = ET.Element("testsuites")
    ts = ET.SubElement(root, "testsuite", {
        "name": suite, "tests": str(len(reports)), "failures": str(counts[Verdict.REJECT]),
        "errors": str(counts[Verdict.ERROR]), "skipped": str(counts[Verdict.INCONCLUSIVE]),
        "time": f"{sum(r.seconds for r in reports):.3f}",
    })
    if interrupted:
        props = ET.SubElement(ts, "properties")
        ET.SubElement(props, "property", {"name": "interrupted", "value": "true"})
    for r in reports:
        case = ET.SubElement(ts, "testcase", {"classname": f"{suite}.{r.spec or 'spec'}", "name": r.file,
                                              "time": f"{r.seconds:.3f}"})
        if r.verdict is Verdict.REJECT:
            fail = ET.SubElement(case, "failure", {"message": _detail(r), "type": "TraceViolation"})
            fail.text = r.diagnostic.render() if r.diagnostic is not None else _detail(r)
        elif r.verdict is Verdict.ERROR:
            err = ET.SubElement(case, "error", {"message": r.error or "", "type": "BadInput"})
            err.text = r.error or ""
        elif r.verdict is Verdict.INCONCLUSIVE:
            ET.SubElement(case, "skipped", {"message": r.bound or "inconclusive"})
        out = ET.SubElement(case, "system-out")
        out.text = f"{r.verdict.value}: {r.steps} steps"
    ET.indent(root)
    return ET.tostring(root, encoding="unicode", xml_declaration=True) + "\n"


def write_junit(path: Path, reports: Sequence[TraceReport], interrupted: bool = False) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(junit_xml(reports, interrupted=interrupted), encoding="utf-8")
