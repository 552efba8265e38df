"""The simulator with a dynamic quorum (KIP-853): voter changes under faults keep every
invariant, and the KIP-853 bug switches are caught by the simulator's own invariants."""

from __future__ import annotations

import json
from pathlib import Path

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
    ("two-uncommitted-changes", 7, "OneUncommittedChange"),
    ("change-before-epoch-commit", 14, "ChangeAfterEpochCommit"),
    ("vote-ignores-directory-id", 4, "CommittedNeverLost"),
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


def test_the_only_voter_of_a_standalone_quorum_that_lost_its_disk_asks_nobody(tmp_path: Path) -> None:
    """Its voter set reverts to the bootstrap set, itself alone: the spec lets a non-voter
    without a leader fetch only from its voters, so it must not pick another replica."""
    from conformance.validate.validator import TraceValidator
    from conformance.validate.verdict import Verdict

    config = SimConfig(quorum="dynamic", bootstrap="standalone", observers=3, steps=200, out_dir=tmp_path,
                       faults=frozenset(DYNAMIC_DEFAULT_FAULTS))
    result = run_seed(config, 8)
    assert result.ok and result.trace_path is not None
    events = [json.loads(line) for line in result.trace_path.read_text().splitlines()]
    assert any(e.get("action") == "LoseDisk" and e["replica"] == 1 for e in events)
    spec = Path(__file__).resolve().parents[2] / "spec" / "KRaft.tla"
    report = TraceValidator(spec).validate(result.trace_path)
    assert report.verdict is Verdict.ACCEPT, report.summary_line()
