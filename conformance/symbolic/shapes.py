"""Fresh states of bounded size: the shape of each variable, from a sample state and the
variables' ``@type:`` annotations.

Functions keep the domain they have in the sample (an initial state): the symbolic
checks cover the states whose functions have those domains. Sequences hold at most
``seq_bound`` items and sets at most ``set_bound`` distinct elements (per variable
overrides in ``bounds``); these bounds, with the cfg's constants and CONSTRAINTs, are the
state space a proof covers.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

import z3

from conformance.symbolic.encoding import SV, Atoms, Shape, conj, fresh, well_formed
from conformance.tla import apalache_types as T
from conformance.tla.lint import collect_modules, declared_types
from conformance.tla.model import Model, State
from conformance.tla.syntax import Expr, Loc, TlaError, UnsupportedError, VariableDecl
from conformance.tla.values import Fn, ModelValue, Value, fn_items


@dataclass(frozen=True)
class Bounds:
    seq_bound: int = 3
    set_bound: int = 4
    per_variable: Mapping[str, int] = field(default_factory=dict)

    def widened(self, extra: int) -> Bounds:
        """Room for what one step can add (the next state of an induction step): a
        sequence may become the concatenation of two bounded ones and one more item, a
        set may gain ``extra`` elements."""
        return Bounds(2 * self.seq_bound + 1, self.set_bound + extra,
                      {k: v + extra for k, v in self.per_variable.items()})


def _var_locs(model: Model) -> dict[str, Loc]:
    out = {}
    for mod in collect_modules(model.loader, model.module):
        for u in mod.units:
            if isinstance(u, VariableDecl):
                out[u.name] = u.loc
    return out


def state_shapes(model: Model, sample: State, bounds: Bounds) -> dict[str, Shape]:
    """The shape of every variable, from ``sample`` and the annotations."""
    types = declared_types(collect_modules(model.loader, model.module)).variables
    locs = _var_locs(model)
    out = {}
    for name, value in zip(model.variables, sample, strict=True):
        top = bounds.per_variable.get(name)
        try:
            out[name] = _shape(value, types.get(name), bounds, top)
        except _NoShape as exc:
            raise UnsupportedError(
                f"cannot size variable {name} for the symbolic translation ({exc}): "
                "add an @type: annotation", locs.get(name)) from None
    return out


class _NoShape(Exception):
    pass


def _shape(v: Value | None, t: T.Type | None, bounds: Bounds, top: int | None = None) -> Shape:
    if isinstance(t, T.TAlias):
        t = None
    if isinstance(v, bool) or (isinstance(t, T.TPrim) and t.name == "Bool"):
        return Shape("bool")
    if isinstance(v, int) or (isinstance(t, T.TPrim) and t.name == "Int"):
        return Shape("int")
    if isinstance(v, (str, ModelValue)) or isinstance(t, (T.TConst,)) or \
            (isinstance(t, T.TPrim) and t.name == "Str"):
        return Shape("atom")
    if isinstance(t, T.TSet) or isinstance(v, frozenset):
        elem_t = t.elem if isinstance(t, T.TSet) else None
        sample = next(iter(v), None) if isinstance(v, frozenset) else None
        if sample is None and elem_t is None:
            raise _NoShape("an empty set of unknown elements")
        size = top if top is not None else bounds.set_bound
        if isinstance(v, frozenset):
            size = max(size, len(v))
        return Shape("set", elems=(_shape(sample, elem_t, bounds),), size=size)
    if isinstance(t, T.TSeq):
        sample = v[0] if isinstance(v, tuple) and v else None
        size = top if top is not None else bounds.seq_bound
        if isinstance(v, tuple):
            size = max(size, len(v))
        return Shape("seq", elems=(_shape(sample, t.elem, bounds),), size=size)
    if isinstance(v, tuple):
        items = t.items if isinstance(t, T.TTuple) else None
        res = t.res if isinstance(t, T.TFun) else None
        return Shape("tuple", elems=tuple(
            _shape(x, items[i] if items else res, bounds) for i, x in enumerate(v)))
    if isinstance(v, Fn):
        fields = dict(t.fields) if isinstance(t, T.TRec) else {}
        res = t.res if isinstance(t, T.TFun) else None
        keys = []
        elems = []
        for k, x in fn_items(v):
            keys.append(k)
            elems.append(_shape(x, fields.get(k, res) if isinstance(k, str) else res, bounds))
        return Shape("fun", keys=tuple(keys), elems=tuple(elems))
    if isinstance(t, T.TRec):
        return Shape("fun", keys=tuple(n for n, _ in t.fields),
                     elems=tuple(_shape(None, ft, bounds) for _, ft in t.fields))
    if isinstance(t, T.TTuple):
        return Shape("tuple", elems=tuple(_shape(None, it, bounds) for it in t.items))
    if isinstance(t, T.TFun):
        raise _NoShape("a function whose domain no sample shows")
    raise _NoShape("no sample value and no usable type")


@dataclass
class SymbolicState:
    """One fresh state: a value per variable and the constraints of its shape."""

    values: dict[str, SV]
    wellformed: z3.BoolRef


def fresh_state(shapes: Mapping[str, Shape], tag: str, atom_terms: list[z3.ArithRef]) -> SymbolicState:
    values = {name: fresh(shape, f"{tag}.{name}", atom_terms) for name, shape in shapes.items()}
    wf = conj([well_formed(values[n], s) for n, s in shapes.items()])
    return SymbolicState(values, wf)


def atom_range(atom_terms: list[z3.ArithRef], atoms: Atoms) -> z3.BoolRef:
    """Every fresh string or model value is one the spec or the cfg names."""
    n = len(atoms.value)
    return conj([z3.And(t >= 0, t < n) for t in atom_terms])


def sample_state(model: Model, init: str | Expr) -> State:
    """One initial state (computed by the explicit engine), to size the variables."""
    for s in model.init_states(init):
        return s
    raise TlaError(f"the initial predicate {init if isinstance(init, str) else 'Init'} has no state")


__all__ = ["Bounds", "SymbolicState", "atom_range", "fresh_state", "sample_state", "state_shapes"]
