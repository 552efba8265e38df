"""The summary of a run whose reports are not all at hand (a Spark job's) prints exactly as the
summary of all its reports; exit codes from the verdicts alone equal those from the reports."""

from __future__ import annotations

import io

import pytest
from rich.console import Console

from conformance.validate.report import Tally, summary_table
from conformance.validate.verdict import TraceReport, Verdict, exit_code, exit_code_for


def render(table: object) -> str:
    out = io.StringIO()
    Console(file=out, width=200).print(table)
    return out.getvalue()


def reports(accepted: int, others: list[Verdict]) -> list[TraceReport]:
    rs = [TraceReport(file=f"ok-{i}", verdict=Verdict.ACCEPT, steps=10) for i in range(accepted)]
    rs += [TraceReport(file=f"bad-{i}", verdict=v, steps=i, error="x" if v is Verdict.ERROR else None)
           for i, v in enumerate(others)]
    return rs


@pytest.mark.parametrize(("accepted", "others"), [
    (55, [Verdict.REJECT] * 3 + [Verdict.ERROR] * 2),
    (10, [Verdict.INCONCLUSIVE]),
    (0, [Verdict.REJECT] * 70),
])
def test_summary_from_the_tally_equals_the_summary_of_every_report(accepted: int, others: list[Verdict]) -> None:
    every = reports(accepted, others)
    shown = every if len(every) <= 50 else [r for r in every if r.verdict is not Verdict.ACCEPT][:50]
    assert render(summary_table(shown, tally=Tally.of(every))) == render(summary_table(every))


@pytest.mark.parametrize("verdicts", [[], [Verdict.ACCEPT], [Verdict.ACCEPT, Verdict.INCONCLUSIVE],
                                      [Verdict.INCONCLUSIVE, Verdict.ERROR], [Verdict.ERROR, Verdict.REJECT]])
def test_exit_code_for_the_verdicts_equals_exit_code(verdicts: list[Verdict]) -> None:
    assert exit_code_for(verdicts) == exit_code([TraceReport(file="t", verdict=v) for v in verdicts])
