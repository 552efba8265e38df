"""Differences of large values name the first differing offset or field."""

from __future__ import annotations

from conformance.tla.values import make_fn
from conformance.validate.value_diff import abbreviate, first_difference


def entry(epoch: int, value: int) -> object:
    return make_fn({"epoch": epoch, "kind": "data", "value": value})


def test_equal_values_have_no_difference() -> None:
    assert first_difference((1, 2), (1, 2)) == ""


def test_logs_name_the_first_differing_entry_and_field() -> None:
    a = (entry(1, 5), entry(1, 6), entry(2, 7))
    b = (entry(1, 5), entry(1, 6), entry(3, 7))
    assert first_difference(a, b) == "[3].epoch: expected 2, observed 3"


def test_lengths_differ() -> None:
    a = (entry(1, 5),)
    b = (entry(1, 5), entry(1, 6))
    d = first_difference(a, b)
    assert "lengths differ (expected 1, observed 2)" in d and "in observed at [2]" in d


def test_sets_and_functions() -> None:
    assert first_difference(frozenset({1, 3}), frozenset({1, 4})) == "{one element}: expected 3, observed 4"
    d = first_difference(frozenset({1, 3, 5}), frozenset({1, 4}))
    assert "2 expected element(s) not observed, first 3" in d and "1 observed element(s) not expected, first 4" in d
    f = make_fn({1: 0, 2: 5, 3: 0})
    g = make_fn({1: 0, 2: 6, 3: 0})
    assert first_difference(f, g) == "[2]: expected 5, observed 6"
    h = make_fn({"a": 1})
    k = make_fn({"b": 1})
    assert "domains differ" in first_difference(h, k)


def test_abbreviate_long_values() -> None:
    long = tuple(range(500))
    text = abbreviate(long, 40)
    assert text.startswith("<<0, 1, 2") and text.endswith("chars)") and len(text) < 80


def test_sets_with_as_many_changed_elements_diff_the_first_pair() -> None:
    a = frozenset({make_fn({"epoch": 5, "dest": 1}), make_fn({"epoch": 5, "dest": 2})})
    b = frozenset({make_fn({"epoch": 4, "dest": 1}), make_fn({"epoch": 4, "dest": 2})})
    assert first_difference(a, b) == "2 element(s) differ; {first of 2}.epoch: expected 5, observed 4"
