"""The second state's changed sets aligned with the first state's slots
(``conformance/symbolic/aligned.py``), against an oracle that needs no solver: on a spec
whose actions add one or two elements, drop one, replace them all and move one into a
function of sets, each step obligation of several candidate invariants is proved exactly
when no state within the bounds that satisfies the invariant has a successor (by the
explicit engine) that violates it. Prove agrees with the oracle aligned and unaligned, and
the oracle exercises both verdicts. Bounded model checking with aligned states (a set
gains at most ``growth`` elements per step) finds the explicit engine's shortest
counterexamples on the same spec (the seeded bugs above fail that too, as does one fresh
slot too few), and agrees with it on the random specs of the differential tests, whose
steps add at most two elements to a set (most of those fast seeds have no violation). Seeded bugs that fail it: no fresh slot for what a step
adds, a kept slot that cannot be dropped. (A kept guard not bound to the first state's guard
is no bug: the slot still denotes a value and the action's equality decides the set; the
bound only helps the solver, and the last test checks it is there.)"""

from __future__ import annotations

from itertools import combinations, product
from pathlib import Path

import pytest

from conformance.symbolic.aligned import aligned_state
from conformance.symbolic.bmc import bmc
from conformance.symbolic.encoding import SSet
from conformance.symbolic.prove import ProofInput, discharge, obligations
from conformance.symbolic.shapes import Bounds, SymbolicState
from conformance.tla.cfg import read_config
from conformance.tla.explorer import check
from conformance.tla.model import Model
from conformance.tla.plan import resolve_plan
from conformance.tla.values import Fn, Value
from tests.symbolic import test_bmc_differential as bmc_differential
from tests.symbolic import test_witness as witness

BAG = """---- MODULE Bag ----
EXTENDS Integers, FiniteSets
VARIABLES
  \\* @type: Set(Int);
  msgs,
  \\* @type: Int -> Set(Int);
  box
Vals == 1..4
Init == msgs = {} /\\ box = [k \\in 1..2 |-> {}]
Add == \\E v \\in Vals : msgs' = msgs \\cup {v} /\\ UNCHANGED box
AddTwo == \\E v \\in Vals : msgs' = msgs \\cup {v, 5 - v} /\\ UNCHANGED box
Drop == \\E m \\in msgs : msgs' = msgs \\ {m} /\\ UNCHANGED box
Shift == msgs' = {IF x = 4 THEN 1 ELSE x + 1 : x \\in msgs} /\\ UNCHANGED box
File == \\E m \\in msgs, k \\in 1..2 : box' = [box EXCEPT ![k] = box[k] \\cup {m}] /\\ msgs' = msgs \\ {m}
Empty == \\E k \\in 1..2 : box' = [box EXCEPT ![k] = {}] /\\ UNCHANGED msgs
Next == Add \\/ AddTwo \\/ Drop \\/ Shift \\/ File \\/ Empty
Typed == msgs \\subseteq Vals /\\ \\A k \\in 1..2 : box[k] \\subseteq Vals
Small == Typed /\\ Cardinality(msgs) <= 2
Paired == Typed /\\ (1 \\in msgs => 4 \\in msgs)
Apart == Typed /\\ \\A k \\in 1..2 : \\A x \\in box[k] : x \\notin msgs
Filed == Typed /\\ (\\A x \\in box[1] : x # 3) /\\ (3 \\in msgs => 2 \\notin msgs)
Held == Typed /\\ (3 \\in box[1] => 2 \\in box[1] \\/ 2 \\in box[2])
Safety == TRUE
vars == <<msgs, box>>
Spec == Init /\\ [][Next]_vars
GoalOneStep == ~(msgs = {1, 4} /\\ box[1] = {})
GoalFiled == ~(msgs = {3} /\\ box[2] = {1, 2})
GoalShifted == ~(msgs = {1} /\\ box[1] = {2} /\\ box[2] = {})
GoalEmptied == ~(msgs = {} /\\ box[1] = {3} /\\ box[2] = {})
====
"""
ACTIONS = ["Add", "AddTwo", "Drop", "Shift", "File", "Empty"]
INVARIANTS = ["Typed", "Small", "Paired", "Apart", "Filed", "Held"]
SET_BOUND = 3


@pytest.fixture(scope="module")
def bag(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    folder = tmp_path_factory.mktemp("bag")
    spec, cfg = folder / "Bag.tla", folder / "Bag.cfg"
    spec.write_text(BAG)
    cfg.write_text("INIT Init\nNEXT Next\n")
    return spec, cfg


def oracle(spec: Path, cfg: Path, inv: str) -> dict[str, bool]:
    """Per action: whether it keeps ``inv`` from every state within the bounds (sets of at
    most SET_BOUND elements of 1..4; ``inv`` types them, so no other state satisfies it)."""
    config = read_config(cfg)
    model = Model.load(spec, constants=config.constants)
    subsets = [frozenset(c) for n in range(SET_BOUND + 1) for c in combinations(range(1, 5), n)]
    keeps = dict.fromkeys(ACTIONS, True)
    for msgs, b1, b2 in product(subsets, repeat=3):
        values: dict[str, Value] = {"msgs": msgs, "box": Fn({1: b1, 2: b2})}
        state = tuple(values[v] for v in model.variables)
        if model.eval_state(inv, state) is not True:
            continue
        for action in ACTIONS:
            if keeps[action] and any(model.eval_state(inv, succ) is not True
                                     for _, succ in model.successors(state, action)):
                keeps[action] = False
    return keeps


def proved(spec: Path, cfg: Path, inv: str, aligned: bool) -> dict[str, bool]:
    """Per action: whether prove proves its step obligation (a counterexample otherwise;
    anything else fails the test)."""
    inp = ProofInput(spec, cfg, inv, "Safety", None, Bounds(2, SET_BOUND), 600.0, aligned_sets=aligned)
    out = {}
    for ob in obligations(inp):
        if ob.kind != "step":
            continue
        r = discharge(inp, ob)
        assert r.verdict in ("proved", "counterexample"), (ob.action, r.verdict, r.message)
        out[str(ob.action)] = r.verdict == "proved"
    return out


@pytest.mark.parametrize("inv", INVARIANTS)
def test_prove_agrees_with_the_oracle_aligned_and_not(bag: tuple[Path, Path], inv: str) -> None:
    expected = oracle(*bag, inv)
    assert proved(*bag, inv, aligned=True) == expected
    assert proved(*bag, inv, aligned=False) == expected


def test_the_oracle_has_both_verdicts_for_every_kind_of_change(bag: tuple[Path, Path]) -> None:
    """Each action keeps some invariant and breaks another, so agreement is not vacuous:
    adding (Add, AddTwo), dropping (Drop), replacing (Shift) and moving into a function of
    sets (File, Empty) each need the aligned slots right for a counterexample."""
    verdicts = {inv: oracle(*bag, inv) for inv in INVARIANTS}
    for action in ACTIONS:
        assert {verdicts[inv][action] for inv in INVARIANTS} == {True, False}, action


def test_aligned_slots_share_the_first_states_elements() -> None:
    import z3
    g = [z3.Bool(f"g{i}") for i in range(2)]
    old = SSet(tuple((g[i], z3.Int(f"e{i}")) for i in range(2)))
    new = SSet(tuple((z3.Bool(f"h{i}"), z3.Int(f"f{i}")) for i in range(5)))
    s = SymbolicState({"v": old, "w": z3.Int("w")}, z3.BoolVal(True))
    t = SymbolicState({"v": new, "w": z3.Int("w2")}, z3.BoolVal(True))
    a = aligned_state(s, t, ["v"])
    v = a.values["v"]
    assert isinstance(v, SSet) and len(v.slots) == 5
    assert [x for _, x in v.slots[:2]] == [x for _, x in old.slots]  # the same terms
    assert v.slots[2:] == new.slots[2:]  # room for three more
    assert a.values["w"] is t.values["w"]
    solver = z3.Solver()
    solver.add(a.wellformed, z3.Not(g[0]), v.slots[0][0])  # present in t, absent in s
    assert solver.check() == z3.unsat


# ---------------------------------------------------------------------------
# check --symbolic: each state's sets aligned with the state before
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("goal", ["GoalOneStep", "GoalFiled", "GoalShifted", "GoalEmptied", "Typed"])
def test_bmc_with_aligned_states_agrees_with_the_explicit_engine(bag: tuple[Path, Path], goal: str,
                                                                 tmp_path: Path) -> None:
    """Bag from Init: the shortest counterexample of each goal (adding two elements at
    once, dropping, replacing, moving into a function of sets), or none (Typed)."""
    cfg = tmp_path / f"{goal}.cfg"
    cfg.write_text(f"SPECIFICATION Spec\nINVARIANT {goal}\nCHECK_DEADLOCK FALSE\n")
    config = read_config(cfg)
    model = Model.load(bag[0], constants=config.constants)
    explicit = check(model, config, progress=False)
    assert (explicit.verdict == "ok") == (goal == "Typed")
    length = len(explicit.trace) - 1 if explicit.verdict == "violation" else 4  # (15 deep)
    symbolic = bmc(model, resolve_plan(model, config), length, Bounds(2, SET_BOUND), growth=2).result
    bmc_differential.assert_agree(explicit, symbolic)


@pytest.mark.parametrize("seed", range(10))
def test_bmc_with_aligned_states_agrees_on_random_specs(seed: int, tmp_path: Path) -> None:
    explicit, symbolic = bmc_differential.run_random(seed, tmp_path, growth=2)
    bmc_differential.assert_agree(explicit, symbolic)


@pytest.mark.parametrize("seed", range(8))
def test_bmc_with_aligned_states_agrees_on_specs_choosing_an_element(seed: int, tmp_path: Path) -> None:
    model, config = witness.load(tmp_path, f"C{seed}", witness.random_chosen_spec(seed), witness.CFG)
    explicit = check(model, config, progress=False)
    length = len(explicit.trace) - 1 if explicit.verdict == "violation" else min(explicit.depth + 1, 6)
    symbolic = bmc(model, resolve_plan(model, config), length, Bounds(4, 4), growth=2).result
    bmc_differential.assert_agree(explicit, symbolic)


def test_the_command_line_takes_growth_and_says_what_it_bounds(
        bag: tuple[Path, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from conformance.cli import main
    cfg = tmp_path / "Filed.cfg"
    cfg.write_text("SPECIFICATION Spec\nINVARIANT GoalFiled\nCHECK_DEADLOCK FALSE\n")
    argv = ["check", str(bag[0]), "--config", str(cfg), "--symbolic", "--length", "5", "--quiet",
            "--set-bound", "3", "--seq-bound", "2"]
    assert main([*argv, "--growth", "2"]) == 12
    out = capsys.readouterr().out
    assert "set bounds for the initial state, and a step adds at most 2 elements to a set" in out
    assert "State 5:" in out and "State 6:" not in out  # the shortest: 4 steps
    assert main([*argv, "--growth", "-1"]) == 2
    assert "--growth must be >= 0" in capsys.readouterr().err


def test_growth_beyond_a_sets_bound_is_an_error_not_a_silent_fresh_set(
        bag: tuple[Path, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from conformance.cli import main
    cfg = tmp_path / "Filed.cfg"
    cfg.write_text("SPECIFICATION Spec\nINVARIANT GoalFiled\nCHECK_DEADLOCK FALSE\n")
    code = main(["check", str(bag[0]), "--config", str(cfg), "--symbolic", "--length", "5", "--quiet",
                 "--set-bound", "3", "--bound", "msgs=1", "--growth", "2"])
    assert code == 1
    assert "s1.msgs: a set of 1 slots has no room for 2 fresh elements" in capsys.readouterr().err
