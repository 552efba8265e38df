"""Validate one trace against the spec, step by step (the embedded engine).

Start from the spec's initial states that agree with the init line; for each event keep the
successors, under the named action with the logged parameters, that agree with the observed
variables of the stepping replica, leave the other replicas' logged variables unchanged, and
(when the spec has a ``messages`` variable) add exactly the ``sent`` messages to the network.
Unlogged variables stay open: the validator keeps a deduplicated set of candidate states,
at most ``max_candidates`` wide; the excess is set aside and searched depth-first later if
the kept candidates die (backtracking replays the buffered events). The trace is streamed:
memory holds the candidates, the events since the oldest set-aside branch, and a small
window of previous events for diagnostics. A trace that ends with an error line (the
replica raised in that step) is rejected at that step, naming the exception, once every
earlier step is accepted: no step of the spec raises.

``TraceValidator`` holds the compiled spec (one ``Model`` per distinct constants) and is a
pure function of the trace: a process can keep one and call ``validate`` per trace.
"""

from __future__ import annotations

import time
from collections import deque
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from conformance.tla.loader import ModuleLoader
from conformance.tla.syntax import TlaError
from conformance.tla.values import Value
from conformance.validate.coverage import (
    Coverage,
    Disjunct,
    module_definitions,
    next_disjuncts,
)
from conformance.validate.first_steps import IN_MEMORY, SpillError
from conformance.validate.network import sharing_refusal
from conformance.validate.spec_binding import (
    NETWORK,
    BindingError,
    SpecBinding,
    SpecModel,
    State,
    declared_constants,
    spec_constants,
)
from conformance.validate.step_check import CLOCK_ACTION, DURABLE_COPIES, StepChecker
from conformance.validate.trace_reader import (
    TraceEvent,
    TraceFormatError,
    TraceHeader,
    TraceRaised,
    TraceStream,
)
from conformance.validate.value_diff import abbreviate
from conformance.validate.value_types import TraceTypes
from conformance.validate.verdict import Diagnostic, EventSummary, TraceReport, Verdict


@dataclass(frozen=True)
class ValidatorOptions:
    max_candidates: int = 1000  # candidate states kept per step before setting the rest aside
    max_set_aside: int = 64_000  # set-aside states (all branches) before the search stops being exhaustive
    max_replay: int = 100_000  # buffered events kept for backtracking
    window: int = 5  # preceding events shown in a diagnostic
    next_name: str = "Next"
    init_name: str = "Init"
    share_network: bool = True  # keep the network outside the states when the spec allows it
    network_in_memory: int = IN_MEMORY  # messages of a shared network kept in memory; the rest on disk


def _load_model(spec: Path, constants: Mapping[str, Value], overrides: Mapping[str, str],
                search_path: Sequence[Path | str]) -> SpecModel:
    from conformance.tla.model import Model

    return Model.load(spec, constants=constants, overrides=overrides, search_path=search_path)


PARAM_TEXT = 400  # characters of a parameter shown in diagnostics


def _summary(e: TraceEvent) -> EventSummary:
    params = ", ".join(f"{k} = {abbreviate(v, PARAM_TEXT)}" for k, v in e.params.items())
    return EventSummary(step=e.step, line=e.line, replica=e.replica, action=e.action, params=params)


class _BadTrace(Exception):
    """Bad input found while validating (a binding or evaluation error at a known line)."""

    def __init__(self, line: int, message: str) -> None:
        super().__init__(message)
        self.line = line


class TraceValidator:
    """Validates traces of one spec; caches one compiled model per distinct set of constants.

    Each ``validate`` call depends only on the trace (and the options); a validator is meant
    to be held by one process (or one Spark executor) and used by one thread at a time."""

    def __init__(
        self,
        spec_path: Path | str,
        *,
        constants: Mapping[str, Value] | None = None,
        overrides: Mapping[str, str] | None = None,
        search_path: Sequence[Path | str] = (),
        options: ValidatorOptions | None = None,
    ) -> None:
        self.spec_path = Path(spec_path)
        self.constants_override = dict(constants or {})
        self.overrides = dict(overrides or {})
        self.search_path = tuple(search_path)
        self.options = options or ValidatorOptions()
        self._declared: list[str] | None = None
        self._disjuncts: list[Disjunct] | None = None
        self._types: TraceTypes | None = None
        self._network_refusal: str | None = None
        self._bindings: dict[frozenset[tuple[str, Any]], tuple[SpecBinding, StepChecker, list[Disjunct]]] = {}

    # -- spec side ------------------------------------------------------------------------------

    def _parse(self) -> None:
        loader = ModuleLoader(self.search_path)
        module = loader.load_file(self.spec_path)
        self._declared = declared_constants(module)
        definitions = module_definitions(module, loader)
        self._disjuncts = next_disjuncts(definitions, self.options.next_name)
        self._types = TraceTypes(module, definitions, self._disjuncts)
        roots = [*dict.fromkeys(d.action for d in self._disjuncts), CLOCK_ACTION, *DURABLE_COPIES]
        domains = [dom[1] for d in self._disjuncts for dom in d.domains if dom is not None]
        self._network_refusal = sharing_refusal(definitions, [r for r in roots if r in definitions], domains, NETWORK)

    def network_refusal(self) -> str | None:
        """Why the spec's network must stay in the states (None: the validator shares it)."""
        if self._disjuncts is None:
            self._parse()
        return self._network_refusal

    def declared(self) -> list[str]:
        """The spec's declared CONSTANTs (parsed once)."""
        if self._declared is None:
            self._parse()
        assert self._declared is not None
        return self._declared

    def disjuncts(self) -> list[Disjunct]:
        """The disjuncts of Next (parsed once), for coverage."""
        if self._disjuncts is None:
            self._parse()
        assert self._disjuncts is not None
        return self._disjuncts

    def types(self) -> TraceTypes:
        """The types the trace's values must have (from the spec's annotations)."""
        if self._types is None:
            self._parse()
        assert self._types is not None
        return self._types

    def binding(self, header: TraceHeader) -> tuple[SpecBinding, StepChecker, list[Disjunct]]:
        """The compiled spec for a trace header's constants (built on first use, then cached)."""
        pinned = set(self.overrides)
        declared = [c for c in self.declared() if c not in pinned]
        given = {k: v for k, v in header.constants.items() if k not in pinned}
        consts = spec_constants(declared, given, self.constants_override, self.spec_path)
        key = frozenset(consts.items())
        cached = self._bindings.get(key)
        if cached is None:
            model = _load_model(self.spec_path, consts, self.overrides, self.search_path)
            if header.spec != model.module.name:
                raise BindingError(f"a trace for spec {header.spec!r}, validated against {model.module.name!r}")
            disjuncts = self.disjuncts()
            binding = SpecBinding.of(model, disjuncts)
            share = self.options.share_network and self.network_refusal() is None
            cached = (binding, StepChecker(binding, share_network=share,
                                           network_in_memory=self.options.network_in_memory), disjuncts)
            self._bindings[key] = cached
        elif header.spec != cached[0].spec_name:
            raise BindingError(f"a trace for spec {header.spec!r}, validated against {cached[0].spec_name!r}")
        return cached

    # -- one trace ------------------------------------------------------------------------------

    def validate(self, trace: Path | str | bytes | Iterable[str], name: str | None = None) -> TraceReport:
        """Validate one trace (a path, the file's raw bytes, or its lines); never raises on bad input."""
        started = time.perf_counter()
        label = name if name is not None else (str(trace) if isinstance(trace, (str, Path)) else "<trace>")
        report = TraceReport(file=label, verdict=Verdict.ERROR)
        try:
            stream = TraceStream(trace, label)
            report.seed, report.bug, report.spec = stream.header.seed, stream.header.bug, stream.header.spec
            try:
                binding, checker, disjuncts = self.binding(stream.header)
            except BindingError as exc:
                raise _BadTrace(stream.header.line, str(exc)) from None
            except TlaError as exc:
                raise _BadTrace(stream.header.line, f"cannot load the spec with the trace's constants: {exc}") from None
            try:
                _Search(self.options, binding, checker, stream, report, Coverage(disjuncts), self.types()).run()
            finally:
                stream.close()
                checker.finish()
        except SpillError as exc:
            report.verdict, report.error = Verdict.ERROR, f"{label}: {exc}"
        except TraceFormatError as exc:
            report.verdict, report.error = Verdict.ERROR, str(exc)
        except _BadTrace as exc:
            report.verdict, report.error = Verdict.ERROR, f"{label}:{exc.line}: {exc}"
        report.seconds = time.perf_counter() - started
        return report


class _Search:
    """The candidate-set search over one trace stream, with depth-first backtracking."""

    def __init__(self, options: ValidatorOptions, binding: SpecBinding, checker: StepChecker,
                 stream: TraceStream, report: TraceReport, coverage: Coverage, types: TraceTypes) -> None:
        self.o = options
        self.types = types
        self.binding = binding
        self.checker = checker
        self.stream = stream
        self.report = report
        self.coverage = coverage
        self.window: deque[TraceEvent] = deque(maxlen=options.window)
        self.buffer: list[TraceEvent] = []  # events kept for replay; buffer[0].step == buffer_base
        self.buffer_base = 1
        self.last_read = 0
        self.position = 0  # steps done by the current candidates
        self.set_aside: list[tuple[int, list[State]]] = []  # (steps done, states) to resume from
        self.incomplete: str | None = None  # why the search is no longer exhaustive
        self.furthest: tuple[int, TraceEvent | None, list[State]] | None = None

    # -- event access (stream, or buffer when replaying) ----------------------------------------

    def _events(self) -> Iterator[TraceEvent]:
        return self.stream.events()

    def _event(self, step: int, source: Iterator[TraceEvent]) -> TraceEvent | None:
        if step <= self.last_read:
            return self.buffer[step - self.buffer_base]
        event = next(source, None)
        if event is None:
            return None
        problem = self.types.check_state(event.replica, event.state, "state") or self.types.check_event(
            event.action, event.params, event.sent)
        if problem is not None:
            raise _BadTrace(event.line, f"step {event.step}: {problem}")
        self.last_read = event.step
        self.window.append(event)
        if self.set_aside:
            self.buffer.append(event)
            if len(self.buffer) > self.o.max_replay:
                self._drop_oldest_branch(f"more than {self.o.max_replay} events buffered for backtracking")
        else:
            self.buffer = []
            self.buffer_base = event.step + 1
        return event

    def _trim_buffer(self) -> None:
        """Forget buffered events that neither a set-aside branch nor the current replay needs."""
        new_base = self.position + 1
        if self.set_aside:
            new_base = min(new_base, self.set_aside[0][0] + 1)
        if new_base > self.buffer_base:
            del self.buffer[: new_base - self.buffer_base]
            self.buffer_base = new_base

    def _drop_oldest_branch(self, why: str) -> None:
        self.set_aside.pop(0)
        self.incomplete = self.incomplete or why
        self._trim_buffer()

    def _set_aside(self, steps_done: int, states: list[State]) -> list[State]:
        """The candidates to go on with after ``steps_done`` steps; the excess waits for backtracking."""
        self.position = steps_done
        keep, rest = states[: self.o.max_candidates], states[self.o.max_candidates:]
        if rest:
            if not self.set_aside:
                self._trim_buffer()
            self.set_aside.append((steps_done, rest))
            while sum(len(s) for _, s in self.set_aside) > self.o.max_set_aside:
                self._drop_oldest_branch(f"more than {self.o.max_set_aside} candidate states set aside")
        return keep

    # -- the search -----------------------------------------------------------------------------

    def run(self) -> None:
        report = self.report
        init = self.stream.init
        for rid, values in init.replicas.items():
            problem = self.types.check_state(rid, values, f"replicas.{rid}")
            if problem is not None:
                raise _BadTrace(init.line, problem)
        try:
            logged = self.binding.check_variables(sorted(next(iter(init.replicas.values()))))
        except BindingError as exc:
            raise _BadTrace(init.line, str(exc)) from None
        self.checker.prepare(logged, init.replicas)
        try:
            initial = self.checker.initial_states(self.o.init_name)
        except BindingError as exc:
            raise _BadTrace(init.line, str(exc)) from None
        except TlaError as exc:
            raise _BadTrace(init.line, f"evaluating {self.o.init_name}: {exc}") from None
        if not initial:
            report.verdict = Verdict.REJECT
            report.diagnostic = self.checker.diagnose_init(self.stream.name, init.line, self.o.init_name)
            return
        source = self._events()
        candidates = self._set_aside(0, initial)
        report.max_candidates_seen = len(initial)
        step = 0
        accepted = False
        while True:
            event = self._event(step + 1, source)
            if event is None:
                accepted = True
                break
            try:
                nxt = self.checker.step(candidates, event, self.coverage)
            except BindingError as exc:
                raise _BadTrace(event.line, str(exc)) from None
            except TlaError as exc:
                raise _BadTrace(event.line, f"step {event.step}: evaluating {event.action}: {exc}") from None
            report.max_candidates_seen = max(report.max_candidates_seen, len(nxt))
            if nxt:
                if event.step == self.last_read:
                    self.stream.adopt(event.replica, self.checker.replica_values(nxt[0], event.replica))
                candidates = self._set_aside(event.step, nxt)
                step = event.step
                continue
            if self.furthest is None or event.step > self.furthest[0]:
                self.furthest = (event.step, event, candidates)
            if not self.set_aside:
                break
            resumed_at, states = self.set_aside.pop()
            candidates = self._set_aside(resumed_at, states)
            step = resumed_at
        if accepted and self.stream.raised is not None:
            self._conclude_raised(self.stream.raised)
            return
        self._conclude(accepted)

    def _conclude_raised(self, raised: TraceRaised) -> None:
        """Every logged step was a spec step, then the replica raised: no spec step raises."""
        report = self.report
        report.coverage = self.coverage.to_counts()
        report.steps = raised.step - 1
        params = ", ".join(f"{k} = {abbreviate(v, PARAM_TEXT)}" for k, v in raised.params.items())
        event = EventSummary(step=raised.step, line=raised.line, replica=raised.replica,
                             action=raised.action or f"<{raised.input} input>", params=params)
        preceding = tuple(_summary(e) for e in self.window if raised.step - self.o.window <= e.step < raised.step)
        report.verdict = Verdict.REJECT
        report.diagnostic = Diagnostic(
            file=self.stream.name, line=raised.line, step=raised.step, event=event,
            reason=f"{raised.describe()} (input {raised.input}); no step of the spec raises",
            preceding=preceding,
        )

    def _conclude(self, accepted: bool) -> None:
        report = self.report
        report.coverage = self.coverage.to_counts()
        if accepted or self.furthest is None:
            report.verdict, report.steps = Verdict.ACCEPT, self.last_read
            return
        fail_step, event, candidates = self.furthest
        report.steps = fail_step - 1
        preceding = tuple(_summary(e) for e in self.window if fail_step - self.o.window <= e.step < fail_step)
        assert event is not None
        diag = self.checker.diagnose(self.stream.name, event, candidates, _summary(event), preceding)
        report.diagnostic = diag
        if self.incomplete is not None:
            report.verdict, report.bound = Verdict.INCONCLUSIVE, (
                f"no candidate left at step {fail_step}, but the search was not exhaustive: {self.incomplete}"
            )
        else:
            report.verdict = Verdict.REJECT
