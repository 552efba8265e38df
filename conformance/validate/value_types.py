"""Trace values against the spec's ``@type`` annotations: a value of the wrong shape is bad input.

A string where the spec's variable holds an integer, a sequence where it holds a set, a
message record missing a field: no state of the spec has such a value, but reporting it as a
violation (REJECT) would blame the implementation for what is a broken trace. The validator
checks every logged value against the type the spec declares (per-replica variables
``var : Int -> T`` give ``T``; ``messages : Set(M)`` gives the type of a sent message; an
action parameter bound by ``\\E p \\in S`` in ``Next`` gives the element type of ``S``) and
reports a mismatch as ERROR naming the field. Values the spec does not type are not checked.
"""

from __future__ import annotations

from collections.abc import Mapping

from conformance.apalache_traces import SpecTypes, TraceModuleError
from conformance.tla.apalache_types import (
    TFun,
    TSet,
    Type,
    ValueTypeChecker,
    describe_mismatch,
)
from conformance.tla.syntax import Module, Unit
from conformance.tla.values import Value
from conformance.validate.coverage import Disjunct


class TraceTypes:
    """The types a trace's values must have, read from the spec's annotations."""

    def __init__(self, module: Module, definitions: Mapping[str, Unit], disjuncts: list[Disjunct]) -> None:
        types = SpecTypes.of(module)
        self.replica: dict[str, Type] = {
            name: t.res for name, t in types.variables.items() if isinstance(t, TFun)
        }
        messages = types.variables.get("messages")
        self.message: Type | None = messages.elem if isinstance(messages, TSet) else None
        self.params: dict[tuple[str, str], Type] = {}
        for d in disjuncts:
            for name, dom in zip(d.params, d.domains, strict=False):
                if dom is None:
                    continue
                try:
                    self.params[(d.action, name)] = types.element_type(dom[1], definitions)
                except (TraceModuleError, KeyError):
                    continue
        self._checker = ValueTypeChecker()
        self._last: dict[tuple[int, str], Value] = {}

    def _check(self, value: Value, t: Type, field: str, earlier: Value | None = None) -> str | None:
        bad = self._checker.mismatch(value, t, earlier)
        return None if bad is None else f"field {field}: {describe_mismatch(bad)}"

    def check_state(self, replica: int, state: Mapping[str, Value], path: str) -> str | None:
        """The first mismatch of a replica's logged variables, or None (unchanged values are
        recognised by identity and not checked again; a grown log has its new entries checked,
        see ``ValueTypeChecker``)."""
        for name, value in state.items():
            t = self.replica.get(name)
            earlier = self._last.get((replica, name))
            if t is None or earlier is value:
                continue
            problem = self._check(value, t, f"{path}.{name}", earlier)
            if problem is not None:
                return problem
            self._last[(replica, name)] = value
        return None

    def check_event(self, action: str, params: Mapping[str, Value], sent: tuple[Value, ...]) -> str | None:
        """The first mismatch of an event's parameters and sent messages, or None."""
        for name, value in params.items():
            t = self.params.get((action, name))
            if t is not None:
                problem = self._check(value, t, f"params.{name}")
                if problem is not None:
                    return problem
        if self.message is not None:
            for i, m in enumerate(sent):
                problem = self._check(m, self.message, f"sent[{i}]")
                if problem is not None:
                    return problem
        return None
