"""Name tables: the entries of a module context (variables, constants, definitions,
instances), the locals of a scope (slots, LET definitions, by-name parameters) and
the lazily computed values of zero-arity LET definitions."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from conformance.tla import syntax as S
from conformance.tla.syntax import Loc

if TYPE_CHECKING:  # only for annotations: contexts.py builds on this module
    from conformance.tla.semantics.contexts import ContextBuilder
from conformance.tla.semantics.compiled import (
    _MISSING,
    C,
    EvalFn,
)

# ---------------------------------------------------------------------------
# Name tables
# ---------------------------------------------------------------------------


@dataclass(eq=False)
class VarEntry:
    name: str
    index: int


@dataclass(eq=False)
class ConstEntry:
    name: str
    arity: int
    loc: Loc


@dataclass(eq=False)
class DefEntry:
    """An OpDef or FnDef of some module context, compiled lazily (once)."""

    unit: S.OpDef | S.FnDef
    ctx: Ctx
    state: str = "new"  # new | compiling | done
    body: C | None = None
    cell: list[EvalFn] = field(default_factory=list)  # forward reference while compiling

    @property
    def name(self) -> str:
        return self.unit.name


@dataclass(eq=False)
class SubstEntry:
    """A constant or variable of an instantiated module, replaced by an expression."""

    name: str
    expr: S.Expr
    scope: Scope
    primed: bool = True  # False: an instance parameter's argument, compiled as it is
    compiled: C | None = None


@dataclass(eq=False)
class InstEntry:
    """A named instance ``I == INSTANCE M WITH ...``; its context is built lazily."""

    unit: S.Instance
    outer: Ctx
    ctx: Ctx | None = None


Entry = VarEntry | ConstEntry | DefEntry | SubstEntry | InstEntry


@dataclass(eq=False)
class Ctx:
    """The names visible inside one module (under one instantiation).

    ``base`` is the number of environment slots every definition of the module starts
    with (the parameters of a parameterised instance).
    """

    module: str
    names: dict[str, Entry] = field(default_factory=dict)
    std: frozenset[str] = frozenset()
    base: int = 0
    builder: ContextBuilder | None = None
    exported: frozenset[str] = frozenset()  # names other modules may use (not LOCAL)


# Locals of a scope ---------------------------------------------------------


@dataclass(frozen=True)
class Slot:
    index: int


@dataclass(frozen=True)
class GuardedSlot:
    """A parameter passed by value that its operator's body may not read: the slot holds
    the argument's value or, when evaluating it failed, a ``FailedArg`` (``arguments.py``)."""

    index: int


@dataclass(frozen=True)
class LazySlot:
    """A zero-arity LET definition, or a parameter passed by name (``alias``), held in
    the environment as a ``Lazy``."""

    index: int
    body: C
    unit: S.OpDef | None = None
    scope: Scope | None = None  # the scope the definition was compiled in
    alias: tuple[S.Expr, Scope] | None = None  # a by-name parameter: (argument, its scope)


@dataclass(frozen=True)
class Alias:
    """Under a prime: a name standing for an expression (a by-name parameter's argument
    or a LET definition's body), compiled again there so that it reads the next state."""

    expr: S.Expr
    scope: Scope
    primed: bool = True  # False: an instance parameter's argument, compiled as it is


@dataclass(frozen=True)
class OpSlot:
    """An operator parameter (arity > 0): the environment holds a Python callable."""

    index: int
    arity: int


@dataclass(eq=False)
class LocalDef:
    """A LET operator with parameters, or a LET function definition."""

    unit: S.OpDef | S.FnDef
    scope: Scope  # scope of the definition (the LET's scope, with its earlier definitions)
    state: str = "new"
    body: C | None = None
    cell: list[EvalFn] = field(default_factory=list)


@dataclass(frozen=True)
class ConstLocal:
    """A zero-arity LET definition whose value is constant."""

    body: C


Local = Slot | GuardedSlot | LazySlot | OpSlot | LocalDef | ConstLocal | Alias


@dataclass(frozen=True)
class Scope:
    ctx: Ctx
    depth: int
    names: Mapping[str, Local] = field(default_factory=dict)

    def bind(self, *names: str) -> Scope:
        new = dict(self.names)
        for i, n in enumerate(names):
            new[n] = Slot(self.depth + i)
        return Scope(self.ctx, self.depth + len(names), new)

    def with_local(self, name: str, local: Local, grow: int = 0) -> Scope:
        new = dict(self.names)
        new[name] = local
        return Scope(self.ctx, self.depth + grow, new)

    def primed_view(self) -> Scope:
        """This scope as seen under a prime: names whose value was computed in the current
        state (LET definitions, by-name parameters) stand for their expressions again."""
        new: dict[str, Local] | None = None
        for name, local in self.names.items():
            if isinstance(local, LazySlot):
                if local.alias is not None:
                    alias = Alias(*local.alias)
                elif local.unit is not None and local.scope is not None:
                    alias = Alias(local.unit.body, local.scope)
                else:
                    continue
                if new is None:
                    new = dict(self.names)
                new[name] = alias
        return self if new is None else Scope(self.ctx, self.depth, new)


class Lazy:
    """The value of a zero-arity LET definition, computed on first use."""

    __slots__ = ("e", "fn", "s", "t", "v")

    def __init__(self, fn: EvalFn, s: Any, t: Any, e: tuple) -> None:
        self.fn, self.s, self.t, self.e = fn, s, t, e
        self.v = _MISSING

    def get(self) -> Any:
        v = self.v
        if v is _MISSING:
            v = self.v = self.fn(self.s, self.t, self.e)
        return v


class Thunk(Lazy):
    """Like ``Lazy`` but recomputed on every use (it reads a state being built)."""

    __slots__ = ()

    def get(self) -> Any:
        return self.fn(self.s, self.t, self.e)
