"""The committed KRaft corpus (``traces/corpus``): every valid trace accepted, every bug switch
and every mutation rejected at its step, every malformed file reported at its line; valid
traces of many fresh seeds accepted; the corpus script regenerates the same bytes."""

from __future__ import annotations

import json
import tempfile
from pathlib import Path

import pytest

from conformance.tla.cfg import read_config
from conformance.validate.corpus import CORPUS_DIR, Entry, build, load_manifest
from conformance.validate.validator import TraceValidator
from conformance.validate.verdict import Verdict

ROOT = Path(__file__).resolve().parents[2]
SPEC = ROOT / "spec" / "KRaft.tla"
CORPUS = ROOT / CORPUS_DIR
# Rule toggles and ForeignRequests for trace headers written before they listed every constant.
TOGGLES = Path(__file__).parent / "fixtures" / "kraft_toggles.cfg"

ENTRIES = load_manifest(CORPUS)


@pytest.fixture(scope="module")
def validator() -> TraceValidator:
    return TraceValidator(SPEC, constants=read_config(TOGGLES).constants)


def test_the_corpus_covers_every_bug_switch_and_mutation_kind() -> None:
    from conformance.validate.mutations import KINDS
    from reference.sim.bugs import BUGS, DYNAMIC_BUGS

    bugs = {e.origin.split("--inject-bug ")[1] for e in ENTRIES if "--inject-bug" in e.origin}
    assert bugs == set(BUGS)
    dynamic = {e.origin.split("--inject-bug ")[1] for e in ENTRIES if "--quorum dynamic with --inject-bug" in e.origin}
    assert dynamic == set(DYNAMIC_BUGS)
    kinds = {Path(e.file).name.split("-", 2)[2].split(".")[0] for e in ENTRIES if e.file.startswith("mutated/")}
    assert kinds == set(KINDS)
    assert sum(p.stat().st_size for p in CORPUS.rglob("*") if p.is_file()) < 3_000_000


def test_the_dynamic_valid_traces_commit_every_kind_of_voter_change() -> None:
    from conformance.validate.corpus import VOTER_CHANGES

    dynamic = [e for e in ENTRIES if e.file.startswith("valid/dynamic-")]
    assert dynamic and all(e.expect == "ACCEPT" for e in dynamic)
    committed = {part.split()[0] for e in dynamic for part in e.detail.removeprefix("committed: ").split(", ")
                 if int(part.split()[1]) > 0}
    assert committed == set(VOTER_CHANGES)


@pytest.mark.parametrize("entry", ENTRIES, ids=[e.file for e in ENTRIES])
def test_corpus_entry(validator: TraceValidator, entry: Entry) -> None:
    r = validator.validate(CORPUS / entry.file)
    assert r.verdict.value == entry.expect, r.summary_line()
    if entry.expect == "REJECT":
        assert r.diagnostic is not None
        assert r.diagnostic.step == entry.step, f"{entry.detail}: {r.summary_line()}"
        assert r.diagnostic.mismatches or r.diagnostic.disabled, r.diagnostic.render()
    if entry.expect == "ERROR":
        assert r.error is not None and r.error.startswith(f"{CORPUS / entry.file}:{entry.line}:"), r.error


def test_fresh_seeds_with_faults_all_conform(tmp_path: Path) -> None:
    from reference.sim.simulator import SimConfig, run_seed

    config = SimConfig(out_dir=tmp_path, steps=250)
    fresh = TraceValidator(SPEC)  # today's headers give every constant (foreign requests included)
    for seed in range(100, 112):
        result = run_seed(config, seed)
        assert result.trace_path is not None
        r = fresh.validate(result.trace_path)
        assert r.verdict is Verdict.ACCEPT, r.summary_line() + "\n" + (r.diagnostic.render() if r.diagnostic else "")
        assert r.steps == 250


def test_corpus_script_is_deterministic() -> None:
    listed = {e.file for e in ENTRIES}
    on_disk = {str(p.relative_to(CORPUS)) for p in CORPUS.rglob("*") if p.is_file() and p.name != "manifest.json"}
    assert on_disk == listed, f"files the manifest does not list: {sorted(on_disk - listed)}"
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp)
        (out / "bugs").mkdir()
        (out / "bugs" / "an-earlier-seed.ndjson.gz").write_bytes(b"")  # a trace of an earlier corpus
        entries = build(out)
        assert not (out / "bugs" / "an-earlier-seed.ndjson.gz").exists()
        assert entries == ENTRIES, "the manifest changed: run python -m conformance.validate.corpus"
        for e in entries:
            assert (out / e.file).read_bytes() == (CORPUS / e.file).read_bytes(), (
                f"{e.file} differs from a fresh build: the reference implementation changed; "
                "regenerate with python -m conformance.validate.corpus")


def test_a_client_append_on_a_follower_names_the_false_guard(validator: TraceValidator) -> None:
    from conformance.validate.mutations import read_lines

    lines = read_lines(CORPUS / "valid" / "seed-1.ndjson.gz")
    events = [x for x in lines if x["kind"] == "event"]
    k = next(i for i, e in enumerate(events) if e["action"] == "ClientAppend")
    follower = 1 if events[k]["replica"] != 1 else 2
    events[k]["replica"] = events[k]["params"]["i"] = follower
    r = validator.validate([json.dumps(x) + "\n" for x in lines], name="append.ndjson")
    d = r.diagnostic
    assert r.verdict is Verdict.REJECT and d is not None and d.step == k + 1
    assert "not enabled" in d.reason
    assert [g.text for g in d.disabled] == ['role[i] = "Leader"']
    assert "KRaft.tla:" in d.disabled[0].location
