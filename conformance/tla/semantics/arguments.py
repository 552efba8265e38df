"""Operator arguments whose errors wait for their use.

An argument for a parameter its operator's body is not strict in (``strictness.py``) is
evaluated at the call, but an error it raises is kept in the parameter's slot as a
``FailedArg`` and raised where the body reads the parameter (a ``GuardedSlot``): TLC
evaluates such an argument only there, so an argument the body never reads gives no error.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from conformance.tla.semantics.compiled import UNASSIGNED, C, EvalFn, const
from conformance.tla.syntax import EvalError, Loc, TlaError


class FailedArg:
    """The error of an argument not read yet (never a TLA+ value: reads raise it)."""

    __slots__ = ("error",)

    def __init__(self, error: TlaError) -> None:
        self.error = error

    def __repr__(self) -> str:
        return f"FailedArg({self.error})"


def unassigned(name: str, loc: Loc | None) -> EvalError:
    """The error of reading variable ``name`` in an initial predicate before it is assigned."""
    return EvalError(f"{name} is used before it is assigned", loc)


def assigned_check(reads: Sequence[int], names: Sequence[str], loc: Loc | None
                   ) -> Callable[[list], None]:
    """A check that the variables ``reads`` of the state being built by an initial
    predicate are assigned (raising the error of the first that is not)."""
    idx = tuple(reads)

    def check(s: list) -> None:
        for i in idx:
            if s[i] is UNASSIGNED:
                raise unassigned(names[i], loc)

    return check


def unassigned_read(i: int, name: str, loc: Loc) -> EvalFn:
    """Variable ``i`` passed as an argument: in an initial predicate (a state being built,
    a list) it may not be assigned yet, an error that waits for the use."""

    def read(s: Any, t: Any, e: tuple) -> Any:
        v = s[i]
        if v is UNASSIGNED:
            return FailedArg(unassigned(name, loc))
        return v

    return read


def raise_failed(v: FailedArg) -> Any:
    """Raise the error of the argument that failed."""
    raise v.error


def guarded_read(i: int) -> EvalFn:
    """The value of slot ``i``, raising the error of an argument that failed."""

    def read(s: Any, t: Any, e: tuple) -> Any:
        v = e[i]
        if type(v) is FailedArg:
            raise v.error
        return v

    return read


def forcing(f: Callable[..., Any], positions: Sequence[int]) -> Callable[..., Any]:
    """An operator passed as an argument, called with arguments that may have failed:
    ``f`` once those at ``positions`` (the ones it reads as plain values) are checked."""
    if not positions:
        return f
    pos = tuple(positions)

    def forced(*a: Any) -> Any:
        for k in pos:
            if type(a[k]) is FailedArg:
                raise a[k].error
        return f(*a)

    return forced


def unread_arg(param: str, op: str, loc: Loc) -> C:
    """The argument of ``op``'s parameter ``param``, which its body never reads
    (``strictness.unread_params``): not evaluated. Its slot holds an error, raised by a
    read that the analysis says cannot happen."""
    return const(FailedArg(EvalError(
        f"internal error: the argument of parameter {param} of {op}, which its body never "
        f"reads, was read", loc)))
