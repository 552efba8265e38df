"""The strictness analysis: which parameters an operator's body always evaluates (their
arguments are evaluated at the call; the others' errors wait for a read). Each expected
set is derived by hand from TLC's evaluation order: IF evaluates its condition and one
branch, /\\ \\/ => their first operand first, quantifiers their first domain, CASE its
first guard, EXCEPT its function and keys (a new value only where its key is in the
domain); a parameter is strict when every evaluation reads it."""

from __future__ import annotations

from typing import Any

import pytest

from conformance.tla import syntax as S
from conformance.tla.parser import parse_module_text
from conformance.tla.semantics.strictness import Strictness

TEXT = r"""---- MODULE Strict ----
EXTENDS Naturals, Sequences
VARIABLE x
Pick(c, a, b) == IF c THEN a ELSE b
Both(a, b) == a + b
Same(a, b) == IF a THEN b ELSE b + 1
Guard(c, a) == c /\ a
Either(c, a) == c \/ a
Imp(c, a) == c => a
Iff(c, a) == c <=> a
Cs(c, a, b) == CASE c -> a [] OTHER -> b
Quant(S, b) == \E v \in S : v = b
LetZero(a, b) == LET d == b + 1 IN d * a
LetUnusedDef(a, b) == LET d == b + 1 IN a
LetOp(a, b) == LET G(q) == q + a IN G(b)
LetOpUnused(a, b) == LET G(q) == a IN G(b)
Calls(a, b) == Pick(a, b, 0)
CallsBoth(a, b) == Both(b, 1) + a
Higher(F(_), a) == F(a)
Lam(a) == Higher(LAMBDA q : q, a)
Rec(n, a) == IF n = 0 THEN a ELSE Rec(n - 1, a)
Apply(f, k) == f[k]
Field(r) == r.a
Set(a, b) == {a, b}
Tup(a, b) == <<a, Len(b)>>
Filter(S, b) == {v \in S : v = b}
Map(S, b) == {v + b : v \in S}
Ch(S, b) == CHOOSE v \in S : v = b
Ex(f, k, v) == [f EXCEPT ![k] = v]
Primed(a) == x' = a
Rcd(a, b) == [f |-> a, g |-> b]
====
"""

EXPECTED = {
    "Pick": {"c"}, "Both": {"a", "b"}, "Same": {"a", "b"}, "Guard": {"c"}, "Either": {"c"},
    "Imp": {"c"}, "Iff": {"c", "a"}, "Cs": {"c"}, "Quant": {"S"}, "LetZero": {"a", "b"},
    "LetUnusedDef": {"a"}, "LetOp": {"a", "b"}, "LetOpUnused": {"a"}, "Calls": {"a"},
    "CallsBoth": {"a", "b"}, "Higher": set(), "Lam": set(), "Rec": {"n"},
    "Apply": {"f", "k"}, "Field": {"r"}, "Set": {"a", "b"}, "Tup": {"a", "b"},
    "Filter": {"S"}, "Map": {"S"}, "Ch": {"S"}, "Ex": {"f", "k"}, "Primed": {"a"},
    "Rcd": {"a", "b"},
}


@pytest.fixture(scope="module")
def analysed() -> tuple[Strictness, dict[str, S.OpDef]]:
    module = parse_module_text(TEXT, "Strict.tla")
    defs = {u.name: u for u in module.units if isinstance(u, S.OpDef)}

    def callee(entry: Any) -> tuple[S.OpDef, Any] | None:
        return (entry, defs.get) if isinstance(entry, S.OpDef) else None

    return Strictness(callee), defs


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_strict_parameters(analysed: tuple[Strictness, dict[str, S.OpDef]], name: str) -> None:
    strictness, defs = analysed
    assert strictness.params(defs[name], defs.get) == frozenset(EXPECTED[name])
