"""Liveness on small specs whose answers are derived by hand (in each comment), through
the explorer, the simulator and the command line (TLC's lasso wording, ITF loop)."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest

from conformance.cli import main
from conformance.tla.cfg import parse_config
from conformance.tla.check_cmd import print_report
from conformance.tla.explorer import CheckResult, check, simulate
from conformance.tla.model import Model

COUNTER = """---- MODULE Counter ----
EXTENDS Naturals
VARIABLE x
Init == x = 0
Next == x < LIMIT /\\ x' = x + 1
Spec == Init /\\ [][Next]_x
FairSpec == Spec /\\ WF_x(Next)
Live == WF_x(Next)
Both == Spec /\\ Live
Named == Both
Reach == <>(x = 3)
Often == []<>(x = 3)
Settles == <>[](x = 3)
Moves == []<><<Next>>_x
Quiet == <>[][FALSE]_x
Steps == <><<Next>>_x
StartsAtZero == x = 0
====
"""

# Toggle flips x forever; Fire (enabled only while x = 1) sets y. Under WF(Fire) the
# toggling behaviour is fair (Fire is disabled infinitely often), under SF(Fire) it is not.
TOGGLE = """---- MODULE Toggle ----
EXTENDS Naturals
VARIABLES x, y
vars == <<x, y>>
Init == x = 0 /\\ y = FALSE
Toggle == x' = 1 - x /\\ UNCHANGED y
Fire == x = 1 /\\ y' = TRUE /\\ UNCHANGED x
Next == Toggle \\/ Fire
WFSpec == Init /\\ [][Next]_vars /\\ WF_vars(Toggle) /\\ WF_vars(Fire)
SFSpec == Init /\\ [][Next]_vars /\\ WF_vars(Toggle) /\\ SF_vars(Fire)
Fired == <>y
OnlyToggles == <>[][Toggle]_vars
FiresForever == <>[][Fire]_vars
FiresOnce == <><<Fire>>_vars
IfStrong == SF_vars(Fire) => Fired
IfWeak == WF_vars(Fire) => (Fired /\\ FiresOnce)
====
"""

# A request may be cancelled (back to idle) or granted (busy, then idle).
REQUEST = """---- MODULE Request ----
VARIABLE s
Init == s = "idle"
Req == s = "idle" /\\ s' = "req"
Cancel == s = "req" /\\ s' = "idle"
Grant == s = "req" /\\ s' = "busy"
Done == s = "busy" /\\ s' = "idle"
Next == Req \\/ Cancel \\/ Grant \\/ Done
Spec == Init /\\ [][Next]_s /\\ WF_s(Next)
WeakGrant == Spec /\\ WF_s(Grant)
StrongGrant == Spec /\\ SF_s(Grant)
Served == (s = "req") ~> (s = "busy")
ServedBox == [](s = "req" => <>(s = "busy"))
ServedIfStrong == SF_s(Grant) => Served
ServedIfWeak == WF_s(Grant) => ServedBox
====
"""

# Two counters; fairness for each process given by a quantified conjunct.
PAIR = """---- MODULE Pair ----
EXTENDS Naturals
VARIABLE c
Procs == {1, 2}
Init == c = [i \\in Procs |-> 0]
Inc(i) == c[i] < 2 /\\ c' = [c EXCEPT ![i] = c[i] + 1]
Next == \\E i \\in Procs : Inc(i)
Fair(i) == WF_c(Inc(i))
BothSpec == Init /\\ [][Next]_c /\\ \\A i \\in Procs : Fair(i)
OneSpec == Init /\\ [][Next]_c /\\ WF_c(Inc(1))
Done == \\A i \\in Procs : <>(c[i] = 2)
EachIfFair == \\A i \\in Procs : Fair(i) => <>(c[i] = 2)
====
"""


def run(tmp_path: Path, text: str, cfg: str, *, simulated: bool = False, **kw: object) -> CheckResult:
    name = text.split("MODULE ", 1)[1].split(" ", 1)[0]
    spec = tmp_path / f"{name}.tla"
    spec.write_text(text)
    config = parse_config(cfg + "\nCHECK_DEADLOCK FALSE\n", str(tmp_path / f"{name}.cfg"))
    model = Model.load(spec, constants=config.constants, overrides=config.overrides)
    if simulated:
        return simulate(model, config, depth=30, traces=20, seed=1, progress=False)
    return check(model, config, progress=False, **kw)  # type: ignore[arg-type]


def values(r: CheckResult, var: str) -> list[object]:
    return [dict(zip(r.variables, step.state, strict=True))[var] for step in r.trace]


def counter(limit: int) -> str:
    return COUNTER.replace("LIMIT", str(limit))


@pytest.mark.parametrize(("spec", "prop", "expected"), [
    # no fairness: every behaviour may stutter forever at x = 0
    ("Spec", "Reach", "violation"), ("Spec", "Often", "violation"), ("Spec", "Settles", "violation"),
    ("Spec", "Moves", "violation"), ("Spec", "Quiet", "ok"), ("Spec", "StartsAtZero", "ok"),
    # WF(Next): the counter runs to 3 and stops (Next disabled there, stuttering is fair)
    ("FairSpec", "Reach", "ok"), ("FairSpec", "Often", "ok"), ("FairSpec", "Settles", "ok"),
    ("FairSpec", "Moves", "violation"), ("FairSpec", "Quiet", "ok"),
    # <><<Next>>_x: stuttering from the start is a behaviour without fairness; WF(Next) takes a step
    ("Spec", "Steps", "violation"), ("FairSpec", "Steps", "ok"),
])
def test_counter(tmp_path: Path, spec: str, prop: str, expected: str) -> None:
    r = run(tmp_path, counter(3), f"SPECIFICATION {spec}\nPROPERTY {prop}")
    assert r.verdict == expected, r.message
    if expected == "violation":
        assert r.property == prop and r.message == "Temporal properties were violated."


# x starts at 0 or 1 and goes up by 2 below 4, under WF: even starts end at 4, odd at 5
PARITY = """---- MODULE Parity ----
EXTENDS Naturals
VARIABLE x
Init == x \\in {0, 1}
Next == x < 4 /\\ x' = x + 2
Spec == Init /\\ [][Next]_x /\\ WF_x(Next)
Ends == IF x % 2 = 0 THEN <>(x = 4) ELSE <>(x = 5)
Swapped == IF x % 2 = 0 THEN <>(x = 5) ELSE <>(x = 4)
====
"""


@pytest.mark.parametrize(("prop", "expected"), [("Ends", "ok"), ("Swapped", "violation")])
def test_if_then_else_of_temporal_formulas(tmp_path: Path, prop: str, expected: str) -> None:
    # IF P THEN F ELSE G with P read in the first state (the shape of the public CoffeeCan's
    # TerminationHypothesis): 0 -> 2 -> 4 and 1 -> 3 -> 5, 6 states, 6 generated. Swapped:
    # the even start never reaches 5 (a lasso stuttering at 4). It was "not supported".
    r = run(tmp_path, PARITY, f"SPECIFICATION Spec\nPROPERTY {prop}")
    assert r.verdict == expected, r.message
    assert (r.distinct_states, r.states_generated) == (6, 6)
    if expected == "violation":
        assert values(r, "x")[0] == 0 and values(r, "x")[-1] == 4


def test_specification_named_through_a_definition(tmp_path: Path) -> None:
    # Named == Both, Both == Spec /\ Live (a name of a conjunction of names, as the Toolbox
    # writes spec_N == LiveSpec): Live's fairness holds, so Reach does. It was "must have
    # exactly one conjunct [][Next]_vars, found 0".
    r = run(tmp_path, counter(3), "SPECIFICATION Named\nPROPERTY Reach")
    assert r.verdict == "ok", r.message
    assert (r.distinct_states, r.states_generated) == (4, 4)


def test_counter_without_fairness_stutters_in_the_initial_state(tmp_path: Path) -> None:
    r = run(tmp_path, counter(3), "SPECIFICATION Spec\nPROPERTY Reach")
    assert r.loop == 0 and values(r, "x") == [0, 0] and r.trace[-1].action == "Stuttering"


def test_deadlock_before_the_goal_violates_eventually(tmp_path: Path) -> None:
    # Next stops at x = 2: with WF(Next) the behaviour stutters there (Next disabled)
    r = run(tmp_path, counter(2), "SPECIFICATION FairSpec\nPROPERTY Reach")
    assert r.verdict == "violation" and values(r, "x") == [0, 1, 2, 2] and r.loop == 2
    assert r.trace[-1].action == "Stuttering"


def test_weak_and_strong_fairness_differ_on_an_intermittent_action(tmp_path: Path) -> None:
    r = run(tmp_path, TOGGLE, "SPECIFICATION WFSpec\nPROPERTY Fired")
    assert r.verdict == "violation"
    assert values(r, "x") == [0, 1, 0] and values(r, "y") == [False] * 3 and r.loop == 0
    assert r.trace[-1].action == "Toggle"
    assert run(tmp_path, TOGGLE, "SPECIFICATION SFSpec\nPROPERTY Fired").verdict == "ok"


def test_action_properties(tmp_path: Path) -> None:
    # Fire happens at most once (then y = TRUE disables <<Fire>>_vars): eventually only Toggle steps
    assert run(tmp_path, TOGGLE, "SPECIFICATION WFSpec\nPROPERTY OnlyToggles").verdict == "ok"
    # WF(Toggle) makes x flip forever: steps that are not Fire never stop
    r = run(tmp_path, TOGGLE, "SPECIFICATION SFSpec\nPROPERTY FiresForever")
    assert r.verdict == "violation" and r.property == "FiresForever"
    assert any(step.action == "Toggle" for step in r.trace[r.loop + 1:])


@pytest.mark.parametrize("prop", ["Served", "ServedBox"])
def test_leads_to_violated_by_a_cycle(tmp_path: Path, prop: str) -> None:
    # WF(Next) alone allows idle -> req -> idle -> ... forever (Next is always taken)
    r = run(tmp_path, REQUEST, f"SPECIFICATION Spec\nPROPERTY {prop}")
    assert r.verdict == "violation"
    assert values(r, "s") == ["idle", "req", "idle", "req"] and r.loop == 1
    assert [step.action for step in r.trace[1:]] == ["Req", "Cancel", "Req"]
    # WF(Grant): Grant is disabled at idle infinitely often, so the cycle stays fair
    assert run(tmp_path, REQUEST, f"SPECIFICATION WeakGrant\nPROPERTY {prop}").verdict == "violation"
    # SF(Grant): enabled infinitely often, so it must be taken
    assert run(tmp_path, REQUEST, f"SPECIFICATION StrongGrant\nPROPERTY {prop}").verdict == "ok"


def test_quantified_fairness_and_properties(tmp_path: Path) -> None:
    assert run(tmp_path, PAIR, "SPECIFICATION BothSpec\nPROPERTY Done").verdict == "ok"
    r = run(tmp_path, PAIR, "SPECIFICATION OneSpec\nPROPERTY Done")
    assert r.verdict == "violation" and r.trace[-1].action == "Stuttering"
    assert dict(zip(r.variables, r.trace[-1].state, strict=True))["c"] in ((2, 0), )


def test_constraint_cuts_behaviours(tmp_path: Path) -> None:
    # states outside the CONSTRAINT are not part of any behaviour (TLC): x = 2 is never
    # reached, x = 1 has no transition left and stutters, Next being ENABLED there (x < 3).
    text = counter(3).replace("StartsAtZero ==", "Small == x <= 1\nStartsAtZero ==")
    r = run(tmp_path, text, "SPECIFICATION FairSpec\nPROPERTY Reach\nCONSTRAINT Small")
    assert r.verdict == "ok"  # the only remaining behaviour is unfair (Next enabled, never taken)
    r = run(tmp_path, text, "SPECIFICATION Spec\nPROPERTY Reach\nCONSTRAINT Small")
    assert r.verdict == "violation"


def test_simulation_finds_lassos(tmp_path: Path) -> None:
    r = run(tmp_path, TOGGLE, "SPECIFICATION WFSpec\nPROPERTY Fired", simulated=True)
    assert r.verdict == "violation" and r.property == "Fired" and r.loop is not None
    assert r.trace[-1].state == r.trace[r.loop].state
    assert run(tmp_path, TOGGLE, "SPECIFICATION SFSpec\nPROPERTY Fired", simulated=True).verdict == "ok"
    r = run(tmp_path, counter(3), "SPECIFICATION Spec\nPROPERTY Reach", simulated=True)
    assert r.verdict == "violation" and r.trace[-1].action == "Stuttering"
    assert run(tmp_path, counter(3), "SPECIFICATION FairSpec\nPROPERTY Reach", simulated=True).verdict == "ok"


def test_report_and_itf_show_the_lasso(tmp_path: Path) -> None:
    r = run(tmp_path, REQUEST, "SPECIFICATION Spec\nPROPERTY Served")
    out = io.StringIO()
    print_report(r, out=out)
    text = out.getvalue()
    assert "Error: Temporal properties were violated." in text
    assert "Error: The following behavior constitutes a counter-example:" in text
    assert "State 3: <Cancel line 8, col 16 of module Request>" in text
    assert "\nBack to state 2: <Req line 8, col 9 of module Request>\n" in text
    (tmp_path / "Request.cfg").write_text("SPECIFICATION Spec\nPROPERTY Served\n")
    itf_path = tmp_path / "out.itf.json"
    code = main(["check", str(tmp_path / "Request.tla"), "--quiet", "--itf", str(itf_path)])
    assert code == 12
    doc = json.loads(itf_path.read_text())
    assert doc["loop"] == 1 and [st["s"] for st in doc["states"]] == ["idle", "req", "idle"]


def test_unsupported_forms_are_located(tmp_path: Path) -> None:
    text = REQUEST.replace("====", "Odd == <>(s = \"busy\") => [](s = \"idle\")\n====")
    r = run(tmp_path, text, "SPECIFICATION Spec\nPROPERTY Odd")
    assert r.verdict == "error" and "PROPERTY Odd" in (r.message or "") and "Request.tla:" in (r.message or "")


@pytest.mark.parametrize(("text", "spec", "prop"), [
    (REQUEST, "Spec", "Served"), (counter(3), "FairSpec", "Reach"), (counter(2), "FairSpec", "Reach"),
    (counter(3), "FairSpec", "Moves"),
])
def test_fairness_of_the_own_next_read_off_transitions_agrees_with_evaluation(
        tmp_path: Path, text: str, spec: str, prop: str) -> None:
    # WF_v(Next) is read off the transitions; WF_v(Next /\ TRUE) is evaluated: same answers
    evaluated = text.replace("WF_s(Next)", "WF_s(Next /\\ TRUE)").replace("WF_x(Next)", "WF_x(Next /\\ TRUE)")
    assert evaluated != text
    fast = run(tmp_path, text, f"SPECIFICATION {spec}\nPROPERTY {prop}")
    slow = run(tmp_path, evaluated, f"SPECIFICATION {spec}\nPROPERTY {prop}")
    assert (fast.verdict, fast.loop, fast.trace_states()) == (slow.verdict, slow.loop, slow.trace_states())


def test_eventually_an_action_step(tmp_path: Path) -> None:
    # <><<Fire>>_vars under WF(Fire): toggling forever is fair (Fire disabled at x = 0), no Fire step
    r = run(tmp_path, TOGGLE, "SPECIFICATION WFSpec\nPROPERTY FiresOnce")
    assert r.verdict == "violation" and r.property == "FiresOnce"
    assert all(step.action in ("Init", "Toggle") for step in r.trace)
    assert run(tmp_path, TOGGLE, "SPECIFICATION SFSpec\nPROPERTY FiresOnce").verdict == "ok"
    # with no step possible at all, even WF(Next) allows only stuttering
    r = run(tmp_path, counter(0), "SPECIFICATION FairSpec\nPROPERTY Steps")
    assert r.verdict == "violation" and values(r, "x") == [0, 0] and r.loop == 0


@pytest.mark.parametrize(("text", "spec", "prop", "expected"), [
    # the fairness of F => G is assumed on top of the specification's
    (TOGGLE, "WFSpec", "IfStrong", "ok"), (TOGGLE, "WFSpec", "IfWeak", "violation"),
    (REQUEST, "Spec", "ServedIfStrong", "ok"), (REQUEST, "Spec", "ServedIfWeak", "violation"),
    # per process: Inc(2) is fair only where its conjunct assumes it
    (PAIR, "OneSpec", "EachIfFair", "ok"), (PAIR, "OneSpec", "Done", "violation"),
])
def test_fairness_assumed_by_a_property(tmp_path: Path, text: str, spec: str, prop: str, expected: str) -> None:
    r = run(tmp_path, text, f"SPECIFICATION {spec}\nPROPERTY {prop}")
    assert r.verdict == expected, r.message
    if expected == "violation":
        assert r.property == prop
    sim = run(tmp_path, text, f"SPECIFICATION {spec}\nPROPERTY {prop}", simulated=True)
    assert sim.verdict == expected, sim.message


def test_the_assumed_fairness_stays_with_its_conjunct(tmp_path: Path) -> None:
    # SF(Fire) assumed by one conjunct does not make the behaviours of another one fair
    text = TOGGLE.replace("====", "Mixed == IfStrong /\\ FiresOnce\n====")
    r = run(tmp_path, text, "SPECIFICATION WFSpec\nPROPERTY Mixed")
    assert r.verdict == "violation" and r.property == "Mixed"
    assert run(tmp_path, text, "SPECIFICATION SFSpec\nPROPERTY Mixed").verdict == "ok"


# P => G with P a state predicate: P is read in the first state of each behaviour.
STARTS = """---- MODULE Starts ----
EXTENDS Naturals
VARIABLE x
Init == x \\in {0, 1}
Next == x < 3 /\\ x' = x + 1
Spec == Init /\\ [][Next]_x
FairSpec == Spec /\\ WF_x(Next)
FromZeroReaches == x = 0 => <>(x = 3)
FromOneStaysLow == x = 1 => [](x <= 2)
FromTwoStaysLow == x = 2 => [](x <= 2)
FromZeroFast == x = 0 => <>(x = 1)
====
"""


@pytest.mark.parametrize(("spec", "prop", "expected"), [
    # WF(Next): every behaviour runs to 3, so from 0 it reaches 3
    ("FairSpec", "FromZeroReaches", "ok"),
    # without fairness the behaviour from 0 may stutter at 0 forever
    ("Spec", "FromZeroReaches", "violation"),
    # from 1 the counter reaches 3 under WF: [](x <= 2) fails, a behaviour from 1 to 3
    ("FairSpec", "FromOneStaysLow", "violation"),
    # no behaviour starts at 2 (Init is 0 or 1): the implication holds in every behaviour
    ("FairSpec", "FromTwoStaysLow", "ok"), ("Spec", "FromTwoStaysLow", "ok"),
    # from 0 the first step makes x = 1 under WF; the behaviour from 1 does not start at 0
    ("FairSpec", "FromZeroFast", "ok"),
])
def test_implication_from_a_first_state_predicate(tmp_path: Path, spec: str, prop: str, expected: str) -> None:
    r = run(tmp_path, STARTS, f"SPECIFICATION {spec}\nPROPERTY {prop}")
    assert r.verdict == expected, r.message
    if expected == "violation":
        assert values(r, "x")[0] == (1 if prop == "FromOneStaysLow" else 0)
    if prop == "FromOneStaysLow":
        assert 3 in values(r, "x")


# two symmetric processes finish one by one; without fairness nothing needs to happen
DONE = """---- MODULE Done ----
EXTENDS FiniteSets, TLC
CONSTANT P
VARIABLE done
Init == done = {}
Next == \\E p \\in P \\ done : done' = done \\cup {p}
Spec == Init /\\ [][Next]_done
Fair == Spec /\\ WF_done(Next)
AllDone == <>(done = P)
Sym == Permutations(P)
====
"""


def _done(tmp_path: Path, spec: str) -> CheckResult:
    cfg = f"CONSTANT P = {{a, b}}\nSPECIFICATION {spec}\nPROPERTY AllDone\nSYMMETRY Sym"
    return run(tmp_path, DONE, cfg)


def test_liveness_under_symmetry_is_decided_on_the_states(tmp_path: Path) -> None:
    # By hand: without fairness the behaviour stuttering in {} violates AllDone; with WF
    # both finish. The reduced graph has 3 classes ({}, one done, both done).
    r = _done(tmp_path, "Spec")
    assert r.verdict == "violation" and values(r, "done")[0] == frozenset()
    assert r.distinct_states == 3
    r = _done(tmp_path, "Fair")
    assert r.verdict == "ok", r.message


def test_a_lasso_of_the_reduced_graph_is_checked_again(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # a violation found on the reduced graph (here made up) stands only if the states
    # themselves show one: a quotient's lasso can be no behaviour (TLC's model symmetry/NQ)
    from conformance.tla.liveness.recorder import LivenessRecorder, Violation
    real = LivenessRecorder.check
    calls: list[int] = []

    def first_made_up(self: LivenessRecorder) -> Violation | None:
        calls.append(1)
        return real(self) if len(calls) > 1 else object()  # type: ignore[return-value]

    monkeypatch.setattr(LivenessRecorder, "check", first_made_up)
    r = _done(tmp_path, "Fair")
    assert r.verdict == "ok", r.message
    assert len(calls) == 2 and r.distinct_states == 3  # (the reduced search's counts)
