"""A trace given as its file's raw bytes (as a Spark job reads it) validates exactly as its path."""

from __future__ import annotations

import gzip
from pathlib import Path

import pytest

from conformance.tla.cfg import read_config
from conformance.validate.trace_reader import TraceFormatError, TraceStream
from conformance.validate.validator import TraceValidator
from conformance.validate.verdict import Verdict

ROOT = Path(__file__).resolve().parents[2]
CORPUS = ROOT / "traces" / "corpus"
TOGGLES = Path(__file__).parent / "fixtures" / "kraft_toggles.cfg"
FILES = sorted(p for p in CORPUS.rglob("*") if p.name.endswith((".ndjson", ".ndjson.gz")))


@pytest.fixture(scope="module")
def validator() -> TraceValidator:
    return TraceValidator(ROOT / "spec" / "KRaft.tla", constants=read_config(TOGGLES).constants)


@pytest.mark.parametrize("path", FILES, ids=lambda p: str(p.relative_to(CORPUS)))
def test_bytes_and_path_give_the_same_report(validator: TraceValidator, path: Path) -> None:
    by_path = validator.validate(path, name="t")
    by_bytes = validator.validate(path.read_bytes(), name="t")
    by_path.seconds = by_bytes.seconds = 0.0
    assert by_bytes == by_path


@pytest.mark.parametrize(("data", "message"), [
    (b"", "empty trace: missing header line"),
    (gzip.compress(b'{"kind": "header"}\n' * 50)[:15], "corrupt or truncated gzip stream"),
    (b"\x1f\x8bnot gzip at all", "corrupt or truncated gzip stream"),
    (b"\xff\xfe\x00 binary", "not UTF-8 text"),
])
def test_bad_bytes_are_format_errors(validator: TraceValidator, data: bytes, message: str) -> None:
    with pytest.raises(TraceFormatError, match=message):
        TraceStream(data, "x.ndjson")
    report = validator.validate(data, name="x.ndjson")
    assert report.verdict is Verdict.ERROR and report.error is not None
    assert report.error.startswith("x.ndjson:") and message in report.error
