"""Conjuncts that quantify over the elements of a set-valued state variable.

A step obligation for ``\\A x \\in V : P(x)`` (``V`` a state variable, e.g. ``messages``)
asks about every element of ``V'``.  Each is an element of ``V`` or one the step added, so
the obligation is the conjunction of two smaller ones:

* old elements: ``P'(x)`` for each ``x \\in V`` still in ``V'``; when the step provably
  keeps every variable ``P`` reads other than ``V`` (and ``P`` does not read ``V``),
  ``P'(x)`` is ``P(x)``, which the invariant gives in the first state;
* new elements: ``P'(x)`` for each ``x \\in V'`` that is not in ``V``.

Asking them one element (slot of the set's encoding) at a time spares the solver from
matching every element of ``V'`` with one of ``V``, which is what makes the whole-set
question hard.  ``parts`` finds that shape through parameterless definitions, a chain of
``\\A``, conjunctions and premises that read no state variable (``C => ...``).
"""

from __future__ import annotations

from dataclasses import dataclass

from conformance.symbolic.frame import state_variables
from conformance.tla import syntax as S
from conformance.tla.astwalk import walk
from conformance.tla.semantics.scope import Ctx, DefEntry, VarEntry


@dataclass(frozen=True)
class Part:
    """One piece of a conjunct: ``premises => body`` (premises read no state variable).

    With ``over = (V, x)``, the piece is ``\\A x \\in V : premises => body``."""

    premises: tuple[S.Expr, ...]
    body: S.Expr
    ctx: Ctx
    over: tuple[str, str] | None = None


def parts(expr: S.Expr, ctx: Ctx) -> list[Part]:
    """The pieces of ``expr`` (whose conjunction is ``expr``)."""
    out: list[Part] = []
    _parts(expr, ctx, (), out, 0)
    return out


def _parts(e: S.Expr, ctx: Ctx, premises: tuple[S.Expr, ...], out: list[Part], depth: int) -> None:
    if depth > 30:
        out.append(Part(premises, e, ctx))
        return
    unfolded = _definition_body(e, ctx)
    if unfolded is not None:
        _parts(unfolded[0], unfolded[1], premises, out, depth + 1)
        return
    if isinstance(e, S.And):
        for item in e.items:
            _parts(item, ctx, premises, out, depth + 1)
        return
    if isinstance(e, S.OpApp) and e.name == "=>" and len(e.args) == 2 and ctx.names.get("=>") is None \
            and state_variables(e.args[0], ctx) == frozenset():
        _parts(e.args[1], ctx, (*premises, e.args[0]), out, depth + 1)
        return
    if isinstance(e, S.Quant) and e.kind == "A":
        found = _over_variable(e, ctx, premises)
        if found is not None:
            out.append(found)
            return
    out.append(Part(premises, e, ctx))


def _definition_body(e: S.Expr, ctx: Ctx) -> tuple[S.Expr, Ctx] | None:
    """The body of a parameterless definition ``e`` names, with its context."""
    if isinstance(e, S.Name) or (isinstance(e, S.OpApp) and not e.args):
        entry = ctx.names.get(e.name)
        if isinstance(entry, DefEntry) and isinstance(entry.unit, S.OpDef) and not entry.unit.params:
            return entry.unit.body, entry.ctx
    return None


def _chain(q: S.Quant) -> tuple[list[S.Bound], S.Expr]:
    """The bounds of nested ``\\A`` quantifiers, outermost first, and the innermost body."""
    bounds = list(q.bounds)
    body = q.body
    while isinstance(body, S.Quant) and body.kind == "A":
        bounds.extend(body.bounds)
        body = body.body
    return bounds, body


def _names_in(e: S.Expr) -> set[str]:
    return {n.name for n in walk(e) if isinstance(n, (S.Name, S.OpApp))}


def _over_variable(q: S.Quant, ctx: Ctx, premises: tuple[S.Expr, ...]) -> Part | None:
    """``\\A ... x \\in V ... : body`` with ``V`` a state variable, as ``\\A x \\in V : \\A ... : body``
    (universal quantifiers commute; the earlier bounds' domains cannot mention ``x``)."""
    bounds, body = _chain(q)
    earlier: set[str] = set()
    for k, b in enumerate(bounds):
        d = b.domain
        if not b.tuple_pattern and isinstance(d, S.Name) and d.name not in earlier and \
                isinstance(ctx.names.get(d.name), VarEntry):
            x = b.names[0]
            if x not in earlier and not any(x in _names_in(p) for p in premises):
                rest = [*bounds[:k], *([S.Bound(b.names[1:], False, d, b.loc)] if len(b.names) > 1 else []),
                        *bounds[k + 1:]]
                inner = S.Quant(q.loc, "A", tuple(rest), body) if rest else body
                return Part(premises, inner, ctx, (d.name, x))
        earlier.update(b.names)
    return None


__all__ = ["Part", "parts"]
