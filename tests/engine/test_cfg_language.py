"""cfg sections and language constructs TLC accepts: ALIAS, POSTCONDITION, module-scoped
overrides, record/tuple/set values, models without behaviours, subexpression references.
Each spec in ``regressions/`` states the result derived by hand in its header."""

from __future__ import annotations

from pathlib import Path

import pytest

from conformance.cli import main
from conformance.tla.cfg import ModelConfig, parse_config, read_config
from conformance.tla.explorer import CheckResult, check, simulate
from conformance.tla.loader import ModuleLoader
from conformance.tla.model import Model
from conformance.tla.parser import parse_module_text
from conformance.tla.syntax import TlaError, UnsupportedError
from conformance.tla.values import ModelValue, make_record

SPECS = Path(__file__).parent / "regressions"


def run(name: str, config: ModelConfig | None = None) -> CheckResult:
    config = config if config is not None else read_config(SPECS / f"{name}.cfg")
    model = Model.load(SPECS / f"{name}.tla", constants=config.constants,
                       overrides=config.overrides)
    return check(model, config, progress=False)


def values(result: CheckResult, name: str) -> list[object]:
    i = result.variables.index(name)
    return [step.state[i] for step in result.trace]


# ---------------------------------------------------------------- subexpression references


def test_subexpression_references_select_by_hand() -> None:
    r = run("Subexpr")
    assert r.verdict == "ok", r.message
    assert (r.distinct_states, r.states_generated, r.depth) == (4, 4, 4)


def test_subexpression_selection_is_not_a_no_op() -> None:
    # Seeded: a Next that reads Guard!2 (y = x) instead of Guard!1 (x < 3) never stops
    # counting, so Inv's x <= 3 fails at x = 4: selection really picks the operand.
    text = (SPECS / "Subexpr.tla").read_text().replace("/\\ Guard!1\n", "/\\ Guard!2\n", 1)
    m = Model(parse_module_text(text, "Subexpr.tla"), ModuleLoader([SPECS]))
    r = check(m, read_config(SPECS / "Subexpr.cfg"), progress=False)
    assert r.verdict == "violation" and values(r, "x")[-1] == 4


def _eval(defs: str, expr: str) -> object:
    m = Model(parse_module_text(f"---- MODULE T ----\nEXTENDS Naturals\n{defs}\n====\n", "T.tla"),
              ModuleLoader([]))
    return m.eval_constant(expr)


@pytest.mark.parametrize(("defs", "expr", "expected"), [
    ("Op == 7 - 2", "Op!1", 7),
    ("Op == 7 - 2", "Op!2", 2),
    ("Op == 7 - 2", "Op!:", 5),
    ("Op == IF FALSE THEN 1 ELSE 2 + 3", "Op!3!2", 3),
    ("Op == /\\ 1 = 1\n      /\\ 2 = 3\n      /\\ 4 = 4", "Op!2", False),
    ("Op == /\\ 1 + 2 > 9", "Op!1", False),  # a one-item list: !1 is its item
    ("Op == /\\ 1 + 2 > 9", "Op!1!1", 3),
    ("Op == /\\ 1 + 2 > 9", "Op!1!1!2", 2),
    ("Op == /\\ \\/ 1 + 2 > 9", "Op!1!1", False),  # two one-item lists
    ("Op == /\\ \\/ 1 + 2 > 9", "Op!1!1!2", 9),
    ("Op == 1 = 1 /\\ 2 = 3", "Op!1", True),
    ("Op == /\\ a:: 2 * 3\n      /\\ TRUE", "Op!a", 6),
    ("Op == /\\ a:: 2 * 3\n      /\\ TRUE", "Op!a!1", 2),
    ("Op(p) == p + 10", "Op(4)!1", 4),
    ("Op(p) == p + 10", "Op(4)!:", 14),
    ("Op(p, q) == /\\ lbl:: p - q\n           /\\ TRUE", "Op(9, 4)!lbl", 5),
    ("Op(p) == p + 10", "\\E y \\in {3} : Op(y * 2)!1 = 6", True),
])
def test_subexpression_values(defs: str, expr: str, expected: object) -> None:
    assert _eval(defs, f"{expr}") == expected


@pytest.mark.parametrize(("defs", "expr", "match"), [
    ("Op == 1 + 2 + 3 = 6 /\\ TRUE /\\ TRUE", "Op!1", "chain"),
    ("Op == \\E x \\in {1} : lbl:: x = 1", "Op!lbl", "bound variable"),
    ("Op(p) == 1 + lbl:: p + 1", "Op(1)!2!lbl", "label after another selector"),
    ("Op == \\E x \\in {1} : x = 1", "Op!1", "positional selection"),
])
def test_unsupported_subexpressions_are_refused_with_their_place(defs: str, expr: str,
                                                                  match: str) -> None:
    m = Model(parse_module_text(f"---- MODULE T ----\nEXTENDS Naturals\n{defs}\nX == {expr}\n"
                                "====\n", "T.tla"), ModuleLoader([]))
    with pytest.raises(UnsupportedError, match=match) as info:
        m.eval_constant("X")
    assert info.value.loc is not None and info.value.loc.file == "T.tla"
    assert info.value.loc.line == 4


def test_missing_label_is_an_error() -> None:
    with pytest.raises(TlaError, match="no label nope"):
        _eval("Op == 1", "Op!nope")


# ---------------------------------------------------------------- module-scoped overrides


def test_module_scoped_overrides() -> None:
    r = run("ScopedOverride")
    assert r.verdict == "ok", r.message
    assert r.distinct_states == 3


def test_without_the_scoped_overrides_the_answer_differs() -> None:
    text = (SPECS / "ScopedOverride.cfg").read_text()
    plain = parse_config(text.replace("Max <- [ScopedLib] Two", "").replace(
        "Bound <- [ScopedInst] Small", ""))
    r = run("ScopedOverride", plain)
    assert r.verdict == "violation" and r.property == "Inv"


def test_unscoped_override_would_change_the_roots_own_definition() -> None:
    # Bound <- Small without [ScopedInst] also replaces the root's Bound: Inv fails.
    text = (SPECS / "ScopedOverride.cfg").read_text().replace("[ScopedInst] ", "")
    r = run("ScopedOverride", parse_config(text))
    assert r.verdict == "violation"


def test_scoped_override_of_an_unknown_name_is_an_error() -> None:
    text = (SPECS / "ScopedOverride.cfg").read_text().replace(
        "Max <- [ScopedLib]", "Nope <- [ScopedLib]")
    with pytest.raises(TlaError, match="neither declares nor defines Nope"):
        run("ScopedOverride", parse_config(text))


def test_cfg_scoped_override_syntax() -> None:
    cfg = parse_config("CONSTANT X <- [M] Def\nY <- Other\n")
    assert cfg.overrides == {"M!X": "Def", "Y": "Other"}


def test_module_scoped_values() -> None:
    # ScopedValue's header: 3 distinct states, 3 generated, y = nv throughout
    r = run("ScopedValue")
    assert r.verdict == "ok", r.message
    assert (r.distinct_states, r.states_generated) == (3, 3)
    m = Model.load(SPECS / "ScopedValue.tla",
                   constants=read_config(SPECS / "ScopedValue.cfg").constants)
    assert m.eval_constant("I!NoVal") == ModelValue("nv")
    assert m.eval_constant("<<Bound, I!Bound, I!Twice>>") == (7, 1, 2)


def test_without_the_scoped_values_the_answer_differs() -> None:
    text = (SPECS / "ScopedValue.cfg").read_text().replace("Bound = [ScopedValueInst]1", "")
    r = run("ScopedValue", parse_config(text))
    # I!Bound = 5: Inv (I!Bound = 1) fails in the initial state
    assert r.verdict == "violation" and r.property == "Inv"


def test_scoped_value_of_an_unknown_name_or_module_is_an_error() -> None:
    with pytest.raises(TlaError, match="neither declares nor defines Nope"):
        run("ScopedValue", parse_config("CONSTANT Nope = [ScopedValueInst] 1\nINIT Init\n"
                                        "NEXT Next\n"))
    with pytest.raises(TlaError, match="cannot find module NoSuchModule"):
        run("ScopedValue", parse_config("CONSTANT Bound = [NoSuchModule] 1\nINIT Init\n"
                                        "NEXT Next\n"))


def test_cfg_scoped_value_syntax() -> None:
    # [M] right after = scopes the value; [f |-> 1] stays a record value
    cfg = parse_config("CONSTANT X = [M] v\nY = [M]{1}\nZ = [f |-> 1]\n")
    assert cfg.constants == {"M!X": ModelValue("v"), "M!Y": frozenset({1}),
                             "Z": make_record([("f", 1)])}
    with pytest.raises(TlaError, match="assigned twice"):
        parse_config("CONSTANT X = [M] v\nX = [M] w\n")


# ---------------------------------------------------------------- values in a cfg


def test_record_tuple_and_set_values_in_a_cfg() -> None:
    cfg = parse_config('CONSTANTS R = [a |-> 1, b |-> {x, "s"}, c |-> <<TRUE, -2>>]\n'
                       "T = <<[k |-> 0]>>\nE = {}\n")
    x = ModelValue("x")
    assert cfg.constants["R"] == make_record([("a", 1), ("b", frozenset({x, "s"})),
                                              ("c", (True, -2))])
    assert cfg.constants["T"] == (make_record([("k", 0)]),)
    assert cfg.constants["E"] == frozenset()
    m = Model(parse_module_text("---- MODULE T ----\nEXTENDS Sequences\nCONSTANTS R, T\n====\n",
                                "T.tla"), ModuleLoader([]), cfg.constants)
    assert m.eval_constant("R.a + T[1].k + Len(R.c)") == 3


@pytest.mark.parametrize("text", ["CONSTANT R = [a |-> 1, a |-> 2]", "CONSTANT R = [a = 1]",
                                  "CONSTANT R = [a |-> 1"])
def test_bad_record_values_are_located(text: str) -> None:
    with pytest.raises(TlaError) as info:
        parse_config(text, "M.cfg")
    assert info.value.loc is not None and info.value.loc.file == "M.cfg"


# ---------------------------------------------------------------- ALIAS and POSTCONDITION


def test_alias_replaces_the_printed_states(capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["check", str(SPECS / "AliasPost.tla"), "--quiet"])
    out = capsys.readouterr().out
    assert code == 12
    blocks = [b for b in out.split("\n\n") if b.startswith("State ") or "\nState " in b]
    sums = [line for line in out.splitlines() if line.startswith("/\\ sum")]
    assert sums == ["/\\ sum = 1", "/\\ sum = 3", "/\\ sum = 5", "/\\ sum = 6"]
    assert "/\\ x =" not in out and len(blocks) == 4


def test_alias_falls_back_to_the_state_when_it_fails() -> None:
    config = read_config(SPECS / "AliasPost.cfg")
    config.alias = "Inv"  # a boolean, not a record
    r = run("AliasPost", config)
    assert r.verdict == "violation" and r.alias == [None] * 4


def test_postcondition_holds_after_the_search() -> None:
    config = read_config(SPECS / "AliasPost.cfg")
    config.invariants = []
    r = run("AliasPost", config)
    assert r.verdict == "ok", r.message
    assert (r.distinct_states, r.states_generated) == (4, 4)


def test_false_postcondition_is_a_violation() -> None:
    config = read_config(SPECS / "AliasPost.cfg")
    config.invariants = []
    config.postconditions = ["BadPost"]
    r = run("AliasPost", config)
    assert (r.verdict, r.property, r.exit_code) == ("violation", "BadPost", 12)


def test_postcondition_also_after_simulation() -> None:
    config = read_config(SPECS / "AliasPost.cfg")
    config.invariants = []
    config.postconditions = ["BadPost"]
    model = Model.load(SPECS / "AliasPost.tla")
    r = simulate(model, config, depth=10, traces=3, seed=1, progress=False)
    assert r.verdict == "violation" and r.property == "BadPost"


def test_tlcget_outside_a_postcondition_is_refused() -> None:
    config = read_config(SPECS / "AliasPost.cfg")
    config.invariants = ["Post"]
    r = run("AliasPost", config)
    assert r.verdict == "error" and "only in a POSTCONDITION" in (r.message or "")


# ---------------------------------------------------------------- models without behaviours


def test_assumption_only_model(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["check", str(SPECS / "AssumeOnly.tla"), "--quiet"]) == 0
    out = capsys.readouterr().out
    assert "No error has been found" in out
    assert "0 states generated, 0 distinct states found" in out


def test_false_assumption_is_reported_at_its_place(capsys: pytest.CaptureFixture[str],
                                                   tmp_path: Path) -> None:
    cfg = tmp_path / "A.cfg"
    cfg.write_text("CONSTANT N = 2\n")
    assert main(["check", str(SPECS / "AssumeOnly.tla"), "--config", str(cfg), "--quiet"]) == 1
    err = capsys.readouterr().err
    assert "AssumeOnly.tla:8:1" in err and "Assumption line 8, col 1 of module AssumeOnly is false" in err


def test_invariant_without_behaviour_spec_is_an_error() -> None:
    config = parse_config("CONSTANT N = 3\nINVARIANT Inv\n", "A.cfg")
    r = run("AssumeOnly", config)
    assert r.verdict == "error" and "needs a behaviour spec" in (r.message or "")
    assert r.error_loc is not None and r.error_loc.file == "A.cfg"


# ---------------------------------------------------------------- SYMMETRY and VIEW


def test_symmetry_by_hand() -> None:
    r = run("SymHolder")
    assert (r.verdict, r.distinct_states, r.states_generated, r.depth) == ("ok", 2, 5, 2)
    plain = read_config(SPECS / "SymHolder.cfg")
    plain.symmetry = None
    r = run("SymHolder", plain)
    assert (r.verdict, r.distinct_states, r.states_generated) == ("ok", 4, 7)


def test_view_by_hand() -> None:
    r = run("ViewCounter")
    assert (r.verdict, r.distinct_states, r.states_generated, r.depth) == ("ok", 3, 4, 3)
    bounded = read_config(SPECS / "ViewCounter.cfg")
    bounded.view = None
    model = Model.load(SPECS / "ViewCounter.tla")
    assert check(model, bounded, max_states=50, progress=False).verdict == "limit"
