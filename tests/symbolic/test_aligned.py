"""The second state's changed sets aligned with the first state's slots
(``conformance/symbolic/aligned.py``), against an oracle that needs no solver: on a spec
whose actions add one or two elements, drop one, replace them all and move one into a
function of sets, each step obligation of several candidate invariants is proved exactly
when no state within the bounds that satisfies the invariant has a successor (by the
explicit engine) that violates it. Prove agrees with the oracle aligned and unaligned, and
the oracle exercises both verdicts. Seeded bugs that fail it: no fresh slot for what a step
adds, a kept slot that cannot be dropped. (A kept guard not bound to the first state's guard
is no bug: the slot still denotes a value and the action's equality decides the set; the
bound only helps the solver, and the last test checks it is there.)"""

from __future__ import annotations

from itertools import combinations, product
from pathlib import Path

import pytest

from conformance.symbolic.aligned import aligned_state
from conformance.symbolic.encoding import SSet, clear_memo
from conformance.symbolic.prove import ProofInput, discharge, obligations
from conformance.symbolic.shapes import Bounds, SymbolicState
from conformance.tla.cfg import read_config
from conformance.tla.model import Model
from conformance.tla.values import Fn, Value

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
        clear_memo()
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
