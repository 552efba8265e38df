"""A deliberately simple tree-walking interpreter of the engine's AST, used only by the
differential tests as the independent answer.

Nothing here is shared with the compiler: values carry a tag, so that a boolean is
never an integer (``("b", False)`` is not ``("i", 0)``); every function (sequences and
records included) is one kind, a set of (argument, value) pairs; operators are applied by
substitution (a parameter stands for its argument expression, evaluated where it is used,
primed or not); nothing is cached. Actions are enumerated as TLC does (conjuncts left to
right, ``x' = e`` assigns an unassigned ``x'``), written here from the definition.
Slow, and only the constructs the tests generate or the hand-written specs use.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any

from conformance.tla import syntax as S
from conformance.tla.values import Fn, ModelValue

V = tuple[Any, ...]  # a tagged value


class RefError(Exception):
    """Evaluation failed (a type error, an argument outside a domain ...)."""


# -- values -------------------------------------------------------------------------------


def I(n: int) -> V:  # noqa: E743 - a short constructor reads best in the tables below
    return ("i", n)


def B(b: bool) -> V:
    return ("b", b)


TRUE, FALSE = B(True), B(False)


def fn(pairs: Mapping[V, V] | Any) -> V:
    return ("F", frozenset(dict(pairs).items()))


def seq(items: list[V]) -> V:
    return fn({I(k): x for k, x in enumerate(items, 1)})


def fmap(f: V) -> dict[V, V]:
    want(f, "F")
    return dict(f[1])


def want(v: V, tag: str) -> Any:
    if v[0] != tag:
        raise RefError(f"expected {tag}, got {v}")
    return v[1]


def as_seq(v: V) -> list[V]:
    m = fmap(v)
    n = len(m)
    if set(m) != {I(k) for k in range(1, n + 1)}:
        raise RefError("not a sequence")
    return [m[I(k)] for k in range(1, n + 1)]


def from_engine(v: Any) -> V:
    """The tagged value of an engine value."""
    if type(v) is bool:
        return B(v)
    if type(v) is int:
        return I(v)
    if type(v) is str:
        return ("s", v)
    if type(v) is ModelValue:
        return ("m", v.name)
    if type(v) is frozenset:
        return ("S", frozenset(from_engine(x) for x in v))
    if type(v) is tuple:
        return seq([from_engine(x) for x in v])
    if type(v) is Fn:
        return fn({from_engine(k): from_engine(x) for k, x in v.map.items()})
    raise RefError(f"cannot compare the engine value {v!r}")


# -- environments ------------------------------------------------------------------------


@dataclass(frozen=True)
class Thunk:
    """A name standing for an expression (a parameter, a zero-arity LET definition)."""

    expr: S.Expr
    env: Env


@dataclass(frozen=True)
class Op:
    """An operator with parameters (module, LET or LAMBDA)."""

    params: tuple[S.Param, ...]
    body: S.Expr
    env: Env | None  # None: a module-level definition


Env = Mapping[str, Any]  # name -> V (bound variable) | Thunk | Op


class Interp:
    """Evaluates expressions of one module in a state ``s`` and next state ``t``."""

    def __init__(self, module: S.Module, constants: Mapping[str, Any]) -> None:
        self.defs: dict[str, S.OpDef] = {}
        self.variables: list[str] = []
        self.constants = {k: from_engine(v) for k, v in constants.items()}
        for unit in module.units:
            if isinstance(unit, S.OpDef) and unit.name not in self.constants:
                self.defs[unit.name] = unit
            elif isinstance(unit, S.VariableDecl):
                self.variables.append(unit.name)
        self.s: dict[str, V] = {}
        self.t: dict[str, V] | None = None

    # expressions --------------------------------------------------------------------

    def ev(self, e: S.Expr, env: Env, primed: bool = False) -> V:
        meth = getattr(self, "e_" + type(e).__name__, None)
        if meth is None:
            raise RefError(f"the reference does not evaluate {type(e).__name__}")
        return meth(e, env, primed)

    def truth(self, e: S.Expr, env: Env, primed: bool) -> bool:
        return bool(want(self.ev(e, env, primed), "b"))

    def e_Num(self, e: S.Num, env: Env, p: bool) -> V:
        return I(e.value)

    def e_Str(self, e: S.Str, env: Env, p: bool) -> V:
        return ("s", e.value)

    def e_Bool(self, e: S.Bool, env: Env, p: bool) -> V:
        return B(e.value)

    def e_Name(self, e: S.Name, env: Env, p: bool) -> V:
        return self.apply(e.name, (), env, p)

    def e_OpApp(self, e: S.OpApp, env: Env, p: bool) -> V:
        return self.apply(e.name, e.args, env, p)

    def apply(self, name: str, args: tuple[S.Expr, ...], env: Env, p: bool) -> V:
        if name in env:
            b = env[name]
            if isinstance(b, Thunk):
                return self.ev(b.expr, b.env, p)
            if isinstance(b, Op):
                return self.call(b, args, env, p)
            return b  # type: ignore[no-any-return]
        if name in self.constants:
            return self.constants[name]  # type: ignore[no-any-return]
        if name in self.variables:
            src = self.t if p else self.s
            if src is None or name not in src:
                raise RefError(f"{name}{chr(39) if p else ''} has no value here")
            return src[name]
        if name in self.defs:
            d = self.defs[name]
            return self.call(Op(d.params, d.body, None), args, env, p)
        return self.builtin(name, args, env, p)

    def call(self, op: Op, args: tuple[S.Expr, ...], env: Env, p: bool) -> V:
        if len(args) != len(op.params):
            raise RefError("arity")
        inner = dict(op.env or {})
        for prm, a in zip(op.params, args, strict=True):
            if prm.arity:
                inner[prm.name] = self.op_arg(a, env)
            else:
                inner[prm.name] = Thunk(a, env)  # substitution: evaluated where used
        return self.ev(op.body, inner, p)

    def op_arg(self, a: S.Expr, env: Env) -> Op:
        if isinstance(a, S.Lambda):
            return Op(tuple(S.Param(n, 0) for n in a.params), a.body, env)
        if isinstance(a, S.Name):
            b = env.get(a.name)
            if isinstance(b, Op):
                return b
            d = self.defs.get(a.name)
            if d is not None:
                return Op(d.params, d.body, None)
        raise RefError("operator argument")

    def e_Prime(self, e: S.Prime, env: Env, p: bool) -> V:
        if p:
            raise RefError("double prime")
        return self.ev(e.expr, env, True)

    def e_Unchanged(self, e: S.Unchanged, env: Env, p: bool) -> V:
        return B(teq(self.ev(e.expr, env, False), self.ev(e.expr, env, True)))

    def e_ActionBox(self, e: S.ActionBox, env: Env, p: bool) -> V:
        same = teq(self.ev(e.sub, env, False), self.ev(e.sub, env, True))
        if e.box:  # [A]_v: A \/ v' = v
            return B(same or self.truth(e.action, env, p))
        return B(not same and self.truth(e.action, env, p))  # <<A>>_v: A /\ v' # v

    def e_And(self, e: S.And, env: Env, p: bool) -> V:
        return B(all(self.truth(x, env, p) for x in e.items))

    def e_Or(self, e: S.Or, env: Env, p: bool) -> V:
        return B(any(self.truth(x, env, p) for x in e.items))

    def e_If(self, e: S.If, env: Env, p: bool) -> V:
        return self.ev(e.then if self.truth(e.cond, env, p) else e.else_, env, p)

    def e_Case(self, e: S.Case, env: Env, p: bool) -> V:
        for arm in e.arms:
            if self.truth(arm.cond, env, p):
                return self.ev(arm.value, env, p)
        if e.other is None:
            raise RefError("no CASE arm")
        return self.ev(e.other, env, p)

    def let_env(self, e: S.Let, env: Env) -> dict[str, Any]:
        inner = dict(env)
        for d in e.defs:
            if isinstance(d, S.OpDef):
                inner[d.name] = Thunk(d.body, inner) if not d.params else Op(d.params, d.body, inner)
            elif isinstance(d, S.FnDef):  # (not recursive here) the function it defines, built
                inner[d.name] = Thunk(S.FnConstruct(d.loc, d.bounds, d.body), inner)
            elif not isinstance(d, S.Recursive):
                raise RefError(f"LET definition {type(d).__name__} is not in the reference")
        return inner  # later definitions (and recursion) see the same mapping

    def e_Let(self, e: S.Let, env: Env, p: bool) -> V:
        return self.ev(e.body, self.let_env(e, env), p)

    def bindings(self, bounds: tuple[S.Bound, ...], env: Env, p: bool) -> Iterator[dict[str, Any]]:
        def go(k: int, cur: dict[str, Any]) -> Iterator[dict[str, Any]]:
            if k == len(bounds):
                yield cur
                return
            b = bounds[k]
            dom = want(self.ev(b.domain, cur, p), "S")
            if b.tuple_pattern:
                for v in dom:
                    items = as_seq(v)
                    if len(items) != len(b.names):
                        raise RefError("tuple pattern")
                    yield from go(k + 1, {**cur, **dict(zip(b.names, items, strict=True))})
            else:
                for vals in itertools.product(dom, repeat=len(b.names)):
                    yield from go(k + 1, {**cur, **dict(zip(b.names, vals, strict=True))})

        yield from go(0, dict(env))

    def e_Quant(self, e: S.Quant, env: Env, p: bool) -> V:
        results = (self.truth(e.body, inner, p) for inner in self.bindings(e.bounds, env, p))
        return B(all(results) if e.kind == "A" else any(results))

    def e_Choose(self, e: S.Choose, env: Env, p: bool) -> V:
        if e.domain is None:
            raise RefError("unbounded CHOOSE")
        b = S.Bound(e.names, e.tuple_pattern, e.domain, e.loc)
        hits = [inner for inner in self.bindings((b,), env, p) if self.truth(e.body, inner, p)]
        if not hits:
            raise RefError("CHOOSE: none")
        vals = [seq([h[n] for n in e.names]) if e.tuple_pattern else h[e.names[0]] for h in hits]
        return min(vals, key=order)  # any fixed choice; TLC's is the least in its order

    def e_SetEnum(self, e: S.SetEnum, env: Env, p: bool) -> V:
        return _built([self.ev(x, env, p) for x in e.items])

    def e_SetFilter(self, e: S.SetFilter, env: Env, p: bool) -> V:
        b = e.bound
        out = set()
        for inner in self.bindings((b,), env, p):
            if self.truth(e.pred, inner, p):
                out.add(seq([inner[n] for n in b.names]) if b.tuple_pattern else inner[b.names[0]])
        return ("S", frozenset(out))

    def e_SetMap(self, e: S.SetMap, env: Env, p: bool) -> V:
        return _built([self.ev(e.expr, inner, p) for inner in self.bindings(e.bounds, env, p)])

    def e_FnConstruct(self, e: S.FnConstruct, env: Env, p: bool) -> V:
        names = [n for b in e.bounds for n in b.names]
        out = {}
        for inner in self.bindings(e.bounds, env, p):
            key = inner[names[0]] if len(names) == 1 else seq([inner[n] for n in names])
            out[key] = self.ev(e.body, inner, p)
        return fn(out)

    def e_FnApp(self, e: S.FnApp, env: Env, p: bool) -> V:
        f = fmap(self.ev(e.fn, env, p))
        args = [self.ev(a, env, p) for a in e.args]
        key = args[0] if len(args) == 1 else seq(args)
        if key not in f:
            raise RefError("outside the domain")
        return f[key]

    def e_Except(self, e: S.Except, env: Env, p: bool) -> V:
        cur = self.ev(e.fn, env, p)
        for up in e.updates:
            cur = self._update(cur, up.path, up.value, env, p)
        return cur

    def _update(self, f: V, path: tuple[S.ExceptPath, ...], value: S.Expr, env: Env, p: bool) -> V:
        m = fmap(f)
        step = path[0]
        if step.field is not None:
            key: V = ("s", step.field)
        else:
            idx = [self.ev(x, env, p) for x in step.index]
            key = idx[0] if len(idx) == 1 else seq(idx)
        if key not in m:
            # outside the domain EXCEPT changes nothing: TLC looks the path up first
            # (Value.select) and stops at a missing step, having compared the key with the
            # domain: a twin of an argument fails (T1); a sequence's lookup fails on a key
            # that is not an integer (TupleValue.select; over 1..n as a FcnRcdValue, the
            # integers fail against it alike); another function's lookup compares the key
            # with every argument (selectLinearSearch), and fails where one comparison fails,
            # or, 32 arguments or more, bisected (compareTo), where every one fails. Not
            # judged (nothing fails): an untyped model value key, the keys of <<>>.
            if _twin_in(key, m):
                raise RefError(f"EXCEPT: TLC cannot compare {key} with its twin in the domain")
            if key[0] == "m" and _mv_type(key) is None:
                return f
            failing = []
            for d in m:
                try:
                    teq(d, key)
                    failing.append(False)
                except RefError:
                    failing.append(True)
            if (len(m) < 32 and any(failing)) or (failing and all(failing)):
                raise RefError(f"EXCEPT: TLC cannot compare {key} with the domain of {f}")
            return f
        if len(path) == 1:
            m[key] = self.ev(value, {**env, "@": m[key]}, p)
        else:
            m[key] = self._update(m[key], path[1:], value, env, p)
        return fn(m)

    def e_At(self, e: S.At, env: Env, p: bool) -> V:
        return env["@"]  # type: ignore[no-any-return]

    def e_RecordConstruct(self, e: S.RecordConstruct, env: Env, p: bool) -> V:
        return fn({("s", k): self.ev(x, env, p) for k, x in e.fields})

    def e_FieldAccess(self, e: S.FieldAccess, env: Env, p: bool) -> V:
        m = fmap(self.ev(e.record, env, p))
        if ("s", e.field) not in m:
            raise RefError("no such field")
        return m[("s", e.field)]

    def e_Tuple(self, e: S.Tuple, env: Env, p: bool) -> V:
        return seq([self.ev(x, env, p) for x in e.items])

    def e_RecordSet(self, e: S.RecordSet, env: Env, p: bool) -> V:
        names = [k for k, _ in e.fields]
        doms = [sorted(want(self.ev(x, env, p), "S"), key=order) for _, x in e.fields]
        return ("S", frozenset(fn({("s", k): v for k, v in zip(names, combo, strict=True)})
                               for combo in itertools.product(*doms)))

    def e_FnSet(self, e: S.FnSet, env: Env, p: bool) -> V:
        dom = sorted(want(self.ev(e.domain, env, p), "S"), key=order)
        rng = sorted(want(self.ev(e.range, env, p), "S"), key=order)
        return ("S", frozenset(fn(dict(zip(dom, combo, strict=True)))
                               for combo in itertools.product(rng, repeat=len(dom))))

    # built-in operators ----------------------------------------------------------------

    def builtin(self, name: str, args: tuple[S.Expr, ...], env: Env, p: bool) -> V:
        if name == "BOOLEAN":
            return ("S", frozenset({TRUE, FALSE}))
        if name in ("/\\", "\\/", "=>"):
            a = self.truth(args[0], env, p)
            if name == "/\\":
                return B(a and self.truth(args[1], env, p))
            if name == "\\/":
                return B(a or self.truth(args[1], env, p))
            return B((not a) or self.truth(args[1], env, p))
        if name == "SelectSeq":  # the items for which the test (an operator argument) holds
            test = self.op_arg(args[1], env)
            if len(test.params) != 1:
                raise RefError("arity")
            kept = []
            for v in as_seq(self.ev(args[0], env, p)):
                if want(self.ev(test.body, {**(test.env or {}), test.params[0].name: v}, p), "b"):
                    kept.append(v)
            return seq(kept)
        vals = [self.ev(a, env, p) for a in args]
        impl = _BUILTINS.get(name)
        if impl is None:
            raise RefError(f"the reference has no operator {name}")
        return impl(*vals)


def order(v: V) -> Any:
    """TLC's order of values of one kind (``compareTo`` of its value classes), which CHOOSE
    follows (the least element satisfying the predicate): integers by value, FALSE before
    TRUE, strings as text; sets by size, then their elements in order, one by one (a
    SetEnumValue normalised); functions, sequences and records alike by size, then their
    arguments in order, one by one, then their values in that order (FcnRcdValue and
    RecordValue compare the domains before any value)."""
    tag, x = v
    if tag == "S":
        return (tag, len(x), sorted(order(y) for y in x))
    if tag == "F":
        pairs = sorted([(order(k), y) for k, y in x], key=lambda pair: pair[0])
        return (tag, len(x), [k for k, _ in pairs], [order(y) for _, y in pairs])
    return (tag, x)


def _int2(f: Any) -> Any:
    return lambda a, b: f(want(a, "i"), want(b, "i"))


def _div(a: int, b: int) -> V:
    if b == 0:
        raise RefError("division by zero")
    return I(a // b)


def _mod(a: int, b: int) -> V:
    if b <= 0:
        raise RefError("modulus")
    return I(a % b)


# -- equality as TLC answers it -------------------------------------------------------------
#
# Written from TLC's value classes (tlc2/value/impl: equals of BoolValue, IntValue,
# StringValue, ModelValue, SetEnumValue, FcnRcdValue / RecordValue / TupleValue, and
# SetEnumValue.member), independently of values.py, and only where TLC fails whatever order
# it compares parts in:
#
# - values of two kinds among boolean, integer, string, set, function: an error;
# - a model value named ``c_rest`` is typed ``c``: against a non-model value or a model
#   value of another type, an error; an untyped model value is unequal to the rest;
# - sets: sizes differ -> unequal; one element each -> compare the elements; every element
#   of one of one kind, every element of the other of another (no model values) -> error;
#   else unequal;
# - functions: sizes differ -> unequal; domains differ -> error when each domain is all of
#   one kind and the kinds differ (no model values), else unequal; sequences compare
#   their items left to right (the first unequal pair decides, an error on the way is an
#   error), functions over strings (records) or integers likewise in the order of their
#   arguments; other functions: unequal if some pair of values is unequal, else an error
#   if some pair is one, else equal;
# - a set is sorted (normalised) before it is compared: holding values of two kinds (an
#   untyped model value sorts below all, a typed one is of its type's kind; unless both
#   kinds of model values are there), an error;
# - x \in S for a finite S without x (not an untyped model value): an error when S cannot
#   be sorted (then every element is compared), or when every element of S but untyped model
#   values is of a kind other than x's (with none when x is a typed model value), or, x
#   a set or function, when every element fails against x both ways;
# - S \cup T: with S not empty, T is sorted, and each element of T not in S is looked up
#   in S (kinds only, not inside); S \cap T and S \ T look each element of S not in T up in T
#   (kinds only); S \subseteq T: S is sorted, an error when every element missing from T
#   fails to be looked up in it (when the first missing fails, for functions and sets,
#   whose order is known).
#
# Twins: two values that differ only by booleans standing for integers somewhere inside
# (``<<0>>`` and ``<<FALSE>>``: equal once every boolean is erased to 0 or 1):
# - T0: comparing two twins is an error (TLC compares their parts alike, in one order, and
#   the first parts that differ are a boolean and an integer), and so is comparing two
#   functions over twin domains (TLC compares the domains first);
# - T1: looking a value up in a set (or a domain) that holds a twin of it is an error (the
#   search meets the twin), also in \cup, \cap, \, \subseteq (one failing lookup) and EXCEPT;
# - T2: building a set (an enumeration, a map, UNION) holding two twins is an error (TLC
#   fails to sort it; the engine's sets cannot hold both).


def _erase(v: V) -> V:
    """``v`` with each boolean, at any depth, the integer it stands for in Python (FALSE 0,
    TRUE 1), a sequence kept apart from other functions: two values that differ but not
    once erased are twins. (``[k \\in {TRUE} |-> 0]`` and ``<<FALSE>>`` are not: the engine
    holds a sequence as a tuple, which Python finds unequal to any other function; TLC fails
    to compare them, as rule E4 of values.py says, but not where they are found only inside
    the sets or domains compared: those are unequal, as sets of other functions are.)"""
    tag, x = v
    if tag == "b":
        return I(int(x))
    if tag == "S":
        return ("S", frozenset(_erase(y) for y in x))
    if tag == "F":
        return ("Q" if _is_seq(dict(x)) else "F", frozenset((_erase(k), _erase(y)) for k, y in x))
    return v


def _twin_in(x: V, elems: Any) -> bool:
    """Whether ``elems`` (not holding ``x``) holds a twin of ``x``."""
    ex = _erase(x)
    return any(_erase(y) == ex for y in elems)


def _built(items: list[V]) -> V:
    """The set of ``items``: two twins among them fail (T2)."""
    out = frozenset(items)
    if len({_erase(v) for v in out}) < len(out):
        raise RefError(f"TLC cannot sort a set holding twins: {out}")
    return ("S", out)


def _sort_kinds(elems: Any) -> tuple[set[str], bool]:
    kinds, untyped = set(), False
    for v in elems:
        if v[0] == "m":
            t = _mv_type(v)
            if t is None:
                untyped = True
            else:
                kinds.add("m" + t)
        else:
            kinds.add(v[0])
    return kinds, untyped


def _unsortable(elems: Any) -> bool:
    kinds, untyped = _sort_kinds(elems)
    return len(kinds) > 1 and not (untyped and any(k[0] == "m" for k in kinds))


def _kind(v: V) -> str | None:
    """x's kind for sorting; None for an untyped model value."""
    if v[0] == "m":
        t = _mv_type(v)
        return None if t is None else "m" + t
    return v[0]


def _fails_both(x: V, y: V) -> bool:
    for p, q in ((x, y), (y, x)):
        try:
            teq(p, q)
        except RefError:
            continue
        return False
    return True


def _miss(x: V, elems: Any, nested: bool = True) -> None:
    """x, not in elems, looked up in them: RefError where TLC fails."""
    if _twin_in(x, elems):
        raise RefError(f"TLC meets the twin of {x} in {elems}, and cannot compare them")
    kx = _kind(x)
    if kx is None or not elems:
        return
    if _unsortable(elems):
        raise RefError(f"TLC cannot compare {x} with the elements of {elems}")
    kinds, untyped = _sort_kinds(elems)
    if len(kinds) != 1 or (untyped and x[0] == "m"):
        return
    (k,) = kinds
    if k != kx or (nested and kx in ("S", "F")
                   and all(_fails_both(x, y) for y in elems if y[0] != "m")):
        raise RefError(f"TLC cannot compare {x} with the elements of {elems}")


def _cup(a: V, b: V) -> V:
    xs, ys = want(a, "S"), want(b, "S")
    if xs and ys:
        if _unsortable(ys):
            raise RefError(f"TLC cannot sort {b}")
        for y in ys - xs:
            _miss(y, xs, nested=False)
    return ("S", xs | ys)


def _cap(a: V, b: V, keep: bool) -> V:
    xs, ys = want(a, "S"), want(b, "S")
    for x in xs - ys:
        _miss(x, ys, nested=False)
    return ("S", xs & ys if keep else xs - ys)


def _subseteq(a: V, b: V) -> V:
    xs, ys = want(a, "S"), want(b, "S")
    if _unsortable(xs):
        raise RefError(f"TLC cannot sort {a}")
    missing = xs - ys
    if not missing:
        return B(True)
    if len({x[0] for x in xs}) == 1 and next(iter(xs))[0] in ("F", "S"):
        # TLC's order of the elements known (``order``): the first missing one decides
        _miss(min(missing, key=order), ys)
        return B(False)
    for x in missing:
        try:
            _miss(x, ys)
        except RefError:
            continue
        return B(False)
    raise RefError(f"TLC cannot compare the elements of {a} with those of {b}")


def _mv_type(v: V) -> str | None:
    name = v[1]
    return name[0] if len(name) > 2 and name[1] == "_" else None


def _one_kind(vs: Any) -> str | None:
    kinds = {v[0] for v in vs}
    return kinds.pop() if len(kinds) == 1 else None


def _clash(xs: Any, ys: Any) -> bool:
    kx, ky = _one_kind(xs), _one_kind(ys)
    return kx is not None and ky is not None and kx != ky and "m" not in (kx, ky)


def _is_seq(m: dict[V, V]) -> bool:
    return set(m) == {I(k) for k in range(1, len(m) + 1)}


def teq(a: V, b: V) -> bool:
    """``a = b`` as TLC answers it (RefError where TLC fails)."""
    if a == b:
        return True
    if _erase(a) == _erase(b):
        raise RefError(f"TLC cannot compare the twins {a} and {b}")
    if a[0] == "m" or b[0] == "m":
        types = [_mv_type(v) for v in (a, b) if v[0] == "m"]
        if None in types:
            return False
        if a[0] != b[0] or types[0] != types[1]:
            raise RefError(f"TLC cannot compare {a} with {b}")
        return False
    if a[0] != b[0]:
        raise RefError(f"TLC cannot compare {a} with {b}")
    if a[0] == "S":
        xs, ys = a[1], b[1]
        if _unsortable(xs) or _unsortable(ys):
            raise RefError(f"TLC cannot sort {a} or {b}")
        if len(xs) != len(ys):
            return False
        if len(xs) == 1:
            return teq(next(iter(xs)), next(iter(ys)))
        if _clash(xs, ys):
            raise RefError(f"TLC cannot compare {a} with {b}")
        return False
    if a[0] != "F":
        return False
    fa, fb = fmap(a), fmap(b)
    if len(fa) != len(fb):
        return False
    if set(fa) != set(fb):
        if _erase(("S", frozenset(fa))) == _erase(("S", frozenset(fb))):
            raise RefError(f"TLC cannot compare the twin domains of {a} and {b}")  # T0
        if _clash(fa, fb):
            raise RefError(f"TLC cannot compare {a} with {b}")
        return False
    if _is_seq(fa):  # left to right, the first unequal pair decides
        return all(teq(fa[I(k)], fb[I(k)]) for k in range(1, len(fa) + 1))
    if _one_kind(fa) in ("s", "i"):  # in the order of the strings (names) or integers
        return all(teq(fa[k], fb[k]) for k in sorted(fa, key=lambda k: k[1]))
    results = []
    for k in fa:
        try:
            results.append(teq(fa[k], fb[k]))
        except RefError:
            results.append(None)
    if False in results:
        return False
    if None in results:
        raise RefError(f"TLC cannot compare {a} with {b}")
    return True


def tin(x: V, s: V) -> bool:
    """``x \\in s`` for a finite set as TLC answers it."""
    elems = want(s, "S")
    if x in elems:
        return True
    _miss(x, elems)
    return False


def _eq(a: V, b: V) -> V:
    return B(teq(a, b))


def _subset(s: V) -> V:
    items = sorted(want(s, "S"), key=order)
    return ("S", frozenset(("S", frozenset(c)) for r in range(len(items) + 1)
                           for c in itertools.combinations(items, r)))


def _append(s: V, x: V) -> V:
    return seq([*as_seq(s), x])


def _head(s: V) -> V:
    items = as_seq(s)
    if not items:
        raise RefError("Head of <<>>")
    return items[0]


def _tail(s: V) -> V:
    items = as_seq(s)
    if not items:
        raise RefError("Tail of <<>>")
    return seq(items[1:])


def _subseq(s: V, m: V, n: V) -> V:
    items = as_seq(s)
    lo, hi = want(m, "i"), want(n, "i")
    if lo > hi:
        return seq([])
    if lo < 1 or hi > len(items):
        raise RefError("SubSeq")
    return seq(items[lo - 1:hi])


_BUILTINS: dict[str, Any] = {
    "+": _int2(lambda a, b: I(a + b)),
    "-": _int2(lambda a, b: I(a - b)),
    "*": _int2(lambda a, b: I(a * b)),
    "\\div": _int2(_div),
    "%": _int2(_mod),
    "<": _int2(lambda a, b: B(a < b)),
    "<=": _int2(lambda a, b: B(a <= b)),
    ">": _int2(lambda a, b: B(a > b)),
    ">=": _int2(lambda a, b: B(a >= b)),
    "..": _int2(lambda a, b: ("S", frozenset(I(k) for k in range(a, b + 1)))),
    "-.": lambda a: I(-want(a, "i")),
    "~": lambda a: B(not want(a, "b")),
    "<=>": lambda a, b: B(want(a, "b") == want(b, "b")),
    "=": _eq,
    "/=": lambda a, b: B(not teq(a, b)),
    "\\in": lambda x, s: B(tin(x, s)),
    "\\notin": lambda x, s: B(not tin(x, s)),
    "\\cup": _cup,
    "\\cap": lambda a, b: _cap(a, b, keep=True),
    "\\": lambda a, b: _cap(a, b, keep=False),
    "\\subseteq": _subseteq,
    "SUBSET": _subset,
    "UNION": lambda s: _built([y for x in want(s, "S") for y in want(x, "S")]),
    "DOMAIN": lambda f: ("S", frozenset(fmap(f))),
    "Cardinality": lambda s: I(len(want(s, "S"))),
    "Len": lambda s: I(len(as_seq(s))),
    "Append": _append,
    "Head": _head,
    "Tail": _tail,
    "\\o": lambda a, b: seq(as_seq(a) + as_seq(b)),
    "SubSeq": _subseq,
    "\\times": lambda a, b: ("S", frozenset(seq([x, y]) for x in want(a, "S") for y in want(b, "S"))),
}


# -- actions ---------------------------------------------------------------------------------


class Enumerator:
    """TLC's way through an initial predicate (``init``) or an action: the next states
    (as dicts of all variables) that satisfy it, each as often as it is found."""

    def __init__(self, interp: Interp, init: bool) -> None:
        self.r = interp
        self.init = init

    def states(self, e: S.Expr, s: dict[str, V]) -> Iterator[dict[str, V]]:
        for partial in self.go(e, {}, s, {}):
            if set(partial) != set(self.r.variables):
                raise RefError("an action that leaves a variable unassigned")
            yield dict(partial)

    def _with(self, s: dict[str, V], partial: dict[str, V]) -> None:
        if self.init:
            self.r.s, self.r.t = partial, None
        else:
            self.r.s, self.r.t = s, partial

    def go(self, e: S.Expr, env: Env, s: dict[str, V], partial: dict[str, V]
           ) -> Iterator[dict[str, V]]:
        r = self.r
        if not self.init and partial and len(partial) == len(r.variables):
            # every variable assigned: TLC (getNextStatesAllAssigned) evaluates the rest as
            # a boolean, once
            self._with(s, partial)
            if r.truth(e, env, False):
                yield partial
            return
        if isinstance(e, S.And):
            yield from self._conj(list(e.items), env, s, partial)
            return
        if isinstance(e, S.Or):
            for x in e.items:
                yield from self.go(x, env, s, partial)
            return
        if isinstance(e, S.Quant) and e.kind == "E":
            self._with(s, partial)
            for inner in list(r.bindings(e.bounds, env, False)):
                yield from self.go(e.body, inner, s, partial)
            return
        if isinstance(e, S.ActionBox) and e.box:  # [A]_v: A, then UNCHANGED v (TLC's sa)
            yield from self.go(S.Or(e.loc, (e.action, S.Unchanged(e.loc, e.sub))), env, s, partial)
            return
        if isinstance(e, S.Quant) and e.kind == "A":  # each instance a conjunct (TLC's bf)
            self._with(s, partial)
            items = [(e.body, inner) for inner in list(r.bindings(e.bounds, env, False))]
            yield from self._conj_envs(items, s, partial)
            return
        if isinstance(e, S.If):
            self._with(s, partial)
            yield from self.go(e.then if r.truth(e.cond, env, False) else e.else_, env, s, partial)
            return
        if isinstance(e, S.Case):
            self._with(s, partial)
            for arm in e.arms:
                if r.truth(arm.cond, env, False):
                    yield from self.go(arm.value, env, s, partial)
                    return
            if e.other is None:
                raise RefError("CASE with no arm true")
            yield from self.go(e.other, env, s, partial)
            return
        if isinstance(e, S.OpApp) and e.name == "=>" and len(e.args) == 2 and e.name not in env:
            self._with(s, partial)
            if r.truth(e.args[0], env, False):
                yield from self.go(e.args[1], env, s, partial)
            else:
                yield partial
            return
        if isinstance(e, S.Let):
            yield from self.go(e.body, r.let_env(e, env), s, partial)
            return
        if isinstance(e, S.OpApp) and e.name in ("=", "\\in") and len(e.args) == 2:
            var = self._target(e.args[0], env)
            if var is not None and var not in partial:
                self._with(s, partial)
                rhs = r.ev(e.args[1], env, False)
                for v in ([rhs] if e.name == "=" else sorted(want(rhs, "S"), key=order)):
                    yield {**partial, var: v}
                return
        if isinstance(e, S.Unchanged):
            names = self._vars_of(e.expr, env)
            if names is not None:
                out = dict(partial)
                for n in names:
                    if n in out and not teq(out[n], s[n]):
                        return
                    out[n] = s[n]
                yield out
                return
        if isinstance(e, (S.Name, S.OpApp)):
            b = env.get(e.name)
            args = e.args if isinstance(e, S.OpApp) else ()
            if isinstance(b, Thunk) and not args:
                yield from self.go(b.expr, b.env, s, partial)
                return
            op = b if isinstance(b, Op) else None
            if op is None and e.name not in env and e.name in r.defs:
                d = r.defs[e.name]
                op = Op(d.params, d.body, None)
            if op is not None:
                inner = dict(op.env or {})
                for prm, a in zip(op.params, args, strict=True):
                    inner[prm.name] = r.op_arg(a, env) if prm.arity else Thunk(a, env)
                yield from self.go(op.body, inner, s, partial)
                return
        self._with(s, partial)
        if r.truth(e, env, False):
            yield partial

    def _conj_envs(self, items: list[tuple[S.Expr, Env]], s: dict[str, V], partial: dict[str, V]
                   ) -> Iterator[dict[str, V]]:
        if not items:
            yield partial
            return
        (e, env), rest = items[0], items[1:]
        for p2 in list(self.go(e, env, s, partial)):
            yield from self._conj_envs(rest, s, p2)

    def _conj(self, items: list[S.Expr], env: Env, s: dict[str, V], partial: dict[str, V]
              ) -> Iterator[dict[str, V]]:
        if not items:
            yield partial
            return
        for p2 in list(self.go(items[0], env, s, partial)):
            yield from self._conj(items[1:], env, s, p2)

    def _target(self, e: S.Expr, env: Env) -> str | None:
        if not self.init:
            if not isinstance(e, S.Prime):
                return None
            e = e.expr
        while isinstance(e, S.Name):
            b = env.get(e.name)
            if isinstance(b, Thunk):
                e, env = b.expr, b.env
                continue
            if b is None and e.name in self.r.variables:
                return e.name
            return None
        return None

    def _vars_of(self, e: S.Expr, env: Env) -> list[str] | None:
        if isinstance(e, S.Tuple):
            out: list[str] = []
            for x in e.items:
                sub = self._vars_of(x, env)
                if sub is None:
                    return None
                out += sub
            return out
        if isinstance(e, S.Name):
            b = env.get(e.name)
            if isinstance(b, Thunk):
                return self._vars_of(b.expr, b.env)
            if b is None and e.name in self.r.variables:
                return [e.name]
            if b is None and e.name in self.r.defs and not self.r.defs[e.name].params:
                return self._vars_of(self.r.defs[e.name].body, {})
        return None


@dataclass
class Explored:
    generated: int
    distinct: int
    depth: int
    violation: str | None
    states: set[Any]


def explore(module: S.Module, constants: Mapping[str, Any], init: str, nxt: str,
            invariants: list[str], constraints: list[str] = ()) -> Explored:  # type: ignore[assignment]
    """TLC's breadth-first search, with TLC's counting (states outside a CONSTRAINT are
    checked against the invariants, then dropped)."""
    r = Interp(module, constants)
    inits, nexts = Enumerator(r, True), Enumerator(r, False)

    def key(st: dict[str, V]) -> Any:
        return tuple(st[v] for v in r.variables)

    def holds(names: list[str], st: dict[str, V]) -> str | None:
        r.s, r.t = st, None
        for n in names:
            if not r.truth(S.Name(S.NO_LOC, n), {}, False):
                return n
        return None

    level: dict[Any, int] = {}
    frontier: list[dict[str, V]] = []
    generated = 0
    for st in inits.states(S.Name(S.NO_LOC, init), {}):
        generated += 1
        bad = holds(invariants, st)
        if bad is not None:
            return Explored(generated, len(level), max(level.values(), default=0), bad, set(level))
        if holds(constraints, st) is None and key(st) not in level:
            level[key(st)] = 1
            frontier.append(st)
    depth = 1 if level else 0
    while frontier:
        following = []
        for st in frontier:
            for t in list(nexts.states(S.Name(S.NO_LOC, nxt), st)):
                generated += 1
                if key(t) in level:
                    continue
                bad = holds(invariants, t)
                if bad is not None:
                    return Explored(generated, len(level), depth, bad, set(level))
                if holds(constraints, t) is not None:
                    continue
                level[key(t)] = level[key(st)] + 1
                depth = max(depth, level[key(t)])
                following.append(t)
        frontier = following
    return Explored(generated, len(level), depth, None, set(level))
