"""Native implementations of the standard modules and of TLA+'s built-in operators.

Everything here works on runtime values (see ``values.py``) and raises ``EvalError`` or
``UnsupportedError`` *without* a location; the compiler attaches the location of the
expression being evaluated. Infinite sets (``Nat``, ``Int``, ``STRING``, ``Seq(S)``,
``[Nat -> S]`` ...) are ``LazySet`` objects: membership works, enumeration is an
``UnsupportedError``.
"""

from __future__ import annotations

import itertools
import random
import sys
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
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


def want_str(v: Any, what: str = "operand") -> str:
    if type(v) is not str:
        raise EvalError(f"{what} must be a string, got the {type_name(v)} {show(v)}")
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


def big_union(s: Any) -> AnySet:
    # a set built of all their elements: sets meeting through a pun fail (``built_set``);
    # with an infinite element, a set known by its membership test, as TLC's UnionValue
    # (its member asks each element in turn and enumerates nothing infinite)
    parts = [want_set(x, "element of UNION's argument") for x in enumerate_set(want_set(s, "argument of UNION"))]
    finite = [x for x in parts if isinstance(x, frozenset)]
    if len(finite) == len(parts):
        return built_set([y for x in finite for y in x])
    return LazySet(f"UNION {show(s)}", lambda v: any(member(v, x) for x in parts))


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
    """Per-model side-effect context of the TLC operators: output stream, random source, and
    what ``TLCGet`` reads of the search (its figures; the level of the states evaluated)."""

    def __init__(self, seed: int = 0, out: TextIO | None = None) -> None:
        self.random = random.Random(seed)
        self.out = out
        # the figures of a finished search, while its POSTCONDITION is evaluated
        self.stats: dict[str, int] | None = None
        # TLCGet("level"), as TLC counts it (an initial state is at level 1): while a state
        # is expanded, ``current`` is that state and ``level`` its level; any other state
        # read then (a successor, its partly built next state: always another object, a
        # stuttering step's too) is one level further. ``level`` None: not known here.
        self.level: int | None = None
        self.current: Any = None
        # TLCGet("config"): the settings of the run (a record), when a command gave them
        self.config: Any = None

    def write(self, text: str) -> None:
        print(text, file=self.out if self.out is not None else sys.stdout)

    def expanding(self, state: Any, level: int | None) -> None:
        """The states read from now on are ``state``, at ``level``, and its successors (all
        successors when ``state`` is None); a level None: unknown (TLCGet refuses it)."""
        self.current = state
        self.level = level

    def level_of(self, state: Any) -> int:
        """``TLCGet("level")`` read in ``state``."""
        level = self.level
        if level is None:
            raise UnsupportedError('TLCGet("level") is supported in the behaviour spec, its '
                                   'CONSTRAINTs, invariants, action properties and ALIAS '
                                   '(not in temporal properties, nor in trace validation)')
        return level if state is self.current else level + 1


_STATS_KEYS = ("generated", "distinct", "queue", "diameter", "duration")


def tlc_get(rt: Runtime, state: Any, key: Any) -> Any:
    """``TLCGet("level")``, read in ``state``; ``TLCGet("stats")`` (a record) or one of its
    fields by name, after a search: only a POSTCONDITION sees them (during the search the
    figures are still changing)."""
    if key == "level":
        return rt.level_of(state)
    if key == "config":
        if rt.config is None:
            raise UnsupportedError('TLCGet("config") is known in model checking and simulation '
                                   '(kraftcheck check) only')
        return rt.config
    if key == "stats" or (isinstance(key, str) and key in _STATS_KEYS):
        if rt.stats is None:
            raise UnsupportedError(f"TLCGet({show(key)}) is supported only in a POSTCONDITION "
                                   "(the search figures exist once the search is over)")
        if key == "stats":
            return make_record([(k, rt.stats[k]) for k in _STATS_KEYS])
        return rt.stats[key]
    raise UnsupportedError(f"TLCGet({show(key)}) is not supported (only \"level\", \"config\", "
                           f"\"stats\" and its fields {', '.join(_STATS_KEYS)})")


def _not_evaluated(module: str, name: str) -> Any:
    """An operator of TLC's that is refused where it is evaluated: a spec that names it where
    TLC never evaluates it (a disjunct after one that holds) is checked."""
    raise UnsupportedError(f"{module}'s {name} is not supported")


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
    ``runtime`` means the implementation takes the model's ``Runtime`` first (and, with
    ``state``, the state it is read in next); ``pure`` is False when two evaluations may
    differ (so results are never cached).
    """

    impl: Callable[..., Any]
    arity: int
    op_args: tuple[int, ...] = ()
    runtime: bool = False
    pure: bool = True
    state: bool = False


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
    "TLCGet": StdOp(tlc_get, 1, runtime=True, pure=False, state=True),
    "TLCSet": StdOp(lambda *_: _not_evaluated("TLC", "TLCSet"), 2, pure=False),
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
    "Trace": StdOp(lambda: _not_evaluated("TLCExt", "Trace"), 0, pure=False),
    "CounterExample": StdOp(lambda: _not_evaluated("TLCExt", "CounterExample"), 0, pure=False),
    "TLCDefer": StdOp(lambda _: _not_evaluated("TLCExt", "TLCDefer"), 1, pure=False),
    "PickSuccessor": StdOp(lambda _: _not_evaluated("TLCExt", "PickSuccessor"), 1, pure=False),
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

BUILTIN_MODULES: dict[str, dict[str, StdOp]] = {
    "Naturals": _NATURALS,
    "Integers": _INTEGERS,
    "Sequences": _SEQUENCES,
    "FiniteSets": _FINITE_SETS,
    "TLC": _TLC,
    "Bags": _BAGS,
    "TLCExt": _TLCEXT,
    "Bitwise": _BITWISE,
    "Randomization": _RANDOMIZATION,
}
"""Operators of each module this file provides, by name (the community modules with
files of their own are in ``conformance.tla.community``; ``standard_modules`` joins them)."""

# Modules that such a module itself extends (their operators come along).
BUILTIN_EXTENDS: dict[str, tuple[str, ...]] = {
    "Naturals": (),
    "Integers": ("Naturals",),
    "Sequences": ("Naturals",),
    "FiniteSets": ("Naturals", "Sequences"),
    "TLC": ("Naturals", "Sequences", "FiniteSets"),
    "Bags": ("Naturals", "FiniteSets", "TLC"),
    "TLCExt": ("TLC", "Naturals", "Sequences"),
    "Bitwise": ("Naturals",),
    "Randomization": ("Naturals", "FiniteSets"),
}


def iter_sorted(s: frozenset) -> Iterator[Any]:
    """Elements in the engine's deterministic order."""
    return iter(sorted(s, key=sort_key))


__all__ = [
    "BOOLEAN",
    "INT",
    "NAT",
    "STRING",
    "LazySet",
    "ModelValue",
    "Runtime",
    "StdOp",
]
