"""Expressions translated to z3 against the explicit engine's evaluation: for random
concrete states, every representation of the state (sets may hold an element in several
slots, sequences have don't-care items past their length) must give the engine's value."""

from __future__ import annotations

import random
from pathlib import Path

import pytest
import z3

from conformance.symbolic import translate
from conformance.symbolic.encoding import eq, lift
from conformance.symbolic.shapes import Bounds, atom_range, fresh_state, state_shapes
from conformance.symbolic.translate import StatePair, Translator
from conformance.tla.model import Model, State
from conformance.tla.parser import parse_expression
from conformance.tla.values import Value
from tests.symbolic.test_bmc_differential import GUARDS, HEADER, INVARIANTS, UPDATES

TEMPLATES = {*GUARDS, *INVARIANTS, *(u.split(" = ", 1)[1] for us in UPDATES.values() for u in us)}
EXPRESSIONS = sorted({t.format(c=1, d=0, k=2) for t in TEMPLATES if t != "TRUE"} | {"DOMAIN q", "Cardinality(s \\cup {x, y})", "{<<e, x>> : e \\in s}", "s \\subseteq {1, 2}",
                        "[a |-> x, b |-> s].b", "<<x, y>> = <<y, x>>", "q \\o q", "Len(q \\o <<x>>)",
                        "CHOOSE e \\in s \\cup {7} : \\A g \\in s \\cup {7} : e <= g", "s \\cap {x, 1}",
                        "\\E e \\in s, g \\in s : e /= g", "f = [k \\in {1, 2} |-> k - 1]", "x % 3", "y \\div 2",
                        "2 ^ Len(q)", "x ^ 2", "(y + 3) ^ Len(q)",
                        # quorum tests: counts compared with each other (counting.py)
                        "2 * Cardinality({e \\in s : e > x}) > Cardinality(s)",
                        "Cardinality(s \\cup {y}) - Cardinality(s) >= 1 - Cardinality({x} \\ s)"})


@pytest.fixture(scope="module")
def model(tmp_path_factory: pytest.TempPathFactory) -> Model:
    folder: Path = tmp_path_factory.mktemp("tr")
    spec = folder / "E.tla"
    spec.write_text(HEADER.format(name="E", y0=0) + "====\n")
    return Model.load(spec)


def random_state(rng: random.Random) -> State:
    x, y = rng.randint(-2, 2), rng.randint(-2, 2)
    s = frozenset(rng.sample(range(-2, 3), rng.randint(0, 3)))
    q = tuple(rng.randint(-2, 2) for _ in range(rng.randint(0, 2)))
    f = (rng.randint(-2, 2), rng.randint(-2, 2))
    return (x, y, s, q, f)


def differences(model: Model, seed: int, states: int = 6) -> list[str]:
    rng = random.Random(seed)
    tr = Translator(model, interval_bound=4)  # intervals over Len(q) <= 3 fit
    shapes = state_shapes(model, random_state(rng), Bounds(3, 4))
    found = []
    for _ in range(states):
        state = random_state(rng)
        atom_terms: list[z3.ArithRef] = []
        sym = fresh_state(shapes, "s", atom_terms)
        same = z3.And([eq(sym.values[n], lift(v, tr.atoms)) for n, v in zip(model.variables, state, strict=True)])
        for text in EXPRESSIONS:
            expected: Value = model.eval_state(text, state)
            got = tr.eval(parse_expression(text), {}, model.root, StatePair(sym.values))
            solver = z3.Solver()
            solver.add(sym.wellformed, same, atom_range(atom_terms, tr.atoms), tr.take_assumptions())
            if solver.check() != z3.sat:  # the interval bound excludes the state: no comparison
                found.append(f"{text} in {state}: the state is outside the translation's assumptions")
                continue
            solver.add(z3.Not(eq(got, lift(expected, tr.atoms))))
            if solver.check() != z3.unsat:
                found.append(f"{text} in {state}")
    return found


def test_expressions_agree_with_the_engine(model: Model) -> None:
    assert differences(model, 0, states=3) == []


@pytest.mark.slow
@pytest.mark.parametrize("seed", range(1, 6))
def test_expressions_agree_with_the_engine_more_states(model: Model, seed: int) -> None:
    assert differences(model, seed) == []


def test_seeded_bug_in_cardinality_is_caught(model: Model, monkeypatch: pytest.MonkeyPatch) -> None:
    """Counting an element held by two slots twice is wrong; the comparison sees it."""
    def card(tr: Translator, args, loc, env, ctx, st):  # type: ignore[no-untyped-def]
        (a,) = translate._sets(translate._args(tr, args, 1, loc, env, ctx, st), loc)
        return z3.Sum([z3.If(g, 1, 0) for g, _ in a.slots]) if a.slots else z3.IntVal(0)

    monkeypatch.setitem(translate.BUILTINS, "Cardinality", card)
    assert any("Cardinality" in d for d in differences(model, 0, states=2))


def test_seeded_bug_in_subseq_is_caught(model: Model, monkeypatch: pytest.MonkeyPatch) -> None:
    original = translate.BUILTINS["SubSeq"]

    def off_by_one(tr: Translator, args, loc, env, ctx, st):  # type: ignore[no-untyped-def]
        r = original(tr, args, loc, env, ctx, st)
        assert isinstance(r, translate.SSeq)
        return translate.SSeq(r.length + 1, r.items)

    monkeypatch.setitem(translate.BUILTINS, "SubSeq", off_by_one)
    assert any("SubSeq" in d for d in differences(model, 0, states=2))
