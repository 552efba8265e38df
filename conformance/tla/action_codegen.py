"""Generated code of action steps: one generator function per action.

``actions.ActionCompiler`` builds a step closure per node of an action (a conjunction, a
disjunction, ``\\E``, LET, IF, CASE, an operator call, a labelled call ...); each
enumerates by calling its children through ``yield from``. Every such closure registers
its *shape* here (``shaped``): what kind of node it is, the closures it calls and its
child steps. ``Codegen.generated`` turns a step into one generated generator function in
which the children's code is nested (``for`` loops, ``if`` statements, assignments of the
environment and of the label) instead of being called, with the same calls of the same
expression closures in the same order: the successors, their order, their labels and
errors are those of the closures. A child without a shape (a recursive operator's cell,
a ``\\A``, an enumeration ``x' \\in S``) is called; so is a child nested too deep for one
Python function (``_MAX_BLOCKS``, ``_MAX_INDENT``), and a branching child (``\\/``, IF,
CASE) followed by more than a ``yield`` (its continuation would be written once per
branch), each through its own generated function.

The split steps of the branch-error mode (``ActionCompiler.branch_errors``) have no
shape: that mode keeps the closures.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any
from weakref import WeakKeyDictionary

from conformance.tla.compiler import UNASSIGNED, Lazy
from conformance.tla.semantics.support import _function


@dataclass(frozen=True, slots=True)
class Shape:
    """A step closure's node: its ``kind``, the closures and values its code calls or
    reads (``uses``, by kind) and its child steps (``subs``)."""

    kind: str
    uses: tuple[Any, ...]
    subs: tuple[Any, ...] = ()


_SHAPES: WeakKeyDictionary[Callable[..., Any], Shape] = WeakKeyDictionary()

F = Callable[..., Any]


def shaped(fn: F, kind: str, uses: Sequence[Any] = (), subs: Sequence[Any] = ()) -> F:
    """``fn``, registered as a node of ``kind`` (see ``Shape``): a kind of step (they yield
    None; ``_STEP_WRITERS``) or of split step (they yield labels; ``_SPLIT_WRITERS``)."""
    assert kind in _STEP_WRITERS or kind in _SPLIT_WRITERS, kind
    _SHAPES[fn] = Shape(kind, tuple(uses), tuple(subs))
    return fn


_MAX_BLOCKS = 14  # nested loops in one function (Python allows 20)
_MAX_INDENT = 48  # nested statements in one function (Python allows 100)


# a continuation: the code run for each way a node succeeds, at (indentation, loops)
Cont = Callable[[int, int], list[str]]


class Codegen:
    """The generated functions of steps (kept per step closure, by identity)."""

    def __init__(self) -> None:
        self._made: dict[int, tuple[F, F]] = {}

    def generated(self, fn: F) -> F:
        """The generated function equivalent to the step or split step ``fn`` (``fn``
        itself when it has no shape)."""
        shape = _SHAPES.get(fn)
        if shape is None:
            return fn
        hit = self._made.get(id(fn))
        if hit is not None and hit[0] is fn:
            return hit[1]
        gen = _Writer(self).function(fn, shape.kind in _SPLIT_WRITERS)
        self._made[id(fn)] = (fn, gen)
        return gen


class _Writer:
    """The source and globals of one generated function."""

    def __init__(self, codegen: Codegen) -> None:
        self.codegen = codegen
        self.ns: dict[str, Any] = {"U": UNASSIGNED, "Lazy": Lazy}
        self.count = 0
        self._bound: dict[int, str] = {}

    def function(self, fn: F, split: bool) -> F:
        if split:
            head, body = "def act(s, t, e, lab):", self.split(fn, "e", "lab", 1, 0)
        else:
            head, body = "def act(s, t, e):", self.step(fn, "e", _Yield(), 1, 0)
        src = "\n".join([head, *body, "    return", "    yield", ""])
        return _function("act", src, self.ns)

    # names ----------------------------------------------------------------------------

    def bind(self, obj: Any) -> str:
        """A global name of the generated function for ``obj``."""
        name = self._bound.get(id(obj))
        if name is None:
            name = self._bound[id(obj)] = self.fresh("g")
            self.ns[name] = obj
        return name

    def fresh(self, prefix: str) -> str:
        self.count += 1
        return f"{prefix}{self.count}"

    def called(self, fn: F) -> str:
        """The name of ``fn``'s generated function (or of ``fn`` when it has none)."""
        return self.bind(self.codegen.generated(fn))

    # steps (continuation ``k``) --------------------------------------------------------

    def step(self, fn: F, e: str, k: Cont, ind: int, loops: int) -> list[str]:
        """Code running the step ``fn`` in environment ``e``, then ``k`` each time."""
        shape = _SHAPES.get(fn)
        if shape is None or ind > _MAX_INDENT or loops > _MAX_BLOCKS or (
                shape.kind in _BRANCHING and not isinstance(k, _Yield)):
            return self.opaque(fn, e, k, ind, loops)
        return _STEP_WRITERS[shape.kind](self, shape, e, k, ind, loops)

    def opaque(self, fn: F, e: str, k: Cont, ind: int, loops: int) -> list[str]:
        return [f"{_pad(ind)}for _ in {self.called(fn)}(s, t, {e}):", *k(ind + 1, loops + 1)]

    def block(self, block: F, e: str, k: Cont, ind: int, loops: int) -> list[str]:
        """Run a deterministic block; ``k`` if it holds, then unassign what it assigned."""
        d, p = self.fresh("d"), _pad(ind)
        return [f"{p}{d} = {self.bind(block)}(s, t, {e})",
                f"{p}if {d} is not None:",
                *k(ind + 1, loops),
                f"{p}    for j in {d}:",
                f"{p}        t[j] = U"]

    def split(self, fn: F, e: str, lab: str, ind: int, loops: int) -> list[str]:
        """Code running the split step ``fn`` (environment ``e``, label ``lab``), yielding
        the label of each way it succeeds."""
        shape = _SHAPES.get(fn)
        if shape is None or ind > _MAX_INDENT or loops > _MAX_BLOCKS:
            p, x = _pad(ind), self.fresh("x")
            return [f"{p}for {x} in {self.called(fn)}(s, t, {e}, {lab}):",
                    f"{p}    yield {x}"]
        return _SPLIT_WRITERS[shape.kind](self, shape, e, lab, ind, loops)


def _pad(ind: int) -> str:
    return "    " * ind


class _Yield:
    """The continuation of a whole step: yield (None, or the label held by ``lab``). A
    branching node writes it in each branch (any other continuation only once: the
    branching node is then called instead)."""

    __slots__ = ("lab",)

    def __init__(self, lab: str = "None") -> None:
        self.lab = lab

    def __call__(self, ind: int, loops: int) -> list[str]:
        return [f"{_pad(ind)}yield {self.lab}"]


# step writers ------------------------------------------------------------------------------

StepWriter = Callable[[_Writer, Shape, str, Cont, int, int], list[str]]


def _w_det(w: _Writer, sh: Shape, e: str, k: Cont, ind: int, loops: int) -> list[str]:
    return w.block(sh.uses[0], e, k, ind, loops)


def _w_run_det(w: _Writer, sh: Shape, e: str, k: Cont, ind: int, loops: int) -> list[str]:
    rest = sh.subs[0]
    return w.block(sh.uses[0], e, lambda i, n: w.step(rest, e, k, i, n), ind, loops)


def _w_chain(w: _Writer, sh: Shape, e: str, k: Cont, ind: int, loops: int) -> list[str]:
    first, rest = sh.subs
    return w.step(first, e, lambda i, n: w.step(rest, e, k, i, n), ind, loops)


# the code of one branch of a disjunction at an indentation (a step's or a split step's)
Branch = Callable[[Any, int], list[str]]


def _each(subs: Sequence[Any], branch: Branch, ind: int) -> list[str]:
    """A disjunction: each branch in turn."""
    out: list[str] = []
    for b in subs:
        out += branch(b, ind)
    return out or [f"{_pad(ind)}pass"]


def _selected(w: _Writer, sh: Shape, e: str, branch: Branch, ind: int) -> list[str]:
    """A dispatched disjunction: ``uses[0](e)`` gives the indices of the branches to try."""
    c, p = w.fresh("c"), _pad(ind)
    out = [f"{p}{c} = {w.bind(sh.uses[0])}({e})"]
    for j, b in enumerate(sh.subs):
        out += [f"{p}if {j} in {c}:", *branch(b, ind + 1)]
    return out


def _w_disj(w: _Writer, sh: Shape, e: str, k: Cont, ind: int, loops: int) -> list[str]:
    return _each(sh.subs, lambda b, i: w.step(b, e, k, i, loops), ind)


def _w_select(w: _Writer, sh: Shape, e: str, k: Cont, ind: int, loops: int) -> list[str]:
    return _selected(w, sh, e, lambda b, i: w.step(b, e, k, i, loops), ind)


def _w_if(w: _Writer, sh: Shape, e: str, k: Cont, ind: int, loops: int) -> list[str]:
    then, else_ = sh.subs
    p = _pad(ind)
    return [f"{p}if {w.bind(sh.uses[0])}(s, t, {e}):", *w.step(then, e, k, ind + 1, loops),
            f"{p}else:", *w.step(else_, e, k, ind + 1, loops)]


def _w_case(w: _Writer, sh: Shape, e: str, k: Cont, ind: int, loops: int) -> list[str]:
    """``uses``: the arms' guards, then the function raising when none holds; ``subs``:
    the arms' steps, then OTHER's (if any)."""
    guards, fail = sh.uses[:-1], sh.uses[-1]
    p, out = _pad(ind), []
    for j, g in enumerate(guards):
        out += [f"{p}{'if' if j == 0 else 'elif'} {w.bind(g)}(s, t, {e}):",
                *w.step(sh.subs[j], e, k, ind + 1, loops)]
    out.append(f"{p}else:")
    if len(sh.subs) > len(guards):
        out += w.step(sh.subs[-1], e, k, ind + 1, loops)
    else:
        out.append(f"{p}    {w.bind(fail)}()")
    return out


def _let_env(w: _Writer, builders: Sequence[F], e: str, ind: int) -> tuple[str, list[str]]:
    """The environment extended by the LET's definitions, built one after the other."""
    e2, p = w.fresh("e"), _pad(ind)
    out, cur = [], e
    for b in builders:
        out.append(f"{p}{e2} = (*{cur}, {w.bind(b)}(s, t, {cur}))")
        cur = e2
    return cur, out


def _w_let(w: _Writer, sh: Shape, e: str, k: Cont, ind: int, loops: int) -> list[str]:
    e2, out = _let_env(w, sh.uses, e, ind)
    return out + w.step(sh.subs[0], e2, k, ind, loops)


def _w_inline(w: _Writer, sh: Shape, e: str, k: Cont, ind: int, loops: int) -> list[str]:
    e2 = w.fresh("e")
    return [f"{_pad(ind)}{e2} = {w.bind(sh.uses[0])}(s, t, {e})",
            *w.step(sh.subs[0], e2, k, ind, loops)]


def _w_exists1(w: _Writer, sh: Shape, e: str, k: Cont, ind: int, loops: int) -> list[str]:
    v, e2, p = w.fresh("v"), w.fresh("e"), _pad(ind)
    return [f"{p}for {v} in {w.bind(sh.uses[0])}(s, t, {e}):",
            f"{p}    {e2} = (*{e}, {v})",
            *w.step(sh.subs[0], e2, k, ind + 1, loops + 1)]


def _w_exists1_guarded(w: _Writer, sh: Shape, e: str, k: Cont, ind: int, loops: int
                       ) -> list[str]:
    """``uses``: the domain, the range narrowing (or None), the leading guards."""
    dom, narrow, guard = sh.uses
    vs, v, e2, p = w.fresh("vs"), w.fresh("v"), w.fresh("e"), _pad(ind)
    out = [f"{p}{vs} = {w.bind(dom)}(s, t, {e})"]
    if narrow is not None:
        r = w.fresh("r")
        out += [f"{p}if type({vs}) is range:",
                f"{p}    {r} = {w.bind(narrow)}(s, t, {e}, {vs})",
                f"{p}    if {r} is not None:",
                f"{p}        {vs} = {r}"]
    return [*out, f"{p}for {v} in {vs}:",
            f"{p}    {e2} = (*{e}, {v})",
            f"{p}    if {w.bind(guard)}(s, t, {e2}):",
            *w.step(sh.subs[0], e2, k, ind + 2, loops + 1)]


def _w_exists(w: _Writer, sh: Shape, e: str, k: Cont, ind: int, loops: int) -> list[str]:
    e2 = w.fresh("e")
    return [f"{_pad(ind)}for {e2} in list({w.bind(sh.uses[0])}(s, t, {e})):",
            *w.step(sh.subs[0], e2, k, ind + 1, loops + 1)]


_STEP_WRITERS: dict[str, StepWriter] = {
    "det": _w_det, "run_det": _w_run_det, "chain": _w_chain, "disj": _w_disj,
    "select": _w_select, "if": _w_if, "case": _w_case, "let": _w_let, "inline": _w_inline,
    "exists1": _w_exists1, "exists1_guarded": _w_exists1_guarded, "exists": _w_exists,
}
# nodes that write their continuation once per branch
_BRANCHING = frozenset({"disj", "select", "if", "case"})


# split writers ----------------------------------------------------------------------------

SplitWriter = Callable[[_Writer, Shape, str, str, int, int], list[str]]


def _s_disj(w: _Writer, sh: Shape, e: str, lab: str, ind: int, loops: int) -> list[str]:
    return _each(sh.subs, lambda b, i: w.split(b, e, lab, i, loops), ind)


def _s_select(w: _Writer, sh: Shape, e: str, lab: str, ind: int, loops: int) -> list[str]:
    return _selected(w, sh, e, lambda b, i: w.split(b, e, lab, i, loops), ind)


def _s_exists1(w: _Writer, sh: Shape, e: str, lab: str, ind: int, loops: int) -> list[str]:
    v, e2, p = w.fresh("v"), w.fresh("e"), _pad(ind)
    return [f"{p}for {v} in {w.bind(sh.uses[0])}(s, t, {e}):",
            f"{p}    {e2} = (*{e}, {v})",
            *w.split(sh.subs[0], e2, lab, ind + 1, loops + 1)]


def _s_domain1(w: _Writer, sh: Shape, e: str, lab: str, ind: int, loops: int) -> list[str]:
    p = _pad(ind)  # the domain is evaluated (as TLC does) for a body with no successor
    return [f"{p}for _ in {w.bind(sh.uses[0])}(s, t, {e}):", f"{p}    pass"]


def _s_exists(w: _Writer, sh: Shape, e: str, lab: str, ind: int, loops: int) -> list[str]:
    e2 = w.fresh("e")
    return [f"{_pad(ind)}for {e2} in list({w.bind(sh.uses[0])}(s, t, {e})):",
            *w.split(sh.subs[0], e2, lab, ind + 1, loops + 1)]


def _s_domain(w: _Writer, sh: Shape, e: str, lab: str, ind: int, loops: int) -> list[str]:
    return [f"{_pad(ind)}list({w.bind(sh.uses[0])}(s, t, {e}))"]


def _s_let(w: _Writer, sh: Shape, e: str, lab: str, ind: int, loops: int) -> list[str]:
    e2, out = _let_env(w, sh.uses, e, ind)
    return out + w.split(sh.subs[0], e2, lab, ind, loops)


def _label(w: _Writer, uses: Sequence[Any], e: str, ind: int) -> tuple[str, list[str]]:
    """The raw label of a call (name, parameter names, location: ``uses``) with the
    values of the last ``len(parameter names)`` slots of ``e``, each shown (``_shown``)."""
    name, pnames, loc, shown = uses
    lab, p, n = w.fresh("l"), _pad(ind), len(pnames)
    if n == 0:
        vals = "()"
    else:
        xs = [w.fresh("w") for _ in range(n)]
        vals = "(" + "".join(f"{w.bind(shown)}({x}) if isinstance({x} := {e}[{j - n}], Lazy) "
                             f"else {x}, " for j, x in enumerate(xs)) + ")"
    return lab, [f"{p}{lab} = ({w.bind(name)}, {w.bind(pnames)}, {vals}, {w.bind(loc)})"]


def _s_labelled(w: _Writer, sh: Shape, e: str, lab: str, ind: int, loops: int) -> list[str]:
    """``uses``: the environment builder, then the label's parts (see ``_label``)."""
    e2 = w.fresh("e")
    out = [f"{_pad(ind)}{e2} = {w.bind(sh.uses[0])}(s, t, {e})"]
    lab2, lines = _label(w, sh.uses[1:], e2, ind)
    return out + lines + w.split(sh.subs[0], e2, lab2, ind, loops)


def _s_guarded(w: _Writer, sh: Shape, e: str, lab: str, ind: int, loops: int) -> list[str]:
    """``uses``: the environment builder, the leading guards, then the label's parts;
    ``subs``: the step of the rest of the body."""
    e2, p = w.fresh("e"), _pad(ind)
    lab2, lines = _label(w, sh.uses[2:], e2, ind + 1)
    return [f"{p}{e2} = {w.bind(sh.uses[0])}(s, t, {e})",
            f"{p}if {w.bind(sh.uses[1])}(s, t, {e2}):",
            *lines, *w.step(sh.subs[0], e2, _Yield(lab2), ind + 1, loops)]


def _s_leaf_det(w: _Writer, sh: Shape, e: str, lab: str, ind: int, loops: int) -> list[str]:
    return w.block(sh.uses[0], e, _Yield(lab), ind, loops)


def _s_leaf(w: _Writer, sh: Shape, e: str, lab: str, ind: int, loops: int) -> list[str]:
    return w.step(sh.subs[0], e, _Yield(lab), ind, loops)


def _s_never(w: _Writer, sh: Shape, e: str, lab: str, ind: int, loops: int) -> list[str]:
    return [f"{_pad(ind)}pass"]


_SPLIT_WRITERS: dict[str, SplitWriter] = {
    "sdisj": _s_disj, "sselect": _s_select, "sexists1": _s_exists1, "sdomain1": _s_domain1,
    "sexists": _s_exists, "sdomain": _s_domain, "slet": _s_let, "labelled": _s_labelled,
    "guarded": _s_guarded, "leaf_det": _s_leaf_det, "leaf": _s_leaf, "never": _s_never,
}

__all__ = ["Codegen", "Shape", "shaped"]
