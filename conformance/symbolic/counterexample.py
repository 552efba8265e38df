"""Counterexamples back from z3: the engine's values, TLA+ text and ITF.

A z3 model assigns the fresh constants of a symbolic state; ``decode`` reads the state
back as engine values (sets without duplicates, sequences cut at their length, functions
normalised as the engine does), so that the explicit engine can evaluate it.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import z3

from conformance.symbolic.encoding import SV, Atom, Atoms, SFun, SSeq, SSet
from conformance.tla import itf
from conformance.tla.model import State
from conformance.tla.values import Value, format_value, make_fn


def decode(v: SV, m: z3.ModelRef, atoms: Atoms) -> Value:
    """The engine value of ``v`` under the z3 model ``m``."""
    if isinstance(v, z3.BoolRef):
        return z3.is_true(m.eval(v, model_completion=True))
    if isinstance(v, z3.ArithRef):
        return m.eval(v, model_completion=True).as_long()
    if isinstance(v, Atom):
        code = m.eval(v.term, model_completion=True).as_long()
        if not 0 <= code < len(atoms.value):
            raise ValueError(f"string code {code} outside the table")
        return atoms.value[code]
    if isinstance(v, SFun):
        return make_fn({k: decode(x, m, atoms) for k, x in zip(v.keys, v.vals, strict=True)})
    if isinstance(v, SSeq):
        n = m.eval(v.length, model_completion=True).as_long()
        if n > v.cap or n < 0:
            raise ValueError(f"sequence length {n} outside 0..{v.cap}")
        return tuple(decode(x, m, atoms) for x in v.items[:n])
    if isinstance(v, SSet):
        return frozenset(decode(x, m, atoms) for g, x in v.slots
                         if z3.is_true(m.eval(g, model_completion=True)))
    raise TypeError(type(v))


def decode_state(values: Mapping[str, SV], variables: Sequence[str], m: z3.ModelRef,
                 atoms: Atoms) -> State:
    return tuple(decode(values[name], m, atoms) for name in variables)


def state_text(state: State, variables: Sequence[str], previous: State | None = None) -> str:
    """A state as a TLA+ conjunction (only the variables that changed, after ``previous``)."""
    lines = []
    for i, name in enumerate(variables):
        if previous is None or previous[i] != state[i]:
            lines.append(f"/\\ {name} = {format_value(state[i])}")
    return "\n".join(lines) if lines else "(no variable changed)"


def write_itf(path: Path, variables: Sequence[str], states: Sequence[State], meta: dict[str, Any],
              actions: Sequence[str]) -> None:
    dicts = [dict(zip(variables, s, strict=True)) for s in states]
    itf.write_trace(path, variables, dicts, meta, [{"action": a} for a in actions])
