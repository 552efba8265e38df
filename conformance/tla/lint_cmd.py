"""``kraftcheck lint``: Apalache compatibility lint of a TLA+ spec.

Prints ``file:line:col: message`` per finding; exit 0 when clean, 1 otherwise.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from conformance.tla.lint import lint_file
from conformance.tla.syntax import TlaError


def register(subparsers: Any) -> None:
    p = subparsers.add_parser(
        "lint",
        help="Apalache compatibility lint (type annotations, unsupported constructs)",
        description="Report constants and variables without a parsable @type: annotation and "
        "constructs Apalache rejects (recursion, unbounded quantifiers and CHOOSE, Seq(S), "
        "STRING, Nat or Int as domains), in SPEC and the user modules it extends or instantiates.",
    )
    p.add_argument("spec", type=Path, help="the TLA+ module to lint")
    p.add_argument("-I", "--search-path", action="append", type=Path, default=[], metavar="DIR",
                   help="extra folder to look for modules in (repeatable)")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    try:
        issues = lint_file(args.spec, args.search_path)
    except TlaError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    for issue in issues:
        print(issue)
    if issues:
        print(f"{len(issues)} issue(s) found", file=sys.stderr)
        return 1
    print(f"{args.spec}: no Apalache compatibility issue found", file=sys.stderr)
    return 0
