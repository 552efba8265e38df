"""``kraftcheck prove``: the three obligations, counterexamples to induction (re-checked
by the explicit engine), exit codes, located errors for constructs outside the fragment."""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from pathlib import Path

import pytest
import z3

from conformance.cli import main
from conformance.symbolic.budget import Budget
from conformance.symbolic.prove import (
    ObligationResult,
    ProofInput,
    _kept_by_action,
    discharge,
    obligations,
)
from conformance.symbolic.prove import prove as prove_all
from conformance.symbolic.shapes import Bounds

ENGINE_SPECS = Path(__file__).resolve().parents[1] / "engine" / "specs"
SPEC = Path(__file__).resolve().parents[2] / "spec"

QUEUE = """---- MODULE Queue ----
EXTENDS Integers, Sequences, FiniteSets
CONSTANT Max
VARIABLES
  \\* @type: Seq(Int);
  q,
  \\* @type: Int;
  sent,
  \\* @type: Set(Int);
  got
Init == q = <<>> /\\ sent = 0 /\\ got = {}
Send == sent < Max /\\ q' = Append(q, sent + 1) /\\ sent' = sent + 1 /\\ UNCHANGED got
Recv == q /= <<>> /\\ got' = got \\cup {Head(q)} /\\ q' = Tail(q) /\\ UNCHANGED sent
Next == Send \\/ Recv
Spec == Init /\\ [][Next]_<<q, sent, got>>
\\* Safety: everything received was sent
Safety == \\A x \\in got : x >= 1 /\\ x <= sent
\\* Inductive: it also speaks of the messages in flight and their order
QueueOK == \\A k \\in DOMAIN q : q[k] >= 1 /\\ q[k] <= sent /\\ (k > 1 => q[k - 1] < q[k])
Typed == sent \\in 0..Max /\\ Len(q) <= Max
IndInv == Typed /\\ Safety /\\ QueueOK
\\* Not inductive: forgets the order (a Recv may then deliver an unsent value? no: but
\\* it forgets the bound on the messages in flight)
Weak == Typed /\\ Safety
====
"""


@pytest.fixture
def queue(tmp_path: Path) -> tuple[Path, Path]:
    spec = tmp_path / "Queue.tla"
    spec.write_text(QUEUE)
    cfg = tmp_path / "Queue.cfg"
    cfg.write_text("CONSTANT Max = 3\nSPECIFICATION Spec\nINVARIANT Safety\n")
    return spec, cfg


def prove(*argv: str) -> int:
    return main(["prove", *argv])


def test_inductive_invariant_is_proved(queue: tuple[Path, Path], tmp_path: Path,
                                       capsys: pytest.CaptureFixture[str]) -> None:
    spec, cfg = queue
    code = prove(str(spec), "--config", str(cfg), "--inv", "IndInv", "--safety", "Safety",
                 "--jobs", "1", "--itf-dir", str(tmp_path / "itf"))
    out = capsys.readouterr().out
    assert code == 0, out
    assert "IndInv /\\ Send => IndInv'" in out and "IndInv /\\ Recv => IndInv'" in out
    assert "state constraints bound the state space" in out
    assert len(re.findall(r" proved +[0-9.]+s", out)) == 4


def test_weakened_invariant_gives_a_counterexample_to_induction(
        queue: tuple[Path, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    spec, cfg = queue
    itf_dir = tmp_path / "itf"
    code = prove(str(spec), "--config", str(cfg), "--inv", "Weak", "--safety", "Safety",
                 "--jobs", "2", "--itf-dir", str(itf_dir))
    out = capsys.readouterr().out
    assert code == 12, out
    assert "Counterexample to induction: action Recv" in out
    assert "violates Safety" in out  # the conjunct of Weak that fails
    written = json.loads((itf_dir / "cti_step_Recv.itf.json").read_text())
    assert len(written["states"]) == 2
    assert written["#meta"]["failing"] == ["Safety"]


def test_safety_alone_is_not_inductive_and_init_violations_are_reported(
        queue: tuple[Path, Path], tmp_path: Path) -> None:
    spec, cfg = queue
    inp = ProofInput(spec, cfg, "Safety", "Safety", None, Bounds(3, 3), 60.0)
    obs = obligations(inp)
    assert [o.kind for o in obs] == ["init", "step", "step", "safety"]
    results = {o.action or o.kind: discharge(inp, o) for o in obs}
    assert results["Recv"].verdict == "counterexample"
    assert results["Recv"].engine_action == "Recv"  # the engine confirms the step
    assert results["Send"].verdict == "proved"
    assert results["init"].verdict == "proved" and results["safety"].verdict == "proved"
    bad_init = ProofInput(spec, cfg, "QueueOK", "Safety", "Init", Bounds(3, 3), 60.0)
    # QueueOK => Safety does not hold: a state with a received value never sent
    safety = discharge(bad_init, obligations(bad_init)[-1])
    assert safety.verdict == "counterexample"


def test_diehard_type_invariant_proved_and_goal_not_inductive(tmp_path: Path) -> None:
    spec, cfg = ENGINE_SPECS / "DieHard.tla", ENGINE_SPECS / "DieHard.cfg"
    assert prove(str(spec), "--config", str(cfg), "--inv", "TypeOK", "--safety", "TypeOK", "--jobs", "1",
                 "--itf-dir", str(tmp_path)) == 0
    assert prove(str(spec), "--config", str(cfg), "--inv", "NotSolved", "--safety", "NotSolved",
                 "--jobs", "1", "--itf-dir", str(tmp_path)) == 12


def test_unsupported_construct_is_a_located_input_error(capsys: pytest.CaptureFixture[str]) -> None:
    spec, cfg = ENGINE_SPECS / "Tokens.tla", ENGINE_SPECS / "Tokens.cfg"
    code = main(["check", str(spec), "--config", str(cfg), "--symbolic", "--length", "2", "--quiet"])
    err = capsys.readouterr().err
    assert code == 1
    assert "Tokens.tla:18:15" in err and "recursive function definition" in err


def test_unsized_variable_is_a_located_input_error(capsys: pytest.CaptureFixture[str]) -> None:
    spec = ENGINE_SPECS / "TwoPhase.tla"
    code = prove(str(spec), "--config", str(spec.with_suffix(".cfg")), "--inv", "TPTypeOK",
                 "--safety", "TPTypeOK", "--jobs", "1")
    err = capsys.readouterr().err
    assert code == 1
    assert "TwoPhase.tla:16:3" in err and "msgs" in err


def test_missing_definition_is_an_input_error(queue: tuple[Path, Path], capsys: pytest.CaptureFixture[str]) -> None:
    spec, cfg = queue
    assert prove(str(spec), "--config", str(cfg), "--inv", "NoSuchInv", "--safety", "Safety") == 1
    assert "NoSuchInv" in capsys.readouterr().err


def test_check_symbolic_prints_the_replayed_counterexample(tmp_path: Path,
                                                           capsys: pytest.CaptureFixture[str]) -> None:
    spec = ENGINE_SPECS / "DieHard.tla"
    out_itf = tmp_path / "cex.itf.json"
    code = main(["check", str(spec), "--symbolic", "--length", "8", "--quiet", "--itf", str(out_itf)])
    out = capsys.readouterr().out
    assert code == 12
    assert "Error: Invariant NotSolved is violated." in out
    assert "State 7: <BigToSmall line 38, col 6 of module DieHard>" in out
    assert len(json.loads(out_itf.read_text())["states"]) == 7
    code = main(["check", str(spec), "--symbolic", "--length", "5", "--quiet"])
    assert code == 0
    assert "No counterexample of at most 5 steps" in capsys.readouterr().out


UNDEFINED = """---- MODULE Undefined ----
EXTENDS Integers, Sequences
VARIABLES
  \\* @type: Seq(Int);
  s,
  \\* @type: Int;
  x
Init == s = <<1>> /\\ x = 1
Next == x' = x + 1 /\\ UNCHANGED s
Spec == Init /\\ [][Next]_<<s, x>>
\\* applies s outside its domain once x has moved on: TLA+ leaves that undefined
Inv == s = <<1>> /\\ s[x] = 1
====
"""


def step_result(tmp_path: Path, text: str, action: str | None = None) -> ObligationResult:
    """The step obligation of ``action`` (the first step one by default) for ``Inv`` of the
    toy spec ``text``."""
    name = text.split("MODULE ", 1)[1].split(" ", 1)[0]
    spec = tmp_path / f"{name}.tla"
    spec.write_text(text)
    cfg = tmp_path / f"{name}.cfg"
    cfg.write_text("SPECIFICATION Spec\nINVARIANT Inv\n")
    inp = ProofInput(spec, cfg, "Inv", "Inv", None, Bounds(2, 2), 60.0)
    step = next(o for o in obligations(inp) if o.kind == "step" and action in (None, o.action))
    return discharge(inp, step)


def test_a_counterexample_the_engine_cannot_evaluate_is_an_error_that_says_why(tmp_path: Path) -> None:
    result = step_result(tmp_path, UNDEFINED)
    assert result.verdict == "error"
    assert "outside its domain" in result.message and "strengthen Inv" in result.message


OTHER_UNDEFINED = """---- MODULE OtherUndefined ----
EXTENDS Integers, Sequences
VARIABLES
  \\* @type: Seq(Int);
  s,
  \\* @type: Int;
  x
Init == s = <<1>> /\\ x = 1
Grow == x < 3 /\\ x' = x + 1 /\\ UNCHANGED s
\\* undefined wherever x is beyond the length of s, as in every state the Grow counterexample starts
\\* from; first in Next, so the engine meets it before Grow
Peek == s[x] = 1 /\\ UNCHANGED <<s, x>>
Next == Peek \\/ Grow
Spec == Init /\\ [][Next]_<<s, x>>
Inv == x <= 2 /\\ Len(s) <= 1
====
"""


def test_a_counterexample_stands_where_another_action_is_undefined(tmp_path: Path) -> None:
    result = step_result(tmp_path, OTHER_UNDEFINED, "Grow")
    assert result.verdict == "counterexample", result.message
    assert result.engine_action == "Grow" and result.failing == ["Inv/1"]
    assert result.states[0][1] == 2 and result.states[1][1] == 3


def test_a_tiny_resource_limit_leaves_obligations_unknown(queue: tuple[Path, Path], tmp_path: Path,
                                                          capsys: pytest.CaptureFixture[str]) -> None:
    spec, cfg = queue
    code = prove(str(spec), "--config", str(cfg), "--inv", "IndInv", "--safety", "Safety",
                 "--jobs", "1", "--rlimit", "1", "--itf-dir", str(tmp_path / "itf"))
    out = capsys.readouterr().out
    assert code == 3, out
    assert len(re.findall(r" unknown +[0-9.]+s", out)) == 4 and "resource limit" in out
    assert not (tmp_path / "itf").exists()  # no counterexample either


def test_a_resource_limit_large_enough_proves_and_spends_the_same_units(queue: tuple[Path, Path]) -> None:
    spec, cfg = queue
    inp = ProofInput(spec, cfg, "IndInv", "Safety", None, Bounds(3, 3), 600.0, rlimit=50_000_000)
    obs = obligations(inp)
    first = prove_all(inp, jobs=1)
    assert [r.verdict for r in first] == ["proved"] * len(obs)
    assert all(r.rlimit_used > 0 for r in first)
    # each obligation in a process of its own: the same units whatever the order or jobs
    again = prove_all(inp, jobs=2)
    assert [r.rlimit_used for r in again] == [r.rlimit_used for r in first]
    alone = prove_all(inp, jobs=1, only=["Recv"])
    assert [r.rlimit_used for r in alone] == [first[2].rlimit_used]
    # an obligation needing more units than given is unknown, never proved
    step = obs[1]
    short = ProofInput(spec, cfg, "IndInv", "Safety", None, Bounds(3, 3), 600.0,
                       rlimit=max(2, first[1].rlimit_used // 8))
    result = discharge(short, step)
    assert result.verdict == "unknown" and "resource limit" in result.message, result
    assert result.rlimit_used <= short.rlimit + first[1].rlimit_used  # stopped near the budget


def test_a_negative_resource_limit_is_a_usage_error(queue: tuple[Path, Path]) -> None:
    spec, cfg = queue
    assert prove(str(spec), "--config", str(cfg), "--inv", "IndInv", "--safety", "Safety",
                 "--rlimit", "-1") == 2


def test_the_weakened_invariant_is_refuted_within_a_resource_budget(queue: tuple[Path, Path]) -> None:
    spec, cfg = queue
    inp = ProofInput(spec, cfg, "Weak", "Safety", None, Bounds(3, 3), 600.0, rlimit=50_000_000)
    recv = next(o for o in obligations(inp) if o.action == "Recv")
    assert discharge(inp, recv).verdict == "counterexample"


CHOICE = """---- MODULE Choice ----
EXTENDS Integers
VARIABLES x, y
Init == x = 0 /\\ y = 0
Next == x < 3 /\\ x' \\in {x, x + 1} /\\ y' = y
Spec == Init /\\ [][Next]_<<x, y>>
Inv == x \\in 0..3 /\\ y = 0
====
"""


def _kept_in(spec: Path, cfg: Path, action: int, budget: Budget, prune: bool = True) -> list[str]:
    """The variables ``_kept_by_action`` finds that the action of index ``action`` keeps."""
    from conformance.symbolic.encoding import Atoms, clear_memo
    from conformance.symbolic.shapes import fresh_state, sample_state, state_shapes
    from conformance.symbolic.split import split_action
    from conformance.symbolic.translate import StatePair, Translator
    from conformance.tla.cfg import read_config
    from conformance.tla.model import Model
    from conformance.tla.plan import resolve_plan

    clear_memo()
    config = read_config(cfg)
    model = Model.load(spec, constants=config.constants)
    plan = resolve_plan(model, config)
    assert isinstance(plan.next, str)
    tr = Translator(model, Atoms())
    terms: list[z3.ArithRef] = []
    bounds = Bounds(3, 3)
    s = fresh_state(state_shapes(model, sample_state(model, "Init"), bounds), "s", terms)
    t = fresh_state(state_shapes(model, sample_state(model, "Init"), bounds.widened(4)), "t", terms)
    disjunct = split_action(tr, plan.next)[action]
    return _kept_by_action(tr, s, t, disjunct.formula(tr, StatePair(s.values, t.values)), terms, budget, prune)


class _FirstAnswerOnly(Budget):
    """A budget whose questions after the first are all out of time."""

    def __init__(self) -> None:
        super().__init__(600.0)
        self.calls = 0

    def check(self, solver: z3.Solver, seconds: float, share: float = 1.0,
              assumptions: Sequence[z3.BoolRef] = ()) -> tuple[z3.CheckSatResult, str]:
        self.calls += 1
        if self.calls > 1:
            return z3.unknown, "time limit"
        return super().check(solver, seconds, share, assumptions)


def test_frame_substitution_keeps_only_what_the_action_provably_keeps(queue: tuple[Path, Path],
                                                                      tmp_path: Path) -> None:
    spec, cfg = queue
    assert _kept_in(spec, cfg, 0, Budget(600.0)) == ["got"]  # Send
    assert _kept_in(spec, cfg, 1, Budget(600.0)) == ["sent"]  # Recv
    choice, choice_cfg = tmp_path / "Choice.tla", tmp_path / "Choice.cfg"
    choice.write_text(CHOICE)
    choice_cfg.write_text("INIT Init\nNEXT Next\n")
    # x may change (though x' = x is a step too): never kept, whichever model comes first
    assert _kept_in(choice, choice_cfg, 0, Budget(600.0), prune=False) == ["y"]
    # a question left unknown keeps nothing (an unknown taken as kept would make x' = x)
    assert _kept_in(choice, choice_cfg, 0, _FirstAnswerOnly(), prune=False) == []


def test_frame_substitution_proves_what_the_equalities_prove_and_refutes_the_same(
        queue: tuple[Path, Path]) -> None:
    spec, cfg = queue
    verdicts = {}
    for inv in ("IndInv", "Weak"):
        for substitute in (True, False):
            inp = ProofInput(spec, cfg, inv, "Safety", None, Bounds(3, 3), 600.0, frame_substitution=substitute)
            verdicts[inv, substitute] = [discharge(inp, o).verdict for o in obligations(inp)]
    assert verdicts["IndInv", True] == verdicts["IndInv", False] == ["proved"] * 4
    # Weak: Send can overfill the queue (Len(q) = Max with sent < Max), Recv deliver a value never sent
    assert verdicts["Weak", True] == verdicts["Weak", False] == ["proved", "counterexample", "counterexample", "proved"]


def test_with_a_resource_budget_a_question_is_not_cut_by_its_seconds_cap() -> None:
    x, y, z = z3.Ints("x y z")
    hard = [x > 1000, x * x * x + y * y * y == z * z * z + 33]  # no quick answer
    solver = z3.Solver()
    solver.add(*hard)
    answer, why = Budget(600.0, rlimit=2_000_000).check(solver, 0.001)  # a cap of 1 ms: not applied
    assert (answer, why) == (z3.unknown, "resource limit")
    answer, why = Budget(600.0).check(solver, 0.001)  # without a resource budget it is
    assert (answer, why) == (z3.unknown, "time limit")


COUNTER = """---- MODULE Counter5 ----
EXTENDS Integers
VARIABLES x, y
Init == x = 0 /\\ y = 0
Next == x < 5 /\\ x' = x + 1 /\\ y' = y
Inv == /\\ x \\in 0..5 /\\ x >= 0 /\\ x <= 5 /\\ x # 7 /\\ x # -1 /\\ y = 0
Safety == x <= 5
====
"""


def test_a_variable_once_seen_changed_is_not_asked_about_again(tmp_path: Path,
                                                               monkeypatch: pytest.MonkeyPatch) -> None:
    """Five conjuncts read x, which the step changes: one question finds a step changing
    x, and its model answers the other four (they are then asked themselves, not whether
    x is kept); y's conjunct is asked whether y is kept."""
    from conformance.symbolic import prove as P

    spec, cfg = tmp_path / "Counter5.tla", tmp_path / "Counter5.cfg"
    spec.write_text(COUNTER)
    cfg.write_text("INIT Init\nNEXT Next\n")
    shares: list[float] = []
    check = Budget.check

    def spy(self: Budget, solver: z3.Solver, seconds: float, share: float = 1.0,
            assumptions: Sequence[z3.BoolRef] = ()) -> tuple[z3.CheckSatResult, str]:
        shares.append(share)
        return check(self, solver, seconds, share, assumptions)

    monkeypatch.setattr(Budget, "check", spy)
    inp = ProofInput(spec, cfg, "Inv", "Safety", None, Bounds(2, 2), 600.0, rlimit=10**9)
    (step,) = [o for o in obligations(inp) if o.kind == "step"]
    result = discharge(inp, step)
    assert result.verdict == "proved"
    assert result.conjuncts["Inv/6"] == "unchanged"
    assert shares.count(P.FRAME_SHARE) == 2  # x once, y once


def test_each_conjuncts_units_add_up_to_the_obligations(queue: tuple[Path, Path]) -> None:
    """Without the action's frame question (asked before any conjunct), every unit a step
    obligation spends is a conjunct's: its frame question, its first and its second round
    (a budget small enough to leave questions to the second round). A conjunct whose
    variables the step keeps spends only its frame question."""
    spec, cfg = queue
    for rlimit in (50_000_000, 12_000, 8_000):  # the last two leave questions to the second round
        inp = ProofInput(spec, cfg, "IndInv", "Safety", None, Bounds(3, 3), 600.0, rlimit=rlimit,
                         frame_substitution=False)
        for ob in (o for o in obligations(inp) if o.kind == "step"):
            r = discharge(inp, ob)
            assert set(r.conjunct_units) == set(r.conjuncts), r
            assert sum(r.conjunct_units.values()) == r.rlimit_used > 0, r  # unknown at 8,000 too
    inp = ProofInput(spec, cfg, "IndInv", "Safety", None, Bounds(3, 3), 600.0, rlimit=50_000_000)
    (recv,) = [o for o in obligations(inp) if o.action == "Recv"]
    r = discharge(inp, recv)
    kept = [label for label, v in r.conjuncts.items() if v == "unchanged"]
    asked = [label for label, v in r.conjuncts.items() if v == "proved"]
    assert kept and asked
    assert max(r.conjunct_units[label] for label in kept) < min(r.conjunct_units[label] for label in asked)
