"""Conventions of the ``--json`` outputs: plain JSON integers, and the schema of each output.

Outside ITF files a consumer should not need to know ITF's ``{"#bigint": "n"}`` wrapper:
``plain_integers`` turns every such wrapper into the integer itself (JSON has no size limit on
integers). The JSON Schema of each ``--json`` output, and of a trace's lines, lives in
``traces/schemas/``; ``SCHEMAS`` maps the output to its file.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

SCHEMA_DIR = Path(__file__).resolve().parents[1] / "traces" / "schemas"
SCHEMAS = {
    "check": SCHEMA_DIR / "check.schema.json",  # kraftcheck check --json (stdout)
    "validate": SCHEMA_DIR / "validate.schema.json",  # kraftcheck validate --json OUT
    "apalache": SCHEMA_DIR / "apalache.schema.json",  # kraftcheck apalache ... --json (stdout)
    "spec-suite": SCHEMA_DIR / "spec-suite.schema.json",  # python -m conformance.spec_suite --json
    "kraft-trace": SCHEMA_DIR / "kraft-trace.schema.json",  # each line of a trace (traces/FORMAT.md)
}


def plain_integers(doc: Any) -> Any:
    """``doc`` with every ``{"#bigint": "n"}`` replaced by the integer ``n``."""
    if isinstance(doc, dict):
        if len(doc) == 1 and "#bigint" in doc:
            return int(doc["#bigint"])
        return {k: plain_integers(v) for k, v in doc.items()}
    if isinstance(doc, list):
        return [plain_integers(x) for x in doc]
    return doc
