"""Every ``--json`` output validates against its JSON Schema in ``traces/schemas/``; integers are
plain JSON numbers (no ITF ``#bigint`` wrapper) outside ITF files; ``kraftcheck --version``."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import jsonschema
import pytest
from referencing import Registry, Resource

from conformance.cli import main
from conformance.json_output import SCHEMA_DIR, SCHEMAS, plain_integers
from reference import __version__

ROOT = Path(__file__).resolve().parents[2]
TOY = ROOT / "tests" / "conformance" / "fixtures"


def _registry() -> Registry:  # type: ignore[type-arg]
    resources = []
    for path in SCHEMA_DIR.glob("*.schema.json"):
        doc = json.loads(path.read_text())
        resources.append((doc["$id"], Resource.from_contents(doc)))
        resources.append((path.name, Resource.from_contents(doc)))
    return Registry().with_resources(resources)


def _check(name: str, doc: Any) -> None:
    schema = json.loads(SCHEMAS[name].read_text())
    jsonschema.Draft202012Validator.check_schema(schema)
    jsonschema.Draft202012Validator(schema, registry=_registry()).validate(doc)


def _no_bigint(doc: Any) -> None:
    assert "#bigint" not in json.dumps(doc)


def test_every_schema_is_a_valid_schema_and_listed() -> None:
    assert {p.name for p in SCHEMA_DIR.glob("*.schema.json")} == {p.name for p in SCHEMAS.values()}
    for path in SCHEMAS.values():
        jsonschema.Draft202012Validator.check_schema(json.loads(path.read_text()))


SHAPES = """---- MODULE Shapes ----
EXTENDS Naturals, Sequences
VARIABLES s, f, r
Init == s = {} /\\ f = [i \\in {5, 7} |-> 1152921504606846976] /\\ r = [a |-> 1, b |-> <<>>]
Next == /\\ s' = s \\cup {Len(r.b)}
        /\\ f' = [f EXCEPT ![5] = @ + 1]
        /\\ r' = [r EXCEPT !.b = Append(@, "x")]
Inv == Len(r.b) < 3
====
"""


@pytest.mark.parametrize("spec", ["DieHard", "Shapes", "TwoPhase", "Missing"])
def test_check_json(spec: str, capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    path = ROOT / "tests" / "engine" / "specs" / f"{spec}.tla"
    if spec == "Shapes":  # sets, a function that is not a sequence, a record, integers beyond 2^53
        path = tmp_path / "Shapes.tla"
        path.write_text(SHAPES)
        (tmp_path / "Shapes.cfg").write_text("INIT Init\nNEXT Next\nINVARIANT Inv\n")
    main(["check", str(path), "--json"])
    doc = json.loads(capsys.readouterr().out)
    _check("check", doc)
    _no_bigint(doc)
    if spec == "DieHard":
        assert doc["verdict"] == "violation" and doc["trace"][-1]["state"]["big"] == 4  # a plain integer
    if spec == "Shapes":
        last = doc["trace"][-1]["state"]
        assert last["f"] == {"#map": [[5, 2**60 + 3], [7, 2**60]]} and last["s"] == {"#set": [0, 1, 2]}
        assert last["r"] == {"a": 1, "b": ["x", "x", "x"]}


@pytest.mark.parametrize("trace", ["valid/seed-1.ndjson.gz", "bugs/observer-votes-seed-1.ndjson.gz",
                                   "malformed/wrong-encoding.ndjson"])
def test_validate_json(trace: str, tmp_path: Path) -> None:
    out = tmp_path / "r.json"
    main(["validate", str(ROOT / "traces" / "corpus" / trace), "--no-progress", "--json", str(out)])
    doc = json.loads(out.read_text())
    _check("validate", doc)
    _no_bigint(doc)


def test_spec_suite_json_schema() -> None:
    _check("spec-suite", [{"model": "m", "mode": "check", "expect": "ok", "expect_property": None, "verdict": "ok",
                           "property": None, "message": None, "distinct_states": 3, "depth": 2, "seconds": 0.1,
                           "as_expected": True}])


def test_plain_integers() -> None:
    assert plain_integers({"a": [{"#bigint": "12"}, {"#set": [{"#bigint": "-3"}]}], "b": "x"}) == {"a": [12, {"#set": [-3]}], "b": "x"}
    assert plain_integers({"#bigint": str(10**30)}) == 10**30


def test_version(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as info:
        main(["--version"])
    assert info.value.code == 0
    assert capsys.readouterr().out.strip() == f"kraftcheck {__version__}"


def test_apalache_json(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    """Against the stand-in Apalache of the driver's tests (no real Apalache needed)."""
    from tests.apalache import test_apalache_driver as driver

    fake = driver.fake.__wrapped__(tmp_path)  # type: ignore[attr-defined]
    java = driver.java.__wrapped__(tmp_path)  # type: ignore[attr-defined]
    counter = driver.counter.__wrapped__(tmp_path)  # type: ignore[attr-defined]
    monkeypatch.setenv("JAVA_HOME", str(java))
    assert driver.cli("check", str(counter), "--apalache", str(fake), "--inv", "SmallViolated", "--json") == 12
    doc = json.loads(capsys.readouterr().out)
    _check("apalache", doc)
    _no_bigint(doc)
    assert doc["runs"][0]["trace"][-1]["state"]["x"] == 2
