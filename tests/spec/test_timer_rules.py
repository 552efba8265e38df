"""Time in the spec: the clock, the per-replica deadlines and the timer rules (TimedRules).

Each timer rule is checked on hand-built steps of the timed model (MC_KRaft_timed.cfg: election
timeout 2 with a random part of at most 1, fetch timeout 3, request timeout 2, retry backoff 1,
max 2), each rule's toggle
config fails with its property, and the untimed configs keep a clock that never moves.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from conformance.spec_suite import load_manifest, run_api
from conformance.tla.cfg import read_config
from conformance.tla.explorer import check, simulate
from conformance.tla.model import Model, State
from conformance.tla.values import Fn, Value, fn_apply
from tests.spec.test_kraft_actions import at, init, load, one, var

SPEC = Path(__file__).resolve().parents[2] / "spec"
ENTRIES = {e.name: e for e in load_manifest()}
RULES = {"ElectionTimeout", "FetchTimeout", "SuccessorBackoff", "CheckQuorum", "BeginQuorumEpochResend",
         "TimeoutUpperBound"}
TIMER_TOGGLES = {"no_election_timeout": "ElectionTimeoutRespected", "no_fetch_timeout": "FetchTimeoutRespected",
                 "no_successor_backoff": "SuccessorBackoffRespected", "no_check_quorum": "CheckQuorumRespected",
                 "no_begin_epoch_resend": "BeginQuorumEpochResent",
                 "no_timeout_upper_bound": "TimeoutUpperBoundRespected"}


def load_timed(**overrides: Value) -> Model:
    return load("MC_KRaft_timed.cfg", **overrides)


@pytest.fixture(scope="module")
def model() -> Model:
    return load_timed()


def succ(model: Model, action: str, args: list[Value], state: State) -> list[State]:
    return list(model.action_successors(action, args, state))


def tick(model: Model, state: State, t: int) -> State:
    return one(model, "AdvanceClock", [t], state)


def sent(model: Model, before: State, after: State, type_: str) -> list[Fn]:
    new = var(model, after, "messages") - var(model, before, "messages")  # type: ignore[operator]
    return [m for m in new if fn_apply(m, "type") == type_]


def deliver(model: Model, s: State, action: str, m: Fn) -> State:
    return one(model, action, [m], s)


def elect(model: Model, s: State, leader: int = 1, voter: int = 3) -> State:
    """At time 2: leader stands, voter grants, the leader wins (epoch 1)."""
    s = tick(model, s, 2)
    t = one(model, "BecomeCandidate", [leader], s)
    (req,) = [m for m in sent(model, s, t, "VoteRequest") if fn_apply(m, "dest") == voter]
    u = deliver(model, t, "HandleVoteRequest", req)
    (resp,) = sent(model, t, u, "VoteResponse")
    w = deliver(model, u, "HandleVoteResponse", resp)
    assert at(model, w, "role", leader) == "Leader"
    return w


def follow(model: Model, s: State, leader: int, follower: int) -> State:
    t = one(model, "SendBeginQuorumEpoch", [leader, follower], s)
    (req,) = sent(model, s, t, "BeginQuorumEpochRequest")
    return deliver(model, t, "HandleBeginQuorumEpochRequest", req)


def endorsed(model: Model, s: State, leader: int = 1) -> State:
    """Every other voter accepted the leader's BeginQuorumEpoch, and the leader knows it."""
    for j in (2, 3):
        t = one(model, "SendBeginQuorumEpoch", [leader, j], s)
        (req,) = sent(model, s, t, "BeginQuorumEpochRequest")
        u = deliver(model, t, "HandleBeginQuorumEpochRequest", req)
        (resp,) = sent(model, t, u, "BeginQuorumEpochResponse")
        s = deliver(model, u, "HandleBeginQuorumEpochResponse", resp)
    return s


def test_election_timeout_is_a_lower_bound(model: Model) -> None:
    s = init(model)
    assert at(model, s, "electionDeadline", 1) == 2
    assert succ(model, "BecomeCandidate", [1], s) == []
    assert succ(model, "BecomeCandidate", [1], tick(model, s, 1)) == []
    t = one(model, "BecomeCandidate", [1], tick(model, s, 2))
    assert at(model, t, "electionDeadline", 1) == 4  # the candidate's own election timeout


def test_an_election_timer_fires_by_the_end_of_its_range(model: Model) -> None:
    """Election timeout 2 plus a random part of at most 1: voter 1 stands at 2 or 3, and at 4,
    its timer missed, it takes no step at all (a VoteRequest stays unanswered) until a Restart
    arms its timer again."""
    s = init(model)
    for t in (2, 3):
        assert len(succ(model, "BecomeCandidate", [1], tick(model, s, t))) == 1
    s4 = tick(model, s, 4)
    assert succ(model, "BecomeCandidate", [1], s4) == []
    s2 = tick(model, s, 2)
    u = one(model, "BecomeCandidate", [2], s2)
    (req,) = [m for m in sent(model, s2, u, "VoteRequest") if fn_apply(m, "dest") == 1]
    assert len(succ(model, "HandleVoteRequest", [req], tick(model, u, 3))) == 1
    assert succ(model, "HandleVoteRequest", [req], tick(model, u, 4)) == []
    restarted = one(model, "Restart", [1], s4)
    assert at(model, restarted, "electionDeadline", 1) == 4 + 2
    assert succ(model, "BecomeCandidate", [1], tick(model, restarted, 6)) != []
    # without the rule the late candidacy is a step like any other
    relaxed = load_timed(TimedRules=frozenset(RULES - {"TimeoutUpperBound"}))
    assert len(succ(relaxed, "BecomeCandidate", [1], tick(relaxed, init(relaxed), 4))) == 1


def test_a_follower_stands_exactly_at_its_fetch_timeout(model: Model) -> None:
    s = follow(model, elect(model, init(model)), 1, 2)  # follower 2: fetch timeout at 5
    s = one(model, "SendBeginQuorumEpoch", [1, 3], s)
    assert len(succ(model, "BecomeCandidate", [2], tick(model, s, 5))) == 1
    s6 = tick(model, s, 6)
    assert succ(model, "BecomeCandidate", [2], s6) == []
    assert succ(model, "SendFetchRequest", [2, 1], s6) == []


def test_untimed_spec_has_no_clock_and_no_guards() -> None:
    m = load("MC_KRaft_small.cfg")
    s = init(m)
    assert succ(m, "AdvanceClock", [1], s) == []
    assert len(succ(m, "BecomeCandidate", [1], s)) == 1
    # a rule left out of TimedRules drops its guard
    timed = load_timed(TimedRules=frozenset(RULES - {"ElectionTimeout"}))
    assert len(succ(timed, "BecomeCandidate", [1], init(timed))) == 1


def test_follower_waits_for_its_fetch_timeout_and_a_fetch_restarts_it(model: Model) -> None:
    s = follow(model, elect(model, init(model)), 1, 2)
    assert at(model, s, "role", 2) == "Follower" and at(model, s, "electionDeadline", 2) == 2 + 3
    s = one(model, "SendBeginQuorumEpoch", [1, 3], s)  # the leader owes voter 3 one too
    assert succ(model, "BecomeCandidate", [2], tick(model, s, 4)) == []
    # a Fetch answered at time 4 moves the deadline to 7
    s4 = tick(model, s, 4)
    t = one(model, "SendFetchRequest", [2, 1], s4)
    (req,) = sent(model, s4, t, "FetchRequest")
    u = one(model, "HandleFetchRequest", [req], t)
    (resp,) = sent(model, t, u, "FetchResponse")
    w = deliver(model, u, "HandleFetchResponse", resp)
    assert at(model, w, "electionDeadline", 2) == 4 + 3
    assert succ(model, "BecomeCandidate", [2], tick(model, w, 6)) == []
    assert len(succ(model, "BecomeCandidate", [2], tick(model, w, 7))) == 1


def test_preferred_successors_back_off_by_position(model: Model) -> None:
    s = follow(model, elect(model, init(model)), 1, 3)  # voter 3 knows the leader of epoch 1
    t = one(model, "Shutdown", [1], s)
    reqs = {fn_apply(m, "dest"): m for m in sent(model, s, t, "EndQuorumEpochRequest")}
    first, second = fn_apply(reqs[2], "preferredSuccessors")  # type: ignore[misc]
    u = deliver(model, deliver(model, t, "HandleEndQuorumEpochRequest", reqs[first]),
                "HandleEndQuorumEpochRequest", reqs[second])
    assert at(model, u, "endQuorum", second) == (2, 1)
    assert len(succ(model, "BecomeCandidate", [first], u)) == 1  # position 0: at once
    assert succ(model, "BecomeCandidate", [second], u) == []  # position 1: retry backoff 1
    assert len(succ(model, "BecomeCandidate", [second], tick(model, u, 3))) == 1
    relaxed = load_timed(TimedRules=frozenset(RULES - {"SuccessorBackoff"}))
    v = deliver(relaxed, one(relaxed, "Shutdown", [1], follow(relaxed, elect(relaxed, init(relaxed)), 1, 3)),
                "HandleEndQuorumEpochRequest", reqs[second])
    assert len(succ(relaxed, "BecomeCandidate", [second], v)) == 1


def test_check_quorum_guards_resign_and_obliges_the_leader(model: Model) -> None:
    s = endorsed(model, elect(model, init(model)))  # leader 1 since time 2, nobody fetched
    assert succ(model, "Resign", [1], tick(model, s, 4)) == []
    s5 = tick(model, s, 5)
    assert len(succ(model, "Resign", [1], s5)) == 1
    assert len(succ(model, "Shutdown", [1], s5)) == 1  # a graceful shutdown needs no timer
    # at time 6 the check-quorum is overdue: the leader's only step is its resignation
    s6 = tick(model, s, 6)
    assert succ(model, "Shutdown", [1], s6) == []
    assert len(succ(model, "Resign", [1], s6)) == 1


def test_begin_quorum_epoch_is_resent_after_the_request_timeout(model: Model) -> None:
    s = elect(model, init(model))
    t = one(model, "SendBeginQuorumEpoch", [1, 2], s)
    assert fn_apply(at(model, t, "beginEpochDue", 1), 2) == 2 + 2  # type: ignore[arg-type]
    u = one(model, "SendBeginQuorumEpoch", [1, 3], t)
    assert succ(model, "SendBeginQuorumEpoch", [1, 2], tick(model, u, 3)) == []
    # at 5 the resend to 2 is overdue (due at 4): the leader resends before anything else
    u5 = tick(model, u, 5)
    assert succ(model, "Shutdown", [1], u5) == []
    assert len(succ(model, "SendBeginQuorumEpoch", [1, 2], u5)) == 1


def test_every_timer_rule_has_a_toggle_config() -> None:
    removed: set[str] = set()
    for name in TIMER_TOGGLES:
        rules = read_config(ENTRIES[name].config).constants["TimedRules"]
        assert isinstance(rules, frozenset) and len(RULES - rules) == 1
        removed |= RULES - rules
    assert removed == RULES


@pytest.mark.parametrize("name", sorted(TIMER_TOGGLES))
def test_timer_toggle_config_fails_with_its_property(name: str) -> None:
    entry = ENTRIES[name]
    assert entry.expect == "violation" and entry.property == TIMER_TOGGLES[name]
    result = run_api(entry, traces=None, depth=None, time_limit=120)
    assert result.verdict == "violation", result.message
    assert result.failed == entry.property


def test_untimed_configs_keep_the_clock_still() -> None:
    for cfg in sorted(SPEC.glob("*.cfg")):
        constants = read_config(cfg).constants
        if constants["TimedRules"] == frozenset():
            assert constants["MaxTime"] == 0, cfg.name


def test_timed_model_is_clean_on_a_bounded_prefix() -> None:
    config = read_config(SPEC / "MC_KRaft_timed.cfg")
    model = Model.load(SPEC / "MC_KRaft.tla", constants=config.constants, overrides=config.overrides)
    result = check(model, config, max_states=3000, progress=False)
    assert result.verdict == "limit", result.message


def test_timed_simulation_without_patient_voters_runs_clean_briefly() -> None:
    config = read_config(SPEC / "MC_KRaft_timed_sim.cfg")
    assert "PatientVoters" not in config.action_constraints
    model = Model.load(SPEC / "MC_KRaft.tla", constants=config.constants, overrides=config.overrides)
    result = simulate(model, config, depth=25, traces=4, seed=3, progress=False)
    assert result.verdict == "ok", result.message


def test_a_disruptive_election_is_reached_without_patient_voters() -> None:
    entry = ENTRIES["timed_disruption"]
    result = run_api(entry, traces=None, depth=None, time_limit=120)
    assert (result.verdict, result.failed) == ("violation", "NoDisruptiveElection"), result.message



def _dynamic_leader_at_2() -> tuple[Model, State]:
    """A dynamic quorum, voters {1, 2} and observer 3, timed with the timed model's ticks:
    1 wins epoch 1 at time 2 (its first check-quorum is due at 5) and voter 2 fetches at 2
    until the leaderChange record commits."""
    from tests.spec import test_reconfig_actions as reconfig
    from tests.spec.test_kraft_actions import elect as elect_voter

    timing = read_config(SPEC / "MC_KRaft_timed.cfg").constants["Timing"]
    m = reconfig.dynamic(TimedRules=frozenset(RULES), Timing=timing, MaxTime=8)
    s = elect_voter(m, tick(m, init(m), 2), leader=1, voter=2)
    s = one(m, "SendBeginQuorumEpoch", [1, 2], s)
    s = reconfig.deliver(m, s, "HandleBeginQuorumEpochRequest", "BeginQuorumEpochRequest", dest=2)
    s = reconfig.fetch_round(m, reconfig.fetch_round(m, s, 2), 2)
    assert at(m, s, "highWatermark", 1) == 1 and at(m, s, "checkQuorumDue", 1) == 5
    return m, s


def test_check_quorum_falls_due_on_kafkas_timer() -> None:
    """Voter 2's last fetch at 2 leaves the window at 5: the check due at 5 fails, the leader
    resigns then (not at 4) and, had it not, takes no step at 6."""
    m, s = _dynamic_leader_at_2()
    assert succ(m, "Resign", [1], tick(m, s, 4)) == []
    assert len(succ(m, "Resign", [1], tick(m, s, 5))) == 1
    assert succ(m, "Shutdown", [1], tick(m, s, 6)) == []


def test_check_quorum_after_a_voter_change_counts_the_new_set() -> None:
    """The leader removes voter 2 at time 3: its timer keeps the due time 5, and the check then
    counts the new set, the leader alone, which is a majority: no resignation at 5, steps at 6
    (when a voter change left check-quorum untracked, a Resign was allowed at any time)."""
    from tests.spec import test_reconfig_actions as reconfig

    m, s = _dynamic_leader_at_2()
    s = one(m, "SendRemoveVoterRequest", [1, 2, 1], tick(m, s, 3))
    s = reconfig.deliver(m, s, "HandleRemoveVoterRequest", "RemoveVoterRequest", voterId=2)
    assert reconfig.keys(m, s, 1) == frozenset({(1, 1)})
    assert at(m, s, "checkQuorumDue", 1) == 5
    for t in (4, 5):
        assert succ(m, "Resign", [1], tick(m, s, t)) == []
    assert len(succ(m, "Shutdown", [1], tick(m, s, 6))) == 1
