"""``kraftcheck spark simulate``: a fuzzing campaign; each task simulates seeds and validates
their traces in memory, keeping only the traces that fail.

Besides ``verdicts`` (with ``seed``) and ``coverage``, ``DIR/failing`` (Parquet) holds the failing
traces: ``seed``, ``trace`` (file name), ``sha256``, ``verdict``, ``invariant`` (the simulator's
first failed invariant, or null), ``content`` (the trace's NDJSON text). When ``DIR`` is on the
local file system the driver also writes them as files to ``DIR/failing-traces/``, ready for
``kraftcheck validate``.
"""

from __future__ import annotations

import hashlib
import shutil
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

from rich.console import Console

from conformance.spark.campaign import (
    CampaignResult,
    fail_first_attempt,
    output,
    run_campaign,
    with_injected_failure,
)
from conformance.spark.inputs import local_path
from conformance.spark.progress import Counters
from conformance.spark.sim_source import SimConfig, SimulatedTrace, simulate
from conformance.spark.spec_cache import ValidationSpec, validate_safely, validator_for
from conformance.spark.tables import result_row
from conformance.validate.runner import ValidatorConfig
from conformance.validate.verdict import Verdict

if TYPE_CHECKING:
    from pyspark.sql import SparkSession

FAILING_COLUMNS = ("seed", "trace", "sha256", "verdict", "invariant", "content")


def _simulate_partition(spec: ValidationSpec, settings: SimConfig, counters: Counters, fail: frozenset[int],
                        rows: Iterable[Any]) -> Iterator[tuple[Any, ...]]:
    def results() -> Iterator[tuple[Any, ...]]:
        validator = None
        for row in rows:
            if validator is None:
                validator = validator_for(spec, lambda: counters.builds.add(1))
            sim: SimulatedTrace = simulate(settings, int(row["id"]))
            report = validate_safely(validator, sim.data, sim.name)
            failed = report.verdict is not Verdict.ACCEPT or bool(sim.failures)
            counters.traces.add(1)
            counters.events.add(report.steps)
            yield result_row(report, sim.name, hashlib.sha256(sim.data).hexdigest(), order=f"{sim.seed:020d}",
                             seed=sim.seed, invariant=sim.failures[0] if sim.failures else None,
                             content=sim.data if failed else None)

    return with_injected_failure(results(), fail_first_attempt(fail)())


def run_simulate(spark: SparkSession, first: int, last: int, settings: SimConfig, out: str,
                 config: ValidatorConfig, *, partitions: int | None = None, console: Console | None = None,
                 progress: bool = False, fail_first_attempt_of: frozenset[int] = frozenset()) -> CampaignResult:
    """Simulate seeds ``first..last``, validate each trace, write ``verdicts``, ``coverage`` and
    ``failing`` under ``out`` (and the failing traces' files when ``out`` is local)."""
    from pyspark.sql import functions as F

    if last < first:
        raise ValueError(f"empty seed range {first}-{last}")
    disjuncts = config.build().disjuncts()
    spec = ValidationSpec.of(config)
    sc = spark.sparkContext
    total = last - first + 1
    wanted = min(total, partitions or 4 * sc.defaultParallelism)
    seeds = spark.range(first, last + 1, numPartitions=wanted)
    counters = Counters(sc)
    rows = seeds.rdd.mapPartitions(lambda it: _simulate_partition(spec, settings, counters, fail_first_attempt_of, it))
    result = run_campaign(spark, rows, out, disjuncts, counters, total, "spark simulate",
                          console or Console(stderr=True), progress, with_seed=True)
    failing = result.results.where(F.col("content").isNotNull()).select(*FAILING_COLUMNS)
    failing.write.mode("overwrite").parquet(output(out, "failing"))
    local = local_path(out)
    if local is not None:
        _export(spark, output(out, "failing"), Path(local) / "failing-traces")
    return result


def _export(spark: SparkSession, table: str, folder: Path) -> None:
    """The failing traces as files, one partition of the table at a time on the driver."""
    shutil.rmtree(folder, ignore_errors=True)
    folder.mkdir(parents=True)
    for row in spark.read.parquet(table).select("trace", "content").toLocalIterator():
        (folder / row["trace"]).write_bytes(bytes(row["content"]))
