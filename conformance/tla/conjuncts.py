"""The named conjuncts of a definition's body: ``/\\`` split through the parameterless
definitions whose body is itself a conjunction (``Safety == TypeOK /\\ ...`` gives the
conjuncts of ``TypeOK`` and the others). The checker evaluates an invariant conjunct by
conjunct; the prover asks about each conjunct and names the one that fails."""

from __future__ import annotations

from conformance.tla import syntax as S
from conformance.tla.semantics.scope import Ctx, DefEntry

_MAX_DEPTH = 30


def named_conjuncts(body: S.Expr, ctx: Ctx, label: str) -> list[tuple[str, S.Expr, Ctx]]:
    """``(label, expression, context)`` per conjunct of ``body`` (in module context ``ctx``):
    a definition's name labels its own conjuncts; an unnamed conjunct is ``label/k``."""
    out: list[tuple[str, S.Expr, Ctx]] = []
    _split(body, ctx, label, out, 0)
    return out


def _split(e: S.Expr, ctx: Ctx, label: str, out: list[tuple[str, S.Expr, Ctx]], depth: int) -> None:
    if isinstance(e, S.And) and depth < _MAX_DEPTH:
        for i, item in enumerate(e.items):
            named = isinstance(item, S.Name) or (isinstance(item, S.OpApp) and not item.args)
            _split(item, ctx, item.name if named else f"{label}/{i + 1}", out, depth + 1)  # type: ignore[attr-defined]
        return
    if isinstance(e, S.Name) or (isinstance(e, S.OpApp) and not e.args):
        entry = ctx.names.get(e.name)
        if isinstance(entry, DefEntry) and isinstance(entry.unit, S.OpDef) and not entry.unit.params \
                and isinstance(entry.unit.body, S.And) and depth < _MAX_DEPTH:
            _split(entry.unit.body, entry.ctx, e.name, out, depth + 1)
            return
    out.append((label, e, ctx))
