"""A dynamic quorum's trace (KIP-853) written with per-event changes reads the same as the run
written with the full state on every event: appended VotersRecords keep their voter sets, and
the reconfiguration variables change like the others."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Any

from conformance.validate.trace_reader import TraceStream
from conformance.validate.validator import TraceValidator
from conformance.validate.verdict import Verdict
from reference.sim.faults import DYNAMIC_DEFAULT_FAULTS
from reference.sim.simulator import SimConfig, run_seed

SPEC = Path(__file__).resolve().parents[2] / "spec" / "KRaft.tla"
SEED = 11  # commits an AddVoter, a RemoveVoter, a leader's self-removal and a disk-loss rejoin


def _events(path: Path) -> list[tuple[Any, ...]]:
    stream = TraceStream(path)
    out = [(e.step, e.replica, e.action, e.params, e.state, e.sent) for e in stream.events()]
    stream.close()
    return out


def test_deltas_and_full_states_of_a_dynamic_run_read_the_same(tmp_path: Path) -> None:
    config = SimConfig(steps=600, quorum="dynamic", faults=frozenset(DYNAMIC_DEFAULT_FAULTS))
    deltas = run_seed(replace(config, out_dir=tmp_path / "d"), SEED)
    full = run_seed(replace(config, out_dir=tmp_path / "f", full_state_every=1), SEED)
    assert deltas.trace_path is not None and full.trace_path is not None
    assert deltas.stats.self_removals and deltas.stats.rejoins_committed
    events = _events(deltas.trace_path)
    assert events == _events(full.trace_path)
    voters_entries = {e for _, _, _, _, state, _ in events for e in state["log"] if e.map["kind"] == "voters"}
    assert voters_entries and all(e.map["voters"] for e in voters_entries)
    assert TraceValidator(SPEC).validate(deltas.trace_path).verdict is Verdict.ACCEPT
