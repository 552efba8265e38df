"""The native CSV module: the lines CSVWrite appends (TLC's template filling), the records
CSVRead builds, what CSVRecords counts, and the errors for bad arguments."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from conformance.tla.community.javaformat import java_format
from conformance.tla.loader import ModuleLoader
from conformance.tla.model import Model
from conformance.tla.parser import parse_module_text
from conformance.tla.syntax import TlaError, UnsupportedError


@pytest.fixture(scope="module")
def model() -> Model:
    return Model(parse_module_text(
        "---- MODULE T ----\nEXTENDS Integers, Sequences, TLC, CSV\n====\n", "T.tla"), ModuleLoader([]))


def test_csvwrite_appends_tlcs_own_test_line(model: Model, tmp_path: Path) -> None:
    # CommunityModules' CSVTests: the elements as TLC prints them, a string with its quotes
    f = tmp_path / "out.csv"
    assert model.eval_constant(
        f'CSVWrite("%1$s#%2$s#%3$s", << 42, "abc", [a |-> "a", b |-> "b"] >>, "{f}")') is True
    assert f.read_bytes() == b'42#"abc"#[a |-> "a", b |-> "b"]' + os.linesep.encode()
    # a second call appends
    model.eval_constant(f'CSVWrite("%2$s;%1$s", <<{{1, 2}}, <<TRUE>>>>, "{f}")')
    assert f.read_text().splitlines() == ['42#"abc"#[a |-> "a", b |-> "b"]', "<<TRUE>>;{1, 2}"]


@pytest.mark.parametrize(("template", "args", "expected"), [
    ("%s-%s", ["a", "b"], "a-b"),
    ("%2$s%1$s%s", ["a", "b"], "baa"),  # an indexed specifier does not move the ordinary one
    ("%s%<s%s", ["a", "b"], "aab"),
    ("[%4s|%-4s]", ["ab", "cd"], "[  ab|cd  ]"),
    ("%.2s%S", ["abc", "x"], "abX"),
    ("%b 100%%%n", ["x"], "true 100%" + os.linesep),
    ("no spec", ["unused"], "no spec"),
    ("é%1$s", ["ü"], "éü"),
])
def test_java_format_fills_string_arguments_as_java_does(template: str, args: list[str], expected: str) -> None:
    assert java_format(template, args, "Op") == expected


@pytest.mark.parametrize(("template", "n", "message"), [
    ("%s %s", 1, "has no argument for '%s'"),
    ("%3$s", 2, "has no argument for '%3\\$s'"),
    ("%<s", 1, "has no argument"),
    ("%d", 1, "cannot format a string"),
    ("%05s", 1, "do not apply to a string"),
    ("%-s", 1, "flag '-' and no width"),
    ("50%", 1, "unknown format specifier '%'"),
    ("%.2n", 1, "not one Java accepts"),
])
def test_java_format_errors(template: str, n: int, message: str) -> None:
    with pytest.raises(TlaError, match=message):
        java_format(template, ["a"] * n, "Op")
    with pytest.raises(UnsupportedError, match="hash code"):
        java_format("%h", ["a"], "Op")


def test_csvread_gives_a_record_of_strings_a_line(model: Model, tmp_path: Path) -> None:
    f = tmp_path / "in.csv"
    f.write_bytes("Alice,30,NYC\r\nBob,25,LA\nx,,y\nü,2,3\n".encode())
    assert model.eval_constant(
        f'CSVRead(<<"name", "age", "city">>, ",", "{f}") = '
        '<<[name |-> "Alice", age |-> "30", city |-> "NYC"], [name |-> "Bob", age |-> "25", city |-> "LA"], '
        '[name |-> "x", age |-> "", city |-> "y"], [name |-> "ü", age |-> "2", city |-> "3"]>>') is True
    assert model.eval_constant(f'CSVRecords("{f}")') == 4


def test_csvread_splits_at_a_java_regular_expression(model: Model, tmp_path: Path) -> None:
    f = tmp_path / "in.csv"
    f.write_text("a1b22c\n")
    assert model.eval_constant(f'CSVRead(<<"x", "y", "z">>, "[0-9]+", "{f}") = '
                               '<<[x |-> "a", y |-> "b", z |-> "c"]>>') is True
    # trailing empty fields are dropped, a leading one kept (String.split)
    f.write_text("#a#b##\n")
    assert model.eval_constant(f'CSVRead(<<"x", "y", "z">>, "#", "{f}") = '
                               '<<[x |-> "", y |-> "a", z |-> "b"]>>') is True


def test_a_write_read_round_trip(model: Model, tmp_path: Path) -> None:
    f = tmp_path / "rt.csv"
    for i in range(3):
        model.eval_constant(f'CSVWrite("%1$s,%2$s", <<{i}, {i * i}>>, "{f}")')
    assert model.eval_constant(f'CSVRecords("{f}")') == 3
    assert model.eval_constant(f'CSVRead(<<"n", "sq">>, ",", "{f}") = '
                               '<<[n |-> "0", sq |-> "0"], [n |-> "1", sq |-> "1"], [n |-> "2", sq |-> "4"]>>') is True


def test_a_missing_file_holds_no_records(model: Model, tmp_path: Path) -> None:
    assert model.eval_constant(f'CSVRecords("{tmp_path}/none.csv")') == 0
    assert model.eval_constant(f'CSVRead(<<"a">>, ",", "{tmp_path}/none.csv")') == ()
    (tmp_path / "empty.csv").write_text("")
    assert model.eval_constant(f'CSVRecords("{tmp_path}/empty.csv")') == 0


def test_a_relative_file_name_is_resolved_from_the_working_directory(
        model: Model, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    model.eval_constant('CSVWrite("%1$s", <<"v">>, "rel.csv")')
    assert (tmp_path / "rel.csv").read_text() == '"v"' + os.linesep
    assert model.eval_constant('CSVRecords("rel.csv")') == 1


@pytest.mark.parametrize(("expr", "message"), [
    ('CSVWrite("%1$s", 42, "{d}/x.csv")', r"CSVWrite: the second argument must be a sequence, got the integer 42"),
    ('CSVWrite(1, <<>>, "{d}/x.csv")', r"CSVWrite: the template \(first argument\) must be a string"),
    ('CSVWrite("%1$s", <<1>>, 7)', r"the file name \(third argument\) must be a string"),
    ('CSVWrite("%1$s", <<1>>, "{d}/no/such/dir/x.csv")', r"CSVWrite: cannot write the file '.*/no/such/dir/x\.csv'"),
    ('CSVWrite("%2$s", <<1>>, "{d}/x.csv")', r"CSVWrite: the format '%2\$s' has no argument"),
    ('CSVRead(<<"a", 1>>, ",", "{d}/x.csv")', r"CSVRead: the column name must be a string"),
    ('CSVRead(<<"a", "a">>, ",", "{d}/x.csv")', r"name a field twice"),
    ('CSVRead(<<"a">>, ",", "{d}/two.csv")', r"CSVRead: line 1 of the file '.*two\.csv' has 2 field\(s\) for the 1"),
    ('CSVRead(<<"a">>, "(", "{d}/two.csv")', r"the delimiter '\(' is not a regular expression"),
    ('CSVRecords(3)', r"CSVRecords: the file name must be a string"),
    ('CSVRecords("{d}/bad.csv")', r"CSVRecords: the file '.*bad\.csv' is not UTF-8 text"),
])
def test_bad_arguments_are_errors_naming_them(model: Model, tmp_path: Path, expr: str, message: str) -> None:
    (tmp_path / "two.csv").write_text("1,2\n")
    (tmp_path / "bad.csv").write_bytes(b"\xff\n")
    with pytest.raises(TlaError, match=message):
        model.eval_constant(expr.replace("{d}", str(tmp_path)))
    assert not (tmp_path / "x.csv").exists()


def test_csvwriterecord_is_refused(model: Model, tmp_path: Path) -> None:
    with pytest.raises(UnsupportedError, match="CSVWriteRecord"):
        model.eval_constant(f'CSVWriteRecord([a |-> 1], ",", TRUE, "{tmp_path}/r.csv")')


def test_every_write_of_a_spec_happens_and_errors_are_located(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "C.tla").write_text(
        "---- MODULE C ----\nEXTENDS Naturals, CSV\n\n"
        'Same == CSVWrite("%1$s", <<"same">>, "twice.csv")\n\nBad == 1 + CSVRecords(2)\n====\n')
    model = Model.load(tmp_path / "C.tla")
    for _ in range(2):  # the same call twice writes twice: nothing is memoised
        assert model.eval_constant("Same") is True
    assert (tmp_path / "twice.csv").read_text().splitlines() == ['"same"', '"same"']
    with pytest.raises(TlaError, match=r"C\.tla:6:\d+: CSVRecords: the file name must be a string"):
        model.eval_constant("Bad")


@pytest.mark.parametrize("expr", ['CSVWrite("%1$s", <<1>>, "f")', 'CSVRead(<<"a">>, ",", "f")', 'CSVRecords("f")'])
def test_the_csv_operators_are_never_memoised(model: Model, expr: str) -> None:
    assert model.is_pure(expr) is False


def test_a_definition_counting_records_counts_them_each_time(tmp_path: Path) -> None:
    (tmp_path / "N.tla").write_text(f'---- MODULE N ----\nEXTENDS CSV\n\nN == CSVRecords("{tmp_path}/n.csv")\n====\n')
    m = Model.load(tmp_path / "N.tla")
    assert m.eval_constant("N") == 0
    (tmp_path / "n.csv").write_text("a\nb\n")
    assert m.eval_constant("N") == 2
