"""Memoised operator applications: results kept per argument values (module
operators) or per enclosing bindings (LET operators)."""

from __future__ import annotations

from operator import itemgetter
from typing import Any

from conformance.tla import syntax as S
from conformance.tla.astwalk import walk
from conformance.tla.semantics.compiled import (
    EvalFn,
)
from conformance.tla.values import (
    Fn,
    same_value,
)

# ---------------------------------------------------------------------------
# Memoised operator applications
# ---------------------------------------------------------------------------

MEMO_LIMIT = 1024  # entries kept per operator before its memo is emptied (bounds what it keeps alive)
# elements of the sequences, sets and functions a memo keeps alive before it is emptied: a
# long run's logs would otherwise keep MEMO_LIMIT old logs alive per operator
MEMO_ELEMENTS = 1 << 17
_MEMO_BY_VALUE = frozenset({int, str, bool})
_CONTAINERS = frozenset({tuple, frozenset, Fn})
_MEMO_SET_BY_VALUE = 32  # sets up to this size are keyed by value, larger ones by identity
_MEMO_WEIGHT = 8  # lighter bodies cost less to evaluate than to look up
_MEMO_BINDERS = (S.Quant, S.SetFilter, S.SetMap, S.Choose, S.FnConstruct)


def _memo_part(v: Any) -> Any:
    """The key of one argument: scalars and small sets by value, anything else by identity."""
    tv = type(v)
    if tv in _MEMO_BY_VALUE or (tv is frozenset and len(v) <= _MEMO_SET_BY_VALUE):
        return v
    return id(v)


def _elements(args: tuple) -> int:
    """How many elements the containers among ``args`` hold (what a memo entry keeps alive)."""
    return sum(len(a) for a in args if type(a) in _CONTAINERS)


def _memo_same(stored: tuple, args: tuple) -> bool:
    """A hit's arguments are really the call's (an identity key can meet an equal integer)."""
    for x, y in zip(stored, args, strict=True):
        if x is not y and (x != y or not same_value(x, y)):
            return False
    return True


def memoized(f: EvalFn, arity: int) -> EvalFn:
    """``f`` (an operator body reading only its arguments: no state, no other binding, pure)
    remembering its results. Arguments keyed by identity are kept alive by the memo, so an
    identity key cannot be reused by another value while it is stored."""
    memo: dict[Any, tuple[Any, Any]] = {}
    by_value, small = _MEMO_BY_VALUE, _MEMO_SET_BY_VALUE
    kept = [0]  # elements of the containers the memo keeps alive

    def make_room(args: tuple) -> None:
        n = kept[0] + _elements(args)
        if len(memo) >= MEMO_LIMIT or n > MEMO_ELEMENTS:
            memo.clear()
            n = _elements(args)
        kept[0] = n

    if arity == 1:

        def call1(s: Any, t: Any, e: tuple) -> Any:
            a = e[0]
            ta = type(a)
            hit = memo.get(a if ta in by_value or (ta is frozenset and len(a) <= small)
                           else id(a))
            if hit is not None:
                b = hit[0]
                if b is a or (b == a and same_value(b, a)):
                    return hit[1]
            v = f(s, t, e)
            make_room(e)
            memo[_memo_part(a)] = (a, v)
            return v

        return call1

    def call(s: Any, t: Any, e: tuple) -> Any:
        key = tuple([_memo_part(a) for a in e])
        hit = memo.get(key)
        if hit is not None and _memo_same(hit[0], e):
            return hit[1]
        v = f(s, t, e)
        make_room(e)
        memo[key] = (e, v)
        return v

    return call


def state_memoized(f: EvalFn, reads: tuple[int, ...], arity: int) -> EvalFn:
    """``f`` (the body of a module-level definition of ``arity`` parameters that reads the
    variables ``reads`` of the current state and nothing else: no next state, no other
    binding, pure) remembering its result per arguments (as ``memoized``) and objects of
    those variables. The search makes the equal values of the states it meets one object,
    so the states that share them share the result; an entry keeps its objects alive, so
    their ids are not reused while it is stored. (In a state being built by Init, a
    variable not assigned yet fails the evaluation: no entry.)"""
    memo: dict[Any, tuple[Any, Any, Any]] = {}
    get = itemgetter(*reads) if len(reads) > 1 else None
    i = reads[0]
    kept = [0]  # elements of the containers among the arguments the memo keeps alive

    if arity == 0:

        def call0(s: Any, t: Any, e: tuple) -> Any:
            vs = s[i] if get is None else get(s)
            key = id(vs) if get is None else tuple(map(id, vs))
            hit = memo.get(key)
            if hit is not None:
                return hit[2]
            r = f(s, t, e)
            if len(memo) >= MEMO_LIMIT:
                memo.clear()
            memo[key] = (vs, e, r)
            return r

        return call0

    def call(s: Any, t: Any, e: tuple) -> Any:
        vs = s[i] if get is None else get(s)
        key = (id(vs) if get is None else tuple(map(id, vs)), *[_memo_part(a) for a in e])
        hit = memo.get(key)
        if hit is not None and _memo_same(hit[1], e):
            return hit[2]
        r = f(s, t, e)
        n = kept[0] + _elements(e)
        if len(memo) >= MEMO_LIMIT or n > MEMO_ELEMENTS:
            memo.clear()
            n = _elements(e)
        kept[0] = n
        memo[key] = (vs, e, r)
        return r

    return call


def _other_bindings(pre: tuple, kept: tuple | None) -> bool:
    """Whether the enclosing bindings ``pre`` are not those the results were kept for
    (binding by binding, as ``_memo_same``: Python finds ``(0,)`` equal to ``(FALSE,)``,
    TLA+ does not)."""
    return kept is None or not _memo_same(kept, pre)


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
        if _other_bindings(pre, box[0]) or (reads_state and s is not box[1]):
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
            fresh = _other_bindings(pre, box[0]) or (reads_state and s is not box[1])
            table = results(s, e) if fresh else box[2]
            ta = type(a)
            key = a if ta in by_value or (ta is frozenset and len(a) <= small) else id(a)
            hit = table.get(key)
            if hit is not None:
                b = hit[0]
                if b is a or (b == a and same_value(b, a)):
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


def loops(body: S.Expr) -> bool:
    """Whether ``body`` iterates over a set (a quantifier, set builder, CHOOSE or function
    construction): a body reading the state is remembered only then, since a lookup keyed
    by the state's objects costs about as much as evaluating a few operators."""
    return any(isinstance(node, _MEMO_BINDERS) for node in walk(body))


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
