"""TLC-style enumeration of Init and Next: assignments, branching, labels, errors."""

from __future__ import annotations

from collections import Counter
from typing import Any

import pytest

from conformance.tla.loader import ModuleLoader
from conformance.tla.model import Model
from conformance.tla.parser import parse_module_text
from conformance.tla.syntax import EvalError, UnsupportedError
from conformance.tla.values import make_fn


def model(body: str, constants: dict[str, Any] | None = None) -> Model:
    text = f"---- MODULE A ----\nEXTENDS Naturals, Sequences, FiniteSets\n{body}\n====\n"
    return Model(parse_module_text(text, "A.tla"), ModuleLoader([]), constants or {})


COUNTER = """
CONSTANTS Procs, Max
VARIABLES count, last, log
vars == <<count, last, log>>
Init == /\\ count = [p \\in Procs |-> 0]
        /\\ last \\in Procs
        /\\ log = <<>>
Step(p) == /\\ count[p] < Max
           /\\ count' = [count EXCEPT ![p] = @ + 1]
           /\\ last' = p
           /\\ log' = Append(log, count'[p])
Reset(p, q) == /\\ p /= q
               /\\ count[p] > 0
               /\\ count' = [count EXCEPT ![p] = 0, ![q] = 0]
               /\\ UNCHANGED <<last, log>>
Idle == UNCHANGED vars
Next == \\/ \\E p \\in Procs : Step(p)
        \\/ \\E p, q \\in Procs : Reset(p, q)
        \\/ Idle
"""


def counter() -> Model:
    return model(COUNTER, {"Procs": frozenset({1, 2, 3}), "Max": 2})


def test_init_states_enumerate_membership() -> None:
    m = counter()
    inits = list(m.init_states())
    zero = (0, 0, 0)
    assert sorted(inits) == [(zero, p, ()) for p in (1, 2, 3)]


def test_successor_counts_and_labels() -> None:
    m = counter()
    s = ((1, 0, 2), 1, (0,))
    succ = list(m.successors(s))
    labels = Counter(label.name for label, _ in succ)
    # Step: procs 1 and 2 below Max; Reset: p in {1, 3} with q /= p (2 each); Idle: 1
    assert labels == {"Step": 2, "Reset": 4, "Idle": 1}
    steps = {dict(lab.params)["p"]: st for lab, st in succ if lab.name == "Step"}
    assert steps[1] == ((2, 0, 2), 1, (0, 2))
    assert steps[2] == ((1, 1, 2), 2, (0, 1))
    resets = {tuple(v for _, v in lab.params): st for lab, st in succ if lab.name == "Reset"}
    assert set(resets) == {(1, 2), (1, 3), (3, 1), (3, 2)}
    assert resets[(1, 3)] == ((0, 0, 0), 1, (0,))
    idle = [st for lab, st in succ if lab.name == "Idle"]
    assert idle == [s]
    label = next(lab for lab, _ in succ if lab.name == "Reset")
    assert [n for n, _ in label.params] == ["p", "q"]
    assert label.loc.file == "A.tla" and label.loc.line == 20


def test_action_successors_and_explain_disabled() -> None:
    m = counter()
    s = ((2, 0, 0), 1, ())
    assert list(m.action_successors("Step", [2], s)) == [((2, 1, 0), 2, (1,))]
    assert list(m.action_successors("Step", [1], s)) == []
    reasons = m.explain_disabled("Step", [1], s)
    assert [(loc.line, text) for loc, text in reasons] == [(10, "count[p] < Max")]
    reasons = m.explain_disabled("Reset", [2, 2], s)
    assert [text for _, text in reasons] == ["p /= q"]
    assert m.explain_disabled("Step", [2], s) == []
    with pytest.raises(EvalError, match="argument"):
        list(m.action_successors("Step", [], s))


def test_innermost_operator_names_the_action() -> None:
    m = model("""
VARIABLE x
Init == x = 0
Inner(k) == x' = x + k
Outer(k) == Inner(k + 1)
Guarded == x > 100 /\\ Inner(1)
Next == \\/ \\E k \\in {1, 2} : Outer(k)
        \\/ LET d == 7 IN Inner(d)
        \\/ Guarded
        \\/ x' = 42
""")
    succ = list(m.successors((0,)))
    got = sorted((lab.name, lab.params, st) for lab, st in succ)
    assert got == [
        ("Inner", (("k", 2),), (2,)),
        ("Inner", (("k", 3),), (3,)),
        ("Inner", (("k", 7),), (7,)),
        ("Next", (), (42,)),
    ]


def test_assignment_then_comparison_and_primed_reads() -> None:
    m = model("""
VARIABLES f, g
Init == f = <<0, 0>> /\\ g = 0
A == /\\ f' = <<1, 2>>
     /\\ f' = <<1, 2>>
     /\\ g' = f'[2] + 1
B == /\\ f' = <<1, 2>>
     /\\ f' = <<3, 4>>
     /\\ g' = 0
C == /\\ g' \\in {1, 2, 3}
     /\\ g' > 1
     /\\ f' = <<g', g'>>
Next == A \\/ B \\/ C
""")
    succ = sorted((lab.name, st) for lab, st in m.successors(((0, 0), 0)))
    assert succ == [("A", ((1, 2), 3)), ("C", ((2, 2), 2)), ("C", ((3, 3), 3))]


def test_primed_variable_used_before_assignment_is_an_error() -> None:
    m = model("""
VARIABLES x, y
Init == x = 0 /\\ y = 0
Next == /\\ y' = x' + 1
        /\\ x' = 1
""")
    with pytest.raises(EvalError, match="x' is used before it is assigned") as err:
        list(m.successors((0, 0)))
    assert err.value.loc is not None and err.value.loc.line == 6


def test_unassigned_variable_is_an_error_naming_it_and_the_action() -> None:
    m = model("""
VARIABLES x, y
Init == x = 0 /\\ y = 0
Half == x' = 1
Next == Half
""")
    with pytest.raises(EvalError, match="Half does not assign the variable\\(s\\) y"):
        list(m.successors((0, 0)))
    with pytest.raises(EvalError, match="does not assign"):
        list(m.action_successors("Half", [], (0, 0)))


def test_if_case_let_and_unchanged_inside_actions() -> None:
    m = model("""
VARIABLES x, y
vars == <<x, y>>
Init == x = 0 /\\ y = 0
Next == /\\ IF x < 2 THEN x' = x + 1 ELSE x' = 0
        /\\ CASE x = 0 -> y' = 10
             [] x = 1 -> y' \\in {20, 21}
             [] OTHER -> UNCHANGED y
        /\\ LET nx == x' IN nx >= 0
Stay == UNCHANGED vars
""")
    assert sorted(st for _, st in m.successors((0, 5))) == [(1, 10)]
    assert sorted(st for _, st in m.successors((1, 5))) == [(2, 20), (2, 21)]
    assert sorted(st for _, st in m.successors((2, 5))) == [(0, 5)]
    assert [st for _, st in m.successors((3, 4), "Stay")] == [(3, 4)]


def test_let_of_a_primed_expression_is_not_memoised_across_branches() -> None:
    m = model("""
VARIABLE x
Init == x = 0
Next == LET nx == x' IN \\/ (x' = 1 /\\ nx = 1)
                        \\/ (x' = 2 /\\ nx = 2)
""")
    assert sorted(st for _, st in m.successors((0,))) == [(1,), (2,)]


def test_forall_and_exists_with_tuple_patterns_in_actions() -> None:
    m = model("""
VARIABLES a, b
Init == a = 0 /\\ b = 0
Next == \\E <<i, j>> \\in {<<1, 2>>, <<3, 4>>} :
            /\\ \\A k \\in {i} : a' = k
            /\\ b' = j
""")
    assert sorted(st for _, st in m.successors((0, 0))) == [(1, 2), (3, 4)]


def test_disjunctive_guards_branch_as_in_tlc() -> None:
    # TLC (Tool.getNextStates) walks a disjunction one disjunct at a time with the rest of
    # the action: at x = 0 both guards hold, so [Inc]_x runs twice and each successor is
    # generated twice (the same states: the engine runs the rest once and counts each
    # twice, ``multiplicity``); at x = 3 only the second one holds
    m = model("""
VARIABLE x
Init == x = 0
Inc == x' = x + 1
Next == /\\ (x = 0 \\/ x < 5)
        /\\ [Inc]_x
""")
    times = m.multiplicity
    assert sorted((st, times[0]) for _, st in m.successors((0,))) == [((0,), 2), ((1,), 2)]
    assert sorted((st, times[0]) for _, st in m.successors((3,))) == [((3,), 1), ((4,), 1)]


def test_init_with_guards_dependent_values_and_errors() -> None:
    m = model("""
CONSTANT N
VARIABLES x, y, z
Init == /\\ x \\in 1..N
        /\\ x > 1
        /\\ y = x * 10
        /\\ z \\in {s \\in SUBSET (1..x) : Cardinality(s) = 1}
Bad == /\\ y = x
       /\\ x = 1
       /\\ z = 0
""", {"N": 3})
    inits = list(m.init_states())
    assert len(inits) == 5
    assert set(inits) == {
        (2, 20, frozenset({1})), (2, 20, frozenset({2})),
        (3, 30, frozenset({1})), (3, 30, frozenset({2})), (3, 30, frozenset({3})),
    }
    with pytest.raises(EvalError, match="x is used before it is assigned"):
        list(m.init_states("Bad"))


def test_init_must_assign_every_variable() -> None:
    m = model("VARIABLES x, y\nInit == x = 1")
    with pytest.raises(EvalError, match="y"):
        list(m.init_states())


def test_records_of_messages_in_a_set() -> None:
    m = model("""
VARIABLES msgs, seen
Init == msgs = {[type |-> "ping", from |-> 1], [type |-> "ping", from |-> 2]} /\\ seen = {}
Receive(m) == /\\ m.type = "ping"
              /\\ msgs' = msgs \\ {m}
              /\\ seen' = seen \\cup {m.from}
Next == \\E m \\in msgs : Receive(m)
""")
    (init,) = list(m.init_states())
    succ = list(m.successors(init))
    assert len(succ) == 2
    assert {st[1] for _, st in succ} == {frozenset({1}), frozenset({2})}
    assert all(lab.name == "Receive" and lab.params[0][0] == "m" for lab, _ in succ)


def test_functions_of_state_with_except_in_next() -> None:
    m = model("""
CONSTANT R
VARIABLE role
Init == role = [r \\in R |-> "F"]
Elect(r) == /\\ \\A o \\in R : role[o] /= "L"
            /\\ role' = [role EXCEPT ![r] = "L"]
Next == \\E r \\in R : Elect(r)
""", {"R": frozenset({"a", "b"})})
    (init,) = list(m.init_states())
    succ = sorted((lab.params, st) for lab, st in m.successors(init))
    assert succ == [
        ((("r", "a"),), (make_fn({"a": "L", "b": "F"}),)),
        ((("r", "b"),), (make_fn({"a": "F", "b": "L"}),)),
    ]
    assert list(m.successors(succ[0][1])) == []


@pytest.mark.parametrize(
    ("text", "rendered"),
    [
        ("a + b * c", "a + (b * c)"),
        ("(a + b) * c", "(a + b) * c"),
        ("\\E i \\in S : f[i] = 1", "\\E i \\in S : f[i] = 1"),
        ("[f EXCEPT ![i].a = @ + 1]", "[f EXCEPT ![i].a = @ + 1]"),
        ("x' = [r \\in R |-> 0]", "x' = [r \\in R |-> 0]"),
        ("UNCHANGED <<x, y>>", "UNCHANGED <<x, y>>"),
        ("~(a /\\ b)", "~(a /\\ b)"),
        ('m.type = "Vote"', 'm.type = "Vote"'),
        ("CASE a -> 1 [] OTHER -> 2", "CASE a -> 1 [] OTHER -> 2"),
        ("LET a == 1 IN a", "LET a == 1 IN a"),
        ("{x \\in S : x > 1}", "{x \\in S : x > 1}"),
        ("I!Op(1)", "I!Op(1)"),
        ("A \\X B \\X C", "A \\X B \\X C"),
    ],
)
def test_printer_renders_expressions_for_diagnostics(text: str, rendered: str) -> None:
    from conformance.tla.parser import parse_expression
    from conformance.tla.printer import render

    assert render(parse_expression(text)) == rendered
    long = parse_expression("{" + ", ".join(str(i) for i in range(100)) + "}")
    assert len(render(long, 40)) == 40 and render(long, 40).endswith("...")


def test_explain_disabled_walks_branches_and_operator_calls() -> None:
    m = model("""
VARIABLES x, y
Init == x = 0 /\\ y = 0
Guard(k) == x > k
Act == \\/ /\\ Guard(5)
           /\\ x' = 1 /\\ y' = y
        \\/ /\\ y' = 2
           /\\ x' = x
           /\\ y' > 3
""")
    reasons = m.explain_disabled("Act", [], (0, 0))
    # the first FALSE conjunct of each branch, as written in the action
    assert [text for _, text in reasons] == ["Guard(5)", "y' > 3"]
    assert [loc.line for loc, _ in reasons] == [7, 11]
    assert m.explain_disabled("Act", [], (9, 0)) == []


def test_let_defined_actions_and_empty_quantifiers() -> None:
    m = model("""
VARIABLES x, y
Init == LET start == 3 IN x = start /\\ y \\in {start, start + 1}
Next == \\/ LET Upd == x' = x + 1 IN Upd /\\ y' = y
        \\/ \\E v \\in {} : x' = v /\\ y' = v
""")
    assert sorted(m.init_states()) == [(3, 3), (3, 4)]
    assert [st for _, st in m.successors((3, 4))] == [(4, 4)]


def test_successors_agree_with_action_successors() -> None:
    m = counter()
    frontier = list(m.init_states())
    for _ in range(3):  # breadth-first, three levels
        nxt = []
        for s in frontier:
            by_label: dict[tuple, set] = {}
            for label, t in m.successors(s):
                by_label.setdefault((label.name, tuple(v for _, v in label.params)), set()).add(t)
                nxt.append(t)
            for p in (1, 2, 3):
                assert set(m.action_successors("Step", [p], s)) == by_label.get(("Step", (p,)), set())
                for q in (1, 2, 3):
                    assert set(m.action_successors("Reset", [p, q], s)) == by_label.get(
                        ("Reset", (p, q)), set())
            assert set(m.action_successors("Idle", [], s)) == by_label[("Idle", ())] == {s}
        frontier = list(dict.fromkeys(nxt))
    assert len(frontier) > 20


DEAD = """
CONSTANTS Kinds
VARIABLES x
Init == x = 0
Add(i, k) == /\\ "add" \\in Kinds
             /\\ x' = x + i
Named(y) == /\\ "add" \\in Kinds
            /\\ y' = 1
Dead(i) == /\\ "add" \\in Kinds
           /\\ x' = x + (1 \\div i)
Next == \\/ \\E i, k \\in 1..2 : Add(i, k)
        \\/ Named(x)
        \\/ \\E i \\in {0} : Dead(1 \\div i)
        \\/ x' = x + 10
"""


def test_a_call_opening_with_a_constant_false_conjunct_has_no_successor() -> None:
    live = DEAD.replace("        \\/ \\E i \\in {0} : Dead(1 \\div i)\n", "")
    assert "Dead(1" not in live
    m = model(live, {"Kinds": frozenset({"remove"})})
    assert [(label.name, s) for label, s in m.successors((0,))] == [("Next", (10,))]
    enabled = model(live, {"Kinds": frozenset({"add"})})
    assert sorted(s for _, s in enabled.successors((0,))) == [(1,), (1,), (1,), (2,), (2,), (10,)]
    # an argument that fails (1 \div 0 here) is not read by a body that opens with FALSE:
    # no error, as in TLC, which evaluates an argument only where the body uses it
    dead = model(DEAD, {"Kinds": frozenset({"remove"})})
    assert [(label.name, s) for label, s in dead.successors((0,))] == [("Next", (10,))]


def test_the_domain_of_a_never_enabled_call_is_still_evaluated() -> None:
    text = DEAD.replace("\\E i \\in {0} : Dead(1 \\div i)", "\\E i \\in {1 \\div x} : Dead(i)")
    m = model(text, {"Kinds": frozenset({"remove"})})
    with pytest.raises(EvalError):
        list(m.successors((0,)))


# ``x \in S`` once x has a value is a membership test (TLC: OPCODE_in with the variable
# bound tests ``rval.member(lval)``), so S may be infinite; only an unassigned x
# enumerates S
@pytest.mark.parametrize("init, expected", [
    ("b = 1 /\\ b \\in Nat", [(1,)]),
    ("b = 0 - 1 /\\ b \\in Nat", []),               # -1 is not a natural: no state
    ("b \\in {0 - 1, 3} /\\ b \\in Nat", [(3,)]),  # enumerates the finite set, tests Nat
    ("b = <<1, 1>> /\\ b \\in Seq({1})", [((1, 1),)]),
    ("b = <<2>> /\\ b \\in Seq({1})", []),
    ("b \\in 1..2 /\\ T(b)", [(1,), (2,)]),           # through an operator's parameter
    ("b = 1 /\\ b \\in Nat \\ {1}", []),            # an infinite set built from Nat
])
def test_membership_of_an_assigned_variable_in_an_infinite_set(
        init: str, expected: list[tuple]) -> None:
    m = model(f"VARIABLE b\nT(bv) == bv \\in Nat\nInit == {init}\nNext == UNCHANGED b")
    assert sorted(m.init_states()) == expected


@pytest.mark.parametrize("action, expected", [
    ("b' = b + 1 /\\ b' \\in Nat", [(1,)]),
    ("b' = b - 1 /\\ b' \\in Nat", []),  # from 0: -1 is not in Nat
    ("b' \\in {b - 1, b + 2} /\\ b' \\in Nat", [(2,)]),
    ("b' = b /\\ b' \\in Nat /\\ b' \\in Nat \\ {1}", [(0,)]),
])
def test_membership_of_an_assigned_primed_variable_in_an_infinite_set(
        action: str, expected: list[tuple]) -> None:
    m = model(f"VARIABLE b\nInit == b = 0\nNext == {action}")
    assert sorted(s for _, s in m.successors((0,))) == expected


def test_an_unassigned_variable_still_enumerates_its_set() -> None:
    m = model("VARIABLE b\nInit == b \\in Nat\nNext == UNCHANGED b")
    with pytest.raises(UnsupportedError, match="cannot enumerate the set Nat"):
        list(m.init_states())
    m = model("VARIABLE b\nInit == b = 0\nNext == b' \\in Nat")
    with pytest.raises(UnsupportedError, match="cannot enumerate the set Nat"):
        list(m.successors((0,)))
    # the right side of an assigned variable's \in must still be a set, with its place
    m = model("VARIABLE b\nInit == b = 1 /\\ b \\in 3\nNext == UNCHANGED b")
    with pytest.raises(EvalError, match="must be a set") as err:
        list(m.init_states())
    assert err.value.loc is not None and (err.value.loc.line, err.value.loc.col) == (4, 18)
