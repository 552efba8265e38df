"""Counterexamples to induction that z3 found in ``IndInv`` (spec/KRaftIndInv.tla), each
asked again as one question: the conjunct of ``IndInv'`` it breaks, for the action that
breaks it, with the whole of ``IndInv`` as premise (``ProofInput.goals``). Without its
lemma (the line dropped from a copy of the spec) z3 finds the counterexample, which the
explicit engine replays and the lemma rules out; with it the question is proved."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from conformance.symbolic.prove import ObligationResult, ProofInput, discharge, obligations
from conformance.symbolic.shapes import Bounds
from conformance.tla.cfg import read_config
from conformance.tla.model import Model

SPEC = Path(__file__).resolve().parents[2] / "spec"
CFG = SPEC / "MC_KRaft_indinv.cfg"
BOUNDS = Bounds(2, 3, {"messages": 4})
RLIMIT = 300_000_000  # z3 resource units: the same verdict on any machine and load


def without(tmp_path: Path, *lemmas: str) -> Path:
    """MC_KRaft.tla in a copy of the spec whose IndInv lacks the conjuncts ``lemmas`` (their
    definitions stay, to evaluate them)."""
    for name in ("KRaft.tla", "KRaftIndInv.tla", "MC_KRaft.tla"):
        shutil.copy(SPEC / name, tmp_path / name)
    path = tmp_path / "KRaftIndInv.tla"
    text = path.read_text()
    for lemma in lemmas:
        line = f"    /\\ {lemma}\n"
        assert text.count(line) == 1, f"{lemma} is not one conjunct of IndInv"
        text = text.replace(line, "")
    path.write_text(text)
    return tmp_path / "MC_KRaft.tla"


def question(spec: Path, action: str, goal: str, case: str = "") -> ObligationResult:
    """``IndInv /\\ action => goal'`` (goal: one conjunct of IndInv), for the whole action or
    for its case labelled ``case`` (cases.py)."""
    inp = ProofInput(spec, CFG, "IndInv", "Safety", None, BOUNDS, 900.0, rlimit=RLIMIT, goals=(goal,),
                     cases=(action,) if case else ())
    step = next(o for o in obligations(inp) if o.kind == "step" and o.action == action and o.label == case)
    return discharge(inp, step)


def test_a_question_about_no_conjunct_of_the_invariant_is_an_error(tmp_path: Path) -> None:
    """A goal naming no conjunct would be proved for asking nothing."""
    with pytest.raises(ValueError, match="no conjunct NoSuchLemma"):
        question(SPEC / "MC_KRaft.tla", "HandleFetchResponse", "NoSuchLemma")


# (lemma, action, conjunct of IndInv' it breaks without the lemma), in the order z3 found them:
# 1. an old FetchResponse of a moved-on leader says its high watermark is 2 while nothing is
#    committed; a second response of that leader brings its follower to the first one's
#    position, and FetchResponsesCommitPrefix asks for committed entries that are not
#    (without the lemma: 13 s, 33 million units; with it proved: 30 s, 89 million);
# 2. then an old divergence of a moved-on leader names epoch 0 for the position of its
#    committed leaderChange record; another response brings the follower there with high
#    watermark 1, where the divergence would empty its log (9 s, 24 million; proved: 59 s,
#    155 million);
# 3. for HandleFetchRequest's valid fetch to leader 1: voter 2 fetched 1's leaderChange
#    record and has moved to an epoch that elected nobody with an empty log; 1 takes the stale
#    request as 2's progress and commits the record on 1 and 2 (18 s, 59 million; proved:
#    62 s, 148 million).
# tests/spec/test_indinv_consecution.py rebuilds the states by hand. ``also``: lemmas added
# later that exclude the state too (FetchResponsePositionsCommitted and
# FetchDivergencesBeforeTheirEpoch, for the default bounds), left out with it: without them
# the question is proved.
CTIS = [
    ("FetchResponseHighWatermarksCommitted", "HandleFetchResponse", "FetchResponsesCommitPrefix", "",
     ("FetchResponsePositionsCommitted",)),
    ("FetchDivergencesAboveCommitted", "HandleFetchResponse", "FetchDivergenceKeepsHighWatermark", "",
     ("FetchDivergencesBeforeTheirEpoch",)),
    ("FetchRequestsHeldAcrossEpochs", "HandleFetchRequest", "CommittedOnMajority", "m.dest = 1 \\/6 THEN", ()),
]


@pytest.mark.slow  # 41 to 43 s each on the loaded 2-core machine (12 to 19 CPU s); the hand-built
# states of tests/spec/test_indinv_consecution.py are the fast variant
@pytest.mark.parametrize("lemma,action,broken,case,also", CTIS)
def test_without_its_lemma_z3_finds_the_counterexample_to_induction(tmp_path: Path, lemma: str, action: str,
                                                                      broken: str, case: str,
                                                                      also: tuple[str, ...]) -> None:
    """Without the lemma (and ``also``) the question has a counterexample, which the explicit
    engine replays as a step of the action, and whose first state the lemma rules out."""
    found = question(without(tmp_path, lemma, *also), action, broken, case)
    assert found.verdict == "counterexample", found.message
    assert found.engine_action == action  # the explicit engine replays the step
    assert broken in {label.split("/")[0] for label in found.failing}
    assert "counterexample" in found.conjuncts.values()
    assert {label.split("/")[0] for label in found.conjuncts} == {broken}  # the one conjunct asked
    config = read_config(CFG)
    model = Model.load(SPEC / "MC_KRaft.tla", constants=config.constants, overrides=config.overrides)
    assert model.eval_state(lemma, found.states[0]) is False


@pytest.mark.slow
@pytest.mark.parametrize("lemma,action,broken,case,also", CTIS)
def test_with_its_lemma_the_question_is_proved(lemma: str, action: str, broken: str, case: str,
                                               also: tuple[str, ...]) -> None:
    """With the lemma in IndInv the question is proved (30 s, 59 s, 62 s)."""
    proved = question(SPEC / "MC_KRaft.tla", action, broken, case)
    assert proved.verdict == "proved", proved.message
    assert proved.conjuncts and set(proved.conjuncts.values()) == {"proved"}
    assert {label.split("/")[0] for label in proved.conjuncts} == {broken}
