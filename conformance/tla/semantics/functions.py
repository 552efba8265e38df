"""Functions: [x \\in S |-> e], [S -> T], f[x], recursive function definitions, EXCEPT."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

from conformance.tla import stdlib as L
from conformance.tla import syntax as S
from conformance.tla.semantics.compiled import (
    _MISSING,
    REC_ORIGINS,
    C,
    EvalFn,
    derived,
    located,
)
from conformance.tla.semantics.memo import memoized
from conformance.tla.semantics.scope import (
    DefEntry,
    LocalDef,
    Scope,
    Slot,
)
from conformance.tla.semantics.sets import (
    SetCompiler,
)
from conformance.tla.semantics.support import (
    _APP_EXPR,
    _APPLY_SRC,
    _EXCEPT1_SRC,
    _bound_slots,
    _function,
    _generated,
    _key_builder,
    _tuple_of,
    _walk_expr,
    fused,
)
from conformance.tla.syntax import EvalError, Loc, TlaError, UnsupportedError
from conformance.tla.values import (
    BOXES,
    Fn,
    except_miss,
    found_as_pun,
    make_fn,
)


class FunctionCompiler(SetCompiler):
    """Functions: [x \\in S |-> e], [S -> T], f[x], recursive function definitions, EXCEPT."""

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
        if isinstance(node.fn, S.FnConstruct):
            return self._constructed_app(node.fn, fa, args, scope, loc)
        fn = self.expr(node.fn, scope)

        def slow(f: Any, x: Any) -> Any:
            try:
                return L.apply(f, x)
            except TlaError as err:
                raise located(err, loc) from None

        arg = args[0] if len(args) == 1 else C(fa)
        apply = _function("apply", _APPLY_SRC, {"Fn": Fn, "BOXES": BOXES, "slow": slow})
        return fused("app", _APP_EXPR, {"F": fn, "X": arg}, {"M": _MISSING, "app": apply},
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
            REC_ORIGINS[0] += 1
            holder.__dict__["_fn_self_refs"] = holder.__dict__.get("_fn_self_refs", 0) + 1
            body_c: C | None = None
        else:
            app_fn, body_c = compiled
            rec = body_c.rec
        parts = [*args] + ([body_c] if body_c is not None else [])
        res = derived(_applying(fa, app_fn, prefix, node.loc), *parts)
        res.rec = res.rec or rec
        if prefix > 0 or rec:
            res.envmin = 0
        return res

    def _constructed_app(self, fn: S.FnConstruct, fa: EvalFn, args: list[C], scope: Scope,
                         loc: Loc) -> C:
        """``[x \\in S |-> e][a]``: ``e`` at ``a`` once ``a`` is found in ``S``, the function
        not built, as TLC applies its lazy function value (``S`` may be infinite, ``Nat``
        say, and ``e`` is not evaluated at the other points)."""
        unit = S.FnDef(fn.loc, "[...]", fn.bounds, fn.body, False, None)
        holder = SimpleNamespace()  # (what _fn_def_parts keeps, for this application)
        parts = self._fn_def_parts(holder, unit, scope)
        assert parts is not None  # (not recursive: nothing refers to it)
        apply_fn, body = parts
        return derived(_applying(fa, apply_fn, scope.depth, loc), *args, body.below(scope.depth))

    def _fn_def_parts(self, holder: Any, unit: S.FnDef, scope: Scope
                      ) -> tuple[EvalFn, C] | None:
        parts = holder.__dict__.get("_fn_parts")
        if parts is not None:
            return parts
        if holder.__dict__.get("_fn_compiling"):
            return None
        holder.__dict__["_fn_compiling"] = True
        origins, own = REC_ORIGINS[0], holder.__dict__.get("_fn_self_refs", 0)
        try:
            # per bound, a membership test of its domain: SUBSET S, [S -> T], [a : S] and
            # Seq(S) are tested without being built (f[s \in SUBSET S] applied at each step
            # of a recursion built the 2^|S| subsets each time)
            doms = [self.set_predicate(b.domain, scope) for b in unit.bounds]
            names = [n for b in unit.bounds for n in _bound_slots(b)]
            inner = scope.bind(*names)
            body = self.expr(unit.body, inner)
        finally:
            holder.__dict__["_fn_compiling"] = False
        if body.rec and REC_ORIGINS[0] - origins == holder.__dict__.get("_fn_self_refs", 0) - own:
            # its only unknown parts were its own references (F[i - 1]): they read what the
            # body reads, so as a whole it depends on what the body shows
            body = C(body.fn, body.vars, body.primed, body.envmin, body.pure, False,
                     deferred=body.deferred, pvars=body.pvars)
        fb = body.fn
        tests = [d.fn for d in doms]
        bounds = unit.bounds
        single = len(bounds) == 1 and len(bounds[0].names) == 1 and not bounds[0].tuple_pattern
        width = sum(1 if b.tuple_pattern else len(b.names) for b in bounds)
        name = unit.name

        def apply_def(s: Any, t: Any, pe: tuple) -> Any:
            prefix_env, x = pe
            if single:
                if not tests[0](s, t, prefix_env)(x):
                    raise EvalError(f"{L.show(x)} is not in the domain of {name}")
                return fb(s, t, (*prefix_env, x))
            # one argument per bound variable, a tuple pattern's one tuple: a single one is
            # the argument itself (f[<<a, b>>] for f[<<x, y>> \\in S]), more come as a tuple
            args = (x,) if width == 1 else x if type(x) is tuple else (x,)
            env = prefix_env
            k = 0
            for b, test in zip(bounds, tests, strict=True):
                # compiled where the definition is (no bound reaches another's names): its
                # own binders expect their slots right after the prefix
                inside = test(s, t, prefix_env)
                if b.tuple_pattern:
                    v = args[k]
                    if not inside(v):
                        raise EvalError(f"{L.show(v)} is not in the domain of {name}")
                    env = env + tuple(v)
                    k += 1
                else:
                    for _ in b.names:
                        if k >= len(args) or not inside(args[k]):
                            raise EvalError(f"{L.show(x)} is not in the domain of {name}")
                        env = (*env, args[k])
                        k += 1
            if k != len(args):
                raise EvalError(f"{L.show(x)} is not in the domain of {name}")
            return fb(s, t, env)

        if not (body.rec or body.vars or body.primed or not body.pure) and \
                all(d.pure and not d.vars and not d.primed for d in doms):
            applied: EvalFn = _remembering(apply_def, scope.depth)
        else:
            applied = apply_def
        result = (applied, derived(applied, body, *doms))
        holder.__dict__["_fn_parts"] = result
        cell = holder.__dict__.setdefault("_fn_cell", [])
        cell.append(applied)
        return result

    def _c_Except(self, node: S.Except, scope: Scope) -> C:
        base = self.expr(node.fn, scope)
        at_scope = scope.bind("@")
        updates = []
        parts = [base]
        index_c: C | None = None  # the index of the first update's first step, if single
        val: C | None = None
        for u in node.updates:
            path: list[tuple[str | None, EvalFn | None]] = []
            for p in u.path:
                if p.field is not None:
                    path.append((p.field, None))
                else:
                    idx = self.exprs(p.index, scope)
                    parts.extend(idx)
                    one = idx[0] if len(idx) == 1 else derived(_tuple_of([c.fn for c in idx]), *idx)
                    path.append((None, one.fn))
                    if index_c is None:
                        index_c = one
            uses_at = any(isinstance(n, S.At) for n in _walk_expr(u.value))
            val = self.expr(u.value, at_scope if uses_at else scope)
            parts.append(val.below(scope.depth))
            updates.append((path, val.fn, uses_at))
        fbase = base.fn
        loc = node.loc

        def pun_key(key: Any, f: Fn) -> None:
            # TLC looks the key up in the domain first (Value.select), and fails on the
            # argument Python took it for (X1, T1 of values.unequal_or_fail)
            raise EvalError(f"EXCEPT: attempted to compare {L.show(key)} with the domain of "
                            f"{L.show(f)}, which TLC cannot compare", loc)

        def key_miss(key: Any, f: tuple | Fn) -> None:
            # a key Python does not find: f is left as it is, where TLC's lookup does not fail
            try:
                except_miss(key, f)
            except TlaError as err:
                raise located(err, loc) from None

        def update(s: Any, t: Any, e: tuple, f: Any, path: list, k: int, fv: EvalFn,
                   uses_at: bool) -> Any:
            name, idx = path[k]
            key = name if name is not None else idx(s, t, e)
            if type(f) is tuple:
                if type(key) is not int or not 1 <= key <= len(f):
                    key_miss(key, f)
                    return f
                old = f[key - 1]
            elif type(f) is Fn:
                if key not in f.map:
                    key_miss(key, f)
                    return f
                if type(key) is not str and found_as_pun(key, f):
                    pun_key(key, f)
                old = f.map[key]
            else:
                raise EvalError(f"EXCEPT applies to a function, got {L.show(f)}", loc)
            if k + 1 == len(path):
                new = fv(s, t, (*e, old)) if uses_at else fv(s, t, e)
            else:
                new = update(s, t, e, old, path, k + 1, fv, uses_at)
            if new is old:  # the very value it had: the same function (no copy)
                return f
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
            (path1, _, at1) = updates[0]
            assert val is not None and (path1[0][1] is None or index_c is not None)
            return derived(_except1(base, path1, index_c, val, at1, update, pun_key, key_miss),
                           *parts)
        if all(len(path) == 1 for path, _, _ in updates):
            # [f EXCEPT ![a] = x, !.b = y, ...], every update one level deep: the function
            # is copied once, and each update sees the previous ones (through @)
            flat = [(path[0][0], path[0][1], fv, uses_at) for path, fv, uses_at in updates]

            def except_flat(s: Any, t: Any, e: tuple) -> Any:
                f = fbase(s, t, e)
                if type(f) is not Fn:
                    for path, fv, uses_at in updates:
                        f = update(s, t, e, f, path, 0, fv, uses_at)
                    return f
                m = f.map
                copied = False
                for field, idx, fv, uses_at in flat:
                    key = field if idx is None else idx(s, t, e)
                    if key in m:
                        if type(key) is not str and found_as_pun(key, f):
                            pun_key(key, f)
                        new = fv(s, t, (*e, m[key])) if uses_at else fv(s, t, e)
                        if new is m[key]:  # the very value it has: nothing to change
                            continue
                        if not copied:
                            m = dict(m)
                            copied = True
                        m[key] = new
                    else:
                        key_miss(key, f)
                return Fn(m) if copied else f

            return derived(except_flat, *parts)
        return derived(except_, *parts)

    def _c_At(self, node: S.At, scope: Scope) -> C:
        local = scope.names.get("@")
        if not isinstance(local, Slot):
            raise EvalError("@ outside an EXCEPT update", node.loc)
        i = local.index
        return C(lambda s, t, e: e[i], envmin=i)


def _except1(base: C, path: list[tuple[str | None, EvalFn | None]], index: C | None, value: C,
             uses_at: bool, update: Any, pun_key: Any, key_miss: Any) -> EvalFn:
    """``[f EXCEPT ![k] = v]`` (or ``!.a``: ``path``'s one step), generated with its reads and
    literals inlined; ``update`` is the general case (``f`` neither a sequence nor a function)."""
    field = path[0][0]
    operands = {"F": base}
    key = "FIELD"
    if index is not None:
        operands["K"] = index
        key = "{K}"
    new = "fv(s, t, (*e, old))" if uses_at else "{V}"
    if not uses_at:
        operands["V"] = value
    src = _EXCEPT1_SRC.replace("KEY", key).replace("NEW", new).replace(
        "INDEXED", "True" if index is not None else "False")
    return _generated("except1", src, operands, {
        "FIELD": field, "update": update, "path": path, "fv": value.fn, "uses_at": uses_at,
        "punned": found_as_pun, "pun_key": pun_key, "key_miss": key_miss, "BOXES": BOXES})


def _applying(fa: EvalFn, apply_def: EvalFn, prefix: int, loc: Loc) -> EvalFn:
    """``f[a]`` of a function applied without being built: ``a`` (``fa``) given with the
    enclosing bindings (the first ``prefix`` slots) to ``apply_def``, its errors located."""
    def app(s: Any, t: Any, e: tuple) -> Any:
        x = fa(s, t, e)
        try:
            return apply_def(s, t, (e[:prefix], x))
        except TlaError as err:
            raise located(err, loc) from None

    return app


def _remembering(apply_def: EvalFn, prefix: int) -> EvalFn:
    """The application ``f[x]`` of a function definition whose body and domains read no
    state and are pure, remembering its results per enclosing bindings and argument
    (``memoized``): TLC builds ``[y \\in S |-> e]`` lazily, so a recursion that applies
    ``f[n - 1]`` at each point of such a body (TransitiveClosure's ``trcl[n - 1][x, y]``)
    evaluates each point once there; here each ``f[k]`` is built once per bindings.
    ``prefix``: how many enclosing bindings the definition reads (its depth)."""
    def flat(s: Any, t: Any, e: tuple) -> Any:
        return apply_def(s, t, (e[:-1], e[-1]))

    remembered = memoized(flat, prefix + 1)

    def apply(s: Any, t: Any, pe: tuple) -> Any:
        prefix_env, x = pe
        return remembered(s, t, (*prefix_env, x))

    return apply
