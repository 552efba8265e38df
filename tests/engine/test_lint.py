"""Apalache compatibility lint: type syntax, annotations, rejected constructs, CLI,
and the state type check used during exploration."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from conformance.cli import main
from conformance.tla.apalache_types import (
    TFun,
    TPrim,
    TRec,
    TSeq,
    TSet,
    TVariant,
    TypeSyntaxError,
    ValueTypeChecker,
    find_annotations,
    parse_type,
    resolve,
    show,
)
from conformance.tla.lint import StateTypeCheck, lint_file
from conformance.tla.values import Fn, ModelValue, make_fn, make_record

SPECS = Path(__file__).parent / "specs"


@pytest.mark.parametrize(
    "text",
    [
        "Int", "Bool", "Str", "NODE", "a", "Set(Int)", "Seq(Set(Str))", "Int -> Bool",
        "Int -> Int -> Int", "(Int -> Int) -> Int", "<<Int, Str, Bool>>", "{a: Int, b: Str}",
        "{a: Int | r}", "A(Int) | B(Str)", "A(Int) | B(Str) | r", "(Int, Bool) => Int",
        "() => Set(Int)", "Set($entry)",
    ],
)
def test_type_syntax_round_trips_through_show(text: str) -> None:
    t = parse_type(text)
    assert parse_type(show(t)) == t


def test_type_structure() -> None:
    assert parse_type("Int -> Seq({epoch: Int, kind: Str})") == TFun(
        TPrim("Int"), TSeq(TRec((("epoch", TPrim("Int")), ("kind", TPrim("Str"))), None)))
    assert parse_type("[type: Str]") == parse_type("{type: Str}")
    assert parse_type("Set(A(Int) | B(Bool))") == TSet(
        TVariant((("A", TPrim("Int")), ("B", TPrim("Bool"))), None))


@pytest.mark.parametrize(("text", "offset"), [("Set(Int", 7), ("Int ->", 6), ("foo", 0),
                                               ("{a Int}", 3), ("Int Int", 4), ("Int & Bool", 4)])
def test_type_syntax_errors_carry_the_offset(text: str, offset: int) -> None:
    with pytest.raises(TypeSyntaxError) as err:
        parse_type(text)
    assert err.value.offset == offset


def test_annotations_in_comments_and_aliases() -> None:
    assert find_annotations("(* @type: Set(Int); *)", "type") == ["Set(Int)"]
    assert find_annotations("\\* @type: Int ->\n\\*   Bool;", "type") == ["Int -> Bool"]
    assert find_annotations("\\* @typeAlias: e = Int; @typeAlias: f = Str;", "typeAlias") == ["e = Int", "f = Str"]
    aliases = {"entry": parse_type("{epoch: Int}"), "log": parse_type("Seq($entry)")}
    assert resolve(parse_type("Int -> $log"), aliases) == TFun(
        TPrim("Int"), TSeq(TRec((("epoch", TPrim("Int")),), None)))
    with pytest.raises(KeyError):
        resolve(parse_type("$nope"), aliases)


def test_values_against_types() -> None:
    c = ValueTypeChecker()
    ok = [
        (3, "Int"), (True, "Bool"), ("x", "Str"), (ModelValue("r1"), "RM"),
        (frozenset({1, 2}), "Set(Int)"), ((1, 2), "Seq(Int)"), ((), "Seq(Str)"),
        ((5, 6), "Int -> Int"), (make_fn({ModelValue("r1"): "w"}), "RM -> Str"),
        ((1, "a"), "<<Int, Str>>"), (make_record([("a", 1)]), "{a: Int}"),
        (make_record([("a", 1), ("z", 2)]), "{a: Int | r}"),
        (make_record([("tag", "A"), ("value", 1)]), "A(Int) | B(Str)"),
    ]
    for value, text in ok:
        assert c.mismatch(value, parse_type(text)) is None, (value, text)
    bad = [
        (True, "Int"), (1, "Bool"), (1, "Str"), ((1,), "Set(Int)"), (frozenset({"a"}), "Set(Int)"),
        ((1, "a"), "Seq(Int)"), (make_fn({"k": 1}), "Int -> Int"), ((1, 2, 3), "<<Int, Int>>"),
        (make_record([("a", 1), ("z", 2)]), "{a: Int}"), (make_record([("b", 1)]), "{a: Int, b: Int}"),
        (make_record([("tag", "C"), ("value", 1)]), "A(Int) | B(Str)"),
        (Fn({0: 1}), "Seq(Int)"),
    ]
    for value, text in bad:
        assert c.mismatch(value, parse_type(text)) is not None, (value, text)
    # The innermost offending value is named.
    assert c.mismatch((1, "x", 3), parse_type("Seq(Int)")) == (TPrim("Int"), "x")


def test_state_type_check_message() -> None:
    check = StateTypeCheck(["x", "s"], {"x": parse_type("Int"), "s": parse_type("Set(Int)")})
    assert check((1, frozenset({2})), 1) is None
    msg = check((1, frozenset({2, "u"})), 7)
    assert msg is not None
    assert "state 7" in msg and "variable s" in msg and "Set(Int)" in msg and '"u"' in msg
    # it says where the expectation comes from and how to turn the check off
    assert "@type: annotation" in msg and "--no-typecheck" in msg


# Apalache reads the model values of a TLC cfg as strings, or as values of an uninterpreted
# type (tlc-config.md): public specs annotate Str (or NODE, A) the constants that their cfg
# gives model values, and TLC ignores the annotations, so such a state passes
@pytest.mark.parametrize(("value", "text"), [
    (ModelValue("n1"), "Str"),
    (ModelValue("n1"), "NODE"),
    (ModelValue("a"), "A"),
    (frozenset({ModelValue("n1"), ModelValue("n2")}), "Set(Str)"),
    (frozenset({ModelValue("n1"), "s"}), "Set(Str)"),
    ((ModelValue("n1"), "s"), "Seq(Str)"),
    (make_record([("who", ModelValue("n1")), ("n", 1)]), "{who: Str, n: Int}"),
    (make_fn({ModelValue("n1"): ModelValue("n2")}), "NODE -> Str"),
    ((ModelValue("n1"), 3), "<<Str, Int>>"),
])
def test_a_model_value_has_type_str_and_uninterpreted_types(value: object, text: str) -> None:
    assert ValueTypeChecker().mismatch(value, parse_type(text)) is None


@pytest.mark.parametrize(("value", "text", "bad"), [
    (1, "Str", 1),
    (frozenset({ModelValue("n1"), 2}), "Set(Str)", 2),
    (make_record([("who", 1)]), "{who: Str}", 1),
    (ModelValue("n1"), "Int", ModelValue("n1")),
    (ModelValue("n1"), "Bool", ModelValue("n1")),
    ((ModelValue("n1"),), "Seq(Int)", ModelValue("n1")),
])
def test_other_values_still_fail_str_and_a_model_value_other_types(
        value: object, text: str, bad: object) -> None:
    found = ValueTypeChecker().mismatch(value, parse_type(text))
    assert found is not None and found[1] == bad


def test_a_cfg_model_value_passes_the_check_of_a_str_annotation(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # VortexDSE-style: the constant is typed Str, the cfg gives it a model value
    spec = tmp_path / "TypeAnnot.tla"
    spec.write_text("---- MODULE TypeAnnot ----\nCONSTANT\n  \\* @type: Str;\n  N\n"
                    "VARIABLE\n  \\* @type: Str;\n  x\nInit == x = N\nNext == UNCHANGED x\n====\n")
    (tmp_path / "TypeAnnot.cfg").write_text("CONSTANT N = n1\nINIT Init\nNEXT Next\n")
    assert main(["check", str(spec), "--quiet", "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert (doc["verdict"], doc["distinct_states"], doc["states_generated"]) == ("ok", 1, 2)
    # an integer is not a Str: the violation names the annotation and --no-typecheck
    (tmp_path / "TypeAnnot.cfg").write_text("CONSTANT N = 1\nINIT Init\nNEXT Next\n")
    assert main(["check", str(spec), "--quiet", "--json"]) == 12
    doc = json.loads(capsys.readouterr().out)
    assert doc["verdict"] == "violation" and "variable x" in doc["message"]
    assert "@type: annotation" in doc["message"] and "--no-typecheck" in doc["message"]
    assert main(["check", str(spec), "--quiet", "--no-typecheck"]) == 0


BAD_SPEC = r"""---- MODULE Bad ----
EXTENDS Naturals, Sequences, Helper
\* @typeAlias: entry = {epoch: Int, value: Int};
CONSTANT
  \* @type: Set(Int);
  Nodes
CONSTANT Untyped
VARIABLES
  \* @type: Int -> Seq($entry);
  log,
  \* @type: Set(;
  x,
  \* @type: $missing;
  y
RECURSIVE F(_)
F(n) == IF n = 0 THEN 0 ELSE F(n - 1)
f[n \in 0..3] == IF n = 0 THEN 1 ELSE n * f[n - 1]
A == \E v : v = 1
B == \A k \in Nat : k >= 0
C == CHOOSE s \in STRING : TRUE
D == \E s \in Seq(Nodes) : Len(s) = 1
E == CHOOSE z : z = 2
G == {k \in Int : k < 3}
H == [STRING -> Nat]
Fine == \A n \in Nodes : \E m \in 1..3 : n = m /\ log \in [Nodes -> Seq([epoch : Nat, value : Int])]
\* @type: (Int, $entry) => Bool;
Typed(k, e) == e.epoch = k
\* @type: (Int) => Set(;
Mistyped(k) == {k}
\* @type: $nowhere;
Dangling == 1
====
"""

HELPER = r"""---- MODULE Helper ----
VARIABLE z
====
"""


def test_lint_reports_every_issue_with_its_location(tmp_path: Path) -> None:
    (tmp_path / "Bad.tla").write_text(BAD_SPEC)
    (tmp_path / "Helper.tla").write_text(HELPER)
    found = [(i.file.rsplit("/", 1)[-1], i.line, i.message.split(" (")[0]) for i in lint_file(tmp_path / "Bad.tla")]
    assert ("Bad.tla", 7, "CONSTANT Untyped has no @type: annotation") in found
    assert any(f[1] == 12 and "cannot parse the @type: annotation of VARIABLE x" in f[2] for f in found)
    assert any(f[1] == 14 and "undeclared alias $missing" in f[2] for f in found)
    assert ("Bad.tla", 15, "RECURSIVE operator F") in found
    assert ("Bad.tla", 17, "recursive function f") in found
    assert ("Bad.tla", 18, "unbounded \\E v") in found
    assert ("Bad.tla", 19, "Nat used as the domain of \\A") in found
    assert ("Bad.tla", 20, "STRING used as the domain of CHOOSE") in found
    assert ("Bad.tla", 21, "Seq(S) used as a set in \\E") in found
    assert ("Bad.tla", 22, "unbounded CHOOSE z") in found
    assert any(f[1] == 23 and f[2].startswith("Int used as the domain") for f in found)
    assert ("Bad.tla", 24, "STRING used as a function domain [STRING -> T]") in found
    assert ("Helper.tla", 2, "VARIABLE z has no @type: annotation") in found
    assert any(f[1] == 29 and "cannot parse the @type: annotation of Mistyped" in f[2] for f in found)
    assert any(f[1] == 31 and "annotation of Dangling uses the undeclared alias $nowhere" in f[2] for f in found)
    # Membership in infinite sets, bounded quantifiers and good annotations are fine.
    assert not any(f[1] in (5, 6, 9, 10, 25, 27) for f in found)
    assert len(found) == 15


def test_classic_specs_are_clean_except_recursion() -> None:
    for spec in sorted(SPECS.glob("*.tla")):
        issues = lint_file(spec)
        if spec.stem == "Tokens":
            assert [i.message.split(" (")[0] for i in issues] == ["recursive function S"]
        elif spec.stem == "TwoPhase":
            assert [i.message for i in issues] == ["VARIABLE msgs has no @type: annotation"]
        else:
            assert issues == [], spec


def test_lint_cli_exit_codes(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from conformance.tla import lint_cmd

    class Args:
        spec = SPECS / "DieHard.tla"
        search_path: list[Path] = []

    assert lint_cmd.run(Args()) == 0  # type: ignore[arg-type]
    clean = capsys.readouterr()
    assert clean.out == ""
    assert "no Apalache compatibility issue found" in clean.err
    Args.spec = SPECS / "Tokens.tla"
    assert lint_cmd.run(Args()) == 1  # type: ignore[arg-type]
    out = capsys.readouterr().out.strip().splitlines()
    assert out == [f"{SPECS / 'Tokens.tla'}:18:15: recursive function S (Apalache rejects recursive functions)"]
    Args.spec = tmp_path / "Nope.tla"
    assert lint_cmd.run(Args()) == 1  # type: ignore[arg-type]
    assert "Nope" in capsys.readouterr().err


def test_long_sequences_are_checked_by_their_new_tail_and_not_kept() -> None:
    c = ValueTypeChecker()
    seq = parse_type("Seq({epoch: Int})")
    entries = tuple(make_record([("epoch", k)]) for k in range(200))
    assert c.mismatch(entries[:100], seq) is None
    assert c.mismatch(entries, seq) is None  # extends the first: only its tail is checked
    bad = make_record([("epoch", "x")])
    assert c.mismatch((*entries, bad), seq) == (TPrim("Int"), "x")  # an error in the tail
    assert c.mismatch((bad, *entries[1:]), seq) == (TPrim("Int"), "x")  # not an extension: all checked
    for n in range(70, 90):
        assert c.mismatch(entries[:n], seq) is None
    assert sum(len(v) for v in c._long.values()) <= 8  # the last few long sequences only
    assert all(len(v) <= 64 for cache in c._ok.values() for v in cache if isinstance(v, tuple))


def test_a_long_sequence_that_extends_the_value_it_replaces_has_its_tail_checked() -> None:
    """``earlier`` (the variable's previous, accepted value) is tried first; a value that
    does not extend it, or a bad element where it differs, is still found."""
    c = ValueTypeChecker()
    seq = parse_type("Seq({epoch: Int})")
    entries = tuple(make_record([("epoch", k)]) for k in range(300))
    bad = make_record([("epoch", "x")])
    assert c.mismatch(entries[:200], seq) is None
    for _ in range(10):  # the first log falls out of the recent ones
        assert c.mismatch(tuple(make_record([("epoch", -k)]) for k in range(100)), seq) is None
    assert c.mismatch((*entries[:200], bad), seq, earlier=entries[:200]) == (TPrim("Int"), "x")
    assert c.mismatch(entries, seq, earlier=entries[:200]) is None
    swapped = (*entries[:150], bad, *entries[151:])  # same length and last element as ``entries``
    assert c.mismatch(swapped, seq, earlier=entries) == (TPrim("Int"), "x")
    assert c.mismatch((bad, *entries[1:]), seq, earlier=entries[1:200]) == (TPrim("Int"), "x")


def test_state_type_check_passes_the_same_objects_at_once_and_checks_the_others() -> None:
    check = StateTypeCheck(["x", "s"], {"x": parse_type("Int"), "s": parse_type("Set(Int)")})
    s = frozenset({2})
    assert check((0, s), 1) is None
    assert check((0, s), 2) is None
    msg = check((False, s), 3)  # Python finds FALSE equal to 0; TLA+ does not
    assert msg is not None and "variable x" in msg
    assert check((1, frozenset({True})), 4) is not None


def test_state_type_check_knows_the_values_that_passed_by_identity_only() -> None:
    check = StateTypeCheck(["x", "s"], {"x": parse_type("Int"), "s": parse_type("Set(Int)")})
    one, two, bad = frozenset({1}), frozenset({2}), frozenset({True})
    assert check((0, one), 1) is None and check((0, two), 2) is None
    asked: list[object] = []
    mismatch = check.checker.mismatch
    check.checker.mismatch = lambda v, t: asked.append(v) or mismatch(v, t)  # type: ignore[method-assign]
    assert check((0, one), 3) is None  # passed before: not asked again
    other = frozenset({1})
    assert check((0, other), 4) is None  # an equal value, another object: asked
    for number in (5, 6):  # a value that failed fails every time
        msg = check((0, bad), number)
        assert msg is not None and f"state {number}: variable s" in msg
    assert [id(v) for v in asked] == [id(other), id(bad), id(bad)]


def test_a_value_accepted_before_does_not_accept_its_boolean_pun() -> None:
    c = ValueTypeChecker()
    t = parse_type("[a: Int, b: Seq(Int)]")
    assert c.mismatch(make_record([("a", 0), ("b", (1,))]), t) is None
    assert c.mismatch(make_record([("a", False), ("b", (1,))]), t) == (TPrim("Int"), False)
    assert c.mismatch(make_record([("a", 0), ("b", (True,))]), t) == (TPrim("Int"), True)
    assert c.mismatch(make_record([("a", 0), ("b", (1,))]), t) is None


def test_an_object_accepted_before_is_known_by_identity_only_while_it_lives() -> None:
    """Accepted objects are remembered by identity, and the entry keeps the object alive: a
    punned value built after an accepted one was dropped (CPython often gives it the freed
    id) is checked, not taken for the accepted one."""
    c = ValueTypeChecker()
    t = parse_type("Seq(Int)")
    kept = []
    for k in range(200):
        first = tuple([k, 1, 2])
        assert c.mismatch(first, t) is None
        kept.append(first)
        v = tuple([k, 1, 2])  # an equal copy: accepted as the same value as ``first``
        assert c.mismatch(v, t) is None
        assert c.mismatch(v, t) is None
        del v
        w = tuple([k, True, 2])
        assert c.mismatch(w, t) == (TPrim("Int"), True)
        del w


def test_a_long_sequence_does_not_extend_its_boolean_pun() -> None:
    """The prefix a long sequence shares with an accepted one is compared as TLA+ values: FALSE
    where the accepted sequence had 0 is checked (Python finds the two prefixes equal)."""
    c = ValueTypeChecker()
    seq = parse_type("Seq(Int)")
    ints = tuple([0] * 100)
    assert c.mismatch(ints, seq) is None
    punned = (*ints[:40], False, *ints[41:], 7)
    assert c.mismatch(punned, seq) == (TPrim("Int"), False)
    assert c.mismatch(punned, seq, earlier=ints) == (TPrim("Int"), False)
    assert c.mismatch((*ints, 7), seq, earlier=ints) is None
