"""ITF codec: the ADR-015 encoding of every value kind, decoding, traces on disk."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from conformance.tla import itf
from conformance.tla.values import Fn, ModelValue, Value, make_fn, make_record


def test_encoding_of_each_kind() -> None:
    assert itf.encode(True) is True
    assert itf.encode(-7) == {"#bigint": "-7"}
    assert itf.encode(2**80) == {"#bigint": str(2**80)}
    assert itf.encode("s") == "s"
    assert itf.encode(ModelValue("r1")) == "r1"
    assert itf.encode((1, "a")) == [{"#bigint": "1"}, "a"]
    assert itf.encode(frozenset({3, 1})) == {"#set": [{"#bigint": "1"}, {"#bigint": "3"}]}
    assert itf.encode(make_record([("b", 1), ("a", False)])) == {"a": False, "b": {"#bigint": "1"}}
    assert itf.encode(make_fn({"x": 1, 2: 3})) == {
        "#map": [[{"#bigint": "2"}, {"#bigint": "3"}], ["x", {"#bigint": "1"}]]}
    assert itf.encode(make_fn({ModelValue("r1"): "w"})) == {"#map": [["r1", "w"]]}


def test_decoding_accepts_plain_numbers_tuples_and_model_values() -> None:
    assert itf.decode(5) == 5
    assert itf.decode({"#tup": [1, {"#bigint": "2"}]}) == (1, 2)
    assert itf.decode({"#map": [[1, "a"], [2, "b"]]}) == ("a", "b")  # domain 1..2 is a sequence
    assert itf.decode({"#map": [[0, "a"]]}) == Fn({0: "a"})
    assert itf.decode("r1", model_values={"r1"}) is ModelValue("r1")
    assert itf.decode("r1") == "r1"


@pytest.mark.parametrize(
    ("doc", "fragment"),
    [
        ({"#bigint": "x"}, "not an integer"),
        ({"#set": 3}, "must hold a JSON array"),
        ({"#map": [[1]]}, "pair"),
        ({"#weird": 1}, "unknown ITF tag"),
        (1.5, "not an ITF value"),
        ({"#unserializable": "f"}, "unserializable"),
    ],
)
def test_decoding_errors(doc: object, fragment: str) -> None:
    with pytest.raises(itf.ItfError, match=fragment):
        itf.decode(doc, where="state 3: x")


_atoms = st.one_of(st.booleans(), st.integers(-(2**70), 2**70), st.text(max_size=4),
                   st.sampled_from([ModelValue("m1"), ModelValue("m2")]))


def _containers(children: st.SearchStrategy) -> st.SearchStrategy:
    return st.one_of(
        st.lists(children, max_size=3).map(tuple),
        st.frozensets(children, max_size=3),
        st.dictionaries(st.text(min_size=1, max_size=3).filter(lambda s: not s.startswith("#")),
                        children, min_size=1, max_size=3).map(make_fn),
        st.dictionaries(st.integers(-3, 0), children, min_size=1, max_size=3).map(make_fn),
    )


_values = st.recursive(_atoms, _containers, max_leaves=12)


@given(_values)
def test_round_trip(value: object) -> None:
    encoded = itf.encode(value)  # type: ignore[arg-type]
    assert itf.decode(json.loads(json.dumps(encoded)), model_values={"m1", "m2"}) == value


def test_trace_write_and_read(tmp_path: Path) -> None:
    path = tmp_path / "t.itf.json"
    states: list[dict[str, Value]] = [{"x": 0, "s": frozenset()}, {"x": 1, "s": frozenset({ModelValue("a")})}]
    itf.write_trace(path, ["x", "s"], states, {"source": "X.tla"}, [{"action": "Init"}, {"action": "Inc"}])
    doc = json.loads(path.read_text())
    assert doc["vars"] == ["x", "s"]
    assert doc["#meta"]["source"] == "X.tla"
    assert [s["#meta"]["index"] for s in doc["states"]] == [0, 1]
    assert doc["states"][1]["s"] == {"#set": ["a"]}
    trace = itf.read_trace(path, model_values={"a"})
    assert trace.vars == ["x", "s"]
    assert trace.states == states
    assert trace.state_meta[1]["action"] == "Inc"


def test_trace_errors_name_the_state(tmp_path: Path) -> None:
    path = tmp_path / "bad.itf.json"
    path.write_text(json.dumps({"vars": ["x"], "states": [{"x": 1}, {"y": 2}]}))
    with pytest.raises(itf.ItfError, match="state 1 lacks variable"):
        itf.read_trace(path)
    path.write_text(json.dumps({"vars": ["x"], "states": [{"x": {"#bigint": "z"}}]}))
    with pytest.raises(itf.ItfError, match=r"state 0: x"):
        itf.read_trace(path)
    path.write_text("{not json")
    with pytest.raises(itf.ItfError, match=r"bad.itf.json:1:2: invalid JSON"):
        itf.read_trace(path)
