"""Translation of the engine's parsed and resolved AST into z3 (expressions and actions).

An action is a formula over a pair of symbolic states: ``x'`` is the next state's value of
``x``, so ``x' = e`` is an equality like any other and ``UNCHANGED e`` compares ``e`` in
both states. Names resolve as in the engine (``Model.root``: variables, constants bound
by the cfg, definitions of every extended module). Bounded quantifiers, set
constructors and functions over finite sets expand over the set's slots; ``CHOOSE``
picks the first slot that satisfies its predicate (deterministic, as the engine). A
construct outside this fragment raises ``UnsupportedError`` at its location.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, TypeAlias

import z3

from conformance.symbolic.counting import compare
from conformance.symbolic.encoding import (
    FALSE,
    SV,
    TRUE,
    Atom,
    Atoms,
    SFun,
    SSeq,
    SSet,
    Undef,
    both,
    concrete_bool,
    concrete_int,
    concrete_key,
    conj,
    disj,
    eq,
    implies,
    ite,
    lift,
    member,
    negate,
    sort_name,
    subseteq,
)
from conformance.tla import syntax as S
from conformance.tla.compiler import ConstEntry, Ctx, DefEntry, SubstEntry, VarEntry
from conformance.tla.model import Model
from conformance.tla.syntax import Loc, UnsupportedError


@dataclass(eq=False)
class StatePair:
    """The current state and, for actions, the next one (variable name -> value)."""

    cur: Mapping[str, SV] | None
    nxt: Mapping[str, SV] | None = None
    cache: dict[Any, SV] = field(default_factory=dict)
    _primed: StatePair | None = None

    def primed(self, loc: Loc) -> StatePair:
        if self.nxt is None:
            raise UnsupportedError("a primed expression outside an action", loc)
        if self._primed is None:
            self._primed = StatePair(self.nxt, None)
        return self._primed


@dataclass(eq=False)
class Closure:
    """An operator value: a LET operator, an operator parameter or a LAMBDA."""

    params: tuple[str, ...]
    body: S.Expr
    env: Mapping[str, Binding]
    ctx: Ctx


@dataclass(eq=False)
class LazyDef:
    """A zero-arity LET definition, evaluated on first use (per state pair)."""

    body: S.Expr
    env: dict[str, Binding]
    ctx: Ctx
    values: dict[int, SV] = field(default_factory=dict)


Binding: TypeAlias = SV | Closure | LazyDef
Env = Mapping[str, Binding]


def unsupported(what: str, loc: Loc) -> UnsupportedError:
    return UnsupportedError(f"not supported by the symbolic translation: {what}", loc)


_INFINITE = {"Nat", "Int", "STRING", "Real"}


class Translator:
    """Translates expressions of one model (constants bound) over symbolic states."""

    def __init__(self, model: Model, atoms: Atoms | None = None, interval_bound: int | None = None,
                 boolean_counts: bool = True) -> None:
        self.model = model
        self.atoms = atoms if atoms is not None else Atoms()
        self._const_cache: dict[str, SV] = {}
        # With ``interval_bound`` N an interval a..b whose ends depend on the state holds
        # N slots (a, a+1, ..., each guarded by <= b) and records the assumption b - a < N
        # in ``assumptions`` (a ^ e: e < N): the caller must assert them (they bound the
        # states covered).
        self.interval_bound = interval_bound
        self.assumptions: list[z3.BoolRef] = []
        # With ``witnesses`` (a dict, not None), an action's ``\E x \in S`` over a set of the
        # state (as ``split.py`` splits ``Next``) is translated with one witness chosen by a
        # selector kept here per binder (``witness.py``); None: a disjunction over the slots.
        self.witnesses: dict[int, z3.ArithRef] | None = None
        # A comparison of two counts (sums of ``If(c, n1, n0)``, as ``Cardinality`` gives) is
        # stated over the conditions (``counting.compare``); False: as arithmetic.
        self.boolean_counts = boolean_counts

    def take_assumptions(self) -> z3.BoolRef:
        """The assumptions recorded since the last call, as one formula."""
        out, self.assumptions = conj(self.assumptions), []
        return out

    # entry points ------------------------------------------------------------------

    def root_ctx(self) -> Ctx:
        return self.model.root

    def definition(self, name: str) -> tuple[S.OpDef, Ctx]:
        entry = self.model.root.names.get(name)
        if not isinstance(entry, DefEntry) or not isinstance(entry.unit, S.OpDef):
            raise S.TlaError(f"module {self.model.module.name} has no definition {name}")
        return entry.unit, entry.ctx

    def formula(self, name_or_expr: str | S.Expr, st: StatePair) -> z3.BoolRef:
        """A state predicate or action, by definition name or expression of the root module."""
        expr = S.Name(self.model.module.loc, name_or_expr) if isinstance(name_or_expr, str) else name_or_expr
        return self.boolean(expr, {}, self.model.root, st)

    def boolean(self, e: S.Expr, env: Env, ctx: Ctx, st: StatePair) -> z3.BoolRef:
        v = self.eval(e, env, ctx, st)
        if not isinstance(v, z3.BoolRef):
            raise S.EvalError(f"expected a boolean, got a {sort_name(v)}", e.loc)
        return v

    # expressions --------------------------------------------------------------------

    def eval(self, e: S.Expr, env: Env, ctx: Ctx, st: StatePair) -> SV:
        method = getattr(self, "_e_" + type(e).__name__, None)
        if method is None:
            raise unsupported(type(e).__name__, e.loc)
        v: SV = method(e, env, ctx, st)
        return v

    def _e_Num(self, e: S.Num, env: Env, ctx: Ctx, st: StatePair) -> SV:
        return z3.IntVal(e.value)

    def _e_Str(self, e: S.Str, env: Env, ctx: Ctx, st: StatePair) -> SV:
        return Atom(z3.IntVal(self.atoms.of(e.value)))

    def _e_Bool(self, e: S.Bool, env: Env, ctx: Ctx, st: StatePair) -> SV:
        return z3.BoolVal(e.value)

    def _e_Name(self, e: S.Name, env: Env, ctx: Ctx, st: StatePair) -> SV:
        return self.apply(e.name, (), e.loc, env, ctx, st)

    def _e_OpApp(self, e: S.OpApp, env: Env, ctx: Ctx, st: StatePair) -> SV:
        return self.apply(e.name, e.args, e.loc, env, ctx, st)

    def _e_And(self, e: S.And, env: Env, ctx: Ctx, st: StatePair) -> SV:
        parts = []
        for item in e.items:
            b = self.boolean(item, env, ctx, st)
            if concrete_bool(b) is False:
                return FALSE
            parts.append(b)
        return conj(parts)

    def _e_Or(self, e: S.Or, env: Env, ctx: Ctx, st: StatePair) -> SV:
        parts = []
        for item in e.items:
            b = self.boolean(item, env, ctx, st)
            if concrete_bool(b) is True:
                return TRUE
            parts.append(b)
        return disj(parts)

    def _e_If(self, e: S.If, env: Env, ctx: Ctx, st: StatePair) -> SV:
        c = self.boolean(e.cond, env, ctx, st)
        cc = concrete_bool(c)
        if cc is True:
            return self.eval(e.then, env, ctx, st)
        if cc is False:
            return self.eval(e.else_, env, ctx, st)
        return ite(c, self.eval(e.then, env, ctx, st), self.eval(e.else_, env, ctx, st), e.loc)

    def _e_Case(self, e: S.Case, env: Env, ctx: Ctx, st: StatePair) -> SV:
        arms: list[tuple[z3.BoolRef, S.Expr]] = []
        for arm in e.arms:
            c = self.boolean(arm.cond, env, ctx, st)
            cc = concrete_bool(c)
            if cc is False:
                continue
            arms.append((c, arm.value))
            if cc is True:
                break
        if e.other is not None and (not arms or concrete_bool(arms[-1][0]) is not True):
            result = self.eval(e.other, env, ctx, st)
        elif arms:
            result = self.eval(arms[-1][1], env, ctx, st)
            arms = arms[:-1]
        else:
            raise S.EvalError("no CASE arm applies", e.loc)
        for c, value in reversed(arms):
            result = ite(c, self.eval(value, env, ctx, st), result, e.loc)
        return result

    def _e_Let(self, e: S.Let, env: Env, ctx: Ctx, st: StatePair) -> SV:
        return self.eval(e.body, self.let_env(e, env, ctx), ctx, st)

    def let_env(self, e: S.Let, env: Env, ctx: Ctx) -> dict[str, Binding]:
        """``env`` with the definitions of the LET ``e`` (its body is evaluated in it)."""
        inner: dict[str, Binding] = dict(env)
        for d in e.defs:
            if isinstance(d, S.OpDef):
                if d.params:
                    if any(p.arity for p in d.params):
                        raise unsupported("a LET operator with operator parameters", d.loc)
                    inner[d.name] = Closure(tuple(p.name for p in d.params), d.body, inner, ctx)
                else:
                    inner[d.name] = LazyDef(d.body, inner, ctx)
            elif isinstance(d, S.FnDef):
                inner[d.name] = LazyDef(self._fndef_as_construct(d), inner, ctx)
            else:
                raise unsupported(type(d).__name__ + " in a LET", d.loc)
        return inner

    @staticmethod
    def _fndef_as_construct(d: S.FnDef) -> S.Expr:
        from conformance.tla.astwalk import walk

        if any(isinstance(n, (S.Name, S.OpApp)) and n.name == d.name for n in walk(d.body)):
            raise unsupported(f"the recursive function definition {d.name}", d.loc)
        return S.FnConstruct(d.loc, d.bounds, d.body)

    def _e_Quant(self, e: S.Quant, env: Env, ctx: Ctx, st: StatePair) -> SV:
        exists = e.kind == "E"
        parts: list[z3.BoolRef] = []
        for guard, inner in self.bindings(e.bounds, env, ctx, st):
            b = self.boolean(e.body, inner, ctx, st)
            p = both(guard, b) if exists else implies(guard, b)
            cp = concrete_bool(p)
            if (exists and cp is True) or (not exists and cp is False):
                return z3.BoolVal(exists)
            parts.append(p)
        return disj(parts) if exists else conj(parts)

    def _e_UnboundedQuant(self, e: S.UnboundedQuant, env: Env, ctx: Ctx, st: StatePair) -> SV:
        raise unsupported("an unbounded quantifier", e.loc)

    def _e_Choose(self, e: S.Choose, env: Env, ctx: Ctx, st: StatePair) -> SV:
        if e.domain is None:
            raise unsupported("an unbounded CHOOSE", e.loc)
        bound = S.Bound(e.names, e.tuple_pattern, e.domain, e.loc)
        options = []
        for guard, inner in self.bindings((bound,), env, ctx, st):
            c = both(guard, self.boolean(e.body, inner, ctx, st))
            elem = self._bound_element(bound, inner)
            if concrete_bool(c) is True:
                options.append((TRUE, elem))
                break
            if concrete_bool(c) is not False:
                options.append((c, elem))
        if not options:
            raise S.EvalError("CHOOSE: no element satisfies the predicate", e.loc)
        result = options[-1][1]
        for c, elem in reversed(options[:-1]):
            result = ite(c, elem, result, e.loc)
        return result

    @staticmethod
    def _bound_element(bound: S.Bound, env: Env) -> SV:
        if bound.tuple_pattern:
            items = tuple(env[n] for n in bound.names)
            return SSeq(z3.IntVal(len(items)), items)
        v = env[bound.names[0]]
        assert not isinstance(v, (Closure, LazyDef))
        return v

    def _e_SetEnum(self, e: S.SetEnum, env: Env, ctx: Ctx, st: StatePair) -> SV:
        return SSet(tuple((TRUE, self.eval(i, env, ctx, st)) for i in e.items))

    def _e_SetFilter(self, e: S.SetFilter, env: Env, ctx: Ctx, st: StatePair) -> SV:
        slots = []
        for guard, inner in self.bindings((e.bound,), env, ctx, st):
            c = both(guard, self.boolean(e.pred, inner, ctx, st))
            if concrete_bool(c) is not False:
                slots.append((c, self._bound_element(e.bound, inner)))
        return SSet(tuple(slots))

    def _e_SetMap(self, e: S.SetMap, env: Env, ctx: Ctx, st: StatePair) -> SV:
        return SSet(tuple((guard, self.eval(e.expr, inner, ctx, st))
                          for guard, inner in self.bindings(e.bounds, env, ctx, st)))

    def _e_FnConstruct(self, e: S.FnConstruct, env: Env, ctx: Ctx, st: StatePair) -> SV:
        keys: list[Any] = []
        vals: list[SV] = []
        seen: set[Any] = set()
        for guard, inner in self.bindings(e.bounds, env, ctx, st):
            if concrete_bool(guard) is not True:
                raise unsupported("a function over a domain that depends on the state", e.loc)
            parts = []
            for b in e.bounds:
                parts.append(self._bound_element(b, inner))
            key_sv = parts[0] if len(parts) == 1 else SSeq(z3.IntVal(len(parts)), tuple(parts))
            key = concrete_key(key_sv, self.atoms)
            if key is None:
                raise unsupported("a function over a domain that depends on the state", e.loc)
            hk = (type(key).__name__, key)
            if hk in seen:
                continue
            seen.add(hk)
            keys.append(key)
            vals.append(self.eval(e.body, inner, ctx, st))
        return make_function(keys, vals)

    def _e_FnApp(self, e: S.FnApp, env: Env, ctx: Ctx, st: StatePair) -> SV:
        f = self.eval(e.fn, env, ctx, st)
        args = [self.eval(a, env, ctx, st) for a in e.args]
        arg = args[0] if len(args) == 1 else SSeq(z3.IntVal(len(args)), tuple(args))
        return self.apply_fn(f, arg, e.loc)

    def apply_fn(self, f: SV, arg: SV, loc: Loc) -> SV:
        if isinstance(f, Undef):
            return f
        if isinstance(f, SFun):
            key = concrete_key(arg, self.atoms)
            if key is not None:
                v = f.get(key)
                if v is None:
                    raise S.EvalError("function applied outside its domain", loc)
                return v
            if not f.keys:
                raise S.EvalError("the empty function applied", loc)
            result = f.vals[-1]
            for k, v in zip(reversed(f.keys[:-1]), reversed(f.vals[:-1]), strict=True):
                result = ite(eq(arg, lift(k, self.atoms)), v, result, loc)
            return result
        if isinstance(f, SSeq):
            if not isinstance(arg, z3.ArithRef):
                raise S.EvalError("a sequence applied to a non-integer", loc)
            if not f.items:
                return Undef()
            k = concrete_int(arg)
            if k is not None:
                return f.items[min(max(k, 1), f.cap) - 1]
            result = f.items[-1]
            for i in range(f.cap - 2, -1, -1):
                result = ite(arg == i + 1, f.items[i], result, loc)
            return result
        raise S.EvalError(f"a {sort_name(f)} applied as a function", loc)

    def _e_RecordConstruct(self, e: S.RecordConstruct, env: Env, ctx: Ctx, st: StatePair) -> SV:
        return SFun(tuple(n for n, _ in e.fields), tuple(self.eval(x, env, ctx, st) for _, x in e.fields))

    def _e_FieldAccess(self, e: S.FieldAccess, env: Env, ctx: Ctx, st: StatePair) -> SV:
        r = self.eval(e.record, env, ctx, st)
        if isinstance(r, Undef):
            return r
        if not isinstance(r, SFun):
            raise S.EvalError(f"field .{e.field} of a {sort_name(r)}", e.loc)
        v = r.get(e.field)
        if v is None:
            raise S.EvalError(f"the record has no field {e.field}", e.loc)
        return v

    def _e_Tuple(self, e: S.Tuple, env: Env, ctx: Ctx, st: StatePair) -> SV:
        return SSeq(z3.IntVal(len(e.items)), tuple(self.eval(i, env, ctx, st) for i in e.items))

    def _e_Except(self, e: S.Except, env: Env, ctx: Ctx, st: StatePair) -> SV:
        f = self.eval(e.fn, env, ctx, st)
        for upd in e.updates:
            f = self._update(f, upd.path, upd.value, env, ctx, st, e.loc)
        return f

    def _update(self, f: SV, path: Sequence[S.ExceptPath], value: S.Expr, env: Env, ctx: Ctx,
                st: StatePair, loc: Loc) -> SV:
        if not path:
            inner = dict(env)
            inner["@"] = f
            return self.eval(value, inner, ctx, st)
        step = path[0]
        if step.field is not None:
            key_sv: SV = Atom(z3.IntVal(self.atoms.of(step.field)))
        else:
            idx = [self.eval(i, env, ctx, st) for i in step.index]
            key_sv = idx[0] if len(idx) == 1 else SSeq(z3.IntVal(len(idx)), tuple(idx))
        if isinstance(f, SFun):
            key = step.field if step.field is not None else concrete_key(key_sv, self.atoms)
            new_vals = []
            for k, v in zip(f.keys, f.vals, strict=True):
                if key is not None:
                    same = type(k) is type(key) and k == key
                    new_vals.append(self._update(v, path[1:], value, env, ctx, st, loc) if same else v)
                else:
                    c = eq(key_sv, lift(k, self.atoms))
                    new_vals.append(ite(c, self._update(v, path[1:], value, env, ctx, st, loc), v, loc))
            return SFun(f.keys, tuple(new_vals))
        if isinstance(f, SSeq):
            if step.field is not None or not isinstance(key_sv, z3.ArithRef):
                raise S.EvalError("EXCEPT on a sequence with a non-integer index", loc)
            items = []
            for i, v in enumerate(f.items):
                c = key_sv == i + 1
                cc = concrete_bool(c)
                if cc is False:
                    items.append(v)
                    continue
                new = self._update(v, path[1:], value, env, ctx, st, loc)
                items.append(new if cc is True else ite(c, new, v, loc))
            return SSeq(f.length, tuple(items))
        raise S.EvalError(f"EXCEPT on a {sort_name(f)}", loc)

    def _e_At(self, e: S.At, env: Env, ctx: Ctx, st: StatePair) -> SV:
        v = env.get("@")
        if v is None or isinstance(v, (Closure, LazyDef)):
            raise S.EvalError("@ outside an EXCEPT", e.loc)
        return v

    def _e_Prime(self, e: S.Prime, env: Env, ctx: Ctx, st: StatePair) -> SV:
        return self.eval(e.expr, env, ctx, st.primed(e.loc))

    def _e_Unchanged(self, e: S.Unchanged, env: Env, ctx: Ctx, st: StatePair) -> SV:
        if isinstance(e.expr, S.Tuple):
            return conj([self.boolean(S.Unchanged(i.loc, i), env, ctx, st) for i in e.expr.items])
        before = self.eval(e.expr, env, ctx, st)
        after = self.eval(e.expr, env, ctx, st.primed(e.loc))
        return eq(after, before)

    def _e_ActionBox(self, e: S.ActionBox, env: Env, ctx: Ctx, st: StatePair) -> SV:
        a = self.boolean(e.action, env, ctx, st)
        same = self.boolean(S.Unchanged(e.sub.loc, e.sub), env, ctx, st)
        return z3.Or(a, same) if e.box else z3.And(a, z3.Not(same))

    def _e_Lambda(self, e: S.Lambda, env: Env, ctx: Ctx, st: StatePair) -> SV:
        raise unsupported("a LAMBDA outside an operator argument", e.loc)

    # binders -----------------------------------------------------------------------------

    def set_of(self, e: S.Expr, env: Env, ctx: Ctx, st: StatePair) -> SSet:
        if isinstance(e, S.Name) and e.name in _INFINITE and e.name not in env and \
                ctx.names.get(e.name) is None:
            raise unsupported(f"a quantifier or set over the infinite set {e.name}", e.loc)
        v = self.eval(e, env, ctx, st)
        if not isinstance(v, SSet):
            raise S.EvalError(f"expected a set, got a {sort_name(v)}", e.loc)
        return v

    def bindings(self, bounds: Sequence[S.Bound], env: Env, ctx: Ctx, st: StatePair
                 ) -> list[tuple[z3.BoolRef, dict[str, Binding]]]:
        """(guard, environment) for every combination of slots of the bounds' sets."""
        out: list[tuple[z3.BoolRef, dict[str, Binding]]] = [(TRUE, dict(env))]
        for b in bounds:
            nxt: list[tuple[z3.BoolRef, dict[str, Binding]]] = []
            for guard, inner in out:
                dom = self.set_of(b.domain, inner, ctx, st)
                if b.tuple_pattern:
                    for g, x in dom.slots:
                        if not isinstance(x, SSeq) or x.cap != len(b.names):
                            raise S.EvalError("a tuple pattern over a set of non-tuples", b.loc)
                        e2 = dict(inner)
                        e2.update(zip(b.names, x.items, strict=True))
                        nxt.append((conj([guard, g]), e2))
                    continue
                combos: list[tuple[z3.BoolRef, dict[str, Binding]]] = [(guard, inner)]
                for name in b.names:
                    grown = []
                    for g0, e0 in combos:
                        for g, x in dom.slots:
                            c = conj([g0, g])
                            if concrete_bool(c) is False:
                                continue
                            e2 = dict(e0)
                            e2[name] = x
                            grown.append((c, e2))
                    combos = grown
                nxt.extend(combos)
            out = nxt
        return out

    # names and operators -------------------------------------------------------------------

    def apply(self, name: str, args: Sequence[S.Expr], loc: Loc, env: Env, ctx: Ctx,
              st: StatePair) -> SV:
        local = env.get(name)
        if local is not None:
            if isinstance(local, LazyDef):
                key = id(st)
                v = local.values.get(key)
                if v is None:
                    v = local.values[key] = self.eval(local.body, local.env, local.ctx, st)
                return v
            if isinstance(local, Closure):
                return self.call_closure(local, args, loc, env, ctx, st)
            if args:
                raise S.EvalError(f"{name} is not an operator", loc)
            return local
        entry = ctx.names.get(name)
        if isinstance(entry, VarEntry):
            if st.cur is None:
                raise S.EvalError(f"variable {name} in a constant expression", loc)
            return st.cur[name]
        if isinstance(entry, ConstEntry):
            if name not in self.model.constants:
                raise S.EvalError(f"constant {name} has no value in the cfg", loc)
            hit = self._const_cache.get(name)
            if hit is None:
                hit = self._const_cache[name] = lift(self.model.constants[name], self.atoms)
            return hit
        if isinstance(entry, DefEntry):
            return self.call_def(entry, args, loc, env, ctx, st)
        if isinstance(entry, SubstEntry):
            raise unsupported(f"the INSTANCE substitution {name}", loc)
        if entry is not None:
            raise unsupported(f"the instance {name}", loc)
        builtin = BUILTINS.get(name)
        if builtin is None:
            raise unsupported(f"the operator {name}", loc)
        return builtin(self, args, loc, env, ctx, st)

    def call_def(self, entry: DefEntry, args: Sequence[S.Expr], loc: Loc, env: Env, ctx: Ctx,
                 st: StatePair) -> SV:
        unit = entry.unit
        if isinstance(unit, S.FnDef):
            key = ("fn", id(unit))
            fv = st.cache.get(key)
            if fv is None:
                fv = st.cache[key] = self.eval(self._fndef_as_construct(unit), {}, entry.ctx, st)
            if args:
                raise S.EvalError(f"{unit.name} is a function: apply it with [ ]", loc)
            return fv
        if len(args) != len(unit.params):
            raise S.EvalError(f"{unit.name} takes {len(unit.params)} argument(s), got {len(args)}", loc)
        if not unit.params:
            key2 = ("def", id(unit))
            v = st.cache.get(key2)
            if v is None:
                v = st.cache[key2] = self.eval(unit.body, {}, entry.ctx, st)
            return v
        inner = self.bind_args(unit.params, args, loc, env, ctx, st)
        return self.eval(unit.body, inner, entry.ctx, st)

    def bind_args(self, params: Sequence[S.Param], args: Sequence[S.Expr], loc: Loc, env: Env,
                  ctx: Ctx, st: StatePair) -> dict[str, Binding]:
        inner: dict[str, Binding] = {}
        for p, a in zip(params, args, strict=True):
            if p.arity:
                inner[p.name] = self.operator_arg(a, p.arity, env, ctx, loc)
            else:
                inner[p.name] = self.eval(a, env, ctx, st)
        return inner

    def operator_arg(self, a: S.Expr, arity: int, env: Env, ctx: Ctx, loc: Loc) -> Closure:
        if isinstance(a, S.Lambda):
            return Closure(a.params, a.body, env, ctx)
        if isinstance(a, S.Name):
            local = env.get(a.name)
            if isinstance(local, Closure):
                return local
            entry = ctx.names.get(a.name)
            if isinstance(entry, DefEntry) and isinstance(entry.unit, S.OpDef):
                params = tuple(p.name for p in entry.unit.params)
                return Closure(params, entry.unit.body, {}, entry.ctx)
            names = tuple(f"_{i}" for i in range(arity))
            body = S.OpApp(a.loc, a.name, tuple(S.Name(a.loc, n) for n in names))
            return Closure(names, body, env, ctx)
        raise unsupported("this operator argument", a.loc)

    def call_closure(self, c: Closure, args: Sequence[S.Expr], loc: Loc, env: Env, ctx: Ctx,
                     st: StatePair) -> SV:
        if len(args) != len(c.params):
            raise S.EvalError(f"operator takes {len(c.params)} argument(s), got {len(args)}", loc)
        inner = dict(c.env)
        for p, a in zip(c.params, args, strict=True):
            inner[p] = self.eval(a, env, ctx, st)
        return self.eval(c.body, inner, c.ctx, st)


def make_function(keys: Sequence[Any], vals: Sequence[SV]) -> SV:
    """A function value, normalised as the engine does: a ``1..n`` domain is a sequence."""
    n = len(keys)
    if n and all(type(k) is int for k in keys) and sorted(keys) == list(range(1, n + 1)):
        order = sorted(range(n), key=lambda i: keys[i])
        return SSeq(z3.IntVal(n), tuple(vals[i] for i in order))
    if not n:
        return SSeq(z3.IntVal(0), ())
    return SFun(tuple(keys), tuple(vals))


# ---------------------------------------------------------------------------
# Built-in operators
# ---------------------------------------------------------------------------

Builtin = Callable[[Translator, Sequence[S.Expr], Loc, Env, Ctx, StatePair], SV]
BUILTINS: dict[str, Builtin] = {}


def builtin(*names: str) -> Callable[[Builtin], Builtin]:
    def register(f: Builtin) -> Builtin:
        for n in names:
            BUILTINS[n] = f
        return f
    return register


def _args(tr: Translator, args: Sequence[S.Expr], n: int, loc: Loc, env: Env, ctx: Ctx,
          st: StatePair) -> list[SV]:
    if len(args) != n:
        raise S.EvalError(f"expected {n} argument(s), got {len(args)}", loc)
    return [tr.eval(a, env, ctx, st) for a in args]


def _ints(vals: list[SV], loc: Loc) -> list[z3.ArithRef]:
    for v in vals:
        if not isinstance(v, z3.ArithRef):
            raise S.EvalError(f"expected an integer, got a {sort_name(v)}", loc)
    return vals


def _bools(vals: list[SV], loc: Loc) -> list[z3.BoolRef]:
    for v in vals:
        if not isinstance(v, z3.BoolRef):
            raise S.EvalError(f"expected a boolean, got a {sort_name(v)}", loc)
    return vals


def _sets(vals: list[SV], loc: Loc) -> list[SSet]:
    for v in vals:
        if not isinstance(v, SSet):
            raise S.EvalError(f"expected a set, got a {sort_name(v)}", loc)
    return [v for v in vals if isinstance(v, SSet)]


def _seq(v: SV, loc: Loc) -> SSeq:
    if isinstance(v, SFun) and not v.keys:
        return SSeq(z3.IntVal(0), ())
    if not isinstance(v, SSeq):
        raise S.EvalError(f"expected a sequence, got a {sort_name(v)}", loc)
    return v


_ARITH: dict[str, Callable[[Any, Any], Any]] = {
    "+": lambda a, b: a + b, "-": lambda a, b: a - b, "*": lambda a, b: a * b,
    "<": lambda a, b: a < b, "<=": lambda a, b: a <= b, ">": lambda a, b: a > b,
    ">=": lambda a, b: a >= b,
}


def _arith_op(name: str) -> Builtin:
    f = _ARITH[name]
    comparison = name in ("<", "<=", ">", ">=")

    def op(tr: Translator, args: Sequence[S.Expr], loc: Loc, env: Env, ctx: Ctx, st: StatePair) -> SV:
        a, b = _ints(_args(tr, args, 2, loc, env, ctx, st), loc)
        if z3.is_int_value(a) and z3.is_int_value(b):
            return z3.simplify(f(a, b))
        if comparison and tr.boolean_counts:
            counted = compare(a, name, b)
            if counted is not None:
                return counted
        r: SV = f(a, b)
        return r
    return op


for _name in _ARITH:
    BUILTINS[_name] = _arith_op(_name)


@builtin("\\div")
def _div(tr: Translator, args: Sequence[S.Expr], loc: Loc, env: Env, ctx: Ctx, st: StatePair) -> SV:
    a, b = _ints(_args(tr, args, 2, loc, env, ctx, st), loc)
    return a / b  # z3 integer division rounds towards -infinity for positive divisors


@builtin("%")
def _mod(tr: Translator, args: Sequence[S.Expr], loc: Loc, env: Env, ctx: Ctx, st: StatePair) -> SV:
    a, b = _ints(_args(tr, args, 2, loc, env, ctx, st), loc)
    return a % b


@builtin("^")
def _power(tr: Translator, args: Sequence[S.Expr], loc: Loc, env: Env, ctx: Ctx, st: StatePair) -> SV:
    """``a ^ e``: a product for a constant ``e``; for an ``e`` that depends on the state
    (with ``interval_bound`` N) a choice among a^0 .. a^(N-1) under the assumption e < N
    (a negative exponent, an engine error, gives 0: a path through it does not replay)."""
    a, e = _ints(_args(tr, args, 2, loc, env, ctx, st), loc)
    k = concrete_int(e)
    if k is not None:
        if k < 0:
            raise S.EvalError(f"negative exponent {k} in ^", loc)
        return _product(a, k)
    if tr.interval_bound is None:
        raise unsupported("an exponent that depends on the state", loc)
    tr.assumptions.append(e < tr.interval_bound)
    out: z3.ArithRef = z3.IntVal(0)
    for j in reversed(range(tr.interval_bound)):
        out = z3.If(e == j, _product(a, j), out)
    return out


def _product(a: z3.ArithRef, k: int) -> z3.ArithRef:
    n = concrete_int(a)
    if n is not None:
        return z3.IntVal(n ** k)
    out: z3.ArithRef = z3.IntVal(1)
    for _ in range(k):
        out = out * a
    return out


@builtin("-.")
def _neg(tr: Translator, args: Sequence[S.Expr], loc: Loc, env: Env, ctx: Ctx, st: StatePair) -> SV:
    (a,) = _ints(_args(tr, args, 1, loc, env, ctx, st), loc)
    return -a


@builtin("=")
def _eq(tr: Translator, args: Sequence[S.Expr], loc: Loc, env: Env, ctx: Ctx, st: StatePair) -> SV:
    a, b = _args(tr, args, 2, loc, env, ctx, st)
    return eq(a, b)


@builtin("/=")
def _neq(tr: Translator, args: Sequence[S.Expr], loc: Loc, env: Env, ctx: Ctx, st: StatePair) -> SV:
    a, b = _args(tr, args, 2, loc, env, ctx, st)
    return negate(eq(a, b))


@builtin("~")
def _not(tr: Translator, args: Sequence[S.Expr], loc: Loc, env: Env, ctx: Ctx, st: StatePair) -> SV:
    (a,) = _bools(_args(tr, args, 1, loc, env, ctx, st), loc)
    return negate(a)


@builtin("=>")
def _implies(tr: Translator, args: Sequence[S.Expr], loc: Loc, env: Env, ctx: Ctx, st: StatePair) -> SV:
    if len(args) != 2:
        raise S.EvalError("=> takes 2 arguments", loc)
    a = tr.boolean(args[0], env, ctx, st)
    if concrete_bool(a) is False:
        return TRUE
    b = tr.boolean(args[1], env, ctx, st)
    return b if concrete_bool(a) is True else implies(a, b)


@builtin("<=>")
def _equiv(tr: Translator, args: Sequence[S.Expr], loc: Loc, env: Env, ctx: Ctx, st: StatePair) -> SV:
    a, b = _bools(_args(tr, args, 2, loc, env, ctx, st), loc)
    return a == b


@builtin("/\\")
def _land(tr: Translator, args: Sequence[S.Expr], loc: Loc, env: Env, ctx: Ctx, st: StatePair) -> SV:
    return tr.eval(S.And(loc, tuple(args)), env, ctx, st)


@builtin("\\/")
def _lor(tr: Translator, args: Sequence[S.Expr], loc: Loc, env: Env, ctx: Ctx, st: StatePair) -> SV:
    return tr.eval(S.Or(loc, tuple(args)), env, ctx, st)


@builtin("TRUE")
def _true(tr: Translator, args: Sequence[S.Expr], loc: Loc, env: Env, ctx: Ctx, st: StatePair) -> SV:
    return TRUE


@builtin("FALSE")
def _false(tr: Translator, args: Sequence[S.Expr], loc: Loc, env: Env, ctx: Ctx, st: StatePair) -> SV:
    return FALSE


@builtin("BOOLEAN")
def _boolean(tr: Translator, args: Sequence[S.Expr], loc: Loc, env: Env, ctx: Ctx, st: StatePair) -> SV:
    return SSet(((TRUE, TRUE), (TRUE, FALSE)))


@builtin("..")
def _range(tr: Translator, args: Sequence[S.Expr], loc: Loc, env: Env, ctx: Ctx, st: StatePair) -> SV:
    a, b = _ints(_args(tr, args, 2, loc, env, ctx, st), loc)
    lo, hi = concrete_int(a), concrete_int(b)
    if (lo is None or hi is None) and tr.interval_bound is not None:
        n = tr.interval_bound
        tr.assumptions.append(b - a < n)
        return SSet(tuple((a + j <= b, z3.simplify(a + j)) for j in range(n)))
    if lo is None or hi is None:
        raise unsupported("an interval a..b whose bounds depend on the state (outside \\in)", loc)
    return SSet(tuple((TRUE, z3.IntVal(k)) for k in range(lo, hi + 1)))


def membership(tr: Translator, x: SV, s: S.Expr, env: Env, ctx: Ctx, st: StatePair) -> z3.BoolRef:
    """``x \\in s``, with the infinite and constructed sets of type invariants handled
    without building them."""
    if isinstance(s, S.Name) and s.name not in env and ctx.names.get(s.name) is None:
        if s.name == "Nat":
            return _ints([x], s.loc)[0] >= 0
        if s.name in ("Int", "STRING"):
            return TRUE
        if s.name == "BOOLEAN":
            return TRUE if isinstance(x, z3.BoolRef) else FALSE
    if isinstance(s, S.OpApp) and s.name not in env and ctx.names.get(s.name) is None:
        if s.name == ".." and len(s.args) == 2:
            lo, hi = _ints([tr.eval(a, env, ctx, st) for a in s.args], s.loc)
            (xi,) = _ints([x], s.loc)
            return z3.And(lo <= xi, xi <= hi)
        if s.name in ("\\", "\\cup", "\\cap") and len(s.args) == 2:
            a = membership(tr, x, s.args[0], env, ctx, st)
            b = membership(tr, x, s.args[1], env, ctx, st)
            if s.name == "\\":
                return conj([a, negate(b)])
            return disj([a, b]) if s.name == "\\cup" else conj([a, b])
        if s.name == "SUBSET" and len(s.args) == 1:
            (sx,) = _sets([x], s.loc)
            return subseteq(sx, tr.set_of(s.args[0], env, ctx, st))
        if s.name == "Seq" and len(s.args) == 1:
            sq = _seq(x, s.loc)
            return conj([implies(sq.length > i, membership(tr, item, s.args[0], env, ctx, st))
                         for i, item in enumerate(sq.items)] + [sq.length >= 0])
    if isinstance(s, S.FnSet):
        dom = tr.set_of(s.domain, env, ctx, st)
        keys = [concrete_key(k, tr.atoms) for g, k in dom.slots if concrete_bool(g) is True]
        if len(keys) != len(dom.slots) or any(k is None for k in keys):
            raise unsupported("[S -> T] with a state-dependent S", s.loc)
        f = x
        if isinstance(f, SSeq):
            n = concrete_int(f.length)
            if n is None or sorted(keys) != list(range(1, n + 1)):  # type: ignore[type-var]
                return FALSE
            return conj([membership(tr, v, s.range, env, ctx, st) for v in f.items[:n]])
        if not isinstance(f, SFun) or len(f.keys) != len(set(map(repr, keys))):
            return FALSE
        parts = []
        for k in keys:
            v = f.get(k) if k is not None else None
            if v is None:
                return FALSE
            parts.append(membership(tr, v, s.range, env, ctx, st))
        return conj(parts)
    if isinstance(s, S.RecordSet):
        if not isinstance(x, SFun) or set(x.keys) != {n for n, _ in s.fields}:
            return FALSE
        return conj([membership(tr, x.get(n), d, env, ctx, st)
                     for n, d in s.fields])
    if isinstance(s, S.SetFilter) and not s.bound.tuple_pattern and len(s.bound.names) == 1:
        inner = dict(env)
        inner[s.bound.names[0]] = x
        return both(membership(tr, x, s.bound.domain, env, ctx, st),
                      tr.boolean(s.pred, inner, ctx, st))
    return member(x, tr.set_of(s, env, ctx, st))


@builtin("\\in")
def _in(tr: Translator, args: Sequence[S.Expr], loc: Loc, env: Env, ctx: Ctx, st: StatePair) -> SV:
    return membership(tr, tr.eval(args[0], env, ctx, st), args[1], env, ctx, st)


@builtin("\\notin")
def _notin(tr: Translator, args: Sequence[S.Expr], loc: Loc, env: Env, ctx: Ctx, st: StatePair) -> SV:
    return negate(membership(tr, tr.eval(args[0], env, ctx, st), args[1], env, ctx, st))


@builtin("\\cup")
def _cup(tr: Translator, args: Sequence[S.Expr], loc: Loc, env: Env, ctx: Ctx, st: StatePair) -> SV:
    a, b = _sets(_args(tr, args, 2, loc, env, ctx, st), loc)
    return SSet(a.slots + b.slots, (a, b))


@builtin("\\cap")
def _cap(tr: Translator, args: Sequence[S.Expr], loc: Loc, env: Env, ctx: Ctx, st: StatePair) -> SV:
    a, b = _sets(_args(tr, args, 2, loc, env, ctx, st), loc)
    return SSet(tuple((both(g, member(x, b)), x) for g, x in a.slots))


@builtin("\\")
def _minus(tr: Translator, args: Sequence[S.Expr], loc: Loc, env: Env, ctx: Ctx, st: StatePair) -> SV:
    a, b = _sets(_args(tr, args, 2, loc, env, ctx, st), loc)
    return SSet(tuple((both(g, negate(member(x, b))), x) for g, x in a.slots))


@builtin("\\subseteq")
def _subseteq(tr: Translator, args: Sequence[S.Expr], loc: Loc, env: Env, ctx: Ctx, st: StatePair) -> SV:
    a = tr.eval(args[0], env, ctx, st)
    (sa,) = _sets([a], loc)
    # B may be a type-like set (Nat, [S -> T], ...): test every element of A
    parts = [implies(g, membership(tr, x, args[1], env, ctx, st)) for g, x in sa.slots]
    return conj(parts)


@builtin("UNION")
def _union(tr: Translator, args: Sequence[S.Expr], loc: Loc, env: Env, ctx: Ctx, st: StatePair) -> SV:
    (a,) = _sets(_args(tr, args, 1, loc, env, ctx, st), loc)
    slots: list[tuple[z3.BoolRef, SV]] = []
    for g, inner in a.slots:
        (si,) = _sets([inner], loc)
        slots.extend((conj([g, g2]), x) for g2, x in si.slots)
    return SSet(tuple(slots))


@builtin("\\times")
def _times(tr: Translator, args: Sequence[S.Expr], loc: Loc, env: Env, ctx: Ctx, st: StatePair) -> SV:
    sets = _sets([tr.eval(a, env, ctx, st) for a in args], loc)
    combos: list[tuple[z3.BoolRef, tuple[SV, ...]]] = [(TRUE, ())]
    for s in sets:
        combos = [(conj([g0, g]), (*items, x)) for g0, items in combos for g, x in s.slots]
    return SSet(tuple((g, SSeq(z3.IntVal(len(items)), items)) for g, items in combos))


@builtin("DOMAIN")
def _domain(tr: Translator, args: Sequence[S.Expr], loc: Loc, env: Env, ctx: Ctx, st: StatePair) -> SV:
    (f,) = _args(tr, args, 1, loc, env, ctx, st)
    if isinstance(f, SFun):
        return SSet(tuple((TRUE, lift(k, tr.atoms)) for k in f.keys))
    if isinstance(f, SSeq):
        return SSet(tuple((z3.simplify(f.length > i), z3.IntVal(i + 1)) for i in range(f.cap)))
    raise S.EvalError(f"DOMAIN of a {sort_name(f)}", loc)


@builtin("Cardinality")
def _cardinality(tr: Translator, args: Sequence[S.Expr], loc: Loc, env: Env, ctx: Ctx, st: StatePair) -> SV:
    (a,) = _sets(_args(tr, args, 1, loc, env, ctx, st), loc)
    terms = []
    for i, (g, x) in enumerate(a.slots):
        dup = disj([both(g2, eq(x, y)) for g2, y in a.slots[:i]])
        first = both(g, negate(dup))
        if concrete_bool(first) is False:
            continue
        terms.append(z3.If(first, z3.IntVal(1), z3.IntVal(0)))
    if not terms:
        return z3.IntVal(0)
    total = z3.Sum(terms) if len(terms) > 1 else terms[0]
    return z3.simplify(total)


@builtin("IsFiniteSet")
def _finite(tr: Translator, args: Sequence[S.Expr], loc: Loc, env: Env, ctx: Ctx, st: StatePair) -> SV:
    _sets(_args(tr, args, 1, loc, env, ctx, st), loc)
    return TRUE


@builtin("Len")
def _len(tr: Translator, args: Sequence[S.Expr], loc: Loc, env: Env, ctx: Ctx, st: StatePair) -> SV:
    (s,) = _args(tr, args, 1, loc, env, ctx, st)
    return _seq(s, loc).length


@builtin("Append")
def _append(tr: Translator, args: Sequence[S.Expr], loc: Loc, env: Env, ctx: Ctx, st: StatePair) -> SV:
    s, x = _args(tr, args, 2, loc, env, ctx, st)
    sq = _seq(s, loc)
    n = concrete_int(sq.length)
    if n is not None:
        return SSeq(z3.IntVal(n + 1), (*sq.items[:n], x))
    items = [ite(sq.length == i, x, v, loc) for i, v in enumerate(sq.items)] + [x]
    return SSeq(sq.length + 1, tuple(items))


@builtin("Head")
def _head(tr: Translator, args: Sequence[S.Expr], loc: Loc, env: Env, ctx: Ctx, st: StatePair) -> SV:
    (s,) = _args(tr, args, 1, loc, env, ctx, st)
    sq = _seq(s, loc)
    if not sq.items:
        raise S.EvalError("Head of the empty sequence", loc)
    return sq.items[0]


@builtin("Tail")
def _tail(tr: Translator, args: Sequence[S.Expr], loc: Loc, env: Env, ctx: Ctx, st: StatePair) -> SV:
    (s,) = _args(tr, args, 1, loc, env, ctx, st)
    sq = _seq(s, loc)
    return SSeq(z3.If(sq.length > 0, sq.length - 1, 0), sq.items[1:])


def _shifted(sq: SSeq, start: z3.ArithRef, j: int, loc: Loc) -> SV:
    """Item ``start + j`` (0-based) of ``sq`` for a symbolic ``start``."""
    s = concrete_int(start)
    if s is not None:
        return sq.items[min(s + j, sq.cap - 1)]
    result = sq.items[-1]
    for i in range(sq.cap - 2, -1, -1):
        result = ite(start + j == i, sq.items[i], result, loc)
    return result


@builtin("SubSeq")
def _subseq(tr: Translator, args: Sequence[S.Expr], loc: Loc, env: Env, ctx: Ctx, st: StatePair) -> SV:
    s, m, n = _args(tr, args, 3, loc, env, ctx, st)
    sq = _seq(s, loc)
    lo, hi = _ints([m, n], loc)
    length = z3.If(hi >= lo, hi - lo + 1, 0)
    if concrete_int(length) == 0 or not sq.items:
        return SSeq(z3.IntVal(0), ())
    items = tuple(_shifted(sq, lo - 1, j, loc) for j in range(sq.cap))
    return SSeq(z3.simplify(length), items)


@builtin("\\o")
def _concat(tr: Translator, args: Sequence[S.Expr], loc: Loc, env: Env, ctx: Ctx, st: StatePair) -> SV:
    a, b = (_seq(v, loc) for v in _args(tr, args, 2, loc, env, ctx, st))
    if not b.items:
        return SSeq(z3.simplify(a.length + b.length), a.items)
    if not a.items:
        return b
    items = []
    for j in range(a.cap + b.cap):
        from_b = _shifted(b, -a.length, j, loc) if concrete_int(a.length) is None else \
            b.items[min(max(j - (concrete_int(a.length) or 0), 0), b.cap - 1)]
        items.append(ite(a.length > j, a.items[j], from_b, loc) if j < a.cap else from_b)
    return SSeq(z3.simplify(a.length + b.length), tuple(items))


@builtin(":>")
def _single(tr: Translator, args: Sequence[S.Expr], loc: Loc, env: Env, ctx: Ctx, st: StatePair) -> SV:
    k, v = _args(tr, args, 2, loc, env, ctx, st)
    key = concrete_key(k, tr.atoms)
    if key is None:
        raise unsupported("a :> b with a state-dependent a", loc)
    return make_function([key], [v])


@builtin("@@")
def _merge(tr: Translator, args: Sequence[S.Expr], loc: Loc, env: Env, ctx: Ctx, st: StatePair) -> SV:
    f, g = _args(tr, args, 2, loc, env, ctx, st)
    fs = [f, g]
    keys: list[Any] = []
    vals: list[SV] = []
    for h in fs:
        if isinstance(h, SSeq):
            n = concrete_int(h.length)
            if n is None:
                raise unsupported("@@ of a sequence of state-dependent length", loc)
            pairs: list[tuple[Any, SV]] = [(i + 1, h.items[i]) for i in range(n)]
        elif isinstance(h, SFun):
            pairs = list(zip(h.keys, h.vals, strict=True))
        else:
            raise S.EvalError(f"@@ of a {sort_name(h)}", loc)
        for k, v in pairs:
            if not any(type(k) is type(k2) and k == k2 for k2 in keys):
                keys.append(k)
                vals.append(v)
    return make_function(keys, vals)
