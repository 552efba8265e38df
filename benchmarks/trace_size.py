"""Trace size and validation memory against the length of a run (trace format 2).

    python benchmarks/trace_size.py [--steps 1000,10000,100000] [--seed 1] [--baseline-max 10000]
                                    [--validate-max 100000] [--faults crash,partition,...]

For each length: one simulated run (default faults unless ``--faults``, plain NDJSON), its
bytes per event (all, and the state changes alone), and
the peak resident memory of a separate process that validates it (``ru_maxrss``, so the
figure includes the interpreter and the compiled spec; what matters is that it stays flat).
For lengths up to ``--baseline-max`` it also writes the same run with the full state on
every event (``--full-state-every 1``, the size of format 1) and prints the ratio; lengths above
``--validate-max`` are not validated (the spec's network keeps every message ever sent, so a
step's evaluation cost grows with the run).
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

from reference.faults import DEFAULT_FAULTS, parse_faults  # noqa: E402
from reference.simulator import SimConfig, run_seed  # noqa: E402

_CHILD = """
import json, resource, sys, time
sys.path.insert(0, sys.argv[1])
from conformance.validate.validator import TraceValidator
started = time.perf_counter()
report = TraceValidator(sys.argv[2]).validate(sys.argv[3])
print(json.dumps({"verdict": report.verdict.value, "steps": report.steps, "seconds": time.perf_counter() - started,
                  "peak_rss_kib": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss}))
"""


def _validate(trace: Path) -> dict[str, Any]:
    out = subprocess.run([sys.executable, "-c", _CHILD, str(ROOT), str(ROOT / "spec" / "KRaft.tla"), str(trace)],
                         check=True, capture_output=True, text=True)
    result: dict[str, Any] = json.loads(out.stdout)
    return result


def _trace(out: Path, steps: int, seed: int, full_every: int, faults: frozenset[str]) -> tuple[Path, float]:
    started = time.perf_counter()
    result = run_seed(SimConfig(out_dir=out, steps=steps, full_state_every=full_every, faults=faults), seed)
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
    args = parser.parse_args()
    lengths = [int(x) for x in args.steps.split(",")]
    faults = parse_faults(args.faults) if args.faults is not None else frozenset(DEFAULT_FAULTS)
    print(f"faults: {','.join(sorted(faults)) or 'none'}")
    print(f"{'steps':>8} {'bytes':>12} {'bytes/event':>12} {'delta bytes/event':>18} {'full-state bytes/event':>23} {'ratio':>7} "
          f"{'simulate s':>11} {'validate s':>11} {'verdict':>8} {'validation peak RSS MiB':>24}")
    with tempfile.TemporaryDirectory(prefix="trace-size-") as tmp:
        for steps in lengths:
            path, sim_seconds = _trace(Path(tmp) / f"d{steps}", steps, args.seed, 0, faults)
            size = path.stat().st_size
            state_bytes = _state_bytes(path)
            full = ""
            ratio = ""
            if steps <= args.baseline_max:
                full_path, _ = _trace(Path(tmp) / f"f{steps}", steps, args.seed, 1, faults)
                full_size = full_path.stat().st_size
                full, ratio = f"{full_size / steps:.0f}", f"{full_size / size:.1f}x"
                full_path.unlink()
            if steps <= args.validate_max:
                v = _validate(path)
                validated = f"{v['seconds']:>11.1f} {v['verdict']:>8} {v['peak_rss_kib'] / 1024:>24.0f}"
            else:
                validated = f"{'-':>11} {'-':>8} {'-':>24}"
            print(f"{steps:>8} {size:>12} {size / steps:>12.0f} {state_bytes / steps:>18.0f} {full:>23} {ratio:>7} "
                  f"{sim_seconds:>11.1f} {validated}",
                  flush=True)
            path.unlink()
    return 0


if __name__ == "__main__":
    sys.exit(main())
