"""Which state variables an expression reads, through the definitions it applies.

A step obligation is split per conjunct ``C`` of the invariant: when the action provably
leaves every variable ``C`` reads unchanged, ``C'`` is ``C`` and follows from the invariant
in the first state, without asking the solver about ``C'`` itself. The set returned may be
too large (a bound name that happens to name a definition adds that definition's
variables), never too small; ``None`` when it cannot be told (an instance's substitution).
"""

from __future__ import annotations

from conformance.tla import syntax as S
from conformance.tla.astwalk import walk
from conformance.tla.semantics.scope import Ctx, DefEntry, InstEntry, SubstEntry, VarEntry


def state_variables(expr: S.Expr, ctx: Ctx) -> frozenset[str] | None:
    """The state variables ``expr`` reads (in module context ``ctx``), or ``None``."""
    found: set[str] = set()
    seen: set[int] = set()
    stack: list[tuple[object, Ctx]] = [(expr, ctx)]
    while stack:
        node, scope = stack.pop()
        for n in walk(node):
            if isinstance(n, S.InstanceOpApp):
                return None
            if not isinstance(n, (S.Name, S.OpApp)):
                continue
            entry = scope.names.get(n.name)
            if isinstance(entry, VarEntry):
                found.add(entry.name)
            elif isinstance(entry, DefEntry):
                if id(entry) not in seen:
                    seen.add(id(entry))
                    stack.append((entry.unit, entry.ctx))
            elif isinstance(entry, (SubstEntry, InstEntry)):
                return None
    return frozenset(found)
