"""Simulated traces for the simulation campaign: the only module here that imports ``reference``.

A seed's run is written by the simulator's own trace writer into a private temporary folder
(on ``/dev/shm``, in memory, where the system has it), read back as bytes and deleted, so a
task leaves no file behind and the trace is validated from memory.
"""

from __future__ import annotations

import os
import tempfile
from dataclasses import dataclass, replace
from pathlib import Path

from reference.sim.bugs import BUGS, parse_bug
from reference.sim.faults import DEFAULT_FAULTS, DYNAMIC_DEFAULT_FAULTS, FAULTS, parse_faults
from reference.sim.simulator import BOOTSTRAPS, QUORUMS, Failure, SimConfig, run_seed

__all__ = ["BOOTSTRAPS", "BUGS", "DEFAULT_FAULTS", "DYNAMIC_DEFAULT_FAULTS", "FAULTS", "QUORUMS", "SimConfig",
           "SimulatedTrace", "sim_settings", "simulate"]

_MEMORY_DIR = "/dev/shm"


@dataclass(frozen=True)
class SimulatedTrace:
    """One seed's trace (its file name and text) and the simulator's invariant failures."""

    seed: int
    name: str
    data: bytes
    events: int
    failures: tuple[str, ...]


def sim_settings(voters: int, observers: int, faults: str | None, steps: int, bug: str | None,
                 quorum: str = "static", bootstrap: str = "initial-controllers") -> SimConfig:
    """The simulator's settings (``faults`` None: the quorum's default fault kinds); ``ValueError``
    naming a bad fault kind, bug, quorum or count."""
    parse_bug(bug)
    if faults is None:
        faults = ",".join(DYNAMIC_DEFAULT_FAULTS if quorum == "dynamic" else DEFAULT_FAULTS)
    return SimConfig(voters=voters, observers=observers, faults=parse_faults(faults), steps=steps, bug=bug,
                     quorum=quorum, bootstrap=bootstrap, trace=True, gzip=False)


def _describe(f: Failure) -> str:
    return f"step {f.step} (t={f.time_ms} ms), replica {f.replica}: {f.invariant}: {f.detail}"


def simulate(settings: SimConfig, seed: int) -> SimulatedTrace:
    """Run one seed and return its trace's bytes (no file is left behind)."""
    base = _MEMORY_DIR if os.path.isdir(_MEMORY_DIR) and os.access(_MEMORY_DIR, os.W_OK) else None
    with tempfile.TemporaryDirectory(prefix="kraftcheck-sim-", dir=base) as tmp:
        result = run_seed(replace(settings, out_dir=Path(tmp)), seed)
        assert result.trace_path is not None
        data = result.trace_path.read_bytes()
        name = result.trace_path.name
    return SimulatedTrace(seed, name, data, result.events, tuple(_describe(f) for f in result.failures))
