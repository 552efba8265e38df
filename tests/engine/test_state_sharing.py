"""Successor states share with their parent the values an action rebuilt unchanged
(``values.reuse_equal``), and never a value that is only Python-equal (a boolean for an
integer)."""

from __future__ import annotations

from pathlib import Path

from conformance.tla.cfg import parse_config
from conformance.tla.checking import StateIdentity
from conformance.tla.model import Model
from conformance.tla.plan import resolve_plan
from conformance.tla.values import Fn, reuse_equal
from tests.engine.spec_text import load_text

SPEC = """---- MODULE Share ----
EXTENDS Naturals
VARIABLES f, r, p, q, n
Init == f = [i \\in {1, 2} |-> 0] /\\ r = [a |-> 1, b |-> {2}] /\\ p = 0 /\\ q = <<1, 0>> /\\ n = 0
Next ==
    /\\ n < 2
    /\\ f' = [i \\in {1, 2} |-> 0]
    /\\ r' = [r EXCEPT !.a = 1]
    /\\ p' = IF n = 0 THEN FALSE ELSE 0
    /\\ q' = <<TRUE, FALSE>>
    /\\ n' = n + 1
====
"""


def _model(tmp_path: Path) -> Model:
    return load_text(tmp_path, SPEC)


def test_successor_keeps_the_parents_objects_for_equal_values(tmp_path: Path) -> None:
    m = _model(tmp_path)
    (init,) = m.init_states()
    ((_, succ),) = m.successors(init)
    assert succ[0] is init[0] and succ[1] is init[1]  # rebuilt, equal: the parent's object
    assert succ[4] == 1


def test_a_boolean_never_stands_for_an_integer(tmp_path: Path) -> None:
    m = _model(tmp_path)
    (init,) = m.init_states()
    ((_, succ),) = m.successors(init)
    assert succ[2] is False and succ[3] == (True, False)
    assert all(type(x) is bool for x in succ[3])
    ((_, succ2),) = m.successors(succ)
    assert succ2[2] == 0 and type(succ2[2]) is int


def test_reuse_equal_directly() -> None:
    old = (Fn({"a": 0}), (1, 0), 5)
    new = (Fn({"a": 0}), (True, False), 5)
    out = reuse_equal(new, old)
    assert out[0] is old[0] and out[1] is new[1] and type(out[1][0]) is bool
    same = (old[0], old[1], 5)
    assert reuse_equal(same, old) is same


def test_the_search_shares_them_without_reuse_equal(tmp_path: Path) -> None:
    # the exhaustive search asks for successors without sharing (share=False) and has
    # canonical_successors share the equal values instead, puns kept apart
    m = load_text(tmp_path, """---- MODULE Share2 ----
EXTENDS Naturals
VARIABLES s, p, n
Init == s = {1, 2} /\\ p = <<0, 1>> /\\ n = 0
Next == n < 2 /\\ n' = n + 1 /\\ s' = {n + 1, 2} \\cup {1} /\\ p' = <<FALSE, TRUE>>
====
""")
    (init,) = m.init_states()
    ((_, raw),) = m.successors(init, share=False)
    assert raw[0] is not init[0] and raw[0] == init[0]  # built anew
    config = parse_config("INIT Init\nNEXT Next\n")
    identity = StateIdentity.of(m, resolve_plan(m, config), config)
    parent, canonical = identity.canonical_successors(init)
    fp, succ = canonical(raw)
    assert succ[0] is parent[0] and fp == identity(raw)
    assert succ[1] == (False, True) and all(type(x) is bool for x in succ[1])
