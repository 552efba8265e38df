"""The translation of the KRaft spec against the explicit engine on reachable states:
every conjunct of IndInv has the engine's truth value, every transition the engine
takes satisfies the translated Next, and a state that is not a successor does not."""

from __future__ import annotations

import itertools
import random
from pathlib import Path

import pytest
import z3

from conformance.symbolic.encoding import lift
from conformance.symbolic.split import conjuncts, split_action
from conformance.symbolic.translate import StatePair, Translator
from conformance.tla.cfg import read_config
from conformance.tla.model import Model, State

SPEC_DIR = Path(__file__).resolve().parents[2] / "spec"

pytestmark = pytest.mark.slow


def decided(b: z3.BoolRef) -> bool:
    s = z3.Solver()
    s.add(z3.Not(b))
    if s.check() == z3.unsat:
        return True
    s = z3.Solver()
    s.add(b)
    assert s.check() == z3.unsat, "a formula over concrete states must be decided"
    return False


def walk(model: Model, steps: int, seed: int) -> list[State]:
    rng = random.Random(seed)
    state = next(iter(model.init_states("Init")))
    out = [state]
    for _ in range(steps):
        succ = [t for _, t in model.successors(state, "Next")]
        if not succ:
            break
        state = rng.choice(succ)
        out.append(state)
    return out


@pytest.fixture(scope="module")
def kraft() -> Model:
    config = read_config(SPEC_DIR / "MC_KRaft_indinv.cfg")
    return Model.load(SPEC_DIR / "MC_KRaft.tla", constants=config.constants, overrides=config.overrides)


def lifted(tr: Translator, model: Model, state: State) -> dict[str, object]:
    return {n: lift(v, tr.atoms) for n, v in zip(model.variables, state, strict=True)}


def test_indinv_conjuncts_agree_on_a_walk(kraft: Model) -> None:
    tr = Translator(kraft)
    parts = conjuncts(tr, "IndInv")
    assert len(parts) > 15
    for state in walk(kraft, 8, seed=1)[::2]:
        values = lifted(tr, kraft, state)
        for label, expr, ctx in parts:
            got = decided(tr.boolean(expr, {}, ctx, StatePair(values)))  # type: ignore[arg-type]
            want = kraft.eval_state(label, state) if kraft.has_definition(label) else got
            assert got == want, label


def satisfiable(b: z3.BoolRef) -> bool:
    s = z3.Solver()
    s.add(b)
    return s.check() == z3.sat


@pytest.mark.parametrize("witness", [False, True])
def test_next_holds_exactly_on_the_engines_transitions(kraft: Model, witness: bool) -> None:
    """Over concrete states, the disjunction over the slots is decided; with one witness
    per step (``witness.py``) the selector stays free, so the step is a satisfiable formula
    (some element chosen) and a bogus one an unsatisfiable one."""
    tr = Translator(kraft)
    disjuncts = split_action(tr, "Next")
    holds = satisfiable if witness else decided
    states = walk(kraft, 6, seed=2)
    for s, t in list(itertools.pairwise(states))[:3]:
        tr.witnesses = {} if witness else None
        pair = StatePair(lifted(tr, kraft, s), lifted(tr, kraft, t))  # type: ignore[arg-type]
        assert holds(z3.Or([d.formula(tr, pair) for d in disjuncts]))
        r = kraft.variables.index("restarts")  # a counter no step moves by 5
        bogus = StatePair(lifted(tr, kraft, s), lifted(tr, kraft, (*t[:r], t[r] + 5, *t[r + 1:])))  # type: ignore[arg-type]
        assert not holds(z3.Or([d.formula(tr, bogus) for d in disjuncts]))
    assert witness == bool(tr.witnesses)  # the handlers' \E m \in messages took a witness
