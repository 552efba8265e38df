"""The ``--inject-bug`` switches against the checks: for each switch, the same seeds simulated
with and without it, every trace validated, and per switch the runs that differ from the clean
run, the ones the simulator's invariants flag, the ones the validator rejects (with the step,
action and first guard or variable of the first rejection) and the ones it accepts.

A run identical to the clean run of its seed (ignoring timestamps) means the bug never acted
there; a run that differs and is accepted means the spec allows what the bug did.

    python benchmarks/bug_switches.py [--only NAME,...] [--seeds 1-10] [--steps 1000]
                                      [--quorum static|dynamic] [--json OUT]
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))  # measure this checkout, whichever one is installed

from conformance.validate.mutations import read_lines  # noqa: E402
from conformance.validate.validator import TraceValidator  # noqa: E402
from conformance.validate.verdict import Verdict  # noqa: E402
from reference.sim.bugs import BUGS, DYNAMIC_BUGS  # noqa: E402
from reference.sim.cli import parse_seeds  # noqa: E402
from reference.sim.simulator import SimConfig, run_seed  # noqa: E402


def _events(path: Path) -> Iterator[dict[str, Any]]:
    for line in read_lines(path):
        if line["kind"] == "event":
            yield {k: v for k, v in line.items() if k != "time_ms"}


def measure(bug: str, seeds: list[int], steps: int, quorum: str, work: Path, validator: TraceValidator) -> dict[str, Any]:
    """One switch over the seeds: counts and the first rejection."""
    out: dict[str, Any] = {"bug": bug, "seeds": len(seeds), "identical": 0, "flagged": 0, "rejected": 0,
                           "accepted": 0, "first": None}
    for seed in seeds:
        clean = run_seed(SimConfig(out_dir=work / "clean", steps=steps, quorum=quorum), seed)
        buggy = run_seed(SimConfig(out_dir=work / bug, steps=steps, quorum=quorum, bug=bug), seed)
        assert clean.trace_path is not None and buggy.trace_path is not None
        if list(_events(clean.trace_path)) == list(_events(buggy.trace_path)):
            out["identical"] += 1
            continue
        if not buggy.ok:
            out["flagged"] += 1
        r = validator.validate(buggy.trace_path)
        if r.verdict is Verdict.ACCEPT:
            out["accepted"] += 1
            continue
        out["rejected"] += 1
        d = r.diagnostic
        if out["first"] is None and d is not None:
            why = (d.disabled[0].text if d.disabled else
                   ", ".join(m.variable for m in d.mismatches) if d.mismatches else r.summary_line())
            out["first"] = {"seed": seed, "step": d.step, "action": d.event.action if d.event else None, "why": why}
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", default="", help="comma-separated switch names (default: all)")
    parser.add_argument("--seeds", type=parse_seeds, default=parse_seeds("1-10"))
    parser.add_argument("--steps", type=int, default=1000)
    parser.add_argument("--quorum", choices=("static", "dynamic"), default=None,
                        help="default: dynamic for the KIP-853 switches, static for the others")
    parser.add_argument("--json", type=Path, default=None, help="write the results here")
    args = parser.parse_args()
    names = [n for n in args.only.split(",") if n] or sorted(BUGS)
    unknown = sorted(set(names) - set(BUGS))
    if unknown:
        parser.error(f"unknown switch(es): {', '.join(unknown)}")
    validator = TraceValidator(ROOT / "spec" / "KRaft.tla")
    results = []
    with tempfile.TemporaryDirectory() as tmp:
        for name in names:
            quorum = args.quorum or ("dynamic" if name in DYNAMIC_BUGS else "static")
            r = measure(name, args.seeds, args.steps, quorum, Path(tmp) / name, validator)
            first = r["first"]
            where = (f"first: seed {first['seed']} step {first['step']} {first['action']} ({first['why']})"
                     if first else "")
            print(f"{name:32} {quorum:8} identical {r['identical']:3}  flagged {r['flagged']:3}  "
                  f"rejected {r['rejected']:3}  accepted {r['accepted']:3}  {where}", flush=True)
            results.append({**r, "quorum": quorum})
    if args.json is not None:
        args.json.write_text(json.dumps(results, indent=1) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
