"""Community modules the engine provides natively, as TLC does (Json, CSV, IOUtils,
Statistics): one file per module, each with its table ``OPERATORS``; the TLA+ ones are
text in ``conformance/tla/modules``."""

from __future__ import annotations

from conformance.tla.community import csv_ops, ioutils_ops, json_ops, statistics_ops
from conformance.tla.stdlib import StdOp

MODULES: dict[str, dict[str, StdOp]] = {
    "Json": json_ops.OPERATORS,
    "CSV": csv_ops.OPERATORS,
    "IOUtils": ioutils_ops.OPERATORS,
    "Statistics": statistics_ops.OPERATORS,
}
"""Operators of each native community module, by name (they extend no module)."""
