"""Helpers shared by the construct compilers: generated source templates of the hot
node kinds, built-in operator names, small closure builders."""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping, Sequence
from functools import partial
from types import CodeType
from typing import Any

from conformance.tla import stdlib as L
from conformance.tla import syntax as S
from conformance.tla.astwalk import walk
from conformance.tla.semantics.arguments import FailedArg, assigned_check, raise_failed
from conformance.tla.semantics.compiled import (
    _MISSING,
    C,
    EvalFn,
    Inline,
    derived,
)
from conformance.tla.semantics.scope import (
    Lazy,
)
from conformance.tla.values import (
    Fn,
)

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


# Hot closures are generated from source so that operands that are plain reads of a
# state variable or a bound variable are inlined (``s[3]``, ``e[1]``) instead of being
# closure calls, and literals become names bound to their values.

# ``f[x]``: both operands are evaluated (``&`` evaluates its right side too); a function
# (``Fn``) applied to a string or an integer in its domain gives the mapped value at once
# when the key found cannot be a boolean found as 0 or 1 (``values.fn_apply``): the
# integer is not 0 or 1, or no key of the function puns (``Fn._pun_keys``, once known);
# a sequence (a tuple) applied to an integer in 1..Len gives its element at once; anything
# else goes to ``app`` (``_APPLY_SRC``: other keys, errors)
_APP_EXPR = ("(§_v if (type(§_f := {F}) is Fn) & ((§_k := type(§_x := {X})) is str or §_k is int)"
             " and (§_v := §_f.map.get(§_x, §_M)) is not §_M"
             " and (§_k is str or §_x > 1 or §_x < 0 or §_f._pun_keys is False)"
             " else §_f[§_x - 1] if §_k is int and type(§_f) is tuple and 0 < §_x <= len(§_f)"
             " else §_app(§_f, §_x))")

# ``f[x]`` of the values ``f`` and ``x`` that ``_APP_EXPR`` did not answer itself: a
# function whose keys are not yet known not to pun, or a key of another kind; the rest
# (a sequence outside 1..Len, errors) is ``slow``'s
_APPLY_SRC = """
def apply(f, x):
    if type(f) is Fn and type(x) not in BOXES:
        try:
            v = f.map[x]
        except (KeyError, TypeError):
            pass
        else:
            p = f._pun_keys
            if p is False or (p is None and not f.pun_keys()):
                return v
    return slow(f, x)
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
        if found and (x is True or x is False or type(x) is int and (x == 0 or x == 1)
                      or type(x) in BOXES):
            found = exact(x, st)
        if not found and st:
            found = miss(x, st)
        return found is not NEG
    return slow(x, st) is not NEG
"""

_IN_DOMAIN_SRC = """
def isin(s, t, e):
    x = {A}
    f = {F}
    if type(f) is tuple:
        if type(x) is int:
            return (0 < x <= len(f)) is not NEG
        return slow(f, x) is not NEG
    if type(f) is Fn:
        try:
            found = x in f.map
        except TypeError:
            return NEG
        if found and (x is True or x is False or type(x) is int and (x == 0 or x == 1)
                      or type(x) in BOXES):
            found = exact(x, f.map)
        return (found or miss(x, f.map)) is not NEG
    return slow(f, x) is not NEG
"""


# Fused expressions (``fused``): a parent's generated code embeds them whole. ``§_x``
# names their own temporaries and helpers; each operand is evaluated where it stands.

# Equality: Python's ``==`` first; values it finds unequal that are of one of the kinds
# that compare without failing (two strings, integers or booleans) are unequal at once;
# any other pair goes to ``differ`` (values.unequal_or_fail with the location), which
# fails where TLC fails to compare them. NEG is written in as True (``/=``) or False.
_EQ_EXPR = ("(not NEG if (§_a := {A}) == (§_b := {B}) and (§_a is §_b or §_same(§_a, §_b))"
            " else NEG if (§_t := type(§_a)) is type(§_b)"
            " and (§_t is str or §_t is int or §_t is bool)"
            " else §_differ(§_a, §_b) is not NEG)")

# ``a = c`` for a string or integer literal c (the types must match too); OP is == or !=
_EQ_LITERAL_EXPR = ("(§_a OP {B} if type(§_a := {A}) is §_T"
                    " else §_differ(§_a, {B}) is not NEG)")

# integer arithmetic and comparison: both operands are evaluated first
_ARITH_EXPR = ("(§_x OP §_y if type(§_x := {A}) is type(§_y := {B}) is int"
               " else §_fail(§_x, §_y))")

# ``r.name``
_FIELD_EXPR = ("(§_m[§_name] if type(§_r := {R}) is Fn and §_name in (§_m := §_r.map)"
               " else §_slow(§_r))")

# a value that must be a boolean (``bad`` raises the error of another value)
_BOOLEAN_EXPR = "(§_v if (§_v := {A}) is True or §_v is False else §_bad(§_v))"

# ``~a``
_NOT_EXPR = "(False if (§_v := {A}) is True else True if §_v is False else §_bad(§_v))"

# ``IF c THEN a ELSE b`` (``c`` checked to be a boolean)
_IF_EXPR = "({A} if {C} else {B})"


# ``[f EXCEPT ![k] = v]`` (see functions._except1, which fills in KEY, NEW and INDEXED
# before the operands; ``update`` is the general case)
_EXCEPT1_SRC = """
def except1(s, t, e):
    f = {F}
    if type(f) is tuple and INDEXED:
        key = KEY
        if type(key) is int and 0 < key <= len(f):
            old = f[key - 1]
            new = NEW
            if new is old:  # the very value it had: the same function
                return f
            lst = list(f)
            lst[key - 1] = new
            return tuple(lst)
        if type(key) is not int:
            key_miss(key, f)
        return f
    if type(f) is Fn:
        key = KEY
        m = f.map
        if key in m:
            # (``found_maybe_other`` written out: most keys are other integers or names)
            if INDEXED and (type(key) in BOXES or key is True or key is False or (
                    type(key) is int and (key == 0 or key == 1))) and punned(key, f):
                pun_key(key, f)
            old = m[key]
            new = NEW
            if new is old:
                return f
            m2 = dict(m)
            m2[key] = new
            return Fn(m2)
        key_miss(key, f)
        return f
    return update(s, t, e, f, path, 0, fv, uses_at)
"""


MARK = "§"  # the prefix of an inline expression's own names (see ``Inline``)
_INLINE_SIZE = 1_200  # a fused expression's source longer than this is called instead
_INLINE_DEPTH = 24  # nor are fused expressions nested deeper


def _inlinable(c: C) -> Inline | None:
    """``c``'s expression source when a parent's generated code is to embed it."""
    inline = c.inline
    if inline is not None and inline.fn is c.fn and len(inline.src) <= _INLINE_SIZE \
            and inline.depth < _INLINE_DEPTH:
        return inline
    return None


def _operand(c: C, key: str, namespace: dict[str, Any]) -> str:
    """Python source evaluating the compiled operand ``c`` inside a generated closure."""
    inline = _inlinable(c)
    if inline is not None:
        namespace.update({k.replace(MARK, key): v for k, v in inline.names.items()})
        return inline.src.replace(MARK, key)
    if c.reads is not None:
        kind, i = c.reads
        if kind == "guarded":  # a parameter whose argument may have failed (arguments.py)
            namespace["FailedArg"], namespace["failed"] = FailedArg, raise_failed
            return (f"({key}_g if type({key}_g := e[{int(i)}]) is not FailedArg "
                    f"else failed({key}_g))")
        if kind == "lazy":  # a LET name or a parameter passed by name: its value once known
            namespace["MISSING"] = _MISSING
            return (f"({key}_l if ({key}_l := e[{int(i)}].v) is not MISSING "
                    f"else e[{int(i)}].get())")
        return f"{'s' if kind == 'var' else 'e'}[{int(i)}]"
    if c.value is not _MISSING:
        namespace[f"{key}_v"] = c.value
        return f"{key}_v"
    namespace[f"{key}_f"] = c.fn
    return f"{key}_f(s, t, e)"


# the code of each generated source: many nodes share one (a call passing ``e[0]``, say),
# and each gets its own function (with its own namespace) from the one code object
_CODE: dict[str, CodeType] = {}


def _generated(name: str, template: str, operands: Mapping[str, C], extra: Mapping[str, Any]
               ) -> EvalFn:
    namespace: dict[str, Any] = {"Fn": Fn, **extra}
    src = template.format(**{k: _operand(c, k, namespace) for k, c in operands.items()})
    return _function(name, src, namespace)


def _function(name: str, src: str, namespace: dict[str, Any]) -> EvalFn:
    """The function ``name`` defined by ``src`` with the globals ``namespace``."""
    code = _CODE.get(src)
    if code is None:
        if len(_CODE) >= 1 << 14:
            _CODE.clear()
        code = _CODE[src] = compile(src, f"<{name}>", "exec")
    exec(code, namespace)
    return namespace[name]


def fused(name: str, template: str, operands: Mapping[str, C], extra: Mapping[str, Any],
          *parts: C) -> C:
    """A node built from ``parts`` whose closure returns the Python expression
    ``template``, with the operands' sources in its ``{K}`` fields and the values of
    ``extra`` bound to the names ``§_K`` it uses; a parent's generated code embeds
    the expression (``Inline``) instead of calling the closure."""
    names: dict[str, Any] = {f"{MARK}_{k}": v for k, v in extra.items()}
    src = template.format(**{k: _operand(c, MARK + k, names) for k, c in operands.items()})
    depth = 1 + max((inline.depth for c in operands.values()
                     if (inline := _inlinable(c)) is not None), default=0)
    body = f"def {name}(s, t, e):\n    return {src.replace(MARK, '')}\n"
    fn = _function(name, body, {"Fn": Fn, **{k.replace(MARK, ""): v for k, v in names.items()}})
    res = derived(fn, *parts)
    res.inline = Inline(fn, src, names, depth)
    return res


def connective(op: str, items: Sequence[C], *parts: C) -> C:
    """``items`` (booleans) joined by ``and`` or ``or``: evaluated left to right until one
    decides; ``parts``: what the result depends on."""
    operands = {f"X{k}": c for k, c in enumerate(items)}
    src = "(" + f" {op} ".join(f"{{{k}}}" for k in operands) + ")"
    return fused("conj" if op == "and" else "disj", src, operands, {}, *parts)


def _applied(f: EvalFn, prefix: int, args: Sequence[C]) -> C:
    """``(s, t, e) -> f(s, t, e[:prefix] + (a(s, t, e) for each argument))``, fused: the
    arguments' sources are embedded (the commonest operator application: a bound
    variable passed on), and so is the call in a parent's generated code. Only its
    ``fn`` and ``inline`` are meant to be used (not its dependencies)."""
    keys, env = _environment_src(prefix, args)
    return fused("call", f"§_body(s, t, {env})", keys, {"body": f})


def _entered(prefix: int, args: Sequence[C]) -> EvalFn:
    """``(s, t, e) -> e[:prefix] + (a(s, t, e) for each argument)``: the environment of an
    operator's body, generated as ``_applied``'s."""
    keys, env = _environment_src(prefix, args)
    return _generated("enter", f"def enter(s, t, e):\n    return {env}\n", keys, {})


def _environment_src(prefix: int, args: Sequence[C]) -> tuple[dict[str, C], str]:
    """The operands and the template of the tuple ``e[:prefix] + (the arguments)``."""
    keys = {f"A{k}": c for k, c in enumerate(args)}
    items = "".join(f"{{{k}}}, " for k in keys)
    head = f"*e[:{int(prefix)}], " if prefix else ""
    return keys, f"({head}{items})"


_DEFERRED_SRC = """
def deferred(s, t, e):
    try:
        CHECK
        return {A}
    except TlaError as err:
        return FailedArg(err)
"""


def deferring(c: C, reads: Sequence[int] = (), names: Sequence[str] = (),
              loc: S.Loc | None = None) -> EvalFn:
    """``c``'s closure, returning its error as a ``FailedArg`` instead of raising it.
    ``reads``: the variables ``c`` (the argument at ``loc``) reads, which an initial
    predicate (a state being built, a list) may not have assigned yet: that error waits
    for the use as well."""
    check = "if type(s) is list: assigned(s)" if reads else "pass"
    return _generated("deferred", _DEFERRED_SRC.replace("CHECK", check), {"A": c}, {
        "TlaError": S.TlaError, "FailedArg": FailedArg,
        "assigned": assigned_check(reads, names, loc)})


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


_ACTION_NODES = (S.Prime, S.Unchanged, S.ActionBox)


def _by_name_uses(body: S.Expr, params: set[str],
                  callee: Callable[[S.OpApp], tuple[bool, ...] | None]) -> Iterator[str]:
    """The parameters among ``params`` that ``body`` primes (inside ``'``, ``UNCHANGED``,
    ``[A]_v``, ``ENABLED``), uses as the left side of ``=`` or ``\\in`` (an assignment in
    an initial predicate or action), or passes on to an operator taking them by name."""
    if not params:
        return
    # LET q == p (zero arity): q stands for p where it is assigned or handed on, as TLC's
    # getVar reads through a definition's body
    aliases = {d.name: d.body for n in walk(body) if isinstance(n, S.Let)
               for d in n.defs if isinstance(d, S.OpDef) and not d.params}

    def param_of(e: S.Expr) -> str | None:
        seen: set[str] = set()
        while isinstance(e, S.Name) and e.name not in params and e.name in aliases \
                and e.name not in seen:
            seen.add(e.name)
            e = aliases[e.name]
        return e.name if isinstance(e, S.Name) and e.name in params else None

    for node in walk(body):
        if isinstance(node, _ACTION_NODES) or (isinstance(node, S.Temporal)
                                                and node.op == "ENABLED"):
            for sub in walk(node):
                if isinstance(sub, S.Name) and sub.name in params:
                    yield sub.name
        elif isinstance(node, S.OpApp) and any(param_of(a) for a in node.args):
            takes = callee(node)
            for k, a in enumerate(node.args):
                p = param_of(a)
                if p is not None and (takes is None or takes[k]):
                    yield p
    for node in _conjunct_positions(body):
        if isinstance(node, S.OpApp) and node.name in ("=", "\\in") and len(node.args) == 2:
            p = param_of(node.args[0])
            if p is not None:
                yield p


def _conjunct_positions(node: S.Expr) -> Iterator[S.Expr]:
    """The sub-expressions an initial predicate or action evaluates as conjuncts (where
    ``x = e`` assigns): through ``/\\``, ``\\/``, ``\\E``, ``\\A`` (a conjunction over its
    bound, as TLC enumerates it), LET, IF and CASE branches."""
    stack = [node]
    while stack:
        n = stack.pop()
        yield n
        if isinstance(n, (S.And, S.Or)):
            stack.extend(n.items)
        elif isinstance(n, (S.Quant, S.Let)):
            stack.append(n.body)
        elif isinstance(n, S.If):
            stack.extend((n.then, n.else_))
        elif isinstance(n, S.Case):
            stack.extend(a.value for a in n.arms)
            if n.other is not None:
                stack.append(n.other)


def _walk_expr(node: Any) -> Iterator[Any]:
    """All sub-nodes (an @ of a nested EXCEPT counts too: over-approximation is harmless)."""
    from conformance.tla.astwalk import walk

    return walk(node)


def _member_of(member: Callable[[Any, Any], bool], st: Any) -> Callable[[Any], bool]:
    return lambda v: member(v, st)


def _lazy_builder(f: EvalFn, kind: type[Lazy]) -> EvalFn:
    """``(s, t, e) -> kind(f, s, t, e)``: a ``partial`` (no Python frame of its own)."""
    return partial(kind, f)


def _tuple_of(fs: list[EvalFn]) -> EvalFn:
    return lambda s, t, e: tuple([f(s, t, e) for f in fs])


def _with_runtime(impl: Callable[..., Any], rt: L.Runtime) -> Callable[..., Any]:
    return lambda *a: impl(rt, *a)


