"""The simulator: determinism, trace format, invariants, bug switches, CLI."""

from __future__ import annotations

import argparse
import gzip
import json
from pathlib import Path

import pytest

from conformance.validate.mutations import read_lines
from reference.core.messages import DATA, LEADER_CHANGE, MESSAGE_FIELDS, Entry
from reference.sim import cli
from reference.sim.bugs import BUGS
from reference.sim.faults import DEFAULT_FAULTS, FAULTS
from reference.sim.invariants import SafetyChecker
from reference.sim.simulator import SimConfig, run_seed
from reference.trace.itf_export import ITF_VARS, export_trace
from reference.trace.spec_constants import RULE_TOGGLES

SPEC_VARS = {"currentEpoch", "votedId", "leaderId", "log", "role", "highWatermark",
             "votesGranted", "endorsers", "replicaEndOffset"}
ACTIONS = {"BecomeCandidate", "SendFetchRequest", "SendBeginQuorumEpoch", "Resign", "Shutdown", "ClientAppend",
           "Restart", "LoseDisk", "SendForeignRequest", "HandleVoteRequest", "HandleVoteResponse",
           "HandleBeginQuorumEpochRequest", "HandleBeginQuorumEpochResponse",
           "HandleEndQuorumEpochRequest", "HandleEndQuorumEpochResponse", "HandleFetchRequest",
           "HandleFetchResponse", "AdvanceHighWatermark"}


def _lines(path: Path) -> list[dict]:
    opener = gzip.open if path.suffix == ".gz" else open
    with opener(path, "rt") as f:
        return [json.loads(line) for line in f]


def test_same_seed_same_trace(tmp_path: Path) -> None:
    a = run_seed(SimConfig(steps=600, out_dir=tmp_path / "a"), 5)
    b = run_seed(SimConfig(steps=600, out_dir=tmp_path / "b"), 5)
    c = run_seed(SimConfig(steps=600, out_dir=tmp_path / "c"), 6)
    assert a.trace_path and b.trace_path and c.trace_path
    assert a.trace_path.read_bytes() == b.trace_path.read_bytes()
    assert a.trace_path.read_bytes() != c.trace_path.read_bytes()
    assert a.stats == b.stats


def test_trace_format(tmp_path: Path) -> None:
    faults = frozenset(DEFAULT_FAULTS) | {"foreign"}
    result = run_seed(SimConfig(steps=1500, out_dir=tmp_path, faults=faults, gzip=True), 3)
    assert result.ok and result.trace_path is not None and result.trace_path.suffix == ".gz"
    raw_events = _lines(result.trace_path)[2:-1]
    assert all("delta" in e and "state" not in e for e in raw_events)  # format 2: changes only
    assert any('"#slice"' in json.dumps(e) for e in raw_events)  # format 3: logged entries referred to
    lines = read_lines(result.trace_path)
    header, init, events, end = lines[0], lines[1], lines[2:-1], lines[-1]
    assert header["kind"] == "header" and header["format"] == "kraft-trace" and header["version"] == 3
    assert header["constants"]["FetchMaxRecords"] == 100
    consts = header["constants"]
    assert consts["Voters"] == {"#set": [1, 2, 3]} and consts["Observers"] == {"#set": [4]}
    assert all(consts[t] is True for t in RULE_TOGGLES)
    assert set(consts["ForeignRequests"]["#set"]) == {"VoteRequest", "BeginQuorumEpochRequest", "FetchRequest"}
    assert header["seed"] == 3 and header["bug"] is None
    assert init["kind"] == "init" and set(init["replicas"]) == {"1", "2", "3", "4"}
    assert all(set(s) == SPEC_VARS for s in init["replicas"].values())
    assert [e["step"] for e in events] == list(range(1, len(events) + 1)) == list(range(1, 1501))
    assert end == {"kind": "end", "steps": 1500, "reason": "step limit reached"}
    seen = set()
    for e in events:
        assert e["action"] in ACTIONS and set(e["state"]) == SPEC_VARS
        seen.add(e["action"])
        for m in e["sent"]:
            assert list(m) == list(MESSAGE_FIELDS)
        if e["action"].startswith("Handle"):
            assert list(e["params"]) == ["m"] and e["params"]["m"]["dest"] == e["replica"]
        elif e["action"] in ("SendFetchRequest", "SendBeginQuorumEpoch"):
            assert list(e["params"]) == ["i", "j"]
        elif e["action"] == "ClientAppend":
            assert list(e["params"]) == ["i", "v"]
        elif e["action"] == "SendForeignRequest":
            assert list(e["params"]) == ["i", "j", "t"] and e["sent"][0]["clusterId"] == "foreign-cluster"
        else:
            assert e["params"] == {"i": e["replica"]}
    assert {"BecomeCandidate", "HandleVoteResponse", "ClientAppend", "HandleFetchResponse", "Restart"} <= seen


def test_received_messages_were_sent_before(tmp_path: Path) -> None:
    result = run_seed(SimConfig(steps=1000, out_dir=tmp_path), 11)
    assert result.trace_path is not None
    sent: set[str] = set()
    for e in read_lines(result.trace_path)[2:-1]:  # references to logged entries resolved
        if e["action"].startswith("Handle"):
            assert json.dumps(e["params"]["m"], sort_keys=True) in sent
        sent.update(json.dumps(m, sort_keys=True) for m in e["sent"])


def test_itf_export_has_one_global_state_per_event(tmp_path: Path) -> None:
    result = run_seed(SimConfig(steps=200, out_dir=tmp_path), 2)
    assert result.trace_path is not None
    doc = export_trace(result.trace_path)
    assert doc["vars"] == list(ITF_VARS) and len(doc["states"]) == 201
    last = doc["states"][-1]
    # replica ids 1..4: a function with domain 1..n is a sequence in TLA+ (and in ITF)
    assert len(last["role"]) == 4 and "Leader" in last["role"]
    assert len(last["messages"]["#set"]) > 0
    assert doc["states"][-1]["#meta"]["step"] == 200


@pytest.mark.parametrize("seed", range(1, 16))
def test_default_faults_keep_safety(seed: int) -> None:
    result = run_seed(SimConfig(steps=1500, trace=False), seed)
    assert result.ok, "\n".join(map(str, result.failures))
    assert result.stats.elections >= 1 and result.stats.commits > 0


def test_no_faults_commits_every_append() -> None:
    result = run_seed(SimConfig(steps=2000, trace=False, faults=frozenset()), 1)
    assert result.ok and result.stats.elections == 1
    assert result.stats.commits >= result.stats.client_appends  # + leaderChange, minus tail


def test_five_voters_two_observers() -> None:
    result = run_seed(SimConfig(voters=5, observers=2, steps=2000, trace=False), 4)
    assert result.ok and result.stats.commits > 0


@pytest.mark.parametrize(
    ("bug", "seeds"),
    [("vote-without-log-check", range(1, 40)), ("ignore-diverging-epoch", range(1, 40)),
     ("accept-stale-fetch", range(1, 40)), ("observer-votes", range(1, 40))],
)
def test_invariants_catch_bug(bug: str, seeds: range) -> None:
    failures = [run_seed(SimConfig(steps=1000, trace=False, bug=bug), s).failures for s in seeds]
    caught = [f for f in failures if f]
    assert caught, f"{bug} not caught in seeds {seeds}"
    assert "--inject-bug " + bug in caught[0][0].repro


def test_voter_disk_loss_breaks_safety() -> None:
    faults = frozenset(DEFAULT_FAULTS) | {"voter-disk-loss"}
    assert any(run_seed(SimConfig(steps=2000, trace=False, faults=faults), s).failures for s in range(1, 60))


def test_checker_flags_seeded_violations() -> None:
    a, b = Entry(1, LEADER_CHANGE, 1), Entry(1, DATA, 5)
    c = SafetyChecker()
    for r in (1, 2):
        c.reset_replica(r, [], 0, True)
    assert not c.after_step(1, "Leader", 1, 0, [("append", (a, b))])
    assert [v.invariant for v in c.after_step(2, "Leader", 1, 0, [])] == ["OneLeaderPerEpoch"]
    assert [v.invariant for v in c.after_step(2, "Follower", 1, 0, [("append", (a, Entry(1, DATA, 6)))])] == ["LogMatching"]
    assert not c.after_step(1, "Leader", 1, 2, [])
    assert [v.invariant for v in c.after_step(1, "Leader", 1, 1, [])] == ["HighWatermarkMonotonic"]
    assert "CommittedNeverLost" in [v.invariant for v in c.after_step(1, "Leader", 1, 1, [("truncate", 0)])]
    assert [v.invariant for v in c.after_step(2, "Follower", 0, 0, [("truncate", 0)])] == ["EpochMonotonic"]


def _cli(argv: list[str]) -> int:
    parser = argparse.ArgumentParser()
    cli.register(parser.add_subparsers())
    args = parser.parse_args(["simulate", *argv])
    return int(args.func(args))


def test_cli_exit_codes_and_repro(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert _cli(["--seeds", "1-3", "--steps", "300", "--out", str(tmp_path)]) == 0
    assert sorted(p.name for p in tmp_path.iterdir()) == ["seed-1.ndjson", "seed-2.ndjson", "seed-3.ndjson"]
    out = capsys.readouterr().out
    assert "runs" in out and "invariant failures" in out
    assert _cli(["--seeds", "1-4", "--steps", "1000", "--no-trace", "--inject-bug", "vote-without-log-check", "--jobs", "2"]) == 1
    out = capsys.readouterr().out
    assert "reproduce: kraftcheck simulate --quorum dynamic --seeds" in out and "--inject-bug vote-without-log-check" in out
    assert _cli(["--faults", "crash,meteor"]) == 2
    assert _cli(["--inject-bug", "nope"]) == 2


def test_parse_seeds() -> None:
    assert cli.parse_seeds("1-3,7") == [1, 2, 3, 7]
    with pytest.raises(argparse.ArgumentTypeError):
        cli.parse_seeds("5-1")


def test_documented_names_are_complete() -> None:
    doc = (Path(__file__).resolve().parents[2] / "traces" / "FORMAT.md").read_text()
    for name in list(BUGS) + list(FAULTS):
        assert f"`{name}`" in doc, name
