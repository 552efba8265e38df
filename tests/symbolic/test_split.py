"""``kraftcheck prove --split`` (``conformance/symbolic/refine.py``): a step obligation
unknown within its resource limit is decided again case by case, and a case still unknown
per open conjunct of the invariant; the action's verdict is its final pieces' worst, its
figures the sum of every attempt.

The toy handler of ``test_cases.py`` at 15,000 z3 resource units: ``Handle`` as a whole
needs about 17,000, so it is unknown; its cases fit, but one (a ``set`` message to node 3)
which fits only per conjunct. ``Post`` does not split and stays unknown per conjunct.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from conformance.cli import main
from conformance.symbolic.prove import (
    Obligation,
    ObligationResult,
    ProofInput,
    combined,
    per_action,
)
from conformance.symbolic.prove import prove as prove_all
from conformance.symbolic.refine import Refiner
from conformance.symbolic.shapes import Bounds
from tests.symbolic.test_cases import MAILBOX

RLIMIT = 15_000
SMALLER = 8_000  # the counterexample's case too is unknown as a whole: its conjunct piece finds it


@pytest.fixture
def mailbox(tmp_path: Path) -> tuple[Path, Path]:
    spec, cfg = tmp_path / "Mailbox.tla", tmp_path / "Mailbox.cfg"
    spec.write_text(MAILBOX)
    cfg.write_text("CONSTANT Nodes = {1, 2, 3}\nCONSTANT Max = 2\nINIT Init\nNEXT Next\n")
    return spec, cfg


def proof_input(mailbox: tuple[Path, Path], inv: str, rlimit: int) -> ProofInput:
    spec, cfg = mailbox
    return ProofInput(spec, cfg, inv, "Safety", None, Bounds(2, 3), 600.0, rlimit=rlimit)


def split_handle(inp: ProofInput, jobs: int = 2) -> list[ObligationResult]:
    return prove_all(inp, jobs=jobs, only=["Handle"], refine=Refiner(inp))


def prove_cli(mailbox: tuple[Path, Path], tmp_path: Path, inv: str, rlimit: int, *extra: str) -> int:
    spec, cfg = mailbox
    return main(["prove", str(spec), "--config", str(cfg), "--inv", inv, "--safety", "Safety",
                 "--seq-bound", "2", "--set-bound", "3", "--rlimit", str(rlimit),
                 "--itf-dir", str(tmp_path / "itf"), *extra])


def test_unknown_as_a_whole_is_proved_by_case_then_by_conjunct(mailbox: tuple[Path, Path]) -> None:
    inp = proof_input(mailbox, "IndInv", RLIMIT)
    assert [r.verdict for r in prove_all(inp, jobs=2, only=["Handle"])] == ["unknown"]  # the premise
    results = split_handle(inp)
    whole, cases, pieces = results[0], results[1:13], results[13:]
    assert whole.obligation.case == -1 and whole.verdict == "unknown" and whole.split_into == 12
    # the cases ask only what the whole attempt left open; the pieces one conjunct each
    open_ = tuple(k for k, v in whole.conjuncts.items() if v == "unknown")
    assert open_ and all(c.obligation.goals == open_ for c in cases)
    redone = [c for c in cases if c.split_into]
    assert len(redone) == 1 and len(pieces) == redone[0].split_into
    assert all(len(p.conjuncts) == 1 and p.obligation.conjunct in p.conjuncts for p in pieces)
    assert {r.verdict for r in results if not r.split_into} == {"proved"}
    (action,) = per_action(results)
    assert action.verdict == "proved" and action.obligation == Obligation("step", "Handle", 1)
    assert action.how == "whole (unknown) -> 12 cases (1 unknown) -> 2 conjunct pieces"
    assert action.rlimit_used == sum(r.rlimit_used for r in results)  # the failed attempts included
    assert action.redone_units == whole.rlimit_used + redone[0].rlimit_used
    assert action.cpu_seconds == pytest.approx(sum(r.cpu_seconds for r in results))
    assert set(action.conjuncts.values()) <= {"proved", "unchanged"}


def test_the_pieces_spend_the_same_units_whatever_the_jobs(mailbox: tuple[Path, Path]) -> None:
    inp = proof_input(mailbox, "IndInv", RLIMIT)
    one, two = split_handle(inp, jobs=1), split_handle(inp, jobs=2)
    assert [(r.obligation, r.verdict, r.rlimit_used) for r in one] == \
        [(r.obligation, r.verdict, r.rlimit_used) for r in two]


@pytest.mark.parametrize(("rlimit", "itf", "how"), [
    (RLIMIT, "cti_step_Handle_case9.itf.json", "whole (unknown) -> 12 cases"),
    (SMALLER, "cti_step_Handle_case9_Node3Zero_2.itf.json", "whole (unknown) -> 12 cases (6 unknown) -> 12 conjunct pieces"),
])
def test_a_counterexample_in_a_case_or_a_conjunct_piece_is_reported(
        mailbox: tuple[Path, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str],
        rlimit: int, itf: str, how: str) -> None:
    code = prove_cli(mailbox, tmp_path, "Node3Zero", rlimit, "--split")
    out = capsys.readouterr().out
    assert code == 12, out
    assert re.search(r"Node3Zero /\\ Handle => Node3Zero' +counterexample ", out), out
    assert f"      decided: {how}" in out
    assert "Counterexample to induction: action Handle leads from a state satisfying Node3Zero " \
           "to one violating Node3Zero/2." in out
    assert "State 2 (after Handle; violates Node3Zero/2):" in out
    assert (tmp_path / "itf" / itf).is_file()


def test_pieces_that_stay_unknown_leave_the_proof_unknown(mailbox: tuple[Path, Path], tmp_path: Path,
                                                          capsys: pytest.CaptureFixture[str]) -> None:
    code = prove_cli(mailbox, tmp_path, "IndInv", RLIMIT, "--split")
    captured = capsys.readouterr()
    assert code == 3, captured.out
    # Post does not split: per conjunct, one stays over the limit; Handle is proved
    assert re.search(r"IndInv /\\ Post => IndInv' +unknown ", captured.out)
    assert "      decided: whole (unknown) -> 1 conjunct piece; the figures include" in captured.out
    assert "      unknown: [MsgsOK] MsgsOK: resource limit" in captured.out
    assert re.search(r"IndInv /\\ Handle => IndInv' +proved ", captured.out)
    assert "IndInv /\\ Post => MsgsOK': unknown" in captured.err  # the piece, as it completes
    assert not (tmp_path / "itf").exists()


def test_without_split_the_unknown_stays_and_the_output_is_unchanged(
        mailbox: tuple[Path, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert prove_cli(mailbox, tmp_path, "IndInv", RLIMIT) == 3
    out = capsys.readouterr().out
    assert re.search(r"IndInv /\\ Handle => IndInv' +unknown ", out) and "decided:" not in out


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
    case = refine(ObligationResult(cases[3], "unknown", 1.0, conjuncts={"Q": "proved", "R": "unknown"}))
    assert [(p.case, p.label, p.conjunct, p.goals) for p in case] == [(3, cases[3].label, "R", ())]
    # final: a conjunct piece, a verdict other than unknown (a counterexample found after an
    # unknown conjunct stands), an obligation that is not a step
    assert refine(ObligationResult(case[0], "unknown", 1.0, conjuncts={"R": "unknown"})) == []
    assert refine(ObligationResult(handle, "counterexample", 1.0, conjuncts={"Q": "unknown", "R": "counterexample"})) == []
    assert refine(ObligationResult(Obligation("init"), "unknown", 1.0)) == []
