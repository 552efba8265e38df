"""The ``kraftcheck`` command line: one entry point, one module per subcommand.

Each subcommand module exposes ``register(subparsers)``, which adds its parser and
sets ``func`` to a callable taking the parsed arguments and returning the exit code.
"""

from __future__ import annotations

import argparse
import importlib
import os
import sys
from collections.abc import Sequence

SUBCOMMANDS: tuple[str, ...] = (
    "conformance.tla.check_cmd",  # check: exhaustive model checking of a spec
    "conformance.tla.lint_cmd",  # lint: Apalache compatibility lint
    "reference.cli",  # simulate: run the reference implementation in the simulator
    "reference.storage_cmd",  # storage: check, dump or rejoin a replica's data folder
    "conformance.validate_cmd",  # validate: trace conformance against the spec
    "conformance.apalache_cmd",  # apalache: drive an installed Apalache
    "conformance.verify_cmd",  # verify: the whole job end to end
    "conformance.spark.cli",  # spark: validate and simulate campaigns on Spark
    "conformance.symbolic.cli",  # prove: inductive-invariant obligations with z3
)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="kraftcheck",
        description="Verify Kafka's KRaft protocol: model-check the TLA+ spec, simulate "
        "the reference implementation, validate traces against the spec.",
    )
    parser.add_argument("--version", action="version", version=f"kraftcheck {_version()}")
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    for name in SUBCOMMANDS:
        importlib.import_module(name).register(subparsers)
    return parser


def _version() -> str:
    """The version of the code that runs (as in the traces' ``generator`` field)."""
    from reference import __version__

    return __version__


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        return int(args.func(args))
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:  # the reader of stdout went away (e.g. `| head`): stop quietly
        _silence_stdout()
        return 141


def _silence_stdout() -> None:
    """Point stdout at /dev/null so that the interpreter's last flush does not fail again."""
    devnull = os.open(os.devnull, os.O_WRONLY)
    try:
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError):
        pass
    finally:
        os.close(devnull)


if __name__ == "__main__":
    sys.exit(main())
