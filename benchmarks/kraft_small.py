"""One-worker and two-worker figures of the exhaustive check of the small KRaft model.

Runs ``python -m conformance check spec/MC_KRaft.tla --config spec/MC_KRaft_small.cfg
--quiet --workers N`` as a separate process ``--runs`` times for each worker count and
prints, per count, the median wall-clock seconds (process start to end, as a user waits),
the median CPU seconds (user + system, all its processes: on a machine shared with other
work the CPU time is the steadier figure), the median generated and distinct states per
wall-clock second, the peak resident memory (of the largest process) and the ratio of the
wall-clock time to TLC's single-worker time,
which is not measured here (no TLC on these machines): ``--tlc-seconds`` (default 21,
the figure TLC gave on these machines for this model before the spec's timer rules; TLC
generates 617,995 states there and, counting as TLC counts, 941,191 on today's spec, so the
ratio flatters TLC). Every run must report the same counts.

    python benchmarks/kraft_small.py [--runs 3] [--workers 1 --workers 2] [--tlc-seconds 21]
"""

from __future__ import annotations

import argparse
import os
import re
import resource
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SUMMARY = re.compile(r"(\d+) states generated, (\d+) distinct states found")


def _cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def _one_run(workers: int) -> tuple[float, float, int, int, int]:
    """Wall seconds, CPU seconds, generated, distinct, peak RSS of the children so far (KiB)."""
    cmd = [sys.executable, "-m", "conformance", "check", "spec/MC_KRaft.tla", "--config",
           "spec/MC_KRaft_small.cfg", "--quiet", "--workers", str(workers)]
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    cpu = _cpu()
    start = time.perf_counter()
    proc = subprocess.run(cmd, cwd=ROOT, env=env, capture_output=True, text=True, check=False)
    seconds = time.perf_counter() - start
    cpu = _cpu() - cpu
    found = SUMMARY.search(proc.stdout)
    if proc.returncode != 0 or found is None:
        raise SystemExit(f"check failed (exit {proc.returncode}):\n{proc.stdout}\n{proc.stderr}")
    peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    return seconds, cpu, int(found.group(1)), int(found.group(2)), peak


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--workers", type=int, action="append", default=[],
                    help="worker counts to measure (repeatable; default 1 and 2)")
    ap.add_argument("--tlc-seconds", type=float, default=21.0,
                    help="TLC's single-worker time on this model, for the ratio (default 21)")
    args = ap.parse_args(argv)
    counts = args.workers or [1, 2]
    print(f"{'workers':>7} {'median s':>9} {'CPU s':>7} {'generated/s':>12} {'distinct/s':>11} "
          f"{'peak MiB':>9} {'vs TLC':>7}  runs (s)")
    reference: tuple[int, int] | None = None
    for workers in counts:
        times: list[float] = []
        cpus: list[float] = []
        peak = 0
        generated = distinct = 0
        for _ in range(args.runs):
            seconds, cpu, generated, distinct, rss = _one_run(workers)
            if reference is None:
                reference = (generated, distinct)
            elif (generated, distinct) != reference:
                raise SystemExit(f"counts differ between runs: {(generated, distinct)} vs {reference}")
            times.append(seconds)
            cpus.append(cpu)
            peak = max(peak, rss)
        med = statistics.median(times)
        print(f"{workers:>7} {med:>9.1f} {statistics.median(cpus):>7.1f} {generated / med:>12.0f} {distinct / med:>11.0f} "
              f"{peak / 1024:>9.0f} {med / args.tlc_seconds:>6.2f}x  "
              + " ".join(f"{t:.1f}" for t in times))
        sys.stdout.flush()
    if reference is not None:
        print(f"{reference[0]:,} states generated, {reference[1]:,} distinct (TLC, on this spec before "
              f"its timer rules: 617,995 and 37,799; on this one TLC's way of counting gives 941,191 "
              f"generated, OnTime's disjunction walked one disjunct at a time); TLC single worker: "
              f"{args.tlc_seconds:g} s on that earlier spec (given, not measured here)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
