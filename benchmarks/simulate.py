"""Throughput of the reference simulator: simulated events per second and runs per second.

Each repetition runs the same batch of seeds (default faults, one process) with tracing
on (plain ``.ndjson`` to a temporary directory) and then with tracing off; the figures
printed are the medians of the repetitions.

    python benchmarks/simulate.py [--seeds 20] [--steps 1000] [--repeat 5] [--quorum static|dynamic|both]

``--quorum both`` measures a static quorum (KIP-595) and a dynamic one (KIP-853, its default
faults and voter changes) in the same process and prints dynamic / static.
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from pathlib import Path

from reference.sim.faults import DYNAMIC_DEFAULT_FAULTS
from reference.sim.simulator import SimConfig, run_seed


def measure(config: SimConfig, seeds: range) -> tuple[float, float]:
    """(events per second, runs per second) of one pass over ``seeds``."""
    events = 0
    started = time.perf_counter()
    for seed in seeds:
        result = run_seed(config, seed)
        if result.failures:
            raise SystemExit(f"invariant failure during the benchmark: {result.failures[0]}")
        events += result.events
    elapsed = time.perf_counter() - started
    return events / elapsed, len(seeds) / elapsed


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, default=20)
    parser.add_argument("--steps", type=int, default=1000)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--quorum", choices=("static", "dynamic", "both"), default="static")
    args = parser.parse_args()
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
                samples = [measure(config, seeds) for _ in range(args.repeat)]
                eps = statistics.median(s[0] for s in samples)
                rps = statistics.median(s[1] for s in samples)
                medians[(quorum, label)] = eps
                print(
                    f"{quorum} {label}: {eps:,.0f} simulated events/s, {rps:,.2f} runs/s "
                    f"(median of {args.repeat}; {args.seeds} seeds x {args.steps} steps, 1 process)"
                )
    if len(quorums) == 2:
        for label in ("tracing on ", "tracing off"):
            ratio = medians[("dynamic", label)] / medians[("static", label)]
            print(f"dynamic / static, {label.strip()}: {ratio:.2f}")


if __name__ == "__main__":
    main()
