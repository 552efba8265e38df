"""The cases of one action: parts whose disjunction is the action, each a smaller question.

A step obligation ``IndInv /\\ A => IndInv'`` holds when it holds for every case ``A_k`` of a
split ``A = A_1 \\/ ... \\/ A_n``. The cases are built from the action's text so that their
disjunction is the action by construction:

* a conjunct ``x \\in D`` of the action's top conjunction, ``D`` a constant finite set and
  ``x`` reading no state variable (a message's destination): one case ``x = d /\\ A`` per
  element ``d`` of ``D`` (``A`` implies ``x \\in D``, so ``A`` is their disjunction);
* a conjunct ``B \\/ C`` (through LET): ``... /\\ B /\\ ...`` and ``... /\\ C /\\ ...``
  (``/\\`` distributes over ``\\/``);
* a conjunct ``IF c THEN B ELSE C``: ``c /\\ ... /\\ B`` and ``~c /\\ ... /\\ C``;
* a conjunct ``Op(a)`` applying a definition whose body splits: its cases, with the
  parameters bound to the arguments.

Only the first conjunct of a conjunction that splits is split (cases would multiply): one
that splits by its own text, else one that splits through a definition; at most ``depth``
levels of disjunction deep (an ``ELSE IF`` chain is one level). A case of
a handler for one destination leaves the other replicas' state alone, so more of it is
kept (frame substitution) and each question is smaller.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

import z3

from conformance.symbolic.encoding import (
    FALSE,
    SV,
    SSet,
    concrete_bool,
    concrete_key,
    conj,
    eq,
    negate,
)
from conformance.symbolic.frame import state_variables
from conformance.symbolic.translate import Env, StatePair, Translator
from conformance.tla import syntax as S
from conformance.tla.printer import render
from conformance.tla.semantics.scope import Ctx, DefEntry
from conformance.tla.values import format_value

Build = Callable[[Translator, StatePair, Env], z3.BoolRef]

DEPTH = 2


@dataclass(frozen=True)
class Case:
    """One case of an action: a label (``""``: the whole action) and its formula builder."""

    label: str
    build: Build


def cases(tr: Translator, e: S.Expr, ctx: Ctx, depth: int = DEPTH) -> list[Case]:
    """The cases of the action ``e`` (one, the whole action, when it does not split)."""
    return _cases(tr, e, ctx, depth, True)


def _whole(e: S.Expr, ctx: Ctx) -> Case:
    def build(tr: Translator, st: StatePair, env: Env) -> z3.BoolRef:
        return tr.boolean(e, env, ctx, st)
    return Case("", build)


def _join(a: str, b: str) -> str:
    return f"{a} {b}" if a and b else a or b


def _cases(tr: Translator, e: S.Expr, ctx: Ctx, depth: int, keyed: bool, unfold: bool = True) -> list[Case]:
    if isinstance(e, S.Let):
        inner = _cases(tr, e.body, ctx, depth, keyed, unfold)
        return [_whole(e, ctx)] if len(inner) == 1 else [Case(c.label, _in_let(e, ctx, c.build)) for c in inner]
    if depth > 0 and isinstance(e, S.Or):
        return [Case(_join(f"\\/{k + 1}", c.label), c.build)
                for k, item in enumerate(e.items) for c in _cases(tr, item, ctx, depth - 1, False)]
    if depth > 0 and isinstance(e, S.If):
        then = _cases(tr, e.then, ctx, depth - 1, False)
        other = _cases(tr, e.else_, ctx, depth if isinstance(e.else_, S.If) else depth - 1, False)
        return [Case(_join("THEN", c.label), _guarded(e.cond, ctx, True, c.build)) for c in then] + \
            [Case(_join("ELSE", c.label), _guarded(e.cond, ctx, False, c.build)) for c in other]
    if isinstance(e, S.And):
        return _conjunction(tr, e, ctx, depth, keyed)
    if depth > 0 and unfold and isinstance(e, (S.Name, S.OpApp)):
        entry = ctx.names.get(e.name)
        unit = entry.unit if isinstance(entry, DefEntry) else None
        args = e.args if isinstance(e, S.OpApp) else ()
        if isinstance(entry, DefEntry) and isinstance(unit, S.OpDef) and \
                not any(p.arity for p in unit.params) and len(args) == len(unit.params):
            inner = _cases(tr, unit.body, entry.ctx, depth, False)
            if len(inner) > 1:
                return [Case(c.label, _applied(unit, args, ctx, e.loc, c.build)) for c in inner]
    return [_whole(e, ctx)]


def _conjunction(tr: Translator, e: S.And, ctx: Ctx, depth: int, keyed: bool) -> list[Case]:
    items = list(e.items)
    key = _key(tr, items, ctx) if keyed else None
    split: tuple[int, list[Case]] | None = None
    for unfold in (False, True):  # a conjunct's own disjunction first, then a definition's
        for k, item in enumerate(items):
            if key is not None and k == key[0]:
                continue
            found = _cases(tr, item, ctx, depth, False, unfold)
            if len(found) > 1:
                split = (k, found)
                break
        if split is not None:
            break
    if key is None and split is None:
        return [_whole(e, ctx)]
    keys: list[tuple[str, S.Expr, SV] | None] = \
        [(f"{render(key[1])} = {label}", key[1], v) for label, v in key[2]] if key is not None else [None]
    inner: list[Case | None] = list(split[1]) if split is not None else [None]
    at = split[0] if split is not None else -1
    return [Case(_join(k[0] if k is not None else "", c.label if c is not None else ""),
                 _conjoined(items, ctx, k, at, c))
            for k in keys for c in inner]


def _conjoined(items: Sequence[S.Expr], ctx: Ctx, key: tuple[str, S.Expr, SV] | None, at: int,
               case: Case | None) -> Build:
    """``x = d /\\ items`` with the item at ``at`` replaced by ``case``."""
    def build(tr: Translator, st: StatePair, env: Env) -> z3.BoolRef:
        parts: list[z3.BoolRef] = []
        if key is not None:
            parts.append(eq(tr.eval(key[1], env, ctx, st), key[2]))
        for k, item in enumerate(items):
            b = case.build(tr, st, env) if k == at and case is not None else tr.boolean(item, env, ctx, st)
            if concrete_bool(b) is False:
                return FALSE
            parts.append(b)
        return conj(parts)
    return build


def _key(tr: Translator, items: Sequence[S.Expr], ctx: Ctx) -> tuple[int, S.Expr, list[tuple[str, SV]]] | None:
    """The first conjunct ``x \\in D`` with ``D`` a constant finite set and ``x`` reading no
    state variable: its index, ``x`` and the elements of ``D`` (labelled)."""
    for k, item in enumerate(items):
        if not (isinstance(item, S.OpApp) and item.name == "\\in" and len(item.args) == 2) or \
                ctx.names.get("\\in") is not None:
            continue
        x, d = item.args
        if state_variables(x, ctx) != frozenset():
            continue
        dom = constant_elements(tr, d, ctx)
        if dom is None:
            continue
        elements: list[tuple[str, SV]] = []
        seen: set[object] = set()
        for v in dom:
            value = concrete_key(v, tr.atoms)
            if value is None:
                elements = []
                break
            if value not in seen:
                seen.add(value)
                elements.append((format_value(value), v))
        if len(elements) > 1:
            return k, x, elements
    return None


def constant_elements(tr: Translator, d: S.Expr, ctx: Ctx) -> list[SV] | None:
    """The elements of ``d`` when it is a set that reads no state variable and whose
    members are all known (``Replicas``); None otherwise."""
    if state_variables(d, ctx) != frozenset():
        return None
    try:
        dom = tr.eval(d, {}, ctx, StatePair(None))
    except S.TlaError:  # it names a bound name (an operator's parameter): not constant
        return None
    if not isinstance(dom, SSet):
        return None
    elements: list[SV] = []
    for g, v in dom.slots:
        present = concrete_bool(g)
        if present is None:
            return None
        if present:
            elements.append(v)
    return elements


def _guarded(cond: S.Expr, ctx: Ctx, holds: bool, inner: Build) -> Build:
    def build(tr: Translator, st: StatePair, env: Env) -> z3.BoolRef:
        c = tr.boolean(cond, env, ctx, st)
        c = c if holds else negate(c)
        if concrete_bool(c) is False:
            return FALSE
        return conj([c, inner(tr, st, env)])
    return build


def _applied(unit: S.OpDef, args: Sequence[S.Expr], ctx: Ctx, loc: S.Loc, inner: Build) -> Build:
    """``inner`` (a case of ``unit``'s body) with ``unit``'s parameters bound to ``args``."""
    def build(tr: Translator, st: StatePair, env: Env) -> z3.BoolRef:
        return inner(tr, st, tr.bind_args(unit.params, args, loc, env, ctx, st))
    return build


def _in_let(e: S.Let, ctx: Ctx, inner: Build) -> Build:
    def build(tr: Translator, st: StatePair, env: Env) -> z3.BoolRef:
        return inner(tr, st, tr.let_env(e, env, ctx))
    return build


__all__ = ["DEPTH", "Build", "Case", "cases", "constant_elements"]
