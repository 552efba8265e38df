"""``values.plain_sets`` (the cheap test before ``\\cup``, ``\\cap`` and ``\\``) against a
plain oracle: the kinds of both operands' elements, listed one by one (Python's ``a | b``
would merge TRUE and 1), with sets large enough for their kind to be remembered and the
same sets asked about again."""

from __future__ import annotations

from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from conformance.tla import values
from conformance.tla.values import Fn, ModelValue, plain_sets

_ATOMS = st.one_of(
    st.integers(0, 40),
    st.booleans(),
    st.sampled_from(["a", "b", "c"]),
    st.sampled_from([ModelValue("m1"), ModelValue("m2")]),
)
_TYPED = st.sampled_from([ModelValue("s_one"), ModelValue("s_two")])
_CONTAINERS = st.one_of(
    st.tuples(st.integers(0, 5)),
    st.integers(0, 5).map(lambda k: Fn({"f": k})),
)


def _sets(elements: st.SearchStrategy[Any]) -> st.SearchStrategy[frozenset]:
    # mostly of one kind (a large set of one kind is the case remembered), sometimes mixed
    one_kind = st.one_of(
        st.frozensets(st.integers(0, 40), max_size=14),
        st.frozensets(st.sampled_from(["a", "b", "c", "d"]), max_size=4),
        st.frozensets(_CONTAINERS, max_size=12),
        st.frozensets(st.sampled_from([ModelValue("m1"), ModelValue("m2")]), max_size=2),
    )
    mixed = st.builds(lambda s, extra: s | {extra}, one_kind, elements)
    return st.one_of(one_kind, mixed)


def _kind(v: Any) -> Any:
    return "container" if type(v) in (tuple, Fn) else type(v)


def _oracle(a: frozenset, b: frozenset) -> bool:
    kinds = {_kind(v) for v in [*a, *b]}
    if len(kinds) > 1:
        return False
    return kinds != {ModelValue} or not ModelValue.any_typed


_ELEMENTS = st.one_of(_ATOMS, _CONTAINERS, _TYPED)


@settings(max_examples=400, deadline=None)
@given(_sets(_ELEMENTS), _sets(_ELEMENTS))
def test_plain_sets_is_the_oracle_and_stays_so_when_asked_again(a: frozenset, b: frozenset) -> None:
    expected = _oracle(a, b)
    for _ in range(2):  # the second time from the remembered kinds
        assert plain_sets(a, b) is expected
        assert plain_sets(b, a) is expected


def test_a_large_set_with_one_element_of_another_kind_is_not_plain() -> None:
    many = frozenset(range(30))
    assert plain_sets(many, frozenset({3}))
    odd = many | {"x"}
    assert not plain_sets(odd, frozenset({3}))
    assert not plain_sets(frozenset({3}), odd)
    assert not plain_sets(many, frozenset({True}))  # TRUE is not 1
    assert plain_sets(frozenset(), many) and plain_sets(many, frozenset())
    assert plain_sets(frozenset(), frozenset())


def test_remembered_kinds_are_bounded_and_keep_their_sets() -> None:
    held = [frozenset(range(k, k + 10)) for k in range(values._KIND_CACHE_LIMIT + 5)]
    for s in held:
        assert plain_sets(s, frozenset({1}))
    assert len(values._KINDS_SEEN) <= values._KIND_CACHE_LIMIT
    for key, (entry_set, kind) in values._KINDS_SEEN.items():
        assert key == id(entry_set) and kind is int
