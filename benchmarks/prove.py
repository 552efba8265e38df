"""Figures of the symbolic checks: seconds per obligation (per action) of
``kraftcheck prove`` on the KIP-595 spec (3 voters and 1 observer by default), and the
depth and time at which ``check --symbolic`` finds each rule toggle's counterexample from
Init.

    python benchmarks/prove.py                      # both parts
    python benchmarks/prove.py --part prove --jobs 2 --timeout 600
    python benchmarks/prove.py --part prove --jobs 1 --timeout 3600 --rlimit 200000000
    python benchmarks/prove.py --part prove --jobs 1 --timeout 900 --rlimit 700000000 \
        --actions HandleFetchResponse HandleFetchRequest --cases HandleFetchResponse   # only these
    python benchmarks/prove.py --part prove --jobs 1 --rlimit 700000000 \
        --actions HandleFetchResponse --goals FetchResponsesCommitPrefix   # one question only
    python benchmarks/prove.py --part prove --jobs 1 --timeout 900 --rlimit 700000000 \
        --actions HandleFetchResponse --split   # an unknown action again case by case, then per conjunct
    python benchmarks/prove.py --part bmc --toggles volatile_vote second_leader --max-length 8
    python benchmarks/prove.py --part bmc --toggles --explicit --bmc-time-limit 600   # every toggle
    python benchmarks/prove.py --part bmc --toggles second_leader --bmc-rlimit 2000000000   # in z3 units

Target (issue 14): all obligations for 3 voters and 1 observer in under 10 minutes on 2
cores. Medians over ``--runs`` runs. With ``--rlimit`` every obligation gets that many z3
resource units (and the timeout is only an outer bound): which obligations it proves and the
units they spend do not depend on the machine's load, so runs on a shared machine compare.
"""

from __future__ import annotations

import argparse
import json
import re
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from conformance.symbolic.bmc import bmc  # noqa: E402
from conformance.symbolic.budget import with_defaults, z3_param, z3_params_set  # noqa: E402
from conformance.symbolic.journal import Journal  # noqa: E402
from conformance.symbolic.prove import ObligationResult, ProofInput, per_action, prove  # noqa: E402
from conformance.symbolic.refine import Refiner  # noqa: E402
from conformance.symbolic.schedule import start_from  # noqa: E402
from conformance.symbolic.shapes import Bounds  # noqa: E402
from conformance.tla.cfg import read_config  # noqa: E402
from conformance.tla.explorer import check  # noqa: E402
from conformance.tla.model import Model  # noqa: E402
from conformance.tla.plan import resolve_plan  # noqa: E402
from conformance.tla.syntax import UnsupportedError  # noqa: E402

SPEC = ROOT / "spec" / "MC_KRaft.tla"
COSTLIEST = 5  # conjuncts listed per action, by the units their questions spent
TOGGLES = ["volatile_vote", "second_leader", "no_uptodate", "no_commit_rule", "no_truncation"]


def toggle_names() -> list[str]:
    """Every model of spec/models.json named after a rule toggle (expect violation, a
    cfg of its own that is not a witness)."""
    models = json.loads((ROOT / "spec" / "models.json").read_text())["models"]
    return [m["name"] for m in models if m["expect"] == "violation" and m.get("mode") == "exhaustive"
            and "spec" not in m and not m["name"].endswith("witness") and not m["name"].startswith("witness")]


def observer_cfg(folder: Path, observers: str) -> Path:
    """MC_KRaft_indinv.cfg with the given Observers (the KIP-595 setting has one)."""
    text = (ROOT / "spec" / "MC_KRaft_indinv.cfg").read_text()
    text = re.sub(r"Observers = \{[^}]*\}", f"Observers = {observers}", text)
    path = folder / "MC_KRaft_indinv_observer.cfg"
    path.write_text(text)
    return path


def bench_prove(args: argparse.Namespace) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        cfg = Path(args.config) if args.config else observer_cfg(Path(tmp), args.observers)
        bounds = Bounds(args.seq_bound, args.set_bound, {"messages": args.messages})
        inp = ProofInput(SPEC, cfg, "IndInv", "Safety", None, bounds, args.timeout,
                         per_element=not args.whole_sets, slicing=args.slicing, rlimit=args.rlimit,
                         cases=tuple(args.cases or ()), goals=tuple(args.goals or ()),
                         witness=not args.no_witness, aligned_sets=not args.no_aligned_sets,
                         boolean_counts=not args.arith_counts, z3_params=with_defaults(args.z3_params),
                         pieces_take_frame=not args.pieces_ask_frame,
                         refined=args.split and not args.second_round)
        per: dict[str, list[float]] = {}
        cpu: dict[str, list[float]] = {}
        units: dict[str, list[int]] = {}
        verdicts: dict[str, str] = {}
        how: dict[str, str] = {}
        costliest: dict[str, str] = {}
        totals = []

        def progress(r: ObligationResult) -> None:
            """One line per obligation as it completes (the table follows at the end)."""
            split = ""
            if r.conjuncts:
                slow = [k for k, v in r.conjuncts.items() if v not in ("proved", "unchanged")]
                split = f", conjuncts: {len(r.conjuncts) - len(slow)} proved/unchanged" + \
                    (f", not: {', '.join(slow)}" if slow else "")
            if r.questions:
                split += f", questions proved by a premise slice: {r.questions['sliced']}, " \
                         f"left to the whole premise: {r.questions['whole']}"
            if r.verdict == "unknown" and r.message:
                split += f" ({r.message})"
            if r.split_into:
                split += f"; decided again in {r.split_into} pieces"
            print(f"  .. {r.obligation.title('IndInv', 'Safety', 'Init')}: {r.verdict} in {r.seconds:.1f}s, "
                  f"rlimit {r.rlimit_used}{split}", flush=True)

        for _ in range(args.runs):
            t0 = time.monotonic()
            refine = Refiner(inp) if args.split else None
            store = Journal(args.journal, inp) if args.journal else None
            start = start_from(args.plan, inp, refine)[1] if args.plan and refine is not None else None
            for r in per_action(prove(inp, jobs=args.jobs, done=progress, only=args.actions, refine=refine,
                                      store=store, start=start)):
                title = r.obligation.title("IndInv", "Safety", "Init")
                how[title] = (r.how or "whole") + (f", of which attempts decided again: cpu {r.redone_cpu:.1f}s, "
                                                   f"rlimit {r.redone_units}" if r.redone_units or r.redone_cpu else "")
                per.setdefault(title, []).append(r.seconds)
                cpu.setdefault(title, []).append(r.cpu_seconds)
                units.setdefault(title, []).append(r.rlimit_used)
                verdicts[title] = r.verdict
                top = sorted(r.conjunct_units.items(), key=lambda kv: -kv[1])[:COSTLIEST]
                costliest[title] = ", ".join(f"{label} {n / 1e6:.0f} M" for label, n in top if n)
            totals.append(time.monotonic() - t0)
    print(f"prove: {cfg.name if args.config else 'MC_KRaft_indinv.cfg with Observers = ' + args.observers}, "
          f"bounds seq {args.seq_bound} set {args.set_bound} messages {args.messages}, jobs {args.jobs}, "
          f"timeout {args.timeout:.0f}s, rlimit {args.rlimit or 'none'}, runs {args.runs}, "
          f"{'whole-set questions' if args.whole_sets else 'per-element questions'}, "
          f"{'premise slicing' if args.slicing else 'whole premise only'}, "
          f"{'disjunction over the slots' if args.no_witness else 'one witness'} for an action's \\E over a set, "
          f"{'fresh' if args.no_aligned_sets else 'aligned'} slots for the changed sets, "
          f"counts compared as {'arithmetic' if args.arith_counts else 'formulas over their conditions'}, "
          f"case by case: {' '.join(args.cases) if args.cases else 'none'}"
          + (", unknown actions decided again by case, then by conjunct" if args.split else "")
          + (" (each conjunct piece asking its step's frame again)" if args.split and args.pieces_ask_frame else "")
          + (" (an attempt's second round first)" if args.split and args.second_round else "")
          + (f", started from the plan of {args.plan}" if args.split and args.plan else "")
          + (f", only the conjuncts {' '.join(args.goals)}" if args.goals else ""))
    for title, secs in per.items():
        print(f"  {title:<60} {verdicts[title]:<14} median {statistics.median(secs):8.1f}s "
              f"(cpu {statistics.median(cpu[title]):.1f}s, rlimit {statistics.median(units[title]):.0f}; "
              f"{how[title]})")
        if costliest.get(title):
            print(f"      costliest conjuncts (last run, every attempt and piece): {costliest[title]}")
    print(f"  wall time for all obligations: median {statistics.median(totals):.1f}s "
          f"(target: under 600s on 2 cores)")


def explicit_length(cfg_path: Path, time_limit: float) -> str:
    """The explicit engine's shortest counterexample under the toggle's own cfg (from its
    INIT, a scenario state for the deep toggles)."""
    config = read_config(cfg_path)
    model = Model.load(SPEC, constants=config.constants, overrides=config.overrides)
    res = check(model, config, time_limit=time_limit, progress=False)
    start = "Init" if config.init is None else config.init
    if res.verdict != "violation":
        return f"{res.verdict} ({start})"
    return f"{len(res.trace) - 1} steps from {start}"


def bench_bmc(args: argparse.Namespace) -> None:
    units = f", {args.bmc_rlimit:,} z3 units" if args.bmc_rlimit else ""
    how = "disjunction over the slots" if args.no_witness else "witness per step"
    print(f"check --symbolic: max length {args.max_length}, time limit {args.bmc_time_limit:.0f}s{units} per toggle, "
          f"\\E over a set of the state: {how}, "
          f"counts compared as {'arithmetic' if args.arith_counts else 'formulas over their conditions'}, "
          f"bounds seq {args.seq_bound} set {args.set_bound} "
          f"messages {args.messages}"
          + (f" in the initial state, then at most {args.growth} more per set and step" if args.growth else ""))
    for toggle in args.toggles or toggle_names():
        cfg_path = ROOT / "spec" / f"MC_KRaft_{toggle}.cfg"
        explicit = explicit_length(cfg_path, args.bmc_time_limit) if args.explicit else "-"
        config = read_config(cfg_path)
        config.init, config.next, config.specification = None, None, "Spec"  # from Init
        model = Model.load(SPEC, constants=config.constants, overrides=config.overrides)
        plan = resolve_plan(model, config)
        bounds = Bounds(args.seq_bound, args.set_bound, {"messages": args.messages})
        t0, c0 = time.monotonic(), time.process_time()
        depths = ""
        try:
            with z3_params_set(args.z3_params):
                out = bmc(model, plan, args.max_length, bounds, time_limit=args.bmc_time_limit,
                          rlimit=args.bmc_rlimit, witness=not args.no_witness, growth=args.growth,
                          boolean_counts=not args.arith_counts)
        except UnsupportedError as exc:
            what = f"unsupported: {str(exc).split(': ', 1)[-1]}"
        else:
            res = out.result
            if res.verdict == "violation":
                what = f"found at depth {len(res.trace) - 1} ({res.property})"
            elif res.verdict == "limit":
                what = f"not found, depth {res.depth - 1} done, cap hit at depth {res.depth}"
            else:
                what = f"{res.verdict}: {res.message}"
            depths = " (solver per depth: " + ", ".join(
                f"{f.depth}:{f.seconds:.1f}s/{f.units / 1e6:.0f}M" for f in out.figures) + ")"
        seconds, cpu_s = time.monotonic() - t0, time.process_time() - c0
        print(f"  {toggle:<24} explicit {explicit:<36} symbolic {what}; {seconds:.1f}s wall, "
              f"{cpu_s:.1f}s cpu{depths}", flush=True)


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--part", choices=["prove", "bmc", "both"], default="both")
    p.add_argument("--config", help="cfg for prove (default: MC_KRaft_indinv.cfg with --observers)")
    p.add_argument("--observers", default="{4}")
    p.add_argument("--jobs", type=int, default=2)
    p.add_argument("--timeout", type=float, default=600.0)
    p.add_argument("--rlimit", type=int, default=0,
                   help="prove: z3 resource units per obligation (0: none); the timeout stays an outer bound")
    p.add_argument("--runs", type=int, default=1)
    p.add_argument("--seq-bound", type=int, default=2)
    p.add_argument("--set-bound", type=int, default=3)
    p.add_argument("--messages", type=int, default=4)
    p.add_argument("--actions", nargs="*", help="prove: only the step obligations of these actions")
    p.add_argument("--goals", nargs="*",
                   help="prove: ask only these conjuncts of IndInv' in each step obligation, the "
                        "premise staying all of IndInv (a partial check, to diagnose one question)")
    p.add_argument("--whole-sets", action="store_true",
                   help="prove: ask each conjunct over a set variable's elements as one question "
                        "(the baseline of the per-element split)")
    p.add_argument("--slicing", action="store_true",
                   help="prove: ask each step question with a slice of the invariant's conjuncts "
                        "first (premise slicing; the whole invariant by default)")
    p.add_argument("--cases", nargs="*",
                   help="prove: decide the step obligations of these actions case by case (per "
                        "destination and top-level disjunct; figures per action are the cases' sums)")
    p.add_argument("--journal", type=Path, help="prove: keep each result in this journal (kraftcheck prove --journal)")
    p.add_argument("--plan", type=Path,
                   help="prove --split: start each action where this journal's run found its pieces "
                        "(kraftcheck prove --plan)")
    p.add_argument("--split", action="store_true",
                   help="prove: decide an unknown step obligation again case by case, and an unknown "
                        "case per open conjunct of IndInv' (figures per action include the attempts)")
    p.add_argument("--pieces-ask-frame", action="store_true",
                   help="prove --split: a conjunct piece asks again which variables its step keeps, "
                        "not taking its attempt's answer (the baseline of Obligation.kept)")
    p.add_argument("--second-round", action="store_true",
                   help="prove --split: an attempt shares the rest of its budget among the questions "
                        "its first round left open before it is decided again in pieces (the baseline "
                        "of ProofInput.refined)")
    p.add_argument("--toggles", nargs="*", default=TOGGLES,
                   help="bmc: these toggles (with no name: every toggle of spec/models.json)")
    p.add_argument("--explicit", action="store_true",
                   help="bmc: also the explicit engine's counterexample length under each toggle's cfg")
    p.add_argument("--no-witness", action="store_true",
                   help="translate an action's \\E over a set of the state as a disjunction over its "
                        "slots, not with one witness per step (the baseline of witness.py)")
    p.add_argument("--no-aligned-sets", action="store_true",
                   help="prove: the second state's changed sets get fresh slots, not the first state's "
                        "(the baseline of aligned.py)")
    p.add_argument("--arith-counts", action="store_true",
                   help="compare counts (quorum tests) as linear arithmetic, not as formulas "
                        "over the counted conditions (the baseline of counting.py)")
    p.add_argument("--z3", action="append", default=[], metavar="KEY=VALUE",
                   help="a z3 parameter set while each obligation is decided (repeatable): prove sets "
                        "smt.arith.solver=2 unless this names the key (smt.arith.solver=6: z3's own "
                        "default, the baseline), bmc z3's defaults; units compare only between runs of "
                        "the same parameters")
    p.add_argument("--growth", type=int, default=0,
                   help="bmc: each state's sets keep the slots of the state before and gain at most "
                        "this many elements per step (0: fresh sets of the bounds)")
    p.add_argument("--max-length", type=int, default=24)
    p.add_argument("--bmc-time-limit", type=float, default=900.0)
    p.add_argument("--bmc-rlimit", type=int, default=0,
                   help="bmc: z3 resource units per toggle (default 0: no limit), load-independent")
    args = p.parse_args()
    try:
        args.z3_params = tuple(z3_param(text) for text in args.z3)
    except ValueError as exc:
        p.error(f"--z3 {exc}")
    if args.part in ("prove", "both"):
        print(f"z3 parameters of prove: {', '.join(f'{k}={v}' for k, v in with_defaults(args.z3_params))}")
    if args.z3 and args.part in ("bmc", "both"):
        print(f"z3 parameters of bmc: {', '.join(args.z3)}")
    if args.journal and args.runs > 1:
        p.error("--journal with --runs > 1: the later runs would take every result from it")
    if args.plan and not args.split:
        p.error("--plan needs --split")
    if args.part in ("prove", "both"):
        bench_prove(args)
    if args.part in ("bmc", "both"):
        bench_bmc(args)


if __name__ == "__main__":
    main()
