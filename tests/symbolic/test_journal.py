"""``kraftcheck prove --journal FILE`` (``conformance/symbolic/journal.py``): a second run
with the journal of a first takes its proved and unknown results (and splits the unknown
ones the same way) instead of deciding them again; any change to the inputs, even one the
parser ignores, takes nothing; counterexamples are decided again; an unreadable line is
reported and only its obligation decided again.

The toy handler of ``test_cases.py`` at 15,000 z3 resource units (as ``test_split.py``):
``Handle`` is unknown as a whole and proved case by case, ``Node3Zero`` has a counterexample.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest

from conformance.cli import main
from conformance.symbolic.journal import Journal
from conformance.symbolic.prove import Obligation, ObligationResult, ProofInput, per_action
from conformance.symbolic.prove import prove as prove_all
from conformance.symbolic.refine import Refiner
from conformance.symbolic.shapes import Bounds

RLIMIT = 15_000


def proof_input(mailbox: tuple[Path, Path], inv: str = "IndInv") -> ProofInput:
    spec, cfg = mailbox
    return ProofInput(spec, cfg, inv, "Safety", None, Bounds(2, 3), 600.0, rlimit=RLIMIT)


def run(inp: ProofInput, journal: Path) -> tuple[list[ObligationResult], Journal]:
    store = Journal(journal, inp)
    return prove_all(inp, jobs=1, refine=Refiner(inp), store=store), store


def verdicts(results: list[ObligationResult]) -> list[tuple[str, str]]:
    return [(r.obligation.title("I", "S", "Init"), r.verdict) for r in results]


def test_a_second_run_takes_every_result_and_splits_the_same_way(mailbox: tuple[Path, Path], tmp_path: Path) -> None:
    inp = proof_input(mailbox)
    journal = tmp_path / "proof.journal"
    first, store = run(inp, journal)
    assert store.taken == 0 and not any(r.journaled for r in first)
    assert any(r.split_into for r in first)  # Handle: unknown as a whole, then its cases
    lines = journal.read_text().splitlines()
    assert len(lines) == len(first)  # every result was proved or unknown
    second, store = run(inp, journal)
    assert store.taken == len(second) == len(first)
    assert all(r.journaled for r in second)
    assert verdicts(second) == verdicts(first)
    assert [r.split_into for r in second] == [r.split_into for r in first]
    assert [r.rlimit_used for r in second] == [r.rlimit_used for r in first]
    assert [r.conjuncts for r in second] == [r.conjuncts for r in first]
    assert [r.conjunct_units for r in second] == [r.conjunct_units for r in first]
    assert any(r.conjunct_units for r in first)
    assert journal.read_text().splitlines() == lines  # nothing taken is written again
    assert verdicts(per_action(second)) == verdicts(per_action(first))
    assert all(r.journaled for r in per_action(second))


def test_pieces_of_a_taken_unknown_result_are_taken_too(mailbox: tuple[Path, Path], tmp_path: Path) -> None:
    """The cases of an unknown action ask the conjuncts it left open; a second run, which
    takes that unknown result from the journal, asks the same cases (two open conjuncts
    named out of alphabetical order: the journal once kept a result's conjuncts sorted, and
    its cases were keyed by another order of the same goals, so none was taken)."""
    spec, _ = mailbox
    text = spec.read_text()
    spec.write_text(text.replace(
        "IndInv == val \\in [Nodes -> 0..Max] /\\ MsgsOK",
        "ZetaRange == val \\in [Nodes -> 0..Max]\n"
        "AlphaLow == \\A i \\in Nodes : val[i] >= 0 /\\ val[i] <= Max\n"
        "IndInv == ZetaRange /\\ AlphaLow /\\ MsgsOK"))
    assert spec.read_text() != text
    inp = proof_input(mailbox)
    journal = tmp_path / "proof.journal"
    first, _ = run(inp, journal)
    goals = {r.obligation.goals for r in first if r.obligation.case >= 0}
    # the premise of the test: a case asks two or more open conjuncts, not in alphabetical
    # order (which of them the whole attempt left open depends on the units it spent)
    assert any(len(g) > 1 and list(g) != sorted(g) for g in goals), goals
    second, store = run(inp, journal)
    assert store.taken == len(second) == len(first)
    assert [list(r.conjuncts.items()) for r in second] == [list(r.conjuncts.items()) for r in first]
    assert [r.obligation for r in second] == [r.obligation for r in first]
    # and the same goals listed in another order are the same obligation to the journal
    case = next(r.obligation for r in first if r.obligation.case >= 0 and len(r.obligation.goals) > 1)
    assert store.key(case) == store.key(replace(case, goals=tuple(reversed(case.goals))))
    assert store.get(replace(case, goals=tuple(reversed(case.goals)))) is not None


def test_any_change_of_the_inputs_takes_nothing(mailbox: tuple[Path, Path], tmp_path: Path) -> None:
    inp = proof_input(mailbox)
    journal = tmp_path / "proof.journal"
    first, _ = run(inp, journal)
    spec, cfg = mailbox
    spec.write_text(spec.read_text() + "text after the module end, which the parser ignores\n")
    again, store = run(inp, journal)
    assert store.taken == 0 and verdicts(again) == verdicts(first)
    other = ProofInput(spec, cfg, "IndInv", "Safety", None, Bounds(2, 3), 600.0, rlimit=RLIMIT + 1)
    _, store = run(other, journal)
    assert store.taken == 0  # another budget
    cfg.write_text(cfg.read_text() + "\\* a comment\n")
    _, store = run(inp, journal)
    assert store.taken == 0


def test_counterexamples_are_decided_again(mailbox: tuple[Path, Path], tmp_path: Path) -> None:
    inp = proof_input(mailbox, "Node3Zero")
    journal = tmp_path / "proof.journal"
    first, _ = run(inp, journal)
    assert any(r.verdict == "counterexample" for r in first)
    second, _ = run(inp, journal)
    assert verdicts(second) == verdicts(first)
    for r in second:
        assert r.journaled == (r.verdict != "counterexample")
        if r.verdict == "counterexample":
            assert r.states  # re-checked by the explicit engine again


def test_an_unreadable_line_is_reported_and_only_its_obligation_decided_again(
        mailbox: tuple[Path, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    inp = proof_input(mailbox)
    journal = tmp_path / "proof.journal"
    first, _ = run(inp, journal)
    lines = journal.read_text().splitlines()
    lines[1] = lines[1][: len(lines[1]) // 2]  # cut while being written
    journal.write_text("\n".join(lines) + "\n")
    capsys.readouterr()
    second, store = run(inp, journal)
    err = capsys.readouterr().err
    assert f"{journal}:2: not a journal entry" in err
    assert store.taken == len(first) - 1
    assert verdicts(second) == verdicts(first)
    assert len(journal.read_text().splitlines()) == len(lines) + 1  # decided again, written again


def test_the_command_line_marks_what_it_took(mailbox: tuple[Path, Path], tmp_path: Path,
                                            capsys: pytest.CaptureFixture[str]) -> None:
    spec, cfg = mailbox
    journal = tmp_path / "proof.journal"
    args = ["prove", str(spec), "--config", str(cfg), "--inv", "IndInv", "--safety", "Safety",
            "--seq-bound", "2", "--set-bound", "3", "--rlimit", str(RLIMIT), "--split", "--jobs", "1",
            "--journal", str(journal)]
    code = main(args)
    assert code == 3  # Post stays unknown (test_split.py)
    first = capsys.readouterr()
    assert "from the journal" not in first.err and "taken from the journal" not in first.out
    assert main(args) == code
    second = capsys.readouterr()
    assert "obligations (or pieces) taken from the journal" in second.out
    assert "from the journal" in second.err
    table = [line for line in second.out.splitlines() if line.startswith("  IndInv")]
    assert table and all(line.endswith(" journal") for line in table)
    assert main([*args[:-1], str(tmp_path / "no" / "such" / "folder" / "j")]) == 1
    assert "error: journal" in capsys.readouterr().err


def test_a_change_in_a_module_the_spec_extends_takes_nothing(mailbox: tuple[Path, Path], tmp_path: Path) -> None:
    spec, cfg = mailbox
    root = tmp_path / "MailboxMC.tla"
    root.write_text("---- MODULE MailboxMC ----\nEXTENDS Mailbox\n====\n")
    inp = ProofInput(root, cfg, "IndInv", "Safety", None, Bounds(2, 3), 600.0, rlimit=RLIMIT)
    journal = tmp_path / "proof.journal"
    first, _ = run(inp, journal)
    assert run(inp, journal)[1].taken == len(first)
    spec.write_text(spec.read_text() + "text after the module end, which the parser ignores\n")
    assert run(inp, journal)[1].taken == 0


def test_what_a_step_found_of_its_frame_is_kept_for_its_pieces(mailbox: tuple[Path, Path], tmp_path: Path) -> None:
    """An unknown result taken from the journal gives its pieces the variables its step keeps
    and those a model changed (``refine.py``): they are part of the pieces' keys, so they
    come back as they were written (None: never asked)."""
    inp = proof_input(mailbox)
    journal = tmp_path / "proof.journal"
    store = Journal(journal, inp)
    piece = Obligation("step", "Handle", 1, 3, "c3", conjunct="MsgsOK", kept=("msgs",), changed=("val",))
    written = [ObligationResult(piece, "unknown", 1.0, conjuncts={"MsgsOK": "unknown"}, kept=("msgs",),
                                changed=("val",)),
               ObligationResult(Obligation("step", "Post", 0), "proved", 1.0, kept=None)]
    for r in written:
        store.record(r)
    again = Journal(journal, inp)
    for r in written:
        taken = again.get(r.obligation)
        assert taken is not None and taken.obligation == r.obligation
        assert (taken.kept, taken.changed) == (r.kept, r.changed)
    assert again.get(replace(piece, kept=None)) is None  # a piece that asked its frame is another one
