"""One witness per step for an action's ``\\E x \\in S`` over a set of the state
(``conformance/symbolic/witness.py``): bounded model checking with it agrees with the
explicit engine and with the disjunction over the slots (same verdict, same length of the
shortest counterexample), on a spec whose shortest counterexample chooses a different
element at each step and on random specs whose actions choose an element of a set
variable. Seeded bugs that fail them: a selector off by one slot, a witness taken from a
slot that holds no element. (A selector shared by every step, or always the first slot,
stays complete here: a fresh state's set may hold its elements in any slot order.)"""

from __future__ import annotations

import random
from pathlib import Path

import pytest
import z3

from conformance.cli import main
from conformance.symbolic.bmc import bmc
from conformance.symbolic.encoding import Atoms
from conformance.symbolic.prove import ProofInput, per_action
from conformance.symbolic.prove import prove as prove_all
from conformance.symbolic.shapes import Bounds, fresh_state, sample_state, state_shapes
from conformance.symbolic.split import split_action
from conformance.symbolic.translate import StatePair, Translator
from conformance.tla.cfg import ModelConfig, read_config
from conformance.tla.checking import CheckResult
from conformance.tla.explorer import check
from conformance.tla.model import Model
from conformance.tla.plan import resolve_plan
from tests.symbolic.test_bmc_differential import HEADER, action_text, assert_agree, spec_text

CHOICES = """---- MODULE Choices ----
EXTENDS Integers
VARIABLES
  \\* @type: Set(Int);
  pool,
  \\* @type: Set(Int);
  got
Init == pool = {1, 2, 3} /\\ got = {}
Next == \\E e \\in pool : e \\notin got /\\ got' = got \\cup {e} /\\ UNCHANGED pool
Spec == Init /\\ [][Next]_<<pool, got>>
Inv == got /= {1, 2, 3}
====
"""


def load(tmp_path: Path, name: str, text: str, cfg: str) -> tuple[Model, ModelConfig]:
    spec = tmp_path / f"{name}.tla"
    spec.write_text(text)
    path = tmp_path / f"{name}.cfg"
    path.write_text(cfg)
    config = read_config(path)
    return Model.load(spec, constants=config.constants), config


def symbolic_both_ways(model: Model, config: ModelConfig, length: int) -> tuple[CheckResult, CheckResult]:
    """Bounded model checking with the witness and with the disjunction over the slots."""
    plan = resolve_plan(model, config)
    bounds = Bounds(4, 4)
    return (bmc(model, plan, length, bounds, witness=True).result,
            bmc(model, plan, length, bounds, witness=False).result)


def test_each_step_chooses_its_own_element(tmp_path: Path) -> None:
    model, config = load(tmp_path, "Choices", CHOICES, "SPECIFICATION Spec\nINVARIANT Inv\nCHECK_DEADLOCK FALSE\n")
    explicit = check(model, config, progress=False)
    witness, slots = symbolic_both_ways(model, config, 4)
    assert explicit.verdict == "violation" and len(explicit.trace) == 4  # three different choices
    assert_agree(explicit, witness)
    assert_agree(explicit, slots)


def test_the_witness_form_is_one_copy_of_the_action(tmp_path: Path) -> None:
    """The point of the witness: the action's body is translated once, not once per slot."""
    model, config = load(tmp_path, "Choices", CHOICES, "SPECIFICATION Spec\nINVARIANT Inv\n")
    plan = resolve_plan(model, config)
    assert isinstance(plan.next, str)
    tr = Translator(model, Atoms())
    shapes = state_shapes(model, sample_state(model, "Init"), Bounds(2, 3))
    terms: list[z3.ArithRef] = []
    s, t = fresh_state(shapes, "s", terms), fresh_state(shapes, "t", terms)
    (action,) = split_action(tr, plan.next)

    def size(f: z3.ExprRef) -> int:
        seen: set[int] = set()
        todo = [f]
        while todo:
            g = todo.pop()
            if g.get_id() not in seen:
                seen.add(g.get_id())
                todo.extend(g.children())
        return len(seen)

    slots = action.formula(tr, StatePair(s.values, t.values))
    tr.witnesses = {}
    one = action.formula(tr, StatePair(s.values, t.values))
    assert len(tr.witnesses) == 1
    assert size(one) < size(slots)
    again = action.formula(tr, StatePair(s.values, t.values))
    assert again.eq(one)  # the selector kept: the same formula when translated again


# ---------------------------------------------------------------------------
# Random specs whose actions choose an element of the set variable ``s``
# ---------------------------------------------------------------------------

CHOSEN_GUARDS = ["e > {c}", "e /= x", "e = y", "e + x < {c}", "TRUE", "e \\notin {{x, y}}"]
CHOSEN_UPDATES = {
    "x": ["x' = e", "x' = x + e", "x' = IF e > x THEN e ELSE x - 1"],
    "y": ["y' = e - y", "y' = {c}"],
    "s": ["s' = s \\ {{e}}", "s' = s \\cup {{e + 1}}", "s' = {{d \\in s : d /= e}} \\cup {{x}}"],
    "q": ["q' = Append(q, e)", "q' = IF q = <<>> THEN <<e>> ELSE Tail(q)"],
    "f": ["f' = [f EXCEPT ![{k}] = e]"],
}
PLAIN = ["(x < 2) /\\ (s' = s \\cup {{x}}) /\\ (x' = x + 1) /\\ UNCHANGED <<y, q, f>>",
         "(y' = y - 1) /\\ (s' = s \\cup {{y}}) /\\ UNCHANGED <<x, q, f>>"]
CHOSEN_INVARIANTS = ["~(x = {c} /\\ y = {d})", "Len(q) < 2 \\/ q[1] /= q[2]", "f[1] /= {c} \\/ f[2] /= {d}",
                     "x + y /= {c}", "Cardinality(s) < 2 \\/ x /= {c}"]


def random_chosen_spec(seed: int) -> str:
    rng = random.Random(seed)

    def fill(t: str) -> str:
        return t.format(c=rng.randint(-2, 2), d=rng.randint(-2, 2), k=rng.randint(1, 2))

    lines = [HEADER.format(name=f"C{seed}", y0=rng.randint(-1, 1))]
    actions = []
    for a, plain in enumerate(PLAIN):
        lines.append(f"P{a} == " + fill(plain))
        actions.append(f"P{a}")
    for a in range(rng.randint(2, 3)):
        changed = rng.sample(sorted(CHOSEN_UPDATES), rng.randint(1, 2))
        parts = [fill(rng.choice(CHOSEN_GUARDS))] + [fill(rng.choice(CHOSEN_UPDATES[v])) for v in changed]
        lines.append(f"A{a} == \\E e \\in s : " + action_text(parts, changed))
        actions.append(f"A{a}")
    return spec_text(lines, actions, fill(rng.choice(CHOSEN_INVARIANTS)))


CFG = "SPECIFICATION Spec\nCONSTRAINT InBounds\nINVARIANT Inv\nCHECK_DEADLOCK FALSE\n"


def run_random(seed: int, tmp_path: Path) -> tuple[CheckResult, CheckResult, CheckResult]:
    """The explicit engine's result, then bounded model checking both ways: as many steps
    as the explicit counterexample has, or without one at most 6 (some of these state
    spaces are 30 deep)."""
    model, config = load(tmp_path, f"C{seed}", random_chosen_spec(seed), CFG)
    explicit = check(model, config, progress=False)
    length = len(explicit.trace) - 1 if explicit.verdict == "violation" else min(explicit.depth + 1, 6)
    return (explicit, *symbolic_both_ways(model, config, length))


@pytest.mark.parametrize("seed", range(8))
def test_random_specs_choosing_an_element_agree(seed: int, tmp_path: Path) -> None:
    explicit, witness, slots = run_random(seed, tmp_path)
    assert_agree(explicit, witness)
    assert_agree(explicit, slots)


def test_random_choosing_specs_exercise_both_verdicts(tmp_path: Path) -> None:
    """Some of the fast seeds have violations whose shortest counterexample chooses an
    element (an ``A`` action) at two steps or more, and some have none, so agreement is not
    vacuous (explicit engine only)."""
    verdicts, most_choices = set(), 0
    for seed in range(8):
        model, config = load(tmp_path, f"C{seed}", random_chosen_spec(seed), CFG)
        result = check(model, config, progress=False)
        verdicts.add(result.verdict)
        most_choices = max(most_choices, sum(step.action.startswith("A") for step in result.trace))
    assert verdicts == {"ok", "violation"}
    assert most_choices >= 2


# ---------------------------------------------------------------------------
# prove: the step's action with one witness
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("inv,verdict", [("IndInv", "proved"), ("Node3Zero", "counterexample")])
def test_prove_gives_the_same_verdicts_with_and_without_the_witness(
        mailbox: tuple[Path, Path], tmp_path: Path, inv: str, verdict: str) -> None:
    """The toy handler (``\\E m \\in msgs : Handle(m)``), no resource limit: each obligation
    has the same verdict both ways, and the counterexample breaks the same conjunct."""
    spec, cfg = mailbox
    found = []
    for witness in (True, False):
        inp = ProofInput(spec, cfg, inv, "Safety", None, Bounds(2, 3), 600.0, witness=witness)
        results = per_action(prove_all(inp, jobs=1))
        found.append([(r.obligation.title(inv, "Safety", "Init"), r.verdict, r.failing) for r in results])
    assert found[0] == found[1]
    handle = next(f for f in found[0] if "Handle" in f[0])
    assert handle[1] == verdict


@pytest.mark.parametrize("extra", [[], ["--no-witness"]])
def test_the_command_line_finds_the_same_counterexample_both_ways(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], extra: list[str]) -> None:
    load(tmp_path, "Choices", CHOICES, "SPECIFICATION Spec\nINVARIANT Inv\nCHECK_DEADLOCK FALSE\n")
    code = main(["check", str(tmp_path / "Choices.tla"), "--config", str(tmp_path / "Choices.cfg"),
                 "--symbolic", "--length", "4", "--quiet", *extra])
    out = capsys.readouterr().out
    assert code == 12, out
    assert "Invariant Inv is violated" in out and "State 4:" in out and "State 5:" not in out
