"""Load a small spec given as text (written to a temporary folder under its module's name)."""

from __future__ import annotations

import re
from pathlib import Path

from conformance.tla.model import Model

_HEADER = re.compile(r"-{4,}\s*MODULE\s+(\w+)")


def load_text(tmp_path: Path, text: str) -> Model:
    """The model of ``text``, a module whose header names it (``---- MODULE Name ----``)."""
    found = _HEADER.search(text)
    if found is None:
        raise ValueError("the spec text has no MODULE header")
    path = tmp_path / f"{found.group(1)}.tla"
    path.write_text(text)
    return Model.load(path)
