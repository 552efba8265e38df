"""``kraftcheck check``: model-check a TLA+ spec with the embedded engine.

Exit codes: 0 no error, 12 invariant/property violation or deadlock, 1 error in the
input, 2 usage error, 3 a limit (``--max-states``, ``--time-limit``) stopped the search,
130 interrupted (SIGINT; the partial statistics are printed, as JSON with ``--json``).
"""

from __future__ import annotations

import argparse
import json
import signal
import sys
import threading
from pathlib import Path
from typing import Any

from conformance.json_output import plain_integers
from conformance.output_paths import OutputPathError, writable_file
from conformance.tla import itf
from conformance.tla.cfg import ModelConfig, read_config
from conformance.tla.explorer import CheckResult, StateCheck, check, iter_changed, simulate
from conformance.tla.lint import collect_modules, state_type_check
from conformance.tla.model import Model
from conformance.tla.statequeue import remove_spill_folders
from conformance.tla.syntax import TlaError
from conformance.tla.values import Value, format_value, make_record

USAGE_ERROR = 2


def register(subparsers: Any) -> None:
    p = subparsers.add_parser(
        "check",
        help="model-check a TLA+ spec (breadth-first, or random simulation)",
        description="Model-check SPEC.tla under a TLC configuration with the embedded engine: "
        "exhaustive breadth-first search (shortest counterexamples) or, with --simulate, random "
        "walks. Exit codes: 0 ok, 12 violation or deadlock, 1 input error, 2 usage error, "
        "3 stopped by a limit.",
    )
    p.add_argument("spec", type=Path, help="the TLA+ module to check")
    p.add_argument("--config", type=Path, help="TLC .cfg file (default: SPEC with .cfg instead of .tla)")
    p.add_argument("--json", action="store_true", help="print one JSON object with the verdict on stdout")
    p.add_argument("--itf", type=Path, metavar="OUT.itf.json", help="write the counterexample as ITF JSON")
    p.add_argument("--max-states", type=int, metavar="N", help="stop after N distinct states (exit 3)")
    p.add_argument("--time-limit", type=float, metavar="SECONDS",
                   help="stop after this many seconds (exit 3); an evaluation still running 5 seconds "
                   "later is interrupted")
    p.add_argument("--no-deadlock", action="store_true", help="do not report deadlocks")
    p.add_argument("--simulate", action="store_true", help="random simulation instead of exhaustive search")
    p.add_argument("--depth", type=int, default=100, help="simulation: states per walk (default 100)")
    p.add_argument("--traces", type=int, default=100, help="simulation: number of walks (default 100)")
    p.add_argument("--seed", type=int, default=0, help="simulation: random seed (default 0)")
    p.add_argument("--workers", type=int, default=1, metavar="N",
                   help="worker processes of the exhaustive search (default 1): forked processes "
                   "expand each breadth-first level in chunks while this one keeps the seen states, "
                   "with one worker's verdict, counterexample and counts; pays off only with idle "
                   "cores (the states travel between processes); liveness properties and "
                   "--simulate always use 1")
    p.add_argument("--typecheck", action=argparse.BooleanOptionalAction, default=None,
                   help="check every new state against the @type: annotations of the variables "
                   "(default: on when every variable is annotated)")
    p.add_argument("--quiet", action="store_true", help="no progress display")
    p.add_argument("-I", "--search-path", action="append", type=Path, default=[], metavar="DIR",
                   help="extra folder to look for modules in (repeatable)")
    # --- symbolic mode (conformance/symbolic) ---
    p.add_argument("--symbolic", action="store_true",
                   help="bounded model checking with z3 from Init, up to --length steps")
    p.add_argument("--length", type=int, default=10, metavar="K", help="--symbolic: steps (default 10)")
    p.add_argument("--rlimit", type=int, default=0, metavar="N",
                   help="--symbolic: z3 resource units for the whole search (default 0: no limit); unlike "
                        "--time-limit, they do not depend on the machine or its load")
    p.add_argument("--growth", type=int, default=0, metavar="N",
                   help="--symbolic: each state's sets keep the slots of the state before and gain at "
                        "most N elements per step, the initial state's holding at most their bound "
                        "(default 0: every state's sets are fresh, of at most their bound)")
    from conformance.symbolic.cli import add_encoding_options
    add_encoding_options(p)
    # --- end symbolic mode ---
    p.set_defaults(func=run)


def _usage(message: str) -> int:
    print(f"kraftcheck check: error: {message}", file=sys.stderr)
    return USAGE_ERROR


def _input_error(args: argparse.Namespace, message: str) -> int:
    if args.json:
        print(json.dumps(plain_integers(CheckResult("error", (), message=message).to_json())))
    print(f"error: {message}", file=sys.stderr)
    return 1


def _typecheck(args: argparse.Namespace, model: Model) -> StateCheck | str | None:
    """The state type check to run, None, or an error message."""
    if args.typecheck is False:
        return None
    modules = collect_modules(model.loader, model.module)  # the loader that read the spec
    checker, missing = state_type_check(modules, model.variables)
    if checker is None and args.typecheck:
        return f"--typecheck: no usable @type: annotation for variable(s) {', '.join(missing)}"
    return checker


def _terminate(signum: int, frame: object) -> None:
    raise SystemExit(128 + signum)  # unwinds, so the search removes its spill folder


def run(args: argparse.Namespace) -> int:
    if threading.current_thread() is not threading.main_thread():
        return _run(args)
    previous = signal.signal(signal.SIGTERM, _terminate)
    try:
        return _run(args)
    except SystemExit:
        remove_spill_folders()
        raise
    finally:
        signal.signal(signal.SIGTERM, previous)


def _run(args: argparse.Namespace) -> int:
    if args.workers < 1:
        return _usage("--workers must be at least 1")
    if args.max_states is not None and args.max_states < 1:
        return _usage("--max-states must be at least 1")
    if args.time_limit is not None and args.time_limit <= 0:
        return _usage("--time-limit must be positive")
    if args.simulate and (args.depth < 1 or args.traces < 1):
        return _usage("--depth and --traces must be at least 1")
    if args.itf is not None:
        try:
            writable_file(args.itf, "--itf")
        except OutputPathError as exc:
            return _usage(str(exc))
    if args.workers > 1 and args.simulate:
        print("note: --workers: simulation runs on 1 worker", file=sys.stderr)
    spec: Path = args.spec
    cfg_path: Path = args.config if args.config is not None else spec.with_suffix(".cfg")
    try:
        if not spec.is_file():
            raise TlaError(f"{spec}: no such spec file")
        config = read_config(cfg_path)
        if args.no_deadlock:
            config.check_deadlock = False
        model = Model.load(spec, constants=config.constants, overrides=config.overrides,
                           search_path=args.search_path, run=_tlc_config(args, config))
        undeclared = model.undeclared_constants()
        if undeclared:
            raise TlaError(f"the model assigns {', '.join(undeclared)}, which "
                           f"{spec.name} neither declares nor defines",
                           config.loc_of(undeclared[0]))
        typecheck = _typecheck(args, model)
    except TlaError as exc:
        return _input_error(args, str(exc))
    if isinstance(typecheck, str):
        return _input_error(args, typecheck)
    progress = not args.quiet
    if args.symbolic:  # conformance/symbolic: bounded model checking, replayed on this engine
        from conformance.symbolic.cli import run_bmc
        return run_bmc(args, model, config, print_report, _write_itf)
    if args.simulate:
        result = simulate(model, config, depth=args.depth, traces=args.traces, seed=args.seed,
                          time_limit=args.time_limit, progress=progress, typecheck=typecheck)
    else:
        result = check(model, config, max_states=args.max_states, time_limit=args.time_limit,
                       progress=progress, typecheck=typecheck, workers=args.workers)
    itf_error = None
    if args.itf is not None:
        try:
            _write_itf(args.itf, result, spec)
        except OSError as exc:
            itf_error = f"cannot write {args.itf}: {exc.strerror}"
    if args.json:
        print(json.dumps(plain_integers(result.to_json())))  # schema: traces/schemas/check.schema.json
    else:
        print_report(result, simulated=args.simulate)
    if itf_error is not None:
        print(f"error: {itf_error}", file=sys.stderr)
        return 1
    return result.exit_code


def _write_itf(path: Path, result: CheckResult, spec: Path) -> None:
    if not result.trace:
        print(f"note: no counterexample, {path} not written", file=sys.stderr)
        return
    meta = {"source": str(spec), "verdict": result.verdict}
    if result.property:
        meta["property"] = result.property
    steps = result.trace if result.loop is None else result.trace[:-1]  # a lasso's last step repeats a state
    state_meta = [{"action": step.action, "params": {k: itf.encode(v) for k, v in step.params}}
                  for step in steps]
    itf.write_trace(path, result.variables, result.trace_states()[:len(steps)], meta, state_meta,
                    loop=result.loop)


def _step_header(k: int, action: str, result: CheckResult) -> str:
    step = result.trace[k - 1]
    if k == 1 or step.loc is None:
        return f"State {k}: <Initial predicate>" if k == 1 else f"State {k}: <{action}>"
    module = Path(step.loc.file).stem
    params = ""
    if step.params:
        params = "(" + ", ".join(f"{n} = {format_value(v)}" for n, v in step.params) + ")"
    return f"State {k}: <{action}{params} line {step.loc.line}, col {step.loc.col} of module {module}>"


def _loop_line(k: int, result: CheckResult) -> str:
    """The last line of a liveness lasso: TLC's ``State k: Stuttering`` or ``Back to state
    N: <action>``."""
    assert result.loop is not None
    step = result.trace[k - 1]
    if step.action == "Stuttering":
        return f"State {k}: Stuttering"
    action = _step_header(k, step.action, result).split(": ", 1)[1]
    return f"Back to state {result.loop + 1}: {action}"


def _tlc_config(args: argparse.Namespace, config: ModelConfig) -> Value | None:
    """What ``TLCGet("config")`` gives in this run: TLC's record for its mode, with this
    engine's settings (TLC's fields; ``install`` is this package's folder, ``fingerprint``
    and ``aril`` have no counterpart here: "0"). None in --symbolic (refused there)."""
    if args.symbolic:
        return None
    install = str(Path(__file__).resolve().parents[2])
    deadlock = config.check_deadlock
    if args.simulate:
        return make_record([("mode", "simulate"), ("depth", args.depth), ("traces", args.traces),
                            ("deadlock", deadlock), ("seed", str(args.seed)), ("aril", "0"),
                            ("worker", 1), ("install", install), ("sched", "")])
    return make_record([("mode", "bfs"), ("deadlock", deadlock), ("worker", args.workers),
                        ("seed", str(args.seed)), ("fingerprint", "0"), ("install", install)])


def print_report(result: CheckResult, simulated: bool = False, out: Any = None) -> None:
    """TLC-style report; its last line is TLC's summary line."""
    out = out if out is not None else sys.stdout
    if result.verdict == "error":
        print(f"Error: {result.message}", file=sys.stderr)
    elif result.verdict in ("violation", "deadlock"):
        print(f"Error: {result.message}", file=out)
    elif result.verdict in ("limit", "interrupted"):
        print(f"Exploration stopped: {result.message}", file=out)
    else:
        what = "Simulation" if simulated else "Model checking"
        print(f"{what} completed. No error has been found.", file=out)
    if result.trace:
        lasso = result.loop is not None
        print("Error: The following behavior constitutes a counter-example:" if lasso
              else "Error: The behavior up to this point is:", file=out)
        prev = None
        for k, step in enumerate(result.trace, start=1):
            if lasso and k == len(result.trace):
                print(_loop_line(k, result), file=out)
                break
            print(_step_header(k, step.action, result), file=out)
            alias = result.alias[k - 1] if k <= len(result.alias) else None
            if alias is not None:  # ALIAS: its record in place of the state, every field
                for name, value in alias:
                    print(f"/\\ {name} = {format_value(value)}", file=out)
                print(file=out)
                prev = step.state
                continue
            changed = list(iter_changed(prev, step.state, result.variables))
            for var, value in changed:
                print(f"/\\ {var} = {format_value(value)}", file=out)
            if prev is not None and not changed:
                print("(no variable changed)", file=out)
            print(file=out)
            prev = step.state
    print(f"Finished in {result.seconds:.2f}s.", file=out)
    if simulated:
        print(f"The longest walk has {result.depth} states.", file=out)
    else:
        # As TLC's optimistic estimate: each generated state could collide with any of
        # the distinct fingerprints, out of 2^64.
        chance = result.distinct_states * result.states_generated / 2.0**64
        print(f"Calculated (optimistic) probability of a fingerprint collision: {chance:.1E}", file=out)
        print(f"The depth of the complete state graph search is {result.depth}.", file=out)
    print(f"{result.states_generated} states generated, {result.distinct_states} distinct states found, "
          f"{result.queue_left} states left on queue.", file=out)
