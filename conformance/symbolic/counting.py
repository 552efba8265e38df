"""Comparisons of counts as boolean formulas.

A ``Cardinality`` translates to a sum of ``If(c, 1, 0)`` terms, and a quorum test such as
``2 * Cardinality({k \\in keys : ~Blocks(k)}) <= Cardinality(keys)`` compares a weighted sum
of such terms with a constant. Left as arithmetic, z3 decides it in its linear-arithmetic
solver, which learns little from a conflict among the conditions. ``compare`` states the
same comparison over the conditions themselves: ``sum w_i * [c_i] <= B`` becomes the
ordered decision diagram of ``c_1 .. c_n`` (a condition taken or not, the bound left),
with ``If`` nodes shared per (condition, bound left). The formula is equivalent for every
value of the conditions; it is made only when both sides are such sums of few conditions.
"""

from __future__ import annotations

import z3

from conformance.symbolic.terms import conditional, nary, negation

MAX_CONDITIONS = 12  # a comparison over more conditions stays arithmetic

_Sum = tuple[dict[int, tuple[z3.BoolRef, int]], int]  # condition id -> (condition, weight); constant


def linear_sum(t: z3.ArithRef) -> _Sum | None:
    """``t`` as ``constant + sum of weight * [condition]``, or None when ``t`` is not built
    of integer numerals, ``+``, ``-``, products with a numeral and ``If(c, n1, n0)`` with
    numerals ``n1``, ``n0``."""
    weights: dict[int, tuple[z3.BoolRef, int]] = {}
    constant = 0

    def add(c: z3.BoolRef, w: int) -> None:
        key = c.get_id()
        old = weights.get(key)
        weights[key] = (c, w + (old[1] if old else 0))

    def walk(e: z3.ArithRef, k: int) -> bool:
        nonlocal constant
        if z3.is_int_value(e):
            constant += k * e.as_long()
            return True
        if z3.is_add(e):
            return all(walk(a, k) for a in e.children())
        if z3.is_sub(e):
            first, *rest = e.children()
            return walk(first, k) and all(walk(a, -k) for a in rest)
        if e.decl().kind() == z3.Z3_OP_UMINUS:
            return walk(e.arg(0), -k)
        if z3.is_mul(e):
            factor, others = 1, []
            for a in e.children():
                if z3.is_int_value(a):
                    factor *= a.as_long()
                else:
                    others.append(a)
            if not others:
                constant += k * factor
                return True
            return factor == 0 or (len(others) == 1 and walk(others[0], k * factor))
        if z3.is_app_of(e, z3.Z3_OP_ITE):
            c, hi, lo = e.children()
            if z3.is_int_value(hi) and z3.is_int_value(lo):
                constant += k * lo.as_long()
                if hi.as_long() != lo.as_long():
                    add(c, k * (hi.as_long() - lo.as_long()))
                return True
        return False

    if not walk(t, 1):
        return None
    return {i: cw for i, cw in weights.items() if cw[1] != 0}, constant


# ``a op b`` as ``sign * (a - b) <= shift`` over the integers
_OPS: dict[str, tuple[int, int]] = {"<=": (1, 0), "<": (1, -1), ">=": (-1, 0), ">": (-1, -1)}


def compare(a: z3.ArithRef, op: str, b: z3.ArithRef) -> z3.BoolRef | None:
    """``a op b`` (``op`` one of ``<= < >= >``) as a boolean formula over the conditions of
    the two sums, or None when either side is not such a sum or they have too many
    conditions (the caller keeps the arithmetic comparison)."""
    # both sides are read, then merged: reading them in one pass (and stopping at the first
    # side that is no sum) frees z3's Python wrappers in another order, which moved the units
    # of SendFetchRequest and Resign by 0.7-3.5 % (z3's search follows its term ids)
    left, right = linear_sum(a), linear_sum(b)
    if left is None or right is None:
        return None
    sign, shift = _OPS[op]
    weights: dict[int, tuple[z3.BoolRef, int]] = {}
    for part, k in ((left[0], sign), (right[0], -sign)):
        for key, (c, w) in part.items():
            old = weights.get(key)
            weights[key] = (c, k * w + (old[1] if old else 0))
    bound = shift - sign * (left[1] - right[1])
    terms = [(c, w) for c, w in weights.values() if w != 0]
    if not terms or len(terms) > MAX_CONDITIONS:
        return None
    return at_most(terms, bound)


def at_most(terms: list[tuple[z3.BoolRef, int]], bound: int) -> z3.BoolRef:
    """``sum w * [c] <= bound`` over ``terms`` as a decision diagram of the conditions. A
    negative weight ``w`` counts ``~c`` with weight ``-w`` (``w*[c] = w + (-w)*[~c]``)."""
    ctx = terms[0][0].ctx
    lits: list[tuple[z3.BoolRef, int]] = []
    for c, w in terms:
        if w < 0:
            lits.append((negation(c), -w))
            bound -= w
        else:
            lits.append((c, w))
    rest = [0] * (len(lits) + 1)
    for i in reversed(range(len(lits))):
        rest[i] = rest[i + 1] + lits[i][1]
    true, false = z3.BoolVal(True, ctx), z3.BoolVal(False, ctx)
    memo: dict[tuple[int, int], z3.BoolRef] = {}

    def node(i: int, left: int) -> z3.BoolRef:
        if left < 0:
            return false
        if rest[i] <= left:
            return true
        got = memo.get((i, left))
        if got is None:
            c, w = lits[i]
            got = memo[(i, left)] = _choice(c, node(i + 1, left - w), node(i + 1, left), true, false)
        return got

    return node(0, bound)


def _choice(c: z3.BoolRef, hi: z3.BoolRef, lo: z3.BoolRef, true: z3.BoolRef, false: z3.BoolRef) -> z3.BoolRef:
    """``If(c, hi, lo)`` over booleans, as a clause where a branch is a constant."""
    if hi.eq(lo):
        return hi
    if hi.eq(true) and lo.eq(false):
        return c
    if hi.eq(false) and lo.eq(true):
        return negation(c)
    if hi.eq(true):
        return nary(False, [c, lo])
    if lo.eq(false):
        return nary(True, [c, hi])
    if hi.eq(false):
        return nary(True, [negation(c), lo])
    if lo.eq(true):
        return nary(False, [negation(c), hi])
    return conditional(c, hi, lo)
