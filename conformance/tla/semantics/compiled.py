"""Compiled expressions: the closure record ``C`` with what it depends on, literals,
derived nodes, and constant folding."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from conformance.tla.syntax import Loc, TlaError
from conformance.tla.values import Fn, same_value

EvalFn = Callable[[Any, Any, tuple], Any]


class _Unassigned:
    """Marker of a next-state variable not yet assigned by the action being enumerated."""

    __slots__ = ()

    def __repr__(self) -> str:
        return "UNASSIGNED"


UNASSIGNED: Any = _Unassigned()
_MISSING: Any = object()
NOENV = 1 << 30


def located(err: TlaError, loc: Loc) -> TlaError:
    """``err`` with ``loc`` attached when it has none yet."""
    if err.loc is not None:
        return err
    return type(err)(err.message, loc)


# ---------------------------------------------------------------------------
# Compiled expressions
# ---------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Inline:
    """The Python expression a generated closure ``fn`` returns, for embedding in a
    parent's generated code instead of a call of ``fn``. ``names``: the globals it needs;
    its own names (temporaries, and globals but the shared helpers of ``_operand``) start
    with ``§``, which the embedding replaces by the operand's key; ``depth``: how many
    fused nodes it nests."""

    fn: EvalFn
    src: str
    names: dict[str, Any]
    depth: int


@dataclass(slots=True)
class C:
    """A compiled expression and what it depends on.

    ``vars``: indices of state variables read unprimed; ``primed``: reads the next state;
    ``env``: reads a bound variable or parameter; ``pure``: two evaluations always agree
    (no Print/RandomElement/JavaTime); ``rec``: depends on a definition still being
    compiled (its dependencies are unknown, so it is never cached).
    """

    fn: EvalFn
    vars: frozenset[int] = frozenset()
    primed: bool = False
    envmin: int = NOENV  # the lowest environment slot read (NOENV: none)
    pure: bool = True
    rec: bool = False
    value: Any = _MISSING  # known value of a literal
    boolean: bool = False  # the closure always returns a boolean
    # ("var", i): just s[i]; ("slot", i): just e[i]; ("lazy", i): the value of the Lazy e[i];
    # ("guarded", i): e[i], raising the error it holds when its argument failed
    reads: tuple[str, int] | None = None
    elements: EvalFn | None = None  # iterates the set's elements without building it
    # variables among ``vars`` read only inside operator arguments whose errors wait for
    # their use (an initial predicate checks them there, not before evaluating this node)
    deferred: frozenset[int] = frozenset()
    inline: Inline | None = None  # the source of ``fn`` (only while ``fn`` is still its)
    # the variables read primed, when known: a primed node with none listed may read any
    # (``primed_reads``)
    pvars: frozenset[int] = frozenset()

    @property
    def env(self) -> bool:
        return self.envmin != NOENV

    @property
    def constant(self) -> bool:
        return not (self.vars or self.primed or self.rec) and self.envmin == NOENV and self.pure

    def below(self, depth: int) -> C:
        """This node seen from outside binders starting at slot ``depth``."""
        if self.envmin >= depth and self.envmin != NOENV:
            return C(self.fn, self.vars, self.primed, NOENV, self.pure, self.rec,
                     deferred=self.deferred, pvars=self.pvars)
        return self


# how many nodes with ``rec`` set have been made, by cause: a reference to a definition
# still being compiled, or an error kept for the evaluation. A recursive function
# definition whose body was compiled while only its own references were made depends on
# nothing unknown once it is compiled (``FunctionCompiler._fn_def_parts``).
REC_ORIGINS = [0]


def rec_node(fn: EvalFn, envmin: int = NOENV) -> C:
    """A node with ``rec`` set, counted in ``REC_ORIGINS``."""
    REC_ORIGINS[0] += 1
    return C(fn, rec=True, envmin=envmin)


def primed_reads(c: C) -> frozenset[int] | None:
    """The variables ``c`` reads in the next state, or None when that is not known."""
    if not c.primed:
        return frozenset()
    return c.pvars or None


def const(value: Any) -> C:
    return C(lambda s, t, e: value, value=value)


def derived(fn: EvalFn, *parts: C, envmin: int = NOENV, pure: bool = True) -> C:
    """A compiled node built from ``parts``: the union of their dependencies."""
    vs: frozenset[int] = frozenset()
    read: frozenset[int] = frozenset()  # the variables read outside such arguments
    primed, is_pure, rec = False, pure, False
    pvars: frozenset[int] | None = frozenset()
    for p in parts:
        if p.vars:
            vs = vs | p.vars
            read = read | (p.vars - p.deferred if p.deferred else p.vars)
        if p.primed:
            primed = True
            pvars = None if pvars is None or not p.pvars else pvars | p.pvars
        if p.envmin < envmin:
            envmin = p.envmin
        is_pure = is_pure and p.pure
        rec = rec or p.rec
    return C(fn, vs, primed, envmin, is_pure, rec, deferred=vs - read, pvars=pvars or frozenset())


_CANON: dict[Any, Any] = {}  # folded constants (containers), each the first object found
_CANON_LIMIT = 4_096
_CANON_SIZE = 64  # larger containers are not shared (nor kept alive here)


def canonical(v: Any) -> Any:
    """``v``, or a container folded before that is the same TLA+ value: the ``{}`` and
    ``[j \\in S |-> 0]`` of an action are then the very objects its Init put in the state,
    so an EXCEPT that writes one back leaves the function unchanged (the same object),
    which the identity checks of fingerprints, type checks and invariant parts see."""
    tv = type(v)
    if (tv is not tuple and tv is not frozenset and tv is not Fn) or len(v) > _CANON_SIZE:
        return v
    try:
        known = _CANON.get(v)
    except TypeError:  # holds something unhashable (not a value)
        return v
    if known is None:
        if len(_CANON) >= _CANON_LIMIT:
            _CANON.clear()
        _CANON[v] = v
        return v
    # Python's equality: [a |-> FALSE] == [a |-> 0]; a pun keeps its own object
    return known if same_value(known, v) else v


def cached(c: C, depth: int = 0) -> C:
    """``c`` (compiled at scope depth ``depth``) evaluated at most once when it is constant.

    A constant is folded right away when it evaluates without error; otherwise (say it
    reads a constant without a value, or fails in a branch never taken) it is evaluated
    on first use, so the error surfaces only if the expression is really needed. It is
    evaluated in an environment of ``depth`` unread slots: binders inside ``c`` put their
    variables at the slots they were compiled for.
    """
    if not c.constant or c.value is not _MISSING:
        return c
    fn = c.fn
    pad = (None,) * depth
    try:
        folded = fn((), None, pad)
    except (TlaError, RecursionError):
        pass
    else:
        return const(canonical(folded))
    box: list[Any] = []

    def once(s: Any, t: Any, e: tuple) -> Any:
        if box:
            return box[0]
        v = fn((), None, pad)
        box.append(v)
        return v

    return C(once)
