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

``--baseline DIR`` measures another checkout (e.g. a ``git worktree`` of the commit before a
change, or of the code a target was set against) and this one alternately, each repetition a
fresh process of each checkout's own copy of this script (``--repeat 1``, its ``PYTHONPATH`` set
to its checkout), and prints the medians and this / baseline for each campaign and tracing mode.

``--compare-faults`` measures, with the chosen quorum(s), the default fault set before the
stale-message faults (``PREVIOUS_DEFAULT_FAULTS``), the one before the faults that reach more
of the spec (``foreign``, ``isolate-leader``, ``stale-position``: "before-reach") and the current
one alternately in the same process, and prints new / previous and new / before-reach
(throughput with tracing on and off) and, per fault set, the old messages handled right after a
change of epoch, leader or role (``RunStats``).
"""

from __future__ import annotations

import argparse
import os
import re
import statistics
import subprocess
import sys
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

try:
    from reference.sim.faults import DEFAULT_FAULTS, PREVIOUS_DEFAULT_FAULTS
except ImportError:  # a checkout from before the stale-message faults
    PREVIOUS_DEFAULT_FAULTS = DEFAULT_FAULTS = ()  # type: ignore[assignment]

try:
    from reference.sim.faults import REACH_FAULTS
except ImportError:  # a checkout from before the faults that reach more of the spec
    REACH_FAULTS = ()


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


def compare_faults(args: argparse.Namespace, quorums: tuple[str, ...], clock: Callable[[], float], unit: str) -> None:
    """The previous default fault set against the current one, alternating repetitions."""
    if not PREVIOUS_DEFAULT_FAULTS:
        raise SystemExit("--compare-faults needs a checkout with the stale-message faults")
    seeds = range(1, args.seeds + 1)
    sets = {"previous": PREVIOUS_DEFAULT_FAULTS, "new": DEFAULT_FAULTS}
    if REACH_FAULTS:
        sets["before-reach"] = tuple(f for f in DEFAULT_FAULTS if f not in REACH_FAULTS)
    with tempfile.TemporaryDirectory() as tmp:
        for quorum in quorums:
            extra = {"dynamic": ("voter-disk-loss",)}.get(quorum, ())
            for tracing in (True, False):
                samples: dict[str, list[float]] = {name: [] for name in sets}
                for _ in range(args.repeat):
                    for name, faults in sets.items():
                        config = SimConfig(steps=args.steps, quorum=quorum, faults=frozenset((*faults, *extra)),
                                           trace=tracing, out_dir=Path(tmp))
                        samples[name].append(measure(config, seeds, clock)[0])
                label = "tracing on " if tracing else "tracing off"
                medians = {name: statistics.median(v) for name, v in samples.items()}
                for name, eps in medians.items():
                    print(f"{quorum} {label} {name:>12} faults: {eps:,.0f} simulated events/{unit} s "
                          f"(median of {args.repeat}; {args.seeds} seeds x {args.steps} steps, 1 process)")
                print(f"{quorum} {label}: new / previous default faults: {medians['new'] / medians['previous']:.2f}")
                if "before-reach" in medians:
                    print(f"{quorum} {label}: new / before-reach default faults: "
                          f"{medians['new'] / medians['before-reach']:.2f}")
            for name, faults in sets.items():
                totals = {"old_after_change": 0, "older_epoch_after_change": 0, "events": 0}
                for seed in seeds:
                    stats = run_seed(SimConfig(steps=args.steps, quorum=quorum, faults=frozenset((*faults, *extra)),
                                               trace=False), seed).stats
                    for key in totals:
                        totals[key] += getattr(stats, key)
                print(f"{quorum} {name:>12} faults: {totals['old_after_change']} messages sent before the receiver's "
                      f"change of epoch, leader or role handled right after it, {totals['older_epoch_after_change']} "
                      f"of them of an older epoch ({totals['events']} events)")


_FIGURE = re.compile(r"^(static|dynamic) (tracing on|tracing off)\s*: ([\d,]+) simulated events")
ROOT = Path(__file__).resolve().parents[1]


def _one_process(checkout: Path, args: argparse.Namespace) -> dict[tuple[str, str], float]:
    """Events per second of each campaign and tracing mode, from one run of ``checkout``'s script."""
    cmd = [sys.executable, str(checkout / "benchmarks" / "simulate.py"), "--seeds", str(args.seeds),
           "--steps", str(args.steps), "--repeat", "1", "--quorum", args.quorum, *(["--wall"] if args.wall else [])]
    proc = subprocess.run(cmd, cwd=checkout, env=dict(os.environ, PYTHONPATH=str(checkout)),
                          capture_output=True, text=True, check=False)
    if proc.returncode != 0:
        raise SystemExit(f"{checkout}: benchmark failed (exit {proc.returncode}):\n{proc.stderr}")
    found = {(m.group(1), m.group(2)): float(m.group(3).replace(",", ""))
             for m in map(_FIGURE.match, proc.stdout.splitlines()) if m}
    if not found:
        raise SystemExit(f"{checkout}: no figures in its output:\n{proc.stdout}")
    return found


def compare_baseline(args: argparse.Namespace, unit: str) -> None:
    """This checkout against ``args.baseline``, alternating processes."""
    baseline = args.baseline.resolve()
    if not (baseline / "benchmarks" / "simulate.py").is_file():
        raise SystemExit(f"--baseline {baseline}: no benchmarks/simulate.py there (a checkout of this project?)")
    samples: dict[str, dict[tuple[str, str], list[float]]] = {"baseline": {}, "this": {}}
    for _ in range(args.repeat):
        for name, checkout in (("baseline", baseline), ("this", ROOT)):
            for key, eps in _one_process(checkout, args).items():
                samples[name].setdefault(key, []).append(eps)
    for key in sorted(samples["this"]):
        if key not in samples["baseline"]:
            continue
        old, new = (statistics.median(samples[n][key]) for n in ("baseline", "this"))
        print(f"{key[0]} {key[1]:<11}: baseline {old:,.0f}, this {new:,.0f} simulated events/{unit} s, "
              f"this / baseline {new / old:.2f} (medians of {args.repeat} alternating processes; "
              f"{args.seeds} seeds x {args.steps} steps)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, default=20)
    parser.add_argument("--steps", type=int, default=1000)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--quorum", choices=("static", "dynamic", "both"), default="static")
    parser.add_argument("--wall", action="store_true", help="wall-clock instead of CPU seconds")
    parser.add_argument("--compare-faults", action="store_true",
                        help="the default faults before the stale-message faults against the current ones")
    parser.add_argument("--baseline", type=Path, default=None,
                        help="another checkout to measure alternately with this one (prints this / baseline)")
    args = parser.parse_args()
    if args.baseline is not None:
        compare_baseline(args, "wall" if args.wall else "CPU")
        return
    clock = time.perf_counter if args.wall else time.process_time
    unit = "wall" if args.wall else "CPU"
    seeds = range(1, args.seeds + 1)
    quorums = ("static", "dynamic") if args.quorum == "both" else (args.quorum,)
    if args.compare_faults:
        compare_faults(args, quorums, clock, unit)
        return
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
