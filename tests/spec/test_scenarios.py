"""The scenario initial states of MC_KRaft.tla are reachable: replaying the prefix each
one documents, from Init, reaches that state (with its messages dropped)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from conformance.tla.cfg import read_config
from conformance.tla.model import Model, State
from conformance.tla.values import Fn, fn_apply

SPEC = Path(__file__).resolve().parents[2] / "spec"

Step = tuple[str, Any]  # (action, list of arguments | dict of message fields)


def vreq(src: int, dst: int, epoch: int) -> Step:
    return ("HandleVoteRequest", {"type": "VoteRequest", "source": src, "dest": dst, "epoch": epoch})


def vresp(src: int, dst: int, epoch: int) -> Step:
    return ("HandleVoteResponse", {"type": "VoteResponse", "source": src, "dest": dst, "epoch": epoch,
                                   "voteGranted": True})


def bqe(src: int, dst: int) -> Step:
    return ("HandleBeginQuorumEpochRequest", {"type": "BeginQuorumEpochRequest", "source": src, "dest": dst})


def freq(src: int, dst: int, offset: int) -> Step:
    return ("HandleFetchRequest", {"type": "FetchRequest", "source": src, "dest": dst, "fetchOffset": offset})


def fresp(src: int, dst: int, offset: int) -> Step:
    return ("HandleFetchResponse", {"type": "FetchResponse", "source": src, "dest": dst, "fetchOffset": offset})


def remove(leader: int, voter: int) -> Step:
    return ("HandleRemoveVoterRequest", {"type": "RemoveVoterRequest", "dest": leader, "voterId": voter})


def stable_leader(voters: list[int]) -> list[Step]:
    """The prefix of ScenarioStableLeader for voters 1, ..., n (replica 1 elected by a majority)."""
    others = [j for j in voters if j != 1]
    majority = len(voters) // 2
    steps: list[Step] = [("BecomeCandidate", [1])]
    steps += [vreq(1, j, 1) for j in others]
    steps += [vresp(j, 1, 1) for j in others[:majority]]
    for j in others:
        steps += [("SendBeginQuorumEpoch", [1, j]), bqe(1, j)]
    for j in others:
        steps += [("SendFetchRequest", [j, 1]), freq(j, 1, 0), fresp(1, j, 0)]
    for j in others:
        steps += [("SendFetchRequest", [j, 1]), freq(j, 1, 1)]
    return steps


PREFIXES: dict[str, list[Step]] = {
    "ScenarioFirstEntryReplicated": [
        ("BecomeCandidate", [1]), vreq(1, 2, 1), vresp(2, 1, 1), ("SendBeginQuorumEpoch", [1, 2]),
        bqe(1, 2), ("SendFetchRequest", [2, 1]), freq(2, 1, 0), fresp(1, 2, 0),
    ],
    "ScenarioFirstEntryCommitted": [
        ("BecomeCandidate", [1]), vreq(1, 2, 1), vresp(2, 1, 1), ("SendBeginQuorumEpoch", [1, 2]),
        bqe(1, 2), ("SendFetchRequest", [2, 1]), freq(2, 1, 0), fresp(1, 2, 0),
        ("SendFetchRequest", [2, 1]), freq(2, 1, 1),
    ],
    "ScenarioFigureEight": [
        ("BecomeCandidate", [1]), vreq(1, 3, 1), vresp(3, 1, 1),
        ("BecomeCandidate", [2]), ("BecomeCandidate", [2]), vreq(2, 3, 2), vresp(3, 2, 2),
        ("Resign", [1]), ("BecomeCandidate", [1]), ("BecomeCandidate", [1]), vreq(1, 3, 3), vresp(3, 1, 3),
        ("Resign", [2]), ("SendBeginQuorumEpoch", [1, 3]), bqe(1, 3),
        ("SendFetchRequest", [3, 1]), freq(3, 1, 0), fresp(1, 3, 0),
    ],
    "ScenarioStaleLeaderEntry": [
        ("BecomeCandidate", [1]), vreq(1, 3, 1), vresp(3, 1, 1),
        ("BecomeCandidate", [2]), ("BecomeCandidate", [2]), vreq(2, 3, 2), vresp(3, 2, 2),
        ("SendBeginQuorumEpoch", [2, 3]), bqe(2, 3),
        ("SendFetchRequest", [3, 2]), freq(3, 2, 0), fresp(2, 3, 0),
        ("SendFetchRequest", [3, 2]), freq(3, 2, 1), fresp(2, 3, 1),
    ],
}

# Scenarios of a dynamic quorum (KIP-853), replayed with the config (KIP rules) that starts from them.
DYNAMIC: dict[str, tuple[str, list[Step]]] = {
    "ScenarioFirstEntryCommitted": ("MC_KRaft_scenario_two_changes.cfg", PREFIXES["ScenarioFirstEntryCommitted"]),
    "ScenarioStaleVoterChange": ("MC_KRaft_scenario_stale_change.cfg", [
        ("BecomeCandidate", [1]), vreq(1, 3, 1), vreq(1, 4, 1), vresp(3, 1, 1), vresp(4, 1, 1),
        ("SendBeginQuorumEpoch", [1, 3]), bqe(1, 3), ("SendBeginQuorumEpoch", [1, 4]), bqe(1, 4),
        ("SendFetchRequest", [3, 1]), freq(3, 1, 0), fresp(1, 3, 0),
        ("SendFetchRequest", [4, 1]), freq(4, 1, 0), fresp(1, 4, 0),
        ("SendFetchRequest", [3, 1]), freq(3, 1, 1), ("SendFetchRequest", [4, 1]), freq(4, 1, 1),
        ("SendBeginQuorumEpoch", [1, 2]), bqe(1, 2), ("SendFetchRequest", [2, 1]), freq(2, 1, 0),
        fresp(1, 2, 0), ("SendRemoveVoterRequest", [1, 4, 1]), remove(1, 4), ("Resign", [1]),
        ("BecomeCandidate", [2]), vreq(2, 1, 2), vreq(2, 3, 2), vreq(2, 4, 2), vresp(3, 2, 2), vresp(4, 2, 2),
        ("SendBeginQuorumEpoch", [2, 4]), bqe(2, 4), ("SendFetchRequest", [4, 2]), freq(4, 2, 1),
        fresp(2, 4, 1),
    ]),
    "ScenarioTwoRemovalsRequested": ("MC_KRaft_two_changes.cfg", PREFIXES["ScenarioFirstEntryCommitted"] + [
        ("SendRemoveVoterRequest", [1, 2, 1]), ("SendRemoveVoterRequest", [1, 3, 1]),
    ]),
    "ScenarioStandaloneCaughtUp": ("MC_KRaft_dynamic.cfg", [
        ("BecomeCandidate", [1]), ("SendFetchRequest", [2, 1]), freq(2, 1, 0), fresp(1, 2, 0),
        ("SendFetchRequest", [2, 1]), freq(2, 1, 0), fresp(1, 2, 0), ("SendFetchRequest", [2, 1]),
        freq(2, 1, 1),
    ]),
    "ScenarioStableLeader": ("MC_KRaft_reassign_3to5.cfg", stable_leader([1, 2, 3])),
}
# The same scenario under another config (other voters).
DYNAMIC_AGAIN: dict[str, tuple[str, list[Step]]] = {
    "ScenarioStaleChangeRequested": ("MC_KRaft_change_before_commit.cfg", DYNAMIC["ScenarioStaleVoterChange"][1] + [
        ("SendRemoveVoterRequest", [2, 3, 1]),
    ]),
    "ScenarioStableLeader": ("MC_KRaft_reassign_5to3.cfg", stable_leader([1, 2, 3, 4, 5])),
}


def load_cfg(name: str) -> Model:
    cfg = read_config(SPEC / name)
    return Model.load(SPEC / "MC_KRaft.tla", constants=cfg.constants, overrides=cfg.overrides)


@pytest.fixture(scope="module")
def model() -> Model:
    return load_cfg("MC_KRaft_small.cfg")


def matches(message: Fn, fields: dict[str, Any]) -> bool:
    return all(fn_apply(message, k) == v for k, v in fields.items())


def replay(model: Model, steps: list[Step]) -> set[State]:
    """Every state the steps can lead to (handlers may have several successors)."""
    msgs = model.variables.index("messages")
    frontier = set(model.init_states())
    for k, (action, args) in enumerate(steps):
        nxt: set[State] = set()
        for state in frontier:
            if isinstance(args, dict):
                chosen = [m for m in state[msgs] if matches(m, args)]  # type: ignore[union-attr]
                calls = [[m] for m in chosen]
            else:
                calls = [args]
            for call in calls:
                nxt.update(model.action_successors(action, call, state))
        assert nxt, f"step {k + 1} ({action} {args}) is not enabled"
        frontier = nxt
    return frontier


def reaches(model: Model, steps: list[Step], target: State) -> list[str]:
    """The variables in which the nearest replayed state differs from ``target`` ([] when one
    replayed state equals it, its messages being a subset of the replayed ones)."""
    msgs = model.variables.index("messages")
    reached = replay(model, steps)

    def diff(s: State) -> list[str]:
        out = [v for k, (v, a, b) in enumerate(zip(model.variables, s, target, strict=True))
               if k != msgs and a != b]
        if not target[msgs] <= s[msgs]:  # type: ignore[operator]
            out.append("messages")
        return out

    return min((diff(s) for s in reached), key=len)


CASES = ([(name, None) for name in sorted(set(PREFIXES) | set(DYNAMIC))]
         + [(name, "again") for name in sorted(DYNAMIC_AGAIN)])


@pytest.mark.parametrize(("scenario", "variant"), CASES)
def test_scenario_is_reachable(model: Model, scenario: str, variant: str | None) -> None:
    steps = PREFIXES.get(scenario, [])
    table = DYNAMIC_AGAIN if variant else DYNAMIC
    if scenario in table:
        cfg, steps = table[scenario]
        model = load_cfg(cfg)
    (target,) = list(model.init_states(scenario))
    diff = reaches(model, steps, target)
    if diff:
        pytest.fail(f"{scenario} differs from the replayed state in {diff}")


def test_a_wrong_scenario_is_caught(model: Model) -> None:
    """The replay check itself can fail: a prefix one step short does not reach it."""
    (target,) = list(model.init_states("ScenarioStaleLeaderEntry"))
    assert reaches(model, PREFIXES["ScenarioStaleLeaderEntry"][:-1], target)
    dyn = load_cfg("MC_KRaft_two_changes.cfg")
    (requested,) = list(dyn.init_states("ScenarioTwoRemovalsRequested"))
    # a request the prefix never sent is caught
    assert reaches(dyn, DYNAMIC["ScenarioTwoRemovalsRequested"][1][:-1], requested) == ["messages"]
