"""The evaluator's public face: a loaded module with bound constants, ready to evaluate.

``Model.load`` parses the module (and the modules it extends or instantiates), binds the
CONSTANTS, applies cfg overrides (``X <- Def``) and checks the ASSUMEs. Definitions are
compiled into closures on first use and cached for the model's lifetime.

A CONSTANT that has neither a value nor an override is reported when it is first
needed (evaluating an expression that reads it raises ``EvalError`` naming the constant
and the place that reads it); ``Model.missing_constants()`` lists them up front.
"""

from __future__ import annotations

import re
import sys
from collections.abc import Callable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

from conformance.tla import syntax as S
from conformance.tla.actions import (
    ActionCompiler,
    ActionLabel,
    LabelCache,
    RawLabel,
    check_complete,
    make_label,
)
from conformance.tla.compiler import (
    UNASSIGNED,
    C,
    Compiler,
    ConstEntry,
    ContextBuilder,
    Ctx,
    DefEntry,
    Entry,
    Scope,
    primed_reads,
)
from conformance.tla.conjuncts import named_conjuncts
from conformance.tla.loader import ModuleLoader
from conformance.tla.parser import parse_expression
from conformance.tla.printer import render
from conformance.tla.stdlib import Runtime
from conformance.tla.syntax import EvalError, Loc, Module, TlaError, Unit
from conformance.tla.values import Value, reuse_equal

State = tuple[Value, ...]

_IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")

__all__ = ["ActionLabel", "Model", "State"]

# A recursive TLA+ definition costs a few Python frames per level: allow deep recursion.
_RECURSION_LIMIT = 20_000


def _too_deep(loc: Loc) -> EvalError:
    return EvalError("evaluation recursed too deeply (a recursive definition without a "
                     "reachable base case?)", loc)


def _guarded(c: C, state: Any, next_state: Any, loc: Loc) -> Any:  # (a lazy set too)
    try:
        return c.fn(state, next_state, ())
    except RecursionError:
        raise _too_deep(loc) from None


class Model:
    """A module with its constants bound: evaluation of expressions, Init and actions."""

    module: Module
    variables: tuple[str, ...]
    constants: dict[str, Value]

    def __init__(
        self,
        module: Module,
        loader: ModuleLoader,
        constants: Mapping[str, Value] = {},
        overrides: Mapping[str, str] = {},
        seed: int = 0,
        run: Value | None = None,
    ) -> None:
        """``run``: the record ``TLCGet("config")`` gives (the command's settings), or None."""
        if sys.getrecursionlimit() < _RECURSION_LIMIT:
            sys.setrecursionlimit(_RECURSION_LIMIT)
        self.module = module
        self.loader = loader
        self.constants = dict(constants)
        self.runtime = Runtime(seed)
        self.runtime.config = run
        self._builder = ContextBuilder(loader)
        self.root: Ctx = self._builder.build_root(module)
        self.variables = tuple(self._builder.variables)
        self._compiler = Compiler(self.constants, self.runtime, self.variables)
        self._bind_definitions()
        self._apply_overrides(overrides)
        self._apply_module_constants()
        self._actions = ActionCompiler(self._compiler, self.variables)
        # while raw_successors yields a successor: how many times TLC generates it
        self.multiplicity = self._actions.multiplicity
        self._compiler.enabled = self._actions.enabled
        self._inits = ActionCompiler(self._compiler, self.variables, init=True)
        self._expr_cache: dict[Any, tuple[Any, C]] = {}
        self._step_cache: dict[Any, Any] = {}
        self._labels = LabelCache()  # the labels of successors
        # the action compiler of action_successors(..., checks) and the checks it was built for
        self._checked: tuple[Mapping[int, Callable[[Value], bool]], ActionCompiler, dict[Any, Any]] | None = None
        # the action compiler of successors_skipping_errors and its split steps per action
        self._skipping: tuple[ActionCompiler, dict[Any, Any]] | None = None
        self._check_assumes()

    @classmethod
    def load(
        cls,
        spec: Path | str,
        constants: Mapping[str, Value] = {},
        overrides: Mapping[str, str] = {},
        search_path: Sequence[Path | str] = (),
        run: Value | None = None,
    ) -> Model:
        loader = ModuleLoader(search_path)
        module = loader.load_file(spec)
        return cls(module, loader, constants, overrides, run=run)

    # setup ----------------------------------------------------------------------------

    def _apply_overrides(self, overrides: Mapping[str, str]) -> None:
        for key, target in overrides.items():
            entry = self.root.names.get(target)
            if not isinstance(entry, DefEntry):
                raise EvalError(
                    f"override {key} <- {target}: {target} is not a definition of module "
                    f"{self.module.name}", self.module.loc)
            if "!" in key:
                self._apply_module_override(key, entry)
                continue
            name = key
            found = False
            for ctx in self._builder.root_contexts:
                if name in ctx.names:
                    ctx.names[name] = entry
                    found = True
            if not found and not self._builder.override_std(name, entry):
                raise EvalError(
                    f"override {name} <- {target}: {name} is not declared or defined in module "
                    f"{self.module.name}", self.module.loc)

    def _apply_module_constants(self) -> None:
        """``X = [Mod] v`` (constants key ``Mod!X``): X of module Mod is the value v, as
        ``X <- [Mod] Def`` makes it Def (the value is the constant named ``Mod!X``)."""
        for key in [k for k in self.constants if "!" in k]:
            module, name = key.split("!", 1)
            self._apply_module_override(key, ConstEntry(key, 0, self.module.loc),
                                        f"constant {name} = [{module}] ...")

    def _apply_module_override(self, key: str, entry: Entry, what: str | None = None) -> None:
        """``X <- [Mod] Def`` (key ``Mod!X``): X of module Mod, wherever it is visible
        (modules extending Mod, its instances, also those built later), becomes Def."""
        module, name = key.split("!", 1)
        if what is None:
            what = f"override {name} <- [{module}] {getattr(entry, 'name', '')}"
        builder = self._builder
        try:
            mod = self.loader.load(module)
        except TlaError as err:
            raise EvalError(f"{what}: {err.message}", self.module.loc) from None
        if not any(getattr(u, "name", None) == name for u in mod.units
                   if isinstance(u, (S.OpDef, S.FnDef, S.ConstantDecl))):
            raise EvalError(f"{what}: module {module} neither declares nor defines {name}",
                            self.module.loc)
        tables = [c.names for c in builder.contexts]
        for ctx in builder.contexts:
            if ctx.module == module and name in ctx.names:
                builder.replace_entry(ctx.names[name], entry, tables)
        builder.module_overrides.setdefault(module, {})[name] = entry

    def _bind_definitions(self) -> None:
        """A value given to a defined (not declared) zero-arity operator replaces its
        definition, as TLC does with ``None = None`` for ``None == CHOOSE v : v \\notin S``."""
        for name in self.constants:
            if name in self._builder.const_entries:
                continue
            for ctx in self._builder.root_contexts:
                entry = ctx.names.get(name)
                if isinstance(entry, DefEntry) and isinstance(entry.unit, S.OpDef) \
                        and not entry.unit.params:
                    ctx.names[name] = ConstEntry(name, 0, entry.unit.loc)

    def undeclared_constants(self) -> list[str]:
        """Names given a value that the module neither declares nor defines (TLC refuses
        such a model)."""
        return [name for name in self.constants
                if "!" not in name  # X = [Mod] v: checked where it is applied
                and name not in self._builder.const_entries
                and not isinstance(self.root.names.get(name), ConstEntry)]

    def _check_assumes(self) -> None:
        self.runtime.expanding(None, -1)  # TLCGet("level") is 0 in an ASSUME
        try:
            self._assumes_hold()
        finally:
            self.runtime.expanding(None, None)

    def _assumes_hold(self) -> None:
        for unit, ctx in self._builder.assumes:
            c = self._compiler.expr(unit.expr, Scope(ctx, ctx.base))
            self._require_constant_level(c, unit.loc, "an ASSUME")
            v = c.fn((), None, ())
            if v is not True:
                what = "false" if v is False else "not a boolean"
                raise EvalError(f"Assumption line {unit.loc.line}, col {unit.loc.col} of module "
                                f"{Path(unit.loc.file).stem} is {what} (ASSUME is "
                                f"{'FALSE' if v is False else 'not a boolean'})", unit.loc)

    def missing_constants(self) -> list[str]:
        """Declared constants with neither a value nor an override."""
        out = []
        for name in self._builder.const_entries:
            entry = self.root.names.get(name)
            if not isinstance(entry, DefEntry) and name not in self.constants:
                out.append(name)
        return out

    # definitions ------------------------------------------------------------------------

    def has_definition(self, name: str) -> bool:
        return isinstance(self.root.names.get(name), DefEntry)

    def definition(self, name: str) -> Unit:
        entry = self.root.names.get(name)
        if not isinstance(entry, DefEntry):
            raise EvalError(f"module {self.module.name} has no definition {name}")
        return entry.unit

    # compiling ----------------------------------------------------------------------------

    def _expr_of(self, what: str | S.Expr) -> S.Expr:
        if isinstance(what, S.Expr):
            return what
        if _IDENT.match(what) or isinstance(self.root.names.get(what), DefEntry):  # (" lifted 1")
            entry = self.root.names.get(what)
            loc = entry.unit.loc if isinstance(entry, DefEntry) else self.module.loc
            return S.Name(loc, what)
        return parse_expression(what)

    def _compiled(self, what: str | S.Expr) -> C:
        key = what if isinstance(what, str) else id(what)
        hit = self._expr_cache.get(key)
        if hit is not None:
            return hit[1]
        c = self._compiler.expr(self._expr_of(what), Scope(self.root, 0))
        self._expr_cache[key] = (what, c)
        return c

    @staticmethod
    def _require_constant_level(c: C, loc: Loc, what: str) -> None:
        if c.vars or c.primed:
            raise EvalError(f"{what} must be constant-level but reads state variables", loc)

    def is_pure(self, what: str | S.Expr) -> bool:
        """Whether two evaluations of an expression in the same state always agree (it
        calls no RandomElement, Print, TLCGet, ...)."""
        c = self._compiled(what)
        return c.pure and not c.rec

    def variables_read(self, what: str | S.Expr) -> frozenset[int]:
        """Indices of the state variables an expression reads (all of them when the compiler
        cannot tell): a state whose variables at these indices are unchanged gives it the
        same value."""
        c = self._compiled(what)
        return frozenset(range(len(self.variables))) if c.rec or c.primed else c.vars

    def step_reads(self, what: str | S.Expr) -> tuple[frozenset[int], frozenset[int]] | None:
        """The variables an action (or any expression) reads in the current state and in
        the next, when the compiler knows them and the expression is pure: two steps whose
        states agree on those gives it the same value. None otherwise."""
        c = self._compiled(what)
        primed = primed_reads(c)
        if primed is None or c.rec or not c.pure or c.env:
            return None
        return c.vars, primed

    # evaluation -------------------------------------------------------------------------------

    def eval_constant(self, what: str | S.Expr) -> Any:
        c = self._compiled(what)
        expr = self._expr_of(what)
        self._require_constant_level(c, expr.loc, "this expression")
        return _guarded(c, (), None, expr.loc)

    def eval_state(self, what: str | S.Expr, state: State) -> Any:
        self._check_state(state)
        try:
            return self._compiled(what).fn(state, None, ())
        except RecursionError:
            raise _too_deep(self._expr_of(what).loc) from None

    def eval_action(self, what: str | S.Expr, state: State, next_state: State) -> Any:
        self._check_state(state)
        self._check_state(next_state)
        try:
            return self._compiled(what).fn(state, next_state, ())
        except RecursionError:
            raise _too_deep(self._expr_of(what).loc) from None

    def state_function(self, what: str | S.Expr) -> Callable[[State], Any]:
        """``eval_state`` of ``what`` as a function of the state, compiled once (for callers
        evaluating the same invariant or view on many states; the state is not checked)."""
        return self._on_state(self._compiled(what).fn, self._expr_of(what).loc)

    def invariant_parts(self, name: str) -> list[tuple[Callable[[State], Any], tuple[int, ...] | None]]:
        """The conjuncts of the state predicate ``name`` (split through parameterless
        definitions whose body is a conjunction), in order, each as a function of the state
        with the indices of the variables it reads: a state that agrees with another on those
        variables gives it the same value. ``None`` instead of indices when that cannot be
        told (an impure operator such as RandomElement, a definition still compiling)."""
        entry = self.root.names.get(name)
        if not isinstance(entry, DefEntry) or not isinstance(entry.unit, S.OpDef) or entry.unit.params:
            fn = self.state_function(name)
            return [(fn, None)]
        out: list[tuple[Callable[[State], Any], tuple[int, ...] | None]] = []
        for _, expr, ctx in named_conjuncts(entry.unit.body, entry.ctx, name):
            c = self._compiler.expr(expr, Scope(ctx, ctx.base))
            deps = None if c.rec or c.primed or not c.pure else tuple(sorted(c.vars))
            out.append((self._on_state(c.fn, expr.loc), deps))
        return out

    @staticmethod
    def _on_state(fn: Any, loc: Loc) -> Callable[[State], Any]:
        """A compiled state-level function as a function of the state alone."""
        def on_state(state: State) -> Any:
            try:
                return fn(state, None, ())
            except RecursionError:
                raise _too_deep(loc) from None

        return on_state

    def action_function(self, what: str | S.Expr) -> Callable[[State, State], Any]:
        """``eval_action`` of ``what`` as a function of the two states, compiled once."""
        fn = self._compiled(what).fn
        loc = self._expr_of(what).loc

        def on_step(state: State, next_state: State) -> Any:
            try:
                return fn(state, next_state, ())
            except RecursionError:
                raise _too_deep(loc) from None

        return on_step

    def bound_function(self, expr: S.Expr, names: Sequence[str] = ()
                       ) -> tuple[Callable[[State, State | None, tuple[Value, ...]], Any], bool]:
        """``expr`` compiled at the module's top level with ``names`` bound, in order, to
        the values of the environment argument; and whether it reads the next state.
        (For formulas taken apart outside the compiler, e.g. quantified fairness.)"""
        c = self._compiler.expr(expr, Scope(self.root, 0).bind(*names))
        return c.fn, c.primed

    def _check_state(self, state: State) -> None:
        if len(state) != len(self.variables):
            raise EvalError(
                f"a state of {len(state)} values given to a model of {len(self.variables)} "
                f"variables ({', '.join(self.variables)})")

    # Init and actions --------------------------------------------------------------------------

    def _action_root(self, what: str | S.Expr) -> tuple[S.Expr, str, Loc]:
        expr = self._expr_of(what)
        name = what if isinstance(what, str) and _IDENT.match(what) else "Action"
        return expr, name, expr.loc

    def init_states(self, init: str | S.Expr = "Init") -> Iterator[State]:
        key = ("init", init if isinstance(init, str) else id(init))
        hit = self._step_cache.get(key)
        if hit is None or hit[0] is not init:
            expr, _, _ = self._action_root(init)
            # the entry keeps ``init`` alive, so its id is never reused for another expression
            hit = self._step_cache[key] = (init, self._inits.step(expr, Scope(self.root, 0)))
        step = hit[1]
        name = init if isinstance(init, str) else "Init"
        n = len(self.variables)
        t = [UNASSIGNED] * n
        for _ in step(t, t, ()):
            yield check_complete(t, self.variables, name)

    def _split_step(self, next: str | S.Expr, compiler: ActionCompiler, cache: dict[Any, Any]) -> tuple[Any, Any]:
        """``next`` compiled by ``compiler`` into a step tracking action labels (cached in
        ``cache``), and the label of its top level."""
        key = ("next", next if isinstance(next, str) else id(next))
        hit = cache.get(key)
        if hit is None or hit[0] is not next:
            expr, name, loc = self._action_root(next)
            split = compiler.split(expr, Scope(self.root, 0))
            # the entry keeps ``next`` alive, so its id is never reused for another expression
            hit = cache[key] = (next, split, (name, (), (), loc))
        return hit[1], hit[2]

    def successors(self, state: State, next: str | S.Expr = "Next", share: bool = True
                   ) -> Iterator[tuple[ActionLabel, State]]:
        """The labelled successors of ``state``; ``share``: with the parent's objects for the
        values an action rebuilt equal (``reuse_equal``; a caller that interns values does
        that itself)."""
        labels = self._labels
        for raw, succ in self.raw_successors(state, next, share):
            yield labels(raw), succ

    def raw_successors(self, state: State, next: str | S.Expr = "Next", share: bool = True
                       ) -> Iterator[tuple[RawLabel, State]]:
        """``successors`` with raw labels (``make_label`` gives the label): for a caller that
        needs the labels of few of them."""
        split, top = self._split_step(next, self._actions, self._step_cache)
        if len(state) != len(self.variables):
            self._check_state(state)
        t = [UNASSIGNED] * len(self.variables)
        names = self.variables
        for raw in split(state, t, (), top):
            if UNASSIGNED in t:
                check_complete(t, names, raw)
            yield raw, reuse_equal(tuple(t), state) if share else tuple(t)

    def successors_skipping_errors(self, state: State, next: str | S.Expr = "Next"
                                   ) -> tuple[list[tuple[ActionLabel, State]], list[TlaError]]:
        """The successors of ``state`` from every disjunct of ``next`` whose evaluation does not
        fail, and the errors of those that fail (``successors`` stops at the first). For
        checking one action's step in a state where another action is undefined."""
        if self._skipping is None:
            self._skipping = (ActionCompiler(self._compiler, self.variables, branch_errors=[]), {})
        compiler, cache = self._skipping
        errors = compiler.branch_errors
        assert errors is not None
        split, top = self._split_step(next, compiler, cache)
        self._check_state(state)
        errors.clear()
        t = [UNASSIGNED] * len(self.variables)
        out: list[tuple[ActionLabel, State]] = []
        try:
            for raw in split(state, t, (), top):
                if UNASSIGNED in t:
                    check_complete(t, self.variables, raw)
                out.append((make_label(raw), tuple(t)))
        except TlaError as exc:  # outside every disjunction
            errors.append(exc)
        found = list(errors)
        errors.clear()
        return out, found

    def _action_step(self, action: str, checks: Mapping[int, Callable[[Value], bool]] | None = None
                     ) -> tuple[Any, int, DefEntry]:
        compiler, cache = self._actions, self._step_cache
        if checks:
            if self._checked is None or self._checked[0] is not checks:
                self._checked = (checks, ActionCompiler(self._compiler, self.variables, checks=checks), {})
            _, compiler, cache = self._checked
        key = ("action", action)
        hit = cache.get(key)
        if hit is None:
            entry = self.root.names.get(action)
            if not isinstance(entry, DefEntry) or not isinstance(entry.unit, S.OpDef):
                raise EvalError(f"module {self.module.name} has no action operator {action}")
            scope = self._compiler._def_scope(entry.unit, Scope(entry.ctx, entry.ctx.base))
            step = compiler.step(entry.unit.body, scope)
            hit = (step, len(entry.unit.params), entry)
            cache[key] = hit
        return hit

    def action_successors(self, action: str, args: Sequence[Value], state: State,
                          checks: Mapping[int, Callable[[Value], bool]] | None = None) -> Iterator[State]:
        """The successors of ``state`` under ``action(args)``. With ``checks`` (variable index ->
        test), a way through the action ends where it assigns a checked variable a value that
        fails its test (the caller would reject that successor: it is never built). The actions
        are compiled once per ``checks`` mapping: pass the same mapping on every call."""
        step, arity, entry = self._action_step(action, checks)
        if len(args) != arity:
            raise EvalError(f"{action} takes {arity} argument(s), got {len(args)}", entry.unit.loc)
        self._check_state(state)
        t = [UNASSIGNED] * len(self.variables)
        label = ActionLabel(action, (), entry.unit.loc)
        for _ in step(state, t, tuple(args)):
            yield check_complete(t, self.variables, label)

    def explain_disabled(self, action: str, args: Sequence[Value], state: State,
                         successor: Mapping[int, Value] | None = None) -> list[tuple[Loc, str]]:
        """Why ``action(args)`` has no successor from ``state`` (empty if it has one); with
        ``successor`` (variable index -> value), why it has none with those values."""
        _, arity, entry = self._action_step(action)
        unit = entry.unit
        assert isinstance(unit, S.OpDef)
        if len(args) != arity:
            raise EvalError(f"{action} takes {arity} argument(s), got {len(args)}", unit.loc)
        scope = self._compiler._def_scope(unit, Scope(entry.ctx, entry.ctx.base))
        t = [UNASSIGNED] * len(self.variables)
        for i, v in (successor or {}).items():
            t[i] = v
        try:
            return self._actions.explain(unit.body, scope, state, t, tuple(args), render)
        except TlaError as err:
            return [(err.loc or unit.loc, f"evaluation error: {err.message}")]
