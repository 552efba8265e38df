"""benchmarks/prove_costs.py: a journal's units summed per conjunct and per action, those of
attempts decided again apart (figures derived by hand from the results written)."""

from __future__ import annotations

from pathlib import Path

import pytest

from conformance.symbolic.journal import Journal
from conformance.symbolic.prove import Obligation, ObligationResult, ProofInput
from conformance.symbolic.shapes import Bounds
from tests.benchmarks.load import load_benchmark
from tests.symbolic.test_prove import QUEUE


def test_units_are_summed_per_conjunct_and_action(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    spec, cfg = tmp_path / "Queue.tla", tmp_path / "Queue.cfg"
    spec.write_text(QUEUE)
    cfg.write_text("CONSTANT Max = 3\nSPECIFICATION Spec\nINVARIANT Safety\n")
    journal = Journal(tmp_path / "j.jsonl", ProofInput(spec, cfg, "IndInv", "Safety", None, Bounds(3, 3), 60.0))
    recv, send = Obligation("step", "Recv", 2), Obligation("step", "Send", 1)
    for r in (ObligationResult(recv, "unknown", 1.0, rlimit_used=100, conjunct_units={"A": 60, "B": 30}),
              ObligationResult(Obligation("step", "Recv", 2, conjunct="B"), "proved", 1.0, rlimit_used=50,
                               conjunct_units={"B": 50}),
              ObligationResult(send, "proved", 1.0, rlimit_used=20, conjunct_units={"A": 5, "C": 15}),
              ObligationResult(Obligation("step", "Send", 1, conjunct="C"), "unknown", 1.0, rlimit_used=3,
                               conjunct_units={"C": 3}),  # final: not decided again
              ObligationResult(Obligation("init"), "proved", 1.0, rlimit_used=7)):
        journal.record(r)
    with journal.path.open("a") as f:
        f.write("{not json\n")  # a run killed while writing
    bench = load_benchmark("prove_costs.py", "prove_costs_bench")
    overall, per_action, total, redone = bench.costs([r for _, r in bench.entries(journal.path)])
    assert overall == {"A": 65, "B": 80, "C": 18}
    assert per_action == {"Recv": {"A": 60, "B": 80}, "Send": {"A": 5, "C": 18}}
    assert total == {"Recv": 150, "Send": 23, "init": 7} and redone == {"Recv": 100}
    monkeypatch.setattr("sys.argv", ["prove_costs.py", str(journal.path), "--top", "1"])
    bench.main()
    captured = capsys.readouterr()
    assert "j.jsonl:6: not a journal entry" in captured.err
    assert "5 obligations and pieces" in captured.out
    lines = captured.out.splitlines()
    assert lines[2].split()[0] == "B"  # the costliest conjunct overall
    assert [line.split()[0] for line in lines[4:]] == ["Recv", "Send", "init"]
