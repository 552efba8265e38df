"""Liveness on random walks: a walk that revisits a state of its path closes a lasso, and
at every state the walk may also stutter forever; each such behaviour is checked
exactly (fairness included) against the liveness properties."""

from __future__ import annotations

from dataclasses import dataclass

from conformance.tla.liveness.formula import Obligation
from conformance.tla.liveness.graph import STUTTER
from conformance.tla.liveness.recorder import LivenessRecorder
from conformance.tla.model import State


@dataclass(frozen=True)
class WalkViolation:
    """A violated property conjunct; the behaviour returns from the walk's last state to
    state ``loop`` (by stuttering when ``stutter``)."""

    obligation: Obligation
    loop: int
    stutter: bool


class WalkMonitor:
    """Follows one walk state by state (``start`` then ``step``)."""

    def __init__(self, recorder: LivenessRecorder) -> None:
        self.rec = recorder
        self.states: list[int] = []
        self.edges: list[int] = []
        self.position: dict[int, int] = {}
        self.last: State | None = None

    def start(self, fp: int, state: State) -> WalkViolation | None:
        self.states, self.edges, self.position = [], [], {}
        self.last = None
        return self._add(fp, state)

    def step(self, fp: int, state: State) -> WalkViolation | None:
        """The walk moved to ``state``: check the lasso it closes (if it revisits a state)
        and the behaviour stuttering there."""
        assert self.last is not None
        bits = self.rec.eval.edge_bits(self.last, state)
        back = self.position.get(fp)
        if back is not None:
            found = self.rec.lasso_violation(self.states, [*self.edges, bits], back)
            if found is not None:
                return WalkViolation(found, back, False)
        self.edges.append(bits)
        return self._add(fp, state)

    def _add(self, fp: int, state: State) -> WalkViolation | None:
        self.position.setdefault(fp, len(self.states))
        self.states.append(self.rec.eval.state_bits(state))
        self.last = state
        end = len(self.states) - 1
        found = self.rec.lasso_violation(self.states, [*self.edges, STUTTER], end)
        return None if found is None else WalkViolation(found, end, True)
