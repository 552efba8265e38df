"""CI artifacts: every rejected (or bad, or inconclusive) trace copied with its diagnostics.

For a trace ``t.ndjson.gz`` the directory receives ``t.ndjson.gz`` (the trace as it was),
``t.ndjson.gz.diagnostic.txt`` (the rendered diagnostic) and ``t.ndjson.gz.report.json``.
Names are made unique when traces from different folders share a file name.
"""

from __future__ import annotations

import json
import os
import shutil
from collections.abc import Mapping, Sequence
from pathlib import Path

from conformance.validate.verdict import TraceReport, Verdict

DEFAULT_CI_DIR = "validate-artifacts"


def artifacts_dir(option: str | None, env: Mapping[str, str] | None = None) -> Path | None:
    """The artifacts directory: ``--artifacts``, else a default one when ``CI=true``."""
    if option:
        return Path(option)
    environ = os.environ if env is None else env
    if environ.get("CI", "").lower() == "true":
        return Path(DEFAULT_CI_DIR)
    return None


def _unique(directory: Path, name: str, taken: set[str]) -> str:
    candidate, k = name, 1
    while candidate in taken or (directory / candidate).exists():
        k += 1
        candidate = f"{k}-{name}"
    taken.add(candidate)
    return candidate


def write_artifacts(directory: Path, reports: Sequence[TraceReport]) -> list[Path]:
    """Copy each non-conforming trace and its diagnostics; returns the trace copies."""
    directory.mkdir(parents=True, exist_ok=True)
    taken: set[str] = set()
    written = []
    for r in reports:
        if r.verdict is Verdict.ACCEPT:
            continue
        src = Path(r.file)
        name = _unique(directory, src.name, taken)
        if src.is_file():
            shutil.copyfile(src, directory / name)
            written.append(directory / name)
        text = r.diagnostic.render() if r.diagnostic is not None else r.summary_line()
        (directory / f"{name}.diagnostic.txt").write_text(text + "\n", encoding="utf-8")
        (directory / f"{name}.report.json").write_text(json.dumps(r.to_json(), indent=2, default=str) + "\n",
                                                       encoding="utf-8")
    return written
