"""The Model API: loading with search paths, EXTENDS, INSTANCE, overrides, constants."""

from __future__ import annotations

from pathlib import Path

import pytest

from conformance.tla import syntax as S
from conformance.tla.model import Model
from conformance.tla.parser import parse_expression
from conformance.tla.syntax import EvalError, TlaError, UnsupportedError

COUNTER = """---- MODULE Counter ----
EXTENDS Naturals
CONSTANT Limit
VARIABLE c
LOCAL Step == 1
Incr == c < Limit /\\ c' = c + Step
cvars == <<c>>
Value == c * 10
Double(k) == 2 * k + Limit
====
"""

BASE = """---- MODULE Base ----
EXTENDS Naturals
CONSTANT Size
VARIABLE b
LOCAL Secret == 42
Public == Secret + 1
Sizes == 1..Size
ASSUME Size > 0
====
"""

MIDDLE = """---- MODULE Middle ----
EXTENDS Base
Twice == 2 * Public
====
"""

MAIN = """---- MODULE Main ----
EXTENDS Middle, Sequences
VARIABLES x, y
C == INSTANCE Counter WITH Limit <- 3, c <- x
D == INSTANCE Counter WITH Limit <- Size + 1, c <- y
Init == x = 0 /\\ y = 0 /\\ b \\in Sizes
IncC == C!Incr /\\ UNCHANGED <<y, b>>
IncD == D!Incr /\\ UNCHANGED <<x, b>>
StayC == UNCHANGED C!cvars /\\ UNCHANGED <<y, b>>
Next == IncC \\/ IncD
Both == C!Value + D!Value
Default == 7
Chosen == 11
====
"""


@pytest.fixture
def specs(tmp_path: Path) -> Path:
    lib = tmp_path / "lib"
    lib.mkdir()
    (lib / "Counter.tla").write_text(COUNTER)
    (lib / "Base.tla").write_text(BASE)
    (tmp_path / "Middle.tla").write_text(MIDDLE)
    (tmp_path / "Main.tla").write_text(MAIN)
    return tmp_path


def load(specs: Path, **kw: object) -> Model:
    return Model.load(specs / "Main.tla", search_path=[specs / "lib"], **kw)  # type: ignore[arg-type]


def test_variables_in_declaration_order_including_extended_modules(specs: Path) -> None:
    m = load(specs, constants={"Size": 2})
    assert m.variables == ("b", "x", "y")
    assert sorted(m.init_states()) == [(1, 0, 0), (2, 0, 0)]


def test_extends_chain_exports_public_definitions_only(specs: Path) -> None:
    m = load(specs, constants={"Size": 2})
    assert m.eval_constant("Twice") == 86
    assert m.eval_constant("Public") == 43
    assert m.has_definition("Public") and not m.has_definition("Secret")
    with pytest.raises(EvalError, match="Secret"):
        m.eval_constant("Secret")
    assert m.eval_constant("Len(<<1, 2>>)") == 2


def test_instances_substitute_constants_and_variables(specs: Path) -> None:
    m = load(specs, constants={"Size": 2})
    assert m.eval_state("Both", (1, 2, 3)) == 50
    assert m.eval_constant("C!Double(1)") == 5
    assert m.eval_constant("D!Double(1)") == 5
    succ = {label.name: st for label, st in m.successors((1, 0, 0))}
    assert succ == {"IncC": (1, 1, 0), "IncD": (1, 0, 1)}
    # the instance's guard uses the substituted Limit: C stops at 3, D at Size + 1 = 3
    assert list(m.action_successors("IncC", [], (1, 3, 0))) == []
    assert list(m.action_successors("IncD", [], (1, 0, 2))) == [(1, 0, 3)]
    with pytest.raises(EvalError, match="Step"):
        m.eval_constant("C!Step")
    assert list(m.action_successors("StayC", [], (1, 2, 0))) == [(1, 2, 0)]


def test_implicit_instance_substitution(tmp_path: Path) -> None:
    (tmp_path / "Counter.tla").write_text(COUNTER)
    (tmp_path / "Implicit.tla").write_text(
        "---- MODULE Implicit ----\nEXTENDS Naturals\nCONSTANT Limit\nVARIABLE c\n"
        "INSTANCE Counter\nInit == c = 0\n====\n"
    )
    m = Model.load(tmp_path / "Implicit.tla", constants={"Limit": 1})
    assert list(m.action_successors("Incr", [], (0,))) == [(1,)]
    assert list(m.action_successors("Incr", [], (1,))) == []
    assert m.eval_state("Value", (4,)) == 40
    with pytest.raises(EvalError, match="Step"):
        m.eval_constant("Step")  # LOCAL in Counter: not imported by INSTANCE


def test_instance_without_a_substitute_is_an_error(tmp_path: Path) -> None:
    (tmp_path / "Counter.tla").write_text(COUNTER)
    (tmp_path / "Broken.tla").write_text(
        "---- MODULE Broken ----\nVARIABLE c\nI == INSTANCE Counter WITH c <- c\n====\n"
    )
    m = Model.load(tmp_path / "Broken.tla")
    with pytest.raises(EvalError, match="no substitution for Limit"):
        m.eval_constant("I!Double(1)")


def test_overrides_replace_constants_and_operators(specs: Path) -> None:
    m = load(specs, constants={}, overrides={"Size": "Chosen", "Default": "Chosen"})
    assert m.eval_constant("Size") == 11
    assert m.eval_constant("Default") == 11
    assert m.eval_constant("Twice") == 86
    assert sorted(b for b, _, _ in m.init_states())[-1] == 11
    with pytest.raises(EvalError, match="not a definition"):
        load(specs, constants={"Size": 1}, overrides={"Size": "Nope"})
    with pytest.raises(EvalError, match="not declared"):
        load(specs, constants={"Size": 1}, overrides={"Nope": "Chosen"})


def test_false_assume_in_an_extended_module(specs: Path) -> None:
    with pytest.raises(EvalError, match="ASSUME") as err:
        load(specs, constants={"Size": 0})
    assert err.value.loc is not None and err.value.loc.file.endswith("Base.tla")
    assert err.value.loc.line == 8


def test_missing_constant_is_named_when_needed(specs: Path) -> None:
    with pytest.raises(EvalError, match=r"constant Size .* has no value"):
        load(specs)


def test_definition_and_expressions(specs: Path) -> None:
    m = load(specs, constants={"Size": 2})
    unit = m.definition("Next")
    assert isinstance(unit, S.OpDef) and unit.name == "Next"
    with pytest.raises(EvalError, match="no definition"):
        m.definition("Missing")
    expr = parse_expression("x + y + b")
    assert m.eval_state(expr, (1, 2, 3)) == 6
    assert m.eval_state(expr, (1, 1, 1)) == 3
    assert m.eval_action("x' - x", (0, 1, 0), (0, 5, 0)) == 4
    with pytest.raises(EvalError, match="3 variables"):
        m.eval_state("x", (1,))


def test_unknown_action_and_module_errors(specs: Path, tmp_path: Path) -> None:
    m = load(specs, constants={"Size": 2})
    with pytest.raises(EvalError, match="no action operator Nope"):
        list(m.action_successors("Nope", [], (1, 0, 0)))
    (tmp_path / "Lonely.tla").write_text(
        "---- MODULE Lonely ----\nEXTENDS Missing\n====\n"
    )
    with pytest.raises(TlaError, match="Missing"):
        Model.load(tmp_path / "Lonely.tla")


def test_temporal_formulas_are_unsupported_in_evaluation(tmp_path: Path) -> None:
    (tmp_path / "Temp.tla").write_text(
        "---- MODULE Temp ----\nVARIABLE x\nInit == x = 0\nNext == x' = x\n"
        "Spec == Init /\\ [][Next]_x\n====\n"
    )
    m = Model.load(tmp_path / "Temp.tla")
    with pytest.raises(UnsupportedError, match=r"Temp.tla:5"):
        m.eval_state("Spec", (0,))


def test_override_applies_inside_extended_modules(specs: Path) -> None:
    m = load(specs, constants={"Size": 2}, overrides={"Public": "Chosen"})
    assert m.eval_constant("Public") == 11
    assert m.eval_constant("Twice") == 22  # Middle's Twice == 2 * Public


def test_instances_of_standard_modules(tmp_path: Path) -> None:
    (tmp_path / "Q.tla").write_text(
        "---- MODULE Q ----\nLOCAL INSTANCE Naturals\nS == INSTANCE Sequences\n"
        "X == S!Len(<<1, 2>>) + 1\n====\n"
    )
    m = Model.load(tmp_path / "Q.tla")
    assert m.eval_constant("X") == 3
    with pytest.raises(EvalError, match="Nope"):
        m.eval_constant("S!Nope(1)")
