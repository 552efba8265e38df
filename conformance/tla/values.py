"""Runtime values of TLA+, immutable and hashable, with TLA+ equality.

Representation (chosen so that equal TLA+ values are equal, hash-equal Python values):

=====================  =======================================================
TLA+                   Python
=====================  =======================================================
integer                ``int``
boolean                ``bool``
string                 ``str``
model value            ``ModelValue`` (interned by name)
set                    ``frozenset``
sequence / tuple       ``tuple`` -- and so is *every* function whose domain is
                       ``1..n`` (``n >= 0``); the empty function is ``()``
record / function      ``Fn`` -- any other function; a record is an ``Fn`` whose
                       keys are all strings
=====================  =======================================================

Always build functions with ``make_fn`` so that the normalisation above holds.

Python's ``True == 1`` and ``False == 0`` (also inside tuples, sets and functions) would
make ``[a |-> FALSE]`` equal to ``[a |-> 0]``. TLC fails on any comparison of a boolean
with an integer, so a spec TLC accepts never compares them, but it may well hold both in
different states. Hence anything that identifies values across evaluations (state
fingerprints, memo tables) checks ``same_value`` on a hit, and equality fails, as TLC
does, when Python equality holds only because of such a pun (``tlc_equal``; the rules of
the comparisons TLC refuses are listed with it). Membership tells a boolean element from
an integer one, and fails on a pun nested inside an element (``<<0>> \\in {<<FALSE>>}``,
which TLC rejects: rule T1 of ``unequal_or_fail``).
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Iterator, Mapping
from functools import lru_cache
from itertools import compress
from operator import is_not, itemgetter
from typing import Any, ClassVar, Union

from conformance.tla.syntax import EvalError, Loc

Value = Union[int, bool, str, "ModelValue", frozenset, tuple, "Fn"]


class ModelValue:
    """A TLC model value: equal only to itself."""

    __slots__ = ("name", "vtype")
    _interned: ClassVar[dict[str, ModelValue]] = {}
    any_typed: ClassVar[bool] = False  # whether a typed model value was ever made (sets of model values are then checked)

    name: str
    vtype: str | None

    def __new__(cls, name: str) -> ModelValue:
        existing = cls._interned.get(name)
        if existing is not None:
            return existing
        obj = super().__new__(cls)
        obj.name = name
        obj.vtype = name[0] if len(name) > 2 and name[1] == "_" else None
        if obj.vtype is not None:
            ModelValue.any_typed = True
        cls._interned[name] = obj
        return obj

    def __repr__(self) -> str:
        return self.name

    def __reduce__(self) -> tuple[Any, tuple[str]]:
        return (ModelValue, (self.name,))

    def value_type(self) -> str | None:
        """TLC's type of a model value: the first character of a name ``x_rest`` (``x``
        one character, ``rest`` not empty); None for an untyped model value."""
        return self.vtype


def atom_pun(x: Any) -> bool:
    """Whether ``x`` is a boolean or an integer 0 or 1: Python finds it equal to a value of
    the other type. (A function, not an inline test: the compiled core would read ``x`` as
    an integer after such a test, FALSE as 0.)"""
    return x is True or x is False or (type(x) is int and (x == 0 or x == 1))


_LONG, _ENDS = 16, 4  # sequences longer than _LONG are hashed by their length and _ENDS items at each end


class Fn:
    """A function that is not a sequence: a record or a general function.

    Immutable; equality and hash are those of the underlying mapping.
    """

    __slots__ = ("_hash", "_pun_keys", "map")

    map: dict[Any, Any]

    def __init__(self, mapping: dict[Any, Any]) -> None:
        self.map = mapping
        self._hash: int | None = None
        self._pun_keys: bool | None = None

    def pun_keys(self) -> bool:
        """Whether a key is a boolean or an integer 0 or 1 (computed once)."""
        p = self._pun_keys
        if p is None:
            p = self._pun_keys = any(map(atom_pun, self.map))
        return p

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Fn) and self.map == other.map

    def __hash__(self) -> int:
        # A long sequence inside is hashed by its length and ends: equal functions still hash
        # equally (equality decides), and a record holding a long log slice hashes in constant
        # time. Fingerprints (fpset.py) are structural and do not use this hash.
        h = self._hash
        if h is None:
            h = hash(frozenset([(k, (len(v), v[:_ENDS], v[-_ENDS:]) if type(v) is tuple and len(v) > _LONG else v)
                                for k, v in self.map.items()]))
            self._hash = h
        return h

    def __len__(self) -> int:
        return len(self.map)

    def __repr__(self) -> str:
        return format_value(self)

    def __reduce__(self) -> tuple[Any, tuple[dict[Any, Any]]]:
        return (Fn, (self.map,))

    def reduce_with_hash(self) -> tuple[Any, tuple[dict[Any, Any], int | None]]:
        """Pickling that keeps the hash computed, for a process that shares this one's
        hash seed of strings (forked from the same process); ``__reduce__`` elsewhere."""
        return (_fn_with_hash, (self.map, self._hash))

    def is_record(self) -> bool:
        return all(type(k) is str for k in self.map)


def _fn_with_hash(mapping: dict[Any, Any], h: int | None) -> Fn:
    """The function ``Fn.reduce_with_hash`` pickled."""
    f = Fn(mapping)
    f._hash = h
    return f


def same_value(a: Any, b: Any) -> bool:
    """TLA+ equality of two values Python finds equal (``a == b``): false exactly when
    the equality rests on a boolean standing for an integer somewhere inside them."""
    if a is b:
        return True
    ta = type(a)
    if ta is not type(b):
        return False
    if ta is tuple:
        # items that are the very same object (small integers, booleans, shared parts) or
        # integers or strings of the same type are the same value: no call for them
        # (a long tuple, a state say: its identical items skipped in C; equal tuples have
        # equal lengths)
        pairs = zip(a, b, strict=False) if len(a) <= 8 else \
            ((a[i], b[i]) for i in compress(range(len(a)), map(is_not, a, b)))
        for x, y in pairs:
            if x is not y:
                tx = type(x)
                if tx is not type(y):
                    return False
                if tx is not int and tx is not str and not same_value(x, y):
                    return False
        return True
    if ta is Fn:
        bm = b.map
        if a.pun_keys():  # b's keys equal a's, so b has none either when a has none
            for k in a.map:
                if atom_pun(k) and not any(type(k2) is type(k) and k2 == k for k2 in bm):
                    return False
        for k, x in a.map.items():
            y = bm[k]
            if x is not y:
                tx = type(x)
                if tx is not type(y):
                    return False
                if tx is not int and tx is not str and not same_value(x, y):
                    return False
            if type(k) in BOXES:  # a key holding a pun: <<0>> and <<FALSE>> are one to Python
                k2 = twin(k, bm)
                if k2 is not k and not same_value(k, k2):
                    return False
        return True
    if ta is frozenset:
        # equal sets built alike list equal elements in the same places (the very object, or
        # an equal one built again): each element in its place the same value as the other
        # set's is a one-to-one match, so the sets are the same value
        for x, y in zip(a, b, strict=False):
            if x is not y:
                tx = type(x)
                if tx is not type(y) or x != y or (tx is not int and tx is not str and not same_value(x, y)):
                    break
        else:
            return True
        # the elements that are the very objects of the other set are the same values; each
        # other element of a equals one of b that is not in a (a set holds no two equal
        # elements), so only those are paired up
        ib = set(map(id, b))
        ia = set(map(id, a))
        if ia == ib:
            return True
        twins = {y: y for y in b if id(y) not in ia}  # the element of b Python finds equal to x
        for x in a:  # noqa: SIM110 - a loop is faster here
            if id(x) not in ib and not same_value(x, twins[x]):
                return False
        return True
    return True


# ---------------------------------------------------------------------------
# Comparisons TLC refuses
# ---------------------------------------------------------------------------

_BOOLEAN, _INTEGER, _STRING, _MODEL, _FUNCTION, _SET = range(6)
_KINDS: dict[type, int] = {bool: _BOOLEAN, int: _INTEGER, str: _STRING, ModelValue: _MODEL,
                           tuple: _FUNCTION, Fn: _FUNCTION, frozenset: _SET}


def tlc_equal(a: Any, b: Any) -> bool:
    """TLA+ equality as TLC answers it: raises ``EvalError`` (without a location) where TLC
    fails (the rules E1-E4 of ``unequal_or_fail``)."""
    if a is b or (a == b and same_value(a, b)):
        return True
    return unequal_or_fail(a, b)


def _incomparable(a: Any, b: Any) -> EvalError:
    return EvalError(f"attempted to check equality of the {type_name(a)} {format_value(a)} "
                     f"with the {type_name(b)} {format_value(b)}, which TLC cannot compare")


def _single_kind(values: Iterable[Any]) -> int | None:
    """The kind all ``values`` are of; None if they are of several, or of none."""
    kinds = {_KINDS.get(type(v), -1) for v in values}
    if len(kinds) == 1:
        k = kinds.pop()
        return None if k == -1 else k
    return None


def _kinds_clash(xs: Iterable[Any], ys: Iterable[Any]) -> bool:
    """Whether each of ``xs`` and ``ys`` is all of one kind, the two kinds different and
    neither the model values'."""
    kx, ky = _single_kind(xs), _single_kind(ys)
    return kx is not None and ky is not None and kx != ky and _MODEL not in (kx, ky)


def unequal_or_fail(a: Any, b: Any) -> bool:
    """TLC's answer for two values that are not the same TLA+ value (``a != b`` in Python,
    or equal only through a boolean standing for an integer): FALSE, or ``EvalError``
    (without a location) where TLC fails to compare them.

    TLC evaluates ``a = b``, ``a # b`` and the element tests of ``x \\in S`` with the Java
    methods ``equals`` and ``compareTo`` of its value classes (tlc2/value/impl), which fail
    ("Attempted to check equality of string "a" with non-string: 1") instead of answering
    FALSE when the two values are of kinds they cannot compare. The rules below are those
    failures, kept where TLC fails whatever order it compares parts in; where the outcome
    would depend on an order or on a distinction these values do not keep (a record and a
    function with string arguments are both ``Fn`` here), the answer is FALSE, as before.

    Kinds: boolean, integer, string, model value, function (``tuple`` and ``Fn``: TLC
    converts tuples, records and functions into each other to compare them, TupleValue /
    RecordValue / FcnRcdValue .equals with toTuple / toRcd / toFcnRcd), set (``frozenset``).
    Any other value (an infinite set) is not judged here.

    E1 (BoolValue, IntValue, StringValue .equals): a boolean, integer or string equals only
       a value of its own kind or a model value; against any other kind TLC fails.
    E2 (ModelValue.equals, ModelValue.modelValueEquals): an untyped model value is unequal to
       every other value, without failing, whichever side it is on. A typed model value
       (a name ``x_rest``: ModelValue's ``type``) compared with a value that is not a model
       value fails, and with a model value of another type fails; with the same type or an
       untyped one it is compared by name.
    E3 (SetEnumValue.equals): a set compared with a value that is not a set (nor a model
       value) fails, and so does one TLC cannot sort (S1). Two sets of different sizes are
       unequal. Two one-element sets compare their elements (by these rules). Two sets of
       one size > 1 whose elements are each of one kind, the two kinds different (and
       neither a model value), fail: TLC compares the first elements of the two sorted
       sets. Otherwise unequal sets are unequal.
    E4 (FcnRcdValue/RecordValue/TupleValue .equals): a function compared with a value that
       is not a function (nor a model value) fails. Two functions with domains of different
       sizes are unequal. Equal-sized, different domains whose elements are each of one kind,
       the kinds different (and not model values), fail (TLC compares the domains element by
       element, in order, before the values); other different domains are unequal. Over one
       domain: two tuples compare their items left to right, the first unequal pair making
       them unequal (TupleValue.equals); so do functions whose domain is all strings (records:
       RecordValue.normalize sorts the names with String.compareTo) or all integers, in the
       order of their arguments; other functions are unequal when some pair of values at one
       argument is unequal without failing, and fail when no pair is unequal and some pair
       fails (TLC walks its normalised domain; this answer does not depend on that order).
    S1 (SetEnumValue.normalize, ValueVec.sort: a binary insertion sort by ``compareTo``):
       TLC cannot sort a set holding values of two kinds, a typed model value's kind being
       its type. An untyped model value is below every other value (ModelValue.compareTo,
       modelValueCompareTo), so it never separates two kinds, except that it compares with
       typed ones by name: a set holding both kinds of model values and another kind is not
       judged. Any sort succeeding would have compared the two neighbouring values of
       different kinds, so the sort fails whatever the order of the elements. A set is
       sorted when it is compared (E3: both sets, before their sizes), enumerated, counted,
       fingerprinted; a set TLC could not sort is never marked sorted.
    M1 (SetEnumValue.member, ValueVec.search: ``compareTo`` in binary search on a sorted set,
       ``equals`` with every element in turn on another): ``x \\in S`` for a finite
       non-empty S not holding x, x not an untyped model value, fails when every element
       of S but untyped model values fails against x: those of other kinds than x's (the
       search passes the untyped model values, which are below x, and meets another element,
       unless x is itself a typed model value, compared with them by name) and, x a set or
       a function, those TLC cannot compare with x either way. FALSE when no element fails;
       when some do, which are met depends on an order: FALSE, not judged. IntervalValue.member
       (1..n, the domain of a tuple) fails alike on a non-integer.
    M2 (the same, S1): S that TLC cannot sort is searched with ``equals`` through all of it
       when x is not there: ``x \\in S`` fails unless x is an untyped model value.
    C1 (Tool: ``a \\cup b`` is ``a.cup(b)``; SetEnumValue/IntervalValue.cup): with a not empty,
       b is enumerated (sorted, S1), and each element of b not in a is looked up in a (M1,
       M2, at the top level only). C2 (``.cap``/``.diff``): each element of a not in b is
       looked up in b alike; no set is sorted. C3 (``a \\subseteq b``,
       EnumerableValue.isSubsetEq): a is enumerated (S1), and its elements are looked up in
       b in a's sorted order until one is missing: it fails when every element missing
       from b fails to be looked up (M1, M2); for a set of tuples, functions or sets, whose
       order ``sort_key`` follows, when the first one missing does. The left operand is taken for an enumerated
       set (SetEnumValue, IntervalValue, which are ``Reducible``), as sets held as
       ``frozenset`` are throughout.
    A1 (FcnRcdValue.select; TupleValue.select): ``f[x]`` compares x with the domain; the
       engine fails where Python finds x only as TRUE standing for 1 or the reverse.
    T0 (the equals above, for two values Python finds equal only through a pun inside: a
       boolean standing for 0 or 1 somewhere): TLC compares them part by part, the parts
       alike in the same order (sets and domains sorted alike, their elements differing
       only by such puns), and the first parts that differ are a boolean and an integer:
       two such sets, or functions over two such domains, fail (E3, E4 answer FALSE only
       for sets and domains Python finds unequal).
    T1 (M1-M2, C1-C3, A1, X1): looking a value up in a set or a domain holding its twin (a
       value Python finds equal to it that is another TLA+ value) fails: each comparison
       of the search that succeeds orders the value as its twin, so the search meets the
       twin. In ``a \\subseteq b`` that lookup is one that fails (C3: FALSE when some other
       element missing from b is looked up without failing). ``[f EXCEPT ![k] = v]`` with
       k found only as a pun fails (X1: the lookup of k meets its twin, or, TRUE in a
       domain of integers, TupleValue.select and FcnRcdValue.select over an IntervalValue
       refuse a boolean, IntValue.equals against one fails). ``UNION`` of sets holding
       twins fails, as a set constructor does (``built_set``).
    X1 (Tool's EXCEPT, OPCODE_exc: ``[f EXCEPT ![k] = v]`` looks the whole path up first,
       Value.select calling Applicable.select at each step, and leaves f as it is, with a
       warning, when a step is not in the domain; only then takeExcept updates it, finding
       the key again): each step's key k is looked up in the domain of the function at
       hand, where Python finds k only as a pun failing (T1), and where Python does not
       find k at all (``except_miss``): TupleValue.select and FcnRcdValue.select over an
       IntervalValue fail on a key that is not an integer, RecordValue.select on one that
       is not a string, and a FcnRcdValue over an enumerated domain compares k with each
       argument (selectLinearSearch: domain[i].equals(k)), or, normalised and of at least
       32 arguments, with some of them (selectBinarySearch: compareTo). The engine holds
       all of them alike (a tuple, or an ``Fn`` over integers or strings), so it fails
       where each of them fails: a key missing from a sequence fails when it is not an
       integer (against 1..n, E1-E4), a key missing from another function when comparing
       it with one of the arguments fails (E1-E4) and, in a domain of at least 32
       arguments, when comparing it with every argument fails. So a key of another kind
       than a domain all of one kind fails (``[<<1, 2>> EXCEPT !["a"] = 3]``, ``[[a |-> 1]
       EXCEPT ![1] = 3]``, ``[[i \\in {"a", "b"} |-> 1] EXCEPT ![3] = 2]``, TRUE or a
       record for the key of a sequence), and an integer outside 1..n leaves a sequence as
       it is.

    Not judged (as before, where TLC may fail): an element Python finds in a set (``1 \\in
    {1, "a"}`` fails or not with the order of the elements: TRUE), infinite sets (``Nat``,
    ``STRING`` ...); a set that cannot be sorted because of values inside its elements
    (``{<<1>>, <<"a">>}``); sets held by the engine only as a pun (``{TRUE, 1}`` is one
    element to Python) other than those a set constructor builds (``built_set`` fails on
    them); the inner comparisons of ``\\cup``, ``\\cap``, ``\\`` (``{<<1>>} \\ {<<"a">>}``:
    SetEnumValue.cup / cap / diff look each element missing from the other set up in it,
    M1 nested; comparing it with one element of the other set to show that the lookup does
    not fail costs about 3 microseconds for a record of 20 fields, 8% of the CPU time of
    the small KRaft model's check, whose every message sent is such an element: 35.7 / 36.0
    against 33.2 / 33.0 CPU s, ``benchmarks/kraft_small.py --runs 1 --workers 1`` alternating
    with and without a prototype of the check); enumerating,
    counting or fingerprinting a set TLC cannot sort (S1; ``\\A x \\in {1, "a"} : TRUE``,
    a state holding ``{1, "a"}``), and comparing two such sets that Python finds equal
    (left to the checking of states and to the cost of the common case); EXCEPT with a
    key Python finds in a domain that also holds arguments of other kinds (the linear
    search compares it with the arguments before it, in an order not kept here), with a
    key that is an untyped model value (TupleValue, IntervalValue and RecordValue .select
    fail on it, a FcnRcdValue over an enumerated domain finds it unequal to every
    argument: f is left as it is), a key of ``<<>>`` that is not an integer (TupleValue.select
    fails, the empty FcnRcdValue compares nothing: left as it is), or a key missing from a
    domain of at least 32 arguments some of which fail to compare with it and others not
    (which of them the binary search meets follows TLC's order: left as it is); a record compared
    with a tuple of another size (RecordValue.equals fails, the tuple not being a record;
    a function over strings, FcnRcdValue.equals, converts the tuple and finds it unequal:
    both are ``Fn`` here, FALSE).

    Python's ``==`` decides the common case: only values it finds unequal (or equal through
    a boolean standing for an integer, see ``same_value``) are classified.
    """
    if type(a) is tuple and type(b) is tuple:  # E4, TupleValue.equals: in order
        if len(a) != len(b):
            return False
        for x, y in zip(a, b, strict=True):
            if x is not y:
                tx = type(x)
                if tx is type(y) and (tx is int or tx is str or tx is bool):
                    if x != y:
                        return False
                elif not tlc_equal(x, y):
                    return False
        return True
    ka, kb = _KINDS.get(type(a)), _KINDS.get(type(b))
    if ka is None or kb is None:
        return False  # an infinite set: not judged here
    if ka == _MODEL or kb == _MODEL:  # E2
        ta = a.value_type() if ka == _MODEL else None
        tb = b.value_type() if kb == _MODEL else None
        if (ka == _MODEL and ta is None) or (kb == _MODEL and tb is None):
            return False
        if ka != kb or ta != tb:
            raise _incomparable(a, b)
        return False  # the same type, different names
    if ka != kb:  # E1, E3, E4: values of different kinds
        raise _incomparable(a, b)
    if ka == _SET:  # E3
        for s in (a, b):  # S1: SetEnumValue.equals normalises both sets first
            if unsortable(s):
                raise _unsortable_error(s)
        if len(a) != len(b):
            return False
        if a == b:  # T0: equal to Python only through a pun inside
            raise _incomparable(a, b)
        if len(a) == 1:
            return tlc_equal(next(iter(a)), next(iter(b)))
        if _kinds_clash(a, b):
            raise _incomparable(a, b)
        return False
    if ka != _FUNCTION:
        return False  # two booleans, integers or strings of one kind: just unequal
    ma = a.map if type(a) is Fn else dict(enumerate(a, 1))
    mb = b.map if type(b) is Fn else dict(enumerate(b, 1))
    if len(ma) != len(mb):
        return False
    if ma.keys() != mb.keys() or not same_value(frozenset(ma), frozenset(mb)):
        if ma.keys() == mb.keys():  # T0: domains equal to Python only through a pun inside
            raise _incomparable(a, b)
        if _kinds_clash(ma, mb):
            raise _incomparable(a, b)
        return False
    if _single_kind(ma) in (_STRING, _INTEGER):  # walked in TLC's order of the domain
        return all(tlc_equal(ma[k], mb[k]) for k in sorted(ma))
    failed: EvalError | None = None
    for k, x in ma.items():
        try:
            if not tlc_equal(x, mb[k]):
                return False
        except EvalError as err:
            failed = failed or err
    if failed is not None:
        raise failed
    return True


def _sort_kinds(s: Iterable[Any]) -> tuple[set[Any], bool]:
    """The kinds among the elements of ``s`` that TLC's ``compareTo`` cannot order with each
    other (a typed model value's kind is its type), and whether ``s`` holds an untyped model
    value (which TLC orders below every other value). Values of no kind are left out."""
    ts = set(map(type, s))
    kinds: set[Any] = {_KINDS[t] for t in ts if t in _KINDS and t is not ModelValue}
    untyped = False
    if ModelValue in ts:
        for v in s:
            if type(v) is ModelValue:
                if v.vtype is None:
                    untyped = True
                else:
                    kinds.add(v.vtype)
    return kinds, untyped


def _unsortable(kinds: set[Any], untyped: bool) -> bool:
    """Whether TLC fails to sort (normalise) a set with these ``_sort_kinds`` (S1)."""
    return len(kinds) > 1 and not (untyped and any(type(k) is str for k in kinds))


def unsortable(s: Collection[Any]) -> bool:
    """Whether TLC fails to sort the finite set ``s`` (rule S1 of ``unequal_or_fail``)."""
    return len(s) > 1 and _unsortable(*_sort_kinds(s))


def _unsortable_error(s: Any) -> EvalError:
    return EvalError(f"attempted to sort the set {format_value(s)}, whose elements TLC cannot "
                     "compare with each other")


_NO_ELEMENT: Any = object()  # the kind of the empty set
_KINDS_SEEN: dict[int, tuple[frozenset, type | None]] = {}  # id -> (the set, kept alive; its kind)
_KIND_CACHE_FROM = 8  # sets at least this large have their kind remembered
_KIND_CACHE_LIMIT = 1 << 12


def _elements_kind(s: frozenset) -> Any:
    """The type of every element of ``s`` (``tuple`` for tuples and functions alike), None
    when they are of several, ``_NO_ELEMENT`` when there is none."""
    for v in s:
        t = type(v)
        break
    else:
        return _NO_ELEMENT
    if t is tuple or t is Fn:
        for v in s:
            if type(v) is not tuple and type(v) is not Fn:
                return None
        return tuple
    for v in s:
        if type(v) is not t:
            return None
    return t


def _set_kind(s: frozenset) -> Any:
    """``_elements_kind(s)``, remembered for large sets (a state's set of messages meets
    one new message per step: its own elements are not scanned again)."""
    if len(s) < _KIND_CACHE_FROM:
        return _elements_kind(s)
    hit = _KINDS_SEEN.get(id(s))
    if hit is not None and hit[0] is s:
        return hit[1]
    kind = _elements_kind(s)
    if len(_KINDS_SEEN) >= _KIND_CACHE_LIMIT:
        _KINDS_SEEN.clear()
    _KINDS_SEEN[id(s)] = (s, kind)
    return kind


def plain_sets(a: frozenset, b: frozenset) -> bool:
    """Whether the elements of ``a`` and ``b`` are all of one kind and none is a typed model
    value: no comparison between them fails at the top level (a cheap test)."""
    ka = _set_kind(a)
    if ka is None:
        return False
    kb = _set_kind(b)
    if kb is not ka and kb is not _NO_ELEMENT:
        if ka is not _NO_ELEMENT or kb is None:
            return False
        ka = kb
    return ka is not ModelValue or not ModelValue.any_typed


BOXES = frozenset({tuple, Fn, frozenset})  # values that may hold a boolean standing for an integer
# by the id of a set or of a function's map: (it, each element or key by itself)
_TWINS: dict[int, tuple[Any, dict[Any, Any]]] = {}
_TWINS_LIMIT = 4_096


def twin(x: Any, s: frozenset | dict[Any, Any]) -> Any:
    """The element of ``s`` (a set, or a function's map: its keys) that Python finds equal
    to ``x``, which it holds. Each set's elements are looked up by value once (bounded
    memo; a function's map is never changed)."""
    hit = _TWINS.get(id(s))
    if hit is None or hit[0] is not s:
        if len(_TWINS) >= _TWINS_LIMIT:
            _TWINS.clear()
        hit = _TWINS[id(s)] = (s, {y: y for y in s})  # (keeps s alive: its id is not reused)
    return hit[1][x]


def _no_twins(a: frozenset, b: frozenset) -> None:
    """Fails (``_holds``) when one of two sets of tuples, functions or sets holds an element
    Python finds equal to one of the other's that is another TLA+ value: each element of the
    smaller is looked up in the larger."""
    if _set_kind(a) in BOXES:
        small, large = (a, b) if len(a) <= len(b) else (b, a)
        for x in small:
            _holds(large, x)


def exact_member(x: Any, s: frozenset | dict[Any, Any]) -> bool:
    """Whether ``s`` holds ``x`` itself, for an ``x`` Python finds in ``s``: a boolean or an
    integer 0 or 1 (``True in {1}`` holds in Python), or a tuple, function or set whose
    equal element in ``s`` may differ from it by such a pun inside (``[a |-> 0]`` in
    ``{[a |-> FALSE]}``)."""
    tx = type(x)
    if tx in BOXES:
        return same_value(twin(x, s), x)
    return any(type(y) is tx and y == x for y in s)


def found_maybe_other(x: Any) -> bool:
    """Whether Python may find ``x`` in a set that does not hold it (``exact_member``)."""
    return atom_pun(x) or type(x) in BOXES


def _holds(s: frozenset, x: Any) -> bool:
    """``x`` is an element of ``s`` (TRUE is not 1). Fails when ``s`` holds a tuple, function
    or set Python finds equal to ``x`` that is another TLA+ value (a boolean standing for an
    integer inside them): TLC compares the two to build or test the set, and fails."""
    try:
        if x not in s:
            return False
    except TypeError:
        return False
    if type(x) in BOXES:
        other = twin(x, s)
        if not same_value(other, x):
            raise _twin_met(x, other)
        return True
    return not found_maybe_other(x) or exact_member(x, s)


def _twin_met(x: Any, other: Any) -> EvalError:
    """The error of a lookup of ``x`` meeting its twin ``other`` (rule T1)."""
    return EvalError(f"attempted to compare {format_value(x)} with {format_value(other)}, "
                     "which TLC cannot compare")


def _found(x: Any, s: Collection[Any]) -> bool:
    """Whether Python finds ``x`` in ``s``."""
    try:
        return x in s
    except TypeError:
        return False


def found_as_pun(x: Any, f: Fn) -> bool:
    """Whether Python finds the key ``x`` among the arguments of ``f`` only as another TLA+
    value (TRUE as 1, ``<<0>>`` as ``<<FALSE>>``); ``x`` is in ``f.map`` to Python. TLC's
    lookup of such a key fails (``f[x]``: A1; ``[f EXCEPT ![x] = v]``: X1, T1 of
    ``unequal_or_fail``); a key Python does not find at all is ``except_miss``'s."""
    if type(x) in BOXES:
        return not same_value(twin(x, f.map), x)
    if atom_pun(x) and f.pun_keys():
        return not exact_member(x, f.map)
    return False


_LINEAR_SEARCH_BELOW = 32  # FcnRcdValue.selectBinarySearch: a normalised domain this large is bisected


def except_miss(key: Any, f: tuple | Fn) -> None:
    """One step of ``[f EXCEPT ![key] = v]`` for a ``key`` Python does not find among the
    arguments of ``f``, a tuple (a sequence: ``key`` an integer outside 1..Len(f), or not an
    integer) or an ``Fn``: TLC leaves f as it is, having failed where its lookup of the key
    fails (rule X1 of ``unequal_or_fail``): a key of a non-empty sequence that is not an
    integer fails (TupleValue.select; against the integers of its domain, E1-E4, where the
    sequence is a FcnRcdValue); a key of another function fails when it fails to compare
    with some argument (selectLinearSearch: ``domain[i].equals(key)`` for every argument
    in turn; ``tlc_equal``), and, in a domain of at least 32 arguments (a binary search by
    compareTo, meeting only some), when it fails to compare with every argument. An
    untyped model value never fails here (E2), nor does a key of ``<<>>``: not judged."""
    if not isinstance(f, Fn):  # a sequence
        if f and type(key) is not int:
            try:
                tlc_equal(key, 1)  # every index an integer: each comparison fails alike
            except EvalError:
                raise EvalError(f"attempted to look up the {type_name(key)} {format_value(key)} "
                                f"in the domain 1..{len(f)} of {format_value(f)}, whose "
                                "indices TLC cannot compare with it") from None
        return
    m = f.map
    tk = type(key)
    if (tk is int or tk is str or tk is bool) and all(type(d) is tk for d in m):
        return  # the common miss: arguments of the key's kind, unequal to it
    if len(m) < _LINEAR_SEARCH_BELOW:
        for d in m:
            tlc_equal(d, key)
        return
    failed: EvalError | None = None
    for d in m:
        try:
            tlc_equal(d, key)
        except EvalError as err:
            failed = failed or err
            continue
        return  # compared without failing: the binary search may meet only such arguments
    if failed is not None:
        raise failed


def _fails(x: Any, y: Any) -> bool:
    """Whether TLC fails to compare ``x`` with ``y`` in either order (``tlc_equal`` raises
    both ways)."""
    for p, q in ((x, y), (y, x)):
        try:
            tlc_equal(p, q)
        except EvalError:
            continue
        return False
    return True


def member_miss(x: Any, s: Collection[Any], nested: bool = True) -> bool:
    """``x \\in s`` for a finite set ``s`` (or the keys of a function's map: its domain)
    not holding ``x``: FALSE, or fails as TLC does (rules M1-M2 of ``unequal_or_fail``;
    without ``nested``, M1 only for values of different kinds)."""
    tx = type(x)
    kx: Any = _KINDS.get(tx)  # (a typed model value's kind is its type, a string)
    if kx is None or not s:
        return False
    if tx in BOXES and _found(x, s):  # T1: the search meets x's twin, and fails there
        raise _twin_met(x, next(y for y in s if y == x))  # (an error's path)
    if kx == _MODEL:
        if x.vtype is None:
            return False  # E2: never fails
        kx = x.vtype
    ts = set(map(type, s))
    if len(ts) == 1 and tx in ts and (tx is int or tx is str or tx is bool):
        return False  # the common case: elements of x's kind
    kinds, untyped = _sort_kinds(s)
    if _unsortable(kinds, untyped):
        pass  # M2: never sorted, so every element is compared with x (equals)
    elif len(kinds) != 1 or (untyped and tx is ModelValue):
        return False  # only untyped model values, or an order TLC does not keep here
    elif kx in kinds and nested and kx in (_FUNCTION, _SET):
        # M1 nested: fails if every element fails against x
        if not all(_fails(x, y) for y in s if type(y) is not ModelValue):
            return False
    elif kx in kinds:
        return False
    shown = format_value(s if type(s) is frozenset else frozenset(s))
    raise EvalError(f"attempted to check whether the {type_name(x)} {format_value(x)} is an "
                    f"element of {shown}, whose elements TLC cannot compare with it")


def built_set(items: list[Any], loc: Loc | None = None) -> frozenset:
    """The set of ``items`` (``{a, b}``, ``{e : x \\in S}``). Two items that are one element
    only to Python (TRUE and 1, ``[a |-> 0]`` and ``[a |-> FALSE]``) fail, as TLC fails to
    compare them when it sorts the set (to enumerate, count, print or fingerprint it);
    Python would keep one of them and lose the other."""
    s = frozenset(items)
    if len(s) < len(items):
        first: dict[Any, Any] = {}
        for v in items:
            w = first.setdefault(v, v)
            if w is not v and not same_value(w, v):
                raise EvalError(f"a set holding both {format_value(w)} and {format_value(v)}, "
                                "which TLC cannot compare", loc)
    return s


def cup_check(a: frozenset, b: frozenset) -> None:
    """Fails where TLC fails to evaluate ``a \\cup b`` (rule C1 of ``unequal_or_fail``);
    ``a`` and ``b`` are not empty."""
    if plain_sets(a, b):
        _no_twins(a, b)
        return
    if unsortable(b):
        raise _unsortable_error(b)
    for y in b:
        if not _holds(a, y):
            member_miss(y, a, nested=False)


def cap_check(a: frozenset, b: frozenset) -> None:
    """Fails where TLC fails to evaluate ``a \\cap b`` or ``a \\ b`` (rule C2); ``a`` and
    ``b`` are not empty."""
    if plain_sets(a, b):
        _no_twins(a, b)
        return
    for x in a:
        if not _holds(b, x):
            member_miss(x, b, nested=False)


def subseteq_or_fail(a: frozenset, b: frozenset) -> bool:
    """``a \\subseteq b`` as TLC answers it (rule C3 of ``unequal_or_fail``)."""
    plain = plain_sets(a, b)
    if plain and a <= b:
        _no_twins(a, b)
        return True
    if not plain and unsortable(a):
        raise _unsortable_error(a)
    kind = _set_kind(a)
    if kind is tuple or kind is frozenset:
        # TLC's order of tuples, functions and sets (``sort_key``) is known: the first
        # element of a missing from b decides, its lookup failing (M1, T1) or not
        for x in sorted_values(a):
            if not _holds(b, x):
                member_miss(x, b)
                return False
        return True
    failed: EvalError | None = None
    missing = False
    for x in a:
        try:
            held = _holds(b, x)
        except EvalError as err:  # b holds x's twin: looking x up fails (T1)
            failed = failed or err
            missing = True
            continue
        if not held:
            missing = True
            try:
                member_miss(x, b)
            except EvalError as err:
                failed = failed or err
                continue
            return False  # some element TLC may test first is not in b, without failing
    if failed is not None:
        raise failed
    return not missing


def reuse_equal(new: tuple, old: tuple) -> tuple:
    """``new`` with each item TLA+-equal to ``old``'s item at its position replaced by that
    very object (``new`` itself when there is none): a successor state then shares the
    values an action rebuilt unchanged with its parent, which identity-keyed caches
    (fingerprints, invariant parts, type checks) see at once."""
    out: list | None = None
    for i in compress(range(len(new)), map(is_not, new, old)):  # the items not shared
        v, o = new[i], old[i]
        if v == o and same_value(v, o):
            if out is None:
                out = list(new)
            out[i] = o
    return new if out is None else tuple(out)


def punnable(v: Any) -> bool:
    """Whether ``v`` holds a boolean or an integer 0 or 1 anywhere (a possible pun)."""
    t = type(v)
    if t is bool:
        return True
    if t is int:
        return v == 0 or v == 1
    if t is tuple or t is frozenset:
        return any(punnable(x) for x in v)
    if t is Fn:
        return any(punnable(k) or punnable(x) for k, x in v.map.items())
    return False


def _is_seq_domain(keys: Iterable[Any], n: int) -> bool:
    seen = 0
    for k in keys:
        if type(k) is not int or not 1 <= k <= n:
            return False
        seen += 1
    return seen == n


def make_fn(mapping: Mapping[Any, Any]) -> Value:
    """The function with the given graph, normalised (a ``1..n`` domain gives a tuple)."""
    n = len(mapping)
    if _is_seq_domain(mapping.keys(), n):
        return tuple(mapping[i] for i in range(1, n + 1))
    return Fn(dict(mapping))


def make_record(fields: Iterable[tuple[str, Any]]) -> Fn:
    """A record from (field, value) pairs."""
    return Fn(dict(fields))


def is_function(v: object) -> bool:
    return isinstance(v, (tuple, Fn))


def fn_domain(f: tuple | Fn) -> frozenset:
    if isinstance(f, tuple):
        return frozenset(range(1, len(f) + 1))
    return frozenset(f.map)


def fn_items(f: tuple | Fn) -> Iterator[tuple[Any, Any]]:
    if isinstance(f, tuple):
        return iter(enumerate(f, 1))
    return iter(f.map.items())


class ApplyError(Exception):
    """An argument outside a function's domain (the caller adds the location)."""


def fn_apply(f: tuple | Fn, x: Any) -> Any:
    if isinstance(f, tuple):
        if type(x) is int and 1 <= x <= len(f):
            return f[x - 1]
        raise ApplyError(f"{format_value(x)} is not in the domain 1..{len(f)} of {format_value(f)}")
    try:
        v = f.map[x]
    except (KeyError, TypeError):
        raise ApplyError(
            f"{format_value(x)} is not in the domain of {format_value(f)}"
        ) from None
    if ((f.pun_keys() and atom_pun(x))
            or type(x) in BOXES) and not exact_member(x, f.map):
        # found only as TRUE == 1: FcnRcdValue.select compares x with the domain, and fails
        raise ApplyError(f"{format_value(x)} is not in the domain of {format_value(f)}, "
                         "whose elements TLC cannot compare with it")
    return v


# ---------------------------------------------------------------------------
# Ordering and printing (TLC prints sets in a canonical order)
# ---------------------------------------------------------------------------

# a sequence is a function (over 1..n): one kind, ordered among the other functions
_KIND_ORDER = {bool: 0, int: 1, str: 2, ModelValue: 3, tuple: 5, Fn: 5, frozenset: 6}
_FIRST = itemgetter(0)


def sort_key(v: Any) -> tuple[Any, ...]:
    """TLC's order of values of one kind (its ``compareTo``), which printing, enumeration and
    CHOOSE follow: sets by size, then element by element; functions and records by size,
    then their domains argument by argument, then their values in that order (all the
    arguments before any value: ``FcnRcdValue`` and ``RecordValue``). A sequence is ordered
    as the function it is: TLC builds ``[k \\in {1, 2} |-> 0]`` and ``[k \\in {0, 2} |-> 0]``
    alike and puts the second first (its first argument is smaller)."""
    t = type(v)
    kind = _KIND_ORDER.get(t, 9)
    if t is bool or t is int or t is str:
        return (kind, v)
    if t is ModelValue:
        return (kind, v.name)
    if t is tuple:
        return (kind, len(v), _sequence_domain(len(v)), tuple([sort_key(x) for x in v]))
    if t is Fn:
        items = sorted([(sort_key(k), x) for k, x in v.map.items()], key=_FIRST)
        return (kind, len(items), tuple([k for k, _ in items]), tuple([sort_key(x) for _, x in items]))
    if t is frozenset:
        return (kind, len(v), tuple(sorted(sort_key(x) for x in v)))
    return (kind, repr(v))


@lru_cache(maxsize=64)
def _sequence_domain(n: int) -> tuple[Any, ...]:
    """The keys of ``1..n``, the domain a sequence of length ``n`` is ordered by."""
    return tuple([sort_key(k) for k in range(1, n + 1)])


def sorted_values(values: Iterable[Any]) -> list[Any]:
    return sorted(values, key=sort_key)


def _format_str(s: str) -> str:
    return '"' + s.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n") + '"'


def format_value(v: Any) -> str:
    """TLA+ syntax for a value, as TLC prints it."""
    t = type(v)
    if t is bool:
        return "TRUE" if v else "FALSE"
    if t is int:
        return str(v)
    if t is str:
        return _format_str(v)
    if t is ModelValue:
        return v.name
    if t is tuple:
        return "<<" + ", ".join(format_value(x) for x in v) + ">>"
    if t is frozenset:
        return "{" + ", ".join(format_value(x) for x in sorted_values(v)) + "}"
    if t is Fn:
        keys = sorted_values(v.map)
        if v.is_record():
            return "[" + ", ".join(f"{k} |-> {format_value(v.map[k])}" for k in keys) + "]"
        return "(" + " @@ ".join(f"{format_value(k)} :> {format_value(v.map[k])}" for k in keys) + ")"
    return repr(v)


def type_name(v: Any) -> str:
    """A short name of a value's kind, for error messages."""
    t = type(v)
    if t is tuple:
        return "sequence"
    if t is Fn:
        return "record" if v.is_record() else "function"
    return {bool: "boolean", int: "integer", str: "string", ModelValue: "model value",
            frozenset: "set"}.get(t, t.__name__)
