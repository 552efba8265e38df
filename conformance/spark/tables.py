"""The output tables: schemas, one row per trace, coverage aggregated in Spark, the summary.

``DIR/verdicts`` (Parquet): ``trace``, ``sha256``, ``verdict`` (the values of ``validate
--json``), ``events`` (events validated: all of them for ACCEPT), ``step``, ``action`` (the
failing event, if any), ``reason`` (why it was rejected, inconclusive or bad input),
``seconds``; ``seed`` too for a simulation campaign.
``DIR/coverage`` (Parquet): ``action``, ``disjunct`` (``Action@File.tla:line:col``; null on the
row of the whole action), ``hits``, ``first_trace`` (the first trace, in input order, that
reached it; null when none did).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from conformance.validate.coverage import Coverage, Disjunct, actions_of
from conformance.validate.report import Tally
from conformance.validate.verdict import TraceReport, Verdict

if TYPE_CHECKING:
    from pyspark.sql import DataFrame, SparkSession
    from pyspark.sql.types import StructType

VERDICT_COLUMNS = ("trace", "sha256", "verdict", "events", "step", "action", "reason", "seconds")
SHOWN_ROWS = 50  # as many rows as ``summary_table`` shows


def result_schema(with_seed: bool) -> StructType:
    """One row per trace: the verdict columns, then what the driver needs besides."""
    from pyspark.sql.types import (
        BinaryType,
        DoubleType,
        LongType,
        MapType,
        StringType,
        StructField,
        StructType,
    )

    fields = [
        StructField("trace", StringType(), False),
        StructField("sha256", StringType(), True),
        StructField("verdict", StringType(), False),
        StructField("events", LongType(), False),
        StructField("step", LongType(), True),
        StructField("action", StringType(), True),
        StructField("reason", StringType(), True),
        StructField("seconds", DoubleType(), False),
    ]
    if with_seed:
        fields.append(StructField("seed", LongType(), False))
    fields += [
        StructField("order", StringType(), False),  # input order: the path, or the zero-padded seed
        StructField("coverage", MapType(StringType(), LongType()), False),
        StructField("report", StringType(), True),  # the report's JSON, for traces that did not conform
        StructField("invariant", StringType(), True),  # a simulator invariant that failed
        StructField("content", BinaryType(), True),  # a failing simulated trace's text
    ]
    return StructType(fields)


def result_row(report: TraceReport, trace: str, sha256: str | None, order: str, seed: int | None = None,
               invariant: str | None = None, content: bytes | None = None) -> tuple[Any, ...]:
    """The row of one trace's report (``report.file`` names the trace in its messages)."""
    diag = report.diagnostic
    step = action = reason = None
    if report.verdict is Verdict.ERROR:
        reason = report.error
    elif report.verdict is Verdict.INCONCLUSIVE:
        reason = report.bound
    elif diag is not None:
        reason = diag.reason
    if report.verdict is not Verdict.ACCEPT and diag is not None:
        step = diag.step
        action = diag.event.action if diag.event is not None else None
    details = None
    if report.verdict is not Verdict.ACCEPT:
        data = report.to_json()
        data.pop("coverage", None)
        details = json.dumps(data, default=str)
    row: tuple[Any, ...] = (trace, sha256, report.verdict.value, report.steps, step, action, reason,
                            report.seconds)
    if seed is not None:
        row += (seed,)
    return (*row, order, dict(report.coverage), details, invariant, content)


def verdicts(results: DataFrame, with_seed: bool) -> DataFrame:
    return results.select(*VERDICT_COLUMNS, *(("seed",) if with_seed else ()))


CoverageRow = tuple[str, str | None, int, str | None]  # action, disjunct, hits, first_trace


def coverage_rows(results: DataFrame, disjuncts: Sequence[Disjunct]) -> list[CoverageRow]:
    """Hits and first trace per action and per disjunct of Next, summed over ``results`` in Spark;
    every action of the spec (then its disjuncts) has a row, with 0 hits when never reached."""
    from pyspark.sql import functions as F

    reached = {
        r["key"]: (int(r["hits"]), r["first_trace"])
        for r in results.select("trace", "order", F.explode("coverage").alias("key", "n"))
        .where(F.col("n") > 0)
        .groupBy("key")
        .agg(F.sum("n").alias("hits"), F.min_by("trace", "order").alias("first_trace"))
        .collect()
    }
    rows: list[CoverageRow] = []
    for action in actions_of(disjuncts):
        rows.append((action, None, *reached.pop(f"action:{action}", (0, None))))
        rows += [(d.action, d.key, *reached.pop(d.key, (0, None))) for d in disjuncts if d.action == action]
    for key, (hits, first) in sorted(reached.items()):  # reached, yet not a disjunct of the spec's Next
        action = key.removeprefix("action:") if key.startswith("action:") else key.split("@", 1)[0]
        rows.append((action, None if key.startswith("action:") else key, hits, first))
    return rows


def coverage_frame(spark: SparkSession, rows: list[CoverageRow]) -> DataFrame:
    from pyspark.sql.types import LongType, StringType, StructField, StructType

    schema = StructType([StructField("action", StringType(), False), StructField("disjunct", StringType(), True),
                         StructField("hits", LongType(), False), StructField("first_trace", StringType(), True)])
    return spark.createDataFrame(rows, schema).coalesce(1)


def coverage_of(rows: Sequence[CoverageRow], disjuncts: list[Disjunct]) -> Coverage:
    """The validator's ``Coverage`` from the coverage table's rows."""
    counts = {(f"action:{action}" if disjunct is None else disjunct): hits for action, disjunct, hits, _ in rows}
    return Coverage.from_counts(disjuncts, counts)


@dataclass
class Outcome:
    """What the driver prints: the totals, the reports to show, the verdicts that occurred."""

    tally: Tally
    reports: list[TraceReport]

    @property
    def verdicts(self) -> list[Verdict]:
        return [v for v, n in self.tally.counts.items() if n]


def outcome(results: DataFrame) -> Outcome:
    """Totals per verdict, and the reports ``print_summary`` shows: every trace when there are
    few, else the first ``SHOWN_ROWS`` that did not conform (in input order)."""
    from pyspark.sql import functions as F

    totals = results.groupBy("verdict").agg(F.count("*").alias("n"), F.sum("events").alias("events")).collect()
    counts = {Verdict(r["verdict"]): int(r["n"]) for r in totals}
    tally = Tally(sum(counts.values()), sum(int(r["events"]) for r in totals), counts)
    chosen = results if tally.traces <= SHOWN_ROWS else results.where(F.col("verdict") != Verdict.ACCEPT.value)
    rows = chosen.select("trace", "verdict", "events", "seconds", "report", "order") \
        .orderBy("order").limit(SHOWN_ROWS).collect()
    return Outcome(tally, [_report(r) for r in rows])


def _report(row: Any) -> TraceReport:
    if row["report"] is not None:
        report = TraceReport.from_json(json.loads(row["report"]))
        report.file = row["trace"]
        return report
    return TraceReport(file=row["trace"], verdict=Verdict(row["verdict"]), steps=int(row["events"]),
                       seconds=float(row["seconds"]))
