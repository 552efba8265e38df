"""Guard dispatch (``guard_dispatch.py``): a disjunction under ``\\E m \\in S`` whose
disjuncts open with ``m.f = c`` gives the same successors, in the same order, the same
errors and the same counts as the plain reading (dispatch switched off) and as the
reference interpreter's search.

The random specs mix guarded disjuncts (either side of ``=``, through operators with
parameters, nested ones, a wrapper like ``Receive(m)``), duplicate constants, unguarded
disjuncts, guards on another field or not first, and elements that lack the field, hold a
boolean, tuple or integer in it, or are not records at all.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from conformance.tla import actions
from conformance.tla.cfg import parse_config
from conformance.tla.explorer import check
from conformance.tla.loader import ModuleLoader
from conformance.tla.model import Model
from conformance.tla.parser import parse_module_text
from conformance.tla.syntax import TlaError
from tests.engine import reference_interp as R

FAST = settings(max_examples=60, deadline=None,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
LONG = settings(max_examples=800, deadline=None,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])

CONSTANTS = ['"A"', '"B"', '"C"', "1", "2"]
CFG = "INIT Init\nNEXT Next\nCHECK_DEADLOCK FALSE\n"


def _element(draw: Any, clean: bool) -> str:
    c = draw(st.sampled_from(CONSTANTS))
    n = draw(st.integers(0, 2))
    kinds = ["type"] * 4 if clean else ["type"] * 4 + ["kind", "bool", "tuple", "int", "seq"]
    kind = draw(st.sampled_from(kinds))
    return {"type": f"[type |-> {c}, n |-> {n}]",
            "kind": f"[kind |-> {c}, n |-> {n}]",  # lacks the field
            "bool": f"[type |-> TRUE, n |-> {n}]",
            "tuple": f"[type |-> <<{c}>>, n |-> {n}]",
            "int": str(n),  # not a record
            "seq": f"<<{c}, {n}>>"}[kind]


def _effect(draw: Any, var: str) -> str:
    k = draw(st.integers(0, 3))
    x = draw(st.sampled_from([f"x' = (x + {k}) % 4", f"x' = ({var}.n + {k}) % 4", "x' = x"]))
    y = draw(st.sampled_from([f"y' = y \\cup {{{k % 3}}}", "UNCHANGED y", f"y' \\in {{y, {{{k % 3}}}}}"]))
    return f"{x} /\\ {y}"


@st.composite
def dispatch_specs(draw: Any) -> str:
    """A spec whose Next is ``\\E m \\in Pool : <disjunction>``."""
    clean = draw(st.booleans())
    pool = sorted({_element(draw, clean) for _ in range(draw(st.integers(1, 4)))})
    ops: list[str] = []
    disjuncts: list[str] = []
    for k in range(draw(st.integers(2, 6))):
        c = draw(st.sampled_from(CONSTANTS))
        shape = draw(st.sampled_from(["guard", "mirror", "op", "nested", "two", "const_arg",
                                      "failing_arg", "other_field", "late", "late_error", "plain",
                                      "or"]))
        if shape == "guard":
            disjuncts.append(f"(m.type = {c} /\\ {_effect(draw, 'm')})")
        elif shape == "mirror":
            disjuncts.append(f"({c} = m.type /\\ {_effect(draw, 'm')})")
        elif shape == "op":
            ops.append(f"H{k}(p) == /\\ p.type = {c}\n           /\\ {_effect(draw, 'p')}")
            disjuncts.append(f"H{k}(m)")
        elif shape == "nested":
            ops.append(f"H{k}(p) == /\\ p.type = {c}\n           /\\ {_effect(draw, 'p')}")
            ops.append(f"G{k}(q) == H{k}(q)")
            disjuncts.append(f"G{k}(m)")
        elif shape == "two":  # the test on the second parameter
            ops.append(f"H{k}(a, p) == /\\ p.type = {c}\n              /\\ {_effect(draw, 'p')}")
            disjuncts.append(f"H{k}(m, m)")
        elif shape == "const_arg":  # an argument that is not a bound variable
            ops.append(f"H{k}(p, z) == /\\ p.type = {c}\n              /\\ {_effect(draw, 'p')}")
            disjuncts.append(f"H{k}(m, 1)")
        elif shape == "failing_arg":  # an argument that fails (m.n = 1), never read
            ops.append(f"F{k}(p, z) == /\\ p.type = {c}\n              /\\ {_effect(draw, 'p')}")
            disjuncts.append(f"F{k}(m, x \\div (m.n - 1))")
        elif shape == "other_field":
            disjuncts.append(f"(m.kind = {c} /\\ {_effect(draw, 'm')})")
        elif shape == "late":  # a guard that is not the first conjunct
            disjuncts.append(f"(x < 3 /\\ m.type = {c} /\\ {_effect(draw, 'm')})")
        elif shape == "late_error":  # ... after a conjunct that may fail (m.n = 1)
            disjuncts.append(f"(x \\div (m.n - 1) >= 0 /\\ m.type = {c} /\\ {_effect(draw, 'm')})")
        elif shape == "plain":
            disjuncts.append(f"(x < 2 /\\ {_effect(draw, 'm')})")
        else:  # a disjunction inside a guarded disjunct
            disjuncts.append(f"(m.type = {c} /\\ ({_effect(draw, 'm')} \\/ x' = 3 /\\ y' = {{}}))")
    body = "\n    \\/ ".join(disjuncts)
    if draw(st.booleans()):
        ops.append(f"Receive(m) ==\n    \\/ {body}")
        nxt = "Next == \\E m \\in Pool : Receive(m)"
    else:
        nxt = f"Next == \\E m \\in Pool :\n    \\/ {body}"
    return "\n".join([
        "---- MODULE Dispatch ----", "EXTENDS Integers", "VARIABLES x, y",
        f"Pool == {{{', '.join(pool)}}}", "Init == x = 0 /\\ y = {}", *ops, nxt, "===="])


def _model(text: str) -> Model:
    return Model(parse_module_text(text, "Dispatch.tla"), ModuleLoader([]))


def _search(text: str) -> tuple[Any, ...]:
    got = check(_model(text), parse_config(CFG), progress=False)
    return got.verdict, got.message, got.distinct_states, got.states_generated, got.depth


def _successors(model: Model, states: list[tuple]) -> list[Any]:
    """Per state: the labelled successors in order, or the error; and the same while
    skipping failing disjuncts."""
    out: list[Any] = []
    for state in states:
        try:
            out.append(list(model.successors(state)))
        except TlaError as exc:
            out.append((type(exc).__name__, str(exc)))
        found, errors = model.successors_skipping_errors(state)
        out.append((found, [str(e) for e in errors]))
    return out


STATES = [(x, frozenset(y)) for x in range(4) for y in ((), (0,), (1, 2))]


def _plain(text: str) -> tuple[tuple[Any, ...], list[Any]]:
    saved = actions.dispatcher
    actions.dispatcher = lambda tests, branches: None  # type: ignore[assignment]
    try:
        return _search(text), _successors(_model(text), STATES)
    finally:
        actions.dispatcher = saved


def compare(text: str) -> None:
    plain = _plain(text)
    fast = _search(text), _successors(_model(text), STATES)
    assert fast == plain, text
    module = parse_module_text(text, "Dispatch.tla")
    try:
        ref = R.explore(module, {}, "Init", "Next", [])
    except R.RefError:
        assert fast[0][0] == "error", text
        return
    assert fast[0][0] == "ok", text
    assert fast[0][2:] == (ref.distinct, ref.generated, ref.depth), text


@FAST
@given(dispatch_specs())
def test_dispatch_agrees_with_the_plain_reading_and_the_reference(spec: str) -> None:
    compare(spec)


@pytest.mark.slow
@LONG
@given(dispatch_specs())
def test_dispatch_agrees_with_the_plain_reading_and_the_reference_long(
        spec: str) -> None:
    compare(spec)


RECEIVE = """---- MODULE Receive ----
EXTENDS Integers
VARIABLES x, y
Pool == {[type |-> "A", n |-> 1], [type |-> "B", n |-> 2], [type |-> "C", n |-> 3],
         [type |-> "D", n |-> 0]}
Init == x = 0 /\\ y = {}
HA(m) == m.type = "A" /\\ x' = m.n /\\ UNCHANGED y
HB(m) == /\\ m.type = "B"
         /\\ x' = m.n
         /\\ y' = y \\cup {1}
HC(m) == "C" = m.type /\\ x' = m.n /\\ y' = {2}
Any(m) == x' = 0 /\\ y' = {m.n}
HA2(m) == m.type = "A" /\\ x' = 3 /\\ y' = {}
Receive(m) == HA(m) \\/ HB(m) \\/ Any(m) \\/ HC(m) \\/ HA2(m)
Next == \\E m \\in Pool : Receive(m)
====
"""


def test_dispatch_keeps_each_successor_and_its_order(tmp_path: Path) -> None:
    (tmp_path / "Receive.tla").write_text(RECEIVE)
    m = Model.load(tmp_path / "Receive.tla")
    got = [(lab.name, dict(lab.params)["m"].map["n"], t) for lab, t in m.successors((0, frozenset()))]
    b, one = frozenset({1}), frozenset({2})
    assert got == [
        ("Any", 0, (0, frozenset({0}))),  # [type |-> "D"]: no test holds
        ("HA", 1, (1, frozenset())), ("Any", 1, (0, frozenset({1}))), ("HA2", 1, (3, frozenset())),
        ("HB", 2, (2, b)), ("Any", 2, (0, frozenset({2}))),
        ("Any", 3, (0, frozenset({3}))), ("HC", 3, (3, one)),  # the unguarded one first
    ]
    compare(RECEIVE)


def _fails_to_compare(text: str, what: str) -> None:
    """Both readings (dispatched and plain) and the reference fail on the state x = 0,
    y = {}: TLC cannot compare a string with an integer (StringValue.equals)."""
    with pytest.raises(TlaError, match=what):
        list(_model(text).successors((0, frozenset())))
    saved = actions.dispatcher
    actions.dispatcher = lambda tests, branches: None  # type: ignore[assignment]
    try:
        with pytest.raises(TlaError, match=what):
            list(_model(text).successors((0, frozenset())))
    finally:
        actions.dispatcher = saved
    compare(text)


def test_a_constant_of_another_kind_fails_and_is_not_skipped() -> None:
    # [type |-> 1]: HA's test "A" = 1 fails in TLC; the dispatch (on strings) leaves the
    # element to the full path, which fails at HA's test (line 7)
    text = RECEIVE.replace('[type |-> "D", n |-> 0]', "[type |-> 1, n |-> 0]")
    _fails_to_compare(text, r"Dispatch.tla:7:\d+: attempted to check equality of the integer 1 "
                            r'with the string "A"')
    # [type |-> TRUE]: a boolean against "A" fails too
    text = RECEIVE.replace('[type |-> "D", n |-> 0]', "[type |-> TRUE, n |-> 0]")
    _fails_to_compare(text, r'the boolean TRUE with the string "A"')
    # a disjunct testing against an integer among ones testing against strings: it is not
    # skipped for a string value (the dispatch is on the strings only): 1 = "D" fails (line 11)
    text = RECEIVE.replace('HC(m) == "C" = m.type', "HC(m) == 1 = m.type")
    _fails_to_compare(text, r'Dispatch.tla:11:\d+: attempted to check equality of the integer 1 '
                            r'with the string "D"')


def test_an_element_without_the_field_fails_as_before(tmp_path: Path) -> None:
    text = RECEIVE.replace('[type |-> "D", n |-> 0]', '[kind |-> "A", n |-> 0]')
    with pytest.raises(TlaError, match="no field 'type'"):
        list(_model(text).successors((0, frozenset())))
    compare(text)
    compare(RECEIVE.replace('[type |-> "D", n |-> 0]', "<<1, 2>>"))
