"""TLA+ expressions (AST nodes) that denote given runtime values, for building action applications."""

from __future__ import annotations

from conformance.tla.syntax import (
    Bool,
    Bound,
    Case,
    CaseArm,
    Expr,
    FnConstruct,
    Loc,
    Name,
    Num,
    OpApp,
    RecordConstruct,
    SetEnum,
    Str,
    Tuple,
)
from conformance.tla.values import Fn, ModelValue, Value, sorted_values

SYNTHETIC = Loc("<validator>", 1, 1)


def value_expr(v: Value, loc: Loc = SYNTHETIC) -> Expr:
    """An expression whose value is ``v`` (model values become their names)."""
    t = type(v)
    if t is bool:
        return Bool(loc, bool(v))
    if t is int:
        n = int(v)  # type: ignore[arg-type]
        return Num(loc, n) if n >= 0 else OpApp(loc, "-.", (Num(loc, -n),))
    if t is str:
        return Str(loc, str(v))
    if t is ModelValue:
        return Name(loc, v.name)  # type: ignore[union-attr]
    if t is tuple:
        return Tuple(loc, tuple(value_expr(x, loc) for x in v))  # type: ignore[union-attr]
    if t is frozenset:
        return SetEnum(loc, tuple(value_expr(x, loc) for x in sorted_values(v)))  # type: ignore[arg-type]
    if t is Fn:
        fmap = v.map  # type: ignore[union-attr]
        keys = sorted_values(fmap)
        if v.is_record():  # type: ignore[union-attr]
            return RecordConstruct(loc, tuple((k, value_expr(fmap[k], loc)) for k in keys))
        x = "__k"
        arms = tuple(
            CaseArm(OpApp(loc, "=", (Name(loc, x), value_expr(k, loc))), value_expr(fmap[k], loc))
            for k in keys
        )
        domain = SetEnum(loc, tuple(value_expr(k, loc) for k in keys))
        return FnConstruct(loc, (Bound((x,), False, domain, loc),), Case(loc, arms, None))
    raise TypeError(f"no TLA+ expression for {v!r}")


def application(action: str, args: tuple[Value, ...], loc: Loc = SYNTHETIC) -> Expr:
    """``action(args...)`` as an expression."""
    if not args:
        return Name(loc, action)
    return OpApp(loc, action, tuple(value_expr(a, loc) for a in args))
