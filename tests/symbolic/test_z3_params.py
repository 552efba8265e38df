"""z3 parameters of a proof (``kraftcheck prove --z3 KEY=VALUE``, ``budget.z3_param``):
parsed and checked with z3 itself, set for an obligation and restored after it (the units then
differ from the defaults' and equal those of a solver set by hand), keyed by a journal, and
refused with a clear usage error when z3 does not take them."""

from __future__ import annotations

from pathlib import Path

import pytest
import z3

from conformance.cli import main
from conformance.symbolic.budget import (
    PROVE_DEFAULTS,
    Budget,
    rlimit_count,
    with_defaults,
    z3_param,
    z3_params_set,
)
from conformance.symbolic.journal import input_digest
from conformance.symbolic.prove import ProofInput
from conformance.symbolic.shapes import Bounds
from tests.symbolic.test_prove import QUEUE


def test_values_are_typed_and_checked() -> None:
    assert z3_param("smt.arith.solver=2") == ("smt.arith.solver", 2)
    assert z3_param("smt.relevancy=0") == ("smt.relevancy", 0)
    assert z3_param("smt.mbqi=false") == ("smt.mbqi", False)
    for bad, why in [("smt.arith.solver", "expected KEY=VALUE"), ("smt.arith.solver=", "expected KEY=VALUE"),
                     ("smt.no_such_parameter=1", "z3 does not take it"),
                     ("smt.arith.solver=fast", "z3 does not take it")]:
        with pytest.raises(ValueError, match=why):
            z3_param(bad)


def _lia(solver: z3.Solver) -> None:
    """A small integer problem whose search depends on the arithmetic solver."""
    xs = [z3.Int(f"x{i}", solver.ctx) for i in range(12)]
    for x in xs:
        solver.add(x >= 0, x <= 20)
    solver.add(z3.Sum([(i % 5 + 1) * x for i, x in enumerate(xs)]) == 137)
    solver.add(z3.Or([xs[i] * 3 - xs[(i + 1) % 12] * 2 == 7 for i in range(12)]))
    solver.add(z3.Sum(xs[:6]) - z3.Sum(xs[6:]) == 5)


def test_the_parameters_hold_within_the_block_and_are_restored_after_it() -> None:
    def units(params: tuple[tuple[str, int], ...], by_hand: bool = False) -> int:
        with z3_params_set(() if by_hand else params):
            solver = z3.Solver(ctx=z3.Context())  # a context of its own: the search depends on the terms it holds
            if by_hand:
                for key, value in params:
                    solver.set(key, value)
            _lia(solver)
            answer, _ = Budget(60.0).check(solver, 60.0)
        assert answer == z3.sat
        return rlimit_count(solver)

    other = (("smt.arith.solver", 2),)
    before = z3.get_param("smt.arith.solver")
    assert units(other) == units(other, by_hand=True)
    assert units(other) != units(())  # the parameter changed the search
    assert z3.get_param("smt.arith.solver") == before


def test_a_journal_keys_the_parameters(tmp_path: Path) -> None:
    spec = tmp_path / "Queue.tla"
    spec.write_text(QUEUE)
    cfg = tmp_path / "Queue.cfg"
    cfg.write_text("CONSTANT Max = 3\nSPECIFICATION Spec\nINVARIANT Safety\n")
    plain = ProofInput(spec, cfg, "IndInv", "Safety", None, Bounds(2, 3), 60.0)
    tuned = ProofInput(spec, cfg, "IndInv", "Safety", None, Bounds(2, 3), 60.0, z3_params=(("smt.arith.solver", 2),))
    assert input_digest(plain) != input_digest(tuned)


def test_the_cli_refuses_a_parameter_z3_does_not_take(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    spec = tmp_path / "Queue.tla"
    spec.write_text(QUEUE)
    cfg = tmp_path / "Queue.cfg"
    cfg.write_text("CONSTANT Max = 3\nSPECIFICATION Spec\nINVARIANT Safety\n")
    code = main(["prove", str(spec), "--config", str(cfg), "--inv", "IndInv", "--safety", "Safety",
                 "--z3", "smt.no_such_parameter=1"])
    assert code == 2
    assert "--z3 'smt.no_such_parameter=1': z3 does not take it" in capsys.readouterr().err
    code = main(["prove", str(spec), "--config", str(cfg), "--inv", "IndInv", "--safety", "Safety",
                 "--jobs", "1", "--z3", "smt.arith.solver=2", "--itf-dir", str(tmp_path)])
    assert code == 0 and "proved" in capsys.readouterr().out


def test_defaults_give_way_to_the_parameters_named() -> None:
    assert with_defaults([]) == PROVE_DEFAULTS == (("smt.arith.solver", 2),)
    assert with_defaults([("smt.arith.solver", 6)]) == (("smt.arith.solver", 6),)
    assert with_defaults([("smt.relevancy", 0)]) == (("smt.arith.solver", 2), ("smt.relevancy", 0))


def test_the_cli_proves_with_the_default_parameters_unless_told(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A run without --z3 is the run with the defaults named: the second takes every result
    from the first one's journal; z3's own defaults are other inputs, decided again."""
    spec = tmp_path / "Queue.tla"
    spec.write_text(QUEUE)
    cfg = tmp_path / "Queue.cfg"
    cfg.write_text("CONSTANT Max = 3\nSPECIFICATION Spec\nINVARIANT Safety\n")
    journal = tmp_path / "queue.journal"
    base = ["prove", str(spec), "--config", str(cfg), "--inv", "IndInv", "--safety", "Safety", "--jobs", "1",
            "--journal", str(journal), "--itf-dir", str(tmp_path)]
    assert main(base) == 0
    first = capsys.readouterr().out
    assert "z3 parameters: smt.arith.solver=2" in first and "taken from the journal" not in first
    assert main([*base, "--z3", "smt.arith.solver=2"]) == 0
    assert "obligations (or pieces) taken from the journal" in capsys.readouterr().out
    assert main([*base, "--z3", "smt.arith.solver=6"]) == 0
    own = capsys.readouterr().out
    assert "z3 parameters: smt.arith.solver=6" in own and "taken from the journal" not in own
