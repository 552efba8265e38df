"""``kraftcheck prove --split`` (``conformance/symbolic/refine.py``): a step obligation
unknown within its resource limit is decided again case by case, and a case still unknown
per open conjunct of the invariant; the action's verdict is its final pieces' worst, its
figures the sum of every attempt.

The toy handler of ``test_cases.py`` at 11,000 z3 resource units: ``Handle`` as a whole
needs about 14,600, so it is unknown; its cases fit, but three, which leave a conjunct
open in their first round (and with ``--split`` have no second one, refine.py): their
conjunct pieces fit. ``Post`` does not split and stays unknown per conjunct. At
15,000 units, ``Handle`` is unknown as a whole for ``Node3Zero`` (it needs about 20,700 to
refute it) and one of its cases finds the counterexample.
These budgets are those of the disjunction over a set's slots (``--no-witness``): what is
tested is how pieces are made and summed, on figures that stay put.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from dataclasses import replace
from pathlib import Path

import pytest

from conformance.cli import main
from conformance.symbolic import prove as prove_module
from conformance.symbolic.prove import (
    Obligation,
    ObligationResult,
    ProofInput,
    combined,
    discharge,
    forked,
    obligations,
    per_action,
)
from conformance.symbolic.prove import prove as prove_all
from conformance.symbolic.refine import Refiner
from conformance.symbolic.shapes import Bounds

ROOT = Path(__file__).resolve().parents[2]
RLIMIT = 11_000
CASE_FINDS = 15_000  # Node3Zero: the counterexample's case finds it
SMALLER = 8_000  # the counterexample's case too is unknown as a whole: its conjunct piece finds it


def proof_input(mailbox: tuple[Path, Path], inv: str, rlimit: int) -> ProofInput:
    spec, cfg = mailbox
    return ProofInput(spec, cfg, inv, "Safety", None, Bounds(2, 3), 600.0, rlimit=rlimit, witness=False)


def prove_cli(mailbox: tuple[Path, Path], tmp_path: Path, inv: str, rlimit: int, *extra: str) -> int:
    spec, cfg = mailbox
    return main(["prove", str(spec), "--config", str(cfg), "--inv", inv, "--safety", "Safety",
                 "--seq-bound", "2", "--set-bound", "3", "--rlimit", str(rlimit),
                 "--itf-dir", str(tmp_path / "itf"), "--no-witness", *extra])


def prove_fresh(mailbox: tuple[Path, Path], tmp_path: Path, inv: str, rlimit: int,
                *extra: str) -> subprocess.CompletedProcess[str]:
    """``kraftcheck prove`` in a new interpreter: the units a question spends depend on the
    terms z3's context already holds (the obligations are forked from this process), so
    figures near a resource limit are only reproducible from a fresh one. The limits here were
    found with z3's own arithmetic solver, so it is named (the command's default is another)."""
    spec, cfg = mailbox
    return subprocess.run(
        [sys.executable, "-m", "conformance", "prove", str(spec), "--config", str(cfg), "--inv", inv,
         "--safety", "Safety", "--seq-bound", "2", "--set-bound", "3", "--rlimit", str(rlimit),
         "--itf-dir", str(tmp_path / "itf"), "--no-witness", "--z3", "smt.arith.solver=6", *extra],
        capture_output=True, text=True, cwd=ROOT, env={**os.environ, "PYTHONPATH": str(ROOT)}, check=False)


def pieces(err: str, action: str) -> list[tuple[str, str, int]]:
    """The progress lines of ``action``'s obligation and pieces: title, verdict, units."""
    found = re.findall(rf"  \.\.\. (\S+ /\\ {action}\b.*?): (\w+) \(.*?rlimit (\d+)\)", err)
    return [(title, verdict, int(units)) for title, verdict, units in found]


def combined_line(out: str, title: str) -> tuple[str, int]:
    """The verdict and units of an action's line in the table."""
    m = re.search(rf"  {re.escape(title)} +(\w+) +[0-9.]+s \(cpu [0-9.]+s, rlimit (\d+)\)", out)
    assert m is not None, out
    return m.group(1), int(m.group(2))


def test_unknown_as_a_whole_is_proved_by_case_then_by_conjunct(mailbox: tuple[Path, Path], tmp_path: Path) -> None:
    plain = prove_fresh(mailbox, tmp_path, "IndInv", RLIMIT)
    assert combined_line(plain.stdout, "IndInv /\\ Handle => IndInv'")[0] == "unknown"  # the premise
    assert "decided:" not in plain.stdout  # without --split, the output of before
    run = prove_fresh(mailbox, tmp_path, "IndInv", RLIMIT, "--split")
    found = pieces(run.stderr, "Handle")
    whole, cases, by_conjunct = found[0], [f for f in found if "[" in f[0] and f[0].endswith("IndInv'")], \
        [f for f in found if not f[0].endswith("IndInv'")]
    assert whole[:2] == ("IndInv /\\ Handle => IndInv'", "unknown") and len(cases) == 12
    assert [c[1] for c in cases].count("unknown") == 3 and len(by_conjunct) == 3
    assert {f[1] for f in by_conjunct} == {"proved"}
    assert sorted(f[0].rsplit(" => ", 1)[1] for f in by_conjunct) == ["IndInv/1'"] * 3
    verdict, units = combined_line(run.stdout, "IndInv /\\ Handle => IndInv'")
    assert verdict == "proved" and units == sum(f[2] for f in found)  # the failed attempts included
    unknown_cases = [c for c in cases if c[1] == "unknown"]
    assert "      decided: whole (unknown) -> 12 cases (3 unknown) -> 3 conjunct pieces; the figures " \
           "include the attempts decided again (cpu " in run.stdout
    assert f"rlimit {whole[2] + sum(c[2] for c in unknown_cases)})" in run.stdout


@pytest.mark.parametrize("inv", ["IndInv", "Node3Zero"])
def test_an_attempt_that_pieces_follow_leaves_its_open_questions_to_them(
        mailbox: tuple[Path, Path], inv: str) -> None:
    """With ``refined`` (``--split``), an attempt asks each question once, at its first
    round's cap: what it leaves open is unknown, left to its pieces, where the attempt
    without it shares the rest of its budget among them first; a conjunct piece, the last,
    still does; without a refiner to decide what it leaves, such an input is refused; and the
    proof's verdicts are those of the attempts with a second round."""
    second = proof_input(mailbox, inv, RLIMIT)
    first = replace(second, refined=True)
    handle = next(o for o in forked(obligations, first, False) if o.action == "Handle")
    once, twice = forked(discharge, first, handle), forked(discharge, second, handle)
    left = [label for label, v in once.conjuncts.items() if v == "unknown"]
    assert once.verdict == "unknown" and left and f"{left[0]}: {prove_module.LEFT_TO_PIECES}" in once.message
    assert prove_module.LEFT_TO_PIECES not in twice.message and once.rlimit_used <= twice.rlimit_used
    # what a second round decides, the first decides the same or leaves to the pieces
    assert all(once.conjuncts[k] in (v, "unknown") for k, v in twice.conjuncts.items() if v != "unknown")
    piece = replace(handle, conjunct=left[0])
    alone, as_before = forked(discharge, first, piece), forked(discharge, second, piece)
    assert (alone.verdict, alone.rlimit_used, alone.message) == (as_before.verdict, as_before.rlimit_used,
                                                                  as_before.message)
    with pytest.raises(ValueError, match="needs refine"):  # no pieces would decide what it leaves
        prove_all(first, jobs=1)
    for rlimit in (RLIMIT, SMALLER):
        without = proof_input(mailbox, inv, rlimit)
        with_ = replace(without, refined=True)
        verdicts = [(r.obligation.action, r.verdict) for r in per_action(prove_all(
            with_, jobs=1, refine=Refiner(with_)))]
        assert verdicts == [(r.obligation.action, r.verdict) for r in per_action(prove_all(
            without, jobs=1, refine=Refiner(without)))]


def test_the_cases_ask_what_the_whole_left_open_and_spend_the_same_whatever_the_jobs(
        mailbox: tuple[Path, Path]) -> None:
    inp = proof_input(mailbox, "IndInv", RLIMIT)
    one = prove_all(inp, jobs=1, only=["Handle"], refine=Refiner(inp))
    two = prove_all(inp, jobs=2, only=["Handle"], refine=Refiner(inp))
    assert [(r.obligation, r.verdict, r.rlimit_used) for r in one] == \
        [(r.obligation, r.verdict, r.rlimit_used) for r in two]
    if one[0].split_into:  # unknown as a whole (from a fresh process, it is: above)
        open_ = tuple(k for k, v in one[0].conjuncts.items() if v == "unknown")
        assert all(r.obligation.goals == open_ for r in one if r.obligation.case >= 0 and not r.obligation.conjunct)
    (action,) = per_action(one)
    assert action.rlimit_used == sum(r.rlimit_used for r in one)
    assert action.cpu_seconds == pytest.approx(sum(r.cpu_seconds for r in one))


@pytest.mark.parametrize(("rlimit", "itf", "how"), [
    (CASE_FINDS, "cti_step_Handle_case9.itf.json", "whole (unknown) -> 12 cases"),
    (SMALLER, "cti_step_Handle_case9_Node3Zero_2.itf.json", "whole (unknown) -> 12 cases (6 unknown) -> 11 conjunct pieces"),
])
def test_a_counterexample_in_a_case_or_a_conjunct_piece_is_reported(
        mailbox: tuple[Path, Path], tmp_path: Path, rlimit: int, itf: str, how: str) -> None:
    run = prove_fresh(mailbox, tmp_path, "Node3Zero", rlimit, "--split")
    out = run.stdout
    assert run.returncode == 12, out + run.stderr
    assert combined_line(out, "Node3Zero /\\ Handle => Node3Zero'")[0] == "counterexample"
    assert f"      decided: {how}" in out
    assert "Counterexample to induction: action Handle leads from a state satisfying Node3Zero " \
           "to one violating Node3Zero/2." in out
    assert "State 2 (after Handle; violates Node3Zero/2):" in out
    assert (tmp_path / "itf" / itf).is_file()


def test_pieces_that_stay_unknown_leave_the_proof_unknown(mailbox: tuple[Path, Path], tmp_path: Path) -> None:
    run = prove_fresh(mailbox, tmp_path, "IndInv", RLIMIT, "--split")
    assert run.returncode == 3, run.stdout
    # Post does not split: per conjunct, one stays over the limit; Handle is proved
    assert combined_line(run.stdout, "IndInv /\\ Post => IndInv'")[0] == "unknown"
    assert "      decided: whole (unknown) -> 1 conjunct piece; the figures include" in run.stdout
    assert "      unknown: [MsgsOK] MsgsOK: resource limit" in run.stdout
    assert combined_line(run.stdout, "IndInv /\\ Handle => IndInv'")[0] == "proved"
    assert "IndInv /\\ Post => MsgsOK': unknown" in run.stderr  # the piece, as it completes
    assert not (tmp_path / "itf").exists()


def test_goals_on_the_command_line_ask_only_those_conjuncts(
        mailbox: tuple[Path, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert prove_cli(mailbox, tmp_path, "Node3Zero", 0, "--goals", "MsgsOK") == 0
    assert "Partial: each step obligation asks only MsgsOK of Node3Zero'." in capsys.readouterr().out
    assert prove_cli(mailbox, tmp_path, "Node3Zero", 0, "--goals", "Nope") == 1


def result(verdict: str, case: int = -1, conjunct: str = "", split_into: int = 0, units: int = 10,
           conjuncts: dict[str, str] | None = None) -> ObligationResult:
    ob = Obligation("step", "A", 1, case, f"c{case}" if case >= 0 else "", conjunct=conjunct)
    return ObligationResult(ob, verdict, 1.0, [[("x", 1)]] if verdict == "counterexample" else [],
                            message="over" if verdict == "unknown" else "", cpu_seconds=0.5,
                            conjuncts=conjuncts or {}, rlimit_used=units, split_into=split_into)


def test_the_combined_verdict_is_the_worst_final_piece() -> None:
    whole = result("unknown", split_into=2, units=100, conjuncts={"P": "proved", "Q": "unknown", "R": "unknown"})
    case0 = result("proved", 0, conjuncts={"Q": "proved", "R": "unchanged"})
    case1 = result("unknown", 1, split_into=2, conjuncts={"Q": "unknown", "R": "unknown"})
    q, r = result("proved", 1, "Q", conjuncts={"Q": "proved"}), result("unknown", 1, "R", conjuncts={"R": "unknown"})
    unknown = combined([whole, case0, case1, q, r])
    assert unknown.verdict == "unknown" and unknown.message == "[c1 R] over"
    assert unknown.conjuncts == {"P": "proved", "Q": "proved", "R": "unknown"}
    assert unknown.rlimit_used == 140 and unknown.redone_units == 110 and unknown.redone_cpu == 1.0
    assert unknown.cpu_seconds == 2.5 and unknown.seconds == 5.0
    assert unknown.how == "whole (unknown) -> 2 cases (1 unknown) -> 2 conjunct pieces"
    proved = combined([whole, case0, case1, q, result("proved", 1, "R", conjuncts={"R": "proved"})])
    assert proved.verdict == "proved" and not proved.message
    refuted = combined([whole, case0, case1, q, result("counterexample", 1, "R")])
    assert refuted.verdict == "counterexample" and refuted.states == [[("x", 1)]]


def test_an_action_decided_whole_is_left_as_it_is() -> None:
    alone = result("proved", conjuncts={"P": "proved"})
    assert combined([alone]) is alone and alone.how == ""


def test_only_an_unknown_step_result_is_decided_again(mailbox: tuple[Path, Path]) -> None:
    refine = Refiner(proof_input(mailbox, "Node3Zero", RLIMIT))
    open_ = {"P": "proved", "Q": "unknown", "R": "unknown"}
    handle, post = Obligation("step", "Handle", 1), Obligation("step", "Post", 0)
    cases = refine(ObligationResult(handle, "unknown", 1.0, conjuncts=open_))
    assert len(cases) == 12 and {(c.action, c.goals, c.conjunct) for c in cases} == {("Handle", ("Q", "R"), "")}
    assert [p.conjunct for p in refine(ObligationResult(post, "unknown", 1.0, conjuncts=open_))] == ["Q", "R"]
    case = refine(ObligationResult(cases[3], "unknown", 1.0, conjuncts={"Q": "proved", "R": "unknown"},
                                   kept=("a", "b"), changed=("c",)))
    assert [(p.case, p.label, p.conjunct, p.goals) for p in case] == [(3, cases[3].label, "R", ())]
    # a conjunct piece has its attempt's step, so it takes what the attempt found of the
    # frame; a case is another step than the whole action's: it asks again
    assert [(p.kept, p.changed) for p in case] == [(("a", "b"), ("c",))]
    whole = refine(ObligationResult(handle, "unknown", 1.0, conjuncts=open_, kept=("a",), changed=("c",)))
    assert {(c.kept, c.changed) for c in whole} == {(None, ())}
    asking = Refiner(replace(proof_input(mailbox, "Node3Zero", RLIMIT), pieces_take_frame=False))  # the baseline
    assert [(p.conjunct, p.kept, p.changed) for p in asking(ObligationResult(
        cases[3], "unknown", 1.0, conjuncts={"R": "unknown"}, kept=("a",), changed=("c",)))] == [("R", None, ())]
    # final: a conjunct piece, a verdict other than unknown (a counterexample found after an
    # unknown conjunct stands), an obligation that is not a step
    assert refine(ObligationResult(case[0], "unknown", 1.0, conjuncts={"R": "unknown"})) == []
    assert refine(ObligationResult(handle, "counterexample", 1.0, conjuncts={"Q": "unknown", "R": "counterexample"})) == []
    assert refine(ObligationResult(Obligation("init"), "unknown", 1.0)) == []


def _no_frame_question(*args: object, **kwargs: object) -> list[str]:
    raise AssertionError("a piece that has its attempt's frame asked about it again")


@pytest.mark.parametrize("inv", ["IndInv", "Node3Zero"])
def test_a_conjunct_piece_takes_its_attempts_frame_and_decides_as_if_it_asked(
        mailbox: tuple[Path, Path], inv: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """Every case of ``Handle``, then each of its conjuncts as a piece (no resource limit:
    every verdict definite), once with what the case found of its frame (the variables its
    step keeps, those a model changes) and once asking again: the same verdicts, and the
    counterexample of ``Node3Zero`` (a "set" message to node 3, conjunct 2) is found both ways."""
    inp = replace(proof_input(mailbox, inv, 0), witness=True)
    refine = Refiner(inp)
    handle = [o for o in forked(obligations, inp, True) if o.action == "Handle" and o.case >= 0]
    refuted = []
    for case in handle:
        attempt = forked(discharge, inp, case)
        assert attempt.kept is not None and "msgs" in attempt.kept  # Handle: UNCHANGED msgs
        reopened = replace(attempt, verdict="unknown", conjuncts=dict.fromkeys(attempt.conjuncts, "unknown"))
        pieces = refine(reopened)
        assert pieces and all(p.kept == attempt.kept and p.changed == attempt.changed for p in pieces)
        for piece in pieces:
            asked = forked(discharge, inp, replace(piece, kept=None, changed=()))
            with monkeypatch.context() as m:
                m.setattr(prove_module, "_kept_by_action", _no_frame_question)
                taken = forked(discharge, inp, piece)
            assert taken.verdict == asked.verdict, (case.label, piece.conjunct)
            if taken.verdict == "counterexample":
                refuted.append((case.label, piece.conjunct, taken.failing, asked.failing))
        assert attempt.verdict in ("proved", "counterexample")
    expected = [("m.dest = 3 \\/1 \\/1", "Node3Zero/2", ["Node3Zero/2"], ["Node3Zero/2"])]
    assert refuted == ([] if inv == "IndInv" else expected)
