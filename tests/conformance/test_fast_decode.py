"""Fast decoding gives exactly the ITF codec's values, and defers every oddity to it."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from conformance.tla import itf
from conformance.tla.values import same_value
from conformance.validate.fast_decode import IncrementalDecoder, NeedsSlowPath, decode_fast
from conformance.validate.mutations import read_lines

CORPUS = Path(__file__).resolve().parents[2] / "traces" / "corpus" / "valid"

scalars = st.one_of(st.integers(-5, 5), st.booleans(), st.text("ab", max_size=2))
json_values = st.recursive(
    scalars,
    lambda inner: st.one_of(
        st.lists(inner, max_size=3),
        st.dictionaries(st.sampled_from(["a", "b", "epoch"]), inner, min_size=2, max_size=3),
        st.builds(lambda xs: {"#set": xs}, st.lists(scalars, max_size=3)),
        st.builds(lambda xs: {"#tup": xs}, st.lists(inner, max_size=3)),
        st.builds(lambda xs: {"#map": [[k, v] for k, v in xs]}, st.lists(st.tuples(scalars, inner), max_size=3)),
    ),
    max_leaves=10,
)


@given(json_values)
def test_same_values_as_the_codec(obj: object) -> None:
    try:
        expected = itf.decode(obj)
    except (itf.ItfError, TypeError):
        with pytest.raises((NeedsSlowPath, TypeError)):
            decode_fast(obj)
        return
    got = decode_fast(obj)
    assert got == expected and type(got) is type(expected)


@pytest.mark.parametrize("odd", [{"#bigint": "12"}, {"#unserializable": "x"}, {"#sett": []}, 1.5, None,
                                 {"#set": 3}, {"a": 1, "#b": 2}, {"#map": [[1]]}])
def test_anything_unusual_goes_to_the_codec(odd: object) -> None:
    with pytest.raises(NeedsSlowPath):
        decode_fast(odd)


def test_corpus_states_decode_identically() -> None:
    lines = read_lines(CORPUS / "seed-1.ndjson.gz")
    inc = IncrementalDecoder()
    for line in lines:
        if line["kind"] != "event":
            continue
        for name, raw in line["state"].items():
            assert inc.decode((line["replica"], name), raw) == itf.decode(raw)
        for m in line["sent"]:
            assert decode_fast(m) == itf.decode(m)


def test_incremental_decoder_reuses_and_extends() -> None:
    inc = IncrementalDecoder()
    log = [{"epoch": 1, "kind": "data", "value": 1}]
    first = inc.decode("log", log)
    assert inc.decode("log", json.loads(json.dumps(log))) is first
    longer = inc.decode("log", [*log, {"epoch": 2, "kind": "data", "value": 3}])
    assert longer == itf.decode([*log, {"epoch": 2, "kind": "data", "value": 3}])
    truncated = inc.decode("log", [{"epoch": 5, "kind": "data", "value": 2}])
    assert truncated == itf.decode([{"epoch": 5, "kind": "data", "value": 2}])
    assert inc.decode("n", 1) == 1 and inc.decode("n", True) is True  # a bool is not the int 1


@given(st.lists(json_values, max_size=4))
def test_shared_records_decode_to_the_codecs_values(objs: list[object]) -> None:
    """Decoding with one table of shared records (as a trace stream does) changes no value,
    not even a boolean into an integer."""
    shared: dict = {}
    for obj in objs:
        try:
            expected = itf.decode(obj)
        except (itf.ItfError, TypeError):
            continue
        try:
            got = decode_fast(obj, shared)
        except NeedsSlowPath:
            continue
        assert got == expected and same_value(got, expected)


def test_equal_records_are_one_object_and_types_keep_them_apart() -> None:
    shared: dict = {}
    entry = {"epoch": 2, "kind": "data", "value": 1, "voters": {"#set": []}}
    first = decode_fast({"type": "FetchResponse", "records": [entry, dict(entry)]}, shared)
    second = decode_fast({"type": "FetchResponse", "records": [json.loads(json.dumps(entry))]}, shared)
    records = first.map["records"] + second.map["records"]  # type: ignore[union-attr]
    assert all(r is records[0] for r in records)
    as_bool = decode_fast({**entry, "value": True}, shared)
    assert as_bool.map["value"] is True and as_bool is not records[0]  # type: ignore[union-attr]
