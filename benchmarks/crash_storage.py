"""Simulation on file storage under the crash model versus memory storage, in one process.

Each repetition runs the same seeds (default faults, tracing off, one process) on memory
storage and then on file storage (``simulate --storage file``); printed are the medians over
the repetitions of the simulated events per second (this process's CPU seconds, or wall
seconds with ``--wall``), their ratio, and, per run, the medians of the crashes, the crash
points (places a crash was put) and the distinct crash states recovered and checked.

    python benchmarks/crash_storage.py [--seeds 10] [--steps 1000] [--repeat 3] [--quorum static|dynamic]
"""

from __future__ import annotations

import argparse
import statistics
import time
from collections.abc import Callable

from reference.sim.faults import DEFAULT_FAULTS, DYNAMIC_DEFAULT_FAULTS
from reference.sim.simulator import RunStats, SimConfig, run_seed


def measure(config: SimConfig, seeds: range, clock: Callable[[], float]) -> tuple[float, list[RunStats]]:
    """(events per second, each run's figures) of one pass over ``seeds``."""
    runs: list[RunStats] = []
    started = clock()
    for seed in seeds:
        result = run_seed(config, seed)
        if result.failures:
            raise SystemExit(f"invariant failure during the benchmark: {result.failures[0]}")
        runs.append(result.stats)
    elapsed = clock() - started
    return sum(r.events for r in runs) / elapsed, runs


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, default=10)
    parser.add_argument("--steps", type=int, default=1000)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--quorum", choices=("static", "dynamic"), default="static")
    parser.add_argument("--wall", action="store_true", help="wall-clock instead of CPU seconds")
    args = parser.parse_args()
    clock = time.perf_counter if args.wall else time.process_time
    unit = "wall" if args.wall else "CPU"
    seeds = range(1, args.seeds + 1)
    faults = frozenset(DYNAMIC_DEFAULT_FAULTS if args.quorum == "dynamic" else DEFAULT_FAULTS)
    base = {"steps": args.steps, "trace": False, "quorum": args.quorum, "faults": faults}
    speed: dict[str, list[float]] = {"memory": [], "file": []}
    ratios: list[float] = []
    file_runs: list[RunStats] = []
    for _ in range(args.repeat):
        memory_eps, _runs = measure(SimConfig(storage="memory", **base), seeds, clock)  # type: ignore[arg-type]
        file_eps, runs = measure(SimConfig(storage="file", **base), seeds, clock)  # type: ignore[arg-type]
        speed["memory"].append(memory_eps)
        speed["file"].append(file_eps)
        ratios.append(file_eps / memory_eps)
        file_runs = runs  # deterministic: every repetition explores the same crash states
    where = f"median of {args.repeat}; {args.seeds} seeds x {args.steps} steps, {args.quorum} quorum, 1 process"
    for storage in ("memory", "file"):
        print(f"{storage:6} storage: {statistics.median(speed[storage]):,.0f} simulated events/{unit} s ({where})")
    print(f"file / memory: {statistics.median(ratios):.2f}")
    crashes = statistics.median(r.crashes for r in file_runs)
    points = statistics.median(r.crash_points for r in file_runs)
    states = statistics.median(r.crash_states for r in file_runs)
    per_crash = statistics.median(r.crash_states / r.crashes for r in file_runs if r.crashes)
    print(f"per run (median over {args.seeds} runs): {crashes:g} crashes, {points:g} crash points, "
          f"{states:g} distinct crash states recovered and checked ({per_crash:.1f} per crash, with the windows of truncations)")


if __name__ == "__main__":
    main()
