"""Community and proof modules: each operator against a value worked out by hand."""

from __future__ import annotations

from pathlib import Path

import pytest

from conformance.tla.loader import ModuleLoader
from conformance.tla.model import Model
from conformance.tla.parser import parse_module_text
from conformance.tla.syntax import TlaError
from conformance.tla.values import ModelValue

ALL = ("Naturals, Sequences, FiniteSets, Functions, FiniteSetsExt, SequencesExt, Folds, TLCExt, "
       "Bitwise, Randomization, UndirectedGraphs, Combinatorics, DyadicRationals, Bags, BagsExt")


@pytest.fixture(scope="module")
def model() -> Model:
    return Model(parse_module_text(f"---- MODULE T ----\nEXTENDS {ALL}\n"
                                   "G == [node |-> {1, 2, 3, 4}, edge |-> {{1, 2}, {2, 3}}]\n"
                                   "====\n", "T.tla"), ModuleLoader([]))


CASES = [
    # Functions
    ("Restrict([x \\in 1..4 |-> x * x], {2, 3})", "[x \\in {2, 3} |-> x * x]"),
    ("Range([x \\in 1..4 |-> x % 2])", "{0, 1}"),
    ("IsInjective(<<1, 2, 1>>)", "FALSE"),
    ("IsInjective(<<3, 1, 2>>)", "TRUE"),
    ("Cardinality(Injection(1..2, 1..3))", "6"),  # 3 * 2
    ("Cardinality(Surjection(1..3, 1..2))", "6"),  # 2^3 - 2
    ("Cardinality(Bijection(1..3, 1..3))", "6"),  # 3!
    ("ExistsBijection(1..2, 1..3)", "FALSE"),
    ("Inverse(<<\"a\", \"b\">>, 1..2, {\"a\", \"b\"})", "[y \\in {\"a\", \"b\"} |-> IF y = \"a\" THEN 1 ELSE 2]"),
    ("AntiFunction(<<\"a\", \"b\">>)", "[a |-> 1, b |-> 2]"),
    ("FoldFunction(LAMBDA a, b : a + b, 0, <<4, 5, 6>>)", "15"),
    ("FoldFunctionOnSet(LAMBDA a, b : a + b, 0, <<4, 5, 6>>, {1, 3})", "10"),
    ("IsRestriction(<<1>>, <<1, 2>>)", "TRUE"),
    # Folds
    ("MapThenFoldSet(LAMBDA a, b : a + b, 0, LAMBDA x : x * x, LAMBDA s : CHOOSE x \\in s : TRUE, {1, 2, 3})",
     "14"),
    # FiniteSetsExt
    ("FoldSet(LAMBDA a, b : a \\cup b, {}, {{1}, {2, 3}})", "{1, 2, 3}"),
    ("ReduceSet(LAMBDA a, b : a + b, {1, 2, 3}, 10)", "16"),
    ("SumSet({1, 2, 3, 4})", "10"),
    ("ProductSet({2, 3, 4})", "24"),
    ("SumSet({})", "0"),
    ("Quantify(1..10, LAMBDA x : x % 3 = 0)", "3"),
    ("kSubset(2, {1, 2, 3})", "{{1, 2}, {1, 3}, {2, 3}}"),
    ("Max({3, 9, 2})", "9"),
    ("Min({3, 9, 2})", "2"),
    ("SymDiff({1, 2}, {2, 3})", "{1, 3}"),
    ("ChooseUnique({1, 2, 3}, LAMBDA x : x > 2)", "3"),
    # SequencesExt
    ("ToSet(<<1, 2, 1>>)", "{1, 2}"),
    ("SetToSeq({7})", "<<7>>"),
    ("Len(SetToSeq({1, 2, 3}))", "3"),
    ("SetToSortSeq({3, 1, 2}, <)", "<<1, 2, 3>>"),
    ("Reverse(<<1, 2, 3>>)", "<<3, 2, 1>>"),
    ("Remove(<<1, 2, 1, 3>>, 1)", "<<2, 3>>"),
    ("ReplaceAll(<<1, 2, 1>>, 1, 0)", "<<0, 2, 0>>"),
    ("InsertAt(<<1, 3>>, 2, 2)", "<<1, 2, 3>>"),
    ("ReplaceAt(<<1, 3>>, 2, 2)", "<<1, 2>>"),
    ("RemoveAt(<<1, 2, 3>>, 2)", "<<1, 3>>"),
    ("Cons(0, <<1>>)", "<<0, 1>>"),
    ("Front(<<1, 2, 3>>)", "<<1, 2>>"),
    ("Last(<<1, 2, 3>>)", "3"),
    ("IsPrefix(<<1, 2>>, <<1, 2, 3>>)", "TRUE"),
    ("IsPrefix(<<2>>, <<1, 2>>)", "FALSE"),
    ("IsStrictPrefix(<<1, 2>>, <<1, 2>>)", "FALSE"),
    ("IsSuffix(<<2, 3>>, <<1, 2, 3>>)", "TRUE"),
    ("IsStrictSuffix(<<1, 2, 3>>, <<1, 2, 3>>)", "FALSE"),
    ("Contains(<<1, 2>>, 2)", "TRUE"),
    ("Contains(<<>>, 2)", "FALSE"),
    ("Indices(<<5, 6>>)", "{1, 2}"),
    ("FoldLeft(LAMBDA a, b : a - b, 10, <<1, 2>>)", "7"),  # (10 - 1) - 2
    ("FoldRight(LAMBDA a, b : a - b, <<1, 2>>, 10)", "9"),  # 1 - (2 - 10)
    ("FlattenSeq(<<<<1>>, <<>>, <<2, 3>>>>)", "<<1, 2, 3>>"),
    ("Zip(<<1, 2>>, <<\"a\", \"b\">>)", "<<<<1, \"a\">>, <<2, \"b\">>>>"),
    ("SelectInSeq(<<1, 4, 6>>, LAMBDA x : x > 2)", "2"),
    ("SelectLastInSeq(<<1, 4, 6>>, LAMBDA x : x > 2)", "3"),
    ("SelectInSeq(<<1>>, LAMBDA x : x > 2)", "0"),
    ("Cardinality(TupleOf({0, 1}, 3))", "8"),
    ("Cardinality(SeqOf({0, 1}, 2))", "7"),  # 1 + 2 + 4
    ("BoundedSeq({0}, 2)", "{<<>>, <<0>>, <<0, 0>>}"),
    # TLCExt
    ("AssertEq(1 + 1, 2)", "TRUE"),
    ("TLCNoOp(5)", "5"),
    ("TLCCache(5, {})", "5"),
    # Bitwise
    ("12 & 10", "8"),
    ("12 | 10", "14"),
    ("12 ^^ 10", "6"),
    ("shiftR(13, 2)", "3"),
    # Randomization (only what does not depend on the draw)
    ("Cardinality(RandomSubset(2, 1..5))", "2"),
    ("RandomSubset(2, 1..5) \\subseteq 1..5", "TRUE"),
    ("RandomSetOfSubsets(3, 2, 1..4) \\subseteq SUBSET (1..4)", "TRUE"),
    ("Cardinality(RandomSetOfSubsets(3, 2, 1..4)) \\in 1..3", "TRUE"),
    # BagsExt: the bag {| 1, 1, 2, 3, 3, 3 |}
    ("BagAdd((1 :> 2) @@ (2 :> 1), 2)", "(1 :> 2) @@ (2 :> 2)"),
    ("BagAdd((1 :> 2), 5)", "(1 :> 2) @@ (5 :> 1)"),
    ("BagRemove((1 :> 2) @@ (2 :> 1), 1)", "(1 :> 1) @@ (2 :> 1)"),
    ("BagRemove((1 :> 2) @@ (2 :> 1), 2)", "(1 :> 2)"),
    ("BagRemove((1 :> 2), 7)", "(1 :> 2)"),
    ("BagRemoveAll((1 :> 2) @@ (2 :> 1), 1)", "(2 :> 1)"),
    ("SumBag((1 :> 2) @@ (2 :> 1) @@ (3 :> 3))", "13"),  # 1 + 1 + 2 + 3 + 3 + 3
    ("ProductBag((1 :> 2) @@ (2 :> 1) @@ (3 :> 3))", "54"),  # 2 * 27
    # in TLC's order of the elements, op(accumulated, element): 1, 1, 2, 3, 3, 3
    ("FoldBag(LAMBDA a, x : a \\o <<x>>, <<>>, (3 :> 3) @@ (1 :> 2) @@ (2 :> 1))",
     "<<1, 1, 2, 3, 3, 3>>"),
    ("FoldBag(LAMBDA a, x : 10 * a + x, 0, (1 :> 2) @@ (2 :> 1) @@ (3 :> 3))", "112333"),
    ("FoldBag(LAMBDA a, x : a + x, 7, <<>>)", "7"),  # the empty bag
    # counting: each element's copies (2, 1, 3 ones) folded with +: 6
    ("MapThenFoldBag(LAMBDA x, y : x + y, 0, LAMBDA x : 1, LAMBDA S : CHOOSE x \\in S : TRUE, "
     "(1 :> 2) @@ (2 :> 1) @@ (3 :> 3))", "6"),
    # Copies(1) = <<1, 1>>, Copies(2) = <<2>>, Copies(3) = <<3, 3, 3>>, folded from the
    # first element outwards: Copies(1) \o (Copies(2) \o (Copies(3) \o <<>>))
    ("MapThenFoldBag(LAMBDA x, y : x \\o y, <<>>, LAMBDA x : <<x>>, "
     "LAMBDA S : CHOOSE x \\in S : TRUE, (1 :> 2) @@ (2 :> 1) @@ (3 :> 3))",
     "<<1, 1, 2, 3, 3, 3>>"),
    # Combinatorics
    ("factorial[0]", "1"),
    ("factorial[5]", "120"),
    ("choose(5, 2)", "10"),
    ("choose(4, 0) + choose(4, 4)", "2"),
    ("choose(30, 15)", "155117520"),
    # DyadicRationals: 1/2 + 1/4 = 3/4; 1/4 + 1/4 = 1/2 reduced; Half(3/4) = 3/8
    ("Half(One)", "[num |-> 1, den |-> 2]"),
    ("Add(Half(One), Half(Half(One)))", "[num |-> 3, den |-> 4]"),
    ("Add(Half(Half(One)), Half(Half(One)))", "[num |-> 1, den |-> 2]"),
    ("Add(Half(One), Half(One))", "One"),
    ("Half([num |-> 3, den |-> 4])", "[num |-> 3, den |-> 8]"),
    ("Add(Zero, [num |-> 2, den |-> 4])", "[num |-> 2, den |-> 4]"),  # Zero + q is q as given
    ("Add([num |-> 2, den |-> 4], Zero)", "[num |-> 1, den |-> 2]"),
    ("IsDyadicRational([num |-> 3, den |-> 8])", "TRUE"),
    ("IsDyadicRational([num |-> 1, den |-> 6])", "FALSE"),
    ("<<PrettyPrint(Zero), PrettyPrint(One), PrettyPrint(Half(Half(One)))>>",
     '<<"0", "1", "1/4">>'),
    # UndirectedGraphs
    ("IsUndirectedGraph(G)", "TRUE"),
    ("IsUndirectedGraph([node |-> {1}, edge |-> {{1, 2}}])", "FALSE"),
    ("AreConnectedIn(1, 3, G)", "TRUE"),
    ("AreConnectedIn(1, 4, G)", "FALSE"),
    ("IsStronglyConnected(G)", "FALSE"),
    ("ConnectedComponents(G)", "{{1, 2, 3}, {4}}"),
    ("Cardinality(UndirectedSubgraph([node |-> {1, 2}, edge |-> {{1, 2}}]))", "5"),  # 4 + 1
    # a loop {1} is an edge: 4 node sets with no edge, {1} and {1, 2} with the loop
    ("Cardinality(UndirectedSubgraph([node |-> {1, 2}, edge |-> {{1}}]))", "6"),
    ("IsUndirectedGraph([node |-> {1}, edge |-> {{1}}])", "TRUE"),
    ("IsLoopFreeUndirectedGraph([node |-> {1}, edge |-> {{1}}])", "FALSE"),
    ("IsLoopFreeUndirectedGraph(G)", "TRUE"),
    ("IsUndirectedGraph([node |-> {1, 2, 3}, edge |-> {{1, 2, 3}}])", "FALSE"),
    # no node, no component: not strongly connected (the community module's equality)
    ("ConnectedComponents([node |-> {}, edge |-> {}])", "{}"),
    ("IsStronglyConnected([node |-> {}, edge |-> {}])", "FALSE"),
    ("IsStronglyConnected([node |-> {1}, edge |-> {}])", "TRUE"),
    ("IsStronglyConnected([node |-> {1, 2, 3}, edge |-> {{3, 1}, {2, 3}}])", "TRUE"),
    ("AreConnectedIn(4, 4, G)", "TRUE"),  # the one-node path
    ("AreConnectedIn(5, 5, G)", "FALSE"),  # 5 is not a node
    ("AreConnectedIn(3, 1, G)", "TRUE"),
    # an edge to a node outside G.node joins nothing
    ("ConnectedComponents([node |-> {1, 2}, edge |-> {{1, 3}, {3, 2}}])", "{{1}, {2}}"),
    # 1-2-3: the 3 one-node paths, 2 + 2 of two nodes, 2 of three
    ("SimplePath(G)", "{<<1>>, <<2>>, <<3>>, <<4>>, <<1, 2>>, <<2, 1>>, <<2, 3>>, <<3, 2>>, "
                      "<<1, 2, 3>>, <<3, 2, 1>>}"),
    ("<<1, 2, 1, 2, 3>> \\in Path(G)", "TRUE"),
    ("<<1, 3>> \\in Path(G)", "FALSE"),
    ("<<>> \\in Path(G)", "FALSE"),
    ("<<4, 4>> \\in Path([node |-> {4}, edge |-> {{4}}])", "TRUE"),
    # edges {1}, {2}, {1, 2}: 8 edge sets
    ("Cardinality(UndirectedGraphs({1, 2}))", "8"),
]


@pytest.mark.parametrize(("expr", "expected"), CASES)
def test_operator(model: Model, expr: str, expected: str) -> None:
    assert model.eval_constant(f"({expr}) = ({expected})") is True, (expr, model.eval_constant(expr))


def test_model_value_from_a_string(model: Model) -> None:
    assert model.eval_constant('TLCModelValue("p")') == ModelValue("p")
    assert model.eval_constant('TLCModelValue("p") # "p"') is True


def test_bitwise_refuses_negative_numbers(model: Model) -> None:
    with pytest.raises(TlaError, match="natural number"):
        model.eval_constant("(0 - 1) & 3")


def test_a_specs_own_copy_of_a_module_wins(tmp_path: Path) -> None:
    (tmp_path / "Functions.tla").write_text("---- MODULE Functions ----\nRange(f) == 42\n====\n")
    (tmp_path / "U.tla").write_text("---- MODULE U ----\nEXTENDS Functions\n====\n")
    m = Model.load(tmp_path / "U.tla")
    assert m.eval_constant("Range(<<1>>)") == 42


def test_proof_modules_are_accepted_with_theorems_and_proofs_skipped(tmp_path: Path) -> None:
    (tmp_path / "P.tla").write_text(
        "---- MODULE P ----\n"
        "EXTENDS Naturals, TLAPS, NaturalsInduction, WellFoundedInduction, FiniteSetTheorems,\n"
        "        SequenceTheorems, FunctionTheorems, SequencesExtTheorems, FiniteSetsExtTheorems\n"
        "X == SumSet({1, 2}) + Len(Reverse(<<1>>))\n"
        "THEOREM Thm == X = 4\n"
        "  <1>1. X = 4 BY SMT DEF X\n"
        "  <1>2. QED BY <1>1, Zenon\n"
        "LEMMA FALSE OBVIOUS\n"  # never checked: theorems are skipped, as by TLC
        "====\n")
    m = Model.load(tmp_path / "P.tla")
    assert m.eval_constant("X") == 4


def test_modules_without_an_implementation_are_refused_at_the_extends(tmp_path: Path) -> None:
    (tmp_path / "J.tla").write_text("---- MODULE J ----\nEXTENDS Naturals, SVG\n====\n")
    with pytest.raises(TlaError, match="cannot find module SVG") as info:
        Model.load(tmp_path / "J.tla")
    assert info.value.loc is not None and info.value.loc.line == 2


@pytest.mark.parametrize(("expr", "expected"), [
    ("Ap(=, 1, 1)", "TRUE"), ("Ap(#, 1, 1)", "FALSE"), ("Ap(/=, 1, 2)", "TRUE"),
    ("Ap(\\in, 1, {1})", "TRUE"), ("Ap(\\notin, 1, {1})", "FALSE"),
    ("Ap(\\subseteq, {1}, {1, 2})", "TRUE"), ("Ap(\\cup, {1}, {2})", "{1, 2}"),
    ("Ap(\\union, {1}, {2})", "{1, 2}"), ("Ap(\\cap, {1, 2}, {2})", "{2}"),
    ("Ap(\\, {1, 2}, {2})", "{1}"), ("Ap(=>, FALSE, FALSE)", "TRUE"),
    ("Ap(<=>, FALSE, TRUE)", "FALSE"), ("Ap(/\\, TRUE, FALSE)", "FALSE"),
    ("Ap(\\/, TRUE, FALSE)", "TRUE"), ("Ap(\\subset, {1}, {1})", "FALSE"),
    ("Ap(\\supseteq, {1, 2}, {2})", "TRUE"), ("Ap(\\supset, {1, 2}, {2})", "TRUE"),
])
def test_a_builtin_infix_operator_passed_by_name(expr: str, expected: str) -> None:
    m = Model(parse_module_text("---- MODULE A ----\nAp(op(_, _), a, b) == op(a, b)\n====\n", "A.tla"),
              ModuleLoader([]))
    assert m.eval_constant(f"({expr}) = ({expected})") is True


def test_theorem_names_are_exported_to_extending_and_instancing_modules(tmp_path: Path) -> None:
    (tmp_path / "Th.tla").write_text(
        "---- MODULE Th ----\nEXTENDS Naturals\nCONSTANT K\n"
        "THEOREM Pos == K > 0\n  BY DEF K\nASSUME Small == K < 10\n====\n")
    (tmp_path / "U.tla").write_text(
        "---- MODULE U ----\nEXTENDS Th\nI == INSTANCE Th WITH K <- 0\n====\n")
    m = Model.load(tmp_path / "U.tla", constants={"K": 3})
    # K = 3: Pos (3 > 0) and Small (3 < 10) hold; in I, K is 0 and 0 > 0 is FALSE
    assert m.eval_constant("Pos") is True
    assert m.eval_constant("Small") is True
    assert m.eval_constant("I!Pos") is False
    assert m.eval_constant("I!Small!:") is True


@pytest.mark.parametrize("expr", ["Trace", "CounterExample", "TLCDefer(1)", "PickSuccessor(TRUE)",
                                  "TLCSet(1, 2)"])
def test_tlc_operators_not_supported_are_refused_where_evaluated(model: Model, expr: str) -> None:
    # named where TLC never evaluates them (a disjunct after one that holds): no error
    # (the public EWD840_json exports its Trace in such a disjunct); evaluated: refused
    assert model.eval_constant(f"TRUE \\/ {expr} = 0") is True
    with pytest.raises(TlaError, match="is not supported"):
        model.eval_constant(f"FALSE \\/ {expr} = 0")
