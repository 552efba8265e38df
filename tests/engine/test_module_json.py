"""The native Json module: TLC's exact output for each kind of value, files written and
read back, and the errors for a missing or malformed file."""

from __future__ import annotations

from pathlib import Path

import pytest

from conformance.tla.community.json_ops import _json_string
from conformance.tla.loader import ModuleLoader
from conformance.tla.model import Model
from conformance.tla.parser import parse_module_text
from conformance.tla.syntax import TlaError, UnsupportedError


@pytest.fixture(scope="module")
def model() -> Model:
    return Model(parse_module_text(
        "---- MODULE T ----\nEXTENDS Integers, Sequences, TLC, TLCExt, Json\n====\n", "T.tla"),
        ModuleLoader([]))


# (expression, the string TLC gives): TLC's own test cases, then one of each other kind
TO_JSON = [
    ('ToJsonArray({})', '[]'),
    ('ToJsonArray(<<>>)', '[]'),
    ('ToJson(FALSE)', 'false'),
    ('ToJson(1)', '1'),
    ('ToJson(-7)', '-7'),
    ('ToJson("a")', '"a"'),
    ('ToJson(TLCModelValue("ModelValue"))', '"ModelValue"'),
    ('ToJson({TRUE, FALSE})', '[false,true]'),
    ('ToJson({1})', '[1]'),
    ('ToJsonArray({TRUE, FALSE})', '[false,true]'),
    ('ToJsonArray({"foo"})', '["foo"]'),
    ('ToJsonObject([a |-> TRUE, b |-> FALSE])', '{"a":true,"b":false}'),
    ('ToJsonObject([a |-> "b"])', '{"a":"b"}'),
    ('ToJson({3, 2, 1})', '[1,2,3]'),
    ('ToJson(<<3, 2, 1>>)', '[3,2,1]'),
    ('ToJson([x \\in {3, 2, 1} |-> 2 * x + 1])', '[3,5,7]'),
    ('ToJson(3 :> "c" @@ 2 :> "b" @@ 1 :> "a")', '["a","b","c"]'),
    ('ToJson([{2, 1} -> {"a", "b"}])', '[["a","a"],["a","b"],["b","a"],["b","b"]]'),
    ('ToJson([{1, 0} -> {"a", "b"}])',
     '[{"0":"a","1":"a"},{"0":"a","1":"b"},{"0":"b","1":"a"},{"0":"b","1":"b"}]'),
    ('ToJson([a : {2, 1}, b : {"a", "b"}])',
     '[{"a":1,"b":"a"},{"a":1,"b":"b"},{"a":2,"b":"a"},{"a":2,"b":"b"}]'),
    ('ToJson({2, 1} \\X {"b", "a"})', '[[1,"a"],[1,"b"],[2,"a"],[2,"b"]]'),
    ('ToJson(SUBSET {2, 1})', '[[],[1],[2],[1,2]]'),
    ('ToJson(1..3)', '[1,2,3]'),
    ('ToJsonArray([x \\in {3, 2, 1} |-> 2 * x + 1])', '[3,5,7]'),
    ('ToJsonArray(SUBSET {2, 1})', '[[],[1],[2],[1,2]]'),
    ('ToJsonObject([a |-> FALSE, b |-> 1])', '{"a":false,"b":1}'),
    ('ToJsonObject("a" :> 1 @@ "b" :> 2 @@ "c" :> 3)', '{"a":1,"b":2,"c":3}'),
    ('ToJsonObject(1 :> "b" @@ 0 :> "c")', '{"0":"c","1":"b"}'),
    ('ToJsonObject([a |-> {<<1, 2>>}, b |-> [c |-> 3]])', '{"a":[[1,2]],"b":{"c":3}}'),
    # a function that is not a sequence, with keys of other kinds: TLC prints them
    ('ToJson(2 :> TRUE @@ 5 :> FALSE)', '{"2":true,"5":false}'),
    ('ToJson(<<1, "x">> :> 0)', '{"<<1, \\"x\\">>":0}'),
    ('ToJson({1, 2} :> 0)', '{"{1, 2}":0}'),
    ('ToJson(TLCModelValue("m") :> TLCModelValue("n"))', '{"m":"n"}'),
    ('ToJson(TRUE :> 1)', '{"TRUE":1}'),
    ('ToJsonArray(0 :> 1 @@ 1 :> 2)', '{"0":1,"1":2}'),
    # records: fields in TLC's order whatever the order written
    ('ToJson([b |-> 1, a |-> 2])', '{"a":2,"b":1}'),
    ('ToJson(<<[x |-> <<>>], {}>>)', '[{"x":[]},[]]'),
    # strings: gson's escapes
    ('ToJson("say \\"hi\\"\\\\")', '"say \\"hi\\"\\\\"'),
    ('ToJson("a\\nb\\tc")', '"a\\nb\\tc"'),
    ('ToJson("<&>=\'")', '"<&>=\'"'),
]


@pytest.mark.parametrize(("expr", "expected"), TO_JSON)
def test_to_json_writes_what_tlc_writes(model: Model, expr: str, expected: str) -> None:
    assert model.eval_constant(expr) == expected


def test_control_characters_are_escaped_as_gson_escapes_them() -> None:
    assert _json_string("\x01\x1f\b\f\r\u2028\u2029é") == '"\\u0001\\u001f\\b\\f\\r\\u2028\\u2029é"'


@pytest.mark.parametrize(("expr", "message"), [
    ("ToJsonObject(<<1, 2>>)", "ToJsonObject of the sequence"),
    ("ToJsonObject(<<>>)", "ToJsonObject of the sequence"),
    ("ToJsonArray([a |-> 1])", "ToJsonArray of the record"),
])
def test_what_tlc_answers_by_how_a_value_was_built_is_refused(model: Model, expr: str, message: str) -> None:
    with pytest.raises(UnsupportedError, match=message):
        model.eval_constant(expr)


@pytest.mark.parametrize(("expr", "message"), [
    ("ToJsonObject({1})", "cannot convert the set"),
    ("ToJsonObject(3)", "cannot convert the integer"),
    ("ToJsonArray(\"s\")", "cannot convert the string"),
    ("ToJson(Nat)", "cannot enumerate"),
    ("ToJson(LAMBDA x : x)", "operator"),
])
def test_values_json_cannot_hold_are_errors(model: Model, expr: str, message: str) -> None:
    with pytest.raises(TlaError, match=message):
        model.eval_constant(expr)


# ---- files -------------------------------------------------------------------------------

ROUND_TRIP = ('<<[a |-> 3], 2, <<<<1, 2>>, "look">>, <<<<<<[b |-> [c |-> <<4, 5, 6>>]]>>>>>>, '
              '"", TRUE, -4, [e |-> [x \\in {} |-> 0]]>>')


@pytest.mark.parametrize("nd", ["", "nd"])
def test_serialize_then_deserialize_gives_the_value_back(model: Model, tmp_path: Path, nd: str) -> None:
    f = tmp_path / "deep" / "er" / "out.json"  # the folders are created
    assert model.eval_constant(f'{nd}JsonSerialize("{f}", {ROUND_TRIP})') is True
    assert model.eval_constant(f'{nd}JsonDeserialize("{f}") = {ROUND_TRIP}') is True


def test_the_files_written_are_tlcs(model: Model, tmp_path: Path) -> None:
    model.eval_constant(f'JsonSerialize("{tmp_path}/a.json", <<[a |-> 1, b |-> "a"], <<1, 2>>, {{3}}>>)')
    assert (tmp_path / "a.json").read_text() == '[\n{"a":1,"b":"a"},\n[1,2],\n[3]\n]\n'
    model.eval_constant(f'ndJsonSerialize("{tmp_path}/a.ndjson", <<[a |-> 1, b |-> "a"], <<1, 2>>, {{3}}>>)')
    assert (tmp_path / "a.ndjson").read_text() == '{"a":1,"b":"a"}\n[1,2]\n[3]\n'
    model.eval_constant(f'JsonSerialize("{tmp_path}/e.json", <<>>)')
    assert (tmp_path / "e.json").read_text() == "[\n\n]\n"
    assert model.eval_constant(f'JsonDeserialize("{tmp_path}/e.json")') == ()
    model.eval_constant(f'ndJsonSerialize("{tmp_path}/e.ndjson", <<>>)')
    assert (tmp_path / "e.ndjson").read_text() == ""
    assert model.eval_constant(f'ndJsonDeserialize("{tmp_path}/e.ndjson")') == ()


def test_a_relative_file_name_is_read_from_the_working_directory(
        model: Model, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    model.eval_constant('ndJsonSerialize("build/json/test.json", <<1, 2, 3, 4>>)')
    assert (tmp_path / "build" / "json" / "test.json").read_text() == "1\n2\n3\n4\n"
    assert model.eval_constant('ndJsonDeserialize("build/json/test.json")') == (1, 2, 3, 4)


def test_deserialize_reads_numbers_arrays_and_objects_as_tlc_does(model: Model, tmp_path: Path) -> None:
    (tmp_path / "n.json").write_text(
        '[1.5, -1.5, 1e2, 2147483647, 2147483648, 3000000000, -2147483649, true, "x\\u00e9\\n",\n'
        ' {"b": [1], "a": {}}, {}, [], {"k": 1, "k": 2}]\n')
    assert model.eval_constant(
        f'JsonDeserialize("{tmp_path}/n.json") = <<1, -1, 100, 2147483647, -2147483648, -1294967296, '
        '2147483647, TRUE, "x\u00e9\\n", [a |-> <<>>, b |-> <<1>>], <<>>, <<>>, [k |-> 2]>>') is True


def test_ndjson_skips_blank_lines_and_surrounding_blanks(model: Model, tmp_path: Path) -> None:
    (tmp_path / "t.ndjson").write_text('{"a":3}  \n \t \n   [[1,2],"look"]\t\r\n\n[[{"b":{"c":[4,5,6]}}]]\n\n')
    assert model.eval_constant(
        f'ndJsonDeserialize("{tmp_path}/t.ndjson") = '
        '<<[a |-> 3], <<<<1, 2>>, "look">>, << <<[b |-> [c |-> <<4, 5, 6>>]]>> >> >>') is True


@pytest.mark.parametrize(("op", "content", "message"), [
    ("JsonDeserialize", None, r"JsonDeserialize: cannot read the file '.*missing\.json'.*No such file"),
    ("ndJsonDeserialize", None, r"ndJsonDeserialize: cannot read the file '.*missing\.json'"),
    ("JsonDeserialize", '{"a": 1,\n "b": }', r"the file '.*bad\.json' is not JSON: .*\(line 2, column 7\)"),
    ("JsonDeserialize", "[1] [2]", r"the file '.*bad\.json' is not JSON: Extra data"),
    ("JsonDeserialize", "  \n", r"the file '.*bad\.json' holds no JSON value"),
    ("JsonDeserialize", "[1, null]", r"the file '.*bad\.json': null has no TLA\+ value"),
    ("JsonDeserialize", "[NaN]", r"NaN is not a JSON number"),
    ("ndJsonDeserialize", '1\n\n{"a": [}\n', r"the file '.*bad\.json', line 3, is not JSON"),
    ("ndJsonDeserialize", '1\nnull\n', r"the file '.*bad\.json', line 2: null has no TLA\+ value"),
])
def test_a_missing_or_malformed_file_is_an_error_naming_it(
        model: Model, tmp_path: Path, op: str, content: str | None, message: str) -> None:
    name = "missing.json" if content is None else "bad.json"
    if content is not None:
        (tmp_path / name).write_text(content)
    with pytest.raises(TlaError, match=message):
        model.eval_constant(f'{op}("{tmp_path}/{name}")')


@pytest.mark.parametrize("op", ["JsonSerialize", "ndJsonSerialize"])
def test_serializing_what_is_not_a_sequence_is_tlcs_error(model: Model, tmp_path: Path, op: str) -> None:
    for value, shown in (("[a |-> 1, b |-> TRUE]", "[a |-> 1, b |-> TRUE]"), ("42", "42")):
        with pytest.raises(TlaError, match=rf"The second argument of {op} should be a sequence, but "
                                           rf"instead it is:\n{shown.replace('[', '.').replace(']', '.')}"):
            model.eval_constant(f'{op}("{tmp_path}/x.json", {value})')
    assert not (tmp_path / "x.json").exists()


def test_the_error_of_a_spec_is_located_at_its_call(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "J.tla").write_text('---- MODULE J ----\nEXTENDS Naturals, Sequences, Json\n\nR == 1 + Len(JsonDeserialize("in.json"))\n====\n')
    with pytest.raises(TlaError, match=r"J\.tla:4:\d+: JsonDeserialize: cannot read the file 'in\.json' \("
                                       + str(tmp_path).replace(".", r"\.") + r"/in\.json\)"):
        Model.load(tmp_path / "J.tla").eval_constant("R")
