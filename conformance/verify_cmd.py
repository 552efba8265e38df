"""``kraftcheck verify``: the whole job end to end on embedded defaults.

1. lint the spec for Apalache compatibility,
2. model-check the spec's small model and its exhaustive dynamic-quorum model (KIP-853 voter
   changes) with the embedded engine,
3. simulate the reference implementation over many seeds with every default fault, with a
   static quorum (KIP-595) and a dynamic one (KIP-853 voter changes), each with 3 voters and
   1 observer and with 5 voters and 2 observers (some majority bugs need 5), and the dynamic
   3-voter one again on real files under the crash model (``simulate --storage file``: every
   crash recovers the states a disk may be left in and checks nothing acknowledged was lost;
   its traces equal the memory campaign's, so they are not written again),
4. validate every trace written against the spec, step by step.

Each stage is the corresponding subcommand run in-process, so its output, reports and exit
codes are exactly those of ``kraftcheck lint|check|simulate|validate``. Every argument and
input (spec files, model config, seeds, faults, output folder) is checked before the first
stage: a problem is an input error (exit 2) listing every problem found. The run stops at the
first stage whose input is broken (exit codes other than 0, 1 and 12) and names the stages it
skipped; a stage that finds a violation is reported and the later stages still run, so one
command shows everything.
"""

from __future__ import annotations

import argparse
import os
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.table import Table

from conformance.spec_location import spec_dir

VIOLATION_CODES = {1, 12}
INCOMPLETE_CODE = 3  # check: a limit stopped exploration; validate: a trace was inconclusive


@dataclass
class StageResult:
    name: str
    command: str
    exit_code: int
    seconds: float

    @property
    def outcome(self) -> str:
        if self.exit_code == 0:
            return "ok"
        if self.exit_code in VIOLATION_CODES:
            return "violation"
        if self.exit_code == INCOMPLETE_CODE:
            return "incomplete"
        return f"error (exit {self.exit_code})"


def register(subparsers: Any) -> None:
    p = subparsers.add_parser(
        "verify",
        help="run the whole job end to end: lint, model-check, simulate, validate",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("--spec-dir", type=Path, default=None,
                   help="folder with KRaft.tla and its model configs (default: ./spec)")
    p.add_argument("--config", default="MC_KRaft_small.cfg",
                   help="model config (in the spec folder) to model-check (default: %(default)s)")
    p.add_argument("--dynamic-config", default="MC_KRaft_dynamic.cfg",
                   help="model config of a dynamic quorum to model-check too (default: %(default)s)")
    p.add_argument("--check-time-limit", type=float, default=None, metavar="SECONDS",
                   help="stop model checking after this long (exit code 3 is then reported)")
    p.add_argument("--seeds", default="1-100", help="simulation seeds of each campaign (default: %(default)s)")
    p.add_argument("--steps", type=int, default=1000, help="events per simulated run (default: %(default)s)")
    p.add_argument("--faults", default=None, help="fault kinds (default: the simulator's defaults)")
    p.add_argument("--jobs", type=int, default=os.cpu_count() or 1,
                   help="worker processes for simulation and validation (default: all cores)")
    p.add_argument("--out", type=Path, default=Path("kraftcheck-out"),
                   help="folder for traces and reports (default: %(default)s)")
    p.add_argument("--skip", action="append", default=[], choices=["lint", "check", "simulate", "validate"],
                   help="skip a stage (repeatable)")
    p.set_defaults(func=run)


# The simulation campaigns: (quorum, voters, observers); traces in traces/<quorum>-<voters>/.
CAMPAIGNS = (("static", 3, 1), ("static", 5, 2), ("dynamic", 3, 1), ("dynamic", 5, 2))


def _simulate(args: argparse.Namespace, quorum: str, voters: int, observers: int) -> list[str]:
    argv = ["simulate", "--quorum", quorum, "--voters", str(voters), "--observers", str(observers),
            "--seeds", args.seeds, "--steps", str(args.steps),
            "--out", str(args.out / "traces" / f"{quorum}-{voters}"), "--jobs", str(args.jobs)]
    return [*argv, "--faults", args.faults] if args.faults else argv


def _simulate_on_files(args: argparse.Namespace) -> list[str]:
    """The dynamic 3-voter campaign on file storage under the crash model (no traces: they
    equal the memory campaign's: test_file_storage_runs_trace_what_memory_runs_trace_and_validate)."""
    argv = _simulate(args, "dynamic", 3, 1)
    at = argv.index("--out")
    return [*argv[:at], *argv[at + 2:], "--storage", "file", "--no-trace"]


def _check(args: argparse.Namespace, spec: Path, config: str) -> list[str]:
    argv = ["check", str(spec / "MC_KRaft.tla"), "--config", str(spec / config)]
    return [*argv, "--time-limit", str(args.check_time_limit)] if args.check_time_limit else argv


def _stages(args: argparse.Namespace, spec: Path) -> list[tuple[str, list[str]]]:
    traces = args.out / "traces"
    return [
        ("lint", ["lint", str(spec / "KRaft.tla")]),
        ("check", _check(args, spec, args.config)),
        ("check-dynamic", _check(args, spec, args.dynamic_config)),
        *[(f"simulate-{q}-{v}", _simulate(args, q, v, o)) for q, v, o in CAMPAIGNS],
        ("simulate-file", _simulate_on_files(args)),
        ("validate", ["validate", str(traces), "--spec", str(spec / "KRaft.tla"),
                      "--jobs", str(args.jobs), "--json", str(args.out / "validation.json"),
                      "--junit", str(args.out / "validation-junit.xml"),
                      "--artifacts", str(args.out / "rejected")]),
    ]


def run(args: argparse.Namespace, main: Callable[[list[str]], int] | None = None) -> int:
    from conformance.cli import main as cli_main

    run_sub = main or cli_main
    console = Console(stderr=True)
    try:
        spec = args.spec_dir or spec_dir()
    except FileNotFoundError as exc:
        console.print(f"kraftcheck verify: error: {exc}", markup=False)
        return 2
    problems = _preflight(args, spec)
    if problems:
        for problem in problems:
            console.print(f"kraftcheck verify: error: {problem}", markup=False, soft_wrap=True)
        console.print("kraftcheck verify: no stage was run", markup=False)
        return 2
    results: list[StageResult] = []
    stages = [(name, argv) for name, argv in _stages(args, spec) if name.split("-")[0] not in args.skip]
    skipped: list[tuple[str, str]] = []
    for k, (name, argv) in enumerate(stages):
        console.rule(f"[bold]{name}[/bold]: kraftcheck {' '.join(argv)}")
        start = time.monotonic()
        code = run_sub(argv)
        results.append(StageResult(name, "kraftcheck " + " ".join(argv), code, time.monotonic() - start))
        if _is_error(code):
            skipped = [(later, "kraftcheck " + " ".join(a)) for later, a in stages[k + 1:]]
            break
    table = Table(title="kraftcheck verify")
    for col in ("stage", "outcome", "seconds", "command"):
        table.add_column(col)
    for r in results:
        style = "green" if r.exit_code == 0 else "red"
        table.add_row(r.name, f"[{style}]{r.outcome}[/{style}]", f"{r.seconds:.1f}", r.command)
    for name, command in skipped:
        table.add_row(name, "[yellow]skipped[/yellow]", "", command)
    console.print(table)
    if skipped:
        failed = results[-1]
        console.print(f"stage {failed.name} failed ({failed.outcome}); skipped: "
                      f"{', '.join(name for name, _ in skipped)}", markup=False)
    codes = [r.exit_code for r in results]
    if any(_is_error(c) for c in codes):
        return 2
    if any(c in VIOLATION_CODES for c in codes):
        return 1
    return INCOMPLETE_CODE if INCOMPLETE_CODE in codes else 0


def _preflight(args: argparse.Namespace, spec: Path) -> list[str]:
    """Every problem with the arguments and inputs, before any stage runs."""
    from conformance.output_paths import OutputPathError, writable_dir
    from reference.sim.cli import parse_seeds
    from reference.sim.faults import UnknownFaultError, parse_faults

    problems: list[str] = []
    if not spec.is_dir():
        return [f"--spec-dir {spec}: no such folder"]
    needed = {"lint": ["KRaft.tla"], "check": ["MC_KRaft.tla", args.config, args.dynamic_config],
              "validate": ["KRaft.tla"]}
    for stage, files in needed.items():
        if stage in args.skip:
            continue
        for name in files:
            if not (spec / name).is_file() and f"{spec / name}" not in " ".join(problems):
                problems.append(f"{spec / name}: no such file (needed by the {stage} stage)")
    try:
        parse_seeds(args.seeds)
    except argparse.ArgumentTypeError as exc:
        problems.append(f"--seeds {args.seeds}: {exc}")
    if args.faults:
        try:
            parse_faults(args.faults)
        except UnknownFaultError as exc:
            problems.append(f"--faults {args.faults}: {exc}")
    if args.steps < 1:
        problems.append(f"--steps {args.steps}: must be at least 1")
    if args.jobs < 1:
        problems.append(f"--jobs {args.jobs}: must be at least 1")
    if args.check_time_limit is not None and args.check_time_limit <= 0:
        problems.append(f"--check-time-limit {args.check_time_limit}: must be positive")
    try:
        writable_dir(args.out, "--out")
    except OutputPathError as exc:
        problems.append(str(exc))
    return problems


def _is_error(code: int) -> bool:
    return code not in VIOLATION_CODES and code not in (0, INCOMPLETE_CODE)
