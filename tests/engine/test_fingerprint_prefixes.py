"""A successor's fingerprint computed from its parent's prefixes (``canonical_after``) is the
fingerprint of the successor itself, whatever it shares with the parent."""

from __future__ import annotations

from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from conformance.tla.fpset import Fingerprinter
from conformance.tla.values import Fn, same_value

_atoms = st.one_of(st.integers(-2, 3), st.booleans(), st.sampled_from(["a", "b"]))
_values = st.recursive(
    _atoms,
    lambda inner: st.one_of(
        st.lists(inner, max_size=3).map(tuple),
        st.frozensets(inner, max_size=3),
        st.dictionaries(st.sampled_from(["x", "y", 0, 1]), inner, min_size=1, max_size=3).map(Fn),
    ),
    max_leaves=6,
)


def _copy(v: Any) -> Any:
    """An equal value built anew (other objects, the same TLA+ value)."""
    if type(v) is tuple:
        return tuple(_copy(x) for x in v)
    if type(v) is frozenset:
        return frozenset(_copy(x) for x in v)
    if type(v) is Fn:
        return Fn({k: _copy(x) for k, x in v.map.items()})
    return v


@given(st.lists(_values, min_size=1, max_size=6), st.data())
def test_canonical_after_gives_the_state_fingerprint(parent: list[Any], data: st.DataObject) -> None:
    fpr = Fingerprinter()
    known = fpr.prefixes(tuple(parent))
    assert fpr.canonical_after(known[0], known)[0] == fpr.state(parent)
    succ: list[Any] = []
    for v in parent:  # per value: the parent's object, an equal copy, or another value
        how = data.draw(st.sampled_from(["same", "copy", "other"]))
        succ.append(v if how == "same" else _copy(v) if how == "copy" else data.draw(_values))
    succ.extend(data.draw(st.lists(_values, max_size=2)))
    del succ[len(succ) - data.draw(st.integers(0, min(2, len(succ) - 1))):]
    assert fpr.canonical_after(tuple(succ), known)[0] == Fingerprinter().state(succ)


def test_a_boolean_in_the_successor_is_not_the_parents_integer() -> None:
    fpr = Fingerprinter()
    known = fpr.prefixes((0, "a", 1))
    assert fpr.canonical_after((False, "a", 1), known)[0] == fpr.state((False, "a", 1)) != fpr.state((0, "a", 1))
    assert fpr.canonical_after((0, "a", True), known)[0] == fpr.state((0, "a", True))


def _parts(v: Any) -> list[Any]:
    """``v`` and every value inside it (what fingerprinting it puts in the memo)."""
    inner = list(v.map.items()) if type(v) is Fn else list(v) if type(v) in (tuple, frozenset) else []
    return [v, *[q for x in inner for q in _parts(x)]]


@given(st.lists(_values, min_size=1, max_size=6), st.data())
def test_canonical_after_keeps_the_values_and_shares_equal_ones(parent: list[Any], data: st.DataObject) -> None:
    fpr = Fingerprinter()
    copy = tuple(_copy(v) for v in parent)
    known = fpr.prefixes(copy, canonical=True)
    assert known[0] == copy and fpr.canonical_after(known[0], known)[0] == Fingerprinter().state(parent)
    base = known[0]
    succ = tuple(data.draw(st.sampled_from([v, _copy(v), data.draw(_values)])) for v in base)
    fp, out = fpr.canonical_after(succ, known)
    assert fp == Fingerprinter().state(succ) == fpr.state(out)
    assert len(out) == len(succ)
    met = [v for top in (*base, *succ) for v in _parts(top)]
    for x, y, p in zip(out, succ, base, strict=True):
        assert x == y and same_value(x, y)  # the same values (no pun taken for a match)
        # the memo keeps one object per Python value: a pun twin met too (<<1>> and <<TRUE>>)
        # may have taken p's place, and then y keeps its own object
        twin = any(q == p and not same_value(q, p) for q in met)
        if type(y) in (tuple, frozenset, Fn) and y == p and same_value(y, p) and not twin:
            assert x is p  # an equal value met before: its first object


def test_a_tuple_punning_one_met_before_keeps_its_own_object() -> None:
    # canonical() shares a tuple whose items are the very objects of one met before;
    # <<TRUE, 2>> equals <<1, 2>> in Python but is another TLA+ value
    fpr = Fingerprinter()
    first = tuple([1, 2])
    assert fpr.canonical(first) == (first, fpr.value(first))
    again = tuple([1, 2])
    assert fpr.canonical(again)[0] is first
    pun = tuple([True, 2])
    c, fp = fpr.canonical(pun)
    assert c is pun and fp != fpr.value(first)


def test_a_function_punning_one_met_before_keeps_its_own_object() -> None:
    # the same values at the same keys (or the same keys) are not enough when a boolean
    # stands where the first has an integer: [x \in {1} |-> "a"] vs [x \in {TRUE} |-> "a"]
    fpr = Fingerprinter()
    first = Fn({1: "a", "k": 0})
    assert fpr.canonical(first)[0] is first
    assert fpr.canonical(Fn({1: "a", "k": 0}))[0] is first
    for pun in (Fn({True: "a", "k": 0}), Fn({1: "a", "k": False})):
        c, fp = fpr.canonical(pun)
        assert c is pun and fp != fpr.value(first)


def test_pun_twins_in_one_state_keep_their_values_and_fingerprints() -> None:
    # [x |-> 1] and [x |-> TRUE] are one key of the value memo (Python finds them equal):
    # each may evict the other, so a copy keeps its own object, never the twin's
    fpr = Fingerprinter()
    known = fpr.prefixes((0, Fn({"x": 1}), Fn({"x": True})), canonical=True)
    succ = (0, Fn({"x": 1}), Fn({"x": True}))
    fp, out = fpr.canonical_after(succ, known)
    assert fp == Fingerprinter().state(succ) == fpr.canonical_after(known[0], known)[0]
    assert [type(v.map["x"]) for v in out[1:]] == [int, bool]


def test_a_states_fingerprint_depends_on_where_each_value_is() -> None:
    # the shares of a state's values are summed: each is mixed with its position's key, so
    # values that trade places, or a value added at the end, give another fingerprint
    fpr = Fingerprinter()
    assert fpr.state((0, 1)) != fpr.state((1, 0))
    assert fpr.state((Fn({"x": 1}), 1)) != fpr.state((1, Fn({"x": 1})))
    assert len({fpr.state((0,)), fpr.state((0, 0)), fpr.state((0, 0, 0)), fpr.state(())}) == 4
