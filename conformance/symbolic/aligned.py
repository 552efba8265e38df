"""The changed sets of a step's second state, aligned with the first state's slots.

A fresh set of the second state ``t`` has slots unrelated to those of the first state
``s``: every question about ``messages'`` then has the solver match each slot of ``t``
against each slot of ``s`` (records of many fields) before it knows which messages are
new, and a conjunct over the new elements is asked once per slot of ``t``.

Aligned, slot ``i`` of the set in ``t`` holds the very element of slot ``i`` in ``s``,
with a guard of its own ``h_i`` (bound by ``h_i => g_i``, which only helps the solver: the
slot denotes a value either way, and the step's formula decides which are in the set),
followed by the fresh slots of ``t`` beyond the width of ``s`` for what the step adds. An
old slot is then equal to itself by construction (``eq`` answers TRUE for the same term),
its question about a new element is decided by that implication alone, and ``x' = x \\cup
{m}`` becomes a matter of guards plus one comparison per fresh slot.

**Soundness.** Any pair of sets ``S``, ``T`` where ``S`` fits the slots of ``s`` and ``T``
holds at most ``k`` elements outside ``S`` (``k``: the fresh slots kept) has an aligned
representation: ``h_i`` is ``s_i``'s slot present and ``s_i \\in T``, and the fresh slots hold
``T \\ S``. Since the translation of a formula depends on a set only through the TLA+ value
it denotes, a step question without a model in aligned form has none for any such pair.
The room is the one the second state had: ``k`` is the width added to ``t`` (four more
elements per set, as ``shapes.Bounds.widened``), so a step adding more lies outside the
proof as before. (A set ``T`` replacing elements of ``S`` by more than ``k`` new ones fitted
the unaligned slots and no longer does: the room is now "``k`` more", as documented.)
A function of sets (over the same domain in both states) is aligned per value. A canonical
set (``encoding.py``; only sets nested in sequences and sets are) is left as it is: its
order chains its slots, so its fresh part alone would not hold every set of that width.
"""

from __future__ import annotations

from collections.abc import Iterable

import z3

from conformance.symbolic.encoding import SV, SFun, SSet, conj
from conformance.symbolic.shapes import SymbolicState
from conformance.tla.syntax import TlaError


def aligned_state(s: SymbolicState, t: SymbolicState, names: Iterable[str], tag: str = "t",
                  growth: int | None = None) -> SymbolicState:
    """``t`` with the set values (also inside functions) of the variables ``names``
    aligned with ``s`` (module docstring); the other values are ``t``'s own. The fresh
    slots are those of ``t`` beyond the width of ``s`` (``growth``: the first ``growth``
    slots of ``t``, so that a path of aligned states widens by that much per step)."""
    values = dict(t.values)
    constraints: list[z3.BoolRef] = [t.wellformed]
    for name in sorted(names):
        values[name] = _align(s.values[name], t.values[name], f"{tag}.{name}", constraints, growth)
    return SymbolicState(values, conj(constraints))


def _align(old: SV, new: SV, prefix: str, constraints: list[z3.BoolRef], growth: int | None) -> SV:
    if isinstance(old, SSet) and isinstance(new, SSet) and not old.union_of and not new.union_of \
            and not new.canonical:
        if growth is None:
            if len(new.slots) < len(old.slots):
                return new
            fresh = new.slots[len(old.slots):]
        else:
            if len(new.slots) < growth:
                raise TlaError(f"{prefix}: a set of {len(new.slots)} slots has no room for {growth} fresh "
                               "elements per step (raise its bound to at least the growth)")
            fresh = new.slots[:growth]
        guards = [z3.FreshBool(f"{prefix}.kept{i}") for i in range(len(old.slots))]
        constraints.extend(z3.Implies(h, g) for h, (g, _) in zip(guards, old.slots, strict=True))
        kept = tuple((h, x) for h, (_, x) in zip(guards, old.slots, strict=True))
        return SSet(kept + fresh)
    if isinstance(old, SFun) and isinstance(new, SFun) and old.keys == new.keys:
        return SFun(new.keys, tuple(_align(a, b, f"{prefix}[{k}]", constraints, growth)
                                    for k, a, b in zip(new.keys, old.vals, new.vals, strict=True)))
    return new


__all__ = ["aligned_state"]
