"""``kraftcheck prove --split --plan JOURNAL`` (``conformance/symbolic/schedule.py``): an action an
earlier run decided in pieces starts from those pieces; every conjunct is still asked of the
whole action or of each of its cases, and the verdicts are those of a run without a plan."""

from __future__ import annotations

from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from conformance.symbolic.prove import Obligation, ObligationResult
from conformance.symbolic.schedule import Plan, plan_of, planned
from tests.symbolic.test_split import RLIMIT, combined_line, pieces, prove_fresh

LABELS = ["A", "B/1", "B/2", "C", "D", "E"]


def asks(ob: Obligation, label: str) -> bool:
    return label in ob.asked(()) if (ob.goals or ob.conjunct) else True


@settings(max_examples=300, deadline=None)
@given(whole=st.sets(st.sampled_from(LABELS)), seen=st.sets(st.sampled_from(LABELS)),
       opens=st.lists(st.sets(st.sampled_from(LABELS)), max_size=4))
def test_every_conjunct_is_asked_of_the_whole_action_or_of_each_case(
        whole: set[str], seen: set[str], opens: list[set[str]]) -> None:
    cases = [Obligation("step", "H", 1, k, f"c{k}") for k in range(len(opens))]
    plan = Plan({"H": frozenset(whole)}, {("H", f"c{k}"): frozenset(o) for k, o in enumerate(opens)},
                {"H": frozenset(seen | whole)})
    other = Obligation("step", "P", 0)
    obs = planned([Obligation("init"), other, Obligation("step", "H", 1), Obligation("safety")], plan, LABELS,
                  lambda index: cases if index == 1 else [])
    assert obs[:2] == [Obligation("init"), other] and obs[-1] == Obligation("safety")  # others as they were
    mine = obs[2:-1]
    for label in LABELS:
        of_whole = any(o.case < 0 and asks(o, label) for o in mine)
        of_each_case = bool(cases) and all(any(o.case == k and asks(o, label) for o in mine)
                                           for k in range(len(cases)))
        assert of_whole or of_each_case, (label, mine)
    for o in mine:  # no piece asks every conjunct by an empty goal list, but the action as it was
        assert o.goals or o.conjunct or mine == [Obligation("step", "H", 1)], mine
    for k, o in enumerate(opens):  # what a case left open goes to its conjunct pieces at once
        for label in o - whole - {x for x in LABELS if x not in seen | whole}:
            assert Obligation("step", "H", 1, k, f"c{k}", conjunct=label) in mine


def result(verdict: str, case: int = -1, conjunct: str = "", **conjuncts: str) -> ObligationResult:
    ob = Obligation("step", "H", 1, case, f"c{case}" if case >= 0 else "", conjunct=conjunct)
    return ObligationResult(ob, verdict, 1.0, conjuncts={k.replace("_", "/"): v for k, v in conjuncts.items()})


def test_the_plan_is_what_the_earlier_run_decided_where() -> None:
    earlier = [
        ObligationResult(Obligation("step", "P", 0), "proved", 1.0, conjuncts={"A": "proved"}),  # whole: no plan
        result("unknown", A="proved", B_1="unchanged", C="unknown", D="unknown"),
        result("unknown", 0, C="proved", D="unknown"),
        result("proved", 0, "D", D="proved"),
        result("proved", 1, C="proved", D="proved"),
    ]
    plan = plan_of(earlier)
    assert plan.whole == {"H": frozenset({"A", "B/1"})}
    assert plan.cases == {("H", "c0"): frozenset({"D"}), ("H", "c1"): frozenset()}
    assert plan.seen == {"H": frozenset({"A", "B/1", "C", "D"})}
    # a run made from that plan plans the same again
    cases = [Obligation("step", "H", 1, k, f"c{k}") for k in range(2)]
    obs = planned([Obligation("step", "H", 1)], plan, ["A", "B/1", "C", "D", "E"], lambda i: cases)
    assert obs == [Obligation("step", "H", 1, goals=("A", "B/1", "E")),  # E: new since, asked whole
                   Obligation("step", "H", 1, 0, "c0", goals=("C",)),
                   Obligation("step", "H", 1, 0, "c0", conjunct="D"),
                   Obligation("step", "H", 1, 1, "c1", goals=("C", "D"))]
    again = plan_of([ObligationResult(o, "proved", 1.0, conjuncts={k: "proved" for k in o.asked(())})
                     for o in obs])
    assert again.whole == {"H": frozenset({"A", "B/1", "E"})}
    assert again.cases == {("H", "c0"): frozenset({"D"}), ("H", "c1"): frozenset()}


def test_a_planned_run_gives_the_verdicts_of_the_plain_one_for_fewer_units(mailbox: tuple[Path, Path],
                                                                            tmp_path: Path) -> None:
    journal = tmp_path / "first.jsonl"
    first = prove_fresh(mailbox, tmp_path, "IndInv", RLIMIT, "--split", "--journal", str(journal))
    again = prove_fresh(mailbox, tmp_path, "IndInv", RLIMIT, "--split", "--plan", str(journal))
    assert first.returncode == again.returncode == 3, again.stdout + again.stderr  # Post stays unknown
    assert "Started from the plan of" in again.stdout and "2 action(s)" in again.stdout
    title = "IndInv /\\ Handle => IndInv'"
    (verdict, units), (verdict_again, units_again) = combined_line(first.stdout, title), \
        combined_line(again.stdout, title)
    assert verdict == verdict_again == "proved"
    assert units_again < units, (units_again, units)
    planned_handle = pieces(again.stderr, "Handle")
    assert not any(v == "unknown" for _, v, _ in planned_handle), planned_handle  # nothing asked in vain
    # the 3 cases that left their only open conjunct to a piece are that piece only
    assert "decided: whole -> 9 cases -> 3 conjunct pieces\n" in again.stdout, again.stdout
    assert combined_line(again.stdout, "IndInv /\\ Post => IndInv'")[0] == "unknown"


def test_a_plan_needs_split_and_an_existing_journal(mailbox: tuple[Path, Path], tmp_path: Path) -> None:
    assert prove_fresh(mailbox, tmp_path, "IndInv", RLIMIT, "--plan", str(tmp_path / "j")).returncode == 2
    missing = prove_fresh(mailbox, tmp_path, "IndInv", RLIMIT, "--split", "--plan", str(tmp_path / "j"))
    assert missing.returncode == 1 and "no such journal" in missing.stderr
