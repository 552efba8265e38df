"""The simulator with a dynamic quorum (KIP-853): voter changes under faults keep every
invariant, and the KIP-853 bug switches are caught by the simulator's own invariants."""

from __future__ import annotations

import pytest

from reference.sim.faults import DYNAMIC_DEFAULT_FAULTS
from reference.sim.simulator import SimConfig, run_seed

DYNAMIC = SimConfig(quorum="dynamic", steps=1000, trace=False, faults=frozenset(DYNAMIC_DEFAULT_FAULTS))


def test_voter_changes_under_faults_keep_every_invariant() -> None:
    committed = 0
    for seed in range(1, 9):
        result = run_seed(DYNAMIC, seed)
        assert result.ok, result.failures[0]
        committed += result.stats.voter_changes_committed
    assert committed > 0


def test_standalone_bootstrap_grows_the_quorum() -> None:
    config = SimConfig(quorum="dynamic", bootstrap="standalone", observers=2, steps=1000, trace=False,
                       faults=frozenset())
    result = run_seed(config, 1)
    assert result.ok and result.stats.adds_committed > 0


@pytest.mark.parametrize(("bug", "seed", "invariant"), [
    ("two-uncommitted-changes", 23, "OneUncommittedChange"),
    ("change-before-epoch-commit", 3, "ChangeAfterEpochCommit"),
    ("vote-ignores-directory-id", 3, "CommittedNeverLost"),
])
def test_kip853_bug_switches_are_caught(bug: str, seed: int, invariant: str) -> None:
    clean = run_seed(DYNAMIC, seed)
    assert clean.ok
    buggy = run_seed(SimConfig(quorum="dynamic", steps=1000, trace=False, bug=bug,
                               faults=frozenset(DYNAMIC_DEFAULT_FAULTS)), seed)
    assert [f.invariant for f in buggy.failures][:1] == [invariant]


def test_static_quorum_ignores_the_kip853_bug_switches() -> None:
    static = SimConfig(steps=400, trace=False)
    for bug in ("two-uncommitted-changes", "vote-ignores-directory-id"):
        assert run_seed(SimConfig(steps=400, trace=False, bug=bug), 3).stats == run_seed(static, 3).stats
