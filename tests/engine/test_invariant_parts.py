"""Invariants are checked conjunct by conjunct: a conjunct whose variables a step left as the
very same values as in the state it came from held there and is not evaluated again
(``Checks.state_ok`` with the parent state); the verdicts are those of evaluating it."""

from __future__ import annotations

from pathlib import Path

from conformance.tla.cfg import parse_config
from conformance.tla.explorer import check, simulate
from conformance.tla.loader import ModuleLoader
from conformance.tla.model import Model
from conformance.tla.parser import parse_module_text
from conformance.tla.stateparts import StatePart, StateTest

# x grows only while y = 0, so (2, 2) is reached only by IncY from (2, 1): a step that keeps x
SPEC = """---- MODULE Parts ----
EXTENDS Naturals, TLC, Randomization
VARIABLES x, y
Init == x = 0 /\\ y = 0
IncX == y = 0 /\\ x < 2 /\\ x' = x + 1 /\\ UNCHANGED y
IncY == y < 2 /\\ y' = y + 1 /\\ UNCHANGED x
Next == IncX \\/ IncY
XSmall == x <= 2
Both == x + y < 4
Inv == XSmall /\\ Both
Random == RandomElement({x}) = x
Checked == /\\ XSmall
           /\\ Random
           /\\ Inv
====
"""


def model() -> Model:
    return Model(parse_module_text(SPEC, "Parts.tla"), ModuleLoader([]), {})


def run(inv: str, simulated: bool = False) -> tuple[str, str | None, list[tuple[int, int]]]:
    config = parse_config(f"INIT Init\nNEXT Next\nINVARIANT {inv}\nCHECK_DEADLOCK FALSE\n", str(Path("Parts.cfg")))
    r = simulate(model(), config, depth=8, traces=40, seed=1, progress=False) if simulated \
        else check(model(), config, progress=False)
    return r.verdict, r.property, [step.state for step in r.trace]  # type: ignore[misc]


def test_the_variables_each_conjunct_reads() -> None:
    m = model()
    assert [deps for _, deps in m.invariant_parts("Inv")] == [(0,), (0, 1)]
    # through nested definitions; an impure conjunct is always evaluated
    assert [deps for _, deps in m.invariant_parts("Checked")] == [(0,), None, (0,), (0, 1)]


def test_a_violation_reached_by_a_step_that_keeps_some_variables_is_found() -> None:
    verdict, prop, states = run("Inv")
    assert (verdict, prop) == ("violation", "Inv")
    assert states[-2:] == [(2, 1), (2, 2)]
    assert run("Checked")[:2] == ("violation", "Checked")
    assert run("XSmall")[:2] == ("ok", None)


def test_simulation_skips_the_same_way() -> None:
    verdict, prop, states = run("Inv", simulated=True)
    assert (verdict, prop) == ("violation", "Inv") and states[-1] == (2, 2)


def test_a_part_remembers_where_it_held_by_tla_equality() -> None:
    calls: list[object] = []

    def small(state: tuple) -> bool:
        v = calls.append(state[0]) or state[0]
        inner = v[0] if type(v) is tuple else v
        return type(inner) is int and inner == 0

    part = StatePart(small, (0,))
    assert part((0, "a")) is True and part((0, "b")) is True
    assert len(calls) == 1  # the same value of the variable it reads: not evaluated again
    assert part((False, "a")) is False  # equal to 0 in Python only
    assert part(((0,), 1)) is True and part(((False,), 1)) is False
    assert part((False, "a")) is False and len(calls) == 5  # a FALSE result is not kept
    pair = StatePart(lambda s: s[0] < s[1], (0, 1))
    assert pair((1, 2)) is True and pair((1, 1)) is False
    one = (1, 2)
    assert pair.unchanged((one, 2), (one, 2)) and not pair.unchanged((one, 2), (one, 3))
    assert not pair.unchanged((one, 2), (tuple(list(one)), 2))  # equal, not the same object


def test_a_part_knows_the_very_objects_where_it_held() -> None:
    calls: list[object] = []
    part = StatePart(lambda s: calls.append(s) is None and 0 not in s[0] and 0 not in s[1], (0, 1))
    x, y = frozenset({2}), (3, 4)
    assert part((x, y, "a")) is True and part((x, y, "b")) is True and len(calls) == 1
    assert part((frozenset({2}), (3, 4), "c")) is True and len(calls) == 1  # by value
    # Python-equal by a pun, other objects: evaluated (not held: TRUE is 1 but not 0)
    assert part((frozenset({True}), (3, 4), "d")) is True and len(calls) == 2
    assert part((frozenset({False}), y, "e")) is False and len(calls) == 3
    assert part((frozenset({0}), y, "f")) is False and len(calls) == 4
    single = StatePart(lambda s: calls.append(s) is None and type(s[0][0]) is bool, (0,))
    assert single(((False,),)) is True and single(((0,),)) is False and len(calls) == 6


def test_a_constraint_part_remembers_false_as_well() -> None:
    calls: list[object] = []
    part = StateTest(lambda s: calls.append(s) is None and (type(s[0][0]) is bool or s[0][0] != 0), (0,))
    assert part(((0,), "a")) is False and part(((0,), "b")) is False and len(calls) == 1
    assert part(((1,), "a")) is True and part(((1,), "b")) is True and len(calls) == 2
    # Python-equal by a pun: evaluated on its own
    assert part(((False,), "c")) is True and len(calls) == 3
    assert part(((True,), "c")) is True and part(((1,), "d")) is True and len(calls) == 4
    odd = StateTest(lambda s: calls.append(s) and 5, (0,))  # not a boolean: never kept
    assert odd((1,)) is None and odd((1,)) is None and len(calls) == 6


def test_a_part_of_unknown_variables_is_always_evaluated() -> None:
    calls: list[object] = []
    part = StatePart(lambda s: calls.append(s) is None, None)
    assert part((1,)) is True and part((1,)) is True and len(calls) == 2
    assert not part.unchanged((1,), (1,))
