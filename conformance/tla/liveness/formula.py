"""Temporal formulas taken apart into goals over atoms.

A PROPERTY conjunct is normalised (through definitions, conjunctions and bounded ``\\A``
over constant sets) to one of the forms below; each becomes a ``Goal`` describing its
violating behaviours. The SPECIFICATION's fairness conjuncts become ``Fair``
constraints. Anything else is refused with its location.

====================  ==================================================================
form                  violated by a fair behaviour that ...
====================  ==================================================================
``P`` (no temporal)   starts in a ``~P`` state
``[]P``               reaches a ``~P`` state
``<>P``               never reaches a ``P`` state
``[]<>P``             ends in a cycle of ``~P`` states
``<>[]P``             ends in a cycle through a ``~P`` state
``P ~> Q``            reaches ``P /\\ ~Q`` and then stays in ``~Q`` states
(``[](P => <>Q)``)
``[]<><<A>>_v``       ends in a cycle without an ``<<A>>_v`` step
``<><<A>>_v``         never takes an ``<<A>>_v`` step
``<>[][A]_v``         ends in a cycle through a step that is not ``[A]_v``
``WF_v(A)``           ends in a cycle of states where ``<<A>>_v`` is enabled, without an
                      ``<<A>>_v`` step
``SF_v(A)``           ends in a cycle through a state where ``<<A>>_v`` is enabled, without
                      an ``<<A>>_v`` step
====================  ==================================================================

(``WF``/``SF`` as a property: the fairness of an abstract specification that a refinement
check asks of the behaviours, such as ``R!Spec`` with ``R`` an instance.)

A conjunct ``F => G`` whose ``F`` is a conjunction of ``WF_v(A)`` / ``SF_v(A)`` (through
definitions and ``\\A`` over constant sets) checks each conjunct of ``G`` among the
behaviours that are also fair for ``F``; one whose ``F`` is a state predicate checks each
conjunct of ``G`` among the behaviours whose first state satisfies ``F``.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass, field, replace
from typing import Any

from conformance.tla import syntax as S
from conformance.tla.astwalk import walk
from conformance.tla.liveness.search import Fair, Goal
from conformance.tla.model import Model
from conformance.tla.syntax import Loc, TlaError, UnsupportedError
from conformance.tla.values import Value, sorted_values

Env = tuple[tuple[str, Value], ...]
"""Bound names (quantified variables, operator parameters) and their values."""


@dataclass(frozen=True)
class Atom:
    """Something evaluated on a state (``state``: a predicate, ``enabled``: ENABLED
    ``<<action>>_sub``) or on a step (``step``: ``<<action>>_sub``; ``not_box``: not
    ``[action]_sub``), with the names of ``env`` bound."""

    kind: str
    expr: S.Expr
    sub: S.Expr | None
    env: Env

    def key(self) -> tuple[Any, ...]:
        return (self.kind, id(self.expr), id(self.sub), self.env)


def _bit(i: int) -> Callable[[int], bool]:
    return lambda b: bool(b >> i & 1)


def _not_bit(i: int) -> Callable[[int], bool]:
    return lambda b: not b >> i & 1


def goal_for(form: str, p: int = 0, q: int = 0) -> Goal:
    """The goal of a normalised ``form`` whose atoms have bits ``p`` and ``q`` (state
    atoms, or edge atoms for the ``*_step`` forms)."""
    if form == "init":
        return Goal(trigger=_not_bit(p), initial_only=True)
    if form == "always":
        return Goal(trigger=_not_bit(p))
    if form == "eventually":
        return Goal(trigger=_not_bit(p), initial_only=True, stay=_not_bit(p))
    if form == "infinitely":
        return Goal(trigger=lambda b: True, stay=_not_bit(p))
    if form == "stable":
        return Goal(trigger=lambda b: True, visit_state=_not_bit(p))
    if form == "leadsto":
        return Goal(trigger=lambda b: bool(b >> p & 1) and not b >> q & 1, stay=_not_bit(q))
    if form == "infinitely_step":
        return Goal(trigger=lambda b: True, cycle_edge=_not_bit(p))
    if form == "stable_step":
        return Goal(trigger=lambda b: True, visit_edge=_bit(p))
    if form == "eventually_step":
        return Goal(trigger=lambda b: True, initial_only=True, path_edge=_not_bit(p))
    if form == "weak_fairness":  # p: ENABLED <<A>>_v (a state atom), q: <<A>>_v (an edge atom)
        return Goal(trigger=lambda b: True, stay=_bit(p), cycle_edge=_not_bit(q))
    if form == "strong_fairness":
        return Goal(trigger=lambda b: True, visit_state=_bit(p), cycle_edge=_not_bit(q))
    raise ValueError(f"unknown form {form}")


FORMS = ("init", "always", "eventually", "infinitely", "stable", "leadsto", "infinitely_step", "stable_step",
         "eventually_step", "weak_fairness", "strong_fairness")


@dataclass(frozen=True)
class FairAtoms:
    """``WF_v(A)`` (strong=False) or ``SF_v(A)``: the atoms ``ENABLED <<A>>_v`` and ``<<A>>_v``."""

    strong: bool
    enabled: Atom
    taken: Atom

    def constraint(self, table: AtomTable) -> Fair:
        return Fair(self.strong, table.bit(self.enabled), table.bit(self.taken))


@dataclass(frozen=True)
class Obligation:
    """One property conjunct to check: its name, normalised form and atoms, and the
    fairness it assumes besides the specification's (``F`` of ``F => G``)."""

    prop: str
    form: str
    atoms: tuple[Atom, ...]
    loc: Loc
    fair: tuple[FairAtoms, ...] = ()
    start: Atom | None = None  # P of ``P => G``: only behaviours starting in a P state


@dataclass
class AtomTable:
    """The state and edge atoms in use, each with its bit number."""

    state: list[Atom] = field(default_factory=list)
    edge: list[Atom] = field(default_factory=list)
    _index: dict[tuple[Any, ...], int] = field(default_factory=dict)

    def bit(self, atom: Atom) -> int:
        key = atom.key()
        hit = self._index.get(key)
        if hit is None:
            table = self.edge if atom.kind in ("step", "not_box") else self.state
            hit = self._index[key] = len(table)
            table.append(atom)
        return hit


_TEMPORAL_OPS = ("[]", "<>", "~>")


class Normaliser:
    """Takes PROPERTY and fairness formulas of ``model`` apart."""

    def __init__(self, model: Model) -> None:
        self.model = model
        self._temporal_defs: dict[str, bool] = {}

    # helpers ------------------------------------------------------------------------------

    def _definition(self, e: S.Expr) -> S.OpDef | None:
        if isinstance(e, (S.Name, S.OpApp)) and self.model.has_definition(e.name):
            unit = self.model.definition(e.name)
            args = e.args if isinstance(e, S.OpApp) else ()
            if isinstance(unit, S.OpDef) and len(unit.params) == len(args):
                return unit
        return None

    def is_temporal(self, e: S.Expr, depth: int = 0) -> bool:
        """Whether ``e`` holds a temporal operator, fairness or ``[A]_v``, also through definitions."""
        if depth > 50:
            raise TlaError("definitions nest too deeply in a temporal formula", e.loc)
        for n in walk(e):
            if isinstance(n, (S.Fairness, S.ActionBox)):
                return True
            if isinstance(n, S.Temporal) and n.op in _TEMPORAL_OPS:
                return True
            unit = self._definition(n)
            if unit is not None:
                hit = self._temporal_defs.get(unit.name)
                if hit is None:
                    self._temporal_defs[unit.name] = False  # a recursive definition is not temporal
                    hit = self._temporal_defs[unit.name] = self.is_temporal(unit.body, depth + 1)
                if hit:
                    return True
        return False

    def _value(self, e: S.Expr, env: Env) -> Value:
        fn, _ = self.model.bound_function(e, [n for n, _ in env])
        return fn((), None, tuple(v for _, v in env))

    def peel(self, e: S.Expr, env: Env, depth: int = 0) -> tuple[S.Expr, Env]:
        """``e`` with references to temporal definitions replaced by their bodies."""
        while True:
            if depth > 50:
                raise TlaError("definitions nest too deeply in a temporal formula", e.loc)
            unit = self._definition(e)
            if unit is None or not self.is_temporal(unit.body):
                return e, env
            args = e.args if isinstance(e, S.OpApp) else ()
            for p in unit.params:
                if p.arity:
                    raise UnsupportedError(f"temporal operator {unit.name} with operator parameters", e.loc)
            env = tuple((p.name, self._value(a, env)) for p, a in zip(unit.params, args, strict=True))
            e = unit.body
            depth += 1

    def conjuncts(self, e: S.Expr, env: Env = ()) -> Iterator[tuple[S.Expr, Env]]:
        """The conjuncts of ``e``, through definitions and ``\\A x \\in S`` over constant sets."""
        e, env = self.peel(e, env)
        if isinstance(e, S.And):
            for item in e.items:
                yield from self.conjuncts(item, env)
            return
        if isinstance(e, S.Quant) and e.kind == "A" and self.is_temporal(e.body):
            yield from self._expand(e, e.bounds, env)
            return
        if isinstance(e, S.If) and self.is_temporal(e) and not self.is_temporal(e.cond):
            # IF P THEN F ELSE G, P read in the first state: (P => F) /\ (~P => G)
            yield S.OpApp(e.loc, "=>", (e.cond, e.then)), env
            yield S.OpApp(e.loc, "=>", (S.OpApp(e.cond.loc, "~", (e.cond,)), e.else_)), env
            return
        yield e, env

    def _expand(self, q: S.Quant, bounds: tuple[S.Bound, ...], env: Env) -> Iterator[tuple[S.Expr, Env]]:
        if not bounds:
            yield from self.conjuncts(q.body, env)
            return
        b = bounds[0]
        if b.tuple_pattern:
            raise UnsupportedError("a tuple pattern in a quantifier over temporal formulas", b.loc)
        domain = self._value(b.domain, env)
        if not isinstance(domain, frozenset):
            raise TlaError("the bound of a quantifier over temporal formulas must be a finite set", b.loc)
        for combo in _tuples(sorted_values(domain), len(b.names)):
            yield from self._expand(q, bounds[1:], env + tuple(zip(b.names, combo, strict=True)))

    def state_level(self, e: S.Expr, env: Env) -> bool:
        if self.is_temporal(e):
            return False
        _, primed = self.model.bound_function(e, [n for n, _ in env])
        return not primed

    # fairness -----------------------------------------------------------------------------

    def fairness(self, e: S.Expr, table: AtomTable) -> list[Fair]:
        return [f.constraint(table) for f in self.fair_atoms(e)]

    def fair_atoms(self, e: S.Expr, env: Env = ()) -> list[FairAtoms]:
        out: list[FairAtoms] = []
        for c, cenv in self.conjuncts(e, env):
            if not isinstance(c, S.Fairness):
                raise UnsupportedError("a fairness conjunct of the specification must be WF_v(A) or SF_v(A), "
                                       "possibly under \\A", c.loc)
            out.append(FairAtoms(c.kind == "SF", Atom("enabled", c.action, c.sub, cenv),
                                 Atom("step", c.action, c.sub, cenv)))
        return out

    def _only_fairness(self, e: S.Expr, env: Env) -> bool:
        return all(isinstance(c, S.Fairness) for c, _ in self.conjuncts(e, env))

    # properties ----------------------------------------------------------------------------

    def obligations(self, prop: str, e: S.Expr) -> list[Obligation]:
        out: list[Obligation] = []
        for c, env in self.conjuncts(e):
            if isinstance(c, S.OpApp) and c.name == "=>" and len(c.args) == 2 and \
                    self._only_fairness(c.args[0], env):
                fair = tuple(self.fair_atoms(c.args[0], env))
                out.extend(replace(self._obligation(prop, g, genv), fair=fair)
                           for g, genv in self.conjuncts(c.args[1], env))
            elif isinstance(c, S.OpApp) and c.name == "=>" and len(c.args) == 2 and \
                    self.state_level(c.args[0], env) and self.is_temporal(c.args[1]):
                # P => G, P a state predicate: P holds or not in the first state
                start = Atom("state", c.args[0], None, env)
                out.extend(replace(self._obligation(prop, g, genv), start=start)
                           for g, genv in self.conjuncts(c.args[1], env))
            else:
                out.append(self._obligation(prop, c, env))
        return out

    def _obligation(self, prop: str, c: S.Expr, env: Env) -> Obligation:
        def state(x: S.Expr, x_env: Env) -> Atom | None:
            return Atom("state", x, None, x_env) if self.state_level(x, x_env) else None

        def make(form: str, *atoms: Atom | None) -> Obligation | None:
            if any(a is None for a in atoms):
                return None
            return Obligation(prop, form, tuple(a for a in atoms if a is not None), c.loc)

        found: Obligation | None = None
        if isinstance(c, S.Fairness):
            found = make("strong_fairness" if c.kind == "SF" else "weak_fairness",
                         Atom("enabled", c.action, c.sub, env), Atom("step", c.action, c.sub, env))
        elif not self.is_temporal(c):
            found = make("init", state(c, env))
        elif isinstance(c, S.Temporal) and c.op == "[]":
            inner, ienv = self.peel(c.args[0], env)
            if isinstance(inner, S.Temporal) and inner.op == "<>":
                x, xenv = self.peel(inner.args[0], ienv)
                if isinstance(x, S.ActionBox) and not x.box:
                    found = make("infinitely_step", Atom("step", x.action, x.sub, xenv))
                else:
                    found = make("infinitely", state(x, xenv))
            elif isinstance(inner, S.OpApp) and inner.name == "=>" and len(inner.args) == 2:
                rhs, renv = self.peel(inner.args[1], ienv)
                if isinstance(rhs, S.Temporal) and rhs.op == "<>":
                    q, qenv = self.peel(rhs.args[0], renv)
                    found = make("leadsto", state(inner.args[0], ienv), state(q, qenv))
            elif not self.is_temporal(inner):
                found = make("always", state(inner, ienv))
        elif isinstance(c, S.Temporal) and c.op == "<>":
            inner, ienv = self.peel(c.args[0], env)
            if isinstance(inner, S.Temporal) and inner.op == "[]":
                x, xenv = self.peel(inner.args[0], ienv)
                if isinstance(x, S.ActionBox) and x.box:
                    found = make("stable_step", Atom("not_box", x.action, x.sub, xenv))
                else:
                    found = make("stable", state(x, xenv))
            elif isinstance(inner, S.ActionBox) and not inner.box:
                found = make("eventually_step", Atom("step", inner.action, inner.sub, ienv))
            else:
                found = make("eventually", state(inner, ienv))
        elif isinstance(c, S.Temporal) and c.op == "~>":
            q, qenv = self.peel(c.args[1], env)
            if isinstance(q, S.Temporal) and q.op == "<>":
                q, qenv = self.peel(q.args[0], qenv)
            found = make("leadsto", state(c.args[0], env), state(q, qenv))
        if found is None:
            raise UnsupportedError(
                f"PROPERTY {prop}: this temporal formula is not supported (supported: P, []P, <>P, "
                "[]<>P, <>[]P, P ~> Q, [](P => <>Q), []<><<A>>_v, <><<A>>_v, <>[][A]_v, [][A]_v, "
                "WF_v(A) and SF_v(A), P and Q state predicates, possibly under \\A x \\in S, and F => G with F a state predicate or a "
                "conjunction of WF_v(A) and SF_v(A))", c.loc)
        return found


def _tuples(values: list[Value], n: int) -> Iterator[tuple[Value, ...]]:
    if n == 0:
        yield ()
        return
    for v in values:
        for rest in _tuples(values, n - 1):
            yield (v, *rest)
