"""``kraftcheck spark validate`` against the local validator: the same verdict, failing step,
action and reason per trace, the same coverage; exactly one row per trace under task failure;
bad input as ERROR rows; the spec compiled once per executor process."""

from __future__ import annotations

import gzip
import shutil
from collections import Counter
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from conformance.cli import main
from conformance.spark.inputs import read_traces
from conformance.spark.validate_job import run_validate, validate_input
from conformance.validate.corpus import load_manifest
from conformance.validate.coverage import Coverage
from conformance.validate.runner import ValidatorConfig
from conformance.validate.trace_reader import iter_trace_files
from conformance.validate.verdict import Verdict
from tests.spark.conftest import CORPUS, MASTER, TOGGLES

pytestmark = pytest.mark.spark

COLUMNS = ["trace", "sha256", "verdict", "events", "step", "action", "reason", "seconds"]


def table(spark: Any, path: Path) -> dict[str, dict[str, Any]]:
    rows = [r.asDict() for r in spark.read.parquet(str(path)).collect()]
    return {r["trace"]: r for r in rows}


def local_rows(config: ValidatorConfig, folder: Path) -> dict[str, tuple[Any, ...]]:
    """What the local validator says about every trace under ``folder`` (absolute names)."""
    validator = config.build()
    out = {}
    for f in iter_trace_files([folder]):
        r = validator.validate(f.resolve(), name=str(f.resolve()))
        d = r.diagnostic
        failing = r.verdict is not Verdict.ACCEPT and d is not None
        reason = r.error if r.verdict is Verdict.ERROR else r.bound if r.verdict is Verdict.INCONCLUSIVE else (
            d.reason if d is not None else None)
        out[str(f.resolve())] = (r.verdict.value, r.steps, d.step if failing else None,
                                 d.event.action if failing and d.event else None, reason)
    return out


def semantic(row: dict[str, Any]) -> tuple[Any, ...]:
    return (row["verdict"], row["events"], row["step"], row["action"], row["reason"])


@pytest.fixture(scope="module")
def corpus_run(spark: Any, config: ValidatorConfig, tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Any]:
    out = tmp_path_factory.mktemp("corpus-run")
    # An extra (empty) search folder gives this run its own per-process cache key, so the Python
    # workers that earlier tests left alive build it afresh and the build count below is this run's.
    fresh = replace(config, search_path=(*config.search_path, tmp_path_factory.mktemp("empty-search")))
    result = run_validate(spark, [str(CORPUS)], str(out), fresh, partitions=8)
    yield out, result
    result.release()


def test_corpus_verdicts_equal_the_local_validator(spark: Any, config: ValidatorConfig, corpus_run: Any) -> None:
    out, result = corpus_run
    got = table(spark, out / "verdicts")
    want = local_rows(config, CORPUS)
    assert sorted(got) == sorted(want)
    assert {t: semantic(r) for t, r in got.items()} == want
    assert Counter(v for v, *_ in want.values()) == Counter(e.expect for e in load_manifest(CORPUS))
    import hashlib
    for trace, row in got.items():
        assert row["sha256"] == hashlib.sha256(Path(trace).read_bytes()).hexdigest()
        assert row["seconds"] >= 0
    assert list(spark.read.parquet(str(out / "verdicts")).columns) == COLUMNS
    assert result.outcome.tally.traces == len(load_manifest(CORPUS))


def test_corpus_coverage_equals_local_coverage(spark: Any, config: ValidatorConfig, corpus_run: Any) -> None:
    out, result = corpus_run
    validator = config.build()
    files = [f.resolve() for f in iter_trace_files([CORPUS])]
    local = Coverage(validator.disjuncts())
    first: dict[str, str] = {}
    for f in files:
        counts = validator.validate(f, name=str(f)).coverage
        local.merge(Coverage.from_counts(local.disjuncts, counts))
        for key, n in counts.items():
            if n:
                first.setdefault(key, str(f))
    rows = spark.read.parquet(str(out / "coverage")).collect()
    assert list(rows[0].asDict()) == ["action", "disjunct", "hits", "first_trace"]
    got = {(r["action"] if r["disjunct"] is None else r["disjunct"]): (r["hits"], r["first_trace"]) for r in rows}
    want = {a: (local.action_hits[a], first.get(f"action:{a}")) for a in local.actions()}
    want.update({d.key: (local.disjunct_hits[d.key], first.get(d.key)) for d in local.disjuncts})
    assert got == want
    assert result.coverage.to_json() == local.to_json()


def _failed_tasks(spark: Any, group: str) -> int:
    tracker = spark.sparkContext.statusTracker()
    total = 0
    for job in tracker.getJobIdsForGroup(group):
        info = tracker.getJobInfo(job)
        for stage in info.stageIds if info else ():
            s = tracker.getStageInfo(stage)
            total += s.numFailedTasks if s else 0
    return total


def test_exactly_one_row_per_trace_when_first_attempts_fail(spark: Any, config: ValidatorConfig, corpus_run: Any,
                                                            tmp_path: Path) -> None:
    clean_out, _ = corpus_run
    spark.sparkContext.setJobGroup("failing-attempts", "first attempts of partitions 0 and 2 fail")
    try:
        result = run_validate(spark, [str(CORPUS)], str(tmp_path), config, partitions=8,
                              fail_first_attempt_of=frozenset({0, 2}))
    finally:
        spark.sparkContext.setLocalProperty("spark.jobGroup.id", None)
    assert _failed_tasks(spark, "failing-attempts") >= 2  # the switch did fail tasks
    rows = spark.read.parquet(str(tmp_path / "verdicts")).collect()
    assert len(rows) == len(load_manifest(CORPUS))
    strip = lambda r: {k: v for k, v in r.items() if k != "seconds"}  # noqa: E731
    assert sorted(map(strip, (r.asDict() for r in rows)), key=lambda r: r["trace"]) == \
        sorted(map(strip, table(spark, clean_out / "verdicts").values()), key=lambda r: r["trace"])
    assert spark.read.parquet(str(tmp_path / "coverage")).collect() == \
        spark.read.parquet(str(clean_out / "coverage")).collect()
    result.release()


def test_spec_compiled_once_per_executor_process(corpus_run: Any) -> None:
    _, result = corpus_run
    assert 1 <= result.builds <= 2  # local[2]: two Python workers, reused by the 8+ tasks


def test_partitions_are_balanced_by_size(spark: Any, tmp_path: Path) -> None:
    sizes = [50_000, 40_000, 30_000, 20_000, 20_000, 10_000, 10_000, 10_000, 5_000, 5_000] * 2
    for i, n in enumerate(sizes):
        (tmp_path / f"t{i}.ndjson").write_bytes(b"x" * n)
    inputs = read_traces(spark, [str(tmp_path)], 4)
    per_partition = inputs.frame.rdd.mapPartitions(lambda rows: [sum(r["length"] for r in rows)]).collect()
    loaded = [b for b in per_partition if b]
    assert inputs.count == len(sizes) and sum(loaded) == sum(sizes)
    assert 4 <= len(loaded) <= 6, per_partition
    assert max(loaded) <= 1.5 * sum(sizes) / 4


def _bad_input_folder(root: Path) -> Path:
    folder = root / "in"
    folder.mkdir()
    valid = CORPUS / "valid" / "seed-1.ndjson.gz"
    shutil.copy(valid, folder / "good.ndjson.gz")
    shutil.copy(valid, folder / "odd name%20.ndjson.gz")  # Spark spells it differently in URIs
    (folder / "corrupt.ndjson.gz").write_bytes(valid.read_bytes()[:200])
    (folder / "not-a-trace.ndjson").write_text('{"hello": "world"}\n')
    (folder / "empty.ndjson").write_bytes(b"")
    (folder / "notes.txt").write_text("not looked at: not a trace file name\n")
    with gzip.open(folder / "plain-text.ndjson.gz", "wt") as f:
        f.write("just some text\n")
    return folder


def test_bad_input_gets_error_rows_and_never_fails_the_job(spark: Any, config: ValidatorConfig, tmp_path: Path) -> None:
    folder = _bad_input_folder(tmp_path)
    result = run_validate(spark, [str(folder)], str(tmp_path / "out"), config, partitions=3)
    got = table(spark, tmp_path / "out" / "verdicts")
    names = {Path(t).name: r for t, r in got.items()}
    assert sorted(names) == ["corrupt.ndjson.gz", "empty.ndjson", "good.ndjson.gz", "not-a-trace.ndjson",
                             "odd name%20.ndjson.gz", "plain-text.ndjson.gz"]
    assert names["good.ndjson.gz"]["verdict"] == names["odd name%20.ndjson.gz"]["verdict"] == "ACCEPT"
    for name, why in [("corrupt.ndjson.gz", "corrupt or truncated gzip stream"),
                      ("empty.ndjson", "empty trace: missing header line"),
                      ("not-a-trace.ndjson", "missing header"), ("plain-text.ndjson.gz", "invalid JSON")]:
        row = names[name]
        assert row["verdict"] == "ERROR", name
        assert row["reason"].startswith(str(folder / name) + ":"), row["reason"]
        assert why in row["reason"], row["reason"]
    assert want_same_as_local(config, folder, got)
    result.release()


def want_same_as_local(config: ValidatorConfig, folder: Path, got: dict[str, dict[str, Any]]) -> bool:
    return {t: semantic(r) for t, r in got.items()} == local_rows(config, folder)


def test_large_traces_are_streamed_from_their_path(spark: Any, config: ValidatorConfig, tmp_path: Path) -> None:
    folder = _bad_input_folder(tmp_path)
    small = run_validate(spark, [str(folder)], str(tmp_path / "whole"), config)
    small.release()
    streamed = run_validate(spark, [str(folder)], str(tmp_path / "streamed"), config, max_bytes=100)
    streamed.release()
    strip = lambda rows: {t: {k: v for k, v in r.items() if k != "seconds"} for t, r in rows.items()}  # noqa: E731
    assert strip(table(spark, tmp_path / "streamed" / "verdicts")) == strip(table(spark, tmp_path / "whole" / "verdicts"))


def test_a_large_trace_on_a_remote_file_system_gets_an_error_row(config: ValidatorConfig) -> None:
    report, sha = validate_input(config.build(), "hdfs://nn:8020/traces/big.ndjson", 10**9, None, 1000)
    assert report.verdict is Verdict.ERROR and sha is None
    assert report.error is not None and report.error.startswith("hdfs://nn:8020/traces/big.ndjson: 1000000000 bytes")
    assert "--max-bytes" in report.error


def test_cli_prints_the_summary_and_exits_like_validate(tmp_path: Path, spark: Any,
                                                        capsys: pytest.CaptureFixture[str]) -> None:
    valid = ["spark", "validate", str(CORPUS / "valid"), "--out", str(tmp_path / "a"), "--master", MASTER,
             "--config", str(TOGGLES), "--no-progress"]
    assert main(valid) == 0
    out = capsys.readouterr().out
    valid_count = sum(e.file.startswith("valid/") for e in load_manifest(CORPUS))
    assert f"{valid_count} traces" in out and f"ACCEPT {valid_count}" in out and "never reached" in out
    assert main(["spark", "validate", str(CORPUS / "bugs"), str(CORPUS / "malformed"), "--out", str(tmp_path / "b"),
                 "--master", MASTER, "--config", str(TOGGLES), "--no-progress"]) == 1
    assert f"REJECT {sum(e.file.startswith('bugs/') for e in load_manifest(CORPUS))}" in capsys.readouterr().out
    assert main(["spark", "validate", str(CORPUS / "malformed"), "--out", str(tmp_path / "c"), "--master", MASTER,
                 "--config", str(TOGGLES), "--no-progress"]) == 2
    assert main(["spark", "validate", str(tmp_path / "missing"), "--out", str(tmp_path / "d"),
                 "--master", MASTER, "--no-progress"]) == 2
    assert "missing" in capsys.readouterr().err
