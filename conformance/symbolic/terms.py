"""Boolean and integer z3 terms built through z3's C functions directly.

The translation builds millions of small terms per obligation (``/\\``, ``\\/``, ``~``, ``=>``,
integer ``=`` and ``>``, and asks whether a term is the constant TRUE or FALSE). z3's Python
operators coerce and sort-check their operands and check the context's error code after every
C call; here the operands are known to be of the right sorts (booleans, or integers of the
translation), so these functions call the C functions themselves. They make the very terms the
operators make (z3 shares equal terms), only with fewer Python calls: the translation, not z3's
search, is what they make cheaper.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import z3
import z3.z3core as core


def _raw(wrapper: Callable[..., Any]) -> Callable[..., Any]:
    """The C function behind one of ``z3core``'s generated wrappers (the wrapper when this
    z3 lays them out otherwise)."""
    defaults = getattr(wrapper, "__defaults__", None) or ()
    f = getattr(defaults[-1], "f", None) if defaults else None
    return f if f is not None else wrapper


_AND = _raw(core.Z3_mk_and)
_OR = _raw(core.Z3_mk_or)
_NOT = _raw(core.Z3_mk_not)
_IMPLIES = _raw(core.Z3_mk_implies)
_ITE = _raw(core.Z3_mk_ite)
_EQ = _raw(core.Z3_mk_eq)
_GT = _raw(core.Z3_mk_gt)
_LE = _raw(core.Z3_mk_le)
_INC_REF = _raw(core.Z3_inc_ref)
_BOOL_VALUE = _raw(core.Z3_get_bool_value)
_AST_KIND = _raw(core.Z3_get_ast_kind)
_SAME_AST = _raw(core.Z3_is_eq_ast)
_NUMERAL = z3.Z3_NUMERAL_AST
_L_TRUE = z3.Z3_L_TRUE
_L_FALSE = z3.Z3_L_FALSE


def _wrap(ast: Any, ctx: z3.Context) -> z3.BoolRef:
    """A boolean term holding ``ast`` (as ``z3.BoolRef(ast, ctx)``, which also takes a
    reference)."""
    t: z3.BoolRef = object.__new__(z3.BoolRef)
    t.ast = ast
    t.ctx = ctx
    _INC_REF(ctx.ref(), ast)
    return t


def bool_value(b: z3.BoolRef) -> bool | None:
    """True or False when ``b`` is the constant TRUE or FALSE, else None."""
    v = _BOOL_VALUE(b.ctx.ref(), b.ast)
    return True if v == _L_TRUE else False if v == _L_FALSE else None


def nary(conjunction: bool, parts: Sequence[z3.BoolRef]) -> z3.BoolRef:
    """``/\\`` (or ``\\/``) of two or more boolean terms."""
    ctx = parts[0].ctx
    arr = (z3.Ast * len(parts))(*[p.ast for p in parts])
    return _wrap((_AND if conjunction else _OR)(ctx.ref(), len(parts), arr), ctx)


def negation(a: z3.BoolRef) -> z3.BoolRef:
    return _wrap(_NOT(a.ctx.ref(), a.ast), a.ctx)


def implication(a: z3.BoolRef, b: z3.BoolRef) -> z3.BoolRef:
    return _wrap(_IMPLIES(a.ctx.ref(), a.ast, b.ast), a.ctx)


def conditional(c: z3.BoolRef, a: z3.ExprRef, b: z3.ExprRef) -> z3.ExprRef:
    """``If(c, a, b)`` for two booleans or two integers (a boolean or an integer term)."""
    t: z3.ExprRef = object.__new__(z3.BoolRef if isinstance(a, z3.BoolRef) else z3.ArithRef)
    t.ast = _ITE(c.ctx.ref(), c.ast, a.ast, b.ast)
    t.ctx = c.ctx
    _INC_REF(c.ctx.ref(), t.ast)
    return t


def same_term(a: z3.AstRef, b: z3.AstRef) -> bool:
    """Whether ``a`` and ``b`` are one term (z3 shares equal terms: equal numerals are one)."""
    return bool(_SAME_AST(a.ctx.ref(), a.ast, b.ast))


def is_numeral(a: z3.AstRef) -> bool:
    return bool(_AST_KIND(a.ctx.ref(), a.ast) == _NUMERAL)


def int_eq(a: z3.ArithRef, b: z3.ArithRef) -> z3.BoolRef:
    """``a = b`` for two integer terms (not folded: see ``encoding._int_eq``)."""
    return _wrap(_EQ(a.ctx.ref(), a.ast, b.ast), a.ctx)


def greater(a: z3.ArithRef, k: int) -> z3.BoolRef:
    """``a > k`` for an integer term ``a``."""
    return _wrap(_GT(a.ctx.ref(), a.ast, _numeral(k, a.ctx).ast), a.ctx)


def at_most(a: z3.ArithRef, k: int) -> z3.BoolRef:
    """``a <= k`` for an integer term ``a``."""
    return _wrap(_LE(a.ctx.ref(), a.ast, _numeral(k, a.ctx).ast), a.ctx)


_NUMERALS: dict[tuple[int, int], z3.ArithRef] = {}


def _numeral(k: int, ctx: z3.Context) -> z3.ArithRef:
    key = (id(ctx), k)
    n = _NUMERALS.get(key)
    if n is None:
        n = _NUMERALS[key] = z3.IntVal(k, ctx)
    return n
