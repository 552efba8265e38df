"""What both jobs share: run the per-trace rows once, write the tables, collect the summary.

The rows are computed by the first write and kept (memory, then disk) for the coverage table
and the summary; every table is written by Spark's Parquet writer in overwrite mode, so a rerun
replaces it and a failed or speculative task attempt leaves no row behind.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from rich.console import Console

from conformance.spark.progress import Counters, DriverProgress
from conformance.spark.tables import (
    Outcome,
    coverage_frame,
    coverage_of,
    coverage_rows,
    outcome,
    result_schema,
    verdicts,
)
from conformance.validate.coverage import Coverage, Disjunct

if TYPE_CHECKING:
    from pyspark.rdd import RDD
    from pyspark.sql import DataFrame, SparkSession


class InjectedTaskFailure(RuntimeError):
    """Raised by the test-only switch that fails the first attempt of chosen partitions."""


def fail_first_attempt(partitions: frozenset[int]) -> Callable[[], bool]:
    """A predicate, evaluated in a task: is this attempt 0 of one of ``partitions``?"""

    def doomed() -> bool:
        from pyspark import TaskContext

        ctx = TaskContext.get()
        return ctx is not None and ctx.attemptNumber() == 0 and ctx.partitionId() in partitions

    return doomed


def with_injected_failure(rows: Iterable[tuple[Any, ...]], doomed: bool) -> Iterator[tuple[Any, ...]]:
    """``rows``; when ``doomed``, the task fails after its first row (or at once when it has none)."""
    for row in rows:
        yield row
        if doomed:
            raise InjectedTaskFailure("test switch: failing attempt 0 of this partition")
    if doomed:
        raise InjectedTaskFailure("test switch: failing attempt 0 of this partition")


@dataclass
class CampaignResult:
    """The driver's view of a finished job."""

    outcome: Outcome
    coverage: Coverage
    results: DataFrame  # persisted per-trace rows; call ``release`` when done
    builds: int  # validators built on the executors (one per Python worker process)

    def release(self) -> None:
        self.results.unpersist()


def output(out: str, table: str) -> str:
    return f"{out.rstrip('/')}/{table}"


def run_campaign(spark: SparkSession, rows: RDD[tuple[Any, ...]], out: str, disjuncts: list[Disjunct],
                 counters: Counters, total: int, what: str, console: Console, progress: bool,
                 with_seed: bool) -> CampaignResult:
    """Compute the rows (with progress), write ``verdicts`` and ``coverage`` under ``out``."""
    from pyspark import StorageLevel

    results = spark.createDataFrame(rows, result_schema(with_seed)).persist(StorageLevel.MEMORY_AND_DISK)
    with DriverProgress(what, total, counters, console, progress):
        verdicts(results, with_seed).write.mode("overwrite").parquet(output(out, "verdicts"))
    coverage = coverage_rows(results, disjuncts)
    coverage_frame(spark, coverage).write.mode("overwrite").parquet(output(out, "coverage"))
    return CampaignResult(outcome(results), coverage_of(coverage, disjuncts), results, counters.builds.value)
