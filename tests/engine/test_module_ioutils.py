"""The native IOUtils module: commands run (exit value, standard output and error), the
environment, atoi and zeroPadN, the TXT serializer, and what stays refused."""

from __future__ import annotations

from pathlib import Path

import pytest

from conformance.tla.loader import ModuleLoader
from conformance.tla.model import Model
from conformance.tla.parser import parse_module_text
from conformance.tla.syntax import TlaError, UnsupportedError


@pytest.fixture(scope="module")
def model() -> Model:
    return Model(parse_module_text(
        "---- MODULE T ----\nEXTENDS Integers, Sequences, TLC, IOUtils\n====\n", "T.tla"), ModuleLoader([]))


def result(model: Model, expr: str) -> tuple[int, str, str]:
    r = model.eval_constant(expr)
    assert set(r.map) == {"exitValue", "stdout", "stderr"}
    return r.map["exitValue"], r.map["stdout"], r.map["stderr"]


# ---- commands ------------------------------------------------------------------------------

def test_ioexec_passes_each_argument_as_it_is(model: Model) -> None:
    # CommunityModules' IOUtilsTests: no quoting, no shell
    assert result(model, 'IOExec(<<"echo", "\'foo\' ", " \\"bar\\"">>)') == (0, "'foo'   \"bar\"\n", "")


def test_ioexec_gives_exit_value_stdout_and_stderr(model: Model) -> None:
    assert result(model, 'IOExec(<<"sh", "-c", "printf out; echo err >&2; exit 3">>)') == (3, "out", "err\n")
    assert result(model, 'IOExec(<<"cat", "/does/not/exist">>)') == (
        1, "", "cat: /does/not/exist: No such file or directory\n")
    assert result(model, 'IOExec(<<"sh", "-c", "kill -9 $$">>)') == (137, "", "")  # 128 + signal


def test_ioexec_is_run_at_every_call(model: Model, tmp_path: Path) -> None:
    f = tmp_path / "count"
    cmd = f'IOExec(<<"sh", "-c", "echo x >> {f}; wc -l < {f}">>).stdout'
    assert [model.eval_constant(cmd).strip() for _ in range(3)] == ["1", "2", "3"]


def test_the_environment_record_is_added_to_the_engines(model: Model, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("KEPT", "k")
    assert result(model, 'IOEnvExec([A |-> "x y", B |-> 42, C |-> <<"s">>], '
                         '<<"sh", "-c", "echo \\"$A|$B|$C|$KEPT\\"">>)') == (0, 'x y|42|<<"s">>|k\n', "")
    assert result(model, 'IOEnvExec(<<>>, <<"sh", "-c", "echo $KEPT">>)') == (0, "k\n", "")


def test_templates_are_filled_by_java_format(model: Model) -> None:
    assert result(model, 'IOExecTemplate(<<"echo", "%1$s-%2$s", "%s">>, <<"a", "b">>)') == (0, "a-b a\n", "")
    assert result(model, 'IOEnvExecTemplate([V |-> "v"], <<"sh", "-c", "echo %s$V">>, <<"w">>)') == (0, "wv\n", "")


@pytest.mark.parametrize(("expr", "message"), [
    ('IOExec(<<"/no/such/program", "a">>)', r"IOExec: cannot run the command <<\"/no/such/program\", \"a\">>: No such file"),
    ('IOExec(<<>>)', r"IOExec: the command is empty"),
    ('IOExec("echo")', r"IOExec: the command must be a sequence, got the string"),
    ('IOExec(<<"echo", 1>>)', r"IOExec: the element 1 of the command must be a string"),
    ('IOEnvExec({1}, <<"echo">>)', r"IOEnvExec: the environment \(first argument\) must be a record"),
    ('IOEnvExec(1 :> "a", <<"echo">>)', r"must be a record"),
    ('IOExecTemplate(<<"echo", "%2$s">>, <<"a">>)', r"IOExecTemplate: the format '%2\$s' has no argument"),
    ('IOExecTemplate(<<"echo">>, <<1>>)', r"IOExecTemplate: the element 1 of the parameters must be a string"),
    ('IOEnvExecTemplate([A |-> 1], <<"echo">>, "p")', r"the parameters must be a sequence"),
])
def test_a_command_that_cannot_be_run_is_an_error_naming_it(model: Model, expr: str, message: str) -> None:
    with pytest.raises(TlaError, match=message):
        model.eval_constant(expr)


# ---- environment, atoi, zeroPadN ----------------------------------------------------------------

def test_ioenv_is_the_record_of_the_environment(model: Model, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("S42_PORT", "8080")
    monkeypatch.setenv("S42 odd()", "v")
    assert model.eval_constant('atoi(IOEnv.S42_PORT)') == 8080
    assert model.eval_constant('IOEnv["S42 odd()"]') == "v"
    monkeypatch.setenv("S42_PORT", "9090")  # read again at each call
    assert model.eval_constant('IOEnv.S42_PORT') == "9090"
    monkeypatch.delenv("S42_PORT")
    assert model.eval_constant('"S42_PORT" \\in DOMAIN IOEnv') is False


@pytest.mark.parametrize(("text", "value"), [
    ("42", 42), ("-17", -17), ("0", 0), ("+5", 5), ("007", 7), ("-0", 0),
    ("2147483647", 2147483647), ("-2147483648", -2147483648), ("\u0664\u0662", 42),
])
def test_atoi_reads_what_integer_parseint_reads(model: Model, text: str, value: int) -> None:
    assert model.eval_constant(f'atoi("{text}")') == value


@pytest.mark.parametrize("arg", ['"2147483648"', '"-2147483649"', '""', '"-"', '" 1"', '"1 "', '"1_000"',
                                 '"1.0"', '"0x1"', '"+-1"', "42", "<<>>"])
def test_atoi_refuses_what_parseint_refuses(model: Model, arg: str) -> None:
    with pytest.raises(TlaError, match=r"atoi: the argument must be a string of a 32-bit integer"):
        model.eval_constant(f"atoi({arg})")


@pytest.mark.parametrize(("expr", "value"), [
    ("zeroPadN(42, 5)", "00042"), ("zeroPadN(123, 3)", "123"), ("zeroPadN(7, 1)", "7"),
    ("zeroPadN(0, 4)", "0000"), ("zeroPadN(1234, 2)", "1234"), ("zeroPadN(5, 0)", "5"),
    ("zeroPadN(5, -3)", "5"), ("zeroPadN(-5, 4)", "00-5"),  # ToString(-5) is "-5"
    ('zeroPadN("a", 5)', '00"a"'),  # ToString of a string keeps its quotes
])
def test_zeropadn_is_its_definition(model: Model, expr: str, value: str) -> None:
    assert model.eval_constant(expr) == value


def test_zeropadn_of_a_width_not_a_number_is_an_error(model: Model) -> None:
    with pytest.raises(TlaError, match="zeroPadN"):
        model.eval_constant('zeroPadN(1, "3")')


# ---- the TXT serializer ------------------------------------------------------------------------

OK = (0, "Finish writting to the file with success!", "")


def txt(options: str = '<<"WRITE", "CREATE", "TRUNCATE_EXISTING">>', charset: str = "UTF-8") -> str:
    return f'[ser |-> "TXT", charset |-> "{charset}", openOptions |-> {options}]'


def test_serialize_writes_the_text_and_deserialize_reads_it_back(model: Model, tmp_path: Path) -> None:
    f = tmp_path / "t.txt"
    assert result(model, f'Serialize("héllo\\nworld", "{f}", {txt()})') == OK
    assert f.read_bytes() == "héllo\nworld".encode()
    assert result(model, f'Deserialize("{f}", [ser |-> "TXT", charset |-> "UTF-8"])') == (0, "héllo\nworld", "")
    assert result(model, f'Serialize("hé", "{f}", {txt(charset="ISO-8859-1")})') == OK
    assert f.read_bytes() == b"h\xe9"
    assert result(model, f'Deserialize("{f}", [ser |-> "TXT", charset |-> "ISO-8859-1"])')[1] == "hé"
    assert result(model, f'Serialize("ab", "{f}", {txt(charset="UTF-16")})') == OK
    assert f.read_bytes() == b"\xfe\xff\x00a\x00b"  # Java's UTF-16: big-endian, with its mark


def opts(*names: str) -> str:
    return "<<" + ", ".join(f'"{n}"' for n in names) + ">>"


def test_the_open_options_are_javas(model: Model, tmp_path: Path) -> None:
    f = tmp_path / "o.txt"
    assert result(model, f'Serialize("abcdef", "{f}", {txt(opts())})') == OK  # none: create, truncate
    assert result(model, f'Serialize("XY", "{f}", {txt(opts("WRITE"))})') == OK
    assert f.read_text() == "XYcdef"  # written over from the start, not truncated
    assert result(model, f'Serialize("!", "{f}", {txt(opts("APPEND"))})') == OK
    assert f.read_text() == "XYcdef!"
    assert result(model, f'Serialize("?", "{f}", {txt(opts("CREATE_NEW"))})') == (
        1, "", f"Serialize error writting to the file: java.nio.file.FileAlreadyExistsException: {f}")
    assert result(model, f'Serialize("a", "{tmp_path}/new.txt", {txt(opts("WRITE"))})') == (
        1, "", f"Serialize error writting to the file: java.nio.file.NoSuchFileException: {tmp_path}/new.txt")
    assert not (tmp_path / "new.txt").exists()
    assert result(model, f'Serialize("a", "{f}", {txt(opts("READ"))})')[2] == (
        "Serialize error writting to the file: java.lang.IllegalArgumentException: READ not allowed")
    assert result(model, f'Serialize("a", "{f}", {txt(opts("NOPE"))})')[2] == (
        "Serialize error writting to the file: java.lang.IllegalArgumentException: No enum constant "
        "java.nio.file.StandardOpenOption.NOPE")
    assert f.read_text() == "XYcdef!"


def test_failures_of_the_txt_serializer_are_answered_as_tlc_answers_them(model: Model, tmp_path: Path) -> None:
    assert result(model, f'Deserialize("{tmp_path}/none.txt", [ser |-> "TXT", charset |-> "UTF-8"])') == (
        1, "", f"Deserialize error reading from the file: java.nio.file.NoSuchFileException: {tmp_path}/none.txt")
    (tmp_path / "bad.txt").write_bytes(b"\xff")
    assert result(model, f'Deserialize("{tmp_path}/bad.txt", [ser |-> "TXT", charset |-> "UTF-8"])') == (
        1, "", "Deserialize error reading from the file: java.nio.charset.MalformedInputException: Input length = 1")
    assert result(model, f'Serialize("é", "{tmp_path}/a.txt", {txt(charset="US-ASCII")})') == (
        1, "", "Serialize error writting to the file: java.nio.charset.UnmappableCharacterException: Input length = 1")
    exit_value, _, err = result(model, f'Serialize(42, "{tmp_path}/a.txt", {txt()})')
    assert exit_value == 1 and err.startswith("Serialize error invalid parameters: ")
    exit_value, _, err = result(model, f'Serialize("a", "{tmp_path}/a.txt", [ser |-> "TXT", charset |-> "UTF-8"])')
    assert exit_value == 1 and err.startswith("Serialize error invalid parameters: ")
    exit_value, _, err = result(model, f'Deserialize("{tmp_path}/a.txt", <<1>>)')
    assert exit_value == 1 and err.startswith("Deserialize error invalid parameters: ")
    assert not (tmp_path / "a.txt").exists()


@pytest.mark.parametrize(("expr", "error", "message"), [
    ('Serialize("a", "f", [charset |-> "UTF-8"])', TlaError, r"Serialize: the options .* name no serializer"),
    ('Deserialize("f", [ser |-> "JSON"])', UnsupportedError, r"Deserialize: the serializer 'JSON' is not provided"),
    ('Serialize("a", "f", [ser |-> "TXT", charset |-> "windows-1252", openOptions |-> <<>>])', UnsupportedError,
     r"the charset 'windows-1252' is not provided"),
    ('IOSerialize(1, "f", FALSE)', UnsupportedError, r"IOSerialize is not provided: TLC writes Java's binary"),
    ('IODeserialize("f", FALSE)', UnsupportedError, r"IODeserialize is not provided"),
])
def test_what_is_not_provided_is_refused(model: Model, expr: str, error: type, message: str) -> None:
    with pytest.raises(error, match=message):
        model.eval_constant(expr)


def test_a_refusal_in_a_spec_is_located(tmp_path: Path) -> None:
    (tmp_path / "I.tla").write_text('---- MODULE I ----\nEXTENDS IOUtils\n\nR == IOSerialize(1, "f", FALSE)\n====\n')
    with pytest.raises(UnsupportedError, match=r"I\.tla:4:\d+: IOSerialize is not provided"):
        Model.load(tmp_path / "I.tla").eval_constant("R")


@pytest.mark.parametrize(("expr", "pure"), [
    ('IOExec(<<"true">>)', False), ('IOEnvExec([A |-> "1"], <<"true">>)', False),
    ('IOExecTemplate(<<"true">>, <<>>)', False), ('IOEnvExecTemplate([A |-> "1"], <<"true">>, <<>>)', False),
    ("IOEnv", False), ('Serialize("a", "f", [ser |-> "TXT"])', False), ('Deserialize("f", [ser |-> "TXT"])', False),
    ('atoi("1")', True), ("zeroPadN(1, 2)", True),
])
def test_operators_with_effects_are_never_memoised(model: Model, expr: str, pure: bool) -> None:
    assert model.is_pure(expr) is pure


def test_a_definition_reading_the_environment_reads_it_each_time(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "E.tla").write_text('---- MODULE E ----\nEXTENDS IOUtils\n\nV == IOEnv.S42_V\n'
                                    'W == \\A i \\in {1, 2} : IOEnv.S42_V = "a"\n====\n')
    m = Model.load(tmp_path / "E.tla")
    monkeypatch.setenv("S42_V", "a")
    assert (m.eval_constant("V"), m.eval_constant("W")) == ("a", True)
    monkeypatch.setenv("S42_V", "b")
    assert (m.eval_constant("V"), m.eval_constant("W")) == ("b", False)
