"""The TLA+ parser: module text -> AST, with locations, annotations and errors."""

from __future__ import annotations

import dataclasses
import time
from pathlib import Path
from typing import Any

import pytest

from conformance.tla import syntax as ast
from conformance.tla.parser import parse_expression, parse_module_text
from conformance.tla.parser_tree import mask_pluscal
from conformance.tla.syntax import (
    NO_LOC,
    And,
    At,
    Bool,
    Bound,
    Case,
    CaseArm,
    Choose,
    Except,
    ExceptPath,
    ExceptUpdate,
    FieldAccess,
    FnApp,
    FnConstruct,
    FnSet,
    If,
    InstanceOpApp,
    Lambda,
    Let,
    Loc,
    Name,
    Num,
    OpApp,
    Or,
    ParseError,
    Prime,
    Quant,
    RecordConstruct,
    RecordSet,
    SetEnum,
    SetFilter,
    SetMap,
    Str,
    Temporal,
    Tuple,
    UnboundedQuant,
    Unchanged,
    UnsupportedError,
)

L = NO_LOC
FIXTURES = Path(__file__).parent / "parser_fixtures"


def strip(value: Any) -> Any:
    """The same AST with every location replaced by NO_LOC (to compare structure)."""
    if isinstance(value, tuple):
        return tuple(strip(v) for v in value)
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        changes = {}
        for f in dataclasses.fields(value):
            v = getattr(value, f.name)
            changes[f.name] = L if isinstance(v, Loc) else strip(v)
        return dataclasses.replace(value, **changes)
    return value


def e(text: str) -> ast.Expr:
    return strip(parse_expression(text))


def n(name: str) -> Name:
    return Name(L, name)


def num(value: int) -> Num:
    return Num(L, value)


def op(name: str, *args: ast.Expr) -> OpApp:
    return OpApp(L, name, args)


def module(body: str, name: str = "M") -> ast.Module:
    return parse_module_text(f"---- MODULE {name} ----\n{body}\n====\n", f"{name}.tla")


def unit(body: str) -> ast.Unit:
    (only,) = module(body).units
    return strip(only)


def bound(names: tuple[str, ...], domain: ast.Expr, tuple_pattern: bool = False) -> Bound:
    return Bound(names, tuple_pattern, domain, L)


# ---------------------------------------------------------------------------- module structure


def test_module_header_extends_and_footer() -> None:
    m = parse_module_text(
        "Text before the module is ignored.\n"
        "------------------ MODULE Spec ------------------\n"
        "EXTENDS Naturals, Sequences, Helpers\n"
        "----\n"
        "X == 1\n"
        "==================================================\n"
        "Text after the module is ignored too.\n",
        "Spec.tla",
    )
    assert m.name == "Spec"
    assert m.file == "Spec.tla"
    assert m.extends == ("Naturals", "Sequences", "Helpers")
    assert m.loc == Loc("Spec.tla", 2, 1)
    assert [type(u).__name__ for u in m.units] == ["OpDef"]


def test_constants_including_operator_constants() -> None:
    units = [strip(u) for u in module("CONSTANT N\nCONSTANTS A, F(_, _), G(_)").units]
    assert units == [
        ast.ConstantDecl(L, "N", 0, None),
        ast.ConstantDecl(L, "A", 0, None),
        ast.ConstantDecl(L, "F", 2, None),
        ast.ConstantDecl(L, "G", 1, None),
    ]


def test_variables() -> None:
    units = [strip(u) for u in module("VARIABLE x\nVARIABLES y, z").units]
    assert units == [
        ast.VariableDecl(L, "x", None),
        ast.VariableDecl(L, "y", None),
        ast.VariableDecl(L, "z", None),
    ]


def test_declaration_locations_name_each_identifier() -> None:
    m = module("VARIABLES x,\n  yy")
    assert [u.loc for u in m.units] == [Loc("M.tla", 2, 11), Loc("M.tla", 3, 3)]


def test_operator_definition_with_plain_and_higher_order_params() -> None:
    assert unit("Op(a, F(_, _), G(_)) == F(a, G(a))") == ast.OpDef(
        L,
        "Op",
        (ast.Param("a", 0), ast.Param("F", 2), ast.Param("G", 1)),
        op("F", n("a"), op("G", n("a"))),
        False,
        None,
    )


def test_infix_prefix_postfix_operator_definitions() -> None:
    units = [strip(u) for u in module("a ++ b == a\n-. a == a\na ^+ == a\na \\oplus b == b").units]
    assert [(u.name, u.params) for u in units] == [
        ("++", (ast.Param("a", 0), ast.Param("b", 0))),
        ("-.", (ast.Param("a", 0),)),
        ("^+", (ast.Param("a", 0),)),
        ("\\oplus", (ast.Param("a", 0), ast.Param("b", 0))),
    ]


def test_user_infix_operator_application() -> None:
    assert e("a ++ b") == op("++", n("a"), n("b"))
    assert e("a ^+") == op("^+", n("a"))


def test_local_definitions_and_instances() -> None:
    m = module("LOCAL Helper == 1\nLOCAL f[x \\in S] == x\nLOCAL INSTANCE Other")
    helper, fn, inst = (strip(u) for u in m.units)
    assert helper == ast.OpDef(L, "Helper", (), num(1), True, None)
    assert isinstance(fn, ast.FnDef) and fn.local and fn.name == "f"
    assert inst == ast.Instance(L, "Other", (), True, None, ())


def test_recursive_declaration() -> None:
    assert unit("RECURSIVE F(_), G, H(_, _)") == ast.Recursive(L, (("F", 1), ("G", 0), ("H", 2)))


def test_function_definition_with_several_bounds() -> None:
    assert unit("f[x \\in S, y, z \\in T, <<a, b>> \\in U] == x") == ast.FnDef(
        L,
        "f",
        (
            bound(("x",), n("S")),
            bound(("y", "z"), n("T")),
            bound(("a", "b"), n("U"), tuple_pattern=True),
        ),
        n("x"),
        False,
        None,
    )


def test_instances_named_parameterised_and_unnamed() -> None:
    units = [
        strip(u)
        for u in module(
            "I == INSTANCE Chan WITH Data <- Msg, chan <- in, + <- Plus\n"
            "J(p) == INSTANCE Chan\n"
            "INSTANCE Chan WITH Data <- {1}"
        ).units
    ]
    assert units == [
        ast.Instance(
            L, "Chan", (("Data", n("Msg")), ("chan", n("in")), ("+", n("Plus"))), False, "I", ()
        ),
        ast.Instance(L, "Chan", (), False, "J", (ast.Param("p", 0),)),
        ast.Instance(L, "Chan", (("Data", SetEnum(L, (num(1),))),), False, None, ()),
    ]


def test_assume_and_theorem_are_kept() -> None:
    units = [
        strip(u)
        for u in module(
            "ASSUME N > 0\nASSUME Positive == N > 0\nTHEOREM Safe == Spec => []Inv\n"
            "THEOREM Spec => Inv\nLEMMA L1 == TRUE\n  PROOF OBVIOUS\n"
            "THEOREM T2 == ASSUME NEW x PROVE x = x"
        ).units
    ]
    gt = op(">", n("N"), num(0))
    safe = op("=>", n("Spec"), Temporal(L, "[]", (n("Inv"),)))

    def d(name: str, body: ast.Expr) -> ast.OpDef:  # the definition a named statement makes
        return ast.OpDef(L, name, (), body, False, None)

    assert units[0] == ast.Assume(L, gt)
    assert units[1] == ast.Assume(L, gt, "Positive", d("Positive", gt))
    assert units[2] == ast.Theorem(L, "Safe", safe, d("Safe", safe))
    assert units[3] == ast.Theorem(L, None, op("=>", n("Spec"), n("Inv")))
    assert units[4] == ast.Theorem(L, "L1", Bool(L, True), d("L1", Bool(L, True)))  # proof left out
    assert units[5] == ast.Theorem(L, "T2", None)  # ASSUME ... PROVE: no definition


def test_separators_and_proof_directives_are_ignored() -> None:
    m = module("A == 1\n----\nUSE DEF A\n--------\nB == 2")
    assert [u.name for u in m.units] == ["A", "B"]  # type: ignore[attr-defined]


# ---------------------------------------------------------------------------- comments


def test_comments_are_all_kept_in_order_and_nested_block_comments_are_one() -> None:
    m = module("\\* line one\n(* block (* nested *) still *)\nA == 1 \\* trailing\n(* last *)")
    assert [c.text for c in m.comments] == [
        "\\* line one",
        "(* block (* nested *) still *)",
        "\\* trailing",
        "(* last *)",
    ]
    assert [c.loc for c in m.comments] == [
        Loc("M.tla", 2, 1),
        Loc("M.tla", 3, 1),
        Loc("M.tla", 4, 8),
        Loc("M.tla", 5, 1),
    ]


def test_adjacent_block_comments_stay_separate() -> None:
    m = module("(* one *)\n(* two (* in *) *)\nVARIABLE v")
    assert [c.text for c in m.comments] == ["(* one *)", "(* two (* in *) *)"]
    assert [c.loc.line for c in m.comments] == [2, 3]
    (v,) = m.units
    assert isinstance(v, ast.VariableDecl)
    assert v.annotation == "(* one *)\n(* two (* in *) *)"


def test_pluscal_algorithms_in_comments_are_only_comments() -> None:
    m = module(
        "(* --algorithm counter\nvariables x = 0;\nbegin\n  Inc: x := x + 1;\nend algorithm; *)\n"
        '\\* BEGIN TRANSLATION\nVARIABLES x, pc\nInit == x = 0 /\\ pc = "Inc"\n'
        "(* --fair algorithm half written\nbegin x := ; ((\n*)\nAfter == 1"
    )
    assert [getattr(u, "name", None) for u in m.units] == ["x", "pc", "Init", "After"]
    assert m.comments[0].text.startswith("(* --algorithm counter\nvariables x = 0;")
    assert m.comments[-1].text.startswith("(* --fair algorithm half written")
    assert m.comments[-1].loc == Loc("M.tla", 10, 1)


def test_pluscal_masking_respects_strings_and_line_comments() -> None:
    src = (
        b'A == "(* --algorithm x" \\* (* not a comment start\n'
        b"(* a (* nested *) --algorithm y\n begin skip; end algorithm *)\n"
        b'B == "*)"\n'
    )
    out = mask_pluscal(src)
    lines = out.split(b"\n")
    assert lines[0] == src.split(b"\n")[0]
    assert lines[1].strip() == b"(*" and lines[2].strip() == b"*)"
    assert lines[3] == b'B == "*)"'
    assert len(out) == len(src)


def test_comments_inside_expressions_are_skipped() -> None:
    assert strip(
        module("A == /\\ x \\* first\n     (* between *)\n     /\\ y").units[0]
    ) == ast.OpDef(L, "A", (), And(L, (n("x"), n("y")), bullet=True), False, None)


@pytest.mark.parametrize(
    "text",
    [
        "Op(a, \\* c\n   b)",
        "\\E x, (* c *) y : P",
        "CHOOSE (* c *) x : P",
        "[a |-> 1, (* c *) b |-> 2]",
        "<<1, (* c *) 2>>",
        "[f EXCEPT (* c *) ![1] = 2]",
        "CASE a -> 1 (* c *) [] OTHER -> 2",
        "LET x == (* c *) 1 (* d *) IN x",
        "[x \\in S (* c *) |-> x]",
        "{x \\in S (* c *) : P}",
        "I!Op((* c *) 1)",
        "(* c *) (x)",
    ],
)
def test_comments_anywhere_in_an_expression_change_nothing(text: str) -> None:
    without = text.replace("\\* c\n", "\n").replace("(* c *)", "").replace("(* d *)", "")
    assert e(text) == e(without)


# ---------------------------------------------------------------------------- annotations


def test_annotations_above_declarations_and_definitions() -> None:
    m = module(
        "\\* @type: Int;\nCONSTANT N\n"
        "(* @type: Str; *)\nVARIABLE v\n"
        "\\* @type: (Int) => Int;\n\\* second line\nDouble(x) == 2 * x\n"
        "\\* @type: Int -> Int;\nf[x \\in 1..N] == x\n"
        "\\* @type: Int;\nLOCAL Loc == 1"
    )
    notes = {u.name: u.annotation for u in m.units}  # type: ignore[attr-defined]
    assert notes == {
        "N": "\\* @type: Int;",
        "v": "(* @type: Str; *)",
        "Double": "\\* @type: (Int) => Int;\n\\* second line",
        "f": "\\* @type: Int -> Int;",
        "Loc": "\\* @type: Int;",
    }


def test_annotations_inside_declaration_lists() -> None:
    m = module(
        "CONSTANTS\n  \\* @type: Int;\n  N,\n  \\* @type: Str;\n  S\n"
        "VARIABLES \\* @type: Int;\n  x, \\* @type: Bool;\n  y"
    )
    notes = {u.name: u.annotation for u in m.units}  # type: ignore[attr-defined]
    assert notes == {
        "N": "\\* @type: Int;",
        "S": "\\* @type: Str;",
        "x": "\\* @type: Int;",
        "y": "\\* @type: Bool;",
    }


def test_list_names_without_their_own_comment_take_the_one_above_the_keyword() -> None:
    m = module("\\* @type: Int;\nCONSTANTS A, B")
    assert [u.annotation for u in m.units] == ["\\* @type: Int;", "\\* @type: Int;"]  # type: ignore[attr-defined]


def test_no_annotation_across_a_blank_line_code_or_from_a_trailing_comment() -> None:
    m = module(
        "\\* section header\n\nA == 1\nB == 2 \\* trailing remark on B\nC == 3\n"
        "\\* about D\nX == 0\nD == 4"
    )
    notes = {u.name: u.annotation for u in m.units}  # type: ignore[attr-defined]
    assert notes == {"A": None, "B": None, "C": None, "X": "\\* about D", "D": None}


def test_let_definitions_are_annotated_too() -> None:
    body = unit("A == LET \\* @type: Int;\n         x == 1\n     IN x")
    assert isinstance(body, ast.OpDef) and isinstance(body.body, Let)
    (inner,) = body.body.defs
    assert isinstance(inner, ast.OpDef) and inner.annotation == "\\* @type: Int;"


# ---------------------------------------------------------------------------- literals


def test_numbers_in_all_bases() -> None:
    assert e("42") == num(42)
    assert e("\\b1010") == num(10)
    assert e("\\B11") == num(3)
    assert e("\\o17") == num(15)
    assert e("\\h1F") == num(31)
    assert e("\\HfF") == num(255)


def test_strings_with_escapes() -> None:
    assert e('"plain"') == Str(L, "plain")
    assert e('"q\\"uote\\\\ back\\n\\t\\r\\f"') == Str(L, 'q"uote\\ back\n\t\r\f')


def test_booleans_and_builtin_sets() -> None:
    assert e("TRUE") == Bool(L, True)
    assert e("FALSE") == Bool(L, False)
    assert e("<<BOOLEAN, STRING, Nat, Int>>") == Tuple(
        L, (n("BOOLEAN"), n("STRING"), n("Nat"), n("Int"))
    )


# ---------------------------------------------------------------------------- operators


@pytest.mark.parametrize(
    ("text", "symbol"),
    [
        ("a + b", "+"),
        ("a - b", "-"),
        ("a * b", "*"),
        ("a \\div b", "\\div"),
        ("a % b", "%"),
        ("a ^ b", "^"),
        ("a .. b", ".."),
        ("a < b", "<"),
        ("a > b", ">"),
        ("a <= b", "<="),
        ("a =< b", "<="),
        ("a \\leq b", "<="),
        ("a >= b", ">="),
        ("a \\geq b", ">="),
        ("a = b", "="),
        ("a /= b", "/="),
        ("a # b", "/="),
        ("a \\cup b", "\\cup"),
        ("a \\union b", "\\cup"),
        ("a \\cap b", "\\cap"),
        ("a \\intersect b", "\\cap"),
        ("a \\ b", "\\"),
        ("a \\in b", "\\in"),
        ("a \\notin b", "\\notin"),
        ("a \\subseteq b", "\\subseteq"),
        ("a \\subset b", "\\subset"),
        ("a \\supseteq b", "\\supseteq"),
        ("a => b", "=>"),
        ("a <=> b", "<=>"),
        ("a \\equiv b", "<=>"),
        ("a \\o b", "\\o"),
        ("a \\circ b", "\\o"),
        ("a :> b", ":>"),
        ("a @@ b", "@@"),
    ],
)
def test_binary_operators_use_canonical_symbols(text: str, symbol: str) -> None:
    assert e(text) == op(symbol, n("a"), n("b"))


@pytest.mark.parametrize(
    ("text", "symbol"),
    [
        ("~a", "~"),
        ("\\lnot a", "~"),
        ("\\neg a", "~"),
        ("-a", "-."),
        ("SUBSET a", "SUBSET"),
        ("UNION a", "UNION"),
        ("DOMAIN a", "DOMAIN"),
    ],
)
def test_prefix_operators(text: str, symbol: str) -> None:
    assert e(text) == op(symbol, n("a"))


def test_arithmetic_precedence_and_associativity() -> None:
    assert e("1 - 2 + 3") == op("+", op("-", num(1), num(2)), num(3))
    assert e("1 + 2 * 3") == op("+", num(1), op("*", num(2), num(3)))
    assert e("a - -b") == op("-", n("a"), op("-.", n("b")))
    assert e("(1 + 2) * 3") == op("*", op("+", num(1), num(2)), num(3))
    assert e("1 .. N - 1") == op("..", num(1), op("-", n("N"), num(1)))


def test_logic_infix_chains_flatten() -> None:
    assert e("a /\\ b /\\ c") == And(L, (n("a"), n("b"), n("c")))
    assert e("a \\land b") == And(L, (n("a"), n("b")))
    assert e("a \\/ b \\lor c") == Or(L, (n("a"), n("b"), n("c")))
    assert e("a /\\ b \\/ c") == Or(L, (And(L, (n("a"), n("b"))), n("c")))
    assert e("a /\\ (b /\\ c)") == And(L, (n("a"), And(L, (n("b"), n("c")))))


def test_cartesian_product_is_n_ary_unless_parenthesised() -> None:
    assert e("A \\X B \\X C") == op("\\times", n("A"), n("B"), n("C"))
    assert e("A \\times B") == op("\\times", n("A"), n("B"))
    assert e("(A \\X B) \\X C") == op("\\times", op("\\times", n("A"), n("B")), n("C"))


def test_prime_and_unchanged() -> None:
    assert e("x' = x + 1") == op("=", Prime(L, n("x")), op("+", n("x"), num(1)))
    assert e("f[i]'") == Prime(L, FnApp(L, n("f"), (n("i"),)))
    assert e("UNCHANGED <<x, y>>") == Unchanged(L, Tuple(L, (n("x"), n("y"))))
    assert e("UNCHANGED x") == Unchanged(L, n("x"))


def test_unicode_operator_spellings() -> None:
    assert e("x \u2208 S \u2227 y \u2264 z") == And(
        L, (op("\\in", n("x"), n("S")), op("<=", n("y"), n("z")))
    )
    assert e("A \u00d7 B \u00d7 C") == op("\\times", n("A"), n("B"), n("C"))


@pytest.mark.parametrize(
    ("unicode", "ascii"),
    [
        ("a \u2025 b", "a .. b"),  # ‥
        ("a \u2026 b", "a ... b"),  # …
        ("A \u21f8 B", "A -+-> B"),  # ⇸
        ("\u22c4 P", "<> P"),  # ⋄
        ("R\u207a", "R^+"),  # ⁺
        ("a \u2295 b", "a \\oplus b"),  # ⊕
        ("a (+) b", "a \\oplus b"),
        ("a (-) b", "a \\ominus b"),
        ("a \u2aaf b", "a \\preceq b"),  # ⪯
        ("a \u22a2 b", "a |- b"),  # ⊢
        ("a \u2016 b", "a || b"),  # ‖
    ],
)
def test_unicode_spellings_of_the_standard_table(unicode: str, ascii: str) -> None:
    assert e(unicode) == e(ascii)


# ---------------------------------------------------------------------------- junction lists


def test_bulleted_lists_nest_by_column() -> None:
    text = "/\\ a\n/\\ \\/ b\n   \\/ /\\ c\n      /\\ d\n/\\ e"
    assert e(text) == And(L, (n("a"), Or(L, (n("b"), And(L, (n("c"), n("d")), bullet=True)),
                                         bullet=True), n("e")), bullet=True)


def test_bulleted_list_ends_where_the_column_goes_left() -> None:
    text = "\\/ /\\ a\n   /\\ b\n\\/ c"
    assert e(text) == Or(L, (And(L, (n("a"), n("b")), bullet=True), n("c")), bullet=True)


def test_single_item_bulleted_lists_collapse() -> None:
    assert e("/\\ a") == n("a")
    assert e("\\/ x = 1") == op("=", n("x"), num(1))


# ---------------------------------------------------------------------------- constructs


def test_if_then_else() -> None:
    assert e("IF a THEN 1 ELSE 2") == If(L, n("a"), num(1), num(2))


def test_case_with_and_without_other() -> None:
    assert e("CASE a -> 1 [] b -> 2 [] OTHER -> 3") == Case(
        L, (CaseArm(n("a"), num(1)), CaseArm(n("b"), num(2))), num(3)
    )
    assert e("CASE a -> 1") == Case(L, (CaseArm(n("a"), num(1)),), None)


def test_let_in() -> None:
    got = e("LET g(z) == z + 1\n    h[w \\in S] == w\n    RECURSIVE r(_)\nIN g(1)")
    assert got == Let(
        L,
        (
            ast.OpDef(L, "g", (ast.Param("z", 0),), op("+", n("z"), num(1)), False, None),
            ast.FnDef(L, "h", (bound(("w",), n("S")),), n("w"), False, None),
            ast.Recursive(L, (("r", 1),)),
        ),
        op("g", num(1)),
    )


def test_bounded_quantifiers() -> None:
    assert e("\\A x, y \\in S, <<u, v>> \\in T : P") == Quant(
        L,
        "A",
        (bound(("x", "y"), n("S")), bound(("u", "v"), n("T"), tuple_pattern=True)),
        n("P"),
    )
    assert e("\\E <<x, y>> \\in S : x") == Quant(
        L, "E", (bound(("x", "y"), n("S"), tuple_pattern=True),), n("x")
    )


def test_unbounded_quantifiers() -> None:
    assert e("\\A x, y : P") == UnboundedQuant(L, "A", ("x", "y"), n("P"))
    assert e("\\E x : P") == UnboundedQuant(L, "E", ("x",), n("P"))
    assert e("\\EE x : P") == UnboundedQuant(L, "EE", ("x",), n("P"))
    assert e("\\AA x : P") == UnboundedQuant(L, "AA", ("x",), n("P"))


def test_choose_bounded_unbounded_and_tuple() -> None:
    assert e("CHOOSE x \\in S : x > 0") == Choose(L, ("x",), False, n("S"), op(">", n("x"), num(0)))
    assert e("CHOOSE x : TRUE") == Choose(L, ("x",), False, None, Bool(L, True))
    assert e("CHOOSE <<a, b>> \\in S : a") == Choose(L, ("a", "b"), True, n("S"), n("a"))


def test_set_constructors() -> None:
    assert e("{}") == SetEnum(L, ())
    assert e("{1, 2}") == SetEnum(L, (num(1), num(2)))
    assert e("{x \\in S : x > 1}") == SetFilter(L, bound(("x",), n("S")), op(">", n("x"), num(1)))
    assert e("{<<a, b>> \\in S : a}") == SetFilter(
        L, bound(("a", "b"), n("S"), tuple_pattern=True), n("a")
    )
    assert e("{x + y : x \\in S, y \\in T}") == SetMap(
        L, op("+", n("x"), n("y")), (bound(("x",), n("S")), bound(("y",), n("T")))
    )


def test_functions() -> None:
    assert e("[x \\in S, y \\in T |-> x]") == FnConstruct(
        L, (bound(("x",), n("S")), bound(("y",), n("T"))), n("x")
    )
    assert e("[S -> T]") == FnSet(L, n("S"), n("T"))
    assert e("f[a]") == FnApp(L, n("f"), (n("a"),))
    assert e("f[a, b]") == FnApp(L, n("f"), (n("a"), n("b")))
    assert e("f[a][b]") == FnApp(L, FnApp(L, n("f"), (n("a"),)), (n("b"),))


def test_except_with_nested_paths_and_at() -> None:
    assert e("[f EXCEPT ![a].b[c] = @ + 1, !.d = 2, ![1, 2] = @]") == Except(
        L,
        n("f"),
        (
            ExceptUpdate(
                (
                    ExceptPath(None, (n("a"),)),
                    ExceptPath("b", ()),
                    ExceptPath(None, (n("c"),)),
                ),
                op("+", At(L), num(1)),
            ),
            ExceptUpdate((ExceptPath("d", ()),), num(2)),
            ExceptUpdate((ExceptPath(None, (num(1), num(2))),), At(L)),
        ),
    )


def test_records() -> None:
    assert e("[a |-> 1, b |-> TRUE]") == RecordConstruct(L, (("a", num(1)), ("b", Bool(L, True))))
    assert e("[a : S, b : T]") == RecordSet(L, (("a", n("S")), ("b", n("T"))))
    assert e("r.a.b") == FieldAccess(L, FieldAccess(L, n("r"), "a"), "b")
    assert e("m[i].epoch") == FieldAccess(L, FnApp(L, n("m"), (n("i"),)), "epoch")


def test_tuples() -> None:
    assert e("<<>>") == Tuple(L, ())
    assert e("<<1, <<2>>>>") == Tuple(L, (num(1), Tuple(L, (num(2),))))


def test_operator_application_with_lambda_and_operator_arguments() -> None:
    assert e("Op(LAMBDA x, y : x + y, F, +)") == op(
        "Op", Lambda(L, ("x", "y"), op("+", n("x"), n("y"))), n("F"), n("+")
    )


def test_instance_operator_references() -> None:
    assert e("I!Op(1, 2)") == InstanceOpApp(L, ("I",), "Op", (num(1), num(2)))
    assert e("I!J!K") == InstanceOpApp(L, ("I", "J"), "K", ())
    assert e("I!+(1, 2)") == InstanceOpApp(L, ("I",), "+", (num(1), num(2)))


def test_temporal_operators_and_fairness() -> None:
    assert e("[][Next]_vars") == Temporal(L, "[]", (ast.ActionBox(L, n("Next"), n("vars"), True),))
    assert e("<><<A>>_<<x, y>>") == Temporal(
        L, "<>", (ast.ActionBox(L, n("A"), Tuple(L, (n("x"), n("y"))), False),)
    )
    assert e("P ~> Q") == Temporal(L, "~>", (n("P"), n("Q")))
    assert e("ENABLED A") == Temporal(L, "ENABLED", (n("A"),))
    assert e("A \\cdot B") == Temporal(L, "\\cdot", (n("A"), n("B")))
    assert e("WF_vars(Next)") == ast.Fairness(L, "WF", n("vars"), n("Next"))
    assert e("SF_<<x>>(A(1))") == ast.Fairness(L, "SF", Tuple(L, (n("x"),)), op("A", num(1)))


def test_labels_and_parentheses_are_dropped() -> None:
    assert e("lbl :: (x)") == n("x")
    assert e("((1))") == num(1)


# ---------------------------------------------------------------------------- locations


def test_expression_locations_are_one_based_and_point_at_the_construct() -> None:
    m = parse_module_text(
        "---- MODULE Loc ----\nNext ==\n  \\/ x' = x + 1\n  \\/ /\\ y' = 0\n     /\\ UNCHANGED x\n====",
        "Loc.tla",
    )
    (definition,) = m.units
    assert isinstance(definition, ast.OpDef)
    assert definition.loc == Loc("Loc.tla", 2, 1)
    body = definition.body
    assert isinstance(body, Or)
    assert body.loc == Loc("Loc.tla", 3, 3)
    first, second = body.items
    assert first.loc == Loc("Loc.tla", 3, 6)
    assert isinstance(second, And)
    assert second.items[1].loc == Loc("Loc.tla", 5, 9)


def test_parse_expression_locations_refer_to_the_expression_text() -> None:
    got = parse_expression("/\\ a\n/\\ bb", "cfg")
    assert isinstance(got, And)
    assert [i.loc for i in got.items] == [Loc("cfg", 1, 4), Loc("cfg", 2, 4)]


def test_columns_count_characters_after_unicode() -> None:
    got = parse_expression("x \u2208 S")
    assert isinstance(got, OpApp)
    assert got.args[1].loc.col == 5


# ---------------------------------------------------------------------------- errors


def test_syntax_error_names_file_line_column_and_excerpt() -> None:
    with pytest.raises(ParseError) as info:
        parse_module_text("---- MODULE Bad ----\nA == 1\nB == [x \\in S |-> ]\n====\n", "Bad.tla")
    assert info.value.loc == Loc("Bad.tla", 3, 18)
    assert "B == [x \\in S |-> ]" in info.value.message
    assert str(info.value).startswith("Bad.tla:3:18: ")


def test_syntax_error_inside_a_definition() -> None:
    with pytest.raises(ParseError) as info:
        parse_module_text("---- MODULE Bad ----\nA == 1\nB == Op(LAMBDA)\n====\n", "Bad.tla")
    assert info.value.loc is not None and info.value.loc.line == 3


def test_missing_footer_is_a_syntax_error() -> None:
    with pytest.raises(ParseError, match="footer") as info:
        parse_module_text("---- MODULE Bad ----\nA == 1\n", "Bad.tla")
    assert info.value.loc == Loc("Bad.tla", 3, 1)


def test_text_without_a_module_is_an_error() -> None:
    with pytest.raises(ParseError):
        parse_module_text("A == 1\n", "x.tla")


def test_unknown_string_escape_is_an_error() -> None:
    with pytest.raises(ParseError, match="escape") as info:
        parse_expression('"a\\qb"', "e")
    assert info.value.loc == Loc("e", 1, 1)


@pytest.mark.parametrize(
    ("body", "col", "what"),
    [
        ("A == 1.5", 6, "real"),
        ("A == Real", 6, "real"),
        ("A == B!(1)", 6, "subexpression"),
        ("A == B!>>!1", 6, "subexpression"),
        ("A == B!<<", 6, "subexpression"),
    ],
)
def test_unsupported_constructs_are_located(body: str, col: int, what: str) -> None:
    with pytest.raises(UnsupportedError, match=what) as info:
        parse_module_text(f"---- MODULE U ----\nX == 0\n{body}\n====\n", "U.tla")
    assert info.value.loc == Loc("U.tla", 3, col)


@pytest.mark.parametrize(
    "body",
    [
        "VARIABLE x\nx == 1",
        "CONSTANT N\nVARIABLE N",
        "F == 1\nF(a) == a",
        "f[i \\in S] == i\nf == 2",
        "I == INSTANCE M\nI == 3",
        "THEOREM T == TRUE\nT == 1",
        "ASSUME A == TRUE\nA == 1",
        "THEOREM T == TRUE\nASSUME T == TRUE",
    ],
)
def test_a_name_declared_or_defined_twice_is_an_error(body: str) -> None:
    with pytest.raises(ParseError, match=r"already declared or defined at D\.tla:2:") as info:
        parse_module_text(f"---- MODULE D ----\n{body}\n====\n", "D.tla")
    assert info.value.loc is not None and info.value.loc.line == 3


def test_recursive_forward_declaration_is_not_a_duplicate() -> None:
    m = module("RECURSIVE F(_)\nF(n) == IF n = 0 THEN 0 ELSE F(n - 1)")
    assert [type(u).__name__ for u in m.units] == ["Recursive", "OpDef"]


def test_nested_module_is_unsupported() -> None:
    with pytest.raises(UnsupportedError, match="nested module") as info:
        parse_module_text(
            "---- MODULE Outer ----\n---- MODULE Inner ----\nZ == 1\n====\nA == 2\n====\n", "O.tla"
        )
    assert info.value.loc == Loc("O.tla", 2, 1)


def test_parse_expression_rejects_empty_and_several_definitions() -> None:
    with pytest.raises(ParseError):
        parse_expression("   ")
    with pytest.raises(ParseError):
        parse_expression("1\nB == 2")


# ---------------------------------------------------------------------------- fixtures, speed


def test_two_phase_commit_fixture_parses() -> None:
    m = parse_module_text((FIXTURES / "TwoPhase.tla").read_text(), "TwoPhase.tla")
    assert m.name == "TwoPhase"
    assert m.extends == ("TLC", "FiniteSets")
    defs = {u.name: u for u in m.units if isinstance(u, ast.OpDef)}
    for name in ("TPInit", "TPNext", "TPSpec", "RMPrepare", "TMCommit", "TCConsistent"):
        assert name in defs
    variables = [u.name for u in m.units if isinstance(u, ast.VariableDecl)]
    assert variables == ["rmState", "tmState", "tmPrepared", "msgs"]
    next_body = defs["TPNext"].body
    assert isinstance(next_body, Or) and len(next_body.items) == 3
    inner = next_body.items[2]
    assert isinstance(inner, Quant) and inner.bounds[0].names == ("rm",)
    assert isinstance(inner.body, Or) and len(inner.body.items) == 5


def test_die_hard_fixture_parses() -> None:
    m = parse_module_text((FIXTURES / "DieHard.tla").read_text(), "DieHard.tla")
    assert m.name == "DieHard"
    defs = {u.name: u for u in m.units if isinstance(u, ast.OpDef)}
    assert strip(defs["Min"].body) == If(L, op("<", n("m"), n("n")), n("m"), n("n"))
    assert strip(defs["NotSolved"].body) == op("/=", n("big"), num(4))
    next_body = defs["Next"].body
    assert isinstance(next_body, Or)
    assert [i.name for i in next_body.items] == [  # type: ignore[attr-defined]
        "FillSmallJug",
        "FillBigJug",
        "EmptySmallJug",
        "EmptyBigJug",
        "SmallToBig",
        "BigToSmall",
    ]
    small = {u.name: u.annotation for u in m.units if isinstance(u, ast.VariableDecl)}
    assert small == {"small": "\\* @type: Int;", "big": "\\* @type: Int;"}


def test_channel_fixture_with_instance_parses() -> None:
    m = parse_module_text((FIXTURES / "Channel.tla").read_text(), "Channel.tla")
    constants = [(u.name, u.arity) for u in m.units if isinstance(u, ast.ConstantDecl)]
    assert constants == [("Data", 0), ("Reduce", 2)]
    instances = [u for u in m.units if isinstance(u, ast.Instance)]
    assert [(i.name, i.module) for i in instances] == [("Seqs", "Sequences")]


def test_long_operator_chains_do_not_exhaust_the_stack() -> None:
    text = " + \n  ".join(str(i) for i in range(2500))
    got = parse_expression(text)
    depth = 0
    while isinstance(got, OpApp):
        assert got.name == "+"
        depth += 1
        got = got.args[0]
    assert depth == 2499 and got == Num(Loc("<expr>", 1, 1), 0)


def test_thousand_line_spec_parses_well_under_a_second() -> None:
    lines = ["---- MODULE Big ----", "EXTENDS Naturals", "VARIABLES x, y"]
    for i in range(330):
        lines.append(f"A{i}(p) == /\\ x' = [x EXCEPT ![p] = @ + {i}]")
        lines.append(f"         /\\ y' \\in {{q \\in 1..{i} : q % 2 = 0}}")
        lines.append(f"         /\\ \\E r \\in DOMAIN x : IF r > {i} THEN TRUE ELSE x[r] = y")
    lines.append("====")
    text = "\n".join(lines)
    assert len(lines) > 990
    timings = []
    for _ in range(3):  # best of three: the machine may be busy with other work
        start = time.perf_counter()
        m = parse_module_text(text, "Big.tla")
        timings.append(time.perf_counter() - start)
    assert len(m.units) == 332
    assert min(timings) < 0.8, f"parsing took {min(timings):.2f}s"
