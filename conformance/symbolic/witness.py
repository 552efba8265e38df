"""One witness for an action's ``\\E x \\in S : A`` over a set of the state.

The plain translation of ``\\E x \\in S : A`` is a disjunction over the slots of ``S``:
``A`` is translated once per slot (a ``\\E m \\in messages`` handler of KRaft, once per
message slot), and each copy states its own next state. With a witness it is translated
once, for the element ``w`` of the slot that a new integer constant ``k`` (the selector)
names::

    w = IF k = 0 THEN e0 ELSE IF k = 1 THEN e1 ELSE ... e(n-1)
    (\\/ k = 0 /\\ g0 \\/ ... \\/ k = n-1 /\\ g(n-1)) /\\ A(w)

where ``g_i`` says that slot ``i`` holds an element. The two are equisatisfiable: a model
of the disjunction with slot ``i`` true gives one of the witness form with ``k = i``
(``w`` is then ``e_i``), and back; the translation of ``A`` depends on ``w`` only through
the TLA+ value it denotes. Apalache chooses with an oracle the same way.

The selector of a binder is kept in ``Translator.witnesses``, a dict its caller makes for
each step it translates (bounded model checking: one per depth, since each step chooses
its own element; ``prove``: one for the step of an obligation); None keeps the
disjunction.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence

import z3

from conformance.symbolic.encoding import SV, conj, disj, ite
from conformance.symbolic.frame import state_variables
from conformance.symbolic.translate import Binding, Env, StatePair, Translator
from conformance.tla import syntax as S
from conformance.tla.compiler import Ctx
from conformance.tla.syntax import UnsupportedError

_selectors = itertools.count()


def witnessed(tr: Translator, bounds: Sequence[S.Bound], ctx: Ctx, st: StatePair, env: Env
              ) -> tuple[z3.BoolRef, dict[str, Binding]] | None:
    """The guard (some present slot is chosen) and the environment binding ``x`` to the
    witness, for ``\\E x \\in S`` with one name over a set ``S`` that reads the state and has
    several slots; None otherwise (or when ``tr.witnesses`` is None, or the elements
    cannot share one conditional value): the caller keeps the disjunction over the slots."""
    if tr.witnesses is None or len(bounds) != 1 or bounds[0].tuple_pattern or len(bounds[0].names) != 1:
        return None
    b = bounds[0]
    if not state_variables(b.domain, ctx):
        return None
    dom = tr.set_of(b.domain, env, ctx, st)
    if len(dom.slots) < 2:
        return None
    k = tr.witnesses.get(id(b))
    if k is None:
        k = tr.witnesses[id(b)] = z3.Int(f"choice!{b.names[0]}!{next(_selectors)}")
    w: SV = dom.slots[-1][1]
    try:
        for i in range(len(dom.slots) - 2, -1, -1):
            w = ite(k == i, dom.slots[i][1], w, b.loc)
    except UnsupportedError:  # elements of different domains: no one value holds them
        return None
    guard = disj([conj([k == i, g]) for i, (g, _) in enumerate(dom.slots)])
    inner = dict(env)
    inner[b.names[0]] = w
    return guard, inner


__all__ = ["witnessed"]
