"""``kraftcheck apalache``: drive an installed Apalache on a spec.

Subcommands: ``typecheck``, ``check``, ``inductive`` (the three-run recipe for an
inductive invariant) and ``simulate``. Exit codes: 0 ok, 12 a violation, 1 any
Apalache error (parse, type, evaluation, timeout), 2 usage errors or Apalache missing.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from conformance.apalache import Apalache, ApalacheError, ApalacheNotFound, Outcome
from conformance.json_output import plain_integers
from conformance.tla import itf
from conformance.tla.cfg import read_config
from conformance.tla.model import Model
from conformance.tla.syntax import TlaError
from conformance.tla.values import format_value

EXIT_OK, EXIT_VIOLATION, EXIT_ERROR, EXIT_USAGE = 0, 12, 1, 2


def register(subparsers: Any) -> None:
    p = subparsers.add_parser(
        "apalache",
        help="run an installed Apalache (typecheck, check, inductive, simulate)",
        description="Run Apalache on a spec in a fresh temporary directory, read its verdict and "
        "its ITF counterexample. Apalache is looked for at --apalache, then as apalache-mc on PATH, "
        "then at $APALACHE_HOME/bin/apalache-mc. Exit codes: 0 ok, 12 violation, 1 Apalache "
        "error or timeout, 2 usage error or Apalache not found.",
    )
    sub = p.add_subparsers(dest="apalache_command", metavar="ACTION", required=True)
    for name, text in (("typecheck", "type-check the spec's annotations"),
                       ("check", "bounded model checking"),
                       ("inductive", "prove an inductive invariant (three runs)"),
                       ("simulate", "random symbolic simulation")):
        q = sub.add_parser(name, help=text, description=text)
        q.add_argument("spec", type=Path, help="the TLA+ module (e.g. spec/MC_KRaft.tla)")
        q.add_argument("--apalache", metavar="PATH", help="the apalache-mc executable")
        q.add_argument("--timeout", type=float, default=600.0, metavar="SECONDS",
                       help="kill Apalache after this long (default 600)")
        q.add_argument("--json", action="store_true", help="print one JSON object with the outcome")
        q.add_argument("--itf", type=Path, metavar="OUT.itf.json", help="copy the counterexample here")
        if name == "typecheck":
            continue
        q.add_argument("--cinit", metavar="OP", help="constant initialisation (e.g. ConstInitSmall)")
        q.add_argument("--config", type=Path, help="TLC .cfg to pass to Apalache (and to label actions)")
        q.add_argument("--init", default=None, metavar="OP", help="initial predicate (default Init)")
        q.add_argument("--next", default=None, metavar="OP", help="next-state action (default Next)")
        if name == "inductive":
            q.add_argument("--ind-inv", default="IndInv", metavar="OP", help="the inductive invariant")
            q.add_argument("--ind-init", default="IndInit", metavar="OP",
                           help="initial predicate generating the states of IndInv (default IndInit)")
            q.add_argument("--safety", default="Safety", metavar="OP", help="what it must imply")
            continue
        q.add_argument("--inv", action="append", default=[], metavar="OP", help="invariant (repeatable)")
        q.add_argument("--length", type=int, default=10, help="steps (default 10)")
        if name == "check":
            q.add_argument("--max-error", type=int, metavar="N", help="report up to N violations")
            q.add_argument("--no-deadlock", action="store_true", help="do not report deadlocks")
        else:
            q.add_argument("--max-run", type=int, default=100, metavar="N", help="runs (default 100)")
    p.set_defaults(func=run)


def _labelling_model(args: argparse.Namespace) -> Model | None:
    """The engine's model of the spec, to name the actions of a counterexample (None if
    the spec needs constants only a cfg gives and none was given)."""
    try:
        constants: dict[str, Any] = {}
        overrides: dict[str, str] = {}
        config = getattr(args, "config", None)
        if config is not None:
            cfg = read_config(config)
            constants, overrides = cfg.constants, cfg.overrides
        return Model.load(args.spec, constants=constants, overrides=overrides)
    except TlaError:
        return None


def _outcome_json(outcome: Outcome, model: Model | None) -> dict[str, Any]:
    variables = model.variables if model is not None else (
        tuple(outcome.itf.get("vars", [])) if outcome.itf else ())
    return {
        "outcome": outcome.outcome,
        "exit_code": outcome.exit_code,
        "message": outcome.message,
        "seconds": round(outcome.seconds, 3),
        "command": outcome.command,
        "trace": [
            {"action": step.action, "params": {k: itf.encode(v) for k, v in step.params},
             "state": {var: itf.encode(v) for var, v in zip(variables, step.state, strict=True)}}
            for step in outcome.counterexample
        ],
    }


def _print_outcome(title: str, outcome: Outcome, model: Model | None) -> None:
    print(f"{title}: {outcome.outcome} ({outcome.seconds:.1f}s)")
    if outcome.message:
        print(f"  {outcome.message}")
    if outcome.outcome not in ("ok", "violation"):
        tail = (outcome.stderr or outcome.stdout).strip().splitlines()[-15:]
        for line in tail:
            print(f"  | {line}")
    variables = model.variables if model is not None else (
        tuple(outcome.itf.get("vars", [])) if outcome.itf else ())
    for k, step in enumerate(outcome.counterexample, start=1):
        params = ", ".join(f"{n} = {format_value(v)}" for n, v in step.params)
        print(f"State {k}: <{step.action}{'(' + params + ')' if params else ''}>")
        for var, value in zip(variables, step.state, strict=True):
            print(f"/\\ {var} = {format_value(value)}")


def _exit_code(outcomes: list[Outcome]) -> int:
    if any(o.outcome == "violation" for o in outcomes):
        return EXIT_VIOLATION
    if all(o.ok for o in outcomes):
        return EXIT_OK
    return EXIT_ERROR


def run(args: argparse.Namespace) -> int:
    if not args.spec.is_file():
        print(f"kraftcheck apalache: error: {args.spec}: no such spec file", file=sys.stderr)
        return EXIT_USAGE
    if getattr(args, "length", 0) < 0 or args.timeout <= 0:
        print("kraftcheck apalache: error: --length must be >= 0 and --timeout > 0", file=sys.stderr)
        return EXIT_USAGE
    try:
        apalache = Apalache.locate(args.apalache, timeout=args.timeout)
        apalache.installation()
    except ApalacheNotFound as exc:
        print(f"kraftcheck apalache: {exc}", file=sys.stderr)
        return EXIT_USAGE
    except ApalacheError as exc:
        print(f"kraftcheck apalache: {exc}", file=sys.stderr)
        return EXIT_ERROR
    action = args.apalache_command
    model = None if action == "typecheck" else _labelling_model(args)
    titled: list[tuple[str, Outcome]] = []
    try:
        if action == "typecheck":
            titled.append(("typecheck", apalache.typecheck(args.spec)))
        elif action == "check":
            titled.append(("check", apalache.check(
                args.spec, model=model, init=args.init, next=args.next, inv=args.inv,
                cinit=args.cinit, length=args.length, max_error=args.max_error, config=args.config,
                no_deadlock=args.no_deadlock)))
        elif action == "simulate":
            titled.append(("simulate", apalache.simulate(
                args.spec, max_run=args.max_run, model=model, init=args.init, next=args.next,
                inv=args.inv, cinit=args.cinit, length=args.length, config=args.config)))
        else:
            for step, outcome in apalache.inductive(
                    args.spec, ind_inv=args.ind_inv, safety=args.safety, init=args.init or "Init",
                    ind_init=args.ind_init,
                    next=args.next or "Next", cinit=args.cinit, config=args.config, model=model):
                titled.append((f"{step.name} ({step.claim})", outcome))
    except ApalacheError as exc:
        print(f"kraftcheck apalache: {exc}", file=sys.stderr)
        return EXIT_ERROR
    outcomes = [o for _, o in titled]
    with_cex = next((o for o in outcomes if o.itf is not None), None)
    if args.itf is not None and with_cex is not None:
        args.itf.write_text(json.dumps(with_cex.itf, indent=2) + "\n", encoding="utf-8")
    if args.json:
        print(json.dumps(plain_integers({"runs": [dict(_outcome_json(o, model), step=t) for t, o in titled],
                                         "exit_code": _exit_code(outcomes)})))
    else:
        for title, outcome in titled:
            _print_outcome(title, outcome, model)
    return _exit_code(outcomes)
