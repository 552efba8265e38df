"""A trace's network in bounded memory: beyond ``network_in_memory`` messages the rest moves to a
temporary database keyed by an exact canonical encoding. The encoding agrees with TLA+
equality; lookups and first steps are the same in memory and on disk; validation gives the
same reports whether the network stays in memory or nearly all of it is on disk."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from conformance.tla.cfg import read_config
from conformance.tla.values import ModelValue, make_fn, same_value
from conformance.validate.corpus import CORPUS_DIR, load_manifest
from conformance.validate.first_steps import FirstSteps, _Canonical
from conformance.validate.validator import TraceValidator, ValidatorOptions
from reference.sim.simulator import SimConfig, run_seed

ROOT = Path(__file__).resolve().parents[2]
SPEC = ROOT / "spec" / "KRaft.tla"
CORPUS = ROOT / CORPUS_DIR
TOGGLES = Path(__file__).parent / "fixtures" / "kraft_toggles.cfg"

# few atoms, so that equal and Python-equal-but-different values (TRUE and 1, "a" and the
# model value a) are drawn often
_atoms = st.sampled_from([True, False, 0, 1, 2, "a", "b", ModelValue("a")])


def _containers(children: st.SearchStrategy) -> st.SearchStrategy:
    return st.one_of(
        st.lists(children, max_size=3).map(tuple),
        st.frozensets(children, max_size=3),
        st.dictionaries(st.sampled_from(["a", "b", "c"]), children, min_size=1, max_size=3).map(make_fn),
        st.dictionaries(_atoms, children, min_size=1, max_size=3).map(make_fn),
    )


_values = st.recursive(_atoms, _containers, max_leaves=8)


@settings(max_examples=800, deadline=None)
@given(_values, _values)
def test_the_encoding_is_equal_exactly_for_equal_values(a: Any, b: Any) -> None:
    enc = _Canonical()
    assert (enc.encode(a) == enc.encode(b)) == (a == b and same_value(a, b))


def test_the_encoding_ignores_the_order_sets_and_records_were_built_in() -> None:
    enc = _Canonical()
    one = make_fn({"x": frozenset(["p", "q", "r"]), "y": (1, 2)})
    other = make_fn({"y": (1, 2), "x": frozenset(["r", "q", "p"])})
    assert enc.encode(one) == enc.encode(other)
    assert enc.encode(make_fn({"x": True})) != enc.encode(make_fn({"x": 1}))


def test_first_steps_are_kept_on_disk_as_in_memory() -> None:
    steps = FirstSteps(in_memory=3)
    values = [make_fn({"type": "M", "n": n, "ok": n % 2 == 0}) for n in range(20)]
    for k, v in enumerate(values):
        steps.add(v, k + 1)
        steps.add(v, k + 100)  # recorded already: the first step stays
    assert steps.on_disk >= 15 and len(steps) == 20
    assert [steps.get(v) for v in values] == list(range(1, 21))
    assert steps.get(make_fn({"type": "M", "n": 0, "ok": 1})) is None  # TRUE is not 1
    assert sorted(k for _, k in steps.items()) == list(range(1, 21))
    assert {v for v, _ in steps.items()} == set(values)
    steps.close()


def _reports(options: ValidatorOptions, paths: list[Path]) -> list[Any]:
    validator = TraceValidator(SPEC, options=options, constants=read_config(TOGGLES).constants)
    out = []
    for path in paths:
        r = validator.validate(path)
        out.append((r.verdict, r.steps, r.error, r.diagnostic))
    return out


def test_validation_is_the_same_with_the_network_on_disk(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The corpus (valid traces, bug switches and mutations, rejected with diagnostics built
    from the network) and a fresh long run: the same reports with 4 messages in memory."""
    spills: list[int] = []
    spill = FirstSteps._spill

    def counted(self: FirstSteps) -> None:
        spills.append(len(self._memory))
        spill(self)

    monkeypatch.setattr(FirstSteps, "_spill", counted)
    paths = [CORPUS / e.file for e in load_manifest(CORPUS) if not e.file.startswith("malformed/")]
    long_run = run_seed(SimConfig(steps=3000, out_dir=tmp_path, quorum="static"), 1).trace_path
    assert long_run is not None
    paths.append(long_run)
    in_memory = _reports(ValidatorOptions(), paths)
    on_disk = _reports(ValidatorOptions(network_in_memory=4), paths)
    assert on_disk == in_memory
    assert len(spills) > 500  # every few messages of the longer traces went to disk
    assert sum(r[0].value == "REJECT" for r in in_memory) >= 20


def test_a_failing_database_is_an_error_naming_the_trace(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import sqlite3

    from conformance.validate import first_steps
    from conformance.validate.verdict import Verdict

    def no_space() -> Any:
        raise sqlite3.OperationalError("database or disk is full")

    monkeypatch.setattr(first_steps, "_open", no_space)
    path = run_seed(SimConfig(steps=300, out_dir=tmp_path, quorum="static"), 1).trace_path
    assert path is not None
    report = TraceValidator(SPEC, options=ValidatorOptions(network_in_memory=4)).validate(path)
    assert report.verdict is Verdict.ERROR and report.error is not None
    assert report.error.startswith(str(path)) and "database or disk is full" in report.error, report.error
    assert TraceValidator(SPEC).validate(path).verdict is Verdict.ACCEPT  # 4,096 in memory: no database
