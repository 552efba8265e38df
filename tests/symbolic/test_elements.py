"""Step obligations of conjuncts over a set variable's elements, asked per old and new
element: the pieces found in the text, and the verdicts against the whole-set question
(the same on a proved invariant and on steps that break it through a new element or
through the old ones)."""

from __future__ import annotations

from pathlib import Path

import pytest

from conformance.symbolic.elements import parts
from conformance.symbolic.prove import ProofInput, discharge, obligations
from conformance.symbolic.shapes import Bounds
from conformance.symbolic.split import conjuncts
from conformance.symbolic.translate import Translator
from conformance.tla.cfg import read_config
from conformance.tla.model import Model

MAIL = """---- MODULE Mail ----
EXTENDS Integers, FiniteSets
CONSTANTS Procs, Checked
VARIABLES
  \\* @type: Int;
  round,
  \\* @type: Set({src: Int, rnd: Int});
  msgs,
  \\* @type: Int -> Int;
  seen
vars == <<round, msgs, seen>>
Init == round = 0 /\\ msgs = {} /\\ seen = [p \\in Procs |-> 0]
Post(p) == msgs' = msgs \\cup {[src |-> p, rnd |-> round]} /\\ UNCHANGED <<round, seen>>
Tick == round < 2 /\\ round' = round + 1 /\\ UNCHANGED <<msgs, seen>>
Read(p) == \\E m \\in msgs : seen' = [seen EXCEPT ![p] = m.rnd] /\\ UNCHANGED <<round, msgs>>
Next == Tick \\/ \\E p \\in Procs : Post(p) \\/ Read(p)
\\* seeded faults: a message from the future; the clock going back under old messages
PostAhead(p) == msgs' = msgs \\cup {[src |-> p, rnd |-> round + 1]} /\\ UNCHANGED <<round, seen>>
Untick == round > 0 /\\ round' = round - 1 /\\ UNCHANGED <<msgs, seen>>
NextAhead == Next \\/ \\E p \\in Procs : PostAhead(p)
NextUntick == Next \\/ Untick
Spec == Init /\\ [][Next]_vars
MsgsOK == \\A m \\in msgs : m.rnd <= round /\\ m.src \\in Procs
SeenOK == \\A p \\in Procs : seen[p] <= round
\\* one piece under a constant premise, the element bound second in the chain
OwnRounds == Checked => (/\\ \\A p \\in Procs : \\A m \\in msgs : m.src = p => m.rnd <= round
                         /\\ round >= 0)
IndInv == /\\ round \\in 0..2 /\\ MsgsOK /\\ SeenOK /\\ OwnRounds
Safety == SeenOK
====
"""


@pytest.fixture
def mail(tmp_path: Path) -> tuple[Path, Path]:
    spec = tmp_path / "Mail.tla"
    spec.write_text(MAIL)
    cfg = tmp_path / "Mail.cfg"
    cfg.write_text("CONSTANTS Procs = {1, 2}\n  Checked = TRUE\nSPECIFICATION Spec\nINVARIANT IndInv\n")
    return spec, cfg


def _with_next(tmp_path: Path, cfg: Path, nxt: str) -> Path:
    out = tmp_path / f"Mail_{nxt}.cfg"
    out.write_text(cfg.read_text().replace("SPECIFICATION Spec", f"INIT Init\nNEXT {nxt}"))
    return out


def test_pieces_over_the_elements_of_a_set_variable(mail: tuple[Path, Path]) -> None:
    spec, cfg = mail
    config = read_config(cfg)
    tr = Translator(Model.load(spec, constants=config.constants, overrides=config.overrides))
    found = {label: parts(expr, ctx) for label, expr, ctx in conjuncts(tr, "IndInv")}
    assert [p.over for p in found["MsgsOK"]] == [("msgs", "m")]
    own = found["OwnRounds"]
    assert [p.over for p in own] == [("msgs", "m"), None]  # split under the premise, m moved out
    assert all(len(p.premises) == 1 for p in own)
    assert [p.over for p in found["SeenOK"]] == [None]  # Procs is a constant, not a variable


@pytest.mark.parametrize("nxt, verdict, action", [
    ("Next", "proved", None),
    ("NextAhead", "counterexample", "PostAhead"),  # a new element breaks MsgsOK
    ("NextUntick", "counterexample", "Untick"),  # old elements break MsgsOK
])
def test_per_element_questions_agree_with_the_whole_set(
        mail: tuple[Path, Path], tmp_path: Path, nxt: str, verdict: str, action: str | None) -> None:
    spec, cfg = mail
    cfg = _with_next(tmp_path, cfg, nxt)
    got: dict[bool, dict[str, str]] = {}
    for per_element in (True, False):
        inp = ProofInput(spec, cfg, "IndInv", "Safety", "Init", Bounds(2, 3), 60.0, per_element=per_element)
        results = {o.action or o.kind: discharge(inp, o) for o in obligations(inp)}
        got[per_element] = {k: r.verdict for k, r in results.items()}
        if action is not None:
            bad = results[action]
            assert bad.verdict == "counterexample", bad.message
            assert bad.engine_action == action  # the explicit engine confirms the step
            assert "MsgsOK" in bad.failing
        else:
            assert all(r.verdict == "proved" for r in results.values()), results
    assert got[True] == got[False]
    if action is None:
        assert got[True] and set(got[True].values()) == {"proved"}
    else:
        assert got[True][action] == verdict
