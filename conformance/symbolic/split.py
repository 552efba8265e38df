"""The disjuncts of ``Next``: one per action, for per-action obligations and figures.

``Next`` splits at ``\\/``, through the definitions it applies (``Receive(m)`` whose body is
a disjunction splits into its handlers) and through ``\\E`` (``\\E x \\in S : A \\/ B`` is
``(\\E x \\in S : A) \\/ (\\E x \\in S : B)``; such an ``\\E`` over a set of the state is
translated with one witness when the translator keeps witnesses, ``witness.py``). Each
disjunct is named after the innermost operator it applies, as TLC names actions. Each
disjunct also carries its cases (``cases.py``): parts whose disjunction is it, for an
obligation decided case by case.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import z3

from conformance.symbolic.cases import Build, Case, cases
from conformance.symbolic.encoding import conj, disj
from conformance.symbolic.translate import Env, StatePair, Translator
from conformance.symbolic.witness import witnessed
from conformance.tla import syntax as S
from conformance.tla.compiler import Ctx, DefEntry
from conformance.tla.conjuncts import named_conjuncts
from conformance.tla.syntax import Loc


@dataclass(frozen=True)
class Disjunct:
    """One action of ``Next``: its name, where it is defined, its formula builder and its
    cases (empty: it does not split; else their disjunction is the action)."""

    name: str
    loc: Loc
    build: Build
    cases: tuple[Case, ...] = ()

    def formula(self, tr: Translator, st: StatePair, case: int = -1) -> z3.BoolRef:
        """The action (``case`` >= 0: that case of it) between the states of ``st``."""
        return (self.build if case < 0 else self.cases[case].build)(tr, st, {})


def split_action(tr: Translator, name: str) -> list[Disjunct]:
    """The disjuncts of the action definition ``name`` of the root module."""
    unit, ctx = tr.definition(name)
    if unit.params:
        raise S.TlaError(f"{name} must be an action without parameters", unit.loc)
    found = _split(tr, unit.body, ctx, name, unit.loc, 0)
    seen: dict[str, int] = {}
    out = []
    for d in found:
        k = seen.get(d.name, 0)
        seen[d.name] = k + 1
        out.append(d if k == 0 else Disjunct(f"{d.name}#{k + 1}", d.loc, d.build, d.cases))
    return out


def _leaf(tr: Translator, e: S.Expr, ctx: Ctx, label: str, loc: Loc) -> list[Disjunct]:
    def build(tr: Translator, st: StatePair, env: Env) -> z3.BoolRef:
        return tr.boolean(e, env, ctx, st)
    found = cases(tr, e, ctx)
    return [Disjunct(label, loc, build, tuple(found) if len(found) > 1 else ())]


def _split(tr: Translator, e: S.Expr, ctx: Ctx, label: str, loc: Loc, depth: int) -> list[Disjunct]:
    if depth > 30:
        return _leaf(tr, e, ctx, label, loc)
    if isinstance(e, S.Or):
        out: list[Disjunct] = []
        for item in e.items:
            out.extend(_split(tr, item, ctx, label, loc, depth + 1))
        return out
    if isinstance(e, S.Quant) and e.kind == "E":
        inner = _split(tr, e.body, ctx, label, loc, depth + 1)
        return [_under_exists(e.bounds, ctx, d) for d in inner]
    if isinstance(e, (S.Name, S.OpApp)):
        entry = ctx.names.get(e.name)
        if isinstance(entry, DefEntry) and isinstance(entry.unit, S.OpDef) and \
                not any(p.arity for p in entry.unit.params):
            unit = entry.unit
            args = e.args if isinstance(e, S.OpApp) else ()
            if len(args) == len(unit.params):
                inner = _split(tr, unit.body, entry.ctx, unit.name, unit.loc, depth + 1)
                return [_applied(unit, args, ctx, e.loc, d) for d in inner]
    return _leaf(tr, e, ctx, label, loc)


def _under_exists(bounds: Sequence[S.Bound], ctx: Ctx, d: Disjunct) -> Disjunct:
    def wrap(body: Build) -> Build:
        def build(tr: Translator, st: StatePair, env: Env) -> z3.BoolRef:
            chosen = witnessed(tr, bounds, ctx, st, env)
            if chosen is not None:
                return conj([chosen[0], body(tr, st, chosen[1])])
            return disj([z3.And(g, body(tr, st, inner)) for g, inner in tr.bindings(bounds, env, ctx, st)])
        return build
    return Disjunct(d.name, d.loc, wrap(d.build), tuple(Case(c.label, wrap(c.build)) for c in d.cases))


def _applied(unit: S.OpDef, args: Sequence[S.Expr], ctx: Ctx, loc: Loc, d: Disjunct) -> Disjunct:
    def wrap(body: Build) -> Build:
        def build(tr: Translator, st: StatePair, env: Env) -> z3.BoolRef:
            return body(tr, st, tr.bind_args(unit.params, args, loc, env, ctx, st))
        return build
    return Disjunct(d.name, d.loc, wrap(d.build), tuple(Case(c.label, wrap(c.build)) for c in d.cases))


def conjuncts(tr: Translator, name: str) -> list[tuple[str, S.Expr, Ctx]]:
    """The named conjuncts of a state predicate (through parameterless definitions), to
    say which one a counterexample violates."""
    unit, ctx = tr.definition(name)
    return named_conjuncts(unit.body, ctx, name)


__all__ = ["Disjunct", "conj", "conjuncts", "split_action"]
