"""``kraftcheck validate``: check implementation traces against the TLA+ spec, step by step.

Exit status (when several apply, the first listed wins):
130 -- interrupted (SIGINT): the table, JSON and JUnit reports cover the traces done and say so;
1 -- some trace was rejected (a violation of the spec);
2 -- some input was bad (unreadable trace, unknown action, trace for another spec, bad
     ``--spec``/``--config``), and no trace was rejected;
3 -- no violation and no bad input, but some trace was inconclusive (a search bound was hit);
0 -- every trace conforms.
Every file given (or found under a directory) gets a verdict; none is skipped silently.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

from conformance.apalache import ApalacheError
from conformance.output_paths import writable_dir, writable_file
from conformance.tla.syntax import TlaError
from conformance.validate.artifacts import artifacts_dir, write_artifacts
from conformance.validate.coverage import Coverage
from conformance.validate.report import (
    INTERRUPTED_EXIT,
    json_report,
    print_summary,
    write_json,
    write_junit,
)
from conformance.validate.runner import ValidationInterrupted, ValidatorConfig, validate_files
from conformance.validate.trace_reader import iter_trace_files
from conformance.validate.validator import TraceValidator, ValidatorOptions
from conformance.validate.verdict import TraceReport, exit_code


def register(subparsers: argparse._SubParsersAction) -> None:
    p = subparsers.add_parser(
        "validate",
        help="validate implementation traces against the TLA+ spec",
        description="Validate NDJSON traces (files or directories, .ndjson / .ndjson.gz) against "
        "the spec, step by step. Exit 1 on a violation, 2 on bad input, 3 if inconclusive, 0 if all conform.",
    )
    p.add_argument("paths", nargs="+", metavar="PATH", help="trace files or directories")
    p.add_argument("--spec", default=None, help="the TLA+ spec (default: KRaft.tla of the project's spec folder)")
    p.add_argument("--config", help="a TLC .cfg whose CONSTANTS override the trace headers' values")
    p.add_argument("--engine", choices=("embedded", "apalache"), default="embedded")
    p.add_argument("--jobs", type=int, default=1, help="worker processes (each compiles the spec once)")
    p.add_argument("--json", dest="json_out", metavar="OUT", help="write the JSON report here")
    p.add_argument("--junit", metavar="OUT", help="write a JUnit XML report here")
    p.add_argument("--artifacts", metavar="DIR",
                   help="copy rejected traces and their diagnostics here (default with CI=true: validate-artifacts)")
    p.add_argument("--max-candidates", type=int, default=ValidatorOptions.max_candidates,
                   help="candidate states kept per step before searching depth-first")
    p.add_argument("--no-progress", action="store_true", help="no progress bar")
    p.set_defaults(func=run)


def _config(args: argparse.Namespace) -> ValidatorConfig:
    if args.jobs < 1:
        raise ValueError("--jobs must be at least 1")
    return ValidatorConfig.from_options(args.spec, args.config, args.max_candidates)


def _validate(args: argparse.Namespace, config: ValidatorConfig, validator: TraceValidator, files: list[Path],
              console: Console) -> tuple[list[TraceReport], Coverage | None]:
    progress = Progress(TextColumn("validating"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
                        TextColumn("{task.fields[last]}"), console=console,
                        disable=args.no_progress or not console.is_terminal)
    with progress:
        task = progress.add_task("validate", total=len(files), last="")

        def advance(r: TraceReport) -> None:
            progress.update(task, advance=1, last=f"{Path(r.file).name}: {r.verdict.value}")

        if args.engine == "apalache":
            from conformance.apalache import Apalache
            from conformance.apalache_traces import validate_with_apalache

            apalache = Apalache.locate()
            reports = []
            try:
                for f in files:
                    reports.append(validate_with_apalache(f, config, apalache))
                    advance(reports[-1])
            except KeyboardInterrupt:
                raise ValidationInterrupted(reports, len(files)) from None
            return reports, None
        reports = validate_files(files, config, jobs=args.jobs, on_report=advance, validator=validator)
    return reports, _coverage(validator, reports)


def _coverage(validator: TraceValidator, reports: list[TraceReport]) -> Coverage:
    coverage = Coverage(validator.disjuncts())
    for r in reports:
        coverage.merge(Coverage.from_counts(coverage.disjuncts, r.coverage))
    return coverage


def run(args: argparse.Namespace) -> int:
    console = Console()
    err = Console(stderr=True)
    try:
        config = _config(args)
        if args.json_out:
            writable_file(args.json_out, "--json")
        if args.junit:
            writable_file(args.junit, "--junit")
        artifacts = artifacts_dir(args.artifacts)
        if artifacts is not None:
            writable_dir(artifacts, "--artifacts")
        files = list(iter_trace_files(args.paths))
        if not files:
            raise ValueError(f"no trace files (*.ndjson, *.ndjson.gz) under {', '.join(args.paths)}")
        validator = config.build()
        validator.disjuncts()  # parse the spec up front: a bad spec is bad input
        if args.engine == "apalache":
            from conformance.apalache import Apalache

            Apalache.locate()
    except (ValueError, OSError, TlaError, KeyError, ApalacheError) as exc:
        err.print(f"kraftcheck validate: {exc}", markup=False)
        return 2
    interrupted = False
    try:
        reports, coverage = _validate(args, config, validator, files, console)
    except ValidationInterrupted as stop:  # Ctrl-C: keep and report what is done
        interrupted, reports = True, stop.reports
        coverage = _coverage(validator, reports) if args.engine != "apalache" else None
    print_summary(reports, coverage, console)
    if interrupted:
        err.print(f"kraftcheck validate: interrupted: {len(reports)} of {len(files)} traces validated, "
                  f"{len(files) - len(reports)} not", markup=False)
    if artifacts is not None:
        copied = write_artifacts(artifacts, reports)
        console.print(f"artifacts: {len(copied)} trace(s) with diagnostics in {artifacts}", markup=False, soft_wrap=True)
    if args.json_out:
        write_json(Path(args.json_out), json_report(reports, coverage, {"spec": str(config.spec), "engine": args.engine},
                                                    interrupted=interrupted, total=len(files)))
    if args.junit:
        write_junit(Path(args.junit), reports, interrupted=interrupted)
    return INTERRUPTED_EXIT if interrupted else exit_code(reports)


if __name__ == "__main__":
    from conformance.cli import main

    sys.exit(main(["validate", *sys.argv[1:]]))
