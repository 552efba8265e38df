"""``kraftcheck spark validate``: one verdict per input trace, validated on the executors."""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

from rich.console import Console

from conformance.spark.campaign import (
    CampaignResult,
    fail_first_attempt,
    run_campaign,
    with_injected_failure,
)
from conformance.spark.inputs import DEFAULT_MAX_BYTES, display_name, local_path, read_traces
from conformance.spark.progress import Counters
from conformance.spark.spec_cache import ValidationSpec, validate_safely, validator_for
from conformance.spark.tables import result_row
from conformance.validate.runner import ValidatorConfig
from conformance.validate.validator import TraceValidator
from conformance.validate.verdict import TraceReport, Verdict

if TYPE_CHECKING:
    from pyspark.sql import SparkSession


def validate_input(validator: TraceValidator, path: str, length: int, content: bytes | None,
                   max_bytes: int) -> tuple[TraceReport, str | None]:
    """The report and SHA-256 of one input row: its bytes, or (above ``max_bytes``) its path."""
    name = display_name(path)
    if content is not None:
        return validate_safely(validator, content, name), hashlib.sha256(content).hexdigest()
    local = local_path(path)
    if local is None:
        return TraceReport(file=name, verdict=Verdict.ERROR, error=(
            f"{name}: {length} bytes, above --max-bytes {max_bytes}, and not on a local file system, so it "
            "cannot be streamed from its path; raise --max-bytes to read it whole")), None
    return validate_safely(validator, Path(local), name), _file_sha256(Path(local))


def _file_sha256(path: Path) -> str | None:
    digest = hashlib.sha256()
    try:
        with path.open("rb") as f:
            for chunk in iter(lambda: f.read(1 << 20), b""):
                digest.update(chunk)
    except OSError:
        return None  # the validator reports why the file cannot be read
    return digest.hexdigest()


def _validate_partition(spec: ValidationSpec, counters: Counters, max_bytes: int, fail: frozenset[int],
                        rows: Iterable[Any]) -> Iterator[tuple[Any, ...]]:
    def results() -> Iterator[tuple[Any, ...]]:
        validator = None
        for row in rows:
            if validator is None:
                validator = validator_for(spec, lambda: counters.builds.add(1))
            content = bytes(row["content"]) if row["content"] is not None else None
            report, sha = validate_input(validator, row["path"], row["length"], content, max_bytes)
            counters.traces.add(1)
            counters.events.add(report.steps)
            yield result_row(report, report.file, sha, order=report.file)

    return with_injected_failure(results(), fail_first_attempt(fail)())


def run_validate(spark: SparkSession, paths: list[str], out: str, config: ValidatorConfig, *,
                 partitions: int | None = None, max_bytes: int = DEFAULT_MAX_BYTES,
                 console: Console | None = None, progress: bool = False,
                 fail_first_attempt_of: frozenset[int] = frozenset()) -> CampaignResult:
    """Validate every trace under ``paths`` and write ``out/verdicts`` and ``out/coverage``.

    ``fail_first_attempt_of`` is a test switch: those partitions fail their first attempt."""
    disjuncts = config.build().disjuncts()  # a bad spec is bad input, found before any Spark work
    spec = ValidationSpec.of(config)
    sc = spark.sparkContext
    wanted = partitions or 4 * sc.defaultParallelism
    inputs = read_traces(spark, paths, wanted, max_bytes)
    if inputs.count == 0:
        raise ValueError(f"no trace files (*.ndjson, *.ndjson.gz) under {', '.join(paths)}")
    counters = Counters(sc)
    rows = inputs.frame.rdd.mapPartitions(
        lambda it: _validate_partition(spec, counters, max_bytes, fail_first_attempt_of, it))
    return run_campaign(spark, rows, out, disjuncts, counters, inputs.count, "spark validate",
                        console or Console(stderr=True), progress, with_seed=False)
