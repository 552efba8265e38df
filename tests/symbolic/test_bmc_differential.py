"""Symbolic bounded model checking against the explicit engine, on classic specs and on
random small specs: same verdict, same length of the shortest counterexample. A seeded
translation bug must make the comparison fail."""

from __future__ import annotations

import random
from collections.abc import Sequence
from pathlib import Path

import pytest
import z3

from conformance.symbolic import translate
from conformance.symbolic.bmc import bmc
from conformance.symbolic.shapes import Bounds
from conformance.tla import syntax as S
from conformance.tla.cfg import read_config
from conformance.tla.checking import CheckResult
from conformance.tla.compiler import Ctx
from conformance.tla.explorer import check
from conformance.tla.model import Model
from conformance.tla.plan import resolve_plan
from conformance.tla.syntax import Loc

SPECS = Path(__file__).resolve().parents[1] / "engine" / "specs"


BOUNDS = Bounds(4, 4)


def both(spec: Path, cfg: Path, length: int, bounds: Bounds = BOUNDS) -> tuple[CheckResult, CheckResult]:
    config = read_config(cfg)
    model = Model.load(spec, constants=config.constants, overrides=config.overrides)
    config.check_deadlock = False
    explicit = check(model, config, progress=False)
    symbolic = bmc(model, resolve_plan(model, config), length, bounds).result
    return explicit, symbolic


def assert_agree(explicit: CheckResult, symbolic: CheckResult) -> None:
    e, s = explicit, symbolic
    assert s.verdict != "error", s.message
    if e.verdict == "violation":
        assert s.verdict == "violation", s.message
        assert len(s.trace) == len(e.trace)
    else:
        assert e.verdict == "ok"
        assert s.verdict == "ok", [str(t.state) for t in s.trace]


@pytest.mark.parametrize("name,length", [("DieHard", 8), ("Counter", 7), ("Monotone", 4), ("Peterson", 8)])
def test_classic_specs_agree(name: str, length: int) -> None:
    explicit, symbolic = both(SPECS / f"{name}.tla", SPECS / f"{name}.cfg", length)
    assert_agree(explicit, symbolic)


# ---------------------------------------------------------------------------
# Random small specs
# ---------------------------------------------------------------------------

HEADER = """---- MODULE {name} ----
EXTENDS Integers, Sequences, FiniteSets
VARIABLES
  \\* @type: Int;
  x,
  \\* @type: Int;
  y,
  \\* @type: Set(Int);
  s,
  \\* @type: Seq(Int);
  q,
  \\* @type: Int -> Int;
  f
vars == <<x, y, s, q, f>>
Init == x = 0 /\\ y = {y0} /\\ s = {{}} /\\ q = <<>> /\\ f = [k \\in {{1, 2}} |-> 0]
InBounds == x \\in -3..3 /\\ y \\in -3..3 /\\ Cardinality(s) <= 2 /\\ Len(q) <= 2
            /\\ \\A k \\in {{1, 2}} : f[k] \\in -2..2
            /\\ s \\subseteq -3..3 /\\ \\A k \\in {{1, 2}} : k <= Len(q) => q[k] \\in -3..3
"""

GUARDS = ["x < {c}", "y >= {c}", "x /= y", "x \\in s", "y \\notin s", "Cardinality(s) < 2",
          "Len(q) > 0", "q /= <<>> /\\ Head(q) = {c}", "\\E e \\in s : e > {c}", "f[1] <= f[2]",
          "{c} \\in {{x, y}}", "TRUE", "\\E k \\in 1..Len(q) : q[k] = {c}"]
UPDATES = {
    "x": ["x' = x + 1", "x' = x - 1", "x' = y", "x' = IF x > y THEN x - y ELSE {c}",
          "x' = Cardinality(s)", "x' = Len(q)", "x' = CHOOSE e \\in {{x, y, {c}}} : e >= x /\\ e >= y /\\ e >= {c}",
          "x' = Cardinality({{k \\in 0..Len(q) : k /= y}})"],
    "y": ["y' = y + x", "y' = {c}", "y' = -y", "y' = f[{k}]", "y' = CASE x > 0 -> 1 [] x < 0 -> -1 [] OTHER -> 0"],
    "s": ["s' = s \\cup {{x}}", "s' = s \\ {{y}}", "s' = {{e + 1 : e \\in s}}", "s' = {{e \\in s : e /= x}}",
          "s' = {{}}"],
    "q": ["q' = Append(q, x)", "q' = IF q = <<>> THEN q ELSE Tail(q)", "q' = SubSeq(q, 1, Len(q) - 1)",
          "q' = IF Len(q) > 0 THEN [q EXCEPT ![1] = y] ELSE q", "q' = q \\o <<y>>"],
    "f": ["f' = [f EXCEPT ![{k}] = @ + 1]", "f' = [f EXCEPT ![{k}] = x]", "f' = [k \\in {{1, 2}} |-> f[3 - k]]",
          "f' = [f EXCEPT ![IF x > 0 THEN 1 ELSE 2] = -1]"],
}
INVARIANTS = ["~(x = {c} /\\ y = {d})", "Cardinality(s) < 2 \\/ x /= {c}", "\\A e \\in s : e < {c}",
              "Len(q) = 0 \\/ q[Len(q)] /= {c}", "f[1] /= {c} \\/ f[2] /= {d}", "x + y /= {c}",
              "{c} \\notin s \\/ Len(q) < 2", "\\A k \\in (Len(q) - 1)..Len(q) : k /= {c} \\/ x /= {d}"]


def random_spec(seed: int) -> str:
    rng = random.Random(seed)

    def fill(t: str) -> str:
        return t.format(c=rng.randint(-2, 2), d=rng.randint(-2, 2), k=rng.randint(1, 2))

    name = f"R{seed}"
    lines = [HEADER.format(name=name, y0=rng.randint(-1, 1))]
    actions = []
    for a in range(rng.randint(3, 5)):
        changed = rng.sample(sorted(UPDATES), rng.randint(1, 3))
        parts = [fill(rng.choice(GUARDS)) if rng.random() < 0.6 else "TRUE"]
        parts += [fill(rng.choice(UPDATES[v])) for v in changed]
        lines.append(f"A{a} == " + action_text(parts, changed))
        actions.append(f"A{a}")
    return spec_text(lines, actions, fill(rng.choice(INVARIANTS)))


def action_text(parts: list[str], changed: Sequence[str]) -> str:
    """The conjunction of ``parts`` and UNCHANGED of the variables not in ``changed``."""
    keep = [v for v in ("x", "y", "s", "q", "f") if v not in changed]
    if keep:
        parts = [*parts, f"UNCHANGED <<{', '.join(keep)}>>"]
    return " /\\ ".join(f"({p})" for p in parts)


def spec_text(lines: list[str], actions: list[str], inv: str) -> str:
    """The module of ``lines`` with ``Next`` the disjunction of ``actions`` and ``Inv``."""
    tail = ["Next == " + " \\/ ".join(actions), "Spec == Init /\\ [][Next]_vars", "Inv == " + inv, "===="]
    return "\n".join([*lines, *tail]) + "\n"


CFG = "SPECIFICATION Spec\nCONSTRAINT InBounds\nINVARIANT Inv\nCHECK_DEADLOCK FALSE\n"


def run_random(seed: int, tmp_path: Path, growth: int = 0) -> tuple[CheckResult, CheckResult]:
    """The explicit engine's result and bounded model checking's (``growth``: aligned sets
    that gain at most that many elements per step, ``bmc``)."""
    spec = tmp_path / f"R{seed}.tla"
    spec.write_text(random_spec(seed))
    cfg = tmp_path / f"R{seed}.cfg"
    cfg.write_text(CFG)
    config = read_config(cfg)
    model = Model.load(spec, constants=config.constants)
    explicit = check(model, config, progress=False)
    length = explicit.depth + 1
    symbolic = bmc(model, resolve_plan(model, config), length, Bounds(4, 4), growth=growth).result
    return explicit, symbolic


@pytest.mark.parametrize("seed", range(10))
def test_random_specs_agree(seed: int, tmp_path: Path) -> None:
    explicit, symbolic = run_random(seed, tmp_path)
    assert_agree(explicit, symbolic)


@pytest.mark.slow
@pytest.mark.parametrize("seed", range(12, 80))
def test_more_random_specs_agree(seed: int, tmp_path: Path) -> None:
    explicit, symbolic = run_random(seed, tmp_path)
    assert_agree(explicit, symbolic)


def test_random_specs_exercise_both_verdicts(tmp_path: Path) -> None:
    """The fast subset of the generator's specs has violations and clean runs (explicit
    engine only), so agreement is not vacuous."""
    verdicts = set()
    for seed in range(10):
        spec = tmp_path / f"R{seed}.tla"
        spec.write_text(random_spec(seed))
        cfg = tmp_path / f"R{seed}.cfg"
        cfg.write_text(CFG)
        config = read_config(cfg)
        verdicts.add(check(Model.load(spec), config, progress=False).verdict)
    assert verdicts == {"ok", "violation"}


def _plus_one_too_many(tr: translate.Translator, args: Sequence[S.Expr], loc: Loc, env: translate.Env,
                      ctx: Ctx, st: translate.StatePair) -> z3.ArithRef:
    a, b = translate._ints(translate._args(tr, args, 2, loc, env, ctx, st), loc)
    return a + b + 1


def test_non_replayable_counterexample_is_an_internal_error(monkeypatch: pytest.MonkeyPatch) -> None:
    """A translation bug that invents behaviours yields an error verdict, never an answer."""
    monkeypatch.setitem(translate.BUILTINS, "+", _plus_one_too_many)
    _, symbolic = both(SPECS / "DieHard.tla", SPECS / "DieHard.cfg", 8)
    assert symbolic.verdict == "error" and symbolic.exit_code == 1
    assert symbolic.message is not None and "cannot replay" in symbolic.message
    assert not symbolic.trace


# ---------------------------------------------------------------------------
# Intervals whose ends depend on the state (Translator.interval_bound)
# ---------------------------------------------------------------------------

INTERVALS = """---- MODULE Intervals ----
EXTENDS Integers, FiniteSets
VARIABLES
  \\* @type: Int;
  x
Init == x = 0
Next == x' = x + 1
Spec == Init /\\ [][Next]_x
Exact == Cardinality(1..x) = x
Inv == {inv}
====
"""


def intervals(tmp_path: Path, inv: str, length: int, seq_bound: int) -> CheckResult:
    spec = tmp_path / "Intervals.tla"
    spec.write_text(INTERVALS.format(inv=inv))
    cfg = tmp_path / "Intervals.cfg"
    cfg.write_text("SPECIFICATION Spec\nINVARIANT Inv\nCHECK_DEADLOCK FALSE\n")
    config = read_config(cfg)
    model = Model.load(spec, constants=config.constants)
    return bmc(model, resolve_plan(model, config), length, Bounds(seq_bound, 4)).result


@pytest.mark.parametrize("inv,steps", [("\\A k \\in 1..x : k /= 2", 2), ("~\\E k \\in 1..x : k = 3", 3),
                                       ("Cardinality({k \\in (x - 2)..x : k > 1}) < 2", 3),
                                       ("\\A k \\in 0..x : k < 4", 4), ("2 ^ x /= 8", 3), ("x ^ 2 < 9", 3)])
def test_state_dependent_intervals_agree(inv: str, steps: int, tmp_path: Path) -> None:
    """Each interval slot counts (and each power of a state-dependent exponent): the
    shortest counterexample has the explicit length."""
    symbolic = intervals(tmp_path, inv, 5, 4)
    assert symbolic.verdict == "violation", symbolic.message
    assert len(symbolic.trace) == steps + 1


@pytest.mark.parametrize("inv", ["Exact", "2 ^ x >= 1"])
def test_longer_intervals_are_outside_the_bounds(inv: str, tmp_path: Path) -> None:
    """With sequences of at most 1 item an interval holds at most 2 integers (an exponent
    is below 2): the states beyond are not searched (no wrong counterexample from the
    slots or powers left out)."""
    symbolic = intervals(tmp_path, inv, 6, 1)
    assert symbolic.verdict == "ok", symbolic.message
    wide = intervals(tmp_path, inv, 6, 6)
    assert wide.verdict == "ok", wide.message
