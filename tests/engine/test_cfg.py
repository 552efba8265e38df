"""The TLC .cfg reader: sections, values, overrides, comments and located errors."""

from __future__ import annotations

from pathlib import Path

import pytest

from conformance.tla.cfg import parse_config, read_config
from conformance.tla.syntax import ParseError
from conformance.tla.values import ModelValue

SPECS = Path(__file__).parent / "specs"


def test_every_section_and_value_kind() -> None:
    text = r"""
\* a line comment
(* a block (* nested *) comment *)
CONSTANTS
  N = 3
  Neg = -2
  S = {a, b}
  a = a
  b = b
  Name = "x\"y"
  Flag = TRUE
  Pairs = {<<1, "u">>, <<2, FALSE>>}
  Empty = {}
  Impl <- MyImpl
CONSTANT Other = 7
INIT MyInit
NEXT MyNext
INVARIANTS Inv1 Inv2
INVARIANT Inv3
PROPERTY P1
PROPERTIES P2 P3
CONSTRAINT C1
CONSTRAINTS C2
ACTION_CONSTRAINT A1
SYMMETRY Sym
VIEW V
CHECK_DEADLOCK FALSE
"""
    cfg = parse_config(text, "m.cfg")
    a, b = ModelValue("a"), ModelValue("b")
    assert cfg.constants == {
        "N": 3, "Neg": -2, "S": frozenset({a, b}), "a": a, "b": b, "Name": 'x"y',
        "Flag": True, "Pairs": frozenset({(1, "u"), (2, False)}), "Empty": frozenset(),
        "Other": 7,
    }
    assert cfg.overrides == {"Impl": "MyImpl"}
    assert (cfg.init, cfg.next, cfg.specification) == ("MyInit", "MyNext", None)
    assert cfg.invariants == ["Inv1", "Inv2", "Inv3"]
    assert cfg.properties == ["P1", "P2", "P3"]
    assert cfg.constraints == ["C1", "C2"]
    assert cfg.action_constraints == ["A1"]
    assert (cfg.symmetry, cfg.view, cfg.check_deadlock) == ("Sym", "V", False)
    assert cfg.loc_of("Inv2").line == 18
    assert cfg.loc_of("N").line == 5


def test_specification_and_default_deadlock_check() -> None:
    cfg = parse_config("SPECIFICATION Spec\nINVARIANT TypeOK\n")
    assert cfg.specification == "Spec"
    assert cfg.check_deadlock is True
    assert cfg.constants == {}


@pytest.mark.parametrize(
    ("text", "line", "col", "fragment"),
    [
        ("CONSTANT N = \n", 2, 1, "expected a value"),
        ("INIT\n", 1, 1, "INIT needs a definition name"),
        ("INIT A B\n", 1, 8, "exactly one name"),
        ("FOO Bar\n", 1, 1, "section keyword"),
        ("CONSTANT N 3\n", 1, 12, "expected '=' or '<-'"),
        ("CONSTANT S = {1, 2\nINIT I\n", 2, 1, "expected '}'"),
        ("CONSTANT N = 1\n  N = 2\n", 2, 3, "assigned twice"),
        ("CHECK_DEADLOCK maybe\n", 1, 16, "TRUE or FALSE"),
        ("(* open comment\nINIT I\n", 1, 1, "unterminated comment"),
        ("TYPE_CONSTRAINT Tc\n", 1, 1, "not supported"),
        ("CONSTANT N = 1 ; \n", 1, 16, "unexpected character"),
    ],
)
def test_errors_name_file_line_and_column(text: str, line: int, col: int, fragment: str) -> None:
    with pytest.raises(ParseError) as err:
        parse_config(text, "bad.cfg")
    assert err.value.loc is not None
    assert (err.value.loc.file, err.value.loc.line, err.value.loc.col) == ("bad.cfg", line, col)
    assert fragment in err.value.message


def test_read_config_from_disk_and_missing_file(tmp_path: Path) -> None:
    cfg = read_config(SPECS / "TwoPhase.cfg")
    assert cfg.constants["RM"] == frozenset(ModelValue(n) for n in ("r1", "r2", "r3"))
    assert cfg.specification == "TPSpec"
    assert cfg.file == str(SPECS / "TwoPhase.cfg")
    with pytest.raises(ParseError, match="cannot read"):
        read_config(tmp_path / "absent.cfg")
