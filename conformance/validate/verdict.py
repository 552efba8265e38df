"""Verdicts and diagnostics of one trace, serialisable to JSON.

``ACCEPT``: some run of the spec produces the trace. ``REJECT``: no candidate state is left
at some step (a violation). ``INCONCLUSIVE``: a search bound was hit before a verdict.
``ERROR``: the trace is bad input (``TraceFormatError`` or a mismatch with the spec's names).
"""

from __future__ import annotations

import enum
from collections.abc import Iterable
from dataclasses import asdict, dataclass, field
from typing import Any


class Verdict(enum.Enum):
    ACCEPT = "ACCEPT"
    REJECT = "REJECT"
    INCONCLUSIVE = "INCONCLUSIVE"
    ERROR = "ERROR"


@dataclass(frozen=True)
class EventSummary:
    """An event as shown in diagnostics: where it stands and what it did."""

    step: int
    line: int
    replica: int
    action: str
    params: str  # TLA+ rendering of the parameters

    def describe(self) -> str:
        return f"step {self.step} (line {self.line}): replica {self.replica} {self.action}({self.params})"


@dataclass(frozen=True)
class VariableMismatch:
    """An observed value that no successor of the step produces."""

    variable: str
    expected: str  # the closest successor's value, in TLA+ syntax (abbreviated)
    observed: str
    difference: str  # the first differing offset/field, or "" for small values


@dataclass(frozen=True)
class DisabledGuard:
    """A conjunct of the action's guard that evaluated FALSE."""

    location: str
    text: str


@dataclass(frozen=True)
class Diagnostic:
    """Why a trace was rejected (or left inconclusive), at one step."""

    file: str
    line: int
    step: int
    event: EventSummary | None
    reason: str
    mismatches: tuple[VariableMismatch, ...] = ()
    disabled: tuple[DisabledGuard, ...] = ()
    candidates: int = 0
    preceding: tuple[EventSummary, ...] = ()

    def render(self) -> str:
        """Human-readable text of the diagnostic."""
        out = [f"{self.file}:{self.line}: step {self.step}: {self.reason}"]
        if self.event is not None:
            out.append(f"  event: {self.event.describe()}")
        if self.candidates:
            out.append(f"  candidate states before the step: {self.candidates}")
        for g in self.disabled:
            out.append(f"  guard FALSE at {g.location}: {g.text}")
        for m in self.mismatches:
            out.append(f"  variable {m.variable}:")
            out.append(f"    expected: {m.expected}")
            out.append(f"    observed: {m.observed}")
            if m.difference:
                out.append(f"    differs:  {m.difference}")
        if self.preceding:
            out.append("  preceding events:")
            out.extend(f"    {e.describe()}" for e in self.preceding)
        return "\n".join(out)


@dataclass
class TraceReport:
    """The outcome of validating one trace."""

    file: str
    verdict: Verdict
    steps: int = 0  # events validated (for ACCEPT: all of them)
    diagnostic: Diagnostic | None = None
    error: str | None = None  # bad-input message (file:line: ...) for ERROR
    bound: str | None = None  # the bound that was hit, for INCONCLUSIVE
    max_candidates_seen: int = 0
    seconds: float = 0.0
    spec: str = ""
    seed: Any = None
    bug: str | None = None
    coverage: dict[str, int] = field(default_factory=dict)  # disjunct key -> hits

    @property
    def ok(self) -> bool:
        return self.verdict is Verdict.ACCEPT

    def summary_line(self) -> str:
        if self.verdict is Verdict.ERROR:
            return f"{self.file}: ERROR: {self.error}"
        if self.verdict is Verdict.REJECT and self.diagnostic is not None:
            return f"{self.file}: REJECT at step {self.diagnostic.step} (line {self.diagnostic.line}): {self.diagnostic.reason}"
        if self.verdict is Verdict.INCONCLUSIVE:
            return f"{self.file}: INCONCLUSIVE after {self.steps} steps: {self.bound}"
        return f"{self.file}: ACCEPT ({self.steps} steps)"

    def to_json(self) -> dict[str, Any]:
        data = asdict(self)
        data["verdict"] = self.verdict.value
        return data

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> TraceReport:
        diag = data.get("diagnostic")
        diagnostic = None
        if diag is not None:
            diagnostic = Diagnostic(
                file=diag["file"], line=diag["line"], step=diag["step"],
                event=EventSummary(**diag["event"]) if diag.get("event") else None,
                reason=diag["reason"],
                mismatches=tuple(VariableMismatch(**m) for m in diag.get("mismatches", ())),
                disabled=tuple(DisabledGuard(**g) for g in diag.get("disabled", ())),
                candidates=diag.get("candidates", 0),
                preceding=tuple(EventSummary(**e) for e in diag.get("preceding", ())),
            )
        fields = {k: v for k, v in data.items() if k not in ("verdict", "diagnostic")}
        return cls(verdict=Verdict(data["verdict"]), diagnostic=diagnostic, **fields)


def exit_code(reports: list[TraceReport]) -> int:
    """Exit status of a run: 1 if any trace was rejected (a violation wins over everything),
    else 2 if any trace was bad input, else 3 if any was inconclusive, else 0."""
    return exit_code_for(r.verdict for r in reports)


def exit_code_for(verdicts: Iterable[Verdict]) -> int:
    """``exit_code`` from the verdicts that occurred (for runs whose reports are not all at hand)."""
    seen = set(verdicts)
    if Verdict.REJECT in seen:
        return 1
    if Verdict.ERROR in seen:
        return 2
    if Verdict.INCONCLUSIVE in seen:
        return 3
    return 0
