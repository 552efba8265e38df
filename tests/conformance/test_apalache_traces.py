"""The Apalache engine of validate, tested without Apalache: typed value text, the generated
trace module (executed by the embedded engine in place of Apalache), command lines, the
prefix search; plus an integration test that needs Apalache (skipped without it)."""

from __future__ import annotations

import random
import re
import shutil
import tempfile
from dataclasses import dataclass
from pathlib import Path

import pytest

from conformance.apalache_traces import (
    TRACE_MODULE,
    TraceModuleError,
    _shape,
    default_text,
    longest_matched_prefix,
    trace_check_command,
    trace_module_text,
    validate_with_apalache,
    value_text,
)
from conformance.tla.apalache_types import parse_type
from conformance.tla.lint import lint_file
from conformance.tla.loader import ModuleLoader
from conformance.tla.model import Model
from conformance.tla.values import make_fn
from conformance.validate.mutations import mutate
from conformance.validate.runner import ValidatorConfig
from conformance.validate.spec_binding import declared_constants, spec_constants
from conformance.validate.trace_reader import TraceStream
from conformance.validate.validator import TraceValidator
from conformance.validate.verdict import Verdict
from tests.conformance.toy_traces import TOY_SPEC, TOY_VALID, dump, toy_lines, write


def test_value_text_follows_the_types() -> None:
    assert value_text(make_fn({1: 0, 2: 5}), parse_type("Int -> Int")) == "(1 :> 0 @@ 2 :> 5)"
    assert value_text((0, 5), parse_type("Seq(Int)")) == "<<0, 5>>"
    rec = make_fn({"n": 1, "type": 'say "hi"'})
    assert value_text(rec, parse_type("{type: Str, n: Int}")) == '[type |-> "say \\"hi\\"", n |-> 1]'
    assert value_text(frozenset({3, 1}), parse_type("Set(Int)")) == "{1, 3}"
    assert value_text(-1, parse_type("Int")) == "-1" and value_text(True, parse_type("Bool")) == "TRUE"
    with pytest.raises(TraceModuleError, match="does not have the type"):
        value_text("x", parse_type("Int"))
    with pytest.raises(TraceModuleError, match="does not have the type"):
        value_text(make_fn({"a": 1}), parse_type("{a: Int, b: Int}"))


def test_default_values() -> None:
    assert default_text(parse_type("{a: Int, b: Seq(Str), c: Set(Bool)}")) == '[a |-> 0, b |-> <<>>, c |-> {}]'


def _toy_module(lines: list[dict], k: int | None = None) -> tuple[str, dict]:
    loader = ModuleLoader([])
    module = loader.load_file(TOY_SPEC)
    stream = TraceStream(dump(lines), "t")
    events = list(stream.events())
    shape = _shape(TOY_SPEC, module, loader, sorted(next(iter(stream.init.replicas.values()))))
    consts = spec_constants(declared_constants(module), stream.header.constants, {}, TOY_SPEC)
    return trace_module_text(shape, consts, stream.init.replicas, events[:k] if k is not None else events), consts


def test_module_text_fixes_constants_bounds_and_observations() -> None:
    text, _ = _toy_module(toy_lines(), 3)
    assert "EXTENDS Toy, TLC, Sequences" in text
    assert "    /\\ Replicas = {1, 2, 3}" in text
    assert re.search(r'e\.action = "HandlePing"\n\s+/\\ e\.p_m \\in messages\n\s+/\\ HandlePing\(e\.p_m\)', text)
    assert "/\\ counter'[e.replica] = e.state.counter" in text
    assert "/\\ messages' = messages \\cup e.sent" in text
    assert "TraceNotMatched == tIdx < Len(TraceLog)" in text
    assert text.count('[replica |-> ') == 3


def embedded_match(module_text: str, consts: dict) -> int:
    """How many steps of the trace module's log the embedded engine can take (in place of Apalache)."""
    with tempfile.TemporaryDirectory() as tmp:
        d = Path(tmp)
        shutil.copy(TOY_SPEC, d / TOY_SPEC.name)
        (d / f"{TRACE_MODULE}.tla").write_text(module_text)
        model = Model.load(d / f"{TRACE_MODULE}.tla", constants=consts)
        frontier = set(model.init_states("TraceInit"))
        steps = 0
        while frontier:
            frontier = {t for s in frontier for _, t in model.successors(s, "TraceNext")}
            steps += bool(frontier)
        return steps


def test_the_module_matches_a_valid_trace_completely() -> None:
    text, consts = _toy_module(toy_lines())
    assert embedded_match(text, consts) == 10


@pytest.mark.parametrize("kind", ["drop", "swap", "duplicate", "edit-state", "edit-param"])
def test_the_module_stops_where_the_embedded_validator_rejects(kind: str) -> None:
    got = mutate(toy_lines(), kind, random.Random(3), growing_actions=("Bump",))
    assert got is not None
    lines, m = got
    text, consts = _toy_module(lines)
    assert embedded_match(text, consts) == m.reject_step - 1


def test_check_command_line() -> None:
    cmd = trace_check_command(Path("/opt/apalache/bin/apalache-mc"), Path("/w/M.tla"), Path("/o"), Path("/r"), 7)
    assert cmd[:2] == ["/opt/apalache/bin/apalache-mc", "check"]
    assert cmd[-1] == "/w/M.tla"
    for opt in ("--init=TraceInit", "--next=TraceNext", "--inv=TraceNotMatched", "--cinit=TraceCInit",
                "--length=7", "--no-deadlock", "--out-dir=/o", "--run-dir=/r"):
        assert opt in cmd, (opt, cmd)


def test_longest_matched_prefix_bisects() -> None:
    for n in (1, 2, 7, 64):
        for good in range(n + 1):
            probes: list[int] = []

            def matches(k: int, good: int = good, probes: list[int] = probes) -> bool:
                probes.append(k)
                return k <= good

            assert longest_matched_prefix(n, matches) == good
            assert len(probes) <= n.bit_length() + 2


@dataclass
class _Outcome:
    outcome: str
    message: str | None = None
    seconds: float = 0.0


class EmbeddedApalache:
    """Stands in for ``conformance.apalache.Apalache``: runs the trace module's check command
    with the embedded engine (violation of TraceNotMatched = the whole log matched)."""

    executable = Path("apalache-mc")

    def __init__(self, consts: dict) -> None:
        self.consts = consts
        self.commands: list[list[str]] = []

    def run(self, build: object) -> _Outcome:
        with tempfile.TemporaryDirectory() as tmp:
            cmd = build(Path(tmp) / "o", Path(tmp) / "r")  # type: ignore[operator]
        self.commands.append(cmd)
        module = Path(cmd[-1])
        length = int(next(a for a in cmd if a.startswith("--length=")).split("=")[1])
        model = Model.load(module, constants=self.consts)
        frontier = set(model.init_states("TraceInit"))
        for _ in range(length):
            if any(model.eval_state("~TraceNotMatched", s) for s in frontier):
                break
            frontier = {t for s in frontier for _, t in model.successors(s, "TraceNext")}
        hit = any(model.eval_state("~TraceNotMatched", s) for s in frontier)
        return _Outcome("violation" if hit else "ok")


def test_apalache_engine_agrees_with_the_embedded_engine(tmp_path: Path) -> None:
    _, consts = _toy_module(toy_lines())
    config = ValidatorConfig(spec=TOY_SPEC)
    embedded = TraceValidator(TOY_SPEC)
    cases = [TOY_VALID]
    for kind in ("drop", "edit-state"):
        got = mutate(toy_lines(), kind, random.Random(1), growing_actions=("Bump",))
        assert got is not None
        cases.append(write(tmp_path / f"{kind}.ndjson", got[0]))
    for path in cases:
        fake = EmbeddedApalache(consts)
        a = validate_with_apalache(path, config, apalache=fake)
        e = embedded.validate(path)
        assert a.verdict == e.verdict, (path, a.summary_line(), e.summary_line())
        if e.diagnostic is not None:
            assert a.diagnostic is not None and a.diagnostic.step == e.diagnostic.step
        assert all("--cinit=TraceCInit" in c for c in fake.commands)


def test_apalache_engine_reports_bad_input(tmp_path: Path) -> None:
    lines = toy_lines()
    lines[4]["action"] = "Teleport"
    path = write(tmp_path / "bad.ndjson", lines)
    r = validate_with_apalache(path, ValidatorConfig(spec=TOY_SPEC), apalache=EmbeddedApalache({}))
    assert r.verdict is Verdict.ERROR and r.error is not None and "unknown action(s) ['Teleport']" in r.error


def _apalache_or_skip() -> object:
    from conformance.apalache import Apalache, ApalacheError

    try:
        return Apalache.locate(timeout=300)
    except ApalacheError as exc:
        pytest.skip(f"Apalache is not installed: {exc}")


@pytest.mark.apalache
def test_real_apalache_agrees_on_the_toy_traces(tmp_path: Path) -> None:
    apalache = _apalache_or_skip()
    config = ValidatorConfig(spec=TOY_SPEC)
    embedded = TraceValidator(TOY_SPEC)
    got = mutate(toy_lines(), "edit-state", random.Random(1), growing_actions=("Bump",))
    assert got is not None
    for path in (TOY_VALID, write(tmp_path / "edited.ndjson", got[0])):
        a = validate_with_apalache(path, config, apalache=apalache)
        e = embedded.validate(path)
        assert a.verdict == e.verdict, a.summary_line()
        assert (a.diagnostic.step if a.diagnostic else None) == (e.diagnostic.step if e.diagnostic else None)


def test_apalache_engine_rejects_a_bad_init_line_at_step_zero(tmp_path: Path) -> None:
    lines = toy_lines()
    lines[1]["replicas"]["2"]["counter"] = 5
    path = write(tmp_path / "init.ndjson", lines)
    _, consts = _toy_module(toy_lines())
    r = validate_with_apalache(path, ValidatorConfig(spec=TOY_SPEC), apalache=EmbeddedApalache(consts))
    assert r.verdict is Verdict.REJECT and r.diagnostic is not None and (r.diagnostic.step, r.diagnostic.line) == (0, 2)


ROOT = Path(__file__).resolve().parents[2]
KRAFT = ROOT / "spec" / "KRaft.tla"
TOGGLES = Path(__file__).parent / "fixtures" / "kraft_toggles.cfg"


@pytest.mark.parametrize(("trace", "steps", "matched"), [
    ("valid/seed-2.ndjson.gz", 25, 25),
    ("bugs/observer-votes-seed-1.ndjson.gz", 12, 6),  # the bug acts at step 7
])
def test_kraft_trace_module_in_the_embedded_engine(trace: str, steps: int, matched: int) -> None:
    from conformance.tla.cfg import read_config

    loader = ModuleLoader([])
    module = loader.load_file(KRAFT)
    stream = TraceStream(ROOT / "traces" / "corpus" / trace)
    events = list(stream.events())[:steps]
    shape = _shape(KRAFT, module, loader, sorted(next(iter(stream.init.replicas.values()))))
    consts = spec_constants(declared_constants(module), stream.header.constants,
                            read_config(TOGGLES).constants, KRAFT)
    text = trace_module_text(shape, consts, stream.init.replicas, events)
    assert "/\\ e.p_m \\in messages" in text and "/\\ ForeignRequests = {}" in text
    with tempfile.TemporaryDirectory() as tmp:
        d = Path(tmp)
        shutil.copy(KRAFT, d / KRAFT.name)
        (d / f"{TRACE_MODULE}.tla").write_text(text)
        assert lint_file(d / f"{TRACE_MODULE}.tla") == []  # the project's Apalache compatibility lint
        model = Model.load(d / f"{TRACE_MODULE}.tla", constants=consts)
        frontier = set(model.init_states("TraceInit"))
        step = model.variables.index("tIdx")
        taken = 0
        while frontier:  # a clock step (TraceClock) keeps tIdx: count the events taken
            frontier = {t for s in frontier for _, t in model.successors(s, "TraceNext")}
            taken = max([taken, *(s[step] for s in frontier)])  # type: ignore[list-item]
    assert taken == matched
