"""Throughput of the reference simulator: simulated events per second and runs per second.

Each repetition runs the same batch of seeds (default faults, one process) with tracing
on (plain ``.ndjson`` to a temporary directory) and then with tracing off; the figures
printed are the medians of the repetitions, per second of this process's CPU time (so they
hold on a busy machine; ``--wall`` for wall-clock seconds).

    python benchmarks/simulate.py [--seeds 20] [--steps 1000] [--repeat 5] [--quorum static|dynamic|both]

To compare with an older checkout (before ``reference`` had its ``sim`` room), run this script
with ``PYTHONPATH=<that checkout>`` and ``--quorum static``: it falls back to the old module names.

``--quorum both`` measures a static quorum (KIP-595) and a dynamic one (KIP-853, its default
faults and voter changes) in the same process and prints dynamic / static.
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

try:
    from reference.sim.faults import DYNAMIC_DEFAULT_FAULTS
    from reference.sim.simulator import SimConfig, run_seed
except ImportError:  # a checkout from before the rooms (static quorum only)
    from reference.simulator import SimConfig, run_seed  # type: ignore[no-redef]

    DYNAMIC_DEFAULT_FAULTS = ()  # type: ignore[assignment]


def measure(config: SimConfig, seeds: range, clock: Callable[[], float]) -> tuple[float, float]:
    """(events per second, runs per second) of one pass over ``seeds``."""
    events = 0
    started = clock()
    for seed in seeds:
        result = run_seed(config, seed)
        if result.failures:
            raise SystemExit(f"invariant failure during the benchmark: {result.failures[0]}")
        events += result.events
    elapsed = clock() - started
    return events / elapsed, len(seeds) / elapsed


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, default=20)
    parser.add_argument("--steps", type=int, default=1000)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--quorum", choices=("static", "dynamic", "both"), default="static")
    parser.add_argument("--wall", action="store_true", help="wall-clock instead of CPU seconds")
    args = parser.parse_args()
    clock = time.perf_counter if args.wall else time.process_time
    unit = "wall" if args.wall else "CPU"
    seeds = range(1, args.seeds + 1)
    quorums = ("static", "dynamic") if args.quorum == "both" else (args.quorum,)
    medians: dict[tuple[str, str], float] = {}
    with tempfile.TemporaryDirectory() as tmp:
        for quorum in quorums:
            extra: dict[str, object] = {}
            if quorum == "dynamic":
                extra = {"quorum": "dynamic", "faults": frozenset(DYNAMIC_DEFAULT_FAULTS)}
            for label, config in (
                ("tracing on ", SimConfig(steps=args.steps, out_dir=Path(tmp), **extra)),  # type: ignore[arg-type]
                ("tracing off", SimConfig(steps=args.steps, trace=False, **extra)),  # type: ignore[arg-type]
            ):
                samples = [measure(config, seeds, clock) for _ in range(args.repeat)]
                eps = statistics.median(s[0] for s in samples)
                rps = statistics.median(s[1] for s in samples)
                medians[(quorum, label)] = eps
                print(
                    f"{quorum} {label}: {eps:,.0f} simulated events/{unit} s, {rps:,.2f} runs/{unit} s "
                    f"(median of {args.repeat}; {args.seeds} seeds x {args.steps} steps, 1 process)"
                )
    if len(quorums) == 2:
        for label in ("tracing on ", "tracing off"):
            ratio = medians[("dynamic", label)] / medians[("static", label)]
            print(f"dynamic / static, {label.strip()}: {ratio:.2f}")


if __name__ == "__main__":
    main()
