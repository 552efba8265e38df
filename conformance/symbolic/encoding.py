"""Symbolic values: the sorts of TLA+ values and their z3 encoding.

==========================  ==============================================================
TLA+                        symbolic value
==========================  ==============================================================
boolean                     ``z3.BoolRef``
integer                     ``z3.ArithRef`` (unbounded integers)
string, model value         ``Atom``: an integer code from the ``Atoms`` table (equality only)
function over a finite,     ``SFun``: the concrete domain (engine values) and one symbolic
concrete domain; record     value per key
sequence, tuple             ``SSeq``: a symbolic length and ``cap`` items (an item at or past
                            the length is don't-care), as Apalache does
finite set                  ``SSet``: a guarded list of (present?, element); an element may
                            occur in several slots (the set is their union)
==========================  ==============================================================

Equality (``eq``) and conditional (``ite``) are structural; set equality is mutual
inclusion, unless both sets are canonical (below).

**Canonical sets.** A set whose elements are ordered values (booleans, integers, atoms, and
tuples and records of them) may be *canonical*: its present slots come first and their
elements are strictly increasing (``less``). Every set of at most ``n`` such elements has
exactly one canonical form in ``n`` slots, so two canonical sets are equal when their slots
agree one by one: ``n`` comparisons instead of the ``n * m`` of mutual inclusion, a matching
the solver would otherwise search. ``fresh`` makes canonical the sets nested in a sequence's
items or a set's elements (an entry's ``voters``; ``well_formed`` orders them; the sets of a
state variable and of a function's values are aligned slot by slot across a step instead,
``aligned.py``); ``lift`` sorts a concrete set; ``ite`` of two canonical sets picks slot by
slot, which keeps them canonical.

Concrete engine values lift with ``lift``; ``fresh`` builds the value of a variable of a
given ``Shape`` from new z3 constants.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass
from typing import Any, TypeAlias

import z3

from conformance.symbolic.terms import (
    at_most,
    bool_value,
    conditional,
    greater,
    implication,
    int_eq,
    is_numeral,
    nary,
    negation,
    same_term,
)
from conformance.tla.syntax import Loc, UnsupportedError
from conformance.tla.values import Fn, ModelValue, Value, fn_items, make_fn


class Atoms:
    """Codes of strings and model values (a z3 integer each; only equality is used)."""

    def __init__(self) -> None:
        self.code: dict[Any, int] = {}
        self.value: list[Any] = []

    def of(self, v: str | ModelValue) -> int:
        key = (type(v).__name__, v if isinstance(v, str) else v.name)
        c = self.code.get(key)
        if c is None:
            c = self.code[key] = len(self.value)
            self.value.append(v)
        return c


@dataclass(frozen=True)
class Atom:
    term: z3.ArithRef


@dataclass(frozen=True)
class SFun:
    keys: tuple[Value, ...]
    vals: tuple[SV, ...]

    def get(self, key: Value) -> SV | None:
        for k, v in zip(self.keys, self.vals, strict=True):
            if _same(k, key):
                return v
        return None


@dataclass(frozen=True)
class SSeq:
    length: z3.ArithRef
    items: tuple[SV, ...]

    @property
    def cap(self) -> int:
        return len(self.items)


@dataclass(frozen=True)
class SSet:
    slots: tuple[tuple[z3.BoolRef, SV], ...]
    union_of: tuple[SSet, ...] = ()  # a union keeps its operands: membership reuses theirs
    # present slots first, their elements strictly increasing (the module docstring); only
    # ``fresh`` (with ``well_formed``), ``lift`` and ``ite`` claim it
    canonical: bool = False


@dataclass(frozen=True)
class Undef:
    """The value of an application outside a domain that is never empty-checked
    statically (an item of a sequence that is always empty): TLA+ leaves it unspecified,
    the spec guards it (``IF n = 0 THEN 0 ELSE lg[n].epoch``), so a conditional drops it."""


SV: TypeAlias = z3.BoolRef | z3.ArithRef | Atom | SFun | SSeq | SSet | Undef
"""A symbolic value."""


def _same(a: Value, b: Value) -> bool:
    return type(a) is type(b) and a == b


def is_bool(v: SV) -> bool:
    return isinstance(v, z3.BoolRef)


def is_int(v: SV) -> bool:
    return isinstance(v, z3.ArithRef)


def int_val(n: int) -> z3.ArithRef:
    return z3.IntVal(n)


TRUE = z3.BoolVal(True)
FALSE = z3.BoolVal(False)


truth = bool_value  # TRUE or FALSE when a term is literally a boolean constant (one C call)


def concrete_bool(b: z3.BoolRef) -> bool | None:
    """TRUE or FALSE when ``b`` is a boolean constant (the translation folds constants as
    it builds terms, so no simplification is attempted)."""
    return truth(b)


def concrete_int(n: z3.ArithRef) -> int | None:
    if z3.is_int_value(n):
        return n.as_long()
    if z3.is_const(n):
        return None
    s = z3.simplify(n)
    return s.as_long() if z3.is_int_value(s) else None


# ---------------------------------------------------------------------------
# Lifting engine values
# ---------------------------------------------------------------------------


def lift(v: Value, atoms: Atoms) -> SV:
    """The symbolic value of a concrete engine value."""
    if isinstance(v, bool):
        return z3.BoolVal(v)
    if isinstance(v, int):
        return z3.IntVal(v)
    if isinstance(v, (str, ModelValue)):
        return Atom(z3.IntVal(atoms.of(v)))
    if isinstance(v, frozenset):
        return _lifted_set([lift(x, atoms) for x in _ordered(v)])
    if isinstance(v, tuple):
        return SSeq(z3.IntVal(len(v)), tuple(lift(x, atoms) for x in v))
    if isinstance(v, Fn):
        items = list(fn_items(v))
        return SFun(tuple(k for k, _ in items), tuple(lift(x, atoms) for _, x in items))
    raise TypeError(f"cannot lift {v!r}")


def _lifted_set(elements: list[SV]) -> SSet:
    """A concrete set, canonical when its elements are ordered values of one signature."""
    keys = [_order_key(x) for x in elements]
    signatures = {_signature(x) for x in elements}
    if len(signatures) <= 1 and all(k is not None for k in keys):
        order = sorted(range(len(elements)), key=lambda i: keys[i])
        if all(keys[i] != keys[j] for i, j in itertools.pairwise(order)):
            return SSet(tuple((TRUE, elements[i]) for i in order), canonical=True)
    return SSet(tuple((TRUE, x) for x in elements))


def _ordered(s: frozenset) -> list[Value]:
    try:
        return sorted(s)
    except TypeError:
        return sorted(s, key=repr)


def concrete(v: SV) -> Value | None:
    """The engine value of ``v`` when it is fully concrete (strings and model values
    excepted: atoms need the table, see ``decode``)."""
    if isinstance(v, z3.BoolRef):
        return concrete_bool(v)
    if isinstance(v, z3.ArithRef):
        return concrete_int(v)
    if isinstance(v, SSet):
        out = []
        for g, x in v.slots:
            cg = concrete_bool(g)
            if cg is None:
                return None
            if cg:
                cx = concrete(x)
                if cx is None:
                    return None
                out.append(cx)
        return frozenset(out)
    return None


def concrete_key(v: SV, atoms: Atoms) -> Value | None:
    """A concrete engine value of ``v`` usable as a function key, or None."""
    if isinstance(v, Atom):
        c = concrete_int(v.term)
        return None if c is None else atoms.value[c]
    if isinstance(v, (z3.BoolRef, z3.ArithRef)):
        return concrete(v)
    if isinstance(v, SSeq):
        n = concrete_int(v.length)
        if n is None:
            return None
        items = [concrete_key(x, atoms) for x in v.items[:n]]
        return None if any(x is None for x in items) else tuple(items)
    if isinstance(v, SFun):
        vals = [concrete_key(x, atoms) for x in v.vals]
        if any(x is None for x in vals):
            return None
        return make_fn(dict(zip(v.keys, vals, strict=True)))
    if isinstance(v, SSet):
        out = []
        for g, x in v.slots:
            cg = concrete_bool(g)
            if cg is None:
                return None
            if cg:
                cx = concrete_key(x, atoms)
                if cx is None:
                    return None
                out.append(cx)
        return frozenset(out)
    return None


# ---------------------------------------------------------------------------
# Equality and conditionals
# ---------------------------------------------------------------------------


_EQ_MEMO: dict[tuple[int, int], tuple[SV, SV, z3.BoolRef]] = {}
_EQ_MEMO_LIMIT = 200_000


def clear_memo() -> None:
    """Forget the memoised equalities (their values are kept alive by the memo)."""
    _EQ_MEMO.clear()
    _MEMBER_MEMO.clear()


def eq(a: SV, b: SV) -> z3.BoolRef:
    """TLA+ equality of two symbolic values (FALSE for values of different sorts)."""
    if a is b:
        return TRUE
    if isinstance(a, (SFun, SSeq, SSet)):
        key = (id(a), id(b))
        hit = _EQ_MEMO.get(key)
        if hit is not None:
            return hit[2]
        r = _eq(a, b)
        if len(_EQ_MEMO) > _EQ_MEMO_LIMIT:
            _EQ_MEMO.clear()
        _EQ_MEMO[key] = (a, b, r)
        return r
    return _eq(a, b)


def _eq(a: SV, b: SV) -> z3.BoolRef:
    if isinstance(a, z3.BoolRef) and isinstance(b, z3.BoolRef):
        return a == b
    if isinstance(a, z3.ArithRef) and isinstance(b, z3.ArithRef):
        return _int_eq(a, b)
    if isinstance(a, Atom) and isinstance(b, Atom):
        return _int_eq(a.term, b.term)
    if isinstance(a, SFun) and isinstance(b, SFun):
        if len(a.keys) != len(b.keys):
            return FALSE
        parts = []
        for k, x in zip(a.keys, a.vals, strict=True):
            y = b.get(k)
            if y is None:
                return FALSE
            parts.append(eq(x, y))
        return _and(parts)
    if isinstance(a, SSeq) and isinstance(b, SSeq):
        parts = [a.length == b.length]
        for k in range(max(a.cap, b.cap)):
            if k < a.cap and k < b.cap:
                parts.append(implies(greater(a.length, k), eq(a.items[k], b.items[k])))
            else:
                parts.append(at_most(a.length, k) if k >= a.cap else at_most(b.length, k))
        return _and(parts)
    if (isinstance(a, SSeq) and isinstance(b, SFun)) or (isinstance(a, SFun) and isinstance(b, SSeq)):
        seq, fun = (a, b) if isinstance(a, SSeq) else (b, a)
        assert isinstance(seq, SSeq) and isinstance(fun, SFun)
        if not fun.keys:
            return seq.length == 0
        return FALSE  # a function whose domain is not 1..n is not a sequence
    if isinstance(a, SSet) and isinstance(b, SSet):
        if _is_canonical(a) and _is_canonical(b):
            return _canonical_eq(a, b)
        return both(subseteq(a, b), subseteq(b, a))
    return FALSE


def _is_canonical(s: SSet) -> bool:
    return s.canonical or not s.slots


def _canonical_eq(a: SSet, b: SSet) -> z3.BoolRef:
    """Equality of two canonical sets: slot by slot, the same presence and, where present,
    equal elements; the slots one of them lacks are absent in the other."""
    parts = []
    for k in range(max(len(a.slots), len(b.slots))):
        if k < len(a.slots) and k < len(b.slots):
            (g, x), (h, y) = a.slots[k], b.slots[k]
            parts.append(_iff(g, h))
            parts.append(implies(g, eq(x, y)))
        else:
            parts.append(negate(a.slots[k][0] if k < len(a.slots) else b.slots[k][0]))
    return _and(parts)


def _iff(a: z3.BoolRef, b: z3.BoolRef) -> z3.BoolRef:
    if same_term(a, b):
        return TRUE
    ta, tb = truth(a), truth(b)
    if ta is not None:
        return b if ta else negate(b)
    if tb is not None:
        return a if tb else negate(a)
    return int_eq(a, b)  # z3's ``=`` of two booleans


# ---------------------------------------------------------------------------
# The order of canonical sets
# ---------------------------------------------------------------------------


def orderable(shape: Shape) -> bool:
    """Whether the values of ``shape`` are ordered (``less``): booleans, integers, atoms,
    and tuples and records of them."""
    if shape.kind in ("bool", "int", "atom"):
        return True
    return shape.kind in ("tuple", "fun") and all(orderable(s) for s in shape.elems)


def _fields(keys: tuple[Value, ...]) -> list[int]:
    """The positions of a record's (or function's) keys in the order ``less`` compares them."""
    return sorted(range(len(keys)), key=lambda i: (type(keys[i]).__name__, repr(keys[i])))


def less(a: SV, b: SV) -> z3.BoolRef:
    """The strict order of two ordered values of one shape: FALSE < TRUE, integers and atom
    codes as numbers, tuples and records lexicographically (``_fields`` order)."""
    if isinstance(a, z3.BoolRef) and isinstance(b, z3.BoolRef):
        return both(negate(a), b)
    if isinstance(a, z3.ArithRef) and isinstance(b, z3.ArithRef):
        return a < b
    if isinstance(a, Atom) and isinstance(b, Atom):
        return a.term < b.term
    if isinstance(a, SSeq) and isinstance(b, SSeq) and a.cap == b.cap:
        return _lexicographic(list(a.items), list(b.items))
    if isinstance(a, SFun) and isinstance(b, SFun) and a.keys == b.keys:
        order = _fields(a.keys)
        return _lexicographic([a.vals[i] for i in order], [b.vals[i] for i in order])
    raise ValueError(f"no order between a {sort_name(a)} and a {sort_name(b)}")


def _lexicographic(xs: list[SV], ys: list[SV]) -> z3.BoolRef:
    if not xs:
        return FALSE
    return _or([less(xs[0], ys[0]), both(eq(xs[0], ys[0]), _lexicographic(xs[1:], ys[1:]))])


def _order_key(v: SV) -> Any:
    """The key of a concrete ordered value under ``less`` (Python's order of the keys is
    ``less``), or None."""
    if isinstance(v, z3.BoolRef):
        b = concrete_bool(v)
        return None if b is None else int(b)
    if isinstance(v, z3.ArithRef):
        return concrete_int(v)
    if isinstance(v, Atom):
        return concrete_int(v.term)
    items: list[SV] | None = None
    if isinstance(v, SSeq) and concrete_int(v.length) == v.cap:
        items = list(v.items)
    elif isinstance(v, SFun):
        items = [v.vals[i] for i in _fields(v.keys)]
    if items is None:
        return None
    keys = [_order_key(x) for x in items]
    return None if any(k is None for k in keys) else tuple(keys)


def _signature(v: SV) -> Any:
    """What two values must share for ``less`` to compare them."""
    if isinstance(v, SSeq):
        return ("tuple", tuple(_signature(x) for x in v.items))
    if isinstance(v, SFun):
        return ("record", v.keys, tuple(_signature(x) for x in v.vals))
    return type(v).__name__


_MEMBER_MEMO: dict[tuple[int, int], tuple[SV, SSet, z3.BoolRef]] = {}


def _int_eq(a: z3.ArithRef, b: z3.ArithRef) -> z3.BoolRef:
    if same_term(a, b):  # equal numerals are one term
        return TRUE
    if is_numeral(a) and is_numeral(b):
        return FALSE
    # as ``a == b`` does: Python asks a numeral's (sub)class first, so ``(= numeral a)``
    return int_eq(b, a) if is_numeral(b) else int_eq(a, b)


def member(x: SV, s: SSet) -> z3.BoolRef:
    """``x \\in s`` (memoised: the same frame of a state is tested by many actions)."""
    if s.union_of:
        return _or([member(x, part) for part in s.union_of])
    key = (id(x), id(s))
    hit = _MEMBER_MEMO.get(key)
    if hit is not None:
        return hit[2]
    r = _or([both(g, eq(x, y)) for g, y in s.slots])
    if len(_MEMBER_MEMO) > _EQ_MEMO_LIMIT:
        _MEMBER_MEMO.clear()
    _MEMBER_MEMO[key] = (x, s, r)
    return r


def subseteq(a: SSet, b: SSet) -> z3.BoolRef:
    return _and([implies(g, member(x, b)) for g, x in a.slots])


def _and(parts: list[z3.BoolRef]) -> z3.BoolRef:
    kept = []
    for p in parts:
        t = truth(p)
        if t is False:
            return FALSE
        if t is None:
            kept.append(p)
    if not kept:
        return TRUE
    return kept[0] if len(kept) == 1 else nary(True, kept)


def _or(parts: list[z3.BoolRef]) -> z3.BoolRef:
    kept = []
    for p in parts:
        t = truth(p)
        if t is True:
            return TRUE
        if t is None:
            kept.append(p)
    if not kept:
        return FALSE
    return kept[0] if len(kept) == 1 else nary(False, kept)


def both(a: z3.BoolRef, b: z3.BoolRef) -> z3.BoolRef:
    return _and([a, b])


def negate(a: z3.BoolRef) -> z3.BoolRef:
    t = truth(a)
    if t is not None:
        return FALSE if t else TRUE
    return negation(a)


def implies(a: z3.BoolRef, b: z3.BoolRef) -> z3.BoolRef:
    ta = truth(a)
    if ta is False:
        return TRUE
    if ta is True:
        return b
    if truth(b) is True:
        return TRUE
    return implication(a, b)


conj = _and
disj = _or


def ite(c: z3.BoolRef, a: SV, b: SV, loc: Loc) -> SV:
    """``IF c THEN a ELSE b`` for values of the same sort."""
    cc = concrete_bool(c)
    if cc is True or isinstance(b, Undef):
        return a
    if cc is False or isinstance(a, Undef):
        return b
    if (isinstance(a, z3.BoolRef) and isinstance(b, z3.BoolRef)) or \
            (isinstance(a, z3.ArithRef) and isinstance(b, z3.ArithRef)):
        return a if same_term(a, b) else conditional(c, a, b)
    if isinstance(a, Atom) and isinstance(b, Atom):
        return a if same_term(a.term, b.term) else Atom(conditional(c, a.term, b.term))
    if isinstance(a, SFun) and isinstance(b, SFun):
        if len(a.keys) == len(b.keys) and all(b.get(k) is not None for k in a.keys):
            vals = []
            for k, x in zip(a.keys, a.vals, strict=True):
                y = b.get(k)
                assert y is not None
                vals.append(ite(c, x, y, loc))
            return SFun(a.keys, tuple(vals))
        raise UnsupportedError("a conditional between functions of different domains", loc)
    if isinstance(a, SSeq) and isinstance(b, SSeq):
        items = []
        for k in range(max(a.cap, b.cap)):
            if k < a.cap and k < b.cap:
                items.append(ite(c, a.items[k], b.items[k], loc))
            else:
                items.append(a.items[k] if k < a.cap else b.items[k])
        return SSeq(a.length if same_term(a.length, b.length) else conditional(c, a.length, b.length), tuple(items))
    if isinstance(a, SSeq) and isinstance(b, SFun) and not b.keys:
        return ite(c, a, SSeq(z3.IntVal(0), ()), loc)
    if isinstance(a, SFun) and isinstance(b, SSeq) and not a.keys:
        return ite(c, SSeq(z3.IntVal(0), ()), b, loc)
    if isinstance(a, SSet) and isinstance(b, SSet):
        if _is_canonical(a) and _is_canonical(b) and a.slots and b.slots:
            picked = _pick_slots(c, a, b, loc)
            if picked is not None:
                return picked
        nc = negate(c)
        return SSet(tuple((both(c, g), x) for g, x in a.slots)
                    + tuple((both(nc, g), x) for g, x in b.slots))
    raise UnsupportedError(f"a conditional between a {sort_name(a)} and a {sort_name(b)}", loc)


def _pick_slots(c: z3.BoolRef, a: SSet, b: SSet, loc: Loc) -> SSet | None:
    """``IF c THEN a ELSE b`` for two canonical sets, slot by slot (canonical too); None
    when their elements have no common sort."""
    nc = negate(c)
    slots = []
    for k in range(max(len(a.slots), len(b.slots))):
        if k < len(a.slots) and k < len(b.slots):
            (g, x), (h, y) = a.slots[k], b.slots[k]
            try:
                slots.append((_or([both(c, g), both(nc, h)]), ite(c, x, y, loc)))
            except UnsupportedError:
                return None
        elif k < len(a.slots):
            slots.append((both(c, a.slots[k][0]), a.slots[k][1]))
        else:
            slots.append((both(nc, b.slots[k][0]), b.slots[k][1]))
    return SSet(tuple(slots), canonical=True)


def sort_name(v: SV) -> str:
    if isinstance(v, z3.BoolRef):
        return "boolean"
    if isinstance(v, z3.ArithRef):
        return "integer"
    if isinstance(v, Atom):
        return "string"
    if isinstance(v, SFun):
        return "function"
    if isinstance(v, SSeq):
        return "sequence"
    if isinstance(v, Undef):
        return "unspecified value"
    return "set"


# ---------------------------------------------------------------------------
# Shapes: the sort and size of a variable, for fresh values
# ---------------------------------------------------------------------------


@dataclass(frozen=True)
class Shape:
    """``kind`` is bool, int, atom, fun (``keys``, ``elems`` one per key), seq (``size``
    items of ``elems[0]``), tuple (``elems``) or set (``size`` slots of ``elems[0]``)."""

    kind: str
    keys: tuple[Value, ...] = ()
    elems: tuple[Shape, ...] = ()
    size: int = 0


_counter = itertools.count()


def fresh(shape: Shape, prefix: str, atom_terms: list[z3.ArithRef], nested: bool = False) -> SV:
    """A value of ``shape`` made of new z3 constants named after ``prefix``; the atoms'
    terms are appended to ``atom_terms`` (their range is fixed once the table is
    complete). ``nested``: the value lies in a sequence's item or a set's element, where a
    set of ordered elements is canonical (``well_formed`` orders it)."""
    n = next(_counter)
    if shape.kind == "bool":
        return z3.Bool(f"{prefix}#{n}")
    if shape.kind == "int":
        return z3.Int(f"{prefix}#{n}")
    if shape.kind == "atom":
        t = z3.Int(f"{prefix}#{n}")
        atom_terms.append(t)
        return Atom(t)
    if shape.kind == "fun":
        return SFun(shape.keys, tuple(fresh(s, f"{prefix}[{k}]", atom_terms, nested)
                                      for k, s in zip(shape.keys, shape.elems, strict=True)))
    if shape.kind == "tuple":
        return SSeq(z3.IntVal(len(shape.elems)),
                    tuple(fresh(s, f"{prefix}[{i + 1}]", atom_terms, nested) for i, s in enumerate(shape.elems)))
    if shape.kind == "seq":
        length = z3.Int(f"{prefix}.len#{n}")
        return SSeq(length, tuple(fresh(shape.elems[0], f"{prefix}[{i + 1}]", atom_terms, True)
                                  for i in range(shape.size)))
    if shape.kind == "set":
        return SSet(tuple((z3.Bool(f"{prefix}.in{i}#{n}"), fresh(shape.elems[0], f"{prefix}.e{i}", atom_terms, True))
                          for i in range(shape.size)), canonical=nested and orderable(shape.elems[0]))
    raise ValueError(shape.kind)


def well_formed(v: SV, shape: Shape) -> z3.BoolRef:
    """Constraints every fresh value of ``shape`` must meet (sequence lengths in range, a
    canonical set's present slots first and in increasing order)."""
    parts: list[z3.BoolRef] = []
    if isinstance(v, SSeq) and shape.kind == "seq":
        parts += [v.length >= 0, v.length <= shape.size]
        parts += [well_formed(x, shape.elems[0]) for x in v.items]
    elif isinstance(v, SSeq) and shape.kind == "tuple":
        parts += [well_formed(x, s) for x, s in zip(v.items, shape.elems, strict=True)]
    elif isinstance(v, SFun):
        parts += [well_formed(x, s) for x, s in zip(v.vals, shape.elems, strict=True)]
    elif isinstance(v, SSet):
        parts += [well_formed(x, shape.elems[0]) for _, x in v.slots]
        if v.canonical:
            parts += [implies(h, both(g, less(x, y))) for (g, x), (h, y) in itertools.pairwise(v.slots)]
    return conj(parts)
