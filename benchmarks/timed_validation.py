"""Cost of the timer rules in trace validation: the same traces validated timed and untimed.

The simulator's traces claim every timer rule (``TimedRules``); their untimed reading drops
``TimedRules`` and ``Timing`` from the header and logs a graceful shutdown as ``Resign``, which
is what a validator without the timer rules checks. Both readings are validated alternately in
this one process (one core, CPU time), ``--runs`` times; the medians and their ratio are printed.

    python benchmarks/timed_validation.py [--seeds 20] [--steps 1000] [--runs 3] [--quorum static|dynamic]
"""

from __future__ import annotations

import argparse
import gzip
import json
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from conformance.validate.validator import TraceValidator  # noqa: E402
from conformance.validate.verdict import Verdict  # noqa: E402
from reference.sim.simulator import SimConfig, run_seed  # noqa: E402


def untimed(text: list[str]) -> list[str]:
    """The trace's untimed reading (header without the timer constants, Shutdown as Resign)."""
    out = []
    for k, line in enumerate(text):
        obj: dict[str, Any] = json.loads(line)
        if k == 0:
            for key in ("TimedRules", "Timing"):
                obj["constants"].pop(key, None)
        elif obj.get("action") == "Shutdown":
            obj["action"] = "Resign"
        out.append(json.dumps(obj) + "\n")
    return out


def validate_all(validator: TraceValidator, traces: list[list[str]]) -> tuple[float, int]:
    """CPU seconds and events validated; every trace must be accepted."""
    started = time.process_time()
    events = 0
    for k, lines in enumerate(traces):
        r = validator.validate(lines, name=f"trace-{k}")
        if r.verdict is not Verdict.ACCEPT:
            raise SystemExit(f"trace {k}: {r.summary_line()}")
        events += r.steps
    return time.process_time() - started, events


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, default=20)
    parser.add_argument("--steps", type=int, default=1000)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--quorum", choices=("static", "dynamic"), default="static")
    args = parser.parse_args()
    timed: list[list[str]] = []
    with tempfile.TemporaryDirectory() as tmp:
        config = SimConfig(out_dir=Path(tmp), steps=args.steps, quorum=args.quorum)
        for seed in range(1, args.seeds + 1):
            result = run_seed(config, seed)
            assert result.trace_path is not None
            opener = gzip.open if result.trace_path.suffix == ".gz" else open
            with opener(result.trace_path, "rt") as f:  # type: ignore[operator]
                timed.append(list(f))
    plain = [untimed(t) for t in timed]
    validator = TraceValidator(ROOT / "spec" / "KRaft.tla")
    validate_all(validator, timed[:1])  # compile both models before measuring
    validate_all(validator, plain[:1])
    rates: dict[str, list[float]] = {"timed": [], "untimed": []}
    for _ in range(args.runs):
        for name, traces in (("untimed", plain), ("timed", timed)):
            seconds, events = validate_all(validator, traces)
            rates[name].append(events / seconds)
    t, u = statistics.median(rates["timed"]), statistics.median(rates["untimed"])
    print(f"{args.quorum} quorum, {args.seeds} traces x {args.steps} steps, median of {args.runs} runs (CPU time)")
    print(f"  untimed reading: {u:,.0f} events/s")
    print(f"  timed reading:   {t:,.0f} events/s")
    print(f"  timed / untimed: {t / u:.2f}")


if __name__ == "__main__":
    main()
