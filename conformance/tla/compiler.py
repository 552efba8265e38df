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
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from conformance.tla import stdlib as L
from conformance.tla import syntax as S
from conformance.tla.astwalk import walk
from conformance.tla.syntax import EvalError, Loc, TlaError, UnsupportedError
from conformance.tla.values import (
    Fn,
    Value,
    fn_domain,
    fn_items,
    format_value,
    make_fn,
    make_record,
    sort_key,
)

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
    reads: tuple[str, int] | None = None  # ("var", i): just s[i]; ("slot", i): just e[i]
    elements: EvalFn | None = None  # iterates the set's elements without building it

    @property
    def env(self) -> bool:
        return self.envmin != NOENV

    @property
    def constant(self) -> bool:
        return not (self.vars or self.primed or self.rec) and self.envmin == NOENV and self.pure

    def below(self, depth: int) -> C:
        """This node seen from outside binders starting at slot ``depth``."""
        if self.envmin >= depth and self.envmin != NOENV:
            return C(self.fn, self.vars, self.primed, NOENV, self.pure, self.rec)
        return self


def const(value: Any) -> C:
    return C(lambda s, t, e: value, value=value)


def derived(fn: EvalFn, *parts: C, envmin: int = NOENV, pure: bool = True) -> C:
    """A compiled node built from ``parts``: the union of their dependencies."""
    vs: frozenset[int] = frozenset()
    primed, is_pure, rec = False, pure, False
    for p in parts:
        if p.vars:
            vs = vs | p.vars
        primed = primed or p.primed
        if p.envmin < envmin:
            envmin = p.envmin
        is_pure = is_pure and p.pure
        rec = rec or p.rec
    return C(fn, vs, primed, envmin, is_pure, rec)


def cached(c: C, depth: int = 0) -> C:
    """``c`` evaluated at most once when it is constant.

    A constant is folded right away when it evaluates without error; otherwise (say it
    reads a constant without a value, or fails in a branch never taken) it is evaluated
    on first use, so the error surfaces only if the expression is really needed.
    ``depth`` is the number of environment slots of the expression's scope: a constant
    binder inside an operator's parameters or an outer binder still puts its bound
    variables at slot ``depth`` and after, so it is folded with that many (unread) slots.
    """
    if not c.constant or c.value is not _MISSING:
        return c
    fn = c.fn
    env = (None,) * depth
    try:
        folded = fn((), None, env)
    except (TlaError, RecursionError):
        pass
    else:
        return const(folded)
    box: list[Any] = []

    def once(s: Any, t: Any, e: tuple) -> Any:
        if box:
            return box[0]
        v = fn((), None, env)
        box.append(v)
        return v

    return C(once)


# ---------------------------------------------------------------------------
# Memoised operator applications
# ---------------------------------------------------------------------------

MEMO_LIMIT = 1024  # entries kept per operator before its memo is emptied (bounds what it keeps alive)
_MEMO_BY_VALUE = frozenset({int, str, bool})
_MEMO_SET_BY_VALUE = 32  # sets up to this size are keyed by value, larger ones by identity
_MEMO_WEIGHT = 8  # lighter bodies cost less to evaluate than to look up
_MEMO_BINDERS = (S.Quant, S.SetFilter, S.SetMap, S.Choose, S.FnConstruct)


def _memo_part(v: Any) -> Any:
    """The key of one argument: scalars and small sets by value, anything else by identity."""
    tv = type(v)
    if tv in _MEMO_BY_VALUE or (tv is frozenset and len(v) <= _MEMO_SET_BY_VALUE):
        return v
    return id(v)


def _memo_same(stored: tuple, args: tuple) -> bool:
    """A hit's arguments are really the call's (an identity key can meet an equal integer)."""
    for x, y in zip(stored, args, strict=True):
        if x is not y and (type(x) is not type(y) or x != y):
            return False
    return True


def memoized(f: EvalFn, arity: int) -> EvalFn:
    """``f`` (an operator body reading only its arguments: no state, no other binding, pure)
    remembering its results. Arguments keyed by identity are kept alive by the memo, so an
    identity key cannot be reused by another value while it is stored."""
    memo: dict[Any, tuple[Any, Any]] = {}
    by_value, small = _MEMO_BY_VALUE, _MEMO_SET_BY_VALUE

    if arity == 1:

        def call1(s: Any, t: Any, e: tuple) -> Any:
            a = e[0]
            ta = type(a)
            hit = memo.get(a if ta in by_value or (ta is frozenset and len(a) <= small)
                           else id(a))
            if hit is not None:
                b = hit[0]
                if b is a or (type(b) is ta and b == a):
                    return hit[1]
            v = f(s, t, e)
            if len(memo) >= MEMO_LIMIT:
                memo.clear()
            memo[_memo_part(a)] = (a, v)
            return v

        return call1

    def call(s: Any, t: Any, e: tuple) -> Any:
        key = tuple([_memo_part(a) for a in e])
        hit = memo.get(key)
        if hit is not None and _memo_same(hit[0], e):
            return hit[1]
        v = f(s, t, e)
        if len(memo) >= MEMO_LIMIT:
            memo.clear()
        memo[key] = (e, v)
        return v

    return call


def env_memoized(f: EvalFn, prefix: int, fs: list[EvalFn], reads_state: bool,
                 slot: int | None = None) -> EvalFn:
    """A call of an operator defined inside a scope (a LET operator, say) remembering its
    results while the enclosing bindings ``e[:prefix]`` (and the state, if the body reads
    it) stay the same: the loops of one evaluation of the enclosing expression share them.
    The body must be pure and read no next state (its bindings then fix its value).
    ``slot``: the single argument is just that environment slot (read without a call)."""
    box: list[Any] = [None, None, {}]  # the enclosing bindings, the state, the results

    def results(s: Any, e: tuple) -> dict[Any, tuple[Any, Any]]:
        pre = e[:prefix]
        if pre != box[0] or (reads_state and s is not box[1]):
            box[0], box[1], box[2] = pre, s if reads_state else None, {}
        table: dict[Any, tuple[Any, Any]] = box[2]
        if len(table) >= MEMO_LIMIT:
            table.clear()
        return table

    by_value, small = _MEMO_BY_VALUE, _MEMO_SET_BY_VALUE
    if len(fs) == 1:
        a0: EvalFn | None = fs[0] if slot is None else None
        at = slot if slot is not None else 0

        def call1(s: Any, t: Any, e: tuple) -> Any:
            a = e[at] if a0 is None else a0(s, t, e)
            pre = e[:prefix]
            if reads_state and type(s) is not tuple:  # a state being built (Init)
                return f(s, t, (*pre, a))
            fresh = pre != box[0] or (reads_state and s is not box[1])
            table = results(s, e) if fresh else box[2]
            ta = type(a)
            key = a if ta in by_value or (ta is frozenset and len(a) <= small) else id(a)
            hit = table.get(key)
            if hit is not None:
                b = hit[0]
                if b is a or (type(b) is type(a) and b == a):
                    return hit[1]
            v = f(s, t, (*pre, a))
            if len(table) >= MEMO_LIMIT:
                table.clear()
            table[key] = (a, v)
            return v

        return call1

    def call(s: Any, t: Any, e: tuple) -> Any:
        args = tuple([a(s, t, e) for a in fs])
        if reads_state and type(s) is not tuple:  # a state being built (Init)
            return f(s, t, e[:prefix] + args)
        table = results(s, e)
        key = tuple([_memo_part(a) for a in args])
        hit = table.get(key)
        if hit is not None and _memo_same(hit[0], args):
            return hit[1]
        v = f(s, t, e[:prefix] + args)
        table[key] = (args, v)
        return v

    return call


_FLIPPED = {"<": ">", "<=": ">=", ">": "<", ">=": "<="}  # x op E  <=>  E flipped(op) x


def _mentions(node: S.Expr, name: str) -> bool:
    """Whether ``name`` occurs anywhere in ``node`` (conservatively: as any node's name)."""
    return any(getattr(n, "name", None) == name or name in getattr(n, "names", ())
               for n in walk(node))


def memo_worthy(body: S.Expr) -> bool:
    """Whether evaluating ``body`` costs clearly more than a memo lookup."""
    weight = 0
    for node in walk(body):
        if isinstance(node, _MEMO_BINDERS):
            return True
        if isinstance(node, (S.RecordConstruct, S.Except, S.Tuple)):
            return False  # builds a value from (usually fresh) arguments: no reuse to expect
        weight += 3 if isinstance(node, S.OpApp) and node.name[:1].isalpha() else 1
    return weight >= _MEMO_WEIGHT


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
class LazySlot:
    """A zero-arity LET definition, held in the environment as a ``Lazy``."""

    index: int
    body: C
    unit: S.OpDef | None = None
    scope: Scope | None = None  # the scope the definition was compiled in


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


Local = Slot | LazySlot | OpSlot | LocalDef | ConstLocal


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


# ---------------------------------------------------------------------------
# Building contexts from modules
# ---------------------------------------------------------------------------


class ContextBuilder:
    """Builds the name tables of a root module, its EXTENDS chain and its instances."""

    def __init__(self, loader: Any) -> None:
        self.loader = loader
        self.variables: list[str] = []
        self.var_entries: dict[str, VarEntry] = {}
        self.const_entries: dict[str, ConstEntry] = {}
        self.assumes: list[tuple[S.Assume, Ctx]] = []
        self.root_contexts: list[Ctx] = []  # root and extended modules (overrides apply)
        self._extended: dict[str, tuple[Ctx, dict[str, Entry], frozenset[str]]] = {}

    # root binding: declarations create globals -----------------------------

    def build_root(self, module: S.Module) -> Ctx:
        ctx, _, _ = self._build(module, None, 0, root=True)
        return ctx

    def _load(self, name: str, loc: Loc) -> S.Module:
        try:
            return self.loader.load(name)
        except TlaError as err:
            raise located(err, loc) from None

    def _build(
        self,
        module: S.Module,
        binding: Callable[[str, S.Unit], Entry] | None,
        base: int,
        root: bool,
    ) -> tuple[Ctx, dict[str, Entry], frozenset[str]]:
        """The context of ``module`` and the names (and standard modules) it exports."""
        ctx = Ctx(module.name, base=base, builder=self)
        names: dict[str, Entry] = {}
        std: set[str] = set()
        for ext in module.extends:
            if ext in L.STANDARD:
                std.add(ext)
                continue
            if root and ext in self._extended:
                _, exported, ext_std = self._extended[ext]
            else:
                _, exported, ext_std = self._build(
                    self._load(ext, module.loc), binding, base, root
                )
            names.update(exported)
            std |= ext_std
        exported_names = dict(names)
        exported_std = set(std)
        pending_instances: list[S.Instance] = []
        for unit in module.units:
            if isinstance(unit, (S.ConstantDecl, S.VariableDecl)):
                entry = self._declare(unit) if binding is None else binding(unit.name, unit)
                names[unit.name] = entry
                exported_names[unit.name] = entry
            elif isinstance(unit, (S.OpDef, S.FnDef)):
                d = DefEntry(unit, ctx)
                names[unit.name] = d
                if not unit.local:
                    exported_names[unit.name] = d
            elif isinstance(unit, S.Instance):
                if unit.name is not None:
                    ie = InstEntry(unit, ctx)
                    names[unit.name] = ie
                    if not unit.local:
                        exported_names[unit.name] = ie
                elif unit.module in L.STANDARD:
                    std.add(unit.module)
                    if not unit.local:
                        exported_std.add(unit.module)
                else:
                    pending_instances.append(unit)
            elif isinstance(unit, S.Assume) and root:
                self.assumes.append((unit, ctx))
        ctx.names = names
        ctx.std = L.standard_closure(std)
        for unit in pending_instances:
            ictx = self.instance_ctx(unit, Scope(ctx, base))
            imported = {n: e for n, e in ictx.names.items()
                        if n in ictx.exported and n not in ctx.names}
            ctx.names.update(imported)
            ctx.std = ctx.std | ictx.std
            if not unit.local:
                exported_names.update(imported)
                exported_std |= ictx.std
        ctx.exported = frozenset(exported_names)
        result = (ctx, exported_names, L.standard_closure(exported_std))
        if root:
            self.root_contexts.append(ctx)
            self._extended[module.name] = result
        return result

    def _declare(self, unit: S.Unit) -> Entry:
        if isinstance(unit, S.VariableDecl):
            existing = self.var_entries.get(unit.name)
            if existing is None:
                existing = VarEntry(unit.name, len(self.variables))
                self.variables.append(unit.name)
                self.var_entries[unit.name] = existing
            return existing
        assert isinstance(unit, S.ConstantDecl)
        c = self.const_entries.get(unit.name)
        if c is None:
            c = ConstEntry(unit.name, unit.arity, unit.loc)
            self.const_entries[unit.name] = c
        return c

    # instances ---------------------------------------------------------------

    def instance_ctx(self, unit: S.Instance, outer: Scope) -> Ctx:
        """The context of ``INSTANCE M WITH ...`` seen from ``outer`` (params bound there)."""
        if unit.module in L.STANDARD:
            return Ctx(unit.module, std=L.standard_closure([unit.module]), base=outer.depth,
                       builder=self)
        module = self._load(unit.module, unit.loc)
        subs = dict(unit.substitutions)

        def binding(name: str, decl: S.Unit) -> Entry:
            expr = subs.get(name)
            if expr is None:  # implicit substitution by the same name
                expr = S.Name(decl.loc, name)
                if name not in outer.names and name not in outer.ctx.names:
                    raise EvalError(
                        f"INSTANCE {unit.module}: no substitution for {name} and no {name} "
                        f"in the instantiating module",
                        unit.loc,
                    )
            return SubstEntry(name, expr, outer)

        ctx, _, _ = self._build(module, binding, outer.depth, root=False)
        return ctx


# ---------------------------------------------------------------------------
# The compiler
# ---------------------------------------------------------------------------

# nodes and builtin operators whose closures always return a boolean (or raise)
_BOOLEAN_NODES = frozenset({S.And, S.Or, S.Quant, S.Unchanged, S.ActionBox})
_BOOLEAN_OPS = frozenset({"~", "=>", "<=>", "/\\", "\\/", "=", "/=", "\\in", "\\notin",
                          "<", "<=", ">", ">=", "\\subseteq"})


class Compiler:
    """Compiles expressions of one model; holds the per-model caches."""

    def __init__(
        self,
        constants: Mapping[str, Value],
        runtime: L.Runtime,
        var_names: Sequence[str],
    ) -> None:
        self.constants = constants
        self.runtime = runtime
        self.var_names = tuple(var_names)  # for error messages about primed variables
        # compiles ENABLED A (set by the model: action enumeration lives in actions.py)
        self.enabled: Callable[[S.Expr, Scope], EvalFn] | None = None
        # memoised bodies of operators whose result depends on their arguments only
        self._memos: dict[int, tuple[S.OpDef, EvalFn]] = {}

    # errors --------------------------------------------------------------------

    @staticmethod
    def raiser(err: TlaError) -> C:
        def fail(s: Any, t: Any, e: tuple) -> Any:
            raise err

        return C(fail, rec=True)

    # entry point ------------------------------------------------------------------

    def expr(self, node: S.Expr, scope: Scope) -> C:
        method = getattr(self, "_c_" + type(node).__name__, None)
        if method is None:
            return self.raiser(
                UnsupportedError(f"unsupported construct {type(node).__name__}", node.loc)
            )
        c: C = method(node, scope)
        if type(node) in _BOOLEAN_NODES or (
            type(node) is S.OpApp and node.name in _BOOLEAN_OPS
            and node.name not in scope.names and node.name not in scope.ctx.names
        ):
            c.boolean = True
        return cached(c, scope.depth)

    def exprs(self, nodes: Iterable[S.Expr], scope: Scope) -> list[C]:
        return [self.expr(n, scope) for n in nodes]

    # literals ------------------------------------------------------------------------

    def _c_Num(self, node: S.Num, scope: Scope) -> C:
        return const(node.value)

    def _c_Str(self, node: S.Str, scope: Scope) -> C:
        return const(node.value)

    def _c_Bool(self, node: S.Bool, scope: Scope) -> C:
        return const(node.value)

    # names ------------------------------------------------------------------------------

    def _c_Name(self, node: S.Name, scope: Scope) -> C:
        return self.apply_name(node.name, (), node.loc, scope)

    def _c_OpApp(self, node: S.OpApp, scope: Scope) -> C:
        return self.apply_name(node.name, node.args, node.loc, scope)

    def lookup(self, name: str, scope: Scope) -> Local | Entry | None:
        local = scope.names.get(name)
        if local is not None:
            return local
        return scope.ctx.names.get(name)

    def apply_name(self, name: str, args: Sequence[S.Expr], loc: Loc, scope: Scope) -> C:
        """A name (or an operator applied to ``args``) resolved in ``scope``."""
        target = self.lookup(name, scope)
        if target is not None:
            return self.apply_target(target, name, args, loc, scope)
        builtin = getattr(self, "_b_" + _BUILTIN_METHODS.get(name, "_none"), None)
        if builtin is not None:
            return builtin(args, loc, scope)
        for module in sorted(scope.ctx.std):
            op = L.STANDARD[module].get(name)
            if op is not None:
                return self.std_call(op, name, args, loc, scope)
        for module in sorted(L.STANDARD):
            if name in L.STANDARD[module]:
                raise EvalError(
                    f"unknown operator {name} in module {scope.ctx.module} "
                    f"(defined in the standard module {module}: EXTENDS it)",
                    loc,
                )
        raise EvalError(f"unknown name {name} in module {scope.ctx.module}", loc)

    def _check_arity(self, name: str, want: int, args: Sequence[Any], loc: Loc) -> None:
        if len(args) != want:
            raise EvalError(f"{name} takes {want} argument(s), got {len(args)}", loc)

    def apply_target(
        self, target: Local | Entry, name: str, args: Sequence[S.Expr], loc: Loc, scope: Scope
    ) -> C:
        if isinstance(target, Slot):
            self._check_arity(name, 0, args, loc)
            i = target.index
            return C(lambda s, t, e: e[i], envmin=i, reads=("slot", i))
        if isinstance(target, LazySlot):
            self._check_arity(name, 0, args, loc)
            i = target.index
            missing = _MISSING

            def lazy(s: Any, t: Any, e: tuple) -> Any:
                v = e[i].v  # computed already (a Thunk never keeps its value)
                return v if v is not missing else e[i].get()

            return derived(lazy, target.body, envmin=i)
        if isinstance(target, ConstLocal):
            self._check_arity(name, 0, args, loc)
            return target.body
        if isinstance(target, OpSlot):
            self._check_arity(name, target.arity, args, loc)
            return self._call_op_slot(target, args, loc, scope)
        if isinstance(target, LocalDef):
            return self._call_def(target.unit, self.local_body(target), target.scope.depth,
                                  args, loc, scope)
        if isinstance(target, VarEntry):
            self._check_arity(name, 0, args, loc)
            i = target.index
            return C(lambda s, t, e: s[i], vars=frozenset((i,)), reads=("var", i))
        if isinstance(target, ConstEntry):
            return self._constant(target, args, loc, scope)
        if isinstance(target, DefEntry):
            return self._call_def(target.unit, self.def_body(target), target.ctx.base,
                                  args, loc, scope)
        if isinstance(target, SubstEntry):
            body = self.subst_body(target)
            depth = target.scope.depth
            if args:
                raise UnsupportedError(
                    f"substitution of the operator constant {name} is not supported", loc
                )
            if not body.env:
                return body
            f = body.fn
            return derived(lambda s, t, e: f(s, t, e[:depth]), body)
        raise EvalError(f"{name} is an instance, not a value (use {name}!Op)", loc)

    def _constant(self, entry: ConstEntry, args: Sequence[S.Expr], loc: Loc, scope: Scope) -> C:
        if entry.name in self.constants:
            self._check_arity(entry.name, 0, args, loc)
            return const(self.constants[entry.name])
        return self.raiser(
            EvalError(
                f"constant {entry.name} (declared at {entry.loc}) has no value: "
                f"give it one in the model's constants or override it",
                loc,
            )
        )

    # definitions -------------------------------------------------------------------------

    def _def_scope(self, unit: S.OpDef | S.FnDef, scope: Scope) -> Scope:
        if isinstance(unit, S.FnDef):
            return scope.bind(*[n for b in unit.bounds for n in _bound_slots(b)])
        new = dict(scope.names)
        for i, p in enumerate(unit.params):
            new[p.name] = Slot(scope.depth + i) if p.arity == 0 else OpSlot(scope.depth + i, p.arity)
        return Scope(scope.ctx, scope.depth + len(unit.params), new)

    def def_body(self, entry: DefEntry) -> C:
        """The compiled body of a module-level definition (compiled once)."""
        return self._body_once(entry, Scope(entry.ctx, entry.ctx.base))

    def local_body(self, d: LocalDef) -> C:
        """The compiled body of a LET operator with parameters or LET function (once)."""
        return self._body_once(d, d.scope)

    def _body_once(self, holder: DefEntry | LocalDef, scope: Scope) -> C:
        """Compile ``holder``'s unit once; a recursive reference met while compiling it
        gets a forward closure that calls the body once it exists."""
        if holder.state == "done":
            assert holder.body is not None
            return holder.body
        if holder.state == "compiling":
            cell = holder.cell

            def forward(s: Any, t: Any, e: tuple) -> Any:
                return cell[0](s, t, e)

            return C(forward, rec=True, envmin=0)
        holder.state = "compiling"
        try:
            body = self._compile_unit_body(holder.unit, scope)
        except BaseException:
            holder.state = "new"
            raise
        holder.cell.append(body.fn)
        holder.body = body
        holder.state = "done"
        return body

    def _compile_unit_body(self, unit: S.OpDef | S.FnDef, scope: Scope) -> C:
        if isinstance(unit, S.OpDef):
            return self.expr(unit.body, self._def_scope(unit, scope))
        # a function definition: its "body" is the function value itself
        return self._fn_def_value(unit, scope)

    def subst_body(self, entry: SubstEntry) -> C:
        if entry.compiled is None:
            entry.compiled = self.expr(entry.expr, entry.scope)
        return entry.compiled

    def _call_def(
        self,
        unit: S.OpDef | S.FnDef,
        body: C,
        prefix: int,
        args: Sequence[S.Expr],
        loc: Loc,
        scope: Scope,
    ) -> C:
        """Apply a definition whose body expects an environment ``prefix + params``."""
        if isinstance(unit, S.FnDef):
            self._check_arity(unit.name, 0, args, loc)
            params: tuple[S.Param, ...] = ()
        else:
            params = unit.params
            self._check_arity(unit.name, len(params), args, loc)
        f = body.fn
        if params and prefix == 0 and isinstance(unit, S.OpDef) \
                and self._memo_eligible(unit, body):
            f = self._memo_of(unit, f)
        if not params:
            if not body.env:
                return body
            if prefix == 0:
                return derived(lambda s, t, e: f(s, t, ()), body)
            return derived(lambda s, t, e: f(s, t, e[:prefix]), body, envmin=0)
        cargs = [
            self.op_arg(a, p.arity, scope) if p.arity else self.expr(a, scope)
            for a, p in zip(args, params, strict=True)
        ]
        fs = [c.fn for c in cargs]
        # the result reads the environment only through the arguments (or the prefix)
        res = derived(lambda s, t, e: None, body.below(0), *cargs,
                      envmin=0 if prefix > 0 or body.rec else NOENV)
        res.boolean = body.boolean  # callers need not check the result's type again
        if prefix > 0 and isinstance(unit, S.OpDef) and self._memo_eligible(unit, body, True):
            r0 = cargs[0].reads if len(cargs) == 1 else None
            res.fn = env_memoized(f, prefix, fs, bool(body.vars),
                                  r0[1] if r0 is not None and r0[0] == "slot" else None)
        elif prefix == 0:
            if len(fs) == 1:
                (a0,) = fs
                res.fn = lambda s, t, e: f(s, t, (a0(s, t, e),))
            elif len(fs) == 2:
                a0, a1 = fs
                res.fn = lambda s, t, e: f(s, t, (a0(s, t, e), a1(s, t, e)))
            else:
                res.fn = lambda s, t, e: f(s, t, tuple([a(s, t, e) for a in fs]))
        elif len(fs) == 1:
            (a0,) = fs
            res.fn = lambda s, t, e: f(s, t, (*e[:prefix], a0(s, t, e)))
        elif len(fs) == 2:
            a0, a1 = fs
            res.fn = lambda s, t, e: f(s, t, (*e[:prefix], a0(s, t, e), a1(s, t, e)))
        else:
            res.fn = lambda s, t, e: f(s, t, e[:prefix] + tuple([a(s, t, e) for a in fs]))
        return res

    def _memo_eligible(self, unit: S.OpDef, body: C, state_ok: bool = False) -> bool:
        return (body.pure and (state_ok or not body.vars) and not body.primed and not body.rec
                and all(p.arity == 0 for p in unit.params) and memo_worthy(unit.body))

    def _memo_of(self, unit: S.OpDef, f: EvalFn) -> EvalFn:
        """The memoised body of ``unit``, shared by all its call sites."""
        hit = self._memos.get(id(unit))
        if hit is None or hit[0] is not unit:
            hit = self._memos[id(unit)] = (unit, memoized(f, len(unit.params)))
        return hit[1]

    def _call_op_slot(self, target: OpSlot, args: Sequence[S.Expr], loc: Loc, scope: Scope) -> C:
        i = target.index
        cargs = self.exprs(args, scope)
        fs = [c.fn for c in cargs]

        def call(s: Any, t: Any, e: tuple) -> Any:
            return e[i](*[a(s, t, e) for a in fs])

        return derived(call, *cargs, envmin=i)

    def op_arg(self, node: S.Expr, arity: int, scope: Scope) -> C:
        """An argument passed for an operator parameter: evaluates to a Python callable."""
        if isinstance(node, S.Lambda):
            if len(node.params) != arity:
                raise EvalError(
                    f"LAMBDA takes {len(node.params)} parameter(s), {arity} expected", node.loc
                )
            body = self.expr(node.body, scope.bind(*node.params))
            f = body.fn
            return derived(lambda s, t, e: lambda *a: f(s, t, e + a), body.below(scope.depth),
                           pure=False)
        if isinstance(node, S.Name):
            target = self.lookup(node.name, scope)
            if isinstance(target, OpSlot):
                i = target.index
                return C(lambda s, t, e: e[i], envmin=i)
            if isinstance(target, (DefEntry, LocalDef)) and isinstance(target.unit, S.OpDef):
                unit = target.unit
                if len(unit.params) != arity:
                    raise EvalError(
                        f"{node.name} takes {len(unit.params)} argument(s), {arity} expected",
                        node.loc,
                    )
                if isinstance(target, DefEntry):
                    body, prefix = self.def_body(target), target.ctx.base
                else:
                    body, prefix = self.local_body(target), target.scope.depth
                f = body.fn
                return derived(
                    lambda s, t, e: lambda *a: f(s, t, e[:prefix] + a), body.below(0),
                    envmin=0 if prefix else NOENV, pure=False,
                )
            if target is None:
                for module in sorted(scope.ctx.std):
                    op = L.STANDARD[module].get(node.name)
                    if op is not None and op.arity == arity and not op.op_args:
                        if op.runtime:
                            return const(_with_runtime(op.impl, self.runtime))
                        return const(op.impl)
        # a builtin infix operator passed by name or any other expression
        raise EvalError(f"expected an operator of arity {arity} here", node.loc)

    # standard-module operators ------------------------------------------------------------

    def std_call(self, op: L.StdOp, name: str, args: Sequence[S.Expr], loc: Loc, scope: Scope) -> C:
        self._check_arity(name, op.arity, args, loc)
        cargs = [
            self.op_arg(a, 1 if name != "SortSeq" else 2, scope) if i in op.op_args
            else self.expr(a, scope)
            for i, a in enumerate(args)
        ]
        impl = op.impl
        if op.runtime:
            rt = self.runtime
            inner = impl

            def impl(*a: Any) -> Any:
                return inner(rt, *a)

        fs = [c.fn for c in cargs]
        if len(fs) == 0:

            def call(s: Any, t: Any, e: tuple) -> Any:
                try:
                    return impl()
                except TlaError as err:
                    raise located(err, loc) from None
        elif len(fs) == 1:
            (a0,) = fs

            def call(s: Any, t: Any, e: tuple) -> Any:
                x = a0(s, t, e)
                try:
                    return impl(x)
                except TlaError as err:
                    raise located(err, loc) from None
        elif len(fs) == 2:
            a0, a1 = fs

            def call(s: Any, t: Any, e: tuple) -> Any:
                x, y = a0(s, t, e), a1(s, t, e)
                try:
                    return impl(x, y)
                except TlaError as err:
                    raise located(err, loc) from None
        else:

            def call(s: Any, t: Any, e: tuple) -> Any:
                vals = [a(s, t, e) for a in fs]
                try:
                    return impl(*vals)
                except TlaError as err:
                    raise located(err, loc) from None

        return derived(call, *cargs, pure=op.pure)

    # builtin operators ----------------------------------------------------------------------

    def _binary(self, args: Sequence[S.Expr], loc: Loc, scope: Scope, name: str) -> tuple[C, C]:
        self._check_arity(name, 2, args, loc)
        return self.expr(args[0], scope), self.expr(args[1], scope)

    def _b_eq(self, args: Sequence[S.Expr], loc: Loc, scope: Scope) -> C:
        a, b = self._binary(args, loc, scope, "=")
        return self._equality(a, b, negate=False)

    def _b_neq(self, args: Sequence[S.Expr], loc: Loc, scope: Scope) -> C:
        a, b = self._binary(args, loc, scope, "/=")
        return self._equality(a, b, negate=True)

    def _equality(self, a: C, b: C, negate: bool) -> C:
        if a.value is not _MISSING and b.value is _MISSING:
            a, b = b, a
        v = b.value
        if type(v) is str or type(v) is int:
            # comparing with a literal: the types must match too (TRUE is never 1)
            fn = _generated("eq", _EQ_LITERAL_SRC, {"A": a, "B": b},
                            {"T": type(v), "NEG": negate})
        else:
            fn = _generated("eq", _EQ_SRC, {"A": a, "B": b}, {"NEG": negate})
        return derived(fn, a, b)

    def _b_in(self, args: Sequence[S.Expr], loc: Loc, scope: Scope) -> C:
        return self._membership(args, loc, scope, negate=False)

    def _b_notin(self, args: Sequence[S.Expr], loc: Loc, scope: Scope) -> C:
        return self._membership(args, loc, scope, negate=True)

    def _membership(self, args: Sequence[S.Expr], loc: Loc, scope: Scope, negate: bool) -> C:
        self._check_arity("\\in", 2, args, loc)
        a = self.expr(args[0], scope)
        rhs = args[1]
        if isinstance(rhs, S.OpApp) and rhs.name == "DOMAIN" and len(rhs.args) == 1 \
                and self.lookup("DOMAIN", scope) is None:
            # x \in DOMAIN f without building the domain
            g = self.expr(rhs.args[0], scope)

            def dom_slow(f: Any, x: Any) -> bool:
                try:
                    return x in L.domain(f)
                except TlaError as err:
                    raise located(err, loc) from None

            fn = _generated("isin", _IN_DOMAIN_SRC, {"A": a, "F": g},
                            {"slow": dom_slow, "NEG": negate})
            return derived(fn, a, g)
        if self._is_set_constructor(rhs, scope):
            # x \in SUBSET S, [S -> T], [a : S], Seq(S): test without building the set
            pred = self.set_predicate(rhs, scope)
            fa, fp = a.fn, pred.fn

            def structural(s: Any, t: Any, e: tuple) -> bool:
                x = fa(s, t, e)
                try:
                    return fp(s, t, e)(x) is not negate
                except TlaError as err:
                    raise located(err, loc) from None

            return derived(structural, a, pred)
        b = self.expr(rhs, scope)

        def slow(x: Any, st: Any) -> bool:
            try:
                return L.member(x, st)
            except TlaError as err:
                raise located(err, loc) from None

        fn = _generated("isin", _IN_SRC, {"A": a, "B": b},
                        {"slow": slow, "in_finite": L.in_finite, "NEG": negate})
        return derived(fn, a, b)

    def _is_set_constructor(self, node: S.Expr, scope: Scope) -> bool:
        if isinstance(node, (S.FnSet, S.RecordSet)):
            return True
        if isinstance(node, S.OpApp) and len(node.args) == 1 and node.name in ("SUBSET", "Seq"):
            if self.lookup(node.name, scope) is not None:
                return False
            return node.name == "SUBSET" or "Sequences" in scope.ctx.std
        return False

    def set_predicate(self, node: S.Expr, scope: Scope) -> C:
        """A compiled expression whose value is a membership test ``value -> bool`` of the
        set ``node`` (for SUBSET, function sets, record sets and Seq, without building it)."""
        if not self._is_set_constructor(node, scope):
            c = self.expr(node, scope)
            f = c.fn
            member = L.member
            return derived(lambda s, t, e: _member_of(member, f(s, t, e)), c)
        if isinstance(node, S.OpApp):
            inner = self.set_predicate(node.args[0], scope)
            fi = inner.fn
            if node.name == "SUBSET":

                def subset_pred(s: Any, t: Any, e: tuple) -> Callable[[Any], bool]:
                    p = fi(s, t, e)
                    return lambda v: type(v) is frozenset and all(p(y) for y in v)

                return derived(subset_pred, inner)

            def seq_pred(s: Any, t: Any, e: tuple) -> Callable[[Any], bool]:
                p = fi(s, t, e)
                return lambda v: type(v) is tuple and all(p(y) for y in v)

            return derived(seq_pred, inner)
        if isinstance(node, S.FnSet):
            dom = self.expr(node.domain, scope)
            rng = self.set_predicate(node.range, scope)
            fd, fr = dom.fn, rng.fn

            def fn_pred(s: Any, t: Any, e: tuple) -> Callable[[Any], bool]:
                d, p = fd(s, t, e), fr(s, t, e)
                if type(d) is not frozenset:
                    return lambda v: False  # functions over infinite domains are not values
                return lambda v: (
                    (type(v) is tuple or type(v) is Fn)
                    and fn_domain(v) == d
                    and all(p(y) for _, y in fn_items(v))
                )

            return derived(fn_pred, dom, rng)
        assert isinstance(node, S.RecordSet)
        names = [n for n, _ in node.fields]
        preds = [self.set_predicate(x, scope) for _, x in node.fields]
        fps = [p.fn for p in preds]
        keys = frozenset(names)

        def rec_pred(s: Any, t: Any, e: tuple) -> Callable[[Any], bool]:
            ps = [(n, f(s, t, e)) for n, f in zip(names, fps, strict=True)]
            return lambda v: (
                type(v) is Fn and v.map.keys() == keys and all(p(v.map[n]) for n, p in ps)
            )

        return derived(rec_pred, *preds)

    def _lift(self, impl: Callable[..., Any], args: Sequence[S.Expr], loc: Loc, scope: Scope,
              name: str, arity: int) -> C:
        return self.std_call(L.StdOp(impl, arity), name, args, loc, scope)

    def _b_cup(self, args: Sequence[S.Expr], loc: Loc, scope: Scope) -> C:
        return self._lift(L.cup, args, loc, scope, "\\cup", 2)

    def _b_cap(self, args: Sequence[S.Expr], loc: Loc, scope: Scope) -> C:
        return self._lift(L.cap, args, loc, scope, "\\cap", 2)

    def _b_setminus(self, args: Sequence[S.Expr], loc: Loc, scope: Scope) -> C:
        return self._lift(L.setminus, args, loc, scope, "\\", 2)

    def _b_subseteq(self, args: Sequence[S.Expr], loc: Loc, scope: Scope) -> C:
        return self._lift(L.subseteq, args, loc, scope, "\\subseteq", 2)

    def _b_subset(self, args: Sequence[S.Expr], loc: Loc, scope: Scope) -> C:
        return self._lift(lambda a, b: L.subseteq(a, b) and a != b, args, loc, scope,
                          "\\subset", 2)

    def _b_supseteq(self, args: Sequence[S.Expr], loc: Loc, scope: Scope) -> C:
        return self._lift(lambda a, b: L.subseteq(b, a), args, loc, scope, "\\supseteq", 2)

    def _b_supset(self, args: Sequence[S.Expr], loc: Loc, scope: Scope) -> C:
        return self._lift(lambda a, b: L.subseteq(b, a) and a != b, args, loc, scope,
                          "\\supset", 2)

    def _b_powerset(self, args: Sequence[S.Expr], loc: Loc, scope: Scope) -> C:
        return self._lift(L.powerset, args, loc, scope, "SUBSET", 1)

    def _b_union(self, args: Sequence[S.Expr], loc: Loc, scope: Scope) -> C:
        return self._lift(L.big_union, args, loc, scope, "UNION", 1)

    def _b_domain(self, args: Sequence[S.Expr], loc: Loc, scope: Scope) -> C:
        self._check_arity("DOMAIN", 1, args, loc)
        arg = self.expr(args[0], scope)
        f = arg.fn

        def domain(s: Any, t: Any, e: tuple) -> Any:
            try:
                return L.domain(f(s, t, e))
            except TlaError as err:
                raise located(err, loc) from None

        def elements(s: Any, t: Any, e: tuple) -> Any:
            g = f(s, t, e)
            if type(g) is tuple:
                return range(1, len(g) + 1)
            if type(g) is Fn:
                return g.map.keys()
            return domain(s, t, e)  # raises the located error

        res = derived(domain, arg)
        res.elements = elements
        return res

    def _b_times(self, args: Sequence[S.Expr], loc: Loc, scope: Scope) -> C:
        return self.std_call(L.StdOp(L.times, len(args)), "\\X", args, loc, scope)

    def _b_boolean(self, args: Sequence[S.Expr], loc: Loc, scope: Scope) -> C:
        self._check_arity("BOOLEAN", 0, args, loc)
        return const(L.BOOLEAN)

    def _b_string(self, args: Sequence[S.Expr], loc: Loc, scope: Scope) -> C:
        self._check_arity("STRING", 0, args, loc)
        return const(L.STRING)

    def _b_not(self, args: Sequence[S.Expr], loc: Loc, scope: Scope) -> C:
        self._check_arity("~", 1, args, loc)
        a = self.expr(args[0], scope)
        fa = a.fn

        def f(s: Any, t: Any, e: tuple) -> bool:
            v = fa(s, t, e)
            if v is True:
                return False
            if v is False:
                return True
            raise EvalError(f"~ applies to a boolean, got {L.show(v)}", loc)

        return derived(f, a)

    def _b_implies(self, args: Sequence[S.Expr], loc: Loc, scope: Scope) -> C:
        a, b = self._binary(args, loc, scope, "=>")
        fa, fb = self.boolean(a, loc, "=>"), self.boolean(b, loc, "=>")
        return derived(lambda s, t, e: not fa(s, t, e) or fb(s, t, e), a, b)

    def _b_equiv(self, args: Sequence[S.Expr], loc: Loc, scope: Scope) -> C:
        a, b = self._binary(args, loc, scope, "<=>")
        fa, fb = self.boolean(a, loc, "<=>"), self.boolean(b, loc, "<=>")
        return derived(lambda s, t, e: fa(s, t, e) is fb(s, t, e), a, b)

    def _b_and(self, args: Sequence[S.Expr], loc: Loc, scope: Scope) -> C:
        return self._c_And(S.And(loc, tuple(args)), scope)

    def _b_or(self, args: Sequence[S.Expr], loc: Loc, scope: Scope) -> C:
        return self._c_Or(S.Or(loc, tuple(args)), scope)

    def boolean(self, c: C, loc: Loc, what: str) -> EvalFn:
        """``c``'s closure, checked to produce a boolean."""
        f = c.fn
        if type(c.value) is bool or c.boolean:
            return f

        def check(s: Any, t: Any, e: tuple) -> bool:
            v = f(s, t, e)
            if v is True or v is False:
                return v
            raise EvalError(f"{what} expects a boolean, got {L.show(v)}", loc)

        return check

    # arithmetic: native fast paths when the standard module is visible ----------------------

    def _arith(self, name: str, args: Sequence[S.Expr], loc: Loc, scope: Scope) -> C | None:
        if not scope.ctx.std & {"Naturals", "Integers"}:
            return None
        if len(args) != 2:
            return None
        a, b = self.expr(args[0], scope), self.expr(args[1], scope)

        def fail(x: Any, y: Any) -> Any:
            raise EvalError(
                f"{name} applies to integers, got {L.show(x)} and {L.show(y)}", loc
            )

        src = _ARITH_SRC.replace("OP", name)
        return derived(_generated("arith", src, {"A": a, "B": b}, {"fail": fail}), a, b)

    # boolean connectives --------------------------------------------------------------------

    def _c_And(self, node: S.And, scope: Scope) -> C:
        parts = self.exprs(node.items, scope)
        fs = [self.boolean(p, it.loc, "/\\") for p, it in zip(parts, node.items, strict=True)]
        if len(fs) == 2:
            f0, f1 = fs
            return derived(lambda s, t, e: f0(s, t, e) and f1(s, t, e), *parts)
        if len(fs) == 3:
            f0, f1, f2 = fs
            return derived(lambda s, t, e: f0(s, t, e) and f1(s, t, e) and f2(s, t, e), *parts)

        def conj(s: Any, t: Any, e: tuple) -> bool:
            for f in fs:  # noqa: SIM110 - a loop is faster than all() here
                if not f(s, t, e):
                    return False
            return True

        return derived(conj, *parts)

    def _c_Or(self, node: S.Or, scope: Scope) -> C:
        parts = self.exprs(node.items, scope)
        fs = [self.boolean(p, it.loc, "\\/") for p, it in zip(parts, node.items, strict=True)]

        def disj(s: Any, t: Any, e: tuple) -> bool:
            for f in fs:  # noqa: SIM110 - a loop is faster than any() here
                if f(s, t, e):
                    return True
            return False

        return derived(disj, *parts)

    # control --------------------------------------------------------------------------------

    def _c_If(self, node: S.If, scope: Scope) -> C:
        c, a, b = self.expr(node.cond, scope), self.expr(node.then, scope), self.expr(node.else_, scope)
        fc, fa, fb = self.boolean(c, node.cond.loc, "IF"), a.fn, b.fn
        return derived(lambda s, t, e: fa(s, t, e) if fc(s, t, e) else fb(s, t, e), c, a, b)

    def _c_Case(self, node: S.Case, scope: Scope) -> C:
        conds = [self.expr(arm.cond, scope) for arm in node.arms]
        vals = [self.expr(arm.value, scope) for arm in node.arms]
        arms = [
            (self.boolean(c, arm.cond.loc, "CASE"), v.fn)
            for c, v, arm in zip(conds, vals, node.arms, strict=True)
        ]
        other = self.expr(node.other, scope) if node.other is not None else None
        fo = other.fn if other is not None else None
        loc = node.loc

        def case(s: Any, t: Any, e: tuple) -> Any:
            for fc, fv in arms:
                if fc(s, t, e):
                    return fv(s, t, e)
            if fo is None:
                raise EvalError("no arm of CASE is true and there is no OTHER", loc)
            return fo(s, t, e)

        parts = conds + vals + ([other] if other is not None else [])
        return derived(case, *parts)

    def let_scope(self, node: S.Let, scope: Scope, volatile: bool = False, init: bool = False
                  ) -> tuple[Scope, list[EvalFn], list[C]]:
        """The scope of a LET body and the builders of its environment's new slots.

        Each builder is called with ``(s, t, e)`` (``e`` the environment so far) and
        returns the slot's value (a ``Lazy``).
        """
        inner = scope
        builders: list[EvalFn] = []
        parts: list[C] = []
        for unit in node.defs:
            if isinstance(unit, S.Recursive):
                continue
            if isinstance(unit, S.OpDef) and not unit.params:
                body = self.expr(unit.body, inner)
                if body.constant:
                    inner = inner.with_local(unit.name, ConstLocal(body))
                    continue
                f = body.fn
                parts.append(body.below(scope.depth))
                # while an action is enumerated the partial state changes: no memo then
                # while an action is enumerated the partial state changes: no memo then
                memo = not (volatile and (body.vars if init else body.primed))
                builders.append(_lazy_builder(f, Lazy if memo else Thunk))
                inner = inner.with_local(unit.name, LazySlot(inner.depth, body, unit, inner),
                                         grow=1)
            elif isinstance(unit, (S.OpDef, S.FnDef)):
                d = LocalDef(unit, inner)
                inner = inner.with_local(unit.name, d)
                d.scope = inner  # recursive references see the definition itself
            else:
                raise UnsupportedError(f"unsupported LET definition {type(unit).__name__}",
                                       unit.loc)
        return inner, builders, parts

    def _c_Let(self, node: S.Let, scope: Scope) -> C:
        inner, builders, parts = self.let_scope(node, scope)
        body = self.expr(node.body, inner)
        fb = body.fn
        if not builders:
            return body
        lets = [body.below(scope.depth), *parts]
        if len(builders) == 1:
            (b0,) = builders
            return derived(lambda s, t, e: fb(s, t, (*e, b0(s, t, e))), *lets)

        def let(s: Any, t: Any, e: tuple) -> Any:
            for b in builders:
                e = (*e, b(s, t, e))
            return fb(s, t, e)

        return derived(let, *lets)

    # quantifiers and bounds ------------------------------------------------------------------

    def domain_fn(self, c: C, loc: Loc, ordered: bool = False, sort_dynamic: bool = True
                  ) -> EvalFn:
        """A closure giving the elements of a finite set, sorted if ``ordered`` (only
        constant sets unless ``sort_dynamic``: sorting state-dependent sets is costly)."""
        f = c.fn
        enum = L.enumerate_set

        if c.constant:
            box: list[Any] = []

            def const_dom(s: Any, t: Any, e: tuple) -> Any:
                if box:
                    return box[0]
                try:
                    v = enum(f(s, t, e))
                except TlaError as err:
                    raise located(err, loc) from None
                items = tuple(sorted(v, key=sort_key)) if ordered else v
                box.append(items)
                return items

            return const_dom

        if ordered and not sort_dynamic:
            ordered = False
        if c.elements is not None:
            elements = c.elements

            def elems(s: Any, t: Any, e: tuple) -> Any:
                v = elements(s, t, e)
                return sorted(v, key=sort_key) if ordered and type(v) is not range else v

            return elems

        def dom(s: Any, t: Any, e: tuple) -> Any:
            v = f(s, t, e)
            if type(v) is not frozenset:
                try:
                    v = enum(v)
                except TlaError as err:
                    raise located(err, loc) from None
            return sorted(v, key=sort_key) if ordered else v

        return dom

    def bounds(self, bounds: Sequence[S.Bound], scope: Scope, ordered: bool = False,
               sort_dynamic: bool = True
               ) -> tuple[Scope, Callable[[Any, Any, tuple], Iterator[tuple]], list[C]]:
        """Compile quantifier bounds: the inner scope, an iterator of extended
        environments, and the compiled domains."""
        steps: list[tuple[EvalFn, int, bool, Loc]] = []
        domains: list[C] = []
        inner = scope
        for b in bounds:
            d = self.expr(b.domain, inner)
            domains.append(d)
            df = self.domain_fn(d, b.domain.loc, ordered, sort_dynamic)
            if b.tuple_pattern:
                steps.append((df, len(b.names), True, b.loc))
                inner = inner.bind(*b.names)
            else:
                for n in b.names:
                    steps.append((df, 1, False, b.loc))
                    inner = inner.bind(n)

        def expand(s: Any, t: Any, e: tuple, k: int = 0) -> Iterator[tuple]:
            if k == len(steps):
                yield e
                return
            df, n, pattern, loc = steps[k]
            for v in df(s, t, e):
                if pattern:
                    if type(v) is not tuple or len(v) != n:
                        raise EvalError(
                            f"{L.show(v)} does not match a tuple pattern of {n} names", loc
                        )
                    yield from expand(s, t, e + v, k + 1)
                else:
                    yield from expand(s, t, (*e, v), k + 1)

        independent = all(d.envmin < scope.depth or d.envmin == NOENV for d in domains)
        if independent and not any(b.tuple_pattern for b in bounds):
            dfs = [step[0] for step in steps]

            def product(s: Any, t: Any, e: tuple) -> Iterator[tuple]:
                # no domain depends on a name bound before it: a plain cartesian product
                for combo in itertools.product(*[df(s, t, e) for df in dfs]):
                    yield e + combo

            return inner, product, domains
        return inner, expand, domains

    def _single_bound(self, bounds: Sequence[S.Bound]) -> bool:
        return len(bounds) == 1 and len(bounds[0].names) == 1 and not bounds[0].tuple_pattern

    def _c_Quant(self, node: S.Quant, scope: Scope) -> C:
        inner, expand, domains = self.bounds(node.bounds, scope)
        body = self.expr(node.body, inner)
        fb = self.boolean(body, node.body.loc, "\\A" if node.kind == "A" else "\\E")
        res = derived(lambda s, t, e: None, body, *domains)
        res.envmin = min([d.envmin for d in domains] + [body.below(scope.depth).envmin])
        if self._single_bound(node.bounds):
            df = self.domain_fn(domains[0], node.bounds[0].domain.loc)
            if node.kind == "A":

                def forall(s: Any, t: Any, e: tuple) -> bool:
                    for v in df(s, t, e):  # noqa: SIM110 - faster than all()
                        if not fb(s, t, (*e, v)):
                            return False
                    return True

                res.fn = forall
            else:

                def exists(s: Any, t: Any, e: tuple) -> bool:
                    for v in df(s, t, e):  # noqa: SIM110 - faster than any()
                        if fb(s, t, (*e, v)):
                            return True
                    return False

                res.fn = exists
            return res
        if node.kind == "A":

            def forall_n(s: Any, t: Any, e: tuple) -> bool:
                for e2 in expand(s, t, e):  # noqa: SIM110 - faster than all()
                    if not fb(s, t, e2):
                        return False
                return True

            res.fn = forall_n
        else:

            def exists_n(s: Any, t: Any, e: tuple) -> bool:
                for e2 in expand(s, t, e):  # noqa: SIM110 - faster than any()
                    if fb(s, t, e2):
                        return True
                return False

            res.fn = exists_n
        return res

    def _c_UnboundedQuant(self, node: S.UnboundedQuant, scope: Scope) -> C:
        kind = {"A": "\\A", "E": "\\E", "AA": "\\AA", "EE": "\\EE"}.get(node.kind, node.kind)
        return self.raiser(UnsupportedError(
            f"unbounded quantifier {kind} {', '.join(node.names)} cannot be evaluated", node.loc
        ))

    def _c_Choose(self, node: S.Choose, scope: Scope) -> C:
        if node.domain is None:
            return self.raiser(UnsupportedError(
                f"unbounded CHOOSE {', '.join(node.names)} cannot be evaluated", node.loc
            ))
        bound = S.Bound(node.names, node.tuple_pattern, node.domain, node.loc)
        inner, expand, domains = self.bounds((bound,), scope, ordered=True)
        body = self.expr(node.body, inner)
        fb = self.boolean(body, node.body.loc, "CHOOSE")
        n = len(node.names)
        loc = node.loc

        def choose(s: Any, t: Any, e: tuple) -> Any:
            for e2 in expand(s, t, e):
                if fb(s, t, e2):
                    vals = e2[len(e2) - n:]
                    return vals if node.tuple_pattern else vals[0]
            raise EvalError("CHOOSE: no element of the set satisfies the predicate", loc)

        res = derived(choose, body, *domains)
        res.envmin = min(domains[0].envmin, body.below(scope.depth).envmin)
        return res

    # sets --------------------------------------------------------------------------------------

    def _c_SetEnum(self, node: S.SetEnum, scope: Scope) -> C:
        parts = self.exprs(node.items, scope)
        fs = [p.fn for p in parts]
        return derived(lambda s, t, e: frozenset([f(s, t, e) for f in fs]), *parts)

    def _c_SetFilter(self, node: S.SetFilter, scope: Scope) -> C:
        b = node.bound
        d = self.expr(b.domain, scope)
        inner = scope.bind(*b.names)
        pred = self.expr(node.pred, inner)
        fp = self.boolean(pred, node.pred.loc, "set filter")
        fd = d.fn
        pattern, n, loc = b.tuple_pattern, len(b.names), b.loc
        if not pattern and n != 1:
            raise EvalError("a set filter binds one name or one tuple pattern", loc)

        def filt(s: Any, t: Any, e: tuple) -> Any:
            base = fd(s, t, e)
            if type(base) is L.LazySet:
                return L.LazySet(
                    f"{{x \\in {base.description} : ...}}",
                    lambda v: L.member(v, base) and fp(s, t, (*e, *(v if pattern else (v,)))),
                )
            if type(base) is not frozenset:
                raise EvalError(f"set filter over a non-set {L.show(base)}", loc)
            if pattern:
                return frozenset(v for v in base if type(v) is tuple and len(v) == n
                                 and fp(s, t, e + v))
            return frozenset([v for v in base if fp(s, t, (*e, v))])

        narrow = self.range_narrowing(b, node.pred, scope)
        elements = d.elements
        res = derived(filt, d, pred)
        if narrow is not None and elements is not None:

            def filt_range(s: Any, t: Any, e: tuple) -> Any:
                els = elements(s, t, e)
                if type(els) is range:
                    r = narrow(s, t, e, els)
                    if r is not None:
                        return frozenset([v for v in r if fp(s, t, (*e, v))])
                return filt(s, t, e)

            res.fn = filt_range
        res.envmin = min(d.envmin, pred.below(scope.depth).envmin)
        return res

    def range_narrowing(self, b: S.Bound, pred: S.Expr, scope: Scope
                        ) -> Callable[[Any, Any, tuple, range], range | None] | None:
        """For a predicate over ``x`` opening with comparisons ``x < E``, ``E <= x`` ... (E
        free of ``x``): a function narrowing an integer range of ``x`` to the values those
        comparisons accept, so that a loop skips the others without evaluating anything for
        them. It gives None (loop over everything) when some E is not an integer or fails to
        evaluate, which leaves errors to the plain loop."""
        if b.tuple_pattern or len(b.names) != 1 or not scope.ctx.std & {"Naturals", "Integers"}:
            return None
        x = b.names[0]
        cuts: list[tuple[str, EvalFn]] = []
        for item in pred.items if isinstance(pred, S.And) else (pred,):
            if not (isinstance(item, S.OpApp) and item.name in _FLIPPED and len(item.args) == 2
                    and self.lookup(item.name, scope) is None):
                break
            lhs, rhs = item.args
            if isinstance(lhs, S.Name) and lhs.name == x and not _mentions(rhs, x):
                op, other = item.name, rhs
            elif isinstance(rhs, S.Name) and rhs.name == x and not _mentions(lhs, x):
                op, other = _FLIPPED[item.name], lhs
            else:
                break
            c = self.expr(other, scope)
            if not c.pure or c.primed:
                break
            cuts.append((op, c.fn))
        if not cuts:
            return None

        def narrow(s: Any, t: Any, e: tuple, r: range) -> range | None:
            if r.step != 1 or not r:
                return r if r.step == 1 else None
            lo, hi = r.start, r.stop - 1
            for op, g in cuts:
                try:
                    v = g(s, t, e)
                except TlaError:
                    return None
                if type(v) is not int:
                    return None
                if op == ">":
                    lo = max(lo, v + 1)
                elif op == ">=":
                    lo = max(lo, v)
                elif op == "<":
                    hi = min(hi, v - 1)
                else:
                    hi = min(hi, v)
            return range(lo, hi + 1) if lo <= hi else range(0)

        return narrow

    def _c_SetMap(self, node: S.SetMap, scope: Scope) -> C:
        inner, expand, domains = self.bounds(node.bounds, scope)
        body = self.expr(node.expr, inner)
        fb = body.fn
        if self._single_bound(node.bounds):
            df = self.domain_fn(domains[0], node.bounds[0].domain.loc)
            res = derived(lambda s, t, e: frozenset([fb(s, t, (*e, v)) for v in df(s, t, e)]),
                          body, *domains)
        else:
            res = derived(lambda s, t, e: frozenset([fb(s, t, e2) for e2 in expand(s, t, e)]),
                          body, *domains)
        res.envmin = min([d.envmin for d in domains] + [body.below(scope.depth).envmin])
        return res

    # functions -----------------------------------------------------------------------------

    def _c_FnConstruct(self, node: S.FnConstruct, scope: Scope) -> C:
        inner, expand, domains = self.bounds(node.bounds, scope)
        body = self.expr(node.body, inner)
        fb = body.fn
        width = sum(len(b.names) for b in node.bounds)
        single = self._single_bound(node.bounds)
        key_of = _key_builder(node.bounds)

        if single:
            df = self.domain_fn(domains[0], node.bounds[0].domain.loc)

            def construct(s: Any, t: Any, e: tuple) -> Any:
                return make_fn({v: fb(s, t, (*e, v)) for v in df(s, t, e)})
        else:

            def construct(s: Any, t: Any, e: tuple) -> Any:
                return make_fn({key_of(e2[len(e2) - width:]): fb(s, t, e2)
                                for e2 in expand(s, t, e)})

        res = derived(construct, body, *domains)
        res.envmin = min([d.envmin for d in domains] + [body.below(scope.depth).envmin])
        return res

    def _fn_def_value(self, unit: S.FnDef, scope: Scope) -> C:
        """``f[x \\in S] == body``: the function value (finite domain) of the definition."""
        construct = self._c_FnConstruct(S.FnConstruct(unit.loc, unit.bounds, unit.body),
                                        scope)
        f = construct.fn
        loc, name = unit.loc, unit.name

        def value(s: Any, t: Any, e: tuple) -> Any:
            try:
                return f(s, t, e)
            except UnsupportedError as err:
                raise UnsupportedError(
                    f"the function {name} has an infinite domain; only its applications "
                    f"{name}[x] can be evaluated ({err.message})", err.loc or loc
                ) from None

        construct.fn = value
        return construct

    def _c_FnSet(self, node: S.FnSet, scope: Scope) -> C:
        return self._lift(L.fn_set, (node.domain, node.range), node.loc, scope, "[S -> T]", 2)

    def _c_FnApp(self, node: S.FnApp, scope: Scope) -> C:
        loc = node.loc
        args = self.exprs(node.args, scope)
        if len(args) == 1:
            fa = args[0].fn
        else:
            fs = [a.fn for a in args]

            def fa(s: Any, t: Any, e: tuple) -> Any:
                return tuple([f(s, t, e) for f in fs])

        direct = self._recursive_fn_app(node, fa, args, scope)
        if direct is not None:
            return direct
        fn = self.expr(node.fn, scope)

        def slow(f: Any, x: Any) -> Any:
            try:
                return L.apply(f, x)
            except TlaError as err:
                raise located(err, loc) from None

        arg = args[0] if len(args) == 1 else C(fa)
        return derived(_generated("app", _APP_SRC, {"F": fn, "X": arg}, {"slow": slow}),
                       fn, *args)

    def _recursive_fn_app(self, node: S.FnApp, fa: EvalFn, args: list[C], scope: Scope
                          ) -> C | None:
        """``f[x]`` for a function definition ``f``: evaluate the body at x directly
        (the domain may be infinite; recursion goes through here)."""
        if not isinstance(node.fn, S.Name):
            return None
        target = self.lookup(node.fn.name, scope)
        if isinstance(target, DefEntry) and isinstance(target.unit, S.FnDef):
            unit, prefix, dscope = target.unit, target.ctx.base, Scope(target.ctx, target.ctx.base)
            holder: Any = target
        elif isinstance(target, LocalDef) and isinstance(target.unit, S.FnDef):
            unit, prefix, dscope = target.unit, target.scope.depth, target.scope
            holder = target
        else:
            return None
        compiled = self._fn_def_parts(holder, unit, dscope)
        if compiled is None:  # the parts are being compiled: go through the forward cell
            cell = holder.__dict__.setdefault("_fn_cell", [])

            def forward(s: Any, t: Any, e: tuple) -> Any:
                return cell[0](s, t, e)

            app_fn: EvalFn = forward
            rec = True
            body_c: C | None = None
        else:
            app_fn, body_c = compiled
            rec = body_c.rec
        loc = node.loc

        def app(s: Any, t: Any, e: tuple) -> Any:
            x = fa(s, t, e)
            try:
                return app_fn(s, t, (e[:prefix], x))
            except TlaError as err:
                raise located(err, loc) from None

        parts = [*args] + ([body_c] if body_c is not None else [])
        res = derived(app, *parts)
        res.rec = res.rec or rec
        if prefix > 0 or rec:
            res.envmin = 0
        return res

    def _fn_def_parts(self, holder: Any, unit: S.FnDef, scope: Scope
                      ) -> tuple[EvalFn, C] | None:
        parts = holder.__dict__.get("_fn_parts")
        if parts is not None:
            return parts
        if holder.__dict__.get("_fn_compiling"):
            return None
        holder.__dict__["_fn_compiling"] = True
        try:
            doms = [self.expr(b.domain, scope) for b in unit.bounds]
            names = [n for b in unit.bounds for n in _bound_slots(b)]
            inner = scope.bind(*names)
            body = self.expr(unit.body, inner)
        finally:
            holder.__dict__["_fn_compiling"] = False
        fb = body.fn
        dfs = [d.fn for d in doms]
        bounds = unit.bounds
        single = len(bounds) == 1 and len(bounds[0].names) == 1 and not bounds[0].tuple_pattern
        member = L.member
        name = unit.name

        def apply_def(s: Any, t: Any, pe: tuple) -> Any:
            prefix_env, x = pe
            if single:
                dom = dfs[0](s, t, prefix_env)
                if not member(x, dom):
                    raise EvalError(f"{L.show(x)} is not in the domain {L.show(dom)} of {name}")
                return fb(s, t, (*prefix_env, x))
            args = x if type(x) is tuple else (x,)
            env = prefix_env
            k = 0
            for b, df in zip(bounds, dfs, strict=True):
                dom = df(s, t, env)
                if b.tuple_pattern:
                    v = args[k]
                    if not member(v, dom):
                        raise EvalError(f"{L.show(v)} is not in the domain of {name}")
                    env = env + tuple(v)
                    k += 1
                else:
                    for _ in b.names:
                        if k >= len(args) or not member(args[k], dom):
                            raise EvalError(f"{L.show(x)} is not in the domain of {name}")
                        env = (*env, args[k])
                        k += 1
            if k != len(args):
                raise EvalError(f"{L.show(x)} is not in the domain of {name}")
            return fb(s, t, env)

        result = (apply_def, derived(apply_def, body, *doms))
        holder.__dict__["_fn_parts"] = result
        cell = holder.__dict__.setdefault("_fn_cell", [])
        cell.append(apply_def)
        return result

    def _c_Except(self, node: S.Except, scope: Scope) -> C:
        base = self.expr(node.fn, scope)
        at_scope = scope.bind("@")
        updates = []
        parts = [base]
        for u in node.updates:
            path: list[tuple[str | None, EvalFn | None]] = []
            for p in u.path:
                if p.field is not None:
                    path.append((p.field, None))
                else:
                    idx = self.exprs(p.index, scope)
                    parts.extend(idx)
                    if len(idx) == 1:
                        path.append((None, idx[0].fn))
                    else:
                        path.append((None, _tuple_of([c.fn for c in idx])))
            uses_at = any(isinstance(n, S.At) for n in _walk_expr(u.value))
            val = self.expr(u.value, at_scope if uses_at else scope)
            parts.append(val.below(scope.depth))
            updates.append((path, val.fn, uses_at))
        fbase = base.fn
        loc = node.loc

        def update(s: Any, t: Any, e: tuple, f: Any, path: list, k: int, fv: EvalFn,
                   uses_at: bool) -> Any:
            name, idx = path[k]
            key = name if name is not None else idx(s, t, e)
            if type(f) is tuple:
                if type(key) is not int or not 1 <= key <= len(f):
                    return f
                old = f[key - 1]
            elif type(f) is Fn:
                if key not in f.map:
                    return f
                old = f.map[key]
            else:
                raise EvalError(f"EXCEPT applies to a function, got {L.show(f)}", loc)
            if k + 1 == len(path):
                new = fv(s, t, (*e, old)) if uses_at else fv(s, t, e)
            else:
                new = update(s, t, e, old, path, k + 1, fv, uses_at)
            if type(f) is tuple:
                lst = list(f)
                lst[key - 1] = new
                return tuple(lst)
            m = dict(f.map)
            m[key] = new
            return Fn(m)

        def except_(s: Any, t: Any, e: tuple) -> Any:
            f = fbase(s, t, e)
            for path, fv, uses_at in updates:
                f = update(s, t, e, f, path, 0, fv, uses_at)
            return f

        if len(updates) == 1 and len(updates[0][0]) == 1:
            # the common [f EXCEPT ![k] = v]: one update of one level
            (path1, fv1, at1) = updates[0]
            field1, idx1 = path1[0]

            def except1(s: Any, t: Any, e: tuple) -> Any:
                f = fbase(s, t, e)
                if type(f) is tuple and idx1 is not None:
                    key = idx1(s, t, e)
                    if type(key) is int and 0 < key <= len(f):
                        lst = list(f)
                        lst[key - 1] = fv1(s, t, (*e, f[key - 1])) if at1 else fv1(s, t, e)
                        return tuple(lst)
                    return f
                if type(f) is Fn:
                    key = field1 if idx1 is None else idx1(s, t, e)
                    m = f.map
                    if key in m:
                        m2 = dict(m)
                        m2[key] = fv1(s, t, (*e, m[key])) if at1 else fv1(s, t, e)
                        return Fn(m2)
                    return f
                return update(s, t, e, f, path1, 0, fv1, at1)

            return derived(except1, *parts)
        return derived(except_, *parts)

    def _c_At(self, node: S.At, scope: Scope) -> C:
        local = scope.names.get("@")
        if not isinstance(local, Slot):
            raise EvalError("@ outside an EXCEPT update", node.loc)
        i = local.index
        return C(lambda s, t, e: e[i], envmin=i)

    # records and tuples -----------------------------------------------------------------------

    def _c_RecordConstruct(self, node: S.RecordConstruct, scope: Scope) -> C:
        names = [n for n, _ in node.fields]
        parts = self.exprs([x for _, x in node.fields], scope)
        fs = [p.fn for p in parts]
        pairs = list(zip(names, fs, strict=True))
        return derived(lambda s, t, e: Fn({n: f(s, t, e) for n, f in pairs}), *parts)

    def _c_RecordSet(self, node: S.RecordSet, scope: Scope) -> C:
        names = [n for n, _ in node.fields]
        parts = self.exprs([x for _, x in node.fields], scope)
        fs = [p.fn for p in parts]
        loc = node.loc

        def rs(s: Any, t: Any, e: tuple) -> Any:
            try:
                return L.record_set([(n, f(s, t, e)) for n, f in zip(names, fs, strict=True)])
            except TlaError as err:
                raise located(err, loc) from None

        return derived(rs, *parts)

    def _c_FieldAccess(self, node: S.FieldAccess, scope: Scope) -> C:
        r = self.expr(node.record, scope)
        name, loc = node.field, node.loc

        def slow(v: Any) -> Any:
            try:
                return L.field(v, name)
            except TlaError as err:
                raise located(err, loc) from None

        return derived(_generated("get", _FIELD_SRC, {"R": r}, {"slow": slow, "name": name}),
                       r)

    def _c_Tuple(self, node: S.Tuple, scope: Scope) -> C:
        parts = self.exprs(node.items, scope)
        fs = [p.fn for p in parts]
        if len(fs) == 2:
            f0, f1 = fs
            return derived(lambda s, t, e: (f0(s, t, e), f1(s, t, e)), *parts)
        return derived(lambda s, t, e: tuple([f(s, t, e) for f in fs]), *parts)

    def _c_Lambda(self, node: S.Lambda, scope: Scope) -> C:
        raise EvalError("LAMBDA is only allowed as an operator argument", node.loc)

    # actions as expressions --------------------------------------------------------------------

    def _c_Prime(self, node: S.Prime, scope: Scope) -> C:
        inner = self.expr(node.expr, scope)
        if inner.primed:
            raise EvalError("a primed expression inside a primed expression", node.loc)
        f = inner.fn
        if not inner.vars:
            return inner  # constant under prime
        idx = tuple(sorted(inner.vars))
        loc = node.loc
        names = self.var_names

        if len(idx) == 1 and isinstance(node.expr, S.Name):
            i = idx[0]

            def primed_var(s: Any, t: Any, e: tuple) -> Any:
                if t is None:
                    raise EvalError("a primed variable where no next state exists", loc)
                v = t[i]
                if v is UNASSIGNED:
                    raise EvalError(
                        f"{names[i]}' is used before it is assigned in this action", loc)
                return v

            return C(primed_var, primed=True, envmin=inner.envmin, rec=inner.rec)

        def primed(s: Any, t: Any, e: tuple) -> Any:
            if t is None:
                raise EvalError("a primed expression where no next state exists", loc)
            for i in idx:
                if t[i] is UNASSIGNED:
                    raise EvalError(
                        f"{names[i]}' is used before it is assigned in this action", loc)
            return f(t, None, e)

        return C(primed, primed=True, envmin=inner.envmin, pure=inner.pure, rec=inner.rec)

    def _c_Unchanged(self, node: S.Unchanged, scope: Scope) -> C:
        return self._c_Prime_eq(node.expr, node.loc, scope)

    def _c_Prime_eq(self, expr: S.Expr, loc: Loc, scope: Scope) -> C:
        now = self.expr(expr, scope)
        nxt = self.expr(S.Prime(loc, expr), scope)
        fa, fb = now.fn, nxt.fn
        eq = L.values_equal
        return derived(lambda s, t, e: eq(fa(s, t, e), fb(s, t, e)), now, nxt)

    def _c_ActionBox(self, node: S.ActionBox, scope: Scope) -> C:
        a = self.expr(node.action, scope)
        same = self._c_Prime_eq(node.sub, node.loc, scope)
        fa = self.boolean(a, node.action.loc, "action")
        fs = same.fn
        if node.box:
            return derived(lambda s, t, e: fa(s, t, e) or fs(s, t, e), a, same)
        return derived(lambda s, t, e: fa(s, t, e) and not fs(s, t, e), a, same)

    def _c_Temporal(self, node: S.Temporal, scope: Scope) -> C:
        if node.op == "ENABLED" and self.enabled is not None and len(node.args) == 1:
            # ENABLED A: A has a successor from the current state (A is enumerated as an
            # action; the result depends on every variable, so it is never cached)
            return C(self.enabled(node.args[0], scope), vars=frozenset(range(len(self.var_names))),
                     envmin=0, boolean=True)
        return self.raiser(UnsupportedError(
            f"the temporal operator {node.op} cannot be evaluated on a state", node.loc))

    def _c_Fairness(self, node: S.Fairness, scope: Scope) -> C:
        return self.raiser(UnsupportedError(
            f"the fairness condition {node.kind}_ cannot be evaluated on a state", node.loc))

    # instances ---------------------------------------------------------------------------------

    def instance_target(self, path: Sequence[str], name: str, loc: Loc, scope: Scope
                        ) -> tuple[Entry, Scope]:
        """The entry ``name`` of the instance reached by ``path`` from ``scope``."""
        ctx = scope.ctx
        for inst_name in path:
            entry = ctx.names.get(inst_name)
            if not isinstance(entry, InstEntry):
                raise EvalError(f"{inst_name} is not an instance in module {ctx.module}", loc)
            if entry.unit.params:
                raise UnsupportedError(
                    f"parameterised instance {inst_name} is not supported", loc)
            if entry.ctx is None:
                builder = entry.outer.builder
                assert builder is not None
                entry.ctx = builder.instance_ctx(entry.unit, Scope(entry.outer, entry.outer.base))
            ctx = entry.ctx
        target = ctx.names.get(name) if name in ctx.exported else None
        if target is None:
            for module in sorted(ctx.std):
                if name in L.STANDARD[module]:
                    return ConstEntry("__std__" + name, 0, loc), Scope(ctx, ctx.base)
            raise EvalError(f"{'!'.join(path)}!{name}: no such definition in module "
                            f"{ctx.module}", loc)
        return target, Scope(ctx, ctx.base)

    def _c_InstanceOpApp(self, node: S.InstanceOpApp, scope: Scope) -> C:
        target, iscope = self.instance_target(node.path, node.name, node.loc, scope)
        if isinstance(target, ConstEntry) and target.name.startswith("__std__"):
            op = next(L.STANDARD[m][node.name] for m in sorted(iscope.ctx.std)
                      if node.name in L.STANDARD[m])
            return self.std_call(op, node.name, node.args, node.loc, scope)
        if isinstance(target, DefEntry):
            return self._call_def(target.unit, self.def_body(target), target.ctx.base,
                                  node.args, node.loc, scope)
        return self.apply_target(target, node.name, node.args, node.loc, iscope)


# ---------------------------------------------------------------------------
# Helpers
# ---------------------------------------------------------------------------

_FAST_INT: dict[str, Callable[[int, int], Any]] = {
    "+": lambda a, b: a + b,
    "-": lambda a, b: a - b,
    "*": lambda a, b: a * b,
    "<": lambda a, b: a < b,
    "<=": lambda a, b: a <= b,
    ">": lambda a, b: a > b,
    ">=": lambda a, b: a >= b,
}

_BUILTIN_METHODS: dict[str, str] = {
    "=": "eq",
    "/=": "neq",
    "\\in": "in",
    "\\notin": "notin",
    "\\cup": "cup",
    "\\cap": "cap",
    "\\": "setminus",
    "\\subseteq": "subseteq",
    "\\subset": "subset",
    "\\supseteq": "supseteq",
    "\\supset": "supset",
    "SUBSET": "powerset",
    "UNION": "union",
    "DOMAIN": "domain",
    "\\times": "times",
    "BOOLEAN": "boolean",
    "STRING": "string",
    "~": "not",
    "=>": "implies",
    "<=>": "equiv",
    "/\\": "and",
    "\\/": "or",
}


def _install_fast_arith() -> None:
    for sym in _FAST_INT:
        method = "arith_" + {"+": "plus", "-": "minus", "*": "mul", "<": "lt", "<=": "le",
                             ">": "gt", ">=": "ge"}[sym]
        _BUILTIN_METHODS[sym] = method

        def fast(self: Compiler, args: Sequence[S.Expr], loc: Loc, scope: Scope,
                 sym: str = sym) -> C:
            c = self._arith(sym, args, loc, scope)
            if c is not None:
                return c
            for module in sorted(scope.ctx.std):
                op = L.STANDARD[module].get(sym)
                if op is not None:
                    return self.std_call(op, sym, args, loc, scope)
            raise EvalError(
                f"unknown operator {sym} in module {scope.ctx.module} "
                f"(defined in the standard module Naturals: EXTENDS it)", loc)

        setattr(Compiler, "_b_" + method, fast)


_install_fast_arith()


# Hot closures are generated from source so that operands that are plain reads of a
# state variable or a bound variable are inlined (``s[3]``, ``e[1]``) instead of being
# closure calls, and literals become names bound to their values.

_APP_SRC = """
def app(s, t, e):
    f = {F}
    x = {X}
    if type(f) is tuple:
        if type(x) is int and 0 < x <= len(f):
            return f[x - 1]
    elif type(f) is Fn:
        try:
            return f.map[x]
        except (KeyError, TypeError):
            pass
    return slow(f, x)
"""

_FIELD_SRC = """
def get(s, t, e):
    v = {R}
    if type(v) is Fn:
        try:
            return v.map[name]
        except KeyError:
            pass
    return slow(v)
"""


_EQ_SRC = """
def eq(s, t, e):
    a = {A}
    b = {B}
    if a == b:
        return (type(a) is type(b) or not (type(a) is bool or type(b) is bool)) is not NEG
    return NEG
"""

_EQ_LITERAL_SRC = """
def eq(s, t, e):
    a = {A}
    return (a == {B} and type(a) is T) is not NEG
"""

_IN_SRC = """
def isin(s, t, e):
    x = {A}
    st = {B}
    if type(st) is frozenset:
        try:
            found = x in st
        except TypeError:
            return NEG
        if found and (x is True or x is False or type(x) is int and (x == 0 or x == 1)):
            found = in_finite(x, st)
        return found is not NEG
    return slow(x, st) is not NEG
"""

_IN_DOMAIN_SRC = """
def isin(s, t, e):
    x = {A}
    f = {F}
    if type(f) is tuple:
        return (type(x) is int and 0 < x <= len(f)) is not NEG
    if type(f) is Fn:
        try:
            return (x in f.map) is not NEG
        except TypeError:
            return NEG
    return slow(f, x) is not NEG
"""

_ARITH_SRC = """
def arith(s, t, e):
    x = {A}
    y = {B}
    if type(x) is int and type(y) is int:
        return x OP y
    return fail(x, y)
"""


def _operand(c: C, key: str, namespace: dict[str, Any]) -> str:
    """Python source evaluating the compiled operand ``c`` inside a generated closure."""
    if c.reads is not None:
        kind, i = c.reads
        return f"{'s' if kind == 'var' else 'e'}[{int(i)}]"
    if c.value is not _MISSING:
        namespace[f"{key}_v"] = c.value
        return f"{key}_v"
    namespace[f"{key}_f"] = c.fn
    return f"{key}_f(s, t, e)"


def _generated(name: str, template: str, operands: Mapping[str, C], extra: Mapping[str, Any]
               ) -> EvalFn:
    namespace: dict[str, Any] = {"Fn": Fn, **extra}
    src = template.format(**{k: _operand(c, k, namespace) for k, c in operands.items()})
    exec(compile(src, f"<{name}>", "exec"), namespace)
    return namespace[name]


def _bound_slots(b: S.Bound) -> tuple[str, ...]:
    return b.names


def _key_builder(bounds: Sequence[S.Bound]) -> Callable[[tuple], Any]:
    """The function key of ``[x \\in S, <<y, z>> \\in T |-> e]`` from the bound values."""
    shape: list[tuple[int, bool]] = []
    for b in bounds:
        if b.tuple_pattern:
            shape.append((len(b.names), True))
        else:
            shape.extend((1, False) for _ in b.names)
    if len(shape) == 1:
        if shape[0][1]:
            return lambda vals: tuple(vals)
        return lambda vals: vals[0]

    def key(vals: tuple) -> Any:
        out: list[Any] = []
        k = 0
        for n, pattern in shape:
            if pattern:
                out.append(tuple(vals[k:k + n]))
                k += n
            else:
                out.append(vals[k])
                k += 1
        return tuple(out)

    return key


def _walk_expr(node: Any) -> Iterator[Any]:
    """All sub-nodes (an @ of a nested EXCEPT counts too: over-approximation is harmless)."""
    from conformance.tla.astwalk import walk

    return walk(node)


def _member_of(member: Callable[[Any, Any], bool], st: Any) -> Callable[[Any], bool]:
    return lambda v: member(v, st)


def _lazy_builder(f: EvalFn, kind: type[Lazy]) -> EvalFn:
    return lambda s, t, e: kind(f, s, t, e)


def _tuple_of(fs: list[EvalFn]) -> EvalFn:
    return lambda s, t, e: tuple([f(s, t, e) for f in fs])


def _with_runtime(impl: Callable[..., Any], rt: L.Runtime) -> Callable[..., Any]:
    return lambda *a: impl(rt, *a)


__all__ = [
    "UNASSIGNED",
    "C",
    "Compiler",
    "ContextBuilder",
    "Ctx",
    "DefEntry",
    "Lazy",
    "Scope",
    "format_value",
    "make_fn",
    "make_record",
]
