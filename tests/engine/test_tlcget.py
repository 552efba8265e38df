"""``TLCGet`` as TLC reads it. ``"level"``: 0 in ASSUME, POSTCONDITION and Init, an initial
state's level 1, a successor's one more than the state it was reached from (also primed,
``TLCGet("level")'``, in the step that reaches it). ``"config"``: the run's settings, in
TLC's record. Answers derived by hand in each comment."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from conformance.tla.cfg import parse_config
from conformance.tla.checking import alias_trace
from conformance.tla.explorer import CheckResult, check
from conformance.tla.model import Model
from conformance.tla.simulation import simulate

# x counts the steps; Init reads level 0, so x = level - 1 in every state
LEVELS = """---- MODULE Levels ----
EXTENDS Naturals, TLC
VARIABLE x
ASSUME TLCGet("level") = 0
Init == x = TLCGet("level")
Next == x' = x + 1 /\\ TLCGet("level")' = TLCGet("level") + 1
Guarded == TLCGet("level") < 4 /\\ x' = x + 1
Depth == TLCGet("level") < 5
Inv == x = TLCGet("level") - 1
Bait == TLCGet("level") < 3
Early == TLCGet("level") < 3
Post == TLCGet("level") = 0
Alias == [x |-> x, level |-> TLCGet("level"), next |-> TLCGet("level")']
Stay == UNCHANGED x
First == TLCGet("level") < 2
Live == <>(TLCGet("level") > 10)
Fine == <>(x >= 0)
====
"""


def model_of(tmp_path: Path, cfg: str) -> tuple[Model, object]:
    (tmp_path / "Levels.tla").write_text(LEVELS)
    config = parse_config(cfg + "\nCHECK_DEADLOCK FALSE\n", str(tmp_path / "Levels.cfg"))
    model = Model.load(tmp_path / "Levels.tla", constants=config.constants)
    return model, config


def run(tmp_path: Path, cfg: str, workers: int = 1) -> CheckResult:
    model, config = model_of(tmp_path, cfg)
    return check(model, config, progress=False, workers=workers)  # type: ignore[arg-type]


@pytest.mark.parametrize("workers", [1, 2])
def test_level_in_constraint_invariant_and_primed(tmp_path: Path, workers: int) -> None:
    # x = 0..3 at levels 1..4; x = 4 is at level 5, outside Depth (generated, dropped):
    # 4 distinct, 5 generated, depth 4; Inv and the primed level hold on every step
    r = run(tmp_path, "INIT Init\nNEXT Next\nCONSTRAINT Depth\nINVARIANT Inv\nPOSTCONDITION Post",
            workers)
    assert r.verdict == "ok", r.message
    assert (r.distinct_states, r.states_generated, r.depth) == (4, 5, 4)


def test_level_in_an_action_guard(tmp_path: Path) -> None:
    # the steps leave levels 1, 2, 3: x = 0..3, 4 distinct, 1 + 3 generated, depth 4
    r = run(tmp_path, "INIT Init\nNEXT Guarded\nINVARIANT Inv")
    assert r.verdict == "ok", r.message
    assert (r.distinct_states, r.states_generated, r.depth) == (4, 4, 4)


def test_level_in_an_action_constraint(tmp_path: Path) -> None:
    # steps from levels 1 and 2 only: x = 0, 1, 2; generated 1 + 3 (the step from level 3
    # is generated, then not allowed)
    r = run(tmp_path, "INIT Init\nNEXT Next\nACTION_CONSTRAINT Early")
    assert r.verdict == "ok", r.message
    assert (r.distinct_states, r.states_generated, r.depth) == (3, 4, 3)


@pytest.mark.parametrize("workers", [1, 2])
def test_a_stuttering_successor_is_one_level_further(tmp_path: Path, workers: int) -> None:
    # Stay's successor is the initial state itself, read at level 2: outside the CONSTRAINT
    # First, so checked against the invariant First and dropped, which it violates (the
    # very object of the state expanded must not be read at that state's level)
    r = run(tmp_path, "INIT Init\nNEXT Stay\nCONSTRAINT First\nINVARIANT First", workers)
    assert r.verdict == "violation" and r.property == "First"
    assert [step.state for step in r.trace] == [(0,), (0,)]


def test_invariant_on_the_level_is_violated_at_level_three(tmp_path: Path) -> None:
    r = run(tmp_path, "INIT Init\nNEXT Next\nINVARIANT Bait")
    assert r.verdict == "violation" and r.property == "Bait"
    assert [step.state for step in r.trace] == [(0,), (1,), (2,)]


@pytest.mark.parametrize("prop", ["", "\nPROPERTY Fine"])
def test_simulation_reads_the_level_of_the_walk(tmp_path: Path, prop: str) -> None:
    # (a temporal property, which does not read the level, is checked along the walk)
    model, config = model_of(tmp_path, "INIT Init\nNEXT Next\nINVARIANT Inv\nINVARIANT Bait" + prop)
    r = simulate(model, config, depth=10, traces=2, seed=1, progress=False)  # type: ignore[arg-type]
    assert r.verdict == "violation" and r.property == "Bait", r.message
    assert [step.state for step in r.trace] == [(0,), (1,), (2,)]


def test_alias_reads_the_level_of_each_step(tmp_path: Path) -> None:
    model, _ = model_of(tmp_path, "INIT Init\nNEXT Next")
    rows = alias_trace(model, "Alias", [(0,), (1,), (2,)])
    assert [dict(row or ())["level"] for row in rows] == [1, 2, 3]
    assert [dict(row or ())["next"] for row in rows] == [2, 3, 3]  # the last: itself


def test_level_in_a_temporal_property_is_refused(tmp_path: Path) -> None:
    r = run(tmp_path, "INIT Init\nNEXT Next\nCONSTRAINT Depth\nPROPERTY Live")
    assert r.verdict == "error"
    assert 'TLCGet("level")' in (r.message or "") and "temporal" in (r.message or "")


# ASSUMEs on the run's settings, as trace-validation specs write them
CONFIGURED = """---- MODULE Configured ----
EXTENDS Naturals, TLC
CONSTANTS Mode, Workers
VARIABLE x
ASSUME TLCGet("config").mode = Mode /\\ TLCGet("config").worker = Workers
ASSUME TLCGet("config").deadlock = FALSE
Init == x = 0
Next == x < 2 /\\ x' = x + 1
Inv == TLCGet("config").mode = "simulate" => TLCGet("config").depth = 7
====
"""


def run_cli(tmp_path: Path, consts: str, *flags: str) -> subprocess.CompletedProcess[str]:
    (tmp_path / "Configured.tla").write_text(CONFIGURED)
    (tmp_path / "Configured.cfg").write_text(f"CONSTANTS {consts}\nINIT Init\nNEXT Next\n"
                                             "INVARIANT Inv\nCHECK_DEADLOCK FALSE\n")
    return subprocess.run([sys.executable, "-m", "conformance", "check", str(tmp_path / "Configured.tla"),
                           "--quiet", *flags], capture_output=True, text=True, timeout=120, check=False)


@pytest.mark.parametrize(("consts", "flags", "code"), [
    ('Mode = "bfs" Workers = 1', (), 0),
    ('Mode = "bfs" Workers = 2', ("--workers", "2"), 0),
    ('Mode = "bfs" Workers = 1', ("--workers", "2"), 1),  # the ASSUME fails
    ('Mode = "simulate" Workers = 1', ("--simulate", "--depth", "7", "--traces", "3"), 0),
    ('Mode = "bfs" Workers = 1', ("--simulate", "--depth", "7"), 1),
])
def test_config_record_of_the_run(tmp_path: Path, consts: str, flags: tuple[str, ...], code: int) -> None:
    proc = run_cli(tmp_path, consts, *flags)
    assert proc.returncode == code, proc.stdout + proc.stderr
    if code == 1:
        assert "Assumption" in proc.stdout + proc.stderr


def test_config_is_refused_where_no_run_gives_it(tmp_path: Path) -> None:
    # a model loaded without a command's settings (the validator, the API)
    (tmp_path / "C.tla").write_text("---- MODULE C ----\nEXTENDS TLC\n====\n")
    model = Model.load(tmp_path / "C.tla")
    with pytest.raises(Exception, match='TLCGet\\("config"\\) is known in model checking'):
        model.eval_constant('TLCGet("config")')
