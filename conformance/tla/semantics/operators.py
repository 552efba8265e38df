"""Names and operator application: resolution of names, definitions compiled once,
parameters passed by value or by name (substitution), operator arguments,
standard-module operators. Also the dispatch of every node kind (``expr``)."""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import replace
from typing import Any

from conformance.tla import stdlib as L
from conformance.tla import syntax as S
from conformance.tla.astwalk import walk
from conformance.tla.semantics.arguments import (
    forcing,
    guarded_read,
    unassigned_read,
    unread_arg,
)
from conformance.tla.semantics.compiled import (
    _MISSING,
    NOENV,
    C,
    EvalFn,
    cached,
    const,
    derived,
    located,
    rec_node,
)
from conformance.tla.semantics.memo import (
    env_memoized,
    loops,
    memo_worthy,
    memoized,
    state_memoized,
)
from conformance.tla.semantics.scope import (
    Alias,
    ConstEntry,
    ConstLocal,
    Ctx,
    DefEntry,
    Entry,
    GuardedSlot,
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
from conformance.tla.semantics.strictness import Lookup, Strict, Strictness, unread_params
from conformance.tla.semantics.support import (
    _BUILTIN_METHODS,
    _applied,
    _bound_slots,
    _by_name_uses,
    _lazy_builder,
    _with_runtime,
    deferring,
)
from conformance.tla.standard_modules import STANDARD
from conformance.tla.syntax import EvalError, Loc, TlaError, UnsupportedError
from conformance.tla.values import (
    Value,
)

# ---------------------------------------------------------------------------
# The compiler: names and operators
# ---------------------------------------------------------------------------

_BUILTIN_INFIX = frozenset(_BUILTIN_METHODS) - {"SUBSET", "UNION", "DOMAIN", "~", "BOOLEAN", "STRING",
                                                 "\\times"}
"""Builtin infix operators a spec may pass by name for an operator parameter (as TLC does):
the builtins but the prefix and nullary ones and the product (``\\X`` is not an operator)."""

# nodes and builtin operators whose closures always return a boolean (or raise)
_BOOLEAN_NODES = frozenset({S.And, S.Or, S.Quant, S.Unchanged, S.ActionBox})
_BOOLEAN_OPS = frozenset({"~", "=>", "<=>", "/\\", "\\/", "=", "/=", "\\in", "\\notin",
                          "<", "<=", ">", ">=", "\\subseteq"})



class OperatorCompiler:
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
        # memoised bodies, by id() of the compiled body (each entry keeps it alive): an
        # operator of a module instantiated twice has a body per instance
        self._memos: dict[int, tuple[EvalFn, EvalFn]] = {}
        # the by-name parameters of each operator (keyed by id, the entry keeps it alive)
        self._by_name: dict[int, tuple[S.OpDef, frozenset[str]]] = {}
        self._inlining: set[int] = set()  # operators whose body is being substituted
        # Op!sel references: (the definition entry, kept alive; the selected definition)
        self._subexpr_cache: dict[tuple[int, tuple[str, ...]], tuple[Any, Any]] = {}
        # the parameters each operator's body always evaluates (the others' arguments
        # keep their errors until they are read)
        self.strictness = Strictness(self._callee_of)
        # the parameters each operator's body never reads (keyed by id, the entry keeps
        # the definition alive): their arguments are not evaluated
        self._unread: dict[int, tuple[S.OpDef, Strict]] = {}

    # errors --------------------------------------------------------------------

    @staticmethod
    def raiser(err: TlaError) -> C:
        def fail(s: Any, t: Any, e: tuple) -> Any:
            raise err

        return rec_node(fail)

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
        # interned: equal literals are the very same object, which identity checks see
        return const(sys.intern(node.value))

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
            op = STANDARD[module].get(name)
            if op is not None:
                return self.std_call(op, name, args, loc, scope)
        for module in sorted(STANDARD):
            if name in STANDARD[module]:
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

            res = derived(lazy, target.body, envmin=i)
            res.reads = ("lazy", i)
            return res
        if isinstance(target, GuardedSlot):
            self._check_arity(name, 0, args, loc)
            return C(guarded_read(target.index), envmin=target.index,
                     reads=("guarded", target.index))
        if isinstance(target, ConstLocal):
            self._check_arity(name, 0, args, loc)
            return target.body
        if isinstance(target, Alias):
            if args and not target.primed:  # I(Op(_)) == INSTANCE M: Op(a) in M's context
                return self._substituted_operator(target, args, scope)
            self._check_arity(name, 0, args, loc)
            return self.expr(target.expr,
                             target.scope.primed_view() if target.primed else target.scope)
        if isinstance(target, OpSlot):
            self._check_arity(name, target.arity, args, loc)
            return self._call_op_slot(target, args, loc, scope)
        if isinstance(target, (LocalDef, DefEntry)) and self.by_name(target, args):
            return self._call_by_name(target, args, loc, scope)
        if isinstance(target, LocalDef):
            return self._call_def(target.unit, self.local_body(target), target.scope.depth,
                                  args, loc, scope, target.scope)
        if isinstance(target, VarEntry):
            self._check_arity(name, 0, args, loc)
            i = target.index
            return C(lambda s, t, e: s[i], vars=frozenset((i,)), reads=("var", i))
        if isinstance(target, ConstEntry):
            return self._constant(target, args, loc, scope)
        if isinstance(target, DefEntry):
            return self._call_def(target.unit, self.def_body(target), target.ctx.base,
                                  args, loc, scope, Scope(target.ctx, target.ctx.base))
        if isinstance(target, SubstEntry):
            depth = target.scope.depth
            if args:  # INSTANCE M WITH Op <- Impl, Op a CONSTANT Op(_, _): Impl(args)
                return self._substituted_operator(target, args, scope)
            body = self.subst_body(target)
            if not body.env and depth == scope.depth:
                return body  # called at the depth it was compiled for
            f = body.fn
            return derived(lambda s, t, e: f(s, t, e[:depth]), body)
        raise EvalError(f"{name} is an instance, not a value (use {name}!Op)", loc)

    def _substituted_operator(self, target: SubstEntry | Alias, args: Sequence[S.Expr], scope: Scope) -> C:
        """``Op(a, b)`` in an instance whose operator constant ``Op`` is substituted by an
        operator of the instantiating module (``WITH Op <- Impl``, or a LAMBDA), or where
        ``Op`` is an operator parameter of the instance (``I(Op(_, _)) == INSTANCE M``): that
        operator, read where the substitution (the argument) is written, applied to the
        arguments read here."""
        op = self._substitution_operator(target, len(args))
        fop = op.fn
        cargs = [self.value_arg(a, scope, False) for a in args]
        fs = [c.fn for c in cargs]

        def call(s: Any, t: Any, e: tuple) -> Any:
            return fop(s, t, e)(*[a(s, t, e) for a in fs])

        return derived(call, op, *cargs, pure=False)

    def _substitution_operator(self, target: SubstEntry | Alias, arity: int) -> C:
        """The operator an instance's operator constant is substituted by (or an instance's
        operator parameter stands for), compiled where the substitution (the argument) is
        written and read from any depth below it: a Python callable."""
        sub = self.op_arg(target.expr, arity, target.scope)
        fop, depth = sub.fn, target.scope.depth
        return derived(lambda s, t, e: fop(s, t, e[:depth]), sub, pure=False)

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
        strict = self.strict_params(unit, scope)
        new = dict(scope.names)
        for i, p in enumerate(unit.params):
            slot = scope.depth + i
            new[p.name] = (OpSlot(slot, p.arity) if p.arity
                           else Slot(slot) if p.name in strict else GuardedSlot(slot))
        return Scope(scope.ctx, scope.depth + len(unit.params), new)

    # strict parameters ----------------------------------------------------------------

    def strict_params(self, unit: S.OpDef, scope: Scope) -> Strict:
        """The parameters of ``unit`` (defined in ``scope``) its body always evaluates:
        their arguments are evaluated at the call. Computed once per definition, so a body
        and its calls agree on which parameters hold plain values."""
        return self.strictness.params(unit, lambda n: self.lookup(n, scope))

    def unread_params(self, unit: S.OpDef, scope: Scope) -> Strict:
        """The parameters of ``unit`` (defined in ``scope``) its body never reads, the
        conditions that are constants of the model taken into account
        (``strictness.unread_params``): a call passes ``unread_arg`` for them."""
        hit = self._unread.get(id(unit))
        if hit is not None and hit[0] is unit:
            return hit[1]
        inner = self._def_scope(unit, scope)

        def known(cond: S.Expr) -> Any:
            try:
                c = self.expr(cond, inner)
                if not c.constant:
                    return None
                value = c.value if c.value is not _MISSING else c.fn(None, None, ())
            except TlaError:
                return None
            return value if type(value) is bool else None

        result = unread_params(unit, known)
        self._unread[id(unit)] = (unit, result)
        return result

    def _callee_of(self, entry: Any) -> tuple[S.OpDef, Lookup] | None:
        """The operator a name table entry defines, and the lookup of its body's names."""
        if isinstance(entry, DefEntry) and isinstance(entry.unit, S.OpDef):
            dscope = Scope(entry.ctx, entry.ctx.base)
        elif isinstance(entry, LocalDef) and isinstance(entry.unit, S.OpDef):
            dscope = entry.scope
        else:
            return None
        return entry.unit, lambda n: self.lookup(n, dscope)

    def value_arg(self, node: S.Expr, scope: Scope, strict: bool,
                  check: Callable[[C], EvalFn] | None = None) -> C:
        """The argument ``node`` of a parameter passed by value, evaluated at the call.
        Unless the body is ``strict`` in the parameter, an error of the argument waits for
        the body to read it (``arguments.py``). ``check`` gives the closure to evaluate
        (Init's check against reading unassigned variables)."""
        if not strict and isinstance(node, S.Name):
            local = scope.names.get(node.name)
            if isinstance(local, GuardedSlot):  # handed on as it is, failed or not
                i = local.index
                return C(lambda s, t, e: e[i], envmin=i, reads=("slot", i))
        c = self.expr(node, scope)
        fn = c.fn if check is None else check(c)
        if not strict and check is None and c.reads is not None and c.reads[0] == "var":
            # fails only in an initial predicate, before the variable is assigned
            i = c.reads[1]
            return replace(c, fn=unassigned_read(i, self.var_names[i], node.loc), reads=None,
                           deferred=c.vars)
        cannot_fail = c.value is not _MISSING or (
            fn is c.fn and c.reads is not None and c.reads[0] in ("slot", "var"))
        if strict or cannot_fail:
            return c if fn is c.fn else replace(c, fn=fn, reads=None, elements=None)
        reads = sorted(c.vars) if check is None else ()  # ``check`` guards Init already
        arg = c if fn is c.fn else C(fn)
        return replace(c, fn=deferring(arg, reads, self.var_names, node.loc), reads=None,
                       value=_MISSING, boolean=False, elements=None, deferred=c.vars)

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

            return rec_node(forward, envmin=0)
        holder.state = "compiling"
        try:
            body = self._compile_unit_body(holder.unit, scope)
        except BaseException:
            holder.state = "new"
            raise
        if isinstance(holder, DefEntry):
            body = _kept_once(holder, body)
        holder.cell.append(body.fn)
        holder.body = body
        holder.state = "done"
        return body

    def _compile_unit_body(self, unit: S.OpDef | S.FnDef, scope: Scope) -> C:
        if isinstance(unit, S.OpDef):
            return self.expr(unit.body, self._def_scope(unit, scope))
        # a function definition: its "body" is the function value itself
        return self._fn_def_value(unit, scope)

    def _fn_def_value(self, unit: S.FnDef, scope: Scope) -> C:
        """The value of a function definition ``f[x \\in S] == e`` (see ``functions.py``)."""
        raise NotImplementedError

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
        dscope: Scope,
    ) -> C:
        """Apply a definition (made in ``dscope``) whose body expects an environment
        ``prefix + params``."""
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
        if prefix == 0 and body.vars and isinstance(unit, S.OpDef) \
                and self._memo_eligible(unit, body, True, loops):
            f = self._state_memo_of(unit, f, tuple(sorted(body.vars)))
        if not params:
            # the body's binders expect an environment of exactly ``prefix`` slots
            if body.value is not _MISSING or (f is body.fn and not body.env and prefix == scope.depth):
                return body
            if prefix == 0:
                return derived(lambda s, t, e: f(s, t, ()), body)
            return derived(lambda s, t, e: f(s, t, e[:prefix]), body, envmin=0)
        assert isinstance(unit, S.OpDef)
        strict = self.strict_params(unit, dscope)
        unread = self.unread_params(unit, dscope)
        cargs = [
            self.op_arg(a, p.arity, scope) if p.arity
            else unread_arg(p.name, unit.name, a.loc) if p.name in unread
            else self.value_arg(a, scope, p.name in strict)
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
        else:
            call = _applied(f, prefix, cargs)
            res.fn, res.inline = call.fn, call.inline
        return res

    # parameters passed by name -------------------------------------------------------------

    def by_name(self, target: DefEntry | LocalDef, args: Sequence[S.Expr]) -> bool:
        """Whether this application must substitute its arguments (TLA+'s semantics of
        operator application) rather than pass their values: when the body primes a
        parameter, takes it as an assignment target, or hands it on to an operator that
        does. Passing values is the same otherwise, and cheaper."""
        unit = target.unit
        if not args or not isinstance(unit, S.OpDef):
            return False
        if isinstance(target, DefEntry) and target.ctx.base:
            return False  # a parameterised instance's definition: its prefix is its own
        return bool(self.by_name_params(unit, target.ctx if isinstance(target, DefEntry)
                                        else target.scope.ctx))

    def by_name_params(self, unit: S.OpDef, ctx: Ctx) -> frozenset[str]:
        """The zero-arity parameters of ``unit`` that must be passed by name."""
        hit = self._by_name.get(id(unit))
        if hit is not None and hit[0] is unit:
            return hit[1]
        self._by_name[id(unit)] = (unit, frozenset())  # a recursive use: assume none
        params = {p.name for p in unit.params if p.arity == 0}
        lets = {d.name: d for n in walk(unit.body) if isinstance(n, S.Let)
                for d in n.defs if isinstance(d, S.OpDef)}
        found = set(_by_name_uses(unit.body, params,
                                  lambda n: self._callee_params(n, ctx, lets)))
        result = frozenset(found)
        self._by_name[id(unit)] = (unit, result)
        return result

    def _callee_params(self, node: S.OpApp, ctx: Ctx, lets: Mapping[str, S.OpDef]
                       ) -> tuple[bool, ...] | None:
        """For each argument of ``node`` (a call), whether the callee takes it by name;
        None when the callee is unknown here (then assume by name)."""
        local = lets.get(node.name)
        if local is not None:
            if len(local.params) != len(node.args):
                return None
            by = self.by_name_params(local, ctx)
            return tuple(p.name in by for p in local.params)
        entry = ctx.names.get(node.name)
        if isinstance(entry, DefEntry):
            unit = entry.unit
            if not isinstance(unit, S.OpDef) or len(unit.params) != len(node.args):
                return tuple(False for _ in node.args)
            by = self.by_name_params(unit, entry.ctx)
            return tuple(p.name in by for p in unit.params)
        if entry is None:
            # a built-in or standard operator, or an operator parameter (whose arguments
            # an operator or LAMBDA argument receives as values)
            return tuple(False for _ in node.args)
        return None

    def by_name_scope(self, target: DefEntry | LocalDef, args: Sequence[S.Expr], loc: Loc,
                      scope: Scope, volatile: bool = False, init: bool = False
                      ) -> tuple[Scope, list[EvalFn], list[C]]:
        """The scope of ``target``'s body for this call (the caller's environment followed
        by one slot per parameter) and the builders of those slots' values."""
        unit = target.unit
        assert isinstance(unit, S.OpDef)
        self._check_arity(unit.name, len(unit.params), args, loc)
        if isinstance(target, DefEntry):
            ctx, names = target.ctx, {}
        else:
            ctx, names = target.scope.ctx, dict(target.scope.names)
        by = self.by_name_params(unit, ctx)
        strict = self.strict_params(unit, target.scope if isinstance(target, LocalDef)
                                    else Scope(ctx, ctx.base))
        builders: list[EvalFn] = []
        parts: list[C] = []
        for i, (p, a) in enumerate(zip(unit.params, args, strict=True)):
            slot = scope.depth + i
            if p.arity:
                c = self.op_arg(a, p.arity, scope)
                names[p.name] = OpSlot(slot, p.arity)
                builders.append(c.fn)
            elif p.name in by:
                c = self.expr(a, scope)
                names[p.name] = LazySlot(slot, c, alias=(a, scope))
                memo = not (volatile and (c.vars if init else c.primed))
                builders.append(_lazy_builder(c.fn, Lazy if memo else Thunk))
            else:
                c = self.value_arg(a, scope, p.name in strict)
                names[p.name] = Slot(slot) if p.name in strict else GuardedSlot(slot)
                builders.append(c.fn)
            parts.append(c)
        return Scope(ctx, scope.depth + len(unit.params), names), builders, parts

    def _call_by_name(self, target: DefEntry | LocalDef, args: Sequence[S.Expr], loc: Loc,
                      scope: Scope) -> C:
        unit = target.unit
        assert isinstance(unit, S.OpDef)
        if id(unit) in self._inlining:
            raise UnsupportedError(
                f"recursive operator {unit.name} whose parameter is primed or assigned", loc)
        inner, builders, parts = self.by_name_scope(target, args, loc, scope)
        self._inlining.add(id(unit))
        try:
            body = self.expr(unit.body, inner)
        finally:
            self._inlining.discard(id(unit))
        fb = body.fn

        def call(s: Any, t: Any, e: tuple) -> Any:
            return fb(s, t, (*e, *[b(s, t, e) for b in builders]))

        res = derived(call, body.below(scope.depth), *parts)
        res.boolean = body.boolean
        return res

    def _memo_eligible(self, unit: S.OpDef, body: C, state_ok: bool = False,
                       worth: Callable[[S.Expr], bool] = memo_worthy) -> bool:
        """Whether calls of ``unit`` may share results (its body pure, reading no next
        state, and no state unless ``state_ok``) and ``worth`` a lookup."""
        return (body.pure and (state_ok or not body.vars) and not body.primed and not body.rec
                and all(p.arity == 0 for p in unit.params) and worth(unit.body))

    def _memo_of(self, unit: S.OpDef, f: EvalFn) -> EvalFn:
        """The memoised body ``f`` of ``unit``, shared by all its call sites."""
        hit = self._memos.get(id(f))
        if hit is None or hit[0] is not f:
            hit = self._memos[id(f)] = (f, memoized(f, len(unit.params)))
        return hit[1]

    def _state_memo_of(self, unit: S.OpDef, f: EvalFn, reads: tuple[int, ...]) -> EvalFn:
        """The body ``f`` of ``unit``, which reads the variables ``reads`` of the current
        state, remembering its results per arguments and objects of those variables
        (``state_memoized``), shared by all its calls."""
        hit = self._memos.get(id(f))
        if hit is None or hit[0] is not f:
            hit = self._memos[id(f)] = (f, state_memoized(f, reads, len(unit.params)))
        return hit[1]

    def _call_op_slot(self, target: OpSlot, args: Sequence[S.Expr], loc: Loc, scope: Scope) -> C:
        i = target.index
        # the operator passed decides which arguments it reads (see ``op_arg``)
        cargs = [self.value_arg(a, scope, False) for a in args]
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
            if _primes_a_parameter(S.OpDef(node.loc, "LAMBDA", tuple(S.Param(n, 0) for n in node.params),
                                           node.body, False, None)):
                raise UnsupportedError("a LAMBDA that primes a parameter, passed as an operator "
                                       "argument, is not supported", node.loc)
            names = dict(scope.names)
            for k, n in enumerate(node.params):  # arguments may have failed: reads check
                names[n] = GuardedSlot(scope.depth + k)
            body = self.expr(node.body, Scope(scope.ctx, scope.depth + len(node.params), names))
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
                if _primes_a_parameter(unit):
                    # its arguments would arrive as values: v' of the value, not of the
                    # variable the argument names (TLC substitutes it)
                    raise UnsupportedError(
                        f"{node.name}, which primes a parameter, passed as an operator argument "
                        f"is not supported", node.loc)
                if isinstance(target, DefEntry):
                    body, prefix = self.def_body(target), target.ctx.base
                    strict = self.strict_params(unit, Scope(target.ctx, prefix))
                else:
                    body, prefix = self.local_body(target), target.scope.depth
                    strict = self.strict_params(unit, target.scope)
                f = body.fn
                # its strict parameters are plain slots: their arguments are checked first
                plain = [k for k, p in enumerate(unit.params) if p.name in strict]
                return derived(
                    lambda s, t, e: forcing(lambda *a: f(s, t, e[:prefix] + a), plain),
                    body.below(0), envmin=0 if prefix else NOENV, pure=False,
                )
            if isinstance(target, SubstEntry) or (isinstance(target, Alias) and not target.primed):
                # an operator constant of an instance passed on as an operator (INSTANCE
                # BlockDag inside an instance whose Leader(_) is substituted), or an operator
                # parameter of an instance: the operator it stands for, read where that is written
                return self._substitution_operator(target, arity)
            if target is None:
                for module in sorted(scope.ctx.std):
                    op = STANDARD[module].get(node.name)
                    if op is not None and op.arity == arity and not op.op_args and not op.state:
                        impl = _with_runtime(op.impl, self.runtime) if op.runtime else op.impl
                        return const(forcing(impl, range(arity)))
                if arity == 2 and node.name in _BUILTIN_INFIX:  # as LAMBDA a, b : a op b
                    a, b = S.Name(node.loc, " left"), S.Name(node.loc, " right")
                    infix = S.OpApp(node.loc, node.name, (a, b))
                    return self.op_arg(S.Lambda(node.loc, (a.name, b.name), infix), arity, scope)
        # any other expression
        raise EvalError(f"expected an operator of arity {arity} here", node.loc)

    # standard-module operators ------------------------------------------------------------

    def _state_call(self, op: L.StdOp, cargs: Sequence[C], loc: Loc) -> C:
        """A call of a standard operator that takes the runtime and the state it is read in
        (the state a prime reads: the next state) before its arguments."""
        impl, rt, fs = op.impl, self.runtime, [c.fn for c in cargs]

        def call(s: Any, t: Any, e: tuple) -> Any:
            vals = [a(s, t, e) for a in fs]
            try:
                return impl(rt, s, *vals)
            except TlaError as err:
                raise located(err, loc) from None

        return derived(call, *cargs, pure=False)

    def std_call(self, op: L.StdOp, name: str, args: Sequence[S.Expr], loc: Loc, scope: Scope) -> C:
        self._check_arity(name, op.arity, args, loc)
        cargs = [
            self.op_arg(a, 1 if name != "SortSeq" else 2, scope) if i in op.op_args
            else self.expr(a, scope)
            for i, a in enumerate(args)
        ]
        impl = op.impl
        if op.state:  # TLCGet: what it reads depends on the state it is read in
            return self._state_call(op, cargs, loc)
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


# the impure standard operators whose constant-level uses TLC evaluates once, at start-up
# (its regression models Github648: RandomElement; DeterministicConstantOverrideCaching:
# Print); the others (TLCGet, the file and process operators ...) are read at each use
_KEPT_ONCE = frozenset({"RandomElement", "RandomSubset", "RandomSetOfSubsets", "Print", "PrintT"})
_READ_EACH_TIME = frozenset(name for ops in STANDARD.values() for name, op in ops.items()
                            if not op.pure and name not in _KEPT_ONCE)


def _kept_once(entry: DefEntry, body: C) -> C:
    """The body of a module-level definition without parameters that reads no state and no
    binding but is impure through RandomElement or Print: evaluated once, its first value
    kept, as TLC evaluates such constant-level definitions once at start-up (a random
    graph ``G == RandomElement(...)`` is then one graph in Init and in every invariant)."""
    unit = entry.unit
    if not isinstance(unit, S.OpDef) or unit.params or body.pure or body.vars or body.primed \
            or body.rec or body.envmin != NOENV or _mentions(unit.body, entry.ctx, _READ_EACH_TIME):
        return body
    f = body.fn
    kept: list[Any] = []

    def once(s: Any, t: Any, e: tuple) -> Any:
        if not kept:
            kept.append(f(s, t, e))
        return kept[0]

    return replace(body, fn=once, inline=None, value=_MISSING, elements=None)


def _mentions(expr: S.Expr, ctx: Ctx, names: frozenset[str]) -> bool:
    """Whether ``expr`` (in ``ctx``) names one of ``names``, directly or through the
    definitions of ``ctx`` it uses."""
    todo, seen = [(expr, ctx)], set()
    while todo:
        e, c = todo.pop()
        for n in walk(e):
            if isinstance(n, (S.Name, S.OpApp)):
                if n.name in names:
                    return True
                entry = c.names.get(n.name)
                if isinstance(entry, DefEntry) and id(entry) not in seen \
                        and isinstance(entry.unit, S.OpDef):
                    seen.add(id(entry))
                    todo.append((entry.unit.body, entry.ctx))
    return False


def _primes_a_parameter(unit: S.OpDef) -> bool:
    """Whether ``unit``'s body primes one of its parameters (``v'``, ``UNCHANGED v``,
    ``[A]_v``): an action of its arguments, which only substitution reads right."""
    params = {p.name for p in unit.params if not p.arity}
    return bool(params) and any(
        isinstance(sub, S.Name) and sub.name in params
        for n in walk(unit.body) if isinstance(n, (S.Prime, S.Unchanged, S.ActionBox))
        for sub in walk(n))
