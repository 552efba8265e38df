"""Throughput of trace validation on Spark beside ``kraftcheck validate --jobs N``, same traces.

    python benchmarks/spark.py [--traces 2000] [--steps 100] [--runs 3]

Simulates ``--traces`` seeds once (plain ``.ndjson`` in a temporary folder), then validates that
same folder with ``validate --jobs 1``, ``validate --jobs 2`` (the runner the command uses, worker
start and spec compilation included), Spark ``local[1]`` and Spark ``local[2]`` (the whole
``spark validate`` job: listing, validation, Parquet tables, coverage, summary; session start
excluded, one small warm-up job per session). Prints wall-clock traces/s and events/s (medians
over ``--runs``), the ratios against the targets (``local[2]`` >= 0.8x ``validate --jobs 2``,
``local[2]`` >= 1.7x ``local[1]``), the machine's load average (wall-clock figures need idle
cores), and what 10^6 traces of 1,000 events would cost on 32 cores at the per-core rate (the CPU
time of ``validate --jobs 1``, the same code a Spark task runs, and the wall time of ``local[1]``).
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from conformance.spark.session import spark_session  # noqa: E402
from conformance.spark.validate_job import run_validate  # noqa: E402
from conformance.validate.runner import ValidatorConfig, validate_files  # noqa: E402
from conformance.validate.verdict import Verdict  # noqa: E402
from reference.simulator import SimConfig, run_seed  # noqa: E402

SPEC = ROOT / "spec" / "KRaft.tla"


def simulate(folder: Path, traces: int, steps: int) -> list[Path]:
    paths = []
    for seed in range(1, traces + 1):
        result = run_seed(SimConfig(out_dir=folder, steps=steps), seed)
        assert result.trace_path is not None
        paths.append(result.trace_path)
    return paths


def timed(label: str, runs: int, job: Callable[[], int]) -> tuple[float, int]:
    """Median wall seconds of ``job`` (which returns the events it validated) over ``runs``."""
    times, events = [], 0
    for _ in range(runs):
        started = time.perf_counter()
        events = job()
        times.append(time.perf_counter() - started)
    median = statistics.median(times)
    print(f"  {label:22s} {median:8.2f} s  (runs: {', '.join(f'{t:.2f}' for t in times)})", flush=True)
    return median, events


CPU_SECONDS: list[float] = []  # this process's CPU time of each ``validate --jobs 1`` run


def validate_cmd(paths: list[Path], config: ValidatorConfig, jobs: int) -> int:
    started = time.process_time()
    reports = validate_files(paths, config, jobs=jobs)
    if jobs == 1:
        CPU_SECONDS.append(time.process_time() - started)
    bad = [r for r in reports if r.verdict is not Verdict.ACCEPT]
    if bad:
        raise SystemExit(f"not accepted: {bad[0].summary_line()[:300]}")
    return sum(r.steps for r in reports)


def spark_job(master: str, folder: Path, warmup: Path, out: Path, config: ValidatorConfig, runs: int) -> tuple[float, int]:
    spark = spark_session(master, f"benchmark {master}")
    try:
        run_validate(spark, [str(warmup)], str(out / "warmup"), config).release()

        def job() -> int:
            result = run_validate(spark, [str(folder)], str(out / "run"), config)
            tally = result.outcome.tally
            result.release()
            if tally.counts.get(Verdict.ACCEPT, 0) != tally.traces:
                raise SystemExit(f"not all accepted on Spark: {dict(tally.counts)}")
            return tally.steps

        return timed(f"Spark {master}", runs, job)
    finally:
        spark.stop()


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--traces", type=int, default=2000, help="simulated traces (default 2000)")
    ap.add_argument("--steps", type=int, default=100, help="events per trace (default 100)")
    ap.add_argument("--runs", type=int, default=3, help="repetitions per configuration (default 3)")
    args = ap.parse_args()
    config = ValidatorConfig(spec=SPEC, search_path=(SPEC.parent,))
    print(f"load average before: {' '.join(f'{x:.2f}' for x in os.getloadavg())} on {os.cpu_count()} cores")
    with tempfile.TemporaryDirectory() as tmp:
        folder, warmup = Path(tmp) / "traces", Path(tmp) / "warmup"
        paths = simulate(folder, args.traces, args.steps)
        simulate(warmup, 20, args.steps)
        print(f"{args.traces} simulated traces of {args.steps} steps, median wall time of {args.runs} run(s):")
        results = {
            "validate --jobs 1": timed("validate --jobs 1", args.runs, lambda: validate_cmd(paths, config, 1)),
            "validate --jobs 2": timed("validate --jobs 2", args.runs, lambda: validate_cmd(paths, config, 2)),
            "local[1]": spark_job("local[1]", folder, warmup, Path(tmp) / "out1", config, args.runs),
            "local[2]": spark_job("local[2]", folder, warmup, Path(tmp) / "out2", config, args.runs),
        }
    print(f"{'configuration':22s} {'traces/s':>10s} {'events/s':>10s}")
    rate = {}
    for name, (seconds, events) in results.items():
        rate[name] = args.traces / seconds
        print(f"{name:22s} {rate[name]:10.1f} {events / seconds:10.0f}")
    vs_validate = rate["local[2]"] / rate["validate --jobs 2"]
    scaling = rate["local[2]"] / rate["local[1]"]
    print(f"local[2] / validate --jobs 2: {vs_validate:.2f}x (target >= 0.8x: {'met' if vs_validate >= 0.8 else 'NOT met'})")
    print(f"local[2] / local[1]:          {scaling:.2f}x (target >= 1.7x: {'met' if scaling >= 1.7 else 'NOT met'})")
    total_events = 10**6 * 1000
    seconds1, events1 = results["local[1]"]
    cpu_rate = events1 / statistics.median(CPU_SECONDS)  # the code Spark tasks run, on one core
    for label, per_core in (("CPU time of validate --jobs 1", cpu_rate), ("wall time of Spark local[1]", events1 / seconds1)):
        hours = total_events / (per_core * 32) / 3600
        print(f"per-core rate ({label}): {per_core:.0f} events/s -> 10^6 traces x 1,000 events on 32 cores: "
              f"{hours:.1f} h ({hours * 32:.0f} core-hours)")
    print(f"load average after: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
