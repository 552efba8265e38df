"""The explorer on small classic specs. Every count asserted here is computed by a
hand-written Python enumerator of the same state machine (exact states in Python sets,
no fingerprints), not pasted from a run."""

from __future__ import annotations

import itertools
import json
import os
import subprocess
import sys
from collections import deque
from collections.abc import Callable, Hashable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from conformance.cli import main
from conformance.tla import itf
from conformance.tla.cfg import parse_config, read_config
from conformance.tla.explorer import CheckResult, check, simulate
from conformance.tla.model import Model
from conformance.tla.values import fn_apply

SPECS = Path(__file__).parent / "specs"

S = Any  # a brute-force state


@dataclass
class Brute:
    """Counts of a TLC-style breadth-first search."""

    generated: int
    distinct: int
    depth: int
    level: dict[Any, int]  # canonical key -> BFS level (initial states: 1)


def brute_bfs(
    inits: Iterable[S],
    succ: Callable[[S], list[S]],
    key: Callable[[S], Hashable] = lambda s: s,
    in_model: Callable[[S], bool] = lambda s: True,
    allowed: Callable[[S, S], bool] = lambda s, t: True,
) -> Brute:
    level: dict[Any, int] = {}
    queue: deque[S] = deque()
    generated = 0
    # as TLC: a state outside the model (CONSTRAINT, ACTION_CONSTRAINT) is generated but
    # neither stored nor expanded
    for s in inits:
        generated += 1
        if in_model(s) and key(s) not in level:
            level[key(s)] = 1
            queue.append(s)
    while queue:
        s = queue.popleft()
        for t in succ(s):
            generated += 1
            if not (in_model(t) and allowed(s, t)) or key(t) in level:
                continue
            level[key(t)] = level[key(s)] + 1
            queue.append(t)
    return Brute(generated, len(level), max(level.values()), level)


def run_check(name: str, **kw: Any) -> CheckResult:
    config = read_config(SPECS / f"{name}.cfg")
    model = Model.load(SPECS / f"{name}.tla", constants=config.constants, overrides=config.overrides)
    for k in ("check_deadlock",):
        if k in kw:
            setattr(config, k, kw.pop(k))
    return check(model, config, progress=False, **kw)


def var(result: CheckResult, step: int, name: str) -> Any:
    return result.trace[step].state[result.variables.index(name)]


# ---------------------------------------------------------------------------
# DieHard
# ---------------------------------------------------------------------------


def diehard_succ(s: tuple[int, int]) -> list[tuple[int, int]]:
    small, big = s
    to_big = min(big + small, 5)
    to_small = min(big + small, 3)
    return [(3, big), (small, 5), (0, big), (small, 0),
            (small - (to_big - big), to_big), (to_small, big - (to_small - small))]


def test_diehard_shortest_counterexample() -> None:
    brute = brute_bfs([(0, 0)], diehard_succ)
    shortest = min(lvl for (small, big), lvl in brute.level.items() if big == 4)
    r = run_check("DieHard")
    assert r.verdict == "violation" and r.property == "NotSolved" and r.exit_code == 12
    assert len(r.trace) == shortest
    assert var(r, -1, "big") == 4
    assert r.trace[0].action == "Init"
    # Every step is a real transition of the puzzle.
    states = [(var(r, k, "small"), var(r, k, "big")) for k in range(len(r.trace))]
    assert states[0] == (0, 0)
    for a, b in itertools.pairwise(states):
        assert b in diehard_succ(a)
    actions = {"FillSmall", "FillBig", "EmptySmall", "EmptyBig", "SmallToBig", "BigToSmall"}
    assert {step.action for step in r.trace[1:]} <= actions


def test_diehard_full_state_space_without_the_goal_invariant(tmp_path: Path) -> None:
    (tmp_path / "DieHard.tla").write_text((SPECS / "DieHard.tla").read_text())
    (tmp_path / "DieHard.cfg").write_text("SPECIFICATION Spec\nINVARIANT TypeOK\n")
    config = read_config(tmp_path / "DieHard.cfg")
    r = check(Model.load(tmp_path / "DieHard.tla"), config, progress=False)
    brute = brute_bfs([(0, 0)], diehard_succ)
    assert (r.verdict, r.states_generated, r.distinct_states, r.depth, r.queue_left) == (
        "ok", brute.generated, brute.distinct, brute.depth, 0)


# ---------------------------------------------------------------------------
# Peterson
# ---------------------------------------------------------------------------


def peterson_succ(s: tuple[tuple[bool, bool], int, tuple[str, str]]) -> list[Any]:
    flag, turn, pc = s
    out = []
    for p in (0, 1):
        q = 1 - p

        def upd(t: tuple[Any, Any], v: Any, p: int = p) -> tuple[Any, Any]:
            return (v, t[1]) if p == 0 else (t[0], v)

        if pc[p] == "idle":
            out.append((upd(flag, True), turn, upd(pc, "turn")))
        if pc[p] == "turn":
            out.append((flag, q, upd(pc, "wait")))
        if pc[p] == "wait" and (not flag[q] or turn == p):
            out.append((flag, turn, upd(pc, "cs")))
        if pc[p] == "cs":
            out.append((upd(flag, False), turn, upd(pc, "idle")))
    return out


def test_peterson_mutual_exclusion_holds() -> None:
    brute = brute_bfs([((False, False), 0, ("idle", "idle"))], peterson_succ)
    assert all(not (pc[0] == "cs" and pc[1] == "cs") for _, _, pc in brute.level)
    r = run_check("Peterson")
    assert (r.verdict, r.states_generated, r.distinct_states, r.depth) == (
        "ok", brute.generated, brute.distinct, brute.depth)


# ---------------------------------------------------------------------------
# Two-phase commit
# ---------------------------------------------------------------------------

RMS = ("r1", "r2", "r3")


def twophase_succ(s: Any) -> list[Any]:
    rm, tm, prepared, msgs = s
    out = []

    def set_rm(i: int, v: str) -> tuple[str, ...]:
        return (*rm[:i], v, *rm[i + 1:])

    if tm == "init" and prepared == frozenset(RMS):
        out.append((rm, "committed", prepared, msgs | {("Commit",)}))
    if tm == "init":
        out.append((rm, "aborted", prepared, msgs | {("Abort",)}))
    for i, r in enumerate(RMS):
        if tm == "init" and ("Prepared", r) in msgs:
            out.append((rm, tm, prepared | {r}, msgs))
        if rm[i] == "working":
            out.append((set_rm(i, "prepared"), tm, prepared, msgs | {("Prepared", r)}))
            out.append((set_rm(i, "aborted"), tm, prepared, msgs))
        if ("Commit",) in msgs:
            out.append((set_rm(i, "committed"), tm, prepared, msgs))
        if ("Abort",) in msgs:
            out.append((set_rm(i, "aborted"), tm, prepared, msgs))
    return out


def test_two_phase_commit_with_three_resource_managers() -> None:
    brute = brute_bfs([(("working",) * 3, "init", frozenset(), frozenset())], twophase_succ)
    assert all(not ("aborted" in rm and "committed" in rm) for rm, _, _, _ in brute.level)
    r = run_check("TwoPhase")
    assert (r.verdict, r.states_generated, r.distinct_states, r.depth) == (
        "ok", brute.generated, brute.distinct, brute.depth)
    # The same search with a queue that spills to disk after a handful of states.
    r = run_check("TwoPhase", queue_memory=8)
    assert (r.verdict, r.states_generated, r.distinct_states, r.depth) == (
        "ok", brute.generated, brute.distinct, brute.depth)


# ---------------------------------------------------------------------------
# Deadlock
# ---------------------------------------------------------------------------


def stop_succ(s: tuple[int, int]) -> list[tuple[int, int]]:
    x, y = s
    return ([(x + 1, y)] if x < 2 else []) + ([(x, y + 1)] if y < 1 else [])


def test_deadlock_is_reported_with_a_shortest_trace() -> None:
    brute = brute_bfs([(0, 0)], stop_succ)
    dead = [s for s in brute.level if not stop_succ(s)]
    assert dead == [(2, 1)]
    r = run_check("Stop")
    assert r.verdict == "deadlock" and r.exit_code == 12 and r.property is None
    assert len(r.trace) == brute.level[(2, 1)]
    assert (var(r, -1, "x"), var(r, -1, "y")) == (2, 1)
    r = run_check("Stop", check_deadlock=False)
    assert (r.verdict, r.states_generated, r.distinct_states) == ("ok", brute.generated, brute.distinct)


# ---------------------------------------------------------------------------
# [][P]_v properties
# ---------------------------------------------------------------------------


def monotone_succ(n: int) -> list[int]:
    out = [n + k for k in (1, 2) if n + k <= 4]
    if n == 3:
        out.append(1)
    if n == 4:
        out.append(4)
    return out


def test_action_property_violation() -> None:
    brute = brute_bfs([0], monotone_succ)
    r = run_check("Monotone")
    assert r.verdict == "violation" and r.property == "NeverDecreases"
    assert r.message == "Action property NeverDecreases is violated."
    # The shortest path to the only decreasing transition (from 3), plus that transition.
    assert len(r.trace) == brute.level[3] + 1
    assert [var(r, k, "n") for k in (-2, -1)] == [3, 1]
    assert r.trace[-1].action == "Drop"


def test_action_property_that_holds_and_liveness(tmp_path: Path) -> None:
    spec = tmp_path / "Monotone.tla"
    spec.write_text((SPECS / "Monotone.tla").read_text().replace(
        "Bounded == [](n <= 4)", "Bounded == [](n <= 4)\nNoBigJump == [][n' <= n + 2]_n\nLive == <>(n = 4)\n"
        "Odd == <>[]<>(n = 4)"))
    (tmp_path / "Monotone.cfg").write_text("SPECIFICATION Spec\nPROPERTIES Bounded NoBigJump\n")
    r = check(Model.load(spec), read_config(tmp_path / "Monotone.cfg"), progress=False)
    brute = brute_bfs([0], monotone_succ)
    assert (r.verdict, r.states_generated, r.distinct_states) == ("ok", brute.generated, brute.distinct)
    # without fairness the behaviour may stutter forever in its initial state
    (tmp_path / "Monotone.cfg").write_text("SPECIFICATION Spec\nPROPERTY Live\n")
    r = check(Model.load(spec), read_config(tmp_path / "Monotone.cfg"), progress=False)
    assert (r.verdict, r.property, r.loop) == ("violation", "Live", 0)
    assert [step.action for step in r.trace] == ["Init", "Stuttering"]
    (tmp_path / "Monotone.cfg").write_text("SPECIFICATION Spec\nPROPERTY Odd\n")
    r = check(Model.load(spec), read_config(tmp_path / "Monotone.cfg"), progress=False)
    assert r.verdict == "error" and r.exit_code == 1
    assert "PROPERTY Odd" in (r.message or "") and "Monotone.tla:" in (r.message or "")


# ---------------------------------------------------------------------------
# SYMMETRY and VIEW
# ---------------------------------------------------------------------------

def tokens_succ(s: tuple[tuple[int, ...], int, int]) -> list[Any]:
    tokens, steps, _last = s
    out = []
    for i, j in itertools.product(range(3), repeat=2):
        if i != j and tokens[i] > 0:
            t = list(tokens)
            t[i] -= 1
            t[j] += 1
            out.append((tuple(t), min(steps + 1, 2), j))
    return out


def tokens_key(s: tuple[tuple[int, ...], int, int]) -> Hashable:
    # VIEW is <<tokens, steps>>; SYMMETRY permutes the three processes.
    return (min(tuple(s[0][k] for k in perm) for perm in itertools.permutations(range(3))), s[1])


def test_symmetry_and_view() -> None:
    inits = [(t, 0, last) for t in itertools.product(range(3), repeat=3) if sum(t) == 2 for last in range(3)]
    brute = brute_bfs(inits, tokens_succ, key=tokens_key)
    plain = brute_bfs(inits, tokens_succ)
    assert brute.distinct < plain.distinct
    r = run_check("Tokens")
    assert (r.verdict, r.states_generated, r.distinct_states, r.depth) == (
        "ok", brute.generated, brute.distinct, brute.depth)


def test_symmetry_must_permute_model_values(tmp_path: Path) -> None:
    spec = tmp_path / "Tokens.tla"
    spec.write_text((SPECS / "Tokens.tla").read_text())
    (tmp_path / "Tokens.cfg").write_text(
        "CONSTANTS Procs = {1, 2, 3} Total = 2\nINIT Init NEXT Next SYMMETRY Perms\n")
    config = read_config(tmp_path / "Tokens.cfg")
    r = check(Model.load(spec, constants=config.constants), config, progress=False)
    assert r.verdict == "error" and "model values" in (r.message or "")
    assert "Tokens.cfg:2:" in (r.message or "")


# ---------------------------------------------------------------------------
# CONSTRAINT and ACTION_CONSTRAINT
# ---------------------------------------------------------------------------


def counter_succ(s: tuple[int, int]) -> list[tuple[int, int]]:
    a, b = s
    return [(a + 1, b), (a, b + a)] + ([(a - 1, b + 1)] if a > 0 else [])


def test_constraints_bound_the_exploration() -> None:
    brute = brute_bfs([(0, 0)], counter_succ, in_model=lambda s: s[0] + s[1] <= 4,
                      allowed=lambda s, t: t[1] - s[1] <= 2)
    assert all(s[0] + s[1] <= 4 for s in brute.level)  # states beyond it are not stored
    assert brute.generated > brute.distinct + 10  # ... but they are generated
    r = run_check("Counter")
    assert (r.verdict, r.states_generated, r.distinct_states, r.depth) == (
        "ok", brute.generated, brute.distinct, brute.depth)


# ---------------------------------------------------------------------------
# Limits and simulation
# ---------------------------------------------------------------------------


def test_max_states_limit() -> None:
    r = run_check("TwoPhase", max_states=10)
    assert r.verdict == "limit" and r.exit_code == 3
    assert r.distinct_states == 10 and r.queue_left > 0


def test_simulation_is_deterministic_per_seed_and_finds_the_puzzle_solution() -> None:
    config = read_config(SPECS / "DieHard.cfg")
    model = Model.load(SPECS / "DieHard.tla")
    depth, traces = 60, 600
    runs = [simulate(model, config, depth=depth, traces=traces, seed=s, progress=False) for s in (7, 7, 8)]
    assert runs[0].to_json()["trace"] == runs[1].to_json()["trace"]
    assert runs[0].states_generated == runs[1].states_generated
    # Chance that a uniform random walk of `depth` states reaches big = 4 (exact, by
    # propagating the distribution); a run of `traces` walks misses with (1 - p)^traces.
    dist: dict[tuple[int, int], float] = {(0, 0): 1.0}
    p_hit = 0.0
    for _ in range(depth - 1):
        nxt: dict[tuple[int, int], float] = {}
        for st, p in dist.items():
            for t in diehard_succ(st):
                if t[1] == 4:
                    p_hit += p / 6
                else:
                    nxt[t] = nxt.get(t, 0.0) + p / 6
        dist = nxt
    assert (1 - p_hit) ** (2 * traces) < 1e-4
    found = [r for r in runs if r.verdict == "violation"]
    assert found, "random walks find big = 4"
    for r in found:
        assert r.property == "NotSolved" and var(r, -1, "big") == 4
        states = [(var(r, k, "small"), var(r, k, "big")) for k in range(len(r.trace))]
        for a, b in itertools.pairwise(states):
            assert b in diehard_succ(a)
    config = read_config(SPECS / "Peterson.cfg")
    ok = simulate(Model.load(SPECS / "Peterson.tla"), config, depth=20, traces=20, seed=1, progress=False)
    brute = brute_bfs([((False, False), 0, ("idle", "idle"))], peterson_succ)
    assert ok.verdict == "ok" and 0 < ok.distinct_states <= brute.distinct and ok.depth == 20


# ---------------------------------------------------------------------------
# The command line: exit codes, JSON, ITF
# ---------------------------------------------------------------------------


def test_cli_json_and_itf(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "cex.itf.json"
    code = main(["check", str(SPECS / "DieHard.tla"), "--json", "--quiet", "--itf", str(out)])
    doc = json.loads(capsys.readouterr().out)
    assert code == 12
    assert doc["verdict"] == "violation" and doc["property"] == "NotSolved"
    brute = brute_bfs([(0, 0)], diehard_succ)
    assert len(doc["trace"]) == min(v for (s, b), v in brute.level.items() if b == 4)
    assert doc["trace"][0]["action"] == "Init" and doc["trace"][0]["params"] == {}
    assert doc["trace"][-1]["state"]["big"] == 4  # plain JSON integers outside ITF files
    assert set(doc) == {"verdict", "property", "message", "states_generated", "distinct_states",
                        "queue_left", "depth", "seconds", "trace"}
    trace = itf.read_trace(out)
    assert trace.vars == ["small", "big"]
    assert [s["big"] for s in trace.states] == [itf.decode(t["state"]["big"]) for t in doc["trace"]]


def test_cli_exit_codes_and_summary_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["check", str(SPECS / "Peterson.tla"), "--quiet"]) == 0
    lines = capsys.readouterr().out.strip().splitlines()
    brute = brute_bfs([((False, False), 0, ("idle", "idle"))], peterson_succ)
    assert lines[-1] == f"{brute.generated} states generated, {brute.distinct} distinct states found, " \
                        "0 states left on queue."
    assert main(["check", str(SPECS / "Stop.tla"), "--quiet"]) == 12
    assert main(["check", str(SPECS / "Stop.tla"), "--quiet", "--no-deadlock"]) == 0
    assert main(["check", str(SPECS / "TwoPhase.tla"), "--quiet", "--max-states", "5"]) == 3
    capsys.readouterr()
    bad_cfg = tmp_path / "bad.cfg"
    bad_cfg.write_text("INIT Init\nNEXT Next\nINVARIANT Missing\n")
    assert main(["check", str(SPECS / "Stop.tla"), "--config", str(bad_cfg), "--quiet", "--json"]) == 1
    doc = json.loads(capsys.readouterr().out)
    assert doc["verdict"] == "error" and f"{bad_cfg}:3:11" in doc["message"]
    assert main(["check", str(SPECS / "Stop.tla"), "--max-states", "0"]) == 2
    with pytest.raises(SystemExit) as exc:
        main(["check", str(SPECS / "Stop.tla"), "--bogus"])
    assert exc.value.code == 2


def test_human_counterexample_in_tlc_style(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["check", str(SPECS / "Monotone.tla"), "--quiet"]) == 12
    out = capsys.readouterr().out
    assert "Error: Action property NeverDecreases is violated." in out
    assert "State 1: <Initial predicate>\n/\\ n = 0\n" in out
    assert "<Drop line " in out and " of module Monotone>\n/\\ n = 1\n" in out


TYPED = r"""---- MODULE Typed ----
EXTENDS Naturals
VARIABLES
  \* @type: Int;
  n,
  \* @type: Int;
  x
Init == n = 0 /\ x = 0
Next == n < 3 /\ n' = n + 1 /\ x' = IF n' = 3 THEN "done" ELSE n'
====
"""


def test_typecheck_catches_a_value_of_the_wrong_type(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    spec = tmp_path / "Typed.tla"
    spec.write_text(TYPED)
    (tmp_path / "Typed.cfg").write_text("INIT Init\nNEXT Next\nCHECK_DEADLOCK FALSE\n")
    assert main(["check", str(spec), "--quiet", "--json"]) == 12
    doc = json.loads(capsys.readouterr().out)
    assert doc["verdict"] == "violation"
    assert "state 4" in doc["message"] and "variable x" in doc["message"] and '"done"' in doc["message"]
    assert [s["state"]["x"] for s in doc["trace"]][-1] == "done"
    assert main(["check", str(spec), "--quiet", "--no-typecheck"]) == 0
    capsys.readouterr()
    spec.write_text(TYPED.replace("  \\* @type: Int;\n  x", "  x"))
    assert main(["check", str(spec), "--quiet"]) == 0  # x not annotated: off by default
    assert main(["check", str(spec), "--quiet", "--typecheck"]) == 1
    assert "variable(s) x" in capsys.readouterr().err


def test_model_values_in_counterexample_are_strings_in_json(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    spec = tmp_path / "TwoPhase.tla"
    spec.write_text((SPECS / "TwoPhase.tla").read_text().replace(
        "TPSpec ==", "NotCommitted == tmState /= \"committed\"\n\nTPSpec =="))
    (tmp_path / "TwoPhase.cfg").write_text(
        (SPECS / "TwoPhase.cfg").read_text().replace("TCConsistent", "TCConsistent NotCommitted"))
    assert main(["check", str(spec), "--quiet", "--json"]) == 12
    doc = json.loads(capsys.readouterr().out)
    brute = brute_bfs([(("working",) * 3, "init", frozenset(), frozenset())], twophase_succ)
    assert len(doc["trace"]) == min(v for s, v in brute.level.items() if s[1] == "committed")
    last = doc["trace"][-1]["state"]
    assert last["rmState"] == {"#map": [[r, "prepared"] for r in RMS]}
    assert {"rm": "r2", "type": "Prepared"} in last["msgs"]["#set"]
    assert doc["trace"][-1]["action"] == "TMCommit"
    assert any(step["params"] == {"r": "r1"} for step in doc["trace"])


def test_action_property_counterexample_under_symmetry_and_view(tmp_path: Path) -> None:
    spec = tmp_path / "Tokens.tla"
    spec.write_text((SPECS / "Tokens.tla").read_text().replace(
        "View ==", "FewPerProc == [][\\A p \\in Procs : tokens'[p] <= 1]_tokens\nView =="))
    (tmp_path / "Tokens.cfg").write_text((SPECS / "Tokens.cfg").read_text() + "PROPERTY FewPerProc\n")
    config = read_config(tmp_path / "Tokens.cfg")
    r = check(Model.load(spec, constants=config.constants), config, progress=False)
    assert r.verdict == "violation" and r.property == "FewPerProc"
    procs_set = config.constants["Procs"]
    assert isinstance(procs_set, frozenset)
    procs = sorted(procs_set, key=lambda v: v.name)

    def brute_state(k: int) -> tuple[tuple[int, ...], int, int]:
        tokens = var(r, k, "tokens")
        return (tuple(fn_apply(tokens, p) for p in procs), var(r, k, "steps"), procs.index(var(r, k, "last")))

    states = [brute_state(k) for k in range(len(r.trace))]
    assert sum(states[0][0]) == 2 and states[0][1] == 0
    for a, b in itertools.pairwise(states):
        assert b in tokens_succ(a)
    assert max(states[-1][0]) == 2
    inits = [(t, 0, last) for t in itertools.product(range(3), repeat=3) if sum(t) == 2 for last in range(3)]
    levels = brute_bfs(inits, tokens_succ).level
    shortest = min(lvl + 1 for st, lvl in levels.items() if any(max(t[0]) >= 2 for t in tokens_succ(st)))
    assert len(r.trace) == shortest


def test_time_limit_stops_an_infinite_exploration(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "Counter.tla").write_text((SPECS / "Counter.tla").read_text())
    (tmp_path / "Counter.cfg").write_text("CONSTANT Limit = 4\nINIT Init\nNEXT Next\n")
    code = main(["check", str(tmp_path / "Counter.tla"), "--quiet", "--json", "--time-limit", "0.5"])
    doc = json.loads(capsys.readouterr().out)
    assert code == 3 and doc["verdict"] == "limit" and doc["queue_left"] > 0
    assert "time limit" in doc["message"] and 0.5 <= doc["seconds"] < 30


def test_cli_simulation(capsys: pytest.CaptureFixture[str]) -> None:
    args = ["check", str(SPECS / "Peterson.tla"), "--simulate", "--depth", "15", "--traces", "5",
            "--seed", "3", "--quiet", "--json"]
    assert main(args) == 0
    first = json.loads(capsys.readouterr().out)
    assert main(args) == 0
    second = json.loads(capsys.readouterr().out)
    assert first["verdict"] == "ok" and first["depth"] == 15
    assert first["states_generated"] == second["states_generated"] > 0
    assert main(["check", str(SPECS / "Stop.tla"), "--simulate", "--depth", "10", "--traces", "1",
                 "--quiet", "--json"]) == 12
    doc = json.loads(capsys.readouterr().out)
    assert doc["verdict"] == "deadlock"
    last = doc["trace"][-1]["state"]
    assert (last["x"], last["y"]) == (2, 1)  # plain JSON integers outside ITF files
    assert main(["check", str(SPECS / "Stop.tla"), "--simulate", "--depth", "0"]) == 2


@pytest.mark.parametrize("name", ["DieHard", "Peterson", "TwoPhase", "Stop", "Monotone", "Tokens", "Counter"])
def test_several_workers_agree_with_one(name: str) -> None:
    one = run_check(name)
    two = run_check(name, workers=2)
    # the workers' outcomes are taken in the order of the states expanded, and each
    # state's successors in fingerprint order, as one worker takes them: the very same
    # counterexample, and the same counts where the search stops
    assert (two.verdict, two.property, two.trace) == (one.verdict, one.property, one.trace)
    assert (two.states_generated, two.distinct_states, two.depth, two.queue_left) == (
        one.states_generated, one.distinct_states, one.depth, one.queue_left)
    model = Model.load(SPECS / f"{name}.tla", constants=read_config(SPECS / f"{name}.cfg").constants)
    for a, b in itertools.pairwise(two.trace):
        assert b.state in {t for _, t in model.successors(a.state)}


def test_workers_on_the_command_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["check", str(SPECS / "TwoPhase.tla"), "--quiet", "--json", "--workers", "2"]) == 0
    doc = json.loads(capsys.readouterr().out)
    brute = brute_bfs([(("working",) * 3, "init", frozenset(), frozenset())], twophase_succ)
    assert (doc["states_generated"], doc["distinct_states"]) == (brute.generated, brute.distinct)
    assert main(["check", str(SPECS / "TwoPhase.tla"), "--quiet", "--workers", "2", "--max-states", "7"]) == 3
    assert main(["check", str(SPECS / "Stop.tla"), "--workers", "0"]) == 2


def test_cli_input_errors_name_the_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    broken = tmp_path / "Broken.tla"
    broken.write_text("---- MODULE Broken ----\nVARIABLE x\nInit == x = \nNext == x' = x\n====\n")
    (tmp_path / "Broken.cfg").write_text("INIT Init\nNEXT Next\n")
    assert main(["check", str(broken), "--quiet"]) == 1
    assert f"{broken}:" in capsys.readouterr().err
    assert main(["check", str(tmp_path / "Absent.tla"), "--quiet", "--json"]) == 1
    assert json.loads(capsys.readouterr().out)["verdict"] == "error"
    assert main(["check", str(SPECS / "DieHard.tla"), "--config", str(tmp_path / "none.cfg"), "--quiet"]) == 1
    assert "none.cfg" in capsys.readouterr().err
    (tmp_path / "a-file").write_text("x")
    unwritable = tmp_path / "a-file" / "cex.itf.json"  # checked before the search: a usage error
    assert main(["check", str(SPECS / "DieHard.tla"), "--quiet", "--itf", str(unwritable)]) == 2
    assert f"--itf {unwritable}" in capsys.readouterr().err


@pytest.mark.parametrize("workers", ["1", "2"])
def test_terminated_check_removes_its_spill_folder(tmp_path: Path, workers: str) -> None:
    import os
    import signal
    import subprocess
    import sys
    import time

    (tmp_path / "Counter.tla").write_text((SPECS / "Counter.tla").read_text())
    (tmp_path / "Counter.cfg").write_text("CONSTANT Limit = 4\nINIT Init\nNEXT Next\n")
    spill = tmp_path / "tmp"
    spill.mkdir()
    proc = subprocess.Popen([sys.executable, "-m", "conformance", "check", str(tmp_path / "Counter.tla"),
                             "--quiet", "--workers", workers],
                            env={**os.environ, "TMPDIR": str(spill)},
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 60
    while not list(spill.glob("kraftcheck-queue-*")) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert list(spill.glob("kraftcheck-queue-*")), "the queue spilled (the spec is infinite)"
    proc.send_signal(signal.SIGTERM)
    assert proc.wait(timeout=60) == 128 + signal.SIGTERM
    assert list(spill.glob("kraftcheck-queue-*")) == []


@pytest.mark.parametrize("workers", [1, 2])
def test_a_state_outside_the_constraint_is_checked_against_the_invariants(
        tmp_path: Path, workers: int) -> None:
    # As TLC: the state x = 3 fails the CONSTRAINT, is not stored, but still violates Inv.
    (tmp_path / "Out.tla").write_text("---- MODULE Out ----\nEXTENDS Naturals\nVARIABLE x\n"
                                      "Init == x = 0\nNext == x' = x + 1\nInv == x < 3\n"
                                      "Bound == x < 3\n====\n")
    config = parse_config("INIT Init\nNEXT Next\nINVARIANT Inv\nCONSTRAINT Bound\n")
    r = check(Model.load(tmp_path / "Out.tla"), config, progress=False, workers=workers)
    assert r.verdict == "violation" and r.property == "Inv"
    assert [step.state[0] for step in r.trace] == [0, 1, 2, 3]
    assert r.distinct_states == 3  # x = 3 was never stored
    ok = check(Model.load(tmp_path / "Out.tla"),
               parse_config("INIT Init\nNEXT Next\nCONSTRAINT Bound\nCHECK_DEADLOCK FALSE\n"),
               progress=False, workers=workers)
    assert (ok.verdict, ok.distinct_states, ok.states_generated, ok.depth) == ("ok", 3, 4, 3)


def test_a_workers_verdict_stands_where_the_check_passes_again(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # The main process checks again the successor that stopped a worker; where that check
    # passes (an invariant that is not deterministic), the worker's verdict stands, with the
    # step to that successor at the end of the counterexample.
    from conformance.tla import explorer

    (tmp_path / "Up.tla").write_text("---- MODULE Up ----\nEXTENDS Naturals\nVARIABLE x\n"
                                     "Init == x = 0\nNext == x' = x + 1\nInv == x < 3\n====\n")
    stored = explorer.Search._new_state

    def passing(self: Any, state: Any, parent: int, *args: Any) -> None:
        if parent < 0:  # the initial states, checked before the workers start
            stored(self, state, parent, *args)
        else:  # stored without the check (forked workers keep the real method)
            self.seen.add(self.identity(state), parent)

    monkeypatch.setattr(explorer.Search, "_new_state", passing)
    r = check(Model.load(tmp_path / "Up.tla"), parse_config("INIT Init\nNEXT Next\nINVARIANT Inv\n"),
              progress=False, workers=2)
    assert (r.verdict, r.property) == ("violation", "Inv")
    assert [step.state[0] for step in r.trace] == [0, 1, 2, 3]


def test_two_workers_stop_while_large_chunks_wait(tmp_path: Path) -> None:
    # Each initial state holds a large value of its own, so a chunk of states sent to a
    # worker fills a pipe; the first chunk stops the search while others wait to be sent:
    # the workers are stopped and the check returns.
    spec = tmp_path / "Wide.tla"
    spec.write_text("---- MODULE Wide ----\nEXTENDS Naturals\nVARIABLES x, pad\n"
                    "Init == x \\in 1..2000 /\\ pad = [i \\in 1..300 |-> 1000 * x + i]\n"
                    "Next == x' = x + 10000 /\\ UNCHANGED pad\nInv == x < 10001\n====\n")
    (tmp_path / "Wide.cfg").write_text("INIT Init\nNEXT Next\nINVARIANT Inv\n")
    proc = subprocess.run([sys.executable, "-m", "conformance", "check", str(spec), "--quiet",
                           "--workers", "2"], capture_output=True, text=True, timeout=120, check=False)
    assert proc.returncode == 12, proc.stdout + proc.stderr
    assert "Invariant Inv is violated" in proc.stdout


@pytest.mark.parametrize("defect", ["raises", "exits"])
def test_a_worker_that_fails_or_dies_is_an_error_naming_it(
        defect: str, monkeypatch: pytest.MonkeyPatch) -> None:
    from conformance.tla import parallel

    def broken(item: Any, level: int) -> Any:  # forked workers inherit it
        if defect == "raises":
            raise ValueError("a defect in the worker")
        os._exit(3)

    monkeypatch.setattr(parallel, "_expand", broken)
    with pytest.raises(RuntimeError) as err:
        run_check("TwoPhase", workers=2)
    text = str(err.value)
    if defect == "raises":
        assert "a worker process of the search failed" in text and "ValueError: a defect in the worker" in text
    else:
        assert "a worker process of the search ended unexpectedly (exit code 3)" in text
