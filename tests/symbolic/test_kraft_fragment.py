"""The KRaft spec stays inside the symbolic translation's fragment: IndInv (with the
safety properties it contains) and every action of Next translate to z3 over symbolic
states of the proof's bounds.  Fast (nothing is solved), so a spec edit that leaves the
fragment fails here and not only in the slow proof tests."""

from __future__ import annotations

from pathlib import Path

import z3

from conformance.symbolic.elements import parts
from conformance.symbolic.prove import ProofInput, load
from conformance.symbolic.shapes import Bounds, fresh_state, sample_state, state_shapes
from conformance.symbolic.split import conjuncts, split_action
from conformance.symbolic.translate import StatePair, Translator

SPEC_DIR = Path(__file__).resolve().parents[2] / "spec"


def test_indinv_and_every_action_translate() -> None:
    inp = ProofInput(SPEC_DIR / "MC_KRaft.tla", SPEC_DIR / "MC_KRaft_indinv.cfg", "IndInv", "Safety", None,
                     Bounds(2, 3, {"messages": 3}), 60.0)
    model, plan, init = load(inp)
    tr = Translator(model)
    sample = sample_state(model, init)
    atoms: list[z3.ArithRef] = []
    s = fresh_state(state_shapes(model, sample, inp.bounds), "s", atoms)
    t = fresh_state(state_shapes(model, sample, inp.bounds.widened(2)), "t", atoms)
    assert isinstance(tr.formula("IndInv", StatePair(s.values)), z3.BoolRef)
    assert isinstance(plan.next, str)
    actions = split_action(tr, plan.next)
    assert {"HandleFetchRequest", "HandleVoteRequest", "HandleAddVoterRequest"} <= {a.name for a in actions}
    for action in actions:
        assert isinstance(action.formula(tr, StatePair(s.values, t.values)), z3.BoolRef), action.name
    over = {label for label, expr, ctx in conjuncts(tr, "IndInv")
            if any(p.over == ("messages", "m") for p in parts(expr, ctx))}
    # the message lemmas are asked per message (a rewrite that hides the quantifier shows here)
    assert {"GrantsRecorded/1", "LeadersKnownAreElected", "FetchRequestsHeld", "FetchResponsesSound",
            "FetchResponsesCommitPrefix"} <= over
