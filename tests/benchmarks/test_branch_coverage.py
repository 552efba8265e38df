"""The branch-coverage benchmark (benchmarks/branch_coverage.py): every branch it excludes or
explains names a branch of today's source, with a reason, and none is both."""

from __future__ import annotations

import linecache
import warnings
from pathlib import Path
from types import ModuleType

import coverage
import pytest
from coverage.exceptions import CoverageWarning

from tests.benchmarks.load import load_benchmark

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def bench() -> ModuleType:
    return load_benchmark("branch_coverage.py", "branch_coverage_bench")


def _branches(bench: ModuleType) -> set[tuple[str, str, str, str]]:
    """Every branch of reference/core as the benchmark keys it (none executed: all missing)."""
    cov = coverage.Coverage(branch=True, source=[str(bench.PROTOCOL)], data_file=None)
    cov.start()
    cov.stop()
    keys = set()
    for path in sorted(bench.PROTOCOL.glob("*.py")):
        functions = bench._functions(path)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", CoverageWarning)  # no data: every branch is missing
            analysis = cov._analyze(str(path))
        for a, targets in analysis.missing_branch_arcs().items():
            for b in targets:
                keys.add((path.name, functions.get(a, ""), linecache.getline(str(path), a).strip(),
                          "exit" if b < 0 else linecache.getline(str(path), b).strip()))
    return keys


def test_every_exclusion_and_explanation_names_a_branch(bench: ModuleType) -> None:
    branches = _branches(bench)
    for listed in (bench.EXCLUDED, bench.EXPLAINED):
        assert listed and all(reason.strip() for reason in listed.values())
        assert set(listed) <= branches, set(listed) - branches
    assert not set(bench.EXCLUDED) & set(bench.EXPLAINED)


def test_function_names_tell_apart_lines_of_equal_text(bench: ModuleType) -> None:
    names = bench._functions(bench.PROTOCOL / "replica.py")
    text = (bench.PROTOCOL / "replica.py").read_text().splitlines()
    lines = [n for n, line in enumerate(text, 1) if line.strip() == "if isinstance(state, Leader):"]
    assert len(lines) >= 2 and len({names[n] for n in lines}) == len(lines)
