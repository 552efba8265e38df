"""``kraftcheck prove`` and the ``--symbolic`` mode of ``kraftcheck check``.

Exit codes of ``prove``: 0 every obligation proved, 12 a counterexample, 3 an obligation
unknown (solver timeout or resource limit), 1 an input error (or a counterexample the explicit engine does
not confirm: an internal error).
"""

from __future__ import annotations

import argparse
import io
import json
import re
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from conformance.tla.syntax import TlaError

if TYPE_CHECKING:
    from conformance.symbolic.prove import ObligationResult
    from conformance.symbolic.schedule import Plan
    from conformance.symbolic.shapes import Bounds

NO_Z3 = "the symbolic checks need z3: pip install 'kraftcheck[symbolic]' (z3-solver)"


def _z3_missing() -> bool:
    try:
        import z3  # noqa: F401
    except ImportError:
        print(f"error: {NO_Z3}", file=sys.stderr)
        return True
    return False

EXIT = {"proved": 0, "counterexample": 12, "unknown": 3, "error": 1}


def add_encoding_options(p: argparse.ArgumentParser) -> None:
    """How a symbolic state is encoded (``prove`` and ``check --symbolic``): its size bounds
    and whether an action's ``\\E`` over a set of the state takes one witness."""
    p.add_argument("--seq-bound", type=int, default=3, metavar="N",
                   help="at most N items per sequence of a symbolic state (default 3)")
    p.add_argument("--set-bound", type=int, default=4, metavar="N",
                   help="at most N elements per set of a symbolic state (default 4)")
    p.add_argument("--bound", action="append", default=[], metavar="VAR=N",
                   help="at most N elements for the set or sequence variable VAR (repeatable)")
    p.add_argument("--no-witness", action="store_true",
                   help="translate an action's \\E x \\in S over a set of the state as a disjunction "
                        "over the slots of S, not with one witness element (the encoding before the "
                        "witness; same verdicts, for comparing figures)")


def bounds_of(args: argparse.Namespace) -> Bounds | str:
    from conformance.symbolic.shapes import Bounds

    per: dict[str, int] = {}
    for item in args.bound:
        m = re.fullmatch(r"([A-Za-z_][A-Za-z0-9_]*)=([0-9]+)", item)
        if m is None:
            return f"--bound {item}: expected VAR=N"
        per[m.group(1)] = int(m.group(2))
    if args.seq_bound < 0 or args.set_bound < 0:
        return "--seq-bound and --set-bound must not be negative"
    return Bounds(args.seq_bound, args.set_bound, per)


def describe_bounds(b: Bounds) -> str:
    extra = "".join(f", {k} <= {v}" for k, v in sorted(b.per_variable.items()))
    return f"sequences <= {b.seq_bound} items, sets <= {b.set_bound} elements{extra}"


def register(subparsers: Any) -> None:
    p = subparsers.add_parser(
        "prove",
        help="prove an inductive invariant with z3 (Init => Inv, Inv /\\ Next => Inv', Inv => Safety)",
        description="Discharge the obligations of an inductive invariant for the cfg's constants "
        "with z3: Init => INV, INV /\\ Next => INV' for each disjunct of Next (in parallel), "
        "INV => SAFETY. With --split, a step obligation unknown within its budget is decided again "
        "case by case, then per conjunct of INV'. Exit codes: 0 proved, 12 counterexample, 3 unknown "
        "(timeout or resource limit), 1 input error.",
    )
    p.add_argument("spec", type=Path, help="the TLA+ module")
    p.add_argument("--config", type=Path, required=True, help="TLC .cfg file: the constants and CONSTRAINTs")
    p.add_argument("--inv", required=True, help="the inductive invariant (a state predicate)")
    p.add_argument("--safety", required=True, help="the property the invariant implies")
    p.add_argument("--init", help="the initial predicate (default: the cfg's)")
    p.add_argument("--timeout", type=float, default=600.0, metavar="SECONDS",
                   help="solver time per obligation (default 600): beyond it the obligation is unknown")
    p.add_argument("--rlimit", type=int, default=0, metavar="N",
                   help="z3 resource units per obligation (default 0: no limit): beyond them the "
                        "obligation is unknown, as beyond --timeout, which stays an outer bound; unlike "
                        "seconds, the units do not depend on the machine or its load")
    p.add_argument("--jobs", type=int, default=2, metavar="N", help="obligations decided in parallel (default 2)")
    p.add_argument("--cases", action="append", default=[], metavar="ACTION",
                   help="decide the step obligation of ACTION case by case (repeatable): one obligation "
                        "per destination and per top-level disjunct of the action, each with the whole "
                        "--rlimit; the action's obligation is proved when all of them are")
    p.add_argument("--split", action="store_true",
                   help="decide a step obligation that comes back unknown again, in pieces that each get "
                        "the whole --rlimit and --timeout: case by case (as --cases) asking the conjuncts "
                        "of INV' it left open, then a case still unknown once per open conjunct (the "
                        "premise staying all of INV); an attempt asks each question once at its first "
                        "cap and leaves the open ones to its pieces (a conjunct piece, the last, shares "
                        "what is left of its budget among them); the figures of an action include "
                        "every attempt")
    p.add_argument("--goals", action="append", default=[], metavar="CONJUNCT",
                   help="ask only this conjunct of INV' in each step obligation (a label such as "
                        "Lemma/2, or a name), the premise staying all of INV (repeatable): a partial "
                        "proof, to diagnose or finish one question")
    p.add_argument("--journal", type=Path, metavar="FILE",
                   help="keep each obligation decided (proved or unknown) in FILE as it comes, and take "
                        "those FILE already holds for the same spec, cfg, options, z3 and checker instead "
                        "of deciding them again: an interrupted proof resumes where it stopped")
    p.add_argument("--plan", type=Path, metavar="JOURNAL",
                   help="with --split: start each action that an earlier run (its --journal, of any "
                        "inputs: an edited lemma too) decided in pieces where it found them, skipping the "
                        "questions its attempts left open there: the whole attempt asks what it proved, "
                        "each case the rest, a conjunct a case left open going to a conjunct piece at "
                        "once; every verdict is decided again")
    p.add_argument("--z3", action="append", default=[], metavar="KEY=VALUE",
                   help="a z3 parameter set while each obligation is decided (repeatable); default "
                        "smt.arith.solver=2, z3's older simplex, which the KRaft proof measured cheaper "
                        "(spec/README.md); smt.arith.solver=6 is z3's own default; a journal keys them "
                        "with the options")
    p.add_argument("--itf-dir", type=Path, default=Path("."), metavar="DIR",
                   help="where counterexamples are written as ITF (default: the current folder)")
    p.add_argument("-I", "--search-path", action="append", type=Path, default=[], metavar="DIR")
    add_encoding_options(p)
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    if _z3_missing():
        return 1
    from conformance.symbolic.budget import with_defaults, z3_param
    from conformance.symbolic.journal import Journal
    from conformance.symbolic.prove import ProofInput, per_action, prove
    from conformance.symbolic.refine import Refiner

    bounds = bounds_of(args)
    if isinstance(bounds, str):
        print(f"kraftcheck prove: error: {bounds}", file=sys.stderr)
        return 2
    if args.rlimit < 0 or args.timeout <= 0:
        print("kraftcheck prove: error: --rlimit must not be negative and --timeout must be positive",
              file=sys.stderr)
        return 2
    if args.plan is not None and not args.split:
        print("kraftcheck prove: error: --plan needs --split (a planned piece still unknown is split as usual)",
              file=sys.stderr)
        return 2
    try:
        params = with_defaults([z3_param(text) for text in args.z3])
    except ValueError as exc:
        print(f"kraftcheck prove: error: --z3 {exc}", file=sys.stderr)
        return 2
    if not args.spec.is_file():
        print(f"error: {args.spec}: no such spec file", file=sys.stderr)
        return 1
    if args.plan is not None and not args.plan.is_file():
        print(f"error: --plan {args.plan}: no such journal", file=sys.stderr)
        return 1
    inp = ProofInput(args.spec, args.config, args.inv, args.safety, args.init, bounds, args.timeout,
                     tuple(args.search_path), rlimit=args.rlimit, cases=tuple(args.cases), goals=tuple(args.goals),
                     witness=not args.no_witness, refined=args.split, z3_params=params)
    try:
        journal = Journal(args.journal, inp) if args.journal is not None else None
        refiner = Refiner(inp) if args.split else None
        plan: Plan | None = None
        start = None
        if args.plan is not None and refiner is not None:
            from conformance.symbolic.schedule import start_from

            plan, start = start_from(args.plan, inp, refiner)
        every = prove(inp, jobs=max(1, args.jobs), done=lambda r: _progress(r, args), refine=refiner,
                      store=journal, start=start)
    except (TlaError, ValueError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    except OSError as exc:
        print(f"error: journal {args.journal}: {exc.strerror or exc}", file=sys.stderr)
        return 1
    results = per_action(every)
    init = args.init or "Init"
    print(f"Proof of {args.inv} for the constants of {args.config} and the states satisfying its "
          f"CONSTRAINTs, of bounded size ({describe_bounds(bounds)}); the cfg's constants and "
          "state constraints bound the state space: nothing is proved for other constants.")
    print(f"z3 parameters: {', '.join(f'{key}={value}' for key, value in params) or 'z3 defaults'}")
    if args.goals:
        print(f"Partial: each step obligation asks only {', '.join(args.goals)} of {args.inv}'.")
    if plan is not None:
        print(f"Started from the plan of {args.plan}: {len(plan)} action(s) decided there in pieces "
              f"({', '.join(sorted(plan.whole)) or 'none'}) start from those pieces; every verdict is decided here.")
    if journal is not None and journal.taken:
        print(f"{journal.taken} obligations (or pieces) taken from the journal {args.journal} of an "
              "earlier run with the same inputs (their figures are that run's; marked 'journal').")
    width = max(len(r.obligation.title(args.inv, args.safety, init)) for r in results)
    for r in results:
        print(f"  {r.obligation.title(args.inv, args.safety, init):<{width}}  {r.verdict:<14} "
              f"{r.seconds:8.2f}s (cpu {r.cpu_seconds:.2f}s, rlimit {r.rlimit_used})"
              f"{' journal' if r.journaled else ''}")
        if r.how and r.how != "whole":
            print(f"      decided: {_how_line(r)}")
        if r.verdict == "unknown" and r.message:
            print(f"      unknown: {r.message}")
    for r in every:
        if r.verdict in ("counterexample", "error"):
            _report_counterexample(r, args, init)
    if any(r.verdict == "error" for r in results):
        return 1
    if any(r.verdict == "counterexample" for r in results):
        return 12
    return 3 if any(r.verdict == "unknown" for r in results) else 0


def _progress(r: ObligationResult, args: argparse.Namespace) -> None:
    """One obligation (or piece) as it completes, on stderr."""
    again = f"; decided again in {r.split_into} pieces" if r.split_into else ""
    taken = " from the journal" if r.journaled else ""
    print(f"  ... {r.obligation.title(args.inv, args.safety, args.init or 'Init')}: {r.verdict}{taken} "
          f"({r.seconds:.1f}s, cpu {r.cpu_seconds:.1f}s, rlimit {r.rlimit_used}){again}", file=sys.stderr, flush=True)


def _how_line(r: ObligationResult) -> str:
    """How an action was decided, and what its attempts decided again spent (counted in
    its figures)."""
    if not r.redone_units and not r.redone_cpu:
        return r.how
    return (f"{r.how}; the figures include the attempts decided again "
            f"(cpu {r.redone_cpu:.2f}s, rlimit {r.redone_units})")


def _report_counterexample(r: ObligationResult, args: argparse.Namespace, init: str) -> None:
    from conformance.symbolic.counterexample import state_text, write_itf
    from conformance.tla.cfg import read_config
    from conformance.tla.model import Model

    config = read_config(args.config)
    variables = Model.load(args.spec, constants=config.constants, overrides=config.overrides,
                           search_path=args.search_path).variables
    ob = r.obligation
    title = ob.title(args.inv, args.safety, init)
    print()
    if r.verdict == "error":
        print(f"Error: {title}: {r.message}")
        if not r.states:
            return
    if ob.kind == "step":
        print(f"Counterexample to induction: action {ob.action} leads from a state satisfying "
              f"{args.inv} to one violating {', '.join(r.failing) or args.inv}.")
        print(f"State 1 (satisfies {args.inv}):")
        print(state_text(r.states[0], variables))
        print()
        print(f"State 2 (after {ob.action}; violates {', '.join(r.failing)}):")
        print(state_text(r.states[1], variables, r.states[0]))
    else:
        what = f"a state of {init} violating" if ob.kind == "init" else f"a state of {args.inv} violating"
        print(f"Counterexample to {title}: {what} {', '.join(r.failing)}:")
        print(state_text(r.states[0], variables))
    slug = re.sub(r"[^A-Za-z0-9]+", "_", ob.kind + ("_" + ob.action if ob.action else "") +
                  (f"_case{ob.case + 1}" if ob.case >= 0 else "") +
                  (f"_{ob.conjunct}" if ob.conjunct else "")).strip("_")
    path = args.itf_dir / f"cti_{slug}.itf.json"
    try:
        args.itf_dir.mkdir(parents=True, exist_ok=True)
        write_itf(path, variables, r.states,
                  {"source": str(args.spec), "obligation": title, "failing": r.failing},
                  [args.inv if ob.kind != "init" else init] + ([ob.action or ""] if ob.kind == "step" else []))
        print(f"(written as ITF to {path})")
    except OSError as exc:
        print(f"error: cannot write {path}: {exc.strerror}", file=sys.stderr)


def run_bmc(args: argparse.Namespace, model: Any, config: Any, print_report: Any, write_itf_trace: Any) -> int:
    """``kraftcheck check --symbolic --length K`` after the model is loaded."""
    if _z3_missing():
        return 1
    from conformance.symbolic.bmc import bmc
    from conformance.tla.plan import resolve_plan

    bounds = bounds_of(args)
    if isinstance(bounds, str) or args.length < 0 or args.rlimit < 0 or args.growth < 0:
        problem = bounds if isinstance(bounds, str) else "--length, --rlimit and --growth must be >= 0"
        print(f"kraftcheck check: error: {problem}", file=sys.stderr)
        return 2
    try:
        plan = resolve_plan(model, config)
        log = None if args.quiet else (lambda line: print(line, file=sys.stderr))
        outcome = bmc(model, plan, args.length, bounds, time_limit=args.time_limit, log=log,
                      rlimit=args.rlimit, witness=not args.no_witness, growth=args.growth)
    except TlaError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    result = outcome.result
    if args.itf is not None and result.trace:
        write_itf_trace(args.itf, result, args.spec)
    if args.json:
        print(json.dumps(result.to_json()))
        return int(result.exit_code)
    growth = f"; set bounds for the initial state, and a step adds at most {args.growth} elements to a set" \
        if args.growth else ""
    print(f"Bounded model checking with z3 from the initial states, up to {args.length} steps, "
          f"states of bounded size ({describe_bounds(bounds)}{growth}, intervals with state-dependent ends "
          f"<= {bounds.seq_bound + 1} integers, state-dependent exponents < {bounds.seq_bound + 1}); "
          "deadlock is not checked.")
    if result.verdict == "ok":
        print(f"No counterexample of at most {args.length} steps within these bounds.")
    report = io.StringIO()
    print_report(result, simulated=True, out=report)
    for line in report.getvalue().splitlines():  # the explicit search's counts do not apply
        if not line.startswith(("The longest walk", "0 states generated")):
            print(line)
    depths = ", ".join(f"{f.depth}: {f.verdict} {f.seconds:.2f}s {f.units} units" for f in outcome.figures)
    print(f"Solver calls per depth: {depths}.")
    return int(result.exit_code)
