"""The mutation campaign (benchmarks/mutation.py): its catalog applies to today's source, and
its verdicts come from the checks, not from the catalog."""

from __future__ import annotations

import argparse
from pathlib import Path
from types import ModuleType

import pytest

from tests.benchmarks.load import load_benchmark

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def mutation() -> ModuleType:
    return load_benchmark("mutation.py", "mutation_campaign")


def test_every_mutation_applies_once_and_compiles(mutation: ModuleType) -> None:
    names = [m.name for m in mutation.MUTATIONS]
    assert len(names) >= 30 and len(set(names)) == len(names)
    for m in mutation.MUTATIONS:
        text = (ROOT / m.path).read_text()
        assert text.count(m.old) == 1, f"{m.name}: the text to replace is not found exactly once in {m.path}"
        assert m.old != m.new and m.path != "reference/sim/faults.py"  # faults() reads the unmutated lists
        compile(text.replace(m.old, m.new), m.path, "exec")


def _args(seeds: str) -> argparse.Namespace:
    return argparse.Namespace(seeds=seeds, steps=600, jobs=1)


def test_a_safety_bug_is_caught_and_a_no_op_never_acts(mutation: ModuleType, tmp_path: Path) -> None:
    """A vote granted twice in one epoch is REJECTed; an edit that changes nothing leaves every
    trace equal to the unmutated run's (``never acted``)."""
    campaigns = [mutation.Campaign("static", 3)]
    base = tmp_path / "base"
    mutation.apply(None, base / "code")
    assert mutation.simulate(base / "code", campaigns[0], _args("1-3"), base / "traces" / "static-3") == 0
    twice = next(m for m in mutation.MUTATIONS if m.name == "vote-twice-in-epoch")
    caught = mutation.run_one(twice, base / "traces", campaigns, _args("1-3"), tmp_path / "m1")
    assert caught["outcome"] == "caught" and caught["rejected"] > 0
    no_op = mutation.Mutation("comment-only", twice.path, twice.old, twice.old + "  # same rule", "no change")
    same = mutation.run_one(no_op, base / "traces", campaigns, _args("1-3"), tmp_path / "m2")
    assert same["outcome"] == "never acted" and same["changed"] == 0
