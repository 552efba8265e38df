"""Throughput of trace validation beside the time the simulator took to produce the traces.

    python benchmarks/validate.py [--seeds 50] [--steps 1000] [--runs 3] [--long-steps 5000]
                                  [--quorum static|dynamic|both]

Prints (medians over ``--runs``; CPU time of this one process, so figures are per core even
on a busy machine): simulator seconds for the corpus, validation seconds,
events validated per second on one core, traces per second; then one long trace (events/s,
peak Python memory while validating, widest candidate set); then where the time goes
(cProfile of one trace: engine successors, trace reading, the validator's own checks).
``--quorum both`` also runs the corpus of a dynamic quorum (KIP-853) in the same process and
prints its validation throughput relative to the static one.
"""

from __future__ import annotations

import argparse
import cProfile
import pstats
import statistics
import sys
import tempfile
import time
import tracemalloc
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from conformance.tla.cfg import read_config  # noqa: E402
from conformance.validate.validator import TraceValidator  # noqa: E402
from conformance.validate.verdict import Verdict  # noqa: E402
from reference.sim.faults import DYNAMIC_DEFAULT_FAULTS  # noqa: E402
from reference.sim.simulator import SimConfig, run_seed  # noqa: E402

DEFAULT_CONFIG = ROOT / "tests" / "conformance" / "fixtures" / "kraft_toggles.cfg"


def simulate(out: Path, seeds: range, steps: int, quorum: str = "static") -> tuple[float, list[Path]]:
    """CPU seconds of this process to simulate the seeds (one core), and the trace paths."""
    started = time.process_time()
    paths = []
    config = SimConfig(out_dir=out, steps=steps)
    if quorum == "dynamic":
        config = SimConfig(out_dir=out, steps=steps, quorum="dynamic", faults=frozenset(DYNAMIC_DEFAULT_FAULTS))
    for seed in seeds:
        result = run_seed(config, seed)
        assert result.trace_path is not None
        paths.append(result.trace_path)
    return time.process_time() - started, paths


def validate(validator: TraceValidator, paths: list[Path]) -> tuple[float, int, int]:
    """CPU seconds to validate the traces in this process (one core), events, traces not accepted."""
    started = time.process_time()
    steps = bad = 0
    for p in paths:
        r = validator.validate(p)
        steps += r.steps
        if r.verdict is not Verdict.ACCEPT:
            bad += 1
            print(f"  not accepted: {r.summary_line()[:200]}")
    return time.process_time() - started, steps, bad


def profile_split(validator: TraceValidator, path: Path) -> None:
    prof = cProfile.Profile()
    prof.enable()
    validator.validate(path)
    prof.disable()
    stats = pstats.Stats(prof)
    total = max(v[3] for v in stats.stats.values())  # type: ignore[attr-defined]
    wanted = {
        "engine: Model.action_successors": ("model.py", "action_successors"),
        "engine: Model.eval_state (Next's bounds)": ("model.py", "eval_state"),
        "reading + decoding events": ("trace_reader.py", "events"),
        "validator: state agreement": ("step_check.py", "_agrees"),
        "validator: network check": ("step_check.py", "_network_grew_by"),
    }
    print("where the time goes (cProfile, one trace; cumulative, overlapping):")
    for label, (file, func) in wanted.items():
        cum = sum(v[3] for k, v in stats.stats.items() if k[0].endswith(file) and k[2] == func)  # type: ignore[attr-defined]
        print(f"  {label:45s} {cum:7.2f} s  {100 * cum / total:5.1f} %")
    print("  top functions by own time:")
    rows = sorted(stats.stats.items(), key=lambda kv: -kv[1][2])[:8]  # type: ignore[attr-defined]
    for (file, line, func), v in rows:
        print(f"    {Path(file).name}:{line} {func:30s} {v[2]:6.2f} s")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--seeds", type=int, default=50)
    ap.add_argument("--steps", type=int, default=1000)
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--long-steps", type=int, default=5000)
    ap.add_argument("--spec", type=Path, default=ROOT / "spec" / "KRaft.tla")
    ap.add_argument("--config", type=Path, default=None,
                    help="a cfg whose constants override the headers' (for traces whose headers lack some, "
                    f"e.g. {DEFAULT_CONFIG.relative_to(ROOT)}; default: the headers' own)")
    ap.add_argument("--quorum", choices=("static", "dynamic", "both"), default="static")
    args = ap.parse_args()
    if args.quorum == "both":
        rates = {q: corpus_rate(args, q) for q in ("static", "dynamic")}
        print(f"validation events/s/core, dynamic / static: {rates['dynamic'] / rates['static']:.2f}")
        return 0
    corpus_rate(args, args.quorum)
    return 0


def corpus_rate(args: argparse.Namespace, quorum: str) -> float:
    """Run the corpus part (and, for a static quorum, the long trace) and return the median
    validation throughput in events/s/core."""
    constants = read_config(args.config).constants if args.config else {}
    validator = TraceValidator(args.spec, constants=constants)
    sim_times, val_times = [], []
    steps = 0
    with tempfile.TemporaryDirectory() as tmp:
        for run in range(args.runs):
            out = Path(tmp) / f"run{run}"
            sim_s, paths = simulate(out, range(1, args.seeds + 1), args.steps, quorum)
            val_s, steps, bad = validate(validator, paths)
            sim_times.append(sim_s)
            val_times.append(val_s)
            if bad:
                raise SystemExit(f"{bad} trace(s) not accepted: the figures would time rejections")
        sim_med, val_med = statistics.median(sim_times), statistics.median(val_times)
        print(f"{quorum} corpus: {args.seeds} seeds x {args.steps} steps, all faults ({steps} events); median of {args.runs} runs")
        print(f"  simulator:  {sim_med:8.2f} CPU s ({steps / sim_med:9.0f} events/s)")
        print(f"  validation: {val_med:8.2f} CPU s ({steps / val_med:9.0f} events/s/core, {args.seeds / val_med:6.2f} traces/s/core)")
        print(f"  validation / simulation time: {val_med / sim_med:.1f}x")
        if args.quorum == "both":
            return steps / val_med

        long_dir = Path(tmp) / "long"
        _, (long_path,) = simulate(long_dir, range(1, 2), args.long_steps)
        started = time.process_time()
        report = validator.validate(long_path)
        long_s = time.process_time() - started
        tracemalloc.start()
        validator.validate(long_path)
        _, peak = tracemalloc.get_traced_memory()
        tracemalloc.stop()
        print(f"long trace: {report.steps} events, {report.verdict.value}, {long_s:.2f} CPU s "
              f"({report.steps / long_s:.0f} events/s), peak traced memory {peak / 1e6:.1f} MB, "
              f"widest candidate set {report.max_candidates_seen}")
        profile_split(validator, long_path)
    return steps / val_med


if __name__ == "__main__":
    sys.exit(main())
