"""64-bit fingerprints of states and the compact set of fingerprints seen so far.

Fingerprints are computed structurally (TLA+ equality gives equal fingerprints) and do
not depend on Python's per-process string hashing, so they are the same in every run.
Sets and functions combine their elements commutatively, so iteration order never
matters. Container fingerprints are memoised on the value itself: successive states
share most of their sub-values, so a state costs little more than its changed parts.
"""

from __future__ import annotations

from array import array
from collections.abc import Sequence
from hashlib import blake2b
from itertools import compress
from operator import is_, is_not
from typing import Any

from conformance.tla.values import Fn, ModelValue, same_value

_MASK = (1 << 64) - 1
_K1 = 0xFF51AFD7ED558CCD
_K2 = 0xC4CEB9FE1A85EC53
_PRIME = 0x100000001B3
_TAG_INT = 0x2545F4914F6CDD1D
_TAG_TUPLE = 0x9E3779B97F4A7C15
_TAG_SET = 0xD6E8FEB86659FD93
_TAG_FN = 0xA0761D6478BD642F
_TAG_STATE = 0xE7037ED1A0B428DB
_FP_TRUE = 0x8EBC6AF09C88C6E3
_FP_FALSE = 0x589965CC75374CC3
_ATOMS_LIMIT = 1 << 16  # integers, strings and model values whose fingerprints are kept

# a state's values, each value's share of the state fingerprint, and the sum of the shares
StatePrefixes = tuple[Sequence[Any], list[int], int]
_POSITIONS: list[int] = []  # a key per variable position, mixed into its value's share


def _positions(n: int) -> list[int]:
    """The keys of the first ``n`` positions (extended as states with more variables come)."""
    while len(_POSITIONS) < n:
        _POSITIONS.append(_mix((len(_POSITIONS) + 1) * _TAG_STATE & _MASK))
    return _POSITIONS


def _mix(x: int) -> int:
    """The murmur3 64-bit finaliser (a bijection of 64-bit integers)."""
    x ^= x >> 33
    x = (x * _K1) & _MASK
    x ^= x >> 33
    x = (x * _K2) & _MASK
    return x ^ (x >> 33)


def _digest(text: str, tag: bytes) -> int:
    return int.from_bytes(blake2b(text.encode("utf-8"), digest_size=8, person=tag).digest(), "little")


def _share(fp: int, key: int) -> int:
    """A value's share of a state fingerprint: its fingerprint mixed with its position's key."""
    return _mix(fp ^ key)


def _finish(total: int, n: int) -> int:
    """A state fingerprint from the sum of its ``n`` values' shares."""
    return _mix(((total & _MASK) ^ _TAG_STATE) + n & _MASK)


def state_fingerprint(fps: Sequence[int]) -> int:
    """``Fingerprinter.state`` of a state whose values have the fingerprints ``fps``."""
    return _finish(sum([_share(fp, k) for fp, k in zip(fps, _positions(len(fps)), strict=False)]),
                   len(fps))


class Fingerprinter:
    """Computes 64-bit fingerprints of values and states, with a bounded memo."""

    def __init__(self, memo_limit: int = 1 << 16) -> None:
        # by value: (the first object of that value, its fingerprint); by identity: (the
        # object, kept alive so that its id is not reused, its fingerprint, that first object)
        self._memo: dict[Any, tuple[Any, int]] = {}
        self._ids: dict[int, tuple[Any, int, Any]] = {}
        self._atoms: dict[Any, int] = {}
        self._memo_limit = memo_limit

    def value(self, v: Any) -> int:
        t = type(v)
        if t is int:
            if -(1 << 62) <= v < (1 << 62):
                fp = self._atoms.get(v)
                if fp is None:
                    fp = _mix((v ^ _TAG_INT) & _MASK)
                    if len(self._atoms) < _ATOMS_LIMIT:
                        self._atoms[v] = fp
                return fp
            return _digest(str(v), b"bigint")
        if t is bool:
            return _FP_TRUE if v else _FP_FALSE
        if t is str or t is ModelValue:
            atoms = self._atoms
            fp = atoms.get(v)
            if fp is None:
                fp = _digest(v, b"str") if t is str else _digest(v.name, b"model")
                if len(atoms) < _ATOMS_LIMIT:
                    atoms[v] = fp
            return fp
        # Successive states share sub-values: first by identity (the entry keeps the value
        # alive, so its id is not reused), then by value, where a hit counts only when the
        # stored value is the same TLA+ value (Python: [a |-> FALSE] == [a |-> 0])
        hit = self._ids.get(id(v))
        if hit is not None:
            return hit[1]
        return self._by_value(v, t)[1]

    def canonical(self, v: Any) -> tuple[Any, int]:
        """``(c, fp)``: ``fp`` is ``v``'s fingerprint and ``c`` is ``v`` or an object of the
        same TLA+ value met before (the first one fingerprinted while the memo keeps it), so
        values built again and again by different steps become one object."""
        t = type(v)
        if t is int or t is bool or t is str or t is ModelValue:
            return v, self.value(v)
        hit = self._ids.get(id(v))
        if hit is not None:
            return hit[2], hit[1]
        return self._by_value(v, t)

    def _by_value(self, v: Any, t: type) -> tuple[Any, int]:
        """``canonical(v)`` for a container not known by identity."""
        ids = self._ids
        memo = self._memo
        hit = memo.get(v)
        # a tuple whose items are the very objects of the one stored (a function of
        # small integers or strings, say) is the same value: no call of same_value
        if hit is not None and (hit[0] is v or (t is tuple and all(map(is_, hit[0], v)))
                                or same_value(hit[0], v)):
            if len(ids) >= self._memo_limit:
                ids.clear()
            ids[id(v)] = (v, hit[1], hit[0])
            return hit
        h = self._container(v, t)
        c = self._with_canonical_items(v, t)
        if len(memo) >= self._memo_limit:
            memo.clear()
        if len(ids) >= self._memo_limit - 1:
            ids.clear()
        memo[c] = (c, h)
        ids[id(v)] = (v, h, c)
        if c is not v:
            ids[id(c)] = (c, h, c)
        return c, h

    def _with_canonical_items(self, v: Any, t: type) -> Any:
        """``v`` with each item that is a container (a function's value; a set's element)
        replaced by its ``canonical`` object, ``v`` itself when each already is one: values
        stored share their parts, so that a value built again from stored parts is compared
        with the stored one by identity, item by item."""
        canon = self.canonical
        items = v.map.values() if t is Fn else v
        out = []
        changed = False
        for x in items:
            tx = type(x)
            if tx is tuple or tx is frozenset or tx is Fn:
                c = canon(x)[0]
                if c is not x:
                    changed = True
                    x = c
            out.append(x)
        if not changed:
            return v
        if t is tuple:
            return tuple(out)
        if t is frozenset:
            return frozenset(out)
        return Fn(dict(zip(v.map, out, strict=True)))

    def _container(self, v: Any, t: type) -> int:
        """The fingerprint of a tuple, set or function, computed from its items'."""
        ids = self._ids
        val = self.value
        # the atoms' fingerprints (never a boolean's: True == 1 in the table) and the
        # containers' known by identity are looked up here, and _mix is written out: these
        # loops are the hottest of fingerprinting
        atoms = self._atoms
        if t is tuple:
            h = _TAG_TUPLE ^ len(v)
            for x in v:
                tx = type(x)
                if tx is bool:
                    fx = _FP_TRUE if x else _FP_FALSE
                elif tx is int or tx is str:
                    fx = atoms.get(x) or val(x)  # (val gives the same for a stored 0)
                else:
                    hit = ids.get(id(x))
                    fx = val(x) if hit is None else hit[1]
                x = (h * _PRIME + fx) & _MASK
                x ^= x >> 33
                x = (x * _K1) & _MASK
                x ^= x >> 33
                x = (x * _K2) & _MASK
                h = x ^ (x >> 33)
        elif t is frozenset:
            s = 0
            for x in v:
                tx = type(x)
                if tx is int or tx is str:
                    s += atoms.get(x) or val(x)
                elif tx is bool:
                    s += _FP_TRUE if x else _FP_FALSE
                else:
                    hit = ids.get(id(x))
                    s += val(x) if hit is None else hit[1]
            h = _mix(((s & _MASK) ^ _TAG_SET) + len(v) & _MASK)
        elif t is Fn:
            s = 0
            for k, x in v.map.items():
                fk = atoms.get(k) if type(k) is str else None
                if fk is None:
                    fk = val(k)
                tx = type(x)
                if tx is bool:
                    fx = _FP_TRUE if x else _FP_FALSE
                elif tx is int or tx is str:
                    fx = atoms.get(x) or val(x)  # (val gives the same for a stored 0)
                else:
                    hit = ids.get(id(x))
                    fx = val(x) if hit is None else hit[1]
                x = (fk * _PRIME ^ fx) & _MASK
                x ^= x >> 33
                x = (x * _K1) & _MASK
                x ^= x >> 33
                x = (x * _K2) & _MASK
                s += x ^ (x >> 33)
            h = _mix(((s & _MASK) ^ _TAG_FN) + len(v.map) & _MASK)
        else:
            raise TypeError(f"cannot fingerprint a {t.__name__}")
        return h

    def state(self, values: Sequence[Any]) -> int:
        """The fingerprint of a state given as the sequence of its variables' values: the
        sum of its values' shares (each its fingerprint mixed with its position's key), so
        that a successor's is the parent's with the shares of its changed values replaced."""
        keys = _positions(len(values))
        val = self.value
        return _finish(sum([_share(val(x), k) for x, k in zip(values, keys, strict=False)]), len(values))

    def prefixes(self, values: Sequence[Any], canonical: bool = False) -> StatePrefixes:
        """What ``canonical_after`` needs of a state: its values, their shares of its
        fingerprint, and the sum of the shares. ``canonical``: the values given are the tuple of
        their ``canonical`` objects (a state read back from disk, say, then shares its values
        with the states seen before)."""
        if canonical:
            pairs = list(map(self.canonical, values))
            values = tuple([c for c, _ in pairs])
            fps = [fp for _, fp in pairs]
        else:
            fps = list(map(self.value, values))
        shares = [_share(fp, k) for fp, k in zip(fps, _positions(len(values)), strict=False)]
        return values, shares, sum(shares)

    def canonical_after(self, values: tuple[Any, ...], known: StatePrefixes) -> tuple[int, tuple[Any, ...]]:
        """``state(values)``, computed from the ``prefixes`` of another state (a parent): its
        sum of shares with the shares of the values that are not the very objects there
        replaced; and ``values`` with each such value replaced by its ``canonical`` object
        (``values`` itself when none is): successors reached from different states then share
        their equal values."""
        other, shares, total = known
        n = len(values)
        if n != len(other):
            return self.state(values), values
        keys = _POSITIONS
        canon = self.canonical
        out: list[Any] | None = None
        for i in compress(range(n), map(is_not, values, other)):
            v = values[i]
            c, fp = canon(v)
            x = fp ^ keys[i]  # _share written out
            x ^= x >> 33
            x = (x * _K1) & _MASK
            x ^= x >> 33
            x = (x * _K2) & _MASK
            total += (x ^ (x >> 33)) - shares[i]
            if c is not v:
                if out is None:
                    out = list(values)
                out[i] = c
        return _finish(total, n), values if out is None else tuple(out)


class FingerprintSet:
    """The distinct states found so far: fingerprints, and for each state (numbered in
    discovery order) its fingerprint and its parent's number (-1 for initial states).

    About 90 bytes per state: a Python ``set`` of ints plus two ``array`` columns.
    """

    def __init__(self) -> None:
        self._seen: set[int] = set()
        self.fps: array[int] = array("Q")
        self.parents: array[int] = array("q")

    def __len__(self) -> int:
        return len(self.fps)

    def __contains__(self, fp: int) -> bool:
        return fp in self._seen

    def add(self, fp: int, parent: int) -> int:
        """Record a new state and return its number, or -1 if ``fp`` was already seen."""
        seen = self._seen
        if fp in seen:
            return -1
        seen.add(fp)
        self.fps.append(fp)
        self.parents.append(parent)
        return len(self.fps) - 1

    def path_to(self, index: int) -> list[int]:
        """State numbers from an initial state to ``index``, inclusive."""
        path = [index]
        parents = self.parents
        while parents[path[-1]] >= 0:
            path.append(parents[path[-1]])
        path.reverse()
        return path
