"""TLC-style enumeration of actions and initial predicates.

An action is run against the current state ``s`` and a *partial* next state ``t`` (a list
holding ``UNASSIGNED`` for variables not assigned yet). Conjunctions are evaluated left to
right; ``x' = e`` assigns ``x'`` when it is unassigned and compares otherwise; ``x' \\in S``
enumerates; ``\\/`` and ``\\E`` branch; ``UNCHANGED`` assigns; ``IF``/``CASE``/``LET``
and operator calls are followed. ``Init`` uses the same machinery with unprimed
variables as the targets (the partial state is then also the state guards read).

Compiled steps are generator functions ``step(s, t, e)`` that mutate ``t`` in place,
yield once per way of satisfying the action so far, and restore ``t`` when resumed.
Consecutive guards and assignments are merged into one "block" so that the common
guard-and-assign action costs one generator.

Action labels (``ActionLabel``) name the innermost user operator reached while splitting
the next-state relation through ``\\/``, ``\\E``, ``LET`` and operator applications
before a conjunction is reached.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from functools import partial
from operator import is_
from typing import Any, NoReturn

from conformance.tla import stdlib as L
from conformance.tla import syntax as S
from conformance.tla.action_codegen import Codegen, shaped
from conformance.tla.astwalk import walk
from conformance.tla.compiler import (
    UNASSIGNED,
    Alias,
    C,
    Compiler,
    DefEntry,
    EvalFn,
    Lazy,
    LazySlot,
    LocalDef,
    Scope,
    SubstEntry,
    VarEntry,
    cached,
    located,
)
from conformance.tla.guard_dispatch import dispatcher, leading_test
from conformance.tla.semantics.arguments import FailedArg, assigned_check, unread_arg
from conformance.tla.semantics.compiled import primed_reads
from conformance.tla.semantics.support import _entered, _function, _operand, connective
from conformance.tla.syntax import EvalError, Loc, TlaError, UnsupportedError
from conformance.tla.values import Fn, Value, same_value

Step = Callable[[Any, list, tuple], Iterator[None]]
# a label while enumerating: (name, parameter names, parameter values, loc); the
# ActionLabel is built only for the successors actually produced
RawLabel = tuple[str, tuple[str, ...], tuple, Loc]
SplitStep = Callable[[Any, list, tuple, RawLabel], Iterator[RawLabel]]


@dataclass(frozen=True)
class ActionLabel:
    """Which disjunct of the next-state relation produced a successor."""

    name: str
    params: tuple[tuple[str, Value], ...]
    loc: Loc


# step kinds inside a deterministic block
_GUARD, _ASSIGN = 0, 1
# an op of a deterministic block: (_GUARD or _ASSIGN, variable index or -1, compiled
# expression, location of the assignment, to locate a failing comparison with a value
# assigned before)
Op = tuple[int, int, C, Loc | None]


@dataclass
class _Compiled:
    """A conjunct: either deterministic ops (guards/assignments) or a generator step."""

    det: list[Op] | None
    gen: Step | None


def _once(s: Any, t: list, e: tuple) -> Iterator[None]:
    yield None


def _never(s: Any, t: list, e: tuple, lab: RawLabel) -> Iterator[RawLabel]:
    """The split step of a call that never has a successor (``_opens_false``)."""
    return
    yield


shaped(_never, "never")


_is_unassigned = partial(is_, UNASSIGNED)


def _is_implication(node: S.Expr) -> bool:
    return isinstance(node, S.OpApp) and node.name == "=>" and len(node.args) == 2


class ActionCompiler:
    """Compiles actions (or, with ``init=True``, initial predicates) into steps."""

    def __init__(self, compiler: Compiler, var_names: Sequence[str], init: bool = False,
                 checks: Mapping[int, Callable[[Value], bool]] | None = None,
                 branch_errors: list[TlaError] | None = None) -> None:
        self.c = compiler
        self.var_names = tuple(var_names)
        self.init = init
        # per variable index, a test every value assigned to it must pass where it is assigned
        # (a caller that knows which next values it will keep prunes the others early)
        self.checks = dict(checks or {})
        # with a list, split() steps skip a disjunct whose evaluation fails (its assignments
        # undone) and record the error there, so the other disjuncts still give successors
        self.branch_errors = branch_errors
        # Keyed by id() of a definition object; each entry keeps that object alive (and is
        # checked against it), so an id can never be reused for another definition.
        self._def_cache: dict[tuple[int, frozenset[int] | None], tuple[Any, Step]] = {}
        self._split_cache: dict[tuple[int, frozenset[int] | None], tuple[Any, SplitStep]] = {}
        # explain(): the LET-defined CASE names seen on the way (name -> case, scope, environment)
        self._cases: dict[str, tuple[S.Case, Scope, tuple]] = {}
        self._inlining: set[int] = set()  # operators whose body is being substituted
        self._codegen = Codegen()
        # how many times TLC generates the successor being yielded: the product of the
        # branch counts of the conjuncts walked in branches that assign nothing
        # (``_branching_guard``); the rest of the action runs once for all of them
        self.multiplicity = [1]
        # the variables that may be assigned when the conjunct being compiled is reached
        # (None: not known): where some variable cannot be, TLC's shortcut for an action
        # whose variables are all assigned (``_assigned_once``) cannot apply
        self._before: frozenset[int] | None = frozenset()

    # classification -------------------------------------------------------------------

    def may_assign(self, node: S.Expr, scope: Scope) -> bool:
        """Whether ``node`` must be walked as an action (it may assign variables)."""
        if self.init:
            return True
        return self.c.expr(node, scope).primed

    def branches(self, node: S.Expr, scope: Scope, depth: int = 0) -> bool:
        """Whether TLC's enumeration of ``node`` as a conjunct of an action may go on in
        several branches even where it assigns nothing: TLC (Tool.getNextStates) walks a
        disjunction one disjunct at a time and ``\\E`` one witness at a time, through
        conjunctions, ``\\A``, IF, CASE, LET, the right side of ``=>`` and the operators it
        applies, so a state-level ``P \\/ Q`` with both true gives the rest of the action
        twice, and counts its successors twice among the states generated."""
        if depth > 30:
            return False
        if isinstance(node, S.Or) or (isinstance(node, S.Quant) and node.kind == "E"):
            return True
        if isinstance(node, S.Quant):
            return self.branches(node.body, scope, depth + 1)
        if isinstance(node, S.And):
            return any(self.branches(x, scope, depth + 1) for x in node.items)
        if isinstance(node, S.If):
            return self.branches(node.then, scope, depth + 1) or self.branches(node.else_, scope, depth + 1)
        if isinstance(node, S.Case):
            arms = [a.value for a in node.arms] + ([node.other] if node.other is not None else [])
            return any(self.branches(x, scope, depth + 1) for x in arms)
        if isinstance(node, S.Let):
            return self.branches(node.body, scope, depth + 1)
        if isinstance(node, S.OpApp) and node.name == "=>" and len(node.args) == 2 \
                and self.c.lookup("=>", scope) is None:
            return self.branches(node.args[1], scope, depth + 1)
        if isinstance(node, (S.Name, S.OpApp, S.InstanceOpApp)):
            target: Any = self.c.instance_target(node.path, node.name, node.loc, scope, node.path_args)[0] \
                if isinstance(node, S.InstanceOpApp) else self.c.lookup(node.name, scope)
            if isinstance(target, LazySlot) and target.unit is not None and target.scope is not None:
                return self.branches(target.unit.body, target.scope, depth + 1)
            if isinstance(target, DefEntry) and isinstance(target.unit, S.OpDef):
                return self.branches(target.unit.body, Scope(target.ctx, target.ctx.base), depth + 1)
            if isinstance(target, LocalDef) and isinstance(target.unit, S.OpDef):
                return self.branches(target.unit.body, target.scope, depth + 1)
        return False

    def _var_of(self, node: S.Expr, scope: Scope) -> int | None:
        """The index of the state variable ``node`` names (unshadowed), else None."""
        if isinstance(node, S.Name):
            local = scope.names.get(node.name)
            if isinstance(local, LazySlot):
                if local.alias is not None:
                    return self._var_of(*local.alias)  # a parameter passed by name
                if local.unit is not None and local.scope is not None:
                    return self._var_of(local.unit.body, local.scope)  # LET q == x
            if isinstance(local, Alias) and not local.primed:  # I(v) == INSTANCE M: I(x)
                return self._var_of(local.expr, local.scope)
            if local is not None:
                return None
            entry = scope.ctx.names.get(node.name)
            if isinstance(entry, VarEntry):
                return entry.index
            if isinstance(entry, SubstEntry) and isinstance(entry.expr, S.Name):
                return self._var_of(entry.expr, entry.scope)
        return None

    def _target(self, node: S.Expr, scope: Scope) -> int | None:
        """The variable assigned by ``node`` (``x'`` in actions, ``x`` in Init)."""
        if self.init:
            return self._var_of(node, scope)
        if isinstance(node, S.Prime):
            return self._var_of(node.expr, scope)
        if isinstance(node, S.Name):  # a parameter passed by name: Set(old, new) == new = ... with x'
            local = scope.names.get(node.name)
            if isinstance(local, LazySlot):
                if local.alias is not None:
                    return self._target(*local.alias)
                if local.unit is not None and local.scope is not None:
                    return self._target(local.unit.body, local.scope)  # LET q == new
        return None

    def _value(self, c: C, loc: Loc) -> EvalFn:
        """An expression closure, guarded in Init against reading unassigned variables."""
        return self._value_c(c, loc).fn

    def _value_c(self, c: C, loc: Loc) -> C:
        """``c``, guarded in Init against reading unassigned variables."""
        if not self.init:
            return c
        if c.primed:
            raise EvalError("a primed variable in an initial predicate", loc)
        if not c.vars - c.deferred:
            return c
        assigned = assigned_check(sorted(c.vars - c.deferred), self.var_names, loc)
        f = c.fn

        def checked(s: Any, t: Any, e: tuple) -> Any:
            assigned(s)
            return f(s, t, e)

        return C(checked, c.vars, c.primed)

    def _guard(self, node: S.Expr, scope: Scope) -> EvalFn:
        return self._guard_c(node, scope).fn

    def _guard_c(self, node: S.Expr, scope: Scope) -> C:
        """The conjunct ``node`` of an action, checked to be a boolean."""
        c = self.c.expr(node, scope)
        checked = self.c.checked(c, node.loc, "a conjunct of an action")
        return self._value_c(C(checked.fn, c.vars, c.primed, inline=checked.inline), node.loc)

    # conjunction level -------------------------------------------------------------------

    def step(self, node: S.Expr, scope: Scope) -> Step:
        """The generator step of an action expression."""
        return _as_step(self._conj(node, scope))

    def _conj(self, node: S.Expr, scope: Scope) -> _Compiled:
        if isinstance(node, S.And):
            return self._and(node.items, scope)
        if isinstance(node, S.OpApp) and node.name in ("=", "\\in") and len(node.args) == 2:
            i = self._target(node.args[0], scope)
            if i is not None:
                rhs = self.c.expr(node.args[1], scope)
                if node.name == "=":
                    return _Compiled([(_ASSIGN, i, self._value_c(rhs, node.loc), node.loc),
                                       *self._checked([i])], None)
                return _Compiled(None, self._enumerate(i, rhs, node.loc))
        if isinstance(node, S.Unchanged):
            parts = self._unchanged_parts(node.expr, scope)
            if len(parts) == 1 and parts[0][0] is None:  # no variable in it: one guard
                return _Compiled([(_GUARD, -1, self._guard_c(node, scope), None)], None)
            ops: list[Op] = []
            for i, expr, where in parts:  # in order, as TLC takes a tuple's items
                if i is not None:
                    ops.append((_ASSIGN, i, _reader(i), node.loc))
                    ops.extend(self._checked([i]))
                else:
                    ops.append((_GUARD, -1, self._guard_c(S.Unchanged(expr.loc, expr), where), None))
            return _Compiled(ops, None)
        if isinstance(node, S.ActionBox):
            if node.box:
                return self._conj(S.Or(node.loc, (node.action, S.Unchanged(node.loc, node.sub))),
                                  scope)
            changed = S.OpApp(node.loc, "~", (S.Unchanged(node.loc, node.sub),))
            return self._and((node.action, changed), scope)
        if not self.may_assign(node, scope):
            if self.branches(node, scope):
                gen = self._structural(node, scope) if not _is_implication(node) \
                    else self._implication(node, scope)  # type: ignore[arg-type]
                if gen is not None:
                    guard = self._guard(node, scope) if self._all_may_be_assigned() else None
                    # its branches counted by one generated function (no nested generators)
                    return _Compiled(None, self._branching_guard(guard, self._codegen.generated(gen)))
            return _Compiled([(_GUARD, -1, self._guard_c(node, scope), None)], None)
        gen = self._structural(node, scope)
        if gen is None:
            return _Compiled([(_GUARD, -1, self._guard_c(node, scope), None)], None)
        if not self.init and self._all_may_be_assigned() and self.branches(node, scope):
            gen = self._assigned_once(self._guard(node, scope), gen)
        return _Compiled(None, gen)

    def _all_may_be_assigned(self) -> bool:
        """Whether every variable may be assigned when the conjunct being compiled is
        reached (``_before``)."""
        return self._before is None or len(self._before) >= len(self.var_names)

    def _and(self, items: Sequence[S.Expr], scope: Scope) -> _Compiled:
        saved = self._before
        parts = []
        try:
            for k, x in enumerate(items):
                parts.append(self._conj(x, scope))
                if self._before is not None and k < len(items) - 1:  # (the last one's: unused)
                    reads = primed_reads(self.c.expr(x, scope))
                    self._before = None if reads is None else self._before | reads
        finally:
            self._before = saved
        # merge consecutive deterministic parts
        merged: list[_Compiled] = []
        for p in parts:
            if p.det is not None and merged and merged[-1].det is not None:
                merged[-1] = _Compiled(merged[-1].det + p.det, None)
            else:
                merged.append(p)
        if len(merged) == 1:
            return merged[0]
        steps = [_as_step(m) for m in merged]
        return _Compiled(None, _chain(merged, steps))

    def _checked(self, idx: Sequence[int]) -> list[Op]:
        """Guards that test the values just assigned to checked variables."""
        out: list[Op] = []
        for i in idx:
            test = self.checks.get(i)
            if test is not None:
                out.append((_GUARD, -1, C(_tester(i, test)), None))
        return out

    def _enumerate(self, i: int, rhs: C, loc: Loc) -> Step:
        """``x \\in S`` (``x' \\in S`` in an action): enumerates S while x is unassigned;
        once x has a value it only tests membership, as TLC does (``rval.member(lval)``),
        so that S may be infinite (``x = 1 /\\ x \\in Nat``)."""
        raw = self._value(rhs, loc)
        dom = self.c.domain_fn(C(raw, rhs.vars, rhs.primed, rhs.envmin,
                                 rhs.pure, rhs.rec), loc, ordered=rhs.constant)
        member = L.member
        value = raw
        if rhs.constant:  # the set, evaluated once
            box: list[Any] = []

            def value(s: Any, t: Any, e: tuple) -> Any:
                if not box:
                    box.append(raw(s, t, e))
                return box[0]

        def enum(s: Any, t: list, e: tuple) -> Iterator[None]:
            cur = t[i]
            if cur is UNASSIGNED:
                for v in dom(s, t, e):
                    t[i] = v
                    yield None
                t[i] = UNASSIGNED
            else:
                try:
                    found = member(cur, value(s, t, e))
                except TlaError as err:
                    raise located(err, loc) from None
                if found:
                    yield None

        return enum

    def _unchanged_parts(self, node: S.Expr, scope: Scope) -> list[tuple[int | None, S.Expr, Scope]]:
        """``UNCHANGED node`` taken apart as TLC's processUnchanged takes it: a variable
        (through definitions and substitutions; assigned if not yet), each item of a tuple
        in turn, and any other expression compared in both states (``None``)."""
        i = self._var_of(node, scope)
        if i is not None:
            return [(i, node, scope)]
        if isinstance(node, S.Tuple):
            out: list[tuple[int | None, S.Expr, Scope]] = []
            for item in node.items:
                out.extend(self._unchanged_parts(item, scope))
            return out
        entry: Any = None
        if isinstance(node, S.Name) and node.name not in scope.names:
            entry = scope.ctx.names.get(node.name)
        elif isinstance(node, S.InstanceOpApp) and not node.args:
            entry, _ = self.c.instance_target(node.path, node.name, node.loc, scope,
                                                   node.path_args)
        if isinstance(entry, DefEntry) and isinstance(entry.unit, S.OpDef) \
                and not entry.unit.params:
            return self._unchanged_parts(entry.unit.body, Scope(entry.ctx, entry.ctx.base))
        if isinstance(entry, SubstEntry):
            return self._unchanged_parts(entry.expr, entry.scope)
        return [(None, node, scope)]

    def _structural(self, node: S.Expr, scope: Scope) -> Step | None:
        """Steps of the branching/binding constructs; None for a plain guard."""
        if isinstance(node, S.Or):
            branches = [self.step(x, scope) for x in node.items]
            indices = self._dispatch(node, scope, len(branches))
            if indices is not None:

                def disj_dispatched(s: Any, t: list, e: tuple) -> Iterator[None]:
                    for j in indices(e):
                        yield from branches[j](s, t, e)

                return shaped(disj_dispatched, "select", [indices], branches)

            def disj(s: Any, t: list, e: tuple) -> Iterator[None]:
                for b in branches:
                    yield from b(s, t, e)

            return shaped(disj, "disj", (), branches)
        if isinstance(node, S.Quant):
            return self._quant(node, scope)
        if isinstance(node, S.If):
            cond = self._guard(node.cond, scope)
            then, else_ = self.step(node.then, scope), self.step(node.else_, scope)

            def if_(s: Any, t: list, e: tuple) -> Iterator[None]:
                if cond(s, t, e):
                    yield from then(s, t, e)
                else:
                    yield from else_(s, t, e)

            return shaped(if_, "if", [cond], [then, else_])
        if isinstance(node, S.Case):
            arms = [(self._guard(a.cond, scope), self.step(a.value, scope)) for a in node.arms]
            other = self.step(node.other, scope) if node.other is not None else None
            loc = node.loc

            def case(s: Any, t: list, e: tuple) -> Iterator[None]:
                for g, body in arms:
                    if g(s, t, e):
                        yield from body(s, t, e)
                        return
                if other is None:
                    _no_arm(loc)
                yield from other(s, t, e)

            return shaped(case, "case", [*(g for g, _ in arms), partial(_no_arm, loc)],
                          [*(b for _, b in arms), *([other] if other is not None else [])])
        if isinstance(node, S.Let):
            inner, builders, _ = self.c.let_scope(node, scope, volatile=True, init=self.init)
            body = self.step(node.body, inner)

            def let(s: Any, t: list, e: tuple) -> Iterator[None]:
                for b in builders:
                    e = (*e, b(s, t, e))
                yield from body(s, t, e)

            return shaped(let, "let", builders, [body])
        call = self._call(node, scope)
        if call is not None:
            enter, body_step, _, _ = call

            def inline(s: Any, t: list, e: tuple) -> Iterator[None]:
                yield from body_step(s, t, enter(s, t, e))

            return shaped(inline, "inline", [enter], [body_step])
        return None

    def _dispatch(self, node: S.Or, scope: Scope, n: int) -> Callable[[tuple], Sequence[int]] | None:
        """Which of the ``n`` disjuncts of ``node`` to try (their indices), chosen by their
        opening tests ``x.f = c`` (see ``guard_dispatch``); None when they do not share one."""
        return dispatcher([leading_test(self.c, x, scope) for x in node.items], range(n))

    def _leading_guard(self, node: S.Expr, scope: Scope) -> tuple[EvalFn, Step] | None:
        """For a conjunction opening with guards: (those guards, a step of the rest), so that
        a quantifier can test its guards without entering a step for every value."""
        if not isinstance(node, S.And):
            return None
        k = 0
        while k < len(node.items) - 1 and not self.may_assign(node.items[k], scope) \
                and not self.branches(node.items[k], scope):
            k += 1
        if k == 0:
            return None
        guards = [self._guard_c(x, scope) for x in node.items[:k]]
        rest = node.items[k:]
        step = self.step(rest[0] if len(rest) == 1 else S.And(node.loc, rest), scope)
        if len(guards) == 1:
            return guards[0].fn, step
        return connective("and", guards, *guards).fn, step

    def _branching_guard(self, guard: EvalFn | None, branches: Step) -> Step:
        """A conjunct that assigns nothing but that TLC walks in branches (``branches``),
        each going on with the rest of the action: while some variable is unassigned, the
        rest runs once, its successors counted once per branch that holds
        (``multiplicity``; they are the same states); once every variable is assigned, TLC
        (Tool.getNextStatesAllAssigned) evaluates what is left of the action as a
        boolean, once (``guard``; None where some variable cannot be assigned yet)."""
        mult = self.multiplicity

        def branching(s: Any, t: list, e: tuple) -> Iterator[None]:
            if guard is None or any(map(_is_unassigned, t)):
                base = mult[0]
                k = 0
                for _ in branches(s, t, e):
                    k += mult[0] // base  # a branch counted several times inside (nested)
                if k:
                    mult[0] = base * k
                    try:
                        yield None
                    finally:
                        mult[0] = base
            elif guard(s, t, e):
                yield None

        return branching

    @staticmethod
    def _assigned_once(guard: EvalFn, branches: Step) -> Step:
        """A conjunct that may assign, walked in ``branches``; but once every variable is
        assigned, TLC (Tool.getNextStatesAllAssigned) evaluates what is left of the action
        as a boolean, once (``guard``), so a disjunction of two true actions gives its
        successor once there."""

        def assigned_once(s: Any, t: list, e: tuple) -> Iterator[None]:
            if any(map(_is_unassigned, t)):
                yield from branches(s, t, e)
            elif guard(s, t, e):
                yield None

        return assigned_once

    def _implication(self, node: S.OpApp, scope: Scope) -> Step:
        """``P => Q`` as TLC enumerates it in an action: Q's branches where P holds, the
        rest of the action once where it does not."""
        cond = self._guard(node.args[0], scope)
        then = self.step(node.args[1], scope)

        def implies(s: Any, t: list, e: tuple) -> Iterator[None]:
            if cond(s, t, e):
                yield from then(s, t, e)
            else:
                yield None

        return implies

    def _quant(self, node: S.Quant, scope: Scope) -> Step:
        inner, expand, doms = self.c.bounds(node.bounds, scope, ordered=True,
                                            sort_dynamic=False)
        if node.kind == "E" and self.c._single_bound(node.bounds):
            dom = self.c.domain_fn(doms[0], node.bounds[0].domain.loc, ordered=True,
                                   sort_dynamic=False)
            split = self._leading_guard(node.body, inner)
            if split is not None:
                guard, rest = split
                narrow = self.c.range_narrowing(node.bounds[0], node.body, scope)

                def exists1_guarded(s: Any, t: list, e: tuple) -> Iterator[None]:
                    values = dom(s, t, e)
                    if narrow is not None and type(values) is range:
                        r = narrow(s, t, e, values)
                        if r is not None:
                            values = r
                    for v in values:
                        e2 = (*e, v)
                        if guard(s, t, e2):
                            yield from rest(s, t, e2)

                return shaped(exists1_guarded, "exists1_guarded", [dom, narrow, guard], [rest])
            body = self.step(node.body, inner)

            def exists1(s: Any, t: list, e: tuple) -> Iterator[None]:
                for v in dom(s, t, e):
                    yield from body(s, t, (*e, v))

            return shaped(exists1, "exists1", [dom], [body])
        body = self.step(node.body, inner)
        if node.kind == "E":

            def exists(s: Any, t: list, e: tuple) -> Iterator[None]:
                for e2 in list(expand(s, t, e)):
                    yield from body(s, t, e2)

            return shaped(exists, "exists", [expand], [body])

        def forall(s: Any, t: list, e: tuple) -> Iterator[None]:
            envs = list(expand(s, t, e))

            def run(k: int) -> Iterator[None]:
                if k == len(envs):
                    yield None
                    return
                for _ in body(s, t, envs[k]):
                    yield from run(k + 1)

            yield from run(0)

        return forall

    # operator calls ----------------------------------------------------------------------------

    def _call(self, node: S.Expr, scope: Scope
              ) -> tuple[EvalFn, Step, tuple[Any, tuple[str, ...]], Scope | None] | None:
        """For an application of a user operator: (environment builder, body step,
        (label key, parameter names), the body's scope when it is compiled for this call
        alone: its arguments are passed by name)."""
        args: tuple[S.Expr, ...] = ()
        if isinstance(node, S.Name):
            name, loc = node.name, node.loc
            target: Any = scope.names.get(name) or scope.ctx.names.get(name)
        elif isinstance(node, S.OpApp):
            name, args, loc = node.name, node.args, node.loc
            target = scope.names.get(name) or scope.ctx.names.get(name)
        elif isinstance(node, S.InstanceOpApp):
            name, args, loc = node.name, node.args, node.loc
            target, _ = self.c.instance_target(node.path, node.name, node.loc, scope,
                                                   node.path_args)
        else:
            return None
        if isinstance(target, SubstEntry) and args and isinstance(target.expr, S.Name):
            # an operator constant an INSTANCE substitutes by an operator (WITH Op <- Impl):
            # a call of Impl, its arguments written here (passed by name where they must be)
            target = self.c.lookup(target.expr.name, target.scope)
        if isinstance(target, LazySlot) and target.unit is not None and not args:
            assert target.scope is not None
            dscope = target.scope
            body = self._body_step(target, target.unit.body, dscope)
            depth = dscope.depth
            return (lambda s, t, e: e[:depth]), body, (target, ()), None
        if isinstance(target, (DefEntry, LocalDef)) and self.c.by_name(target, args):
            return self._call_by_name(target, args, loc, scope)
        if isinstance(target, DefEntry):
            prefix, dscope = target.ctx.base, Scope(target.ctx, target.ctx.base)
        elif isinstance(target, LocalDef):
            prefix, dscope = target.scope.depth, target.scope
        else:
            return None
        unit = target.unit
        if not isinstance(unit, S.OpDef):
            return None
        if len(unit.params) != len(args):
            raise EvalError(f"{name} takes {len(unit.params)} argument(s), got {len(args)}", loc)
        inner = self.c._def_scope(unit, dscope)
        body = self._body_step(target, unit.body, inner)
        strict = self.c.strict_params(unit, dscope)
        unread = self.c.unread_params(unit, dscope)
        cargs = [
            self.c.op_arg(a, p.arity, scope) if p.arity
            else unread_arg(p.name, name, a.loc) if p.name in unread
            else self.c.value_arg(a, scope, p.name in strict, partial(self._value, loc=a.loc))
            for a, p in zip(args, unit.params, strict=True)
        ]
        enter = _entered(prefix, cargs)
        return enter, body, (target, tuple(p.name for p in unit.params)), None

    def _call_by_name(self, target: DefEntry | LocalDef, args: Sequence[S.Expr], loc: Loc,
                      scope: Scope) -> tuple[EvalFn, Step, tuple[Any, tuple[str, ...]], Scope]:
        unit = target.unit
        assert isinstance(unit, S.OpDef)
        if id(unit) in self._inlining:
            raise UnsupportedError(
                f"recursive operator {unit.name} whose parameter is primed or assigned", loc)
        inner, builders, parts = self.c.by_name_scope(target, args, loc, scope, volatile=True,
                                                      init=self.init)
        # an argument passed by value is read at the call: in Init, not before the variables
        # it reads are assigned (its own C knows them)
        fs = [self._value(c, a.loc) if not isinstance(inner.names[p.name], LazySlot) else b
              for b, c, a, p in zip(builders, parts, args, unit.params, strict=True)]
        self._inlining.add(id(unit))
        try:
            body = self.step(unit.body, inner)
        finally:
            self._inlining.discard(id(unit))

        return _extended(fs), body, (target, tuple(p.name for p in unit.params)), inner

    def _body_step(self, key_obj: Any, body: S.Expr, scope: Scope) -> Step:
        key = (id(key_obj), self._before)  # compiled per context (``_before``)
        cached = self._def_cache.get(key)
        if cached is not None and cached[0] is key_obj:
            return cached[1]
        # recursion guard: a recursive action refers back through this cell
        cell: list[Step] = []

        def forward(s: Any, t: list, e: tuple) -> Iterator[None]:
            return cell[0](s, t, e)

        self._def_cache[key] = (key_obj, forward)
        step = self.step(body, scope)
        cell.append(step)
        self._def_cache[key] = (key_obj, step)
        return step

    # split level (labels) ---------------------------------------------------------------------

    def split(self, node: S.Expr, scope: Scope) -> SplitStep:
        """The step of ``node`` that also tracks the action label, as one generated
        function (``action_codegen``)."""
        return self._codegen.generated(self._split(node, scope))

    def _split(self, node: S.Expr, scope: Scope) -> SplitStep:
        """Steps that also track the action label."""
        if isinstance(node, S.Or):
            branches = [self._split(x, scope) for x in node.items]
            indices = self._dispatch(node, scope, len(branches))
            select = (lambda e: branches) if indices is None else \
                (lambda e: [branches[j] for j in indices(e)])
            errors = self.branch_errors
            if errors is not None:
                def disj_skipping(s: Any, t: list, e: tuple, lab: RawLabel) -> Iterator[RawLabel]:
                    for b in select(e):
                        before = list(t)
                        try:
                            yield from b(s, t, e, lab)
                        except TlaError as exc:
                            t[:] = before
                            errors.append(exc)

                return disj_skipping

            if indices is not None:

                def disj_dispatched(s: Any, t: list, e: tuple, lab: RawLabel
                                    ) -> Iterator[RawLabel]:
                    for j in indices(e):
                        yield from branches[j](s, t, e, lab)

                return shaped(disj_dispatched, "sselect", [indices], branches)

            def disj(s: Any, t: list, e: tuple, lab: RawLabel) -> Iterator[RawLabel]:
                for b in branches:
                    yield from b(s, t, e, lab)

            return shaped(disj, "sdisj", (), branches)
        if isinstance(node, S.Quant) and node.kind == "E" and self.may_assign(node, scope):
            inner, expand, doms = self.c.bounds(node.bounds, scope, ordered=True,
                                                sort_dynamic=False)
            body = self._split(node.body, inner)
            if self.c._single_bound(node.bounds):
                dom = self.c.domain_fn(doms[0], node.bounds[0].domain.loc, ordered=True,
                                       sort_dynamic=False)
                if body is _never:

                    def domain_only1(s: Any, t: list, e: tuple, lab: RawLabel) -> Iterator[RawLabel]:
                        for _ in dom(s, t, e):  # (the domain is evaluated, as TLC does)
                            pass
                        return
                        yield

                    return shaped(domain_only1, "sdomain1", [dom])

                def exists1(s: Any, t: list, e: tuple, lab: RawLabel) -> Iterator[RawLabel]:
                    for v in dom(s, t, e):
                        yield from body(s, t, (*e, v), lab)

                return shaped(exists1, "sexists1", [dom], [body])

            if body is _never:

                def domain_only(s: Any, t: list, e: tuple, lab: RawLabel) -> Iterator[RawLabel]:
                    list(expand(s, t, e))  # (the domains are evaluated, as TLC does)
                    return
                    yield

                return shaped(domain_only, "sdomain", [expand])

            def exists(s: Any, t: list, e: tuple, lab: RawLabel) -> Iterator[RawLabel]:
                for e2 in list(expand(s, t, e)):
                    yield from body(s, t, e2, lab)

            return shaped(exists, "sexists", [expand], [body])
        if isinstance(node, S.Let):
            inner, builders, _ = self.c.let_scope(node, scope, volatile=True, init=self.init)
            sbody = self._split(node.body, inner)

            def let(s: Any, t: list, e: tuple, lab: RawLabel) -> Iterator[RawLabel]:
                for b in builders:
                    e = (*e, b(s, t, e))
                yield from sbody(s, t, e, lab)

            return shaped(let, "slet", builders, [sbody])
        if isinstance(node, (S.Name, S.OpApp, S.InstanceOpApp)) and self.may_assign(node, scope):
            call = self._call(node, scope)
            if call is not None:
                enter, _, (target, pnames), by_name = call
                split_guards = None
                if by_name is None:
                    if not self.init:
                        if self._opens_false(*self._body_of(target)):
                            return _never
                        split_guards = self._leading_guard(*self._body_of(target))
                    if split_guards is None:
                        sb = self._split_body(target)
                else:
                    if not self.init and self._opens_false(target.unit.body, by_name):
                        return _never
                    self._inlining.add(id(target.unit))
                    try:
                        sb = self._split(target.unit.body, by_name)
                    finally:
                        self._inlining.discard(id(target.unit))
                name, loc = node.name, node.loc
                n = len(pnames)

                def labelled(s: Any, t: list, e: tuple, lab: RawLabel) -> Iterator[RawLabel]:
                    env = enter(s, t, e)
                    vals = tuple([_shown(v) if isinstance(v, Lazy) else v
                                  for v in env[len(env) - n:]]) if n else ()
                    yield from sb(s, t, env, (name, pnames, vals, loc))

                def labelled1(s: Any, t: list, e: tuple, lab: RawLabel) -> Iterator[RawLabel]:
                    env = enter(s, t, e)  # one parameter (the commonest case)
                    v = env[-1]
                    vals = (_shown(v) if isinstance(v, Lazy) else v,)
                    yield from sb(s, t, env, (name, pnames, vals, loc))

                if split_guards is None:
                    return shaped(labelled1 if n == 1 else labelled, "labelled",
                                  [enter, name, pnames, loc, _shown], [sb])
                guards, rest = split_guards

                def guarded(s: Any, t: list, e: tuple, lab: RawLabel) -> Iterator[RawLabel]:
                    # a body opening with guards (a conjunction whose steps stay within
                    # this label): the guards are tested before the other steps are set up
                    env = enter(s, t, e)
                    if not guards(s, t, env):
                        return
                    vals = tuple([_shown(v) if isinstance(v, Lazy) else v
                                  for v in env[len(env) - n:]]) if n else ()
                    label = (name, pnames, vals, loc)
                    for _ in rest(s, t, env):
                        yield label

                return shaped(guarded, "guarded", [enter, guards, name, pnames, loc, _shown],
                              [rest])
        comp = self._conj(node, scope)
        if comp.det is not None:
            block = _block(comp.det)

            def leaf_det(s: Any, t: list, e: tuple, lab: RawLabel) -> Iterator[RawLabel]:
                done = block(s, t, e)
                if done is not None:
                    yield lab
                    for j in done:
                        t[j] = UNASSIGNED

            return shaped(leaf_det, "leaf_det", [block])
        step = _as_step(comp)

        def leaf(s: Any, t: list, e: tuple, lab: RawLabel) -> Iterator[RawLabel]:
            for _ in step(s, t, e):
                yield lab

        return shaped(leaf, "leaf", (), [step])

    def _opens_false(self, body: S.Expr, scope: Scope) -> bool:
        """Whether an action call whose body (the called operator's, in ``scope``) opens
        with a conjunct that is the constant FALSE (as ``"AddVoterRequest" \\in
        VoterChangeRequests`` in a model without them) never has a successor, nor fails:
        such a body is strict in no parameter, so no argument is read (``strictness.py``)."""
        first = body.items[0] if isinstance(body, S.And) else body
        c = self.c.expr(first, scope)
        return c.constant and cached(c, scope.depth).value is False

    def _body_of(self, target: Any) -> tuple[S.Expr, Scope]:
        """The body of a called action operator and the scope it is compiled in."""
        if isinstance(target, LazySlot):
            assert target.unit is not None and target.scope is not None
            return target.unit.body, target.scope
        unit = target.unit
        assert isinstance(unit, S.OpDef)
        if isinstance(target, DefEntry):
            return unit.body, self.c._def_scope(unit, Scope(target.ctx, target.ctx.base))
        return unit.body, self.c._def_scope(unit, target.scope)

    def _split_body(self, target: Any) -> SplitStep:
        key = (id(target), self._before)
        cached = self._split_cache.get(key)
        if cached is not None and cached[0] is target:
            return cached[1]
        body, scope = self._body_of(target)
        cell: list[SplitStep] = []

        def forward(s: Any, t: list, e: tuple, lab: RawLabel) -> Iterator[RawLabel]:
            return cell[0](s, t, e, lab)

        self._split_cache[key] = (target, forward)
        step = self._split(body, scope)
        cell.append(step)
        self._split_cache[key] = (target, step)
        return step

    def enabled(self, node: S.Expr, scope: Scope) -> EvalFn:
        """``ENABLED node``: whether the action has a successor from the current state."""
        step = self.step(node, scope)
        n = len(self.var_names)

        def is_enabled(s: Any, t: Any, e: tuple) -> bool:
            return any(True for _ in step(s, [UNASSIGNED] * n, e))

        return is_enabled

    # explanations ------------------------------------------------------------------------------

    def explain(self, node: S.Expr, scope: Scope, s: Any, t: list, e: tuple,
                render: Callable[[S.Expr], str], limit: int = 20) -> list[tuple[Loc, str]]:
        """The first FALSE conjunct of each branch of ``node`` (empty if it is enabled).

        ``t`` may hold primed values already (an observed successor): an assignment to one of
        them is then a test. Where an IF picked a branch that cannot be satisfied, the reasons
        also say which way the IF went and, for each LET-defined name of its condition that is
        a CASE, the arm that chose the name's value."""
        out: list[tuple[Loc, str]] = []
        self._cases = {}
        if self._explain(node, scope, s, t, e, render, out, limit):
            return []  # some branch is enabled
        return out

    def _explain(self, node: S.Expr, scope: Scope, s: Any, t: list, e: tuple,
                 render: Callable[[S.Expr], str], out: list[tuple[Loc, str]], limit: int
                 ) -> bool:
        """Append reasons; return True when ``node`` is satisfiable from (t, e)."""
        if len(out) >= limit:
            return False
        if isinstance(node, S.And):
            partials = [list(t)]
            for item in node.items:
                step = self.step(item, scope)
                nxt: list[list] = []
                for p in partials:
                    nxt.extend(list(p) for _ in step(s, p, e))
                if not nxt:
                    for p in partials:
                        self._explain(item, scope, s, p, e, render, out, limit)
                    return False
                partials = nxt
            return True
        if not self.may_assign(node, scope) or (self._call(node, scope) is None and not \
                isinstance(node, (S.Or, S.Quant, S.If, S.Let, S.Case))):
            if any(True for _ in self.step(node, scope)(s, t, e)):
                return True
            out.append((node.loc, render(node)))
            return False
        if isinstance(node, S.Or):
            ok = False
            for x in node.items:
                ok = self._explain(x, scope, s, t, e, render, out, limit) or ok
            return ok
        if isinstance(node, S.Quant) and node.kind == "E":
            inner, expand, _ = self.c.bounds(node.bounds, scope, ordered=True, sort_dynamic=False)
            ok = False
            for e2 in list(expand(s, t, e)):
                ok = self._explain(node.body, inner, s, t, e2, render, out, limit) or ok
            return ok
        if isinstance(node, S.If):
            taken = bool(self._guard(node.cond, scope)(s, t, e))
            at = len(out)
            if self._explain(node.then if taken else node.else_, scope, s, t, e, render, out, limit):
                return True
            out[at:at] = [(node.cond.loc, f"IF {render(node.cond)} is {'TRUE' if taken else 'FALSE'}"),
                          *self._case_arms(node.cond, s, t, render)]
            return False
        if isinstance(node, S.Let):
            inner, builders, _ = self.c.let_scope(node, scope, volatile=True, init=self.init)
            for b in builders:
                e = (*e, b(s, t, e))
            for d in node.defs:
                if isinstance(d, S.OpDef) and not d.params and isinstance(d.body, S.Case):
                    self._cases[d.name] = (d.body, inner, e)
            return self._explain(node.body, inner, s, t, e, render, out, limit)
        call = self._call(node, scope)
        if call is not None:
            target = call[2][0]
            if call[3] is not None:
                return self._explain(target.unit.body, call[3], s, t, call[0](s, t, e), render,
                                     out, limit)
            if isinstance(target, (DefEntry, LocalDef)) and isinstance(target.unit, S.OpDef):
                unit = target.unit
                dscope = (Scope(target.ctx, target.ctx.base) if isinstance(target, DefEntry)
                          else target.scope)
                inner = self.c._def_scope(unit, dscope)
                return self._explain(unit.body, inner, s, t, call[0](s, t, e), render, out,
                                     limit)
        if any(True for _ in self.step(node, scope)(s, t, e)):
            return True
        out.append((node.loc, render(node)))
        return False


    def _case_arms(self, cond: S.Expr, s: Any, t: list, render: Callable[[S.Expr], str]
                   ) -> list[tuple[Loc, str]]:
        """For each LET-defined CASE name in ``cond``, the arm that gives its value."""
        out: list[tuple[Loc, str]] = []
        names = dict.fromkeys(n.name for n in walk(cond) if isinstance(n, S.Name))
        for name in names:
            if name not in self._cases:
                continue
            case, scope, e = self._cases[name]
            for arm in case.arms:
                if self._guard(arm.cond, scope)(s, t, e):
                    out.append((arm.cond.loc, f"{name} is {render(arm.value)}: CASE arm {render(arm.cond)} is TRUE"))
                    break
            else:
                if case.other is not None:
                    out.append((case.other.loc, f"{name} is {render(case.other)}: no CASE arm is TRUE (OTHER)"))
        return out


# ---------------------------------------------------------------------------
# Step plumbing
# ---------------------------------------------------------------------------


def _reader(i: int) -> C:
    return C(lambda s, t, e: s[i], reads=("var", i))


def _tester(i: int, test: Callable[[Value], bool]) -> EvalFn:
    return lambda s, t, e: test(t[i])


def _located_eq(loc: Loc | None) -> Callable[[Any, Any], bool]:
    """``values_equal`` whose failure (values TLC cannot compare) is located at ``loc``
    (the ``x' = e`` or ``UNCHANGED x`` that compares a value with the one assigned)."""
    eq = L.values_equal
    if loc is None:
        return eq

    def located_eq(a: Any, b: Any) -> bool:
        try:
            return eq(a, b)
        except TlaError as err:
            raise located(err, loc) from None

    return located_eq


def _extended(fs: Sequence[EvalFn]) -> EvalFn:
    """``(s, t, e) -> (*e, f(s, t, e) for each f in fs)``, generated (no loop)."""
    items = "".join(f"f{k}(s, t, e), " for k in range(len(fs)))
    return _function("enter", f"def enter(s, t, e):\n    return (*e, {items})\n",
                     {f"f{k}": f for k, f in enumerate(fs)})


def _block(ops: list[Op]) -> Callable[[Any, list, tuple], list[int] | None]:
    """Run guards and assignments in order; the indices assigned, or None if one failed."""
    if len(ops) == 1 and ops[0][0] == _GUARD:
        g = ops[0][2].fn
        return lambda s, t, e: [] if g(s, t, e) else None
    if len(ops) <= 64:
        return _straight_block(ops)
    located_ops = [(kind, i, c.fn, _located_eq(loc)) for kind, i, c, loc in ops]

    def block(s: Any, t: list, e: tuple) -> list[int] | None:
        done: list[int] = []
        for kind, i, f, eq in located_ops:
            if kind == _GUARD:
                if not f(s, t, e):
                    for j in done:
                        t[j] = UNASSIGNED
                    return None
            else:
                v = f(s, t, e)
                cur = t[i]
                if cur is UNASSIGNED:
                    t[i] = v
                    done.append(i)
                elif not eq(cur, v):
                    for j in done:
                        t[j] = UNASSIGNED
                    return None
        return done

    return block


def _straight_block(ops: list[Op]
                    ) -> Callable[[Any, list, tuple], list[int] | None]:
    """``_block`` as straight-line Python code (no interpretive loop over the ops)."""
    namespace: dict[str, Any] = {"U": UNASSIGNED, "Fn": Fn}
    lines = ["def block(s, t, e):", "    done = []"]
    fail = ["        for j in done:", "            t[j] = U", "        return None"]
    for k, (kind, i, c, loc) in enumerate(ops):
        value = _operand(c, f"F{k}", namespace)
        if kind == _GUARD:
            lines.append(f"    if not {value}:")
            lines.extend(fail)
        else:
            namespace[f"eq{k}"] = _located_eq(loc)
            lines += [
                f"    v = {value}",
                f"    cur = t[{int(i)}]",
                "    if cur is U:",
                f"        t[{int(i)}] = v",
                f"        done.append({int(i)})",
                f"    elif not eq{k}(cur, v):",
            ]
            lines.extend(fail)
    lines.append("    return done")
    return _function("block", "\n".join(lines), namespace)


def _as_step(c: _Compiled) -> Step:
    if c.gen is not None:
        return c.gen
    assert c.det is not None
    block = _block(c.det)

    def det(s: Any, t: list, e: tuple) -> Iterator[None]:
        done = block(s, t, e)
        if done is not None:
            yield None
            for j in done:
                t[j] = UNASSIGNED

    return shaped(det, "det", [block])


def _chain(parts: list[_Compiled], steps: list[Step]) -> Step:
    """Run ``steps`` one after the other (each continuing every way the previous succeeded)."""
    if len(steps) == 1:
        return steps[0]
    rest = _chain(parts[1:], steps[1:])
    first = parts[0]
    if first.det is not None:
        block = _block(first.det)

        def run_det(s: Any, t: list, e: tuple) -> Iterator[None]:
            done = block(s, t, e)
            if done is not None:
                yield from rest(s, t, e)
                for j in done:
                    t[j] = UNASSIGNED

        return shaped(run_det, "run_det", [block], [rest])
    gen = steps[0]

    def run(s: Any, t: list, e: tuple) -> Iterator[None]:
        for _ in gen(s, t, e):
            yield from rest(s, t, e)

    return shaped(run, "chain", (), [gen, rest])


def _no_arm(loc: Loc) -> NoReturn:
    raise EvalError("no arm of CASE is true and there is no OTHER", loc)


def _shown(v: Lazy) -> Any:
    """A parameter passed by name, for a label: its value, or its error kept (the action
    may never read it, and TLC would not evaluate it)."""
    try:
        return v.get()
    except TlaError as err:
        return FailedArg(err)


def make_label(raw: RawLabel) -> ActionLabel:
    """The label of a successor; a parameter whose argument failed is left out (the
    action never read it, and TLC never evaluates it)."""
    name, pnames, vals, loc = raw
    return ActionLabel(name, tuple((p, v) for p, v in zip(pnames, vals, strict=True)
                                   if type(v) is not FailedArg), loc)


class LabelCache:
    """The ``ActionLabel`` of each raw label met, kept across states (bounded): most
    successors of most states are labelled by the same few actions and parameters."""

    def __init__(self, limit: int = 1 << 14) -> None:
        # by (name, parameter names, values, id of the location): (the raw label, which
        # keeps the location alive so that its id is not reused, the label)
        self._known: dict[Any, tuple[RawLabel, ActionLabel]] = {}
        self._limit = limit

    def __call__(self, raw: RawLabel) -> ActionLabel:
        vals = raw[2]
        key = (raw[0], raw[1], vals, id(raw[3]))
        known = self._known
        hit = known.get(key)
        if hit is not None and hit[0][3] is raw[3]:
            if all(map(is_, hit[0][2], vals)):
                return hit[1]
            # a hit counts only for the same TLA+ values (Python: (TRUE) == (1)); the entry
            # then takes these objects, met first by identity next time
            if same_value(hit[0][2], vals):
                known[key] = (raw, hit[1])
                return hit[1]
        label = make_label(raw)
        if len(known) >= self._limit:
            known.clear()
        known[key] = (raw, label)
        return label


def check_complete(t: list, var_names: Sequence[str], label: ActionLabel | RawLabel | str
                   ) -> tuple:
    """The finished next state; an error naming the variables the action left unassigned."""
    if UNASSIGNED in t:
        missing = [n for n, v in zip(var_names, t, strict=True) if v is UNASSIGNED]
        if isinstance(label, tuple):
            label = make_label(label)
        name = label.name if isinstance(label, ActionLabel) else label
        loc = label.loc if isinstance(label, ActionLabel) else None
        raise EvalError(
            f"action {name} does not assign the variable(s) {', '.join(missing)}", loc)
    return tuple(t)


__all__ = ["ActionCompiler", "ActionLabel", "LabelCache", "RawLabel", "check_complete", "make_label"]
