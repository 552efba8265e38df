"""The link between a trace and a loaded spec: variable indices, action parameters, constants.

A ``SpecBinding`` is built once per (spec, constants) and checks that a trace's names fit
the spec (a trace for another spec, an unknown action or variable is bad input).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

from conformance.tla.printer import render
from conformance.tla.syntax import ConstantDecl, Loc, Module, OpDef
from conformance.tla.syntax import Name as NameExpr
from conformance.tla.values import Value
from conformance.validate.coverage import Disjunct

State = tuple[Value, ...]
NETWORK = "messages"  # the spec variable that is the network (sets of messages, never emptied)


class SpecModel(Protocol):
    """What the validator needs of ``conformance.tla.model.Model``."""

    module: Module
    variables: tuple[str, ...]

    def has_definition(self, name: str) -> bool: ...
    def definition(self, name: str) -> Any: ...
    def init_states(self, init: Any = "Init") -> Iterator[State]: ...
    def action_successors(self, action: str, args: Sequence[Value], state: State,
                          checks: Mapping[int, Callable[[Value], bool]] | None = None) -> Iterator[State]: ...
    def explain_disabled(self, action: str, args: Sequence[Value], state: State,
                         successor: Mapping[int, Value] | None = None) -> list[tuple[Loc, str]]: ...
    def eval_state(self, what: Any, state: State) -> Value: ...
    def eval_constant(self, what: Any) -> Value: ...
    def variables_read(self, what: Any) -> frozenset[int]: ...


class BindingError(Exception):
    """A trace that does not fit the spec's names (bad input); the caller adds file and line."""


def declared_constants(module: Module) -> list[str]:
    """Names of the CONSTANTs the module declares (in order)."""
    return [u.name for u in module.units if isinstance(u, ConstantDecl)]


@dataclass
class SpecBinding:
    """A loaded model and what the validator looks up per step."""

    model: SpecModel
    spec_name: str
    var_index: dict[str, int]
    messages_index: int | None
    action_params: dict[str, tuple[str, ...]]  # action of Next -> its parameter names
    sites: dict[str, list[Disjunct]]  # action -> its call sites in Next

    @classmethod
    def of(cls, model: SpecModel, disjuncts: Sequence[Disjunct]) -> SpecBinding:
        params: dict[str, tuple[str, ...]] = {}
        sites: dict[str, list[Disjunct]] = {}
        for d in disjuncts:
            if d.action not in params:
                unit = model.definition(d.action)
                params[d.action] = tuple(p.name for p in unit.params) if isinstance(unit, OpDef) else ()
            sites.setdefault(d.action, []).append(d)
        index = {v: i for i, v in enumerate(model.variables)}
        return cls(
            model=model, spec_name=model.module.name, var_index=index,
            messages_index=index.get(NETWORK), action_params=params, sites=sites,
        )

    def site_for(self, action: str, args: Sequence[Value], state: State,
                 in_network: Callable[[Value], bool] | None = None) -> tuple[Disjunct | None, list[tuple[Loc, str]]]:
        """The first call site of ``action`` in Next whose ``\\E`` bounds hold for ``args`` in
        ``state``; otherwise None and the bounds that failed (location, text). With
        ``in_network``, a bound that is the network variable itself is decided by it (the
        validator keeps the network outside the states)."""
        failed: list[tuple[Loc, str]] = []
        for site in self.sites[action]:
            ok = True
            for arg, dom in zip(args, site.domains, strict=False):
                if dom is None:
                    continue
                name, expr = dom
                if in_network is not None and isinstance(expr, NameExpr) and expr.name == NETWORK:
                    member = in_network(arg)
                else:
                    member = arg in self.model.eval_state(expr, state)  # type: ignore[operator]
                if not member:
                    failed.append((expr.loc, f"{name} \\in {render(expr)}"))
                    ok = False
                    break
            if ok:
                return site, []
        return None, failed

    def check_variables(self, names: Sequence[str]) -> list[tuple[str, int]]:
        """(name, index) of the logged per-replica variables; unknown names are bad input."""
        unknown = [n for n in names if n not in self.var_index]
        if unknown:
            raise BindingError(
                f"the trace logs variable(s) {unknown} that {self.spec_name} does not declare "
                f"(a trace for another spec?); the spec's variables are {list(self.var_index)}"
            )
        if NETWORK in names:
            raise BindingError(f'"{NETWORK}" is the network, not a per-replica variable')
        return [(n, self.var_index[n]) for n in names]

    def args(self, action: str, params: Mapping[str, Value]) -> tuple[Value, ...]:
        """The action's arguments in parameter order; unknown actions and parameter names are bad input."""
        names = self.action_params.get(action)
        if names is None:
            raise BindingError(
                f"unknown action {action!r}; the actions of Next are {sorted(self.action_params)}"
            )
        if set(params) != set(names):
            raise BindingError(
                f"action {action} takes parameter(s) {list(names)}, the event gives {sorted(params)}"
            )
        return tuple(params[n] for n in names)


def spec_constants(
    declared: Sequence[str], header: Mapping[str, Value], override: Mapping[str, Value], spec: Path | str
) -> dict[str, Value]:
    """The constants for one trace: the header's, overridden by ``--config``; all must be declared."""
    foreign = sorted(set(header) - set(declared))
    if foreign:
        raise BindingError(
            f"the header gives constant(s) {foreign} that {Path(spec).name} does not declare (a trace for another spec?)"
        )
    merged = {**header, **override}
    missing = [c for c in declared if c not in merged]
    if missing:
        raise BindingError(f"the header lacks value(s) for the spec's constant(s) {missing}")
    return merged
