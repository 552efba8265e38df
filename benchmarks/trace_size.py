"""Trace size and validation memory against the length of a run (trace format 3).

    python benchmarks/trace_size.py [--steps 1000,10000,100000] [--seed 1] [--baseline-max 10000]
                                    [--validate-max 100000] [--faults crash,partition,...]
                                    [--quorum static|dynamic] [--network-max 10000]

For each length: one simulated run (default faults unless ``--faults``, plain NDJSON), its
bytes per event (all, and the state changes alone), and
the peak resident memory of a separate process that validates it (``ru_maxrss``, so the
figure includes the interpreter and the compiled spec; what matters is that it stays flat).
For lengths up to ``--baseline-max`` it also writes the same run with the full state on
every event (``--full-state-every 1``, the size of format 1) and prints the ratio; lengths above
``--validate-max`` are not validated. For lengths up to ``--network-max`` it also validates the
same trace with the network kept in every candidate state (``ValidatorOptions(share_network=False)``,
the validator before the shared network) and prints that time, its peak memory and the speed-up.
For lengths up to ``--memory-max`` it validates once more with the whole shared network in
memory (``network_in_memory`` unbounded: the validator before the network moved to disk) and
prints that time and peak memory. For lengths up to ``--heap-max`` (default: none) it validates
once more under ``tracemalloc`` and prints the Python heap that is live at the end and its peak
(the figures exclude the interpreter itself; the run is several times slower).
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from reference.sim.faults import DEFAULT_FAULTS, DYNAMIC_DEFAULT_FAULTS, parse_faults  # noqa: E402
from reference.sim.simulator import SimConfig, run_seed  # noqa: E402

_CHILD = """
import json, resource, sys, time
sys.path.insert(0, sys.argv[1])
from conformance.validate.validator import TraceValidator, ValidatorOptions
mode = sys.argv[4]
if mode == "heap":  # the Python heap, traced (slower): what is live at the end, and its peak
    import tracemalloc
    tracemalloc.start(1)
started = time.perf_counter()
options = ValidatorOptions(share_network=mode != "state")
if mode == "memory":  # the whole shared network in memory
    options = ValidatorOptions(network_in_memory=1 << 62)
report = TraceValidator(sys.argv[2], options=options).validate(sys.argv[3])
heap = tracemalloc.get_traced_memory() if mode == "heap" else (0, 0)
print(json.dumps({"verdict": report.verdict.value, "steps": report.steps, "seconds": time.perf_counter() - started,
                  "peak_rss_kib": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss,
                  "heap_end": heap[0], "heap_peak": heap[1]}))
"""


def _validate(trace: Path, network: str = "shared") -> dict[str, Any]:
    out = subprocess.run([sys.executable, "-c", _CHILD, str(ROOT), str(ROOT / "spec" / "KRaft.tla"), str(trace), network],
                         check=True, capture_output=True, text=True)
    result: dict[str, Any] = json.loads(out.stdout)
    return result


def _trace(out: Path, steps: int, seed: int, full_every: int, faults: frozenset[str], quorum: str) -> tuple[Path, float]:
    started = time.perf_counter()
    result = run_seed(SimConfig(out_dir=out, steps=steps, full_state_every=full_every, faults=faults, quorum=quorum), seed)
    assert result.trace_path is not None
    return result.trace_path, time.perf_counter() - started


def _state_bytes(trace: Path) -> int:
    """Bytes of the events' ``delta`` objects (the state changes, without messages)."""
    total = 0
    with trace.open(encoding="utf-8") as lines:
        for line in lines:
            start = line.find('"delta": ')
            if start >= 0:
                end = line.rfind(', "sent": ')
                total += end - start - len('"delta": ')
    return total


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--steps", default="1000,10000,100000")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--baseline-max", type=int, default=10_000)
    parser.add_argument("--validate-max", type=int, default=100_000)
    parser.add_argument("--faults", default=None, help="fault kinds (default: the simulator's defaults)")
    parser.add_argument("--quorum", choices=("static", "dynamic"), default="static")
    parser.add_argument("--network-max", type=int, default=10_000,
                        help="also validate with the network in every state up to this length")
    parser.add_argument("--memory-max", type=int, default=100_000,
                        help="also validate with the whole network in memory up to this length")
    parser.add_argument("--heap-max", type=int, default=0,
                        help="also measure the Python heap (tracemalloc) up to this length")
    args = parser.parse_args()
    lengths = [int(x) for x in args.steps.split(",")]
    defaults = DYNAMIC_DEFAULT_FAULTS if args.quorum == "dynamic" else DEFAULT_FAULTS
    faults = parse_faults(args.faults) if args.faults is not None else frozenset(defaults)
    print(f"quorum: {args.quorum}; faults: {','.join(sorted(faults)) or 'none'}")
    print(f"{'steps':>8} {'bytes':>12} {'bytes/event':>12} {'delta bytes/event':>18} {'full-state bytes/event':>23} {'ratio':>7} "
          f"{'simulate s':>11} {'validate s':>11} {'verdict':>8} {'validation peak RSS MiB':>24} "
          f"{'state-network s':>16} {'its RSS MiB':>12} {'speed-up':>9} {'in-memory-network s':>20} {'its RSS MiB':>12} "
          f"{'heap at end MiB':>16} {'heap peak MiB':>14}")
    with tempfile.TemporaryDirectory(prefix="trace-size-") as tmp:
        for steps in lengths:
            path, sim_seconds = _trace(Path(tmp) / f"d{steps}", steps, args.seed, 0, faults, args.quorum)
            size = path.stat().st_size
            state_bytes = _state_bytes(path)
            full = ""
            ratio = ""
            if steps <= args.baseline_max:
                full_path, _ = _trace(Path(tmp) / f"f{steps}", steps, args.seed, 1, faults, args.quorum)
                full_size = full_path.stat().st_size
                full, ratio = f"{full_size / steps:.0f}", f"{full_size / size:.1f}x"
                full_path.unlink()
            if steps <= args.validate_max:
                v = _validate(path)
                validated = f"{v['seconds']:>11.1f} {v['verdict']:>8} {v['peak_rss_kib'] / 1024:>24.0f}"
            else:
                validated = f"{'-':>11} {'-':>8} {'-':>24}"
            if steps <= min(args.network_max, args.validate_max):
                w = _validate(path, "state")
                validated += (f" {w['seconds']:>16.1f} {w['peak_rss_kib'] / 1024:>12.0f} "
                              f"{w['seconds'] / v['seconds']:>8.1f}x")
            else:
                validated += f" {'-':>16} {'-':>12} {'-':>9}"
            if steps <= min(args.memory_max, args.validate_max):
                u = _validate(path, "memory")
                validated += f" {u['seconds']:>20.1f} {u['peak_rss_kib'] / 1024:>12.0f}"
            else:
                validated += f" {'-':>20} {'-':>12}"
            if steps <= min(args.heap_max, args.validate_max):
                h = _validate(path, "heap")
                validated += f" {h['heap_end'] / 2**20:>16.1f} {h['heap_peak'] / 2**20:>14.1f}"
            else:
                validated += f" {'-':>16} {'-':>14}"
            print(f"{steps:>8} {size:>12} {size / steps:>12.0f} {state_bytes / steps:>18.0f} {full:>23} {ratio:>7} "
                  f"{sim_seconds:>11.1f} {validated}",
                  flush=True)
            path.unlink()
    return 0


if __name__ == "__main__":
    sys.exit(main())
