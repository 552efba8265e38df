"""Temporal formulas of instances (``A!Spec`` as a refinement property, ``I!Spec`` as the
specification) and fairness conditions as properties, on small specs whose answers are
derived by hand (in each comment)."""

from __future__ import annotations

from pathlib import Path

import pytest

from conformance.tla.cfg import parse_config
from conformance.tla.explorer import CheckResult, check
from conformance.tla.model import Model
from tests.engine.test_liveness import TOGGLE as LIVENESS_TOGGLE

# The abstract spec: y flips forever (under WF).
BLINK = """---- MODULE Blink ----
EXTENDS Naturals
VARIABLE y
Init == y = 0
Flip == y' = 1 - y
Spec == Init /\\ [][Flip]_y /\\ WF_y(Flip)
Live == []<>(y = 1)
Safe == [](y \\in {0, 1})
====
"""

# x flips as y does, and n counts the flips modulo 3: the states (x, n) form one cycle of
# six, (0, 0) -> (1, 1) -> (0, 2) -> (1, 0) -> (0, 1) -> (1, 2) -> (0, 0).
IMPL = """---- MODULE Impl ----
EXTENDS Naturals
VARIABLES x, n
Init == x = 0 /\\ n = 0
Flip == x' = 1 - x /\\ n' = (n + 1) % 3
Spec == Init /\\ [][Flip]_<<x, n>> /\\ WF_<<x, n>>(Flip)
Slow == Init /\\ [][Flip]_<<x, n>>
A == INSTANCE Blink WITH y <- x
Refines == A!Spec
ALive == A!Live
ASafe == A!Safe
P(k) == INSTANCE Blink WITH y <- x
Param == P(1)!Spec
====
"""

# The root's specification is an instance's: x is Blink's y.
WRAP = """---- MODULE Wrap ----
VARIABLE x
I == INSTANCE Blink WITH y <- x
Spec == I!Spec
Live == I!Live
====
"""

# Fairness of processes, quantified in the instance, through a parameterised definition.
PROCS = """---- MODULE Procs ----
EXTENDS Naturals
CONSTANT Ps
VARIABLE c
Init == c = [p \\in Ps |-> 0]
Step(p) == c[p] < 2 /\\ c' = [c EXCEPT ![p] = c[p] + 1]
Next == \\E p \\in Ps : Step(p)
Fair(p) == WF_c(Step(p))
Spec == Init /\\ [][Next]_c /\\ \\A p \\in Ps : Fair(p)
Done == \\A p \\in Ps : <>(c[p] = 2)
====
"""

TWO = """---- MODULE Two ----
EXTENDS Naturals
VARIABLE d
Init == d = [p \\in {1, 2} |-> 0]
Next == \\E p \\in {1, 2} : d[p] < 2 /\\ d' = [d EXCEPT ![p] = d[p] + 1]
Both == Init /\\ [][Next]_d /\\ WF_d(Next)
Pr == INSTANCE Procs WITH Ps <- {1, 2}, c <- d
Fair == Pr!Spec
Done == Pr!Done
====
"""


def run(tmp_path: Path, root: str, cfg: str, *others: str) -> CheckResult:
    for text in (root, *others):
        name = text.split("MODULE ", 1)[1].split(" ", 1)[0]
        (tmp_path / f"{name}.tla").write_text(text)
    name = root.split("MODULE ", 1)[1].split(" ", 1)[0]
    config = parse_config(cfg + "\nCHECK_DEADLOCK FALSE\n", str(tmp_path / f"{name}.cfg"))
    model = Model.load(tmp_path / f"{name}.tla", constants=config.constants, overrides=config.overrides)
    return check(model, config, progress=False)


def values(r: CheckResult, var: str) -> list[object]:
    return [dict(zip(r.variables, step.state, strict=True))[var] for step in r.trace]


@pytest.mark.parametrize("prop", ["Refines", "ALive", "ASafe"])
def test_refinement_holds_under_fairness(tmp_path: Path, prop: str) -> None:
    # every step of Spec flips x (A!Flip under y <- x) and WF(Flip) makes it flip forever
    r = run(tmp_path, IMPL, f"SPECIFICATION Spec\nPROPERTY {prop}", BLINK)
    assert r.verdict == "ok", r.message
    assert (r.distinct_states, r.depth) == (6, 6)


@pytest.mark.parametrize("prop", ["Refines", "ALive"])
def test_refinement_fails_without_fairness(tmp_path: Path, prop: str) -> None:
    # Slow may stutter in its initial state forever: A!Flip stays enabled and is never taken,
    # which breaks WF_y(Flip) of A!Spec and []<>(y = 1)
    r = run(tmp_path, IMPL, f"SPECIFICATION Slow\nPROPERTY {prop}", BLINK)
    assert r.verdict == "violation" and r.property == prop
    assert r.loop == 0 and values(r, "x") == [0, 0] and r.trace[-1].action == "Stuttering"


def test_instance_specification(tmp_path: Path) -> None:
    # SPECIFICATION I!Spec: x flips between 0 and 1 under WF, so []<>(x = 1) holds
    r = run(tmp_path, WRAP, "SPECIFICATION Spec\nPROPERTY Live", BLINK)
    assert r.verdict == "ok", r.message
    assert (r.distinct_states, r.states_generated) == (2, 3)


def test_quantified_fairness_of_an_instance(tmp_path: Path) -> None:
    # Pr!Spec asks WF of each process's step; Both's WF(Next) alone lets process 1 run to 2
    # and then process 2, so both reach 2: the fairness of each holds, and so does Done
    for prop in ("Fair", "Done"):
        r = run(tmp_path, TWO, f"SPECIFICATION Both\nPROPERTY {prop}", PROCS)
        assert r.verdict == "ok", (prop, r.message)
        assert r.distinct_states == 9


def test_quantified_fairness_of_an_instance_violated(tmp_path: Path) -> None:
    # without fairness, stuttering at the initial state leaves each process's step enabled
    text = TWO.replace("Both ==", "NoFair == Init /\\ [][Next]_d\nBoth ==")
    r = run(tmp_path, text, "SPECIFICATION NoFair\nPROPERTY Fair", PROCS)
    assert r.verdict == "violation" and r.loop == 0 and r.trace[-1].action == "Stuttering"


def test_formula_of_a_parameterised_instance(tmp_path: Path) -> None:
    # P(1)!Spec is A!Spec (k is not read): it holds, as Refines does
    r = run(tmp_path, IMPL, "SPECIFICATION Spec\nPROPERTY Param", BLINK)
    assert r.verdict == "ok", r.message
    assert (r.distinct_states, r.depth) == (6, 6)


# x counts to 3 and y to 2, in any interleaving, under WF of Next; C(v, lim) is a counter c
# of the variable given, its bound lim the instance's parameter (substituted by name).
COUNTS = """---- MODULE Counts ----
EXTENDS Naturals
VARIABLES x, y
vars == <<x, y>>
Init == x = 0 /\\ y = 0
Next == (x < 3 /\\ x' = x + 1 /\\ UNCHANGED y) \\/ (y < 2 /\\ y' = y + 1 /\\ UNCHANGED x)
Spec == Init /\\ [][Next]_vars /\\ WF_vars(Next)
C(v, lim) == INSTANCE Counter WITH c <- v
XReaches == C(x, 3)!Reaches
YReaches == C(y, 2)!Reaches
YReaches3 == C(y, 3)!Reaches
XSpec == C(x, 3)!Spec
YSpec1 == C(y, 1)!Spec
W == INSTANCE Counters
S(F(_), v, lim) == INSTANCE Stepper WITH c <- v, Succ <- F
XSteps1 == S(LAMBDA n : n + 1, x, 3)!Spec
XSteps2 == S(LAMBDA n : n + 2, x, 3)!Spec
WXReaches == W!C(x, 3)!Reaches
WYReaches3 == W!C(y, 3)!Reaches
====
"""
# Counter whose step is an operator constant (S of Counts: the instance's operator parameter)
STEPPER = """---- MODULE Stepper ----
EXTENDS Naturals
CONSTANTS Succ(_), lim
VARIABLE c
Spec == c = 0 /\\ [][c < lim /\\ c' = Succ(c)]_c
====
"""
# C of Counts, declared in a module that Counts instantiates
COUNTERS = """---- MODULE Counters ----
VARIABLES x, y
C(v, lim) == INSTANCE Counter WITH c <- v
====
"""
COUNTER = """---- MODULE Counter ----
EXTENDS Naturals
CONSTANT lim
VARIABLE c
Reaches == <>(c = lim)
Spec == c = 0 /\\ [][c < lim /\\ c' = c + 1]_c
====
"""


def test_formulas_of_a_parameterised_instance_hold(tmp_path: Path) -> None:
    # x in 0..3 and y in 0..2: 12 states, all reachable, (3, 2) five steps from Init (depth
    # 6); generated: Init, then one x-step from each of the 9 states with x < 3 and one
    # y-step from each of the 8 with y < 2: 18. WF(Next) takes both to their bounds, each
    # step of x adds 1 below 3: all three hold.
    r = run(tmp_path, COUNTS, "SPECIFICATION Spec\nPROPERTIES XReaches YReaches XSpec", COUNTER, COUNTERS)
    assert r.verdict == "ok", r.message
    assert (r.distinct_states, r.states_generated, r.depth) == (12, 18, 6)


def test_formulas_of_a_parameterised_instance_inside_an_instance(tmp_path: Path) -> None:
    # W!C(x, 3) is C(x, 3): as above, x reaches 3 and y never reaches 3 (a lasso ending
    # where y = 2). It was "not supported".
    r = run(tmp_path, COUNTS, "SPECIFICATION Spec\nPROPERTY WXReaches", COUNTER, COUNTERS)
    assert r.verdict == "ok", r.message
    assert (r.distinct_states, r.states_generated, r.depth) == (12, 18, 6)
    r = run(tmp_path, COUNTS, "SPECIFICATION Spec\nPROPERTY WYReaches3", COUNTER, COUNTERS)
    assert r.verdict == "violation" and r.property == "WYReaches3"
    assert values(r, "y")[-1] == 2


def test_formula_of_an_instance_with_an_operator_parameter(tmp_path: Path) -> None:
    # S(LAMBDA n : n + 1, x, 3)!Spec is XSpec: it holds; with n + 2, x's step from 0 to 1
    # is no step of it. It was "not supported".
    r = run(tmp_path, COUNTS, "SPECIFICATION Spec\nPROPERTY XSteps1", COUNTER, COUNTERS, STEPPER)
    assert r.verdict == "ok", r.message
    assert (r.distinct_states, r.states_generated, r.depth) == (12, 18, 6)
    r = run(tmp_path, COUNTS, "SPECIFICATION Spec\nPROPERTY XSteps2", COUNTER, COUNTERS, STEPPER)
    assert r.verdict == "violation" and r.property == "XSteps2"
    assert values(r, "x")[-2:] == [0, 1]


def test_formulas_of_a_parameterised_instance_violated(tmp_path: Path) -> None:
    # y never reaches 3: a lasso ending where y = 2 (stuttering at (3, 2) at the latest)
    r = run(tmp_path, COUNTS, "SPECIFICATION Spec\nPROPERTY YReaches3", COUNTER, COUNTERS)
    assert r.verdict == "violation" and r.property == "YReaches3"
    assert values(r, "y")[-1] == 2
    # with lim = 1, the step of y from 1 to 2 is no step of the counter
    r = run(tmp_path, COUNTS, "SPECIFICATION Spec\nPROPERTY YSpec1", COUNTER, COUNTERS)
    assert r.verdict == "violation" and r.property == "YSpec1"
    assert values(r, "y")[-2:] == [1, 2]


# test_liveness's Toggle (Fire, enabled at x = 1 until it sets y; Toggle flips x) with
# specifications of three fairness strengths and WF / SF of Fire as properties.
TOGGLE = LIVENESS_TOGGLE.replace("====", """Bare == Init /\\ [][Next]_vars
Toggling == Bare /\\ WF_vars(Toggle)
Firing == Toggling /\\ WF_vars(Fire)
WeakFire == WF_vars(Fire)
StrongFire == SF_vars(Fire)
====""")


@pytest.mark.parametrize(("spec", "prop", "expected"), [
    # with no fairness, stuttering at x = 1 keeps Fire enabled forever: WF and SF broken
    ("Bare", "WeakFire", "violation"), ("Bare", "StrongFire", "violation"),
    # WF(Toggle) flips x forever: Fire is enabled only every other state, so WF(Fire) holds
    # while SF(Fire) is broken by the toggling cycle that never fires
    ("Toggling", "WeakFire", "ok"), ("Toggling", "StrongFire", "violation"),
    # WF(Fire) in the spec: Fire is taken once it stays enabled, and it is enabled only
    # until it fires; the toggling cycle before it fires is unfair to WF(Fire) only if Fire
    # stays enabled, so SF(Fire) is still broken by that cycle
    ("Firing", "WeakFire", "ok"), ("Firing", "StrongFire", "violation"),
])
def test_fairness_as_a_property(tmp_path: Path, spec: str, prop: str, expected: str) -> None:
    r = run(tmp_path, TOGGLE, f"SPECIFICATION {spec}\nPROPERTY {prop}")
    assert r.verdict == expected, r.message
    if spec == "Bare" and prop == "WeakFire":
        # the shortest: toggle to x = 1, then stutter
        assert values(r, "x") == [0, 1, 1] and r.loop == 1 and r.trace[-1].action == "Stuttering"
    if spec == "Toggling" and prop == "StrongFire":
        assert values(r, "y") == [False] * len(r.trace) and r.trace[-1].action == "Toggle"


# The token passes between processes; each hand-over from a to another process is fair.
# FairFrom's parameter a is bound, at the call, to the outer p, and its own \A binds another
# p: read at the root, the two must stay apart.
TOKEN = """---- MODULE TokenPass ----
CONSTANT Ps
VARIABLE tok
Init == tok \\in Ps
Give(a, b) == tok = a /\\ tok' = b
Next == \\E a, b \\in Ps : a # b /\\ Give(a, b)
FairFrom(a) == \\A p \\in Ps \\ {a} : WF_tok(Give(a, p))
Spec == Init /\\ [][Next]_tok /\\ \\A p \\in Ps : FairFrom(p)
====
"""

PASSER = """---- MODULE Passer ----
EXTENDS Naturals
VARIABLE t
Slow == t = 1 /\\ [][t' = 3 - t]_t
Fast == Slow /\\ WF_t(t' = 3 - t)
TP == INSTANCE TokenPass WITH Ps <- {1, 2}, tok <- t
Fair == TP!Spec
====
"""


def test_bound_names_of_an_instance_formula_are_kept_apart(tmp_path: Path) -> None:
    # Slow may stutter at t = 1, where Give(1, 2) is enabled and never taken: WF broken.
    # (Read with one name for both p, the fairness would be WF(Give(p, p)), never enabled.)
    r = run(tmp_path, PASSER, "SPECIFICATION Slow\nPROPERTY Fair", TOKEN)
    assert r.verdict == "violation" and r.loop == 0 and values(r, "t") == [1, 1]
    # Fast hands the token over forever
    r = run(tmp_path, PASSER, "SPECIFICATION Fast\nPROPERTY Fair", TOKEN)
    assert r.verdict == "ok", r.message
    assert r.distinct_states == 2
