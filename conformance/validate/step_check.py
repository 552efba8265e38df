"""One step of trace validation: which successors agree with an event, and why none does.

The stepping replica's logged variables must equal the observed ones, the other replicas'
logged variables must be unchanged, and the network must grow by exactly the ``sent``
messages (``messages' = messages \\cup sent``, so a re-sent message is fine). When the event
logs its durable ``writes``, they must be the files whose durable copy the spec's step changes
(``DurableQuorumState``, ``DurableLog``), in the spec's order ``DurableFiles``: a write the
spec makes before the step's sends and the trace does not (or later), or two writes in
another order, is a mismatch.

The network: when the spec only ever adds to it (``network.sharing_refusal``), the
candidates' network is kept once for the trace (``SharedNetwork``) and the states carry the
empty set in its place, so that a step's successors hold exactly what the step sends; a
successor agrees when those sends plus the network equal the ``sent`` messages plus the
network. Diagnostics rebuild the full states first.

Time: when the spec is timed (it defines ``AdvanceClock`` and its constant ``TimedRules`` is
not empty) and an event carries ``time_ms`` later than a candidate's clock, the candidate first
takes the spec's step ``AdvanceClock(time_ms)``; the event's action is then evaluated at that
time, so the spec's timer guards see the trace's clock.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping, Sequence
from typing import Any

from conformance.tla.syntax import TlaError
from conformance.tla.values import ApplyError, Fn, Value, fn_apply, fn_items, format_value, make_fn
from conformance.validate.coverage import Coverage, Disjunct
from conformance.validate.first_steps import IN_MEMORY
from conformance.validate.network import SharedNetwork
from conformance.validate.spec_binding import BindingError, SpecBinding, State
from conformance.validate.trace_reader import TraceEvent
from conformance.validate.value_diff import abbreviate, first_difference, is_large
from conformance.validate.verdict import Diagnostic, DisabledGuard, EventSummary, VariableMismatch

DIAGNOSE_CANDIDATES = 20  # candidate states examined when explaining a rejection
CLOCK_ACTION = "AdvanceClock"  # the spec's step that moves its clock to a given time
CLOCK_VARIABLE = "now"
TIMED_RULES = "TimedRules"  # the spec's set of enforced timer rules ({}: untimed)
DURABLE_COPIES = ("DurableQuorumState", "DurableLog")  # the state functions of a replica's durable files


def _others_equal(f: Any, g: Any, r: int) -> bool:
    """``f`` and ``g`` (functions over replicas) agree everywhere except possibly at ``r``."""
    if type(f) is tuple and type(g) is tuple:
        return len(f) == len(g) and f[: r - 1] == g[: r - 1] and f[r:] == g[r:]
    if type(f) is Fn and type(g) is Fn:
        return f.map.keys() == g.map.keys() and all(v == g.map[k] for k, v in f.map.items() if k != r)
    return False


def _network_grew_by(before: Any, after: Any, sent: frozenset[Value]) -> bool:
    """``after = before \\cup sent``, without building the union (the network only grows large)."""
    if after is before:
        return sent <= before
    if len(after) != len(before) + len(sent - before) or not sent <= after:
        return False
    return before <= after


_EMPTY: frozenset[Value] = frozenset()  # the network's place in the states while it is shared


def _with(state: State, i: int, v: Value) -> State:
    return (*state[:i], v, *state[i + 1:])


class StepChecker:
    """Matches successors against events for one spec binding."""

    def __init__(self, binding: SpecBinding, share_network: bool = False, network_in_memory: int = IN_MEMORY) -> None:
        self.binding = binding
        # whether the network may be kept outside the states (the spec only adds to it)
        self.share_network = share_network and binding.messages_index is not None
        self.network: SharedNetwork | None = None  # this trace's network, when shared
        self.network_in_memory = network_in_memory  # messages of it kept in memory (SharedNetwork)
        # while the network is shared: the sends a step must make (the messages of the event
        # not in the network, and the steps done), tested where the action assigns the network
        self._sends_test: tuple[frozenset[Value], int] = (frozenset(), 0)
        mi = binding.messages_index
        self._checks: dict[int, Callable[[Value], bool]] = {mi: self._sends_agree} if mi is not None else {}
        self.model = binding.model
        self.logged: list[tuple[str, int]] = []
        self.init_replicas: Mapping[int, Mapping[str, Value]] = {}
        self._counted_until = 0
        self._files: tuple[str, ...] | None = None
        self._durable_reads: dict[int, tuple[int, ...]] = {}  # replica -> variables its durable copy reads
        if self.model.has_definition("DurableFiles"):
            self._files = tuple(self.model.eval_constant("DurableFiles"))  # type: ignore[arg-type]
        # The clock's variable index when the spec is timed (None: time is not checked).
        self.clock: int | None = None
        if self.model.has_definition(CLOCK_ACTION) and CLOCK_VARIABLE in binding.var_index:
            try:
                timed = bool(self.model.eval_constant(TIMED_RULES))
            except TlaError:  # a spec without the constant
                timed = False
            if timed:
                self.clock = binding.var_index[CLOCK_VARIABLE]

    def _sends_agree(self, sends: Value) -> bool:
        new, done = self._sends_test
        network = self.network
        return network is not None and network.grows_by(sends, new, done)

    def prepare(self, logged: list[tuple[str, int]], init_replicas: Mapping[int, Mapping[str, Value]]) -> None:
        self.logged = logged
        self.init_replicas = init_replicas
        self._counted_until = 0
        self.finish()

    def finish(self) -> None:
        """Let go of the trace's network (and its temporary database)."""
        if self.network is not None:
            self.network.close()
        self.network = None

    # -- initial states -------------------------------------------------------------------------

    def _replica_value(self, state: State, idx: int, name: str, r: int) -> Value:
        try:
            return fn_apply(state[idx], r)  # type: ignore[arg-type]
        except (ApplyError, TypeError):
            raise BindingError(
                f"replica {r} is not in the domain of the spec's variable {name} "
                f"(= {abbreviate(state[idx], 80)}); do the header's constants match the init line?"
            ) from None

    def _init_mismatches(self, state: State) -> list[VariableMismatch]:
        out = []
        for r, observed in self.init_replicas.items():
            for name, idx in self.logged:
                v = self._replica_value(state, idx, name, r)
                if v != observed[name]:
                    out.append(_mismatch(f"{name}[{r}]", v, observed[name]))
        return out

    def initial_states(self, init: str) -> list[State]:
        out: dict[State, None] = {}
        for s in self.model.init_states(init):
            if not self._init_mismatches(s):
                out[s] = None
        states = list(out)
        mi = self.binding.messages_index
        if self.share_network and states and mi is not None and len({s[mi] for s in states}) == 1:
            self.network = SharedNetwork(states[0][mi], self.network_in_memory)  # type: ignore[arg-type]
            states = [_with(s, mi, _EMPTY) for s in states]
        return states

    def full_states(self, states: list[State], steps: int) -> list[State]:
        """``states`` with the network they have after ``steps`` steps (the spec's own states)."""
        mi = self.binding.messages_index
        if self.network is None or mi is None:
            return states
        network = self.network.as_set(steps)
        return [_with(s, mi, network) for s in states]

    def diagnose_init(self, file: str, line: int, init: str) -> Diagnostic:
        best: list[VariableMismatch] | None = None
        for k, s in enumerate(self.model.init_states(init)):
            mm = self._init_mismatches(s)
            if best is None or len(mm) < len(best):
                best = mm
            if k >= DIAGNOSE_CANDIDATES:
                break
        reason = (f"no initial state of {init} agrees with the init line" if best is not None
                  else f"{init} has no initial state")
        return Diagnostic(file=file, line=line, step=0, event=None, reason=reason, mismatches=tuple(best or ()))

    # -- steps ----------------------------------------------------------------------------------

    def _agrees(self, s: State, t: State, r: int, observed: Sequence[tuple[int, Value]]) -> bool:
        for idx, obs in observed:
            f = t[idx]
            if fn_apply(f, r) != obs:  # type: ignore[arg-type]
                return False
            g = s[idx]
            if f is not g and not _others_equal(f, g, r):
                return False
        return True

    def at_event_time(self, candidates: list[State], event: TraceEvent) -> list[State]:
        """The candidates with their clock advanced to the event's ``time_ms`` by the spec's
        ``AdvanceClock`` (unchanged when the spec is untimed or the event carries no time)."""
        idx, t = self.clock, event.time_ms
        if idx is None or t is None:
            return candidates
        out: list[State] = []
        arg = (t,)
        for s in candidates:
            if s[idx] == t:
                out.append(s)
            else:
                out.extend(self.model.action_successors(CLOCK_ACTION, arg, s))
        return out

    def step(self, candidates: list[State], event: TraceEvent, coverage: Coverage) -> list[State]:
        """The deduplicated successors of ``candidates`` that agree with ``event``."""
        candidates = self.at_event_time(candidates, event)
        action = event.action
        args = self.binding.args(action, event.params)
        r = event.replica
        observed = [(idx, event.state[name]) for name, idx in self.logged]
        mi = self.binding.messages_index
        sent = frozenset(event.sent)
        out: list[State] = []
        hit: Disjunct | None = None
        network = self.network
        in_network: Callable[[Value], bool] | None = None
        checks: Mapping[int, Callable[[Value], bool]] | None = None
        shared_at: int | None = None  # the network's index while it is shared
        if network is not None and mi is not None:
            done = event.step - 1  # steps the candidates have taken
            new = network.new_messages(sent, done)
            self._sends_test = (new, done)
            checks = self._checks  # a way through the action that sends something else ends where it sends
            shared_at = mi

            def in_network(m: Value) -> bool:
                return network.contains(m, done)

            def grew(s: State, t: State) -> bool:
                return network.grows_by(t[mi], new, done)
        else:
            def grew(s: State, t: State) -> bool:
                return mi is None or _network_grew_by(s[mi], t[mi], sent)

        for s in candidates:
            site, _ = self.binding.site_for(action, args, s, in_network)
            if site is None:
                continue
            for t in self.model.action_successors(action, args, s, checks):
                if (grew(s, t) and self._agrees(s, t, r, observed)
                        and (event.writes is None or self.spec_writes(s, t, r) == event.writes)):
                    if shared_at is not None and t[shared_at] is not _EMPTY:
                        t = _with(t, shared_at, _EMPTY)
                    out.append(t)
                    hit = hit or site
        if network is not None:
            network.record(event.step, sent)
        if hit is not None and event.step > self._counted_until:
            self._counted_until = event.step
            coverage.record(action, hit.key)
        if len(out) > 1:
            out = list(dict.fromkeys(out))  # hashing whole states only when there is a choice
        return out

    def spec_writes(self, s: State, t: State, r: int) -> tuple[str, ...] | None:
        """The durable files of replica ``r`` the step from ``s`` to ``t`` writes, in the spec's
        order (None when the spec does not describe its durable files)."""
        if self._files is None:
            return None
        copy = f"<<{', '.join(f'{name}({r})' for name in DURABLE_COPIES)}>>"
        deps = self._durable_reads.get(r)
        if deps is None:
            deps = self._durable_reads[r] = tuple(self.model.variables_read(copy))
        if all(t[i] is s[i] for i in deps):
            return ()  # the step left every variable the durable copy reads as it was
        before = self.model.eval_state(copy, s)
        after = self.model.eval_state(copy, t)
        assert isinstance(before, tuple) and isinstance(after, tuple)
        return tuple(f for f, b, a in zip(self._files, before, after, strict=True) if b != a)

    def replica_values(self, state: State, replica: int) -> dict[str, Value]:
        """The logged variables of one replica in a state."""
        return {name: fn_apply(state[idx], replica) for name, idx in self.logged}  # type: ignore[arg-type]

    # -- diagnostics ----------------------------------------------------------------------------

    def _successors(self, candidates: list[State], action: str, args: tuple[Value, ...]) -> Iterator[tuple[State, State]]:
        for s in candidates[:DIAGNOSE_CANDIDATES]:
            if self.binding.site_for(action, args, s)[0] is not None:
                for t in self.model.action_successors(action, args, s):
                    yield s, t

    def _step_mismatches(self, s: State, t: State, event: TraceEvent) -> list[VariableMismatch]:
        r = event.replica
        out = []
        for name, idx in self.logged:
            v = fn_apply(t[idx], r)  # type: ignore[arg-type]
            if v != event.state[name]:
                out.append(_mismatch(name, v, event.state[name]))
        for name, idx in self.logged:
            if not _others_equal(t[idx], s[idx], r):
                for k, v in fn_items(t[idx]):  # type: ignore[arg-type]
                    old = fn_apply(s[idx], k)  # type: ignore[arg-type]
                    if k != r and v != old:
                        out.append(_mismatch(f"{name}[{format_value(k)}]", v, old,
                                             note=f"the step changes replica {format_value(k)}, the trace says replica {r} stepped"))
        mi = self.binding.messages_index
        if mi is not None:
            before = s[mi]
            expected_new = t[mi] - before  # type: ignore[operator]
            observed_new = frozenset(event.sent) - before  # type: ignore[operator]
            if expected_new != observed_new:
                out.append(_mismatch("sent", expected_new, observed_new))
        if event.writes is not None:
            expected_writes = self.spec_writes(s, t, r)
            if expected_writes is not None and expected_writes != event.writes:
                out.append(_mismatch("writes", expected_writes, event.writes,
                                     note="the durable writes the step completes before its sends, in order"))
        return out

    def diagnose(self, file: str, event: TraceEvent, candidates: list[State], summary: EventSummary,
                 preceding: tuple[EventSummary, ...]) -> Diagnostic:
        """Why no candidate state has a successor that agrees with ``event``."""
        candidates = self.full_states(candidates, event.step - 1)
        candidates = self.at_event_time(candidates, event)
        action = event.action
        args = self.binding.args(action, event.params)
        call = f"{action}({', '.join(summary_params(event))})"
        base: dict[str, Any] = dict(file=file, line=event.line, step=event.step, event=summary,
                                    candidates=len(candidates), preceding=preceding)
        pairs = list(self._successors(candidates, action, args))
        if not pairs:
            guards: dict[tuple[str, str], None] = {}
            for s in candidates[:DIAGNOSE_CANDIDATES]:
                _, failed = self.binding.site_for(action, args, s)
                for loc, text in failed:
                    guards[(str(loc), text)] = None
                if failed:
                    continue
                try:
                    for loc, text in self.model.explain_disabled(action, args, s):
                        guards[(str(loc), text)] = None
                except TlaError as exc:
                    guards[(str(exc.loc), f"(cannot explain: {exc.message})")] = None
            return Diagnostic(reason=f"{call} is not enabled in any candidate state",
                              disabled=tuple(DisabledGuard(loc, text) for loc, text in guards), **base)
        scored = [(self._step_mismatches(s, t, event), s, t) for s, t in pairs]
        scored.sort(key=lambda x: len(x[0]))
        closest = scored[0][0]
        never = [m.variable for m in closest if all(any(n.variable == m.variable for n in mm) for mm, _, _ in scored)]
        if never:
            shown = [m for m in closest if m.variable in never]
            reason = (f"no successor of {call} agrees with the trace: "
                      f"{', '.join(never)} match(es) no successor (replica {event.replica})")
        else:
            shown = closest
            reason = (f"no single successor of {call} agrees with all observed variables of replica "
                      f"{event.replica} (closest differs in {', '.join(m.variable for m in closest)})")
        s = scored[0][1]
        return Diagnostic(reason=reason, mismatches=tuple(shown),
                          disabled=self._observed_step_guards(action, args, s, event), **base)

    def _observed_step_guards(self, action: str, args: tuple[Value, ...], s: State,
                              event: TraceEvent) -> tuple[DisabledGuard, ...]:
        """Why the action cannot produce the observed step from ``s``: the spec evaluated with
        the primed variables fixed to what the trace shows (the stepping replica's logged values,
        the others unchanged, the network grown by what it sent), so that the reasons name the
        conjunct that fails and the IF / CASE decisions that led to it."""
        r = event.replica
        fixed: dict[int, Value] = {}
        for name, idx in self.logged:
            old = s[idx]
            graph = dict(fn_items(old))  # type: ignore[arg-type]
            graph[r] = event.state[name]
            fixed[idx] = make_fn(graph)
        mi = self.binding.messages_index
        if mi is not None:
            fixed[mi] = s[mi] | frozenset(event.sent)  # type: ignore[operator]
        try:
            reasons = self.model.explain_disabled(action, args, s, fixed)
        except TlaError as exc:
            return (DisabledGuard(str(exc.loc), f"(cannot explain: {exc.message})"),)
        return tuple(DisabledGuard(str(loc), text) for loc, text in dict.fromkeys(reasons))


def summary_params(event: TraceEvent, limit: int = 60) -> list[str]:
    """Short ``name = value`` texts of an event's parameters, for one-line reasons."""
    return [f"{k} = {abbreviate(v, limit)}" for k, v in event.params.items()]


def _mismatch(variable: str, expected: Value, observed: Value, note: str = "") -> VariableMismatch:
    diff = first_difference(expected, observed) if (is_large(expected) or is_large(observed)) else ""
    if note:
        diff = f"{note}; {diff}" if diff else note
    return VariableMismatch(variable=variable, expected=abbreviate(expected), observed=abbreviate(observed),
                            difference=diff)
