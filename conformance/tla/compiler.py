"""Compile the AST into Python closures.

Every expression becomes a closure ``fn(s, t, e)``: ``s`` is the current state (a tuple
of variable values, in ``Model.variables`` order), ``t`` the next state (a tuple, or a
list holding ``UNASSIGNED`` while an action is being enumerated; ``None`` where no next
state exists) and ``e`` the environment: a tuple of the values of the bound variables and
parameters in scope, indexed by slots resolved at compile time. The invariant is that a
closure compiled at scope depth ``d`` is always called with ``len(e) == d``.

Names are resolved once, at compile time: state variables to tuple indices, bound
variables to slots, constants to their values, operators to their compiled bodies.
Sub-expressions that read no state, no next state and no bound variable are evaluated at
most once per ``Compiler`` (i.e. once per model) and cached. The hottest node kinds
(function application, field access, equality, membership, integer operators) are
generated from small source templates so that plain variable reads are inlined.

Module structure (EXTENDS, INSTANCE, LOCAL, overrides) is represented by ``Ctx`` name
tables built by ``ContextBuilder``.

The compiler lives in ``conformance.tla.semantics``, one module per construct class; this
module is its public face (the names other packages import).
"""

from __future__ import annotations

from conformance.tla.semantics.compiled import (
    NOENV,
    UNASSIGNED,
    C,
    EvalFn,
    cached,
    const,
    derived,
    located,
    primed_reads,
)
from conformance.tla.semantics.contexts import ContextBuilder
from conformance.tla.semantics.instances import InstanceCompiler
from conformance.tla.semantics.memo import MEMO_LIMIT, env_memoized, memo_worthy, memoized
from conformance.tla.semantics.scope import (
    Alias,
    ConstEntry,
    ConstLocal,
    Ctx,
    DefEntry,
    Entry,
    InstEntry,
    Lazy,
    LazySlot,
    Local,
    LocalDef,
    OpSlot,
    Scope,
    Slot,
    SubstEntry,
    Thunk,
    VarEntry,
)
from conformance.tla.values import format_value, make_fn, make_record


class Compiler(InstanceCompiler):
    """Compiles expressions of one model; holds the per-model caches."""


__all__ = [
    "MEMO_LIMIT",
    "NOENV",
    "UNASSIGNED",
    "Alias",
    "C",
    "Compiler",
    "ConstEntry",
    "ConstLocal",
    "ContextBuilder",
    "Ctx",
    "DefEntry",
    "Entry",
    "EvalFn",
    "InstEntry",
    "Lazy",
    "LazySlot",
    "Local",
    "LocalDef",
    "OpSlot",
    "Scope",
    "Slot",
    "SubstEntry",
    "Thunk",
    "VarEntry",
    "cached",
    "const",
    "derived",
    "env_memoized",
    "format_value",
    "located",
    "make_fn",
    "make_record",
    "memo_worthy",
    "memoized",
    "primed_reads",
]
