"""``[][A]_v`` properties: a subscript named at the top level is evaluated once per state
and step for all the properties that share it; each property is judged by its own."""

from __future__ import annotations

from pathlib import Path

import pytest

from conformance.tla.cfg import parse_config
from conformance.tla.checking import Checks
from conformance.tla.explorer import check, simulate
from conformance.tla.loader import ModuleLoader
from conformance.tla.model import Model
from conformance.tla.parser import parse_module_text
from conformance.tla.plan import resolve_plan

SPEC = """---- MODULE Props ----
EXTENDS Naturals, TLC
VARIABLES x, y
vars == <<x, y>>
Init == x = 0 /\\ y = 0
Next == x < 3 /\\ x' = x + 1 /\\ UNCHANGED y
YNeverMoves == [][FALSE]_y
XGrows == [][x' >= x]_vars
XSmall == [][x' <= 2]_vars
YSame == [][y' = y]_vars
noisy == <<x, RandomElement(1..1000)>>
NoisyA == [][TRUE]_noisy
NoisyB == [][TRUE]_noisy
====
"""


def _model() -> Model:
    return Model(parse_module_text(SPEC, "Props.tla"), ModuleLoader([]), {})


def _run(props: str, simulated: bool = False) -> tuple[str, str | None, int]:
    model = _model()
    config = parse_config(f"INIT Init\nNEXT Next\nPROPERTY {props}\nCHECK_DEADLOCK FALSE\n",
                          str(Path("Props.cfg")))
    r = simulate(model, config, depth=6, traces=5, seed=1, progress=False) if simulated \
        else check(model, config, progress=False)
    return r.verdict, r.property, len(r.trace)


@pytest.mark.parametrize("simulated", [False, True])
def test_each_property_is_judged_on_its_own_subscript(simulated: bool) -> None:
    assert _run("YNeverMoves XGrows YSame", simulated)[:2] == ("ok", None)
    assert _run("YNeverMoves XGrows XSmall YSame", simulated) == ("violation", "XSmall", 4)
    assert _run("XSmall YNeverMoves", simulated) == ("violation", "XSmall", 4)


def test_a_shared_subscript_is_evaluated_once_unless_impure() -> None:
    model = _model()
    for props, distinct in [("XGrows XSmall YSame", 1), ("YNeverMoves XGrows", 2),
                            ("NoisyA NoisyB", 2)]:
        config = parse_config(f"INIT Init\nNEXT Next\nPROPERTY {props}\n", str(Path("Props.cfg")))
        checks = Checks(model, resolve_plan(model, config), None)
        assert len(checks.subscripts((0, 0))) == distinct, props
