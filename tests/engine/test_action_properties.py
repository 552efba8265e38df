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
from conformance.tla.stateparts import StepPart

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


STEP_SPEC = """---- MODULE StepProps ----
EXTENDS Naturals, TLC
VARIABLES x, y, z
vars == <<x, y, z>>
Init == x = <<0>> /\\ y = <<0>> /\\ z = 0
Next == \\/ x' = <<x[1] + 1>> /\\ y' = <<y[1] + 1>> /\\ z' = z
        \\/ x' = x /\\ y' = <<y[1] + 1>> /\\ z' = 1 - z
Grows == [][x'[1] >= x[1] /\\ y'[1] > y[1]]_vars
Within == [][y'[1] <= 3 \\/ x'[1] # x[1]]_vars
Random == [][RandomElement({TRUE}) /\\ z' # 7]_vars
====
"""


def test_a_property_is_remembered_per_objects_of_what_it_reads_in_both_states() -> None:
    model = Model(parse_module_text(STEP_SPEC, "StepProps.tla"), ModuleLoader([]), {})
    config = parse_config("INIT Init\nNEXT Next\nPROPERTY Grows Within Random\n",
                          str(Path("StepProps.cfg")))
    checks = Checks(model, resolve_plan(model, config), None)
    one, two, three, four = ((k,) for k in range(1, 5))
    # Grows and Within read x and y, in both states; Random is impure: not remembered
    assert [isinstance(a, StepPart) for _, a in checks._props] == [True, True, False]
    # the same x and y objects before, other y objects after: each step judged on its own
    assert checks.violated_property((one, three, 0), (one, four, 1)) == "Within"
    assert checks.violated_property((one, three, 0), (two, four, 0)) is None
    assert checks.violated_property((two, three, 0), (two, four, 0)) == "Within"
    assert checks.violated_property((one, three, 0), (one, four, 0)) == "Within"
    assert checks.violated_property((one, two, 0), (one, three, 0)) is None
    assert checks.violated_property((one, two, 0), (one, one, 0)) == "Grows"
    # the search finds Within violated at y = 4 (x unchanged), in four steps
    r = check(model, parse_config("INIT Init\nNEXT Next\nPROPERTY Grows Within\n"
                                  "CHECK_DEADLOCK FALSE\n", str(Path("StepProps.cfg"))),
              progress=False)
    assert (r.verdict, r.property, len(r.trace)) == ("violation", "Within", 5)
