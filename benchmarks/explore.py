"""Explorer throughput and memory.

For each classic spec of ``tests/engine/specs`` (and the project's ``spec/MC_KRaft.tla``
with ``spec/MC_KRaft_small.cfg`` when present, bounded by ``--max-states``) prints the
median over ``--runs`` runs of distinct states/s and generated states/s, then the
bytes per distinct state: the peak of memory traced by ``tracemalloc`` during one more
run, divided by the number of distinct states (so it includes the queue and the
evaluator's transient allocations, not only the fingerprint set); with ``--marginal``
also the memory added per state between half and all of ``--max-states``.

    python benchmarks/explore.py [--runs 5] [--max-states 5000] [--only NAME] [--rm 5 --rm 6]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import tracemalloc
from pathlib import Path

from conformance.tla.cfg import read_config
from conformance.tla.explorer import CheckResult, check
from conformance.tla.fpset import Fingerprinter, FingerprintSet
from conformance.tla.model import Model

ROOT = Path(__file__).resolve().parent.parent
CLASSIC = ROOT / "tests" / "engine" / "specs"


def _targets(max_states: int, rms: list[int], tmp: Path) -> list[tuple[str, Path, Path, int | None]]:
    out: list[tuple[str, Path, Path, int | None]] = []
    for tla in sorted(CLASSIC.glob("*.tla")):
        cfg = tla.with_suffix(".cfg")
        if cfg.is_file():
            out.append((tla.stem, tla, cfg, None))
    for n in rms:  # larger two-phase commit models, for figures at scale
        cfg = tmp / f"TwoPhase{n}.cfg"
        names = ", ".join(f"r{i}" for i in range(1, n + 1))
        cfg.write_text(f"CONSTANTS RM = {{{names}}}\nSPECIFICATION TPSpec\nINVARIANTS TPTypeOK TCConsistent\n")
        out.append((f"TwoPhase{n}", CLASSIC / "TwoPhase.tla", cfg, None))
    kraft, kcfg = ROOT / "spec" / "MC_KRaft.tla", ROOT / "spec" / "MC_KRaft_small.cfg"
    if kraft.is_file() and kcfg.is_file():
        out.append(("MC_KRaft_small", kraft, kcfg, max_states))
    return out


def _run(tla: Path, cfg: Path, max_states: int | None, queue_memory: int, workers: int = 1) -> CheckResult:
    config = read_config(cfg)
    model = Model.load(tla, constants=config.constants, overrides=config.overrides)
    return check(model, config, max_states=max_states, progress=False, queue_memory=queue_memory,
                 workers=workers)


def _peak_memory(tla: Path, cfg: Path, bound: int | None, queue_memory: int) -> tuple[int, int]:
    """Distinct states and peak traced memory (bytes) of one run."""
    tracemalloc.start()
    base = tracemalloc.get_traced_memory()[0]
    traced = _run(tla, cfg, bound, queue_memory)
    peak = tracemalloc.get_traced_memory()[1] - base
    tracemalloc.stop()
    return traced.distinct_states, peak


def fpset_bytes_per_state(n: int) -> float:
    """Memory held by a ``FingerprintSet`` of ``n`` states (fingerprints and parent links)."""
    fpr = Fingerprinter()
    tracemalloc.start()
    base = tracemalloc.get_traced_memory()[0]
    seen = FingerprintSet()
    for i in range(n):
        seen.add(fpr.value(i), i // 3 - 1)
    held = tracemalloc.get_traced_memory()[0] - base
    tracemalloc.stop()
    assert len(seen) == n
    return held / n


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--max-states", type=int, default=5000, help="bound for the project's spec")
    ap.add_argument("--queue-memory", type=int, default=2_000,
                    help="states kept in memory by the queue before it spills to disk")
    ap.add_argument("--only", help="run only the spec with this name")
    ap.add_argument("--workers", type=int, default=1,
                    help="worker processes for the timed runs (the memory run uses 1)")
    ap.add_argument("--fpset-states", type=int, default=1_000_000,
                    help="size of the fingerprint-set memory measurement (0: skip)")
    ap.add_argument("--marginal", action="store_true",
                    help="for the bounded project spec, also the memory per state added between "
                    "--max-states/2 and --max-states (the fixed overheads cancel out)")
    ap.add_argument("--rm", type=int, action="append", default=[],
                    help="also run TwoPhase with this many resource managers (repeatable)")
    args = ap.parse_args(argv)
    tmp = Path(tempfile.mkdtemp(prefix="explore-bench-"))
    print(f"{'spec':<16} {'verdict':<9} {'distinct':>9} {'generated':>10} {'distinct/s':>11} "
          f"{'generated/s':>12} {'bytes/state':>12}")
    for name, tla, cfg, bound in _targets(args.max_states, args.rm, tmp):
        if args.only and name != args.only:
            continue
        d_rates: list[float] = []
        g_rates: list[float] = []
        result: CheckResult | None = None
        for _ in range(args.runs):
            result = _run(tla, cfg, bound, args.queue_memory, args.workers)
            secs = max(result.seconds, 1e-9)
            d_rates.append(result.distinct_states / secs)
            g_rates.append(result.states_generated / secs)
        assert result is not None
        distinct, peak = _peak_memory(tla, cfg, bound, args.queue_memory)
        print(f"{name:<16} {result.verdict:<9} {result.distinct_states:>9} {result.states_generated:>10} "
              f"{statistics.median(d_rates):>11.0f} {statistics.median(g_rates):>12.0f} "
              f"{peak / max(distinct, 1):>12.0f}")
        if args.marginal and bound is not None:
            half, half_peak = _peak_memory(tla, cfg, bound // 2, args.queue_memory)
            print(f"{'':<16} marginal: {(peak - half_peak) / max(distinct - half, 1):.0f} bytes per "
                  f"distinct state between {half:,} and {distinct:,} states")
        sys.stdout.flush()
    n = args.fpset_states
    if n:
        print(f"fingerprint set alone: {fpset_bytes_per_state(n):.0f} bytes per state ({n:,} states)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
