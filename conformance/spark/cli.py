"""``kraftcheck spark validate|simulate``: the campaigns on Spark, with ``kraftcheck validate``'s
summary and exit codes (1 a violation, 2 bad input, 3 inconclusive, 0 all conform; a simulation
campaign also exits 1 when a simulator invariant failed)."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from rich.console import Console

from conformance.spark.inputs import DEFAULT_MAX_BYTES, local_path
from conformance.spark.sim_source import (
    BOOTSTRAPS,
    BUGS,
    DEFAULT_FAULTS,
    DYNAMIC_DEFAULT_FAULTS,
    FAULTS,
    QUORUMS,
    sim_settings,
)
from conformance.validate.report import print_summary
from conformance.validate.runner import ValidatorConfig
from conformance.validate.validator import ValidatorOptions
from conformance.validate.verdict import exit_code_for


def register(subparsers: Any) -> None:
    p = subparsers.add_parser(
        "spark", help="validation and simulation campaigns on Spark (PySpark)",
        description="Run trace validation or a simulation campaign on Spark: locally (local[*], the "
        "default) or on a cluster (--master spark://HOST:PORT, or under spark-submit).",
    )
    jobs = p.add_subparsers(dest="spark_command", metavar="JOB", required=True)
    v = jobs.add_parser("validate", help="validate traces (files, folders, globs, URIs) on Spark",
                        description="One verdict per trace in DIR/verdicts, coverage in DIR/coverage (Parquet).")
    v.add_argument("paths", nargs="+", metavar="PATH_OR_URI", help="trace files, folders, globs or URIs")
    v.add_argument("--max-bytes", type=int, default=DEFAULT_MAX_BYTES,
                   help="traces larger than this are validated streaming from their path "
                   f"(default {DEFAULT_MAX_BYTES})")
    _common(v)
    v.set_defaults(func=run_validate_cmd)
    s = jobs.add_parser("simulate", help="simulate seeds and validate their traces on Spark",
                        description="Each task simulates its seeds and validates the traces in memory; "
                        "only failing traces are kept (DIR/failing).",
                        epilog=f"Fault kinds: {', '.join(FAULTS)}. Bug switches: {', '.join(BUGS)}.")
    s.add_argument("--seeds", required=True, type=_seed_range, metavar="A-B", help="the seeds, e.g. 1-100000")
    s.add_argument("--steps", type=int, default=1000, help="protocol steps per run (default 1000)")
    s.add_argument("--quorum", choices=QUORUMS, default="dynamic",
                   help="dynamic: KIP-853 voter set in the log, with voter changes (default); "
                   "static: KIP-595's fixed controller.quorum.voters (as kraftcheck simulate)")
    s.add_argument("--bootstrap", choices=BOOTSTRAPS, default="initial-controllers",
                   help="how a dynamic quorum is formatted (default initial-controllers)")
    s.add_argument("--faults", default=None,
                   help=f"comma-separated fault kinds or 'none' (default {','.join(DYNAMIC_DEFAULT_FAULTS)} "
                   f"with a dynamic quorum, {','.join(DEFAULT_FAULTS)} with a static one)")
    s.add_argument("--voters", type=int, default=3, help="number of voters (default 3)")
    s.add_argument("--observers", type=int, default=1, help="number of observers (default 1)")
    s.add_argument("--inject-bug", default=None, metavar="NAME", help="break one rule (see below)")
    _common(s)
    s.set_defaults(func=run_simulate_cmd)


def _common(p: argparse.ArgumentParser) -> None:
    p.add_argument("--out", required=True, metavar="DIR", help="output folder or URI (tables are overwritten)")
    p.add_argument("--master", default=None, metavar="URL",
                   help="Spark master (default: spark-submit's, else local[*])")
    p.add_argument("--partitions", type=int, default=None,
                   help="partitions (default 4 per core): traces are balanced by size across them")
    p.add_argument("--spec", default=None, help="the TLA+ spec (default: KRaft.tla of the project's spec folder)")
    p.add_argument("--config", help="a TLC .cfg whose CONSTANTS override the trace headers' values")
    p.add_argument("--max-candidates", type=int, default=ValidatorOptions.max_candidates,
                   help="candidate states kept per step before searching depth-first")
    p.add_argument("--no-progress", action="store_true", help="no progress bar")


def _seed_range(text: str) -> tuple[int, int]:
    lo, sep, hi = text.partition("-")
    try:
        first = int(lo)
        last = int(hi) if sep else first
    except ValueError:
        raise argparse.ArgumentTypeError(f"bad seed range {text!r} (expected A-B)") from None
    if last < first:
        raise argparse.ArgumentTypeError(f"empty seed range {text!r}")
    return first, last


def validator_config(args: argparse.Namespace) -> ValidatorConfig:
    if args.partitions is not None and args.partitions < 1:
        raise ValueError("--partitions must be at least 1")
    return ValidatorConfig.from_options(args.spec, args.config, args.max_candidates)


def _out(text: str) -> str:
    """Local outputs as absolute paths (executors may not share the driver's folder), URIs as given."""
    local = local_path(text)
    return str(Path(local).resolve()) if local is not None and "://" not in text else text


def _bad_input(exc: BaseException, err: Console, what: str) -> int:
    err.print(f"kraftcheck spark {what}: {exc}", markup=False, highlight=False)
    return 2


def run_validate_cmd(args: argparse.Namespace) -> int:
    return _run(args, "validate")


def run_simulate_cmd(args: argparse.Namespace) -> int:
    return _run(args, "simulate")


def _run(args: argparse.Namespace, what: str) -> int:
    from conformance.apalache import ApalacheError
    from conformance.tla.syntax import TlaError

    console, err = Console(), Console(stderr=True)
    try:
        config = validator_config(args)
        settings = (sim_settings(args.voters, args.observers, args.faults, args.steps, args.inject_bug,
                                 args.quorum, args.bootstrap) if what == "simulate" else None)
        config.build().disjuncts()  # a bad spec is bad input, before Spark starts
    except (ValueError, OSError, TlaError, KeyError, ApalacheError) as exc:
        return _bad_input(exc, err, what)
    try:
        from pyspark.errors import AnalysisException
    except ImportError:
        return _bad_input(ImportError("PySpark is not installed (pip install 'kraftcheck[spark]')"), err, what)
    from conformance.spark.session import spark_session

    spark = spark_session(args.master, f"kraftcheck spark {what}")
    try:
        if what == "validate":
            from conformance.spark.validate_job import run_validate

            result = run_validate(spark, list(args.paths), _out(args.out), config, partitions=args.partitions,
                                  max_bytes=args.max_bytes, console=err, progress=not args.no_progress)
        else:
            from conformance.spark.simulate_job import run_simulate

            assert settings is not None
            first, last = args.seeds
            result = run_simulate(spark, first, last, settings, _out(args.out), config,
                                  partitions=args.partitions, console=err, progress=not args.no_progress)
    except (ValueError, AnalysisException) as exc:
        return _bad_input(exc, err, what)
    print_summary(result.outcome.reports, result.coverage, console, tally=result.outcome.tally)
    code = exit_code_for(result.outcome.verdicts)
    if what == "simulate":
        code = _invariants(result, console) or code
    console.print(f"tables: {args.out}/verdicts, {args.out}/coverage" + (f", {args.out}/failing" if what == "simulate" else ""),
                  markup=False, highlight=False, soft_wrap=True)
    result.release()
    return code


def _invariants(result: Any, console: Console) -> int:
    """Print the simulator's invariant failures; 1 when there is one."""
    from pyspark.sql import functions as F

    failed = result.results.where(F.col("invariant").isNotNull())
    count = failed.count()
    if not count:
        return 0
    console.print(f"simulator invariant failures: {count}", markup=False, highlight=False)
    for row in failed.select("seed", "invariant").orderBy("seed").limit(20).collect():
        console.print(f"  seed {row['seed']}: {row['invariant']}", markup=False, highlight=False, soft_wrap=True)
    return 1
