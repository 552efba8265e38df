"""Native implementations of the standard modules and of TLA+'s built-in operators.

Everything here works on runtime values (see ``values.py``) and raises ``EvalError`` or
``UnsupportedError`` *without* a location; the compiler attaches the location of the
expression being evaluated. Infinite sets (``Nat``, ``Int``, ``STRING``, ``Seq(S)``,
``[Nat -> S]`` ...) are ``LazySet`` objects: membership works, enumeration is an
``UnsupportedError``.
"""

from __future__ import annotations

import errno
import itertools
import json
import os
import random
import re
import subprocess
import sys
import time
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from decimal import Decimal, InvalidOperation
from pathlib import Path
from typing import Any, TextIO

from conformance.tla.syntax import EvalError, UnsupportedError
from conformance.tla.values import (
    ApplyError,
    Fn,
    ModelValue,
    Value,
    built_set,
    cap_check,
    cup_check,
    exact_member,
    fn_apply,
    fn_domain,
    fn_items,
    format_value,
    found_maybe_other,
    make_fn,
    make_record,
    member_miss,
    same_value,
    sort_key,
    sorted_values,
    subseteq_or_fail,
    type_name,
    unequal_or_fail,
)

Op = Callable[..., Any]


class LazySet:
    """A set known only by its membership test (infinite or too large to enumerate)."""

    __slots__ = ("contains", "description")

    def __init__(self, description: str, contains: Callable[[Any], bool]) -> None:
        self.description = description
        self.contains = contains

    def __repr__(self) -> str:
        return self.description


def _is_int(v: Any) -> bool:
    return type(v) is int


NAT = LazySet("Nat", lambda v: type(v) is int and v >= 0)
INT = LazySet("Int", _is_int)
STRING = LazySet("STRING", lambda v: type(v) is str)
BOOLEAN: frozenset = frozenset({False, True})

AnySet = frozenset | LazySet


def show(v: Any) -> str:
    """A value for an error message."""
    if isinstance(v, LazySet):
        return v.description
    if callable(v):
        return "an operator"
    return format_value(v)


# ---------------------------------------------------------------------------
# Type checks
# ---------------------------------------------------------------------------


def want_int(v: Any, what: str = "operand") -> int:
    if type(v) is not int:
        raise EvalError(f"{what} must be an integer, got the {type_name(v)} {show(v)}")
    return v


def want_bool(v: Any, what: str = "operand") -> bool:
    if type(v) is not bool:
        raise EvalError(f"{what} must be a boolean, got the {type_name(v)} {show(v)}")
    return v


def want_set(v: Any, what: str = "operand") -> AnySet:
    if type(v) is frozenset or type(v) is LazySet:
        return v
    raise EvalError(f"{what} must be a set, got the {type_name(v)} {show(v)}")


def enumerate_set(v: Any, what: str = "set") -> frozenset:
    """The elements of a finite set; an infinite one is an ``UnsupportedError``."""
    if type(v) is frozenset:
        return v
    if type(v) is LazySet:
        raise UnsupportedError(f"cannot enumerate the {what} {v.description} (not finite)")
    raise EvalError(f"{what} must be a set, got the {type_name(v)} {show(v)}")


def want_fn(v: Any, what: str = "operand") -> tuple | Fn:
    if type(v) is tuple or type(v) is Fn:
        return v
    raise EvalError(f"{what} must be a function, got the {type_name(v)} {show(v)}")


def want_seq(v: Any, what: str = "operand") -> tuple:
    if type(v) is tuple:
        return v
    raise EvalError(f"{what} must be a sequence, got the {type_name(v)} {show(v)}")


def values_equal(a: Any, b: Any) -> bool:
    """TLA+ equality (booleans are never equal to integers); fails where TLC fails to
    compare the two values (``values.tlc_equal``)."""
    if a == b and (a is b or same_value(a, b)):
        return True
    return unequal_or_fail(a, b)


# ---------------------------------------------------------------------------
# Sets
# ---------------------------------------------------------------------------


def in_finite(x: Any, s: frozenset) -> bool:
    """``x \\in s`` for a finite set, never confusing TRUE with 1 (Python's True == 1);
    fails where TLC fails to compare ``x`` with the elements (``values.member_miss``)."""
    try:
        found = x in s
    except TypeError:
        return False
    if found and found_maybe_other(x):
        found = exact_member(x, s)
    return found or member_miss(x, s)


def member(x: Any, s: Any) -> bool:
    if type(s) is frozenset:
        return in_finite(x, s)
    if type(s) is LazySet:
        return bool(s.contains(x))
    raise EvalError(f"the right side of \\in must be a set, got the {type_name(s)} {show(s)}")


def interval(a: Any, b: Any) -> frozenset:
    return frozenset(range(want_int(a, "lower bound of .."), want_int(b, "upper bound of ..") + 1))


def cup(a: Any, b: Any) -> AnySet:
    if type(a) is frozenset and type(b) is frozenset:
        if a and b:
            cup_check(a, b)
        return a | b
    sa, sb = want_set(a), want_set(b)
    return LazySet(f"({show(sa)} \\cup {show(sb)})", lambda v: member(v, sa) or member(v, sb))


def cap(a: Any, b: Any) -> AnySet:
    if type(a) is frozenset and type(b) is frozenset:
        if a and b:
            cap_check(a, b)
        return a & b
    sa, sb = want_set(a), want_set(b)
    if type(sa) is frozenset:
        return frozenset(v for v in sa if member(v, sb))
    if type(sb) is frozenset:
        return frozenset(v for v in sb if member(v, sa))
    return LazySet(f"({show(sa)} \\cap {show(sb)})", lambda v: member(v, sa) and member(v, sb))


def setminus(a: Any, b: Any) -> AnySet:
    if type(a) is frozenset and type(b) is frozenset:
        if a and b:
            cap_check(a, b)
        return a - b
    sa, sb = want_set(a), want_set(b)
    if type(sa) is frozenset:
        return frozenset(v for v in sa if not member(v, sb))
    return LazySet(f"({show(sa)} \\ {show(sb)})", lambda v: member(v, sa) and not member(v, sb))


def subseteq(a: Any, b: Any) -> bool:
    if type(a) is frozenset and type(b) is frozenset:
        return subseteq_or_fail(a, b)
    sa = enumerate_set(want_set(a), "left side of \\subseteq")
    sb = want_set(b)
    return all(member(v, sb) for v in sa)


def powerset(s: Any) -> AnySet:
    base = want_set(s, "argument of SUBSET")
    if type(base) is LazySet:
        return LazySet(
            f"SUBSET {base.description}",
            lambda v: type(v) is frozenset and all(member(x, base) for x in v),
        )
    finite = enumerate_set(base)
    items = sorted_values(finite)
    if len(items) > 24:
        return LazySet(
            f"SUBSET {show(finite)}", lambda v: type(v) is frozenset and v <= finite
        )
    return frozenset(
        frozenset(c) for r in range(len(items) + 1) for c in itertools.combinations(items, r)
    )


def big_union(s: Any) -> frozenset:
    # a set built of all their elements: sets meeting through a pun fail (``built_set``)
    return built_set([y for x in enumerate_set(want_set(s, "argument of UNION"))
                      for y in enumerate_set(want_set(x, "element of UNION's argument"))])


def times(*sets: Any) -> AnySet:
    ss = [want_set(s, "operand of \\X") for s in sets]
    if all(type(s) is frozenset for s in ss):
        return frozenset(itertools.product(*[enumerate_set(s) for s in ss]))
    n = len(ss)
    return LazySet(
        " \\X ".join(show(s) for s in ss),
        lambda v: type(v) is tuple and len(v) == n and all(member(x, s) for x, s in zip(v, ss, strict=True)),
    )


def cardinality(s: Any) -> int:
    return len(enumerate_set(want_set(s, "argument of Cardinality")))


def is_finite_set(s: Any) -> bool:
    return type(want_set(s, "argument of IsFiniteSet")) is frozenset


# ---------------------------------------------------------------------------
# Arithmetic
# ---------------------------------------------------------------------------


def int_div(a: Any, b: Any) -> int:
    a, b = want_int(a), want_int(b)
    if b == 0:
        raise EvalError("division by zero in \\div")
    return a // b


def int_mod(a: Any, b: Any) -> int:
    a, b = want_int(a), want_int(b)
    if b <= 0:
        raise EvalError(f"the divisor of % must be positive, got {b}")
    return a % b


def power(a: Any, b: Any) -> int:
    a, b = want_int(a), want_int(b)
    if b < 0:
        raise EvalError(f"negative exponent {b} in ^")
    return a**b


def compare(a: Any, b: Any, op: str) -> bool:
    if type(a) is not int or type(b) is not int:
        raise EvalError(f"{op} compares integers, got {show(a)} and {show(b)}")
    if op == "<":
        return a < b
    if op == "<=":
        return a <= b
    if op == ">":
        return a > b
    return a >= b


# ---------------------------------------------------------------------------
# Functions and records
# ---------------------------------------------------------------------------


def apply(f: Any, x: Any) -> Any:
    if type(f) is tuple or type(f) is Fn:
        try:
            return fn_apply(f, x)
        except ApplyError as e:
            raise EvalError(f"function application: {e}") from None
    raise EvalError(f"cannot apply the {type_name(f)} {show(f)} as a function")


def domain(f: Any) -> frozenset:
    return fn_domain(want_fn(f, "argument of DOMAIN"))


def field(r: Any, name: str) -> Any:
    if type(r) is Fn:
        try:
            return r.map[name]
        except KeyError:
            pass
        raise EvalError(f"record {show(r)} has no field {name!r}")
    raise EvalError(f"cannot access field {name!r} of the {type_name(r)} {show(r)}")


def fn_set(dom: Any, rng: Any) -> AnySet:
    d, r = want_set(dom, "domain of [S -> T]"), want_set(rng, "range of [S -> T]")
    if type(d) is frozenset and type(r) is frozenset:
        keys = sorted_values(d)
        if len(r) ** len(keys) <= 1_000_000:
            return frozenset(
                make_fn(dict(zip(keys, combo, strict=True)))
                for combo in itertools.product(sorted_values(r), repeat=len(keys))
            )

    def contains(v: Any) -> bool:
        if type(v) is not tuple and type(v) is not Fn:
            return False
        if type(d) is frozenset:
            if fn_domain(v) != d:
                return False
        elif not all(member(k, d) for k in fn_domain(v)):
            return False
        return all(member(x, r) for _, x in fn_items(v))

    if type(d) is LazySet:
        # a function over an infinite domain is never a value we hold
        return LazySet(f"[{show(d)} -> {show(r)}]", lambda v: False)
    return LazySet(f"[{show(d)} -> {show(r)}]", contains)


def record_set(fields: list[tuple[str, Any]]) -> AnySet:
    names = [n for n, _ in fields]
    sets = [want_set(s, f"set of field {n}") for n, s in fields]
    if all(type(s) is frozenset for s in sets):
        return frozenset(
            make_record(zip(names, combo, strict=True))
            for combo in itertools.product(*[enumerate_set(s) for s in sets])
        )
    keyset = frozenset(names)

    def contains(v: Any) -> bool:
        return (
            type(v) is Fn
            and frozenset(v.map) == keyset
            and all(member(v.map[n], s) for n, s in zip(names, sets, strict=True))
        )

    return LazySet("[" + ", ".join(f"{n} : {show(s)}" for n, s in zip(names, sets, strict=True)) + "]", contains)


def single(k: Any, v: Any) -> Value:
    """``k :> v``."""
    return make_fn({k: v})


def merge(f: Any, g: Any) -> Value:
    """``f @@ g``: f's values win on the common domain."""
    out = dict(fn_items(want_fn(g, "right side of @@")))
    out.update(fn_items(want_fn(f, "left side of @@")))
    return make_fn(out)


# ---------------------------------------------------------------------------
# Sequences
# ---------------------------------------------------------------------------


def seq_set(s: Any) -> LazySet:
    base = want_set(s, "argument of Seq")
    return LazySet(
        f"Seq({show(base)})", lambda v: type(v) is tuple and all(member(x, base) for x in v)
    )


def seq_len(s: Any) -> int:
    if type(s) is str:  # TLC treats strings as sequences of characters here
        return len(s)
    return len(want_seq(s, "argument of Len"))


def append(s: Any, x: Any) -> tuple:
    return (*want_seq(s, "first argument of Append"), x)


def head(s: Any) -> Any:
    seq = want_seq(s, "argument of Head")
    if not seq:
        raise EvalError("Head of the empty sequence")
    return seq[0]


def tail(s: Any) -> tuple:
    seq = want_seq(s, "argument of Tail")
    if not seq:
        raise EvalError("Tail of the empty sequence")
    return seq[1:]


def concat(a: Any, b: Any) -> tuple | str:
    if type(a) is str and type(b) is str:
        return a + b
    return want_seq(a, "left side of \\o") + want_seq(b, "right side of \\o")


def subseq(s: Any, m: Any, n: Any) -> tuple:
    seq = want_seq(s, "first argument of SubSeq")
    m, n = want_int(m), want_int(n)
    if m > n:
        return ()
    if m < 1 or n > len(seq):
        raise EvalError(f"SubSeq({show(seq)}, {m}, {n}): indices outside 1..{len(seq)}")
    return seq[m - 1 : n]


def select_seq(s: Any, test: Op) -> tuple:
    return tuple(x for x in want_seq(s, "first argument of SelectSeq") if want_bool(test(x), "SelectSeq test"))


def sort_seq(s: Any, less: Op) -> tuple:
    import functools

    def cmp(a: Any, b: Any) -> int:
        if want_bool(less(a, b), "SortSeq comparator"):
            return -1
        if want_bool(less(b, a), "SortSeq comparator"):
            return 1
        return 0

    return tuple(sorted(want_seq(s, "first argument of SortSeq"), key=functools.cmp_to_key(cmp)))


# ---------------------------------------------------------------------------
# Bags: functions from elements to positive counts
# ---------------------------------------------------------------------------


def _bag(b: Any, what: str) -> dict[Any, int]:
    f = want_fn(b, what)
    out = {}
    for k, n in fn_items(f):
        if type(n) is not int or n <= 0:
            raise EvalError(f"{what} is not a bag: {show(k)} has count {show(n)}")
        out[k] = n
    return out


def set_to_bag(s: Any) -> Value:
    return make_fn({x: 1 for x in enumerate_set(want_set(s, "argument of SetToBag"))})


def bag_to_set(b: Any) -> frozenset:
    return frozenset(_bag(b, "argument of BagToSet"))


def bag_in(x: Any, b: Any) -> bool:
    return x in _bag(b, "second argument of BagIn")


def copies_in(x: Any, b: Any) -> int:
    return _bag(b, "second argument of CopiesIn").get(x, 0)


def bag_add(a: Any, b: Any) -> Value:
    out = _bag(a, "left side of (+)")
    for k, n in _bag(b, "right side of (+)").items():
        out[k] = out.get(k, 0) + n
    return make_fn(out)


def bag_sub(a: Any, b: Any) -> Value:
    out = _bag(a, "left side of (-)")
    for k, n in _bag(b, "right side of (-)").items():
        if k in out:
            out[k] -= n
    return make_fn({k: n for k, n in out.items() if n > 0})


def bag_cardinality(b: Any) -> int:
    return sum(_bag(b, "argument of BagCardinality").values())


def bag_union(s: Any) -> Value:
    out: dict[Any, int] = {}
    for b in enumerate_set(want_set(s, "argument of BagUnion")):
        for k, n in _bag(b, "element of BagUnion's argument").items():
            out[k] = out.get(k, 0) + n
    return make_fn(out)


def sub_bag_eq(a: Any, b: Any) -> bool:
    ba, bb = _bag(a, "left side of \\sqsubseteq"), _bag(b, "right side of \\sqsubseteq")
    return all(bb.get(k, 0) >= n for k, n in ba.items())


def sub_bag(b: Any) -> frozenset:
    bag = _bag(b, "argument of SubBag")
    keys = sorted_values(bag)
    out = []
    for counts in itertools.product(*(range(bag[k] + 1) for k in keys)):
        out.append(make_fn({k: n for k, n in zip(keys, counts, strict=True) if n > 0}))
    return frozenset(out)


def bag_of_all(f: Op, b: Any) -> Value:
    out: dict[Any, int] = {}
    for k, n in _bag(b, "second argument of BagOfAll").items():
        y = f(k)
        out[y] = out.get(y, 0) + n
    return make_fn(out)


def is_a_bag(b: Any) -> bool:
    if type(b) is not tuple and type(b) is not Fn:
        return False
    return all(type(n) is int and n > 0 for _, n in fn_items(b))


# ---------------------------------------------------------------------------
# TLC
# ---------------------------------------------------------------------------


class Runtime:
    """Per-model side-effect context of the TLC operators: output stream and random source."""

    def __init__(self, seed: int = 0, out: TextIO | None = None) -> None:
        self.random = random.Random(seed)
        self.out = out
        # the figures of a finished search, while its POSTCONDITION is evaluated
        self.stats: dict[str, int] | None = None

    def write(self, text: str) -> None:
        print(text, file=self.out if self.out is not None else sys.stdout)


_STATS_KEYS = ("generated", "distinct", "queue", "diameter", "duration")


def tlc_get(rt: Runtime, key: Any) -> Any:
    """``TLCGet("stats")`` (a record) or one of its fields by name, after a search: only
    a POSTCONDITION sees them (during the search the figures are still changing)."""
    if rt.stats is None:
        raise UnsupportedError("TLCGet is supported only in a POSTCONDITION (the search "
                               "figures exist once the search is over)")
    if key == "stats":
        return make_record([(k, rt.stats[k]) for k in _STATS_KEYS])
    if isinstance(key, str) and key in _STATS_KEYS:
        return rt.stats[key]
    raise UnsupportedError(f"TLCGet({show(key)}) is not supported (only \"stats\" and its "
                           f"fields {', '.join(_STATS_KEYS)})")


def tlc_print(rt: Runtime, out: Any, val: Any) -> Any:
    rt.write(format_value(out))
    return val


def tlc_print_t(rt: Runtime, out: Any) -> bool:
    rt.write(format_value(out))
    return True


def tlc_assert(cond: Any, message: Any) -> bool:
    if want_bool(cond, "first argument of Assert") is not True:
        text = message if type(message) is str else format_value(message)
        raise EvalError(f"Assert failed: {text}")
    return True


def permutations(s: Any) -> frozenset:
    items = sorted_values(enumerate_set(want_set(s, "argument of Permutations")))
    return frozenset(
        make_fn(dict(zip(items, p, strict=True))) for p in itertools.permutations(items)
    )


def to_string(v: Any) -> str:
    return format_value(v)


def java_time() -> int:
    return int(time.time() * 1000) & 0x7FFFFFFF  # as TLC: milliseconds, masked to 31 bits


def random_element(rt: Runtime, s: Any) -> Any:
    items = sorted_values(enumerate_set(want_set(s, "argument of RandomElement")))
    if not items:
        raise EvalError("RandomElement of the empty set")
    return rt.random.choice(items)


def tlc_eval(v: Any) -> Any:
    return v


def any_set() -> LazySet:
    return LazySet("Any", lambda v: True)


# ---------------------------------------------------------------------------
# The table the compiler resolves names against
# ---------------------------------------------------------------------------


@dataclass(frozen=True)
class StdOp:
    """A natively implemented operator.

    ``op_args`` lists the argument positions that take an operator (higher-order);
    ``runtime`` means the implementation takes the model's ``Runtime`` first; ``pure``
    is False when two evaluations may differ (so results are never cached).
    """

    impl: Callable[..., Any]
    arity: int
    op_args: tuple[int, ...] = ()
    runtime: bool = False
    pure: bool = True


def _cmp(op: str) -> Callable[[Any, Any], bool]:
    return lambda a, b: compare(a, b, op)


def _plus(a: Any, b: Any) -> int:
    return want_int(a) + want_int(b)


def _minus(a: Any, b: Any) -> int:
    return want_int(a) - want_int(b)


def _times(a: Any, b: Any) -> int:
    return want_int(a) * want_int(b)


def _neg(a: Any) -> int:
    return -want_int(a)


_NATURALS: dict[str, StdOp] = {
    "Nat": StdOp(lambda: NAT, 0),
    "+": StdOp(_plus, 2),
    "-": StdOp(_minus, 2),
    "*": StdOp(_times, 2),
    "^": StdOp(power, 2),
    "\\div": StdOp(int_div, 2),
    "%": StdOp(int_mod, 2),
    "<": StdOp(_cmp("<"), 2),
    "<=": StdOp(_cmp("<="), 2),
    ">": StdOp(_cmp(">"), 2),
    ">=": StdOp(_cmp(">="), 2),
    "..": StdOp(interval, 2),
}

_INTEGERS: dict[str, StdOp] = {
    **_NATURALS,
    "Int": StdOp(lambda: INT, 0),
    "-.": StdOp(_neg, 1),
}

_SEQUENCES: dict[str, StdOp] = {
    "Seq": StdOp(seq_set, 1),
    "Len": StdOp(seq_len, 1),
    "Append": StdOp(append, 2),
    "Head": StdOp(head, 1),
    "Tail": StdOp(tail, 1),
    "SubSeq": StdOp(subseq, 3),
    "\\o": StdOp(concat, 2),
    "SelectSeq": StdOp(select_seq, 2, op_args=(1,)),
}

_FINITE_SETS: dict[str, StdOp] = {
    "Cardinality": StdOp(cardinality, 1),
    "IsFiniteSet": StdOp(is_finite_set, 1),
}

_TLC: dict[str, StdOp] = {
    ":>": StdOp(single, 2),
    "@@": StdOp(merge, 2),
    "Print": StdOp(tlc_print, 2, runtime=True, pure=False),
    "PrintT": StdOp(tlc_print_t, 1, runtime=True, pure=False),
    "Assert": StdOp(tlc_assert, 2),
    "Permutations": StdOp(permutations, 1),
    "ToString": StdOp(to_string, 1),
    "JavaTime": StdOp(java_time, 0, pure=False),
    "TLCEval": StdOp(tlc_eval, 1),
    "RandomElement": StdOp(random_element, 1, runtime=True, pure=False),
    "SortSeq": StdOp(sort_seq, 2, op_args=(1,)),
    "Any": StdOp(any_set, 0),
    "TLCGet": StdOp(tlc_get, 1, runtime=True, pure=False),
}

_BAGS: dict[str, StdOp] = {
    "EmptyBag": StdOp(lambda: (), 0),
    "IsABag": StdOp(is_a_bag, 1),
    "SetToBag": StdOp(set_to_bag, 1),
    "BagToSet": StdOp(bag_to_set, 1),
    "BagIn": StdOp(bag_in, 2),
    "CopiesIn": StdOp(copies_in, 2),
    "(+)": StdOp(bag_add, 2),
    "\\oplus": StdOp(bag_add, 2),
    "(-)": StdOp(bag_sub, 2),
    "\\ominus": StdOp(bag_sub, 2),
    "BagCardinality": StdOp(bag_cardinality, 1),
    "BagUnion": StdOp(bag_union, 1),
    "SubBag": StdOp(sub_bag, 1),
    "BagOfAll": StdOp(bag_of_all, 2, op_args=(0,)),
    "\\sqsubseteq": StdOp(sub_bag_eq, 2),
}

# ---------------------------------------------------------------------------
# Community modules implemented natively (their operators need Python: model values
# from strings, bit operations, random choices)
# ---------------------------------------------------------------------------


def assert_eq(rt: Runtime, a: Any, b: Any) -> bool:
    """``AssertEq(a, b)``: ``a = b``, printing both values when they differ."""
    if values_equal(a, b):
        return True
    rt.write(f"AssertEq: {format_value(a)} # {format_value(b)}")
    return False


def tlc_model_value(name: Any) -> ModelValue:
    if type(name) is not str:
        raise EvalError(f"TLCModelValue expects a string, got {show(name)}")
    return ModelValue(name)


def _nat(v: Any, what: str) -> int:
    n = want_int(v, what)
    if n < 0:
        raise EvalError(f"{what} must be a natural number, got {n}")
    return n


def bit_and(a: Any, b: Any) -> int:
    return _nat(a, "operand of &") & _nat(b, "operand of &")


def bit_or(a: Any, b: Any) -> int:
    return _nat(a, "operand of |") | _nat(b, "operand of |")


def bit_xor(a: Any, b: Any) -> int:
    return _nat(a, "operand of ^^") ^ _nat(b, "operand of ^^")


def shift_right(n: Any, pos: Any) -> int:
    return _nat(n, "first argument of shiftR") >> _nat(pos, "second argument of shiftR")


def random_subset(rt: Runtime, k: Any, s: Any) -> frozenset:
    """``RandomSubset(k, S)``: a random subset of ``S`` with ``k`` elements."""
    items = sorted_values(enumerate_set(want_set(s, "argument of RandomSubset")))
    n = _nat(k, "first argument of RandomSubset")
    if n > len(items):
        raise EvalError(f"RandomSubset: {n} elements asked of a set of {len(items)}")
    return frozenset(rt.random.sample(items, n))


def random_set_of_subsets(rt: Runtime, k: Any, n: Any, s: Any) -> frozenset:
    """``RandomSetOfSubsets(k, n, S)``: ``k`` random subsets of ``S`` (fewer when two
    coincide), each element in each with probability ``n / Cardinality(S)``."""
    items = sorted_values(enumerate_set(want_set(s, "argument of RandomSetOfSubsets")))
    count, mean = _nat(k, "first argument"), _nat(n, "second argument")
    if items and mean > len(items):
        raise EvalError(f"RandomSetOfSubsets: {mean} elements on average asked of a set of "
                        f"{len(items)}")
    p = mean / len(items) if items else 0.0
    return frozenset(frozenset(x for x in items if rt.random.random() < p) for _ in range(count))


_TLCEXT: dict[str, StdOp] = {
    "AssertEq": StdOp(assert_eq, 2, runtime=True, pure=False),
    "TLCModelValue": StdOp(tlc_model_value, 1),
    "TLCNoOp": StdOp(lambda v: v, 1),
    "TLCCache": StdOp(lambda v, closure: v, 2),
}

_BITWISE: dict[str, StdOp] = {
    "&": StdOp(bit_and, 2),
    "|": StdOp(bit_or, 2),
    "^^": StdOp(bit_xor, 2),
    "shiftR": StdOp(shift_right, 2),
}

_RANDOMIZATION: dict[str, StdOp] = {
    "RandomSubset": StdOp(random_subset, 2, runtime=True, pure=False),
    "RandomSetOfSubsets": StdOp(random_set_of_subsets, 3, runtime=True, pure=False),
}

# ---------------------------------------------------------------------------
# Json (the community module; TLC implements it natively, with gson)
# ---------------------------------------------------------------------------
# TLC writes JSON compactly (no spaces), escapes strings as gson does, writes a set as the
# array of its elements in TLC's order, a sequence (a function over 1..n) as an array, a
# record or other function as an object keyed by its domain (a string as itself, any
# other value as TLC prints it), a model value as the string of its name. A file name is
# resolved as java.io.File resolves it: from the working directory.

_JSON_ESCAPES = {'"': '\\"', "\\": "\\\\", "\t": "\\t", "\b": "\\b", "\n": "\\n", "\r": "\\r",
                 "\f": "\\f", "\u2028": "\\u2028", "\u2029": "\\u2029"}


def _json_string(s: str) -> str:
    out = []
    for ch in s:
        esc = _JSON_ESCAPES.get(ch)
        if esc is None and ch < " ":
            esc = f"\\u{ord(ch):04x}"
        out.append(esc if esc is not None else ch)
    return '"' + "".join(out) + '"'


def _json_array(items: Iterable[Any]) -> str:
    return "[" + ",".join(_json(x) for x in items) + "]"


def _json_object(f: Fn) -> str:
    fields: dict[str, str] = {}
    for k, x in sorted(f.map.items(), key=lambda kv: sort_key(kv[0])):
        fields[k if type(k) is str else format_value(k)] = _json(x)
    return "{" + ",".join(f"{_json_string(k)}:{x}" for k, x in fields.items()) + "}"


def _json(v: Any) -> str:
    t = type(v)
    if t is bool:
        return "true" if v else "false"
    if t is int:
        return str(v)
    if t is str:
        return _json_string(v)
    if t is ModelValue:
        return _json_string(v.name)
    if t is tuple:
        return _json_array(v)
    if t is Fn:
        return _json_object(v)
    if t is frozenset or t is LazySet:
        return _json_array(sorted_values(enumerate_set(v)))
    raise EvalError(f"cannot convert the {type_name(v)} {show(v)} to JSON")


def to_json(v: Any) -> str:
    """``ToJson(v)``."""
    return _json(v)


def to_json_array(v: Any) -> str:
    """``ToJsonArray(v)``: a sequence or a set as an array. TLC writes a function that is
    not a sequence as an object, but refuses a record: the two are one value here."""
    if type(v) is Fn:
        if all(type(k) is str for k in v.map):
            raise UnsupportedError(
                f"ToJsonArray of the record {show(v)}: TLC refuses a record built as one and "
                "writes an object for a function with string arguments, which are the same value")
        return _json_object(v)
    if type(v) is tuple or type(v) is frozenset or type(v) is LazySet:
        return _json(v)
    raise EvalError(f"ToJsonArray cannot convert the {type_name(v)} {show(v)} to a JSON array")


def to_json_object(v: Any) -> str:
    """``ToJsonObject(v)``: a record or function as an object. TLC writes a sequence built
    as a tuple with keys from "0" but one built as a function as an array, which are the
    same value here: refused."""
    if type(v) is tuple:
        raise UnsupportedError(
            f"ToJsonObject of the sequence {show(v)}: TLC writes an object keyed from \"0\" for a "
            "tuple and an array for a function over 1..n, which are the same value")
    if type(v) is Fn:
        return _json_object(v)
    raise EvalError(f"ToJsonObject cannot convert the {type_name(v)} {show(v)} to a JSON object")


def _json_path(path: Any, op: str) -> Path:
    if type(path) is not str:
        raise EvalError(f"the first argument of {op} must be a string (a file name), got {show(path)}")
    return Path(path)


def _json_name(path: Path) -> str:
    """The file as given, and where a relative name led (the working directory)."""
    return repr(str(path)) if path.is_absolute() else f"{str(path)!r} ({path.absolute()})"


def _json_sequence(v: Any, op: str) -> tuple:
    if type(v) is not tuple:
        raise EvalError(f"The second argument of {op} should be a sequence, but instead it is:\n"
                        f"{show(v)}")
    return v


def _json_write(path: Path, text: str, op: str) -> bool:
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    except OSError as e:
        raise EvalError(f"{op}: cannot write the file {_json_name(path)}: {e.strerror or e}") from None
    return True


def json_serialize(path: Any, v: Any) -> bool:
    """``JsonSerialize(file, seq)``: the sequence as one JSON array, an element a line."""
    p, items = _json_path(path, "JsonSerialize"), _json_sequence(v, "JsonSerialize")
    return _json_write(p, "[\n" + ",\n".join(_json(x) for x in items) + "\n]\n", "JsonSerialize")


def nd_json_serialize(path: Any, v: Any) -> bool:
    """``ndJsonSerialize(file, seq)``: each element of the sequence as JSON on its line."""
    p, items = _json_path(path, "ndJsonSerialize"), _json_sequence(v, "ndJsonSerialize")
    return _json_write(p, "".join(_json(x) + "\n" for x in items), "ndJsonSerialize")


def _java_int(text: str) -> int:
    """A JSON number as TLC reads it (gson's ``getAsInt``): a fraction truncated towards
    zero, then the low 32 bits as a signed integer."""
    try:
        n = int(text) if text.lstrip("-").isdigit() else int(Decimal(text))
    except (ValueError, InvalidOperation, OverflowError):
        raise ValueError(f"the number {text} has no integer value") from None
    return (n + 2**31) % 2**32 - 2**31


def _json_refuse_constant(name: str) -> Any:
    raise ValueError(f"{name} is not a JSON number")


def _json_value(x: Any) -> Any:
    """A parsed JSON value as TLC builds it: arrays are tuples, objects records."""
    if x is None:
        raise ValueError("null has no TLA+ value")
    if isinstance(x, list):
        return tuple(_json_value(e) for e in x)
    if isinstance(x, dict):
        return make_fn({k: _json_value(e) for k, e in x.items()})
    return x  # bool, int (numbers are read by _java_int) or str


def _json_parse(text: str) -> Any:
    return _json_value(json.loads(text, parse_int=_java_int, parse_float=_java_int,
                                  parse_constant=_json_refuse_constant))


def _json_read(path: Path, op: str) -> str:
    try:
        return path.read_text(encoding="utf-8")
    except OSError as e:
        raise EvalError(f"{op}: cannot read the file {_json_name(path)}: {e.strerror or e}") from None
    except UnicodeDecodeError as e:
        raise EvalError(f"{op}: the file {_json_name(path)} is not UTF-8 text: {e.reason}") from None


def json_deserialize(path: Any) -> Any:
    """``JsonDeserialize(file)``: the one JSON value the file holds."""
    p = _json_path(path, "JsonDeserialize")
    text = _json_read(p, "JsonDeserialize")
    if not text.strip():
        raise EvalError(f"JsonDeserialize: the file {_json_name(p)} holds no JSON value")
    try:
        return _json_parse(text)
    except json.JSONDecodeError as e:
        raise EvalError(f"JsonDeserialize: the file {_json_name(p)} is not JSON: {e.msg} "
                        f"(line {e.lineno}, column {e.colno})") from None
    except ValueError as e:
        raise EvalError(f"JsonDeserialize: the file {_json_name(p)}: {e}") from None


def nd_json_deserialize(path: Any) -> tuple:
    """``ndJsonDeserialize(file)``: the JSON value of each non-blank line, as a sequence."""
    p = _json_path(path, "ndJsonDeserialize")
    values = []
    for n, line in enumerate(_json_read(p, "ndJsonDeserialize").split("\n"), 1):
        line = line.strip("".join(chr(c) for c in range(33)))  # Java's String.trim
        if not line:
            continue
        try:
            values.append(_json_parse(line))
        except json.JSONDecodeError as e:
            raise EvalError(f"ndJsonDeserialize: the file {_json_name(p)}, line {n}, is not JSON: {e.msg} "
                            f"(column {e.colno})") from None
        except ValueError as e:
            raise EvalError(f"ndJsonDeserialize: the file {_json_name(p)}, line {n}: {e}") from None
    return tuple(values)


_JSON: dict[str, StdOp] = {
    "ToJson": StdOp(to_json, 1),
    "ToJsonArray": StdOp(to_json_array, 1),
    "ToJsonObject": StdOp(to_json_object, 1),
    "JsonSerialize": StdOp(json_serialize, 2, pure=False),
    "JsonDeserialize": StdOp(json_deserialize, 1, pure=False),
    "ndJsonSerialize": StdOp(nd_json_serialize, 2, pure=False),
    "ndJsonDeserialize": StdOp(nd_json_deserialize, 1, pure=False),
}

# ---------------------------------------------------------------------------
# Java's String.format, as the CSV and IOUtils operators use it (every argument a string)
# ---------------------------------------------------------------------------
# A format specifier is %[index$][flags][width][.precision]conversion. With string
# arguments Java formats %s and %S (upper case), %b and %B ("true": the argument is not
# null), and %% and %n (the line separator); each other conversion throws. An index n$
# names the n-th argument, < the previous one's, none the next of the unnamed ones.

_JAVA_SPEC = re.compile(r"%(\d+\$|<)?([-#+ 0,(]*)(\d+)?(\.\d+)?([tT]?[a-zA-Z%])")


def java_format(template: str, args: list[str], op: str) -> str:
    """``String.format(template, args)`` for string arguments."""
    out: list[str] = []
    pos, ordinary, last = 0, 0, -1
    for m in _JAVA_SPEC.finditer(template):
        if template.find("%", pos, m.start()) >= 0:
            break  # a % before this match that begins no specifier: reported below
        out.append(template[pos:m.start()])
        pos = m.end()
        index, flags, width, precision, conv = m.groups()
        text: str
        if conv == "n" and not (index or flags or width or precision):
            text = os.linesep
        elif conv == "%" and not (index or precision or set(flags) - {"-"}):
            text = "%"
        elif conv in ("n", "%"):
            raise EvalError(f"{op}: the format specifier {m.group()!r} of {template!r} is not "
                            "one Java accepts")
        elif conv in ("s", "S", "b", "B"):
            if set(flags) - {"-"}:
                raise EvalError(f"{op}: the flags {flags!r} of {m.group()!r} in {template!r} do not "
                                "apply to a string")
            if index == "<":
                i = last
            elif index:
                i = int(index[:-1]) - 1
            else:
                i, ordinary = ordinary, ordinary + 1
            if not 0 <= i < len(args):
                raise EvalError(f"{op}: the format {template!r} has no argument for {m.group()!r} "
                                f"(it has {len(args)})")
            last = i
            text = args[i] if conv in "sS" else "true"
            if precision:
                text = text[:int(precision[1:])]
            if conv in "SB":
                text = text.upper()
        elif conv in ("h", "H"):
            raise UnsupportedError(f"{op}: the format {m.group()!r} (a Java hash code) is not "
                                   "provided")
        else:
            raise EvalError(f"{op}: the format specifier {m.group()!r} of {template!r} cannot "
                            "format a string")
        if "-" in flags and not width:
            raise EvalError(f"{op}: the format specifier {m.group()!r} of {template!r} has the "
                            "flag '-' and no width")
        if width and conv != "n":
            text = text.ljust(int(width)) if "-" in flags else text.rjust(int(width))
        out.append(text)
    rest = template[pos:]
    if "%" in rest:
        bad = rest[rest.index("%"):][:2]
        raise EvalError(f"{op}: the format {template!r} has the unknown format specifier {bad!r}")
    out.append(rest)
    return "".join(out)


def _want_str(v: Any, what: str, op: str) -> str:
    if type(v) is not str:
        raise EvalError(f"{op}: the {what} must be a string, got the {type_name(v)} {show(v)}")
    return v


def _want_seq(v: Any, what: str, op: str) -> tuple:
    if type(v) is not tuple:
        raise EvalError(f"{op}: the {what} must be a sequence, got the {type_name(v)} {show(v)}")
    return v


# ---------------------------------------------------------------------------
# CSV (the community module; TLC implements it natively)
# ---------------------------------------------------------------------------
# CSVWrite fills the template with the elements of the sequence as TLC prints them
# (a string with its quotes) and appends the line, with the line separator, to the file
# (created if missing, its folder not). CSVRead splits each line of the file at the
# delimiter, a Java regular expression (as String.split: trailing empty fields dropped),
# into a record with the given field names, every field a string; CSVRecords counts the
# lines. A missing file holds no records. A file name is resolved from the working
# directory, as java.io.File resolves it.


def _lines(path: Path, op: str) -> list[str]:
    """The lines of a UTF-8 file as Java's ``readAllLines`` splits them."""
    try:
        text = path.read_bytes().decode("utf-8")
    except OSError as e:
        raise EvalError(f"{op}: cannot read the file {_json_name(path)}: {e.strerror or e}") from None
    except UnicodeDecodeError as e:
        raise EvalError(f"{op}: the file {_json_name(path)} is not UTF-8 text: {e.reason}") from None
    lines = re.split(r"\r\n|\r|\n", text)
    if lines[-1] == "":
        lines.pop()
    return lines


def java_split(line: str, pattern: re.Pattern[str]) -> list[str]:
    """Java's ``line.split(regex)``: no empty first field for a match of nothing at the
    start, trailing empty fields dropped, the whole line when nothing matches."""
    fields, start = [], 0
    for m in pattern.finditer(line):
        if m.end() == 0:
            continue
        fields.append(line[start:m.start()])
        start = m.end()
    if not fields:
        return [line]
    fields.append(line[start:])
    while fields and fields[-1] == "":
        fields.pop()
    return fields


def csv_write(template: Any, val: Any, file: Any) -> bool:
    """``CSVWrite(template, val, file)``."""
    t = _want_str(template, "template (first argument)", "CSVWrite")
    items = _want_seq(val, "second argument", "CSVWrite")
    p = Path(_want_str(file, "file name (third argument)", "CSVWrite"))
    line = java_format(t, [format_value(x) for x in items], "CSVWrite") + os.linesep
    try:
        with p.open("ab") as f:
            f.write(line.encode("utf-8"))
    except OSError as e:
        raise EvalError(f"CSVWrite: cannot write the file {_json_name(p)}: {e.strerror or e}") from None
    return True


def csv_read(columns: Any, delimiter: Any, file: Any) -> tuple:
    """``CSVRead(columns, delimiter, file)``."""
    names = _want_seq(columns, "columns (first argument)", "CSVRead")
    for n in names:
        _want_str(n, "column name", "CSVRead")
    if len(set(names)) != len(names):
        raise EvalError(f"CSVRead: the columns {show(names)} name a field twice")
    delim = _want_str(delimiter, "delimiter (second argument)", "CSVRead")
    p = Path(_want_str(file, "file name (third argument)", "CSVRead"))
    if not p.exists():
        return ()
    try:
        pattern = re.compile(delim)
    except re.error as e:
        raise EvalError(f"CSVRead: the delimiter {delim!r} is not a regular expression: {e}") from None
    records = []
    for i, line in enumerate(_lines(p, "CSVRead"), 1):
        fields = java_split(line, pattern)
        if len(fields) != len(names):
            raise EvalError(f"CSVRead: line {i} of the file {_json_name(p)} has {len(fields)} "
                            f"field(s) for the {len(names)} column(s) {show(names)}")
        records.append(make_record(zip(names, fields, strict=True)))
    return tuple(records)


def csv_records(file: Any) -> int:
    """``CSVRecords(file)``: the number of lines of the file, 0 if it does not exist."""
    p = Path(_want_str(file, "file name", "CSVRecords"))
    if not p.exists():
        return 0
    return len(_lines(p, "CSVRecords"))


def _csv_write_record(*_: Any) -> Any:
    raise UnsupportedError("CSVWriteRecord is not provided: the TLC implementation we could "
                           "check defines no override for it")


_CSV: dict[str, StdOp] = {
    "CSVWrite": StdOp(csv_write, 3, pure=False),
    "CSVRead": StdOp(csv_read, 3, pure=False),
    "CSVRecords": StdOp(csv_records, 1, pure=False),
    "CSVWriteRecord": StdOp(_csv_write_record, 4, pure=False),
}

# ---------------------------------------------------------------------------
# IOUtils (the community module; TLC implements it natively)
# ---------------------------------------------------------------------------
# A command is a sequence of strings, the program and its arguments, run without a
# shell and without quoting; its answer is [exitValue |-> n, stdout |-> s, stderr |-> s]
# (a process ended by signal k exits with 128 + k, as Java reports it). Its environment
# is the engine's, with the given record's fields added (a value other than a string as
# TLC prints it). IOEnv is the record of the environment variables, read at each call.
# Serialize and Deserialize with [ser |-> "TXT", ...] write and read text, answering a
# record as a command does (exitValue 1 and the reason in stderr when it fails); the
# other serializers and IOSerialize/IODeserialize (Java's binary serialization of TLC's
# values) are not provided.


def _exec_result(exit_value: int, stdout: str, stderr: str) -> Fn:
    return make_record([("exitValue", exit_value), ("stdout", stdout), ("stderr", stderr)])


def _strings(v: Any, what: str, op: str) -> list[str]:
    items = _want_seq(v, what, op)
    for x in items:
        _want_str(x, f"element {show(x)} of the {what}", op)
    return list(items)


def _exec_env(env: Any, op: str) -> dict[str, str]:
    if env == ():
        return {}
    if type(env) is not Fn or not all(type(k) is str for k in env.map):
        raise EvalError(f"{op}: the environment (first argument) must be a record, got the "
                        f"{type_name(env)} {show(env)}")
    return {k: x if type(x) is str else format_value(x) for k, x in env.map.items()}


def _run(command: list[str], env: dict[str, str] | None, op: str) -> Fn:
    if not command:
        raise EvalError(f"{op}: the command is empty")
    try:
        done = subprocess.run(command, capture_output=True, stdin=subprocess.DEVNULL,
                              env=None if env is None else {**os.environ, **env}, check=False)
    except OSError as e:
        raise EvalError(f"{op}: cannot run the command {show(tuple(command))}: "
                        f"{e.strerror or e}") from None
    code = done.returncode if done.returncode >= 0 else 128 - done.returncode
    return _exec_result(code, done.stdout.decode("utf-8", errors="replace"),
                        done.stderr.decode("utf-8", errors="replace"))


def io_exec(command: Any) -> Fn:
    """``IOExec(command)``."""
    return _run(_strings(command, "command", "IOExec"), None, "IOExec")


def io_env_exec(env: Any, command: Any) -> Fn:
    """``IOEnvExec(env, command)``."""
    e = _exec_env(env, "IOEnvExec")
    return _run(_strings(command, "command", "IOEnvExec"), e, "IOEnvExec")


def _template(template: Any, parameters: Any, op: str) -> list[str]:
    parts = _strings(template, "command template", op)
    params = _strings(parameters, "parameters", op)
    return [java_format(part, params, op) for part in parts]


def io_exec_template(template: Any, parameters: Any) -> Fn:
    """``IOExecTemplate(commandTemplate, parameters)``: each part of the command filled
    with the parameters by Java's String.format."""
    return _run(_template(template, parameters, "IOExecTemplate"), None, "IOExecTemplate")


def io_env_exec_template(env: Any, template: Any, parameters: Any) -> Fn:
    """``IOEnvExecTemplate(env, commandTemplate, parameters)``."""
    e = _exec_env(env, "IOEnvExecTemplate")
    return _run(_template(template, parameters, "IOEnvExecTemplate"), e, "IOEnvExecTemplate")


def io_env() -> Value:
    """``IOEnv``: the environment variables as a record."""
    return make_fn(dict(os.environ))


def atoi(v: Any) -> int:
    """``atoi(s)``: Java's Integer.parseInt (a sign, decimal digits, 32 bits)."""
    if type(v) is str:
        digits = v[1:] if v[:1] in ("+", "-") else v
        if digits and all(c.isdecimal() for c in digits):
            n = int(v)
            if -2**31 <= n < 2**31:
                return n
    raise EvalError(f"atoi: the argument must be a string of a 32-bit integer, got the "
                    f"{type_name(v)} {show(v)}")


def zero_pad_n(n: Any, width: Any) -> str:
    """``zeroPadN(n, width)``: ToString(n) with zeros before it up to the width."""
    s = format_value(n)
    return "0" * max(0, want_int(width, "second argument of zeroPadN") - len(s)) + s


# Java charset names (and the aliases Java knows) for the text serializer
_CHARSETS = {"UTF-8": "utf-8", "UTF8": "utf-8", "US-ASCII": "ascii", "ASCII": "ascii",
             "ISO-8859-1": "latin-1", "ISO8859_1": "latin-1", "LATIN1": "latin-1",
             "UTF-16": "utf-16", "UTF-16BE": "utf-16-be", "UTF-16LE": "utf-16-le"}

_OPEN_OPTIONS = ("READ", "WRITE", "APPEND", "TRUNCATE_EXISTING", "CREATE", "CREATE_NEW",
                 "DELETE_ON_CLOSE", "SPARSE", "SYNC", "DSYNC")


class _JavaFailure(Exception):
    """What a Java exception's toString would say."""


def _java_io_error(e: OSError, path: str) -> _JavaFailure:
    kind = {errno.ENOENT: "NoSuchFileException", errno.EEXIST: "FileAlreadyExistsException",
            errno.EACCES: "AccessDeniedException", errno.EPERM: "AccessDeniedException"}.get(
        e.errno or 0)
    if kind:
        return _JavaFailure(f"java.nio.file.{kind}: {path}")
    return _JavaFailure(f"java.nio.file.FileSystemException: {path}: {e.strerror}")


def _charset(options: Fn, op: str) -> str:
    name = options.map.get("charset")
    if type(name) is not str:
        raise _JavaFailure(f"the option charset must be a string, got {show(name)}")
    codec = _CHARSETS.get(name.upper())
    if codec is None:
        raise UnsupportedError(f"{op}: the charset {name!r} is not provided (only "
                               f"{', '.join(sorted(_CHARSETS))})")
    return codec


def _serializer(options: Any, op: str) -> str:
    if type(options) is not Fn or not all(type(k) is str for k in options.map):
        raise _JavaFailure(f"the options must be a record, got the {type_name(options)} {show(options)}")
    ser = options.map.get("ser")
    if type(ser) is not str:
        raise EvalError(f"{op}: the options {show(options)} name no serializer (a string field ser)")
    if ser != "TXT":
        raise UnsupportedError(f"{op}: the serializer {ser!r} is not provided (only \"TXT\")")
    return ser


def _txt_args(payload: Any, dest: Any, options: Fn) -> tuple[str, str, tuple, str]:
    """The payload, file, open options and codec of a TXT write."""
    if type(payload) is not str or type(dest) is not str:
        bad = payload if type(payload) is not str else dest
        raise _JavaFailure(f"the payload and the file must be strings, got {show(bad)}")
    opts = options.map.get("openOptions")
    if type(opts) is not tuple or not all(type(o) is str for o in opts):
        raise _JavaFailure(f"the option openOptions must be a sequence of strings, got {show(opts)}")
    return payload, dest, opts, _charset(options, "Serialize")


def _encode(text: str, codec: str) -> bytes:
    if codec == "utf-16":
        return b"\xfe\xff" + text.encode("utf-16-be")  # Java writes a big-endian mark
    try:
        return text.encode(codec)
    except UnicodeEncodeError:
        raise _JavaFailure("java.nio.charset.UnmappableCharacterException: Input length = 1") from None


def _write_with_options(payload: str, dest: str, given: tuple, codec: str) -> None:
    for o in given:
        if o not in _OPEN_OPTIONS:
            raise _JavaFailure("java.lang.IllegalArgumentException: No enum constant "
                               f"java.nio.file.StandardOpenOption.{o}")
    opts = set(given) or {"CREATE", "TRUNCATE_EXISTING", "WRITE"}
    if "READ" in opts:
        raise _JavaFailure("java.lang.IllegalArgumentException: READ not allowed")
    if {"APPEND", "TRUNCATE_EXISTING"} <= opts:
        raise _JavaFailure("java.lang.IllegalArgumentException: APPEND + TRUNCATE_EXISTING not allowed")
    data = _encode(payload, codec)
    flags = os.O_WRONLY
    if "CREATE_NEW" in opts:
        flags |= os.O_CREAT | os.O_EXCL
    elif "CREATE" in opts:
        flags |= os.O_CREAT
    if "TRUNCATE_EXISTING" in opts:
        flags |= os.O_TRUNC
    if "APPEND" in opts:
        flags |= os.O_APPEND
    try:
        fd = os.open(dest, flags, 0o666)
        with os.fdopen(fd, "wb") as f:
            f.write(data)
        if "DELETE_ON_CLOSE" in opts:
            os.unlink(dest)
    except OSError as e:
        raise _java_io_error(e, dest) from None


def serialize(value: Any, dest: Any, options: Any) -> Fn:
    """``Serialize(value, dest, options)`` with the TXT serializer."""
    try:
        _serializer(options, "Serialize")
        args = _txt_args(value, dest, options)
    except _JavaFailure as e:
        return _exec_result(1, "", f"Serialize error invalid parameters: {e}")
    try:
        _write_with_options(*args)
    except _JavaFailure as e:
        return _exec_result(1, "", f"Serialize error writting to the file: {e}")
    return _exec_result(0, "Finish writting to the file with success!", "")


def _decode(data: bytes, codec: str) -> str:
    if codec == "utf-16" and data[:2] not in (b"\xfe\xff", b"\xff\xfe"):
        codec = "utf-16-be"  # Java reads a text without a mark as big-endian
    try:
        return data.decode(codec)
    except UnicodeDecodeError:
        raise _JavaFailure("java.nio.charset.MalformedInputException: Input length = 1") from None


def deserialize(src: Any, options: Any) -> Fn:
    """``Deserialize(src, options)`` with the TXT serializer."""
    try:
        _serializer(options, "Deserialize")
        if type(src) is not str:
            raise _JavaFailure(f"the file must be a string, got {show(src)}")
        codec = _charset(options, "Deserialize")
    except _JavaFailure as e:
        return _exec_result(1, "", f"Deserialize error invalid parameters: {e}")
    try:
        try:
            data = Path(src).read_bytes()
        except OSError as e:
            raise _java_io_error(e, src) from None
        text = _decode(data, codec)
    except _JavaFailure as e:
        return _exec_result(1, "", f"Deserialize error reading from the file: {e}")
    return _exec_result(0, text, "")


def _io_binary(op: str) -> Callable[..., Any]:
    def refuse(*_: Any) -> Any:
        raise UnsupportedError(f"{op} is not provided: TLC writes Java's binary serialization "
                               "of its values, which the engine does not reproduce")
    return refuse


_IOUTILS: dict[str, StdOp] = {
    "IOExec": StdOp(io_exec, 1, pure=False),
    "IOEnvExec": StdOp(io_env_exec, 2, pure=False),
    "IOExecTemplate": StdOp(io_exec_template, 2, pure=False),
    "IOEnvExecTemplate": StdOp(io_env_exec_template, 3, pure=False),
    "IOEnv": StdOp(io_env, 0, pure=False),
    "atoi": StdOp(atoi, 1),
    "zeroPadN": StdOp(zero_pad_n, 2),
    "Serialize": StdOp(serialize, 3, pure=False),
    "Deserialize": StdOp(deserialize, 2, pure=False),
    "IOSerialize": StdOp(_io_binary("IOSerialize"), 3, pure=False),
    "IODeserialize": StdOp(_io_binary("IODeserialize"), 2, pure=False),
}

STANDARD: dict[str, dict[str, StdOp]] = {
    "Naturals": _NATURALS,
    "Integers": _INTEGERS,
    "Sequences": _SEQUENCES,
    "FiniteSets": _FINITE_SETS,
    "TLC": _TLC,
    "Bags": _BAGS,
    "TLCExt": _TLCEXT,
    "Bitwise": _BITWISE,
    "Randomization": _RANDOMIZATION,
    "Json": _JSON,
    "CSV": _CSV,
    "IOUtils": _IOUTILS,
}
"""Operators of each standard module, by name."""

# Modules that a standard module itself extends (their operators come along).
STANDARD_EXTENDS: dict[str, tuple[str, ...]] = {
    "Naturals": (),
    "Integers": ("Naturals",),
    "Sequences": ("Naturals",),
    "FiniteSets": ("Naturals", "Sequences"),
    "TLC": ("Naturals", "Sequences", "FiniteSets"),
    "Bags": ("Naturals", "FiniteSets", "TLC"),
    "TLCExt": ("TLC", "Naturals", "Sequences"),
    "Bitwise": ("Naturals",),
    "Randomization": ("Naturals", "FiniteSets"),
    "Json": (),
    "CSV": (),
    "IOUtils": (),
}


def standard_closure(names: Iterable[str]) -> frozenset[str]:
    """The standard modules visible after extending ``names`` (transitively)."""
    seen: set[str] = set()
    todo = [n for n in names if n in STANDARD]
    while todo:
        n = todo.pop()
        if n not in seen:
            seen.add(n)
            todo.extend(STANDARD_EXTENDS[n])
    return frozenset(seen)


def iter_sorted(s: frozenset) -> Iterator[Any]:
    """Elements in the engine's deterministic order."""
    return iter(sorted(s, key=sort_key))


__all__ = [
    "BOOLEAN",
    "INT",
    "NAT",
    "STANDARD",
    "STRING",
    "LazySet",
    "ModelValue",
    "Runtime",
    "StdOp",
]
