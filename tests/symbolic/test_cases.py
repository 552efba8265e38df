"""Deciding a step obligation case by case (``conformance/symbolic/cases.py``): the cases
of an action cover it exactly (their disjunction is equivalent to it, checked by z3), and
the verdicts case by case are those of the whole action, a counterexample to induction
that lies in one case included (a case asks about a conjunct over a constant set per
element: the counterexample lies in the last element's question)."""

from __future__ import annotations

from pathlib import Path

import pytest
import z3

from conformance.symbolic.encoding import Atoms, clear_memo
from conformance.symbolic.prove import ProofInput, discharge, obligations, per_action
from conformance.symbolic.prove import prove as prove_all
from conformance.symbolic.shapes import Bounds, atom_range, fresh_state, sample_state, state_shapes
from conformance.symbolic.split import split_action
from conformance.symbolic.translate import StatePair, Translator
from conformance.tla.cfg import read_config
from conformance.tla.model import Model
from conformance.tla.plan import resolve_plan

SPEC = Path(__file__).resolve().parents[2] / "spec"

# A handler of messages to three nodes (its cases: per node, per disjunct, through the
# definition Apply and the IF); only the "set" case for node 3 can break Node3Zero.
MAILBOX = """---- MODULE Mailbox ----
EXTENDS Integers, FiniteSets
CONSTANT Nodes, Max
VARIABLES
  \\* @type: Int -> Int;
  val,
  \\* @type: Set({ dest: Int, kind: Str, n: Int });
  msgs
Init == val = [i \\in Nodes |-> 0] /\\ msgs = {}
Spec == Init /\\ [][FALSE]_<<val, msgs>>
Post(i, n) == msgs' = msgs \\cup {[dest |-> i, kind |-> "set", n |-> n]} /\\ UNCHANGED val
Apply(i, n) ==
  \\/ n >= val[i] /\\ val' = [val EXCEPT ![i] = n]
  \\/ n < val[i] /\\ UNCHANGED val
Handle(m) ==
  /\\ m.dest \\in Nodes
  /\\ LET i == m.dest IN
     \\/ /\\ m.kind = "set"
        /\\ Apply(i, m.n)
     \\/ /\\ m.kind = "reset"
        /\\ IF m.n = 0 THEN val' = [val EXCEPT ![i] = 0] ELSE UNCHANGED val
  /\\ UNCHANGED msgs
Next == (\\E i \\in Nodes, n \\in 0..Max : Post(i, n)) \\/ (\\E m \\in msgs : Handle(m))
MsgsOK == \\A m \\in msgs : m.dest \\in Nodes /\\ m.n \\in 0..Max /\\ m.kind = "set"
IndInv == val \\in [Nodes -> 0..Max] /\\ MsgsOK
Safety == \\A i \\in Nodes : val[i] <= Max
\\* not inductive: a "set" message to node 3 with n > 0 (and only that) breaks it; a case
\\* asks about it per node (the last one fails)
Node3Zero == IndInv /\\ \\A i \\in Nodes : i = 3 => val[i] = 0
====
"""

CASES = [f"m.dest = {i} {c}" for i in (1, 2, 3) for c in ("\\/1 \\/1", "\\/1 \\/2", "\\/2 THEN", "\\/2 ELSE")]


def uncovered(spec: Path, cfg: Path, bounds: Bounds, actions: set[str] | None = None) -> dict[str, str]:
    """Per action with cases (``actions``: of these), whether z3 finds a step of the action
    and of no case, or of a case and not of the action (``""``: equivalent)."""
    clear_memo()
    config = read_config(cfg)
    model = Model.load(spec, constants=config.constants, overrides=config.overrides)
    plan = resolve_plan(model, config)
    assert isinstance(plan.next, str)
    tr = Translator(model, Atoms())
    terms: list[z3.ArithRef] = []
    sample = sample_state(model, plan.init if isinstance(plan.init, str) else "Init")
    s = fresh_state(state_shapes(model, sample, bounds), "s", terms)
    t = fresh_state(state_shapes(model, sample, bounds.widened(4)), "t", terms)
    st = StatePair(s.values, t.values)
    out: dict[str, str] = {}
    for d in split_action(tr, plan.next):
        if not d.cases or (actions is not None and d.name not in actions):
            continue
        whole = d.formula(tr, st)
        parts = z3.Or([d.formula(tr, st, k) for k in range(len(d.cases))])
        solver = z3.Solver()
        solver.add(s.wellformed, t.wellformed, atom_range(terms, tr.atoms), whole != parts)
        answer = solver.check()
        out[d.name] = "" if answer == z3.unsat else str(answer)
    return out


def test_the_cases_of_a_handler_are_per_destination_and_disjunct(mailbox: tuple[Path, Path]) -> None:
    spec, cfg = mailbox
    inp = ProofInput(spec, cfg, "IndInv", "Safety", None, Bounds(2, 3), 600.0, cases=("Handle",))
    assert [o.label for o in obligations(inp) if o.action == "Handle"] == CASES
    with pytest.raises(ValueError, match="no action Nope"):
        obligations(ProofInput(spec, cfg, "IndInv", "Safety", None, Bounds(2, 3), 600.0, cases=("Nope",)))


def test_the_cases_cover_the_action_exactly(mailbox: tuple[Path, Path]) -> None:
    spec, cfg = mailbox
    assert uncovered(spec, cfg, Bounds(2, 3)) == {"Handle": ""}


def test_case_by_case_verdicts_are_the_whole_actions(mailbox: tuple[Path, Path]) -> None:
    spec, cfg = mailbox
    verdicts = {}
    for inv in ("IndInv", "Node3Zero"):
        for cases in ((), ("Handle",)):
            inp = ProofInput(spec, cfg, inv, "Safety", None, Bounds(2, 3), 600.0, cases=cases)
            results = prove_all(inp, jobs=2)
            verdicts[inv, cases] = [(r.obligation.action, r.verdict) for r in per_action(results)]
            if inv == "Node3Zero" and cases:
                refuted = [r for r in results if r.verdict == "counterexample"]
                # the counterexample lies in one case: the "set" message to node 3 (re-checked
                # by the explicit engine, as every counterexample)
                assert [r.obligation.label for r in refuted] == ["m.dest = 3 \\/1 \\/1"]
                assert refuted[0].engine_action == "Handle" and refuted[0].failing == ["Node3Zero/2"]
    assert verdicts["IndInv", ()] == verdicts["IndInv", ("Handle",)] == \
        [(None, "proved"), ("Post", "proved"), ("Handle", "proved"), (None, "proved")]
    assert verdicts["Node3Zero", ()] == verdicts["Node3Zero", ("Handle",)] == \
        [(None, "proved"), ("Post", "proved"), ("Handle", "counterexample"), (None, "proved")]


def test_a_case_by_case_obligation_is_proved_only_when_every_case_is(mailbox: tuple[Path, Path]) -> None:
    spec, cfg = mailbox
    inp = ProofInput(spec, cfg, "Node3Zero", "Safety", None, Bounds(2, 3), 600.0, cases=("Handle",))
    results = [discharge(inp, o) for o in obligations(inp) if o.action == "Handle"]
    assert sum(r.verdict == "counterexample" for r in results) == 1
    combined = per_action(results)
    assert len(combined) == 1 and combined[0].verdict == "counterexample"
    assert combined[0].obligation.case == -1 and combined[0].states == results[8].states
    assert combined[0].rlimit_used == sum(r.rlimit_used for r in results)
    for label, units in combined[0].conjunct_units.items():  # every case's questions about it
        assert units == sum(r.conjunct_units.get(label, 0) for r in results) > 0
    assert set(combined[0].conjunct_units) == {label for r in results for label in r.conjunct_units}


def test_the_cases_of_a_kraft_handler_cover_it_exactly() -> None:
    found = uncovered(SPEC / "MC_KRaft.tla", SPEC / "MC_KRaft_indinv.cfg", Bounds(2, 3, {"messages": 2}),
                      {"HandleVoteResponse", "HandleBeginQuorumEpochRequest"})
    assert found == {"HandleVoteResponse": "", "HandleBeginQuorumEpochRequest": ""}


@pytest.mark.slow
def test_the_cases_of_every_kraft_action_cover_it_exactly() -> None:
    found = uncovered(SPEC / "MC_KRaft.tla", SPEC / "MC_KRaft_indinv.cfg", Bounds(2, 3, {"messages": 4}))
    assert found and set(found.values()) == {""}, found
