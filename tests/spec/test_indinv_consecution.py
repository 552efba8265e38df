"""A small-domain search for counterexamples to induction of IndInv (KRaftIndInv.tla).

Reachable states of the small bounds are perturbed at random (one or two fields: an
epoch, a vote, a role, a log entry, a message field, a committed entry, ...); every
perturbed state that still satisfies IndInv must have only successors that satisfy it.
Reachable states alone would only show invariance; the perturbed ones probe
inductiveness, which Apalache's three-run recipe proves for all bounded states.
"""

from __future__ import annotations

import random
import re
from pathlib import Path

import pytest

from conformance.tla.cfg import parse_config, read_config
from conformance.tla.model import Model, State
from conformance.tla.syntax import Expr
from conformance.tla.values import Fn, Value, fn_apply, fn_items, make_fn, make_record, sort_key

SPEC = Path(__file__).resolve().parents[2] / "spec"
REPLICAS = (1, 2, 3)
ROLES = ("Unattached", "Voted", "Candidate", "Leader", "Follower", "Resigned")


def indinv_conjuncts() -> tuple[str, ...]:
    """The names of IndInv's conjuncts, in order, as KRaftIndInv.tla lists them."""
    text = (SPEC / "KRaftIndInv.tla").read_text()
    names = tuple(re.findall(r"^    /\\ (\w+)$", text[text.index("IndInv ==\n"):], re.M))
    assert names[:1] == ("Safety",), "IndInv's conjunct list was not found in KRaftIndInv.tla"
    return names


# what assert_needed checks a hand-built state against: read from the spec, never out of date
LEMMAS = indinv_conjuncts()


@pytest.fixture(scope="module")
def model() -> Model:
    cfg = read_config(SPEC / "MC_KRaft_indinv.cfg")
    return Model.load(SPEC / "MC_KRaft.tla", constants=cfg.constants, overrides=cfg.overrides)


def reachable(model: Model, limit: int, init: str = "Init") -> list[State]:
    """States of a breadth-first search, cut at ``limit``; each level sorted, so the list
    (and the random search over it) does not depend on set iteration order (hash seed)."""
    frontier = sorted(model.init_states(init), key=sort_key)
    seen = set(frontier)
    out = list(frontier)
    while frontier and len(out) < limit:
        nxt = []
        for s in frontier:
            for _, t in model.successors(s):
                if t not in seen and model.eval_state("StateBounds", t) is True:
                    seen.add(t)
                    nxt.append(t)
        nxt.sort(key=sort_key)
        out.extend(nxt)
        frontier = nxt
    return out


def with_entry(f: Value, i: int, v: Value) -> Value:
    d = dict(fn_items(f))  # type: ignore[arg-type]
    d[i] = v
    return make_fn(d)


def leader_change_record(epoch: int, leader: int) -> Value:
    """The leaderChange record leader ``leader`` writes on winning ``epoch``."""
    return make_record([("epoch", epoch), ("kind", "leaderChange"), ("value", leader), ("voters", frozenset())])


def leader_change(rng: random.Random, replicas: tuple[int, ...]) -> Value:
    return leader_change_record(rng.choice((1, 2)), rng.choice(replicas))


def voters_record(rng: random.Random, replicas: tuple[int, ...]) -> Value:
    """A VotersRecord of a random non-empty set of replica keys (directory id 1)."""
    ids = rng.sample(replicas, rng.randint(1, len(replicas)))
    return make_record([("epoch", rng.choice((1, 2))), ("kind", "voters"), ("value", -1),
                        ("voters", frozenset((i, 1) for i in ids))])


def perturb(model: Model, state: State, rng: random.Random, replicas: tuple[int, ...] = REPLICAS,
            dynamic: bool = False) -> State:
    """One random change to one variable (a directory id included); with ``dynamic`` also
    VotersRecords."""
    s = list(state)
    names = ("currentEpoch", "votedId", "leaderId", "role", "highWatermark", "log",
             "votesGranted", "messages", "committed", "votes")
    var = rng.choice((*names, "dirId", "log") if dynamic else (*names, "dirId"))
    k = model.variables.index(var)
    f, i = s[k], rng.choice(replicas)
    if var == "dirId":
        s[k] = with_entry(f, i, rng.choice((0, 1, 2)))
    elif var in ("currentEpoch", "highWatermark"):
        s[k] = with_entry(f, i, max(0, fn_apply(f, i) + rng.choice((-1, 1))))  # type: ignore[arg-type]
    elif var in ("votedId", "leaderId"):
        s[k] = with_entry(f, i, rng.choice((-1, *replicas)))
    elif var == "role":
        s[k] = with_entry(f, i, rng.choice(ROLES))
    elif var == "votesGranted":
        s[k] = with_entry(f, i, frozenset(rng.sample(replicas, rng.randint(0, len(replicas)))))
    elif var == "log":
        lg = fn_apply(f, i)  # type: ignore[arg-type]
        if lg and rng.random() < 0.5:
            s[k] = with_entry(f, i, lg[:-1])
        else:
            e = voters_record(rng, replicas) if dynamic and rng.random() < 0.5 else leader_change(rng, replicas)
            s[k] = with_entry(f, i, (*lg, e))
    elif var in ("messages", "committed", "votes") and f:
        items = sorted(f, key=sort_key)  # type: ignore[arg-type]
        if var != "messages" or rng.random() < 0.5:
            s[k] = frozenset(rng.sample(items, len(items) - 1))
        else:
            d = dict(rng.choice(items).map)
            name = rng.choice(("epoch", "source", "dest", "voteGranted", "highWatermark", "fetchOffset", "leaderId"))
            if name == "voteGranted":
                d[name] = not d[name]
            elif name in ("source", "dest", "leaderId"):
                d[name] = rng.choice(replicas)
            elif d[name] != -1:
                d[name] = max(0, d[name] + rng.choice((-1, 1)))
            s[k] = f | {Fn(d)}  # type: ignore[operator]
    return tuple(s)


def find_counterexample(model: Model, states: list[State], rng: random.Random, tries: int,
                        replicas: tuple[int, ...] = REPLICAS, dynamic: bool = False,
                        inv: str | Expr = "IndInv") -> tuple[int, str | None]:
    """Perturb ``tries`` random states (one or two changes each) and look for a perturbed
    state satisfying ``inv`` with a successor that does not. The number of perturbed states
    that satisfied ``inv``, and the first counterexample to induction found (action and the
    lemmas of IndInv its successor breaks), or None."""
    checked = 0
    for _ in range(tries):
        s = rng.choice(states)
        for _ in range(rng.randint(1, 2)):
            s = perturb(model, s, rng, replicas, dynamic)
        if model.eval_state(inv, s) is not True:
            continue
        checked += 1
        for label, t in model.successors(s):
            if model.eval_state(inv, t) is not True:
                broken = [name for name in LEMMAS if model.eval_state(name, t) is not True]
                return checked, f"{label.name}{dict(label.params)}: {broken}"
    return checked, None


def search_consecution(model: Model, states: list[State], rng: random.Random, tries: int,
                       replicas: tuple[int, ...] = REPLICAS, dynamic: bool = False) -> int:
    """``find_counterexample`` for IndInv, failing the test at the first counterexample."""
    checked, cti = find_counterexample(model, states, rng, tries, replicas, dynamic)
    if cti is not None:
        pytest.fail(f"IndInv is not preserved by {cti}")
    return checked


def walk_states(model: Model, init: str, rng: random.Random, walks: int, depth: int) -> list[State]:
    """The states of ``walks`` random walks of at most ``depth`` steps within StateBounds."""
    starts = sorted(model.init_states(init), key=sort_key)
    out: list[State] = []
    for _ in range(walks):
        s = rng.choice(starts)
        for _ in range(depth):
            succ = [t for _, t in model.successors(s) if model.eval_state("StateBounds", t) is True]
            if not succ:
                break
            s = rng.choice(succ)
            out.append(s)
    return out


def test_no_counterexample_to_induction_among_perturbed_states(model: Model) -> None:
    rng = random.Random(20261121)
    states = reachable(model, 1500)
    checked = search_consecution(model, states, rng, 4000)
    assert checked >= 1000, f"only {checked} perturbed states satisfied IndInv"


def test_no_counterexample_to_induction_in_a_dynamic_quorum() -> None:
    """The lemmas over voter sets read from the logs (KIP-853): perturbed states of the dynamic
    model (standalone start, a voter added and removed), VotersRecords and directory ids
    included, that satisfy IndInv have only successors that satisfy it."""
    cfg = read_config(SPEC / "MC_KRaft_dynamic_indinv.cfg")
    model = Model.load(SPEC / "MC_KRaft.tla", constants=cfg.constants, overrides=cfg.overrides)
    assert cfg.init is not None
    rng = random.Random(20261124)
    states = reachable(model, 1500, cfg.init)
    checked = search_consecution(model, states, rng, 3000, (1, 2), dynamic=True)
    assert checked >= 500, f"only {checked} perturbed states satisfied IndInv"


def test_the_search_finds_a_weakened_invariant_not_inductive(model: Model) -> None:
    """Without its message lemmas, IndInv is not inductive, and the search shows it."""
    rng = random.Random(5)
    states = reachable(model, 1500)
    weak = ("Safety /\\ EntriesFromElectedLeaders /\\ ElectionsByMajority /\\ VotesConsistent "
            "/\\ LeadersElected /\\ CommittedOnMajority")
    from conformance.tla.loader import parse_expression

    expr = parse_expression(weak)
    for _ in range(3000):
        s = rng.choice(states)
        for _ in range(rng.randint(1, 2)):
            s = perturb(model, s, rng)
        if model.eval_state(expr, s) is not True:
            continue
        if any(model.eval_state(expr, t) is not True for _, t in model.successors(s)):
            return
    pytest.fail("no counterexample to induction found for the weakened invariant")


def state_like(model: Model, base: State, **values: Value) -> State:
    """``base`` with the given variables set (by name)."""
    s = list(base)
    for name, value in values.items():
        s[model.variables.index(name)] = value
    return tuple(s)


def message_like(model: Model, state: State, **fields: Value) -> Value:
    """A message record: the fields of a message the model sends from ``state`` (messages
    are records of one shape), with ``fields`` changed."""
    at = model.variables.index("messages")
    sample = next(iter(m for _, t in model.successors(state) for m in t[at]))  # type: ignore[union-attr]
    return make_record(sorted({**dict(fn_items(sample)), **fields}.items()))


def assert_needed(model: Model, cti: State, lemma: str | tuple[str, ...], action: str | None, broken: str) -> None:
    """``cti`` violates ``lemma`` (each of them, for a tuple) and satisfies the other lemmas
    and TypeOK, and a step (of ``action``, or any) leads to a state violating ``broken``:
    without the lemma(s), ``cti`` is a counterexample to induction of IndInv. (A state built
    for one lemma names the lemmas added after it that exclude it too.)"""
    from conformance.tla.loader import parse_expression

    lemmas = (lemma,) if isinstance(lemma, str) else lemma
    assert model.eval_state("IndInv", cti) is False
    for name in lemmas:
        assert model.eval_state(name, cti) is False, name
    without = parse_expression(" /\\ ".join(n for n in LEMMAS if n not in lemmas) + " /\\ TypeOK")
    assert model.eval_state(without, cti) is True, [n for n in (*LEMMAS, "TypeOK")
                                                    if n not in lemmas and model.eval_state(n, cti) is not True]
    steps = [t for label, t in model.successors(cti)
             if (action is None or label.name == action) and model.eval_state(broken, t) is not True]
    assert steps, f"the state should be a counterexample to induction of IndInv without {lemma}"


CTI_STATES = sorted((Path(__file__).parent / "cti_states").glob("*.tla"))


def read_cti_state(model: Model, path: Path) -> tuple[State, str, str, tuple[str, ...]]:
    """The state, action, broken conjunct and excluding lemmas of a stored counterexample to
    induction: ``\\* action:``, ``\\* breaks:``, ``\\* excluded by:`` header lines, then one
    ``/\\ var = value`` line per variable (TLA+ values, evaluated by the explicit engine)."""
    from conformance.tla.loader import parse_expression

    init = reachable(model, 1)[0]
    state = list(init)
    header: dict[str, str] = {}
    seen = set()
    for number, line in enumerate(path.read_text().splitlines(), 1):
        if line.startswith("\\* ") and ": " in line:
            key, value = line[3:].split(": ", 1)
            header[key] = value
        elif line.startswith("/\\ "):
            name, text = line[3:].split(" = ", 1)
            assert name in model.variables, f"{path.name}:{number}: no variable {name}"
            state[model.variables.index(name)] = model.eval_state(parse_expression(text), init)
            seen.add(name)
    assert seen == set(model.variables), f"{path.name}: lacks {sorted(set(model.variables) - seen)}"
    lemmas = tuple(n.strip() for n in header["excluded by"].split(","))
    return tuple(state), header["action"], header["breaks"], lemmas


def test_the_stored_counterexamples_to_induction_are_there() -> None:
    assert len(CTI_STATES) >= 13


@pytest.mark.parametrize("path", CTI_STATES, ids=[p.stem for p in CTI_STATES])
def test_a_stored_counterexample_to_induction_is_one_without_its_lemmas(model: Model, path: Path) -> None:
    """The counterexamples to induction z3 found at the default bounds (set bound 4, where
    two elections' four votes fit), one lemma added per state: the explicit engine, not z3,
    checks that the state violates the lemmas named, satisfies every other conjunct of
    IndInv and TypeOK, and has a step of the action to a state that breaks the conjunct
    named, so that without those lemmas it is a counterexample to induction."""
    cti, action, broken, lemmas = read_cti_state(model, path)
    assert_needed(model, cti, lemmas, action, broken)


def test_a_static_voter_with_another_directory_id_is_not_an_indinv_state(model: Model) -> None:
    """The counterexample to induction z3 found (``kraftcheck prove``): in a static quorum a
    voter whose directory id differs from the formatted one escapes VotesConsistent; if it
    has voted in its epoch and forgets it, it grants a second candidate of that epoch.
    DirIdsFormatted excludes the state; without that lemma it is a counterexample."""

    names = model.variables
    at = {n: k for k, n in enumerate(names)}

    def voted_with_rival_request(s: State) -> tuple[int, int] | None:
        for m in s[at["messages"]]:  # type: ignore[union-attr]
            v = fn_apply(m, "dest")
            if (fn_apply(m, "type") == "VoteRequest" and fn_apply(s[at["role"]], v) == "Voted"
                    and fn_apply(s[at["currentEpoch"]], v) == fn_apply(m, "epoch")
                    and fn_apply(s[at["votedId"]], v) not in (-1, fn_apply(m, "source"))):
                return v, fn_apply(m, "source")  # type: ignore[return-value]
        return None

    state = next(s for s in reachable(model, 3000) if voted_with_rival_request(s))
    voter, _rival = voted_with_rival_request(state)  # type: ignore[misc]
    cti = state_like(model, state, dirId=with_entry(state[at["dirId"]], voter, 1),
                                   votedId=with_entry(state[at["votedId"]], voter, -1))
    assert_needed(model, cti, "DirIdsFormatted", None, "VoteOnce")


def test_a_leader_pending_an_unreceived_voter_change_is_not_an_indinv_state(model: Model) -> None:
    """The counterexample to induction z3 found for CompleteVoterChange: a leader whose
    pending voter change is no request it received answers it with a message that names
    no replica.  PendingVoterChangesReceived excludes the state; without it, the
    answer breaks TypeOK."""

    at = {n: k for k, n in enumerate(model.variables)}
    state = next(s for s in reachable(model, 3000)
                 if "Leader" in dict(fn_items(s[at["role"]])).values())  # type: ignore[arg-type]
    leader = next(i for i, r in fn_items(state[at["role"]]) if r == "Leader")  # type: ignore[arg-type]
    sample = next(iter(state[at["messages"]]))  # type: ignore[call-overload]
    bogus = make_record(sorted({**dict(fn_items(sample)), "type": "UpdateVoterRequest", "source": 64}.items()))
    cti = state_like(model, state, pendingVoterChange=with_entry(state[at["pendingVoterChange"]], leader, frozenset({bogus})))
    assert_needed(model, cti, "PendingVoterChangesReceived", "CompleteVoterChange", "TypeOK")


def test_a_candidate_of_epoch_zero_is_not_an_indinv_state(model: Model) -> None:
    """The counterexample to induction z3 found for HandleVoteResponse: a candidate still in
    epoch 0 that holds a majority of recorded grants becomes leader and writes a
    leaderChange record of epoch 0.  CampaignEpochsPositive excludes the state; without
    it, the record breaks TypeOK."""

    at = {n: k for k, n in enumerate(model.variables)}
    init = reachable(model, 1)[0]
    cti = state_like(model, init, role=with_entry(init[at["role"]], 1, "Candidate"),
                                  votedId=with_entry(with_entry(init[at["votedId"]], 1, 1), 2, 1),  # 1 voted for itself, 2 for 1
                                  votesGranted=with_entry(init[at["votesGranted"]], 1, frozenset({1})),
                                  votes=frozenset({(1, 0, 1), (2, 0, 1)}),
                                  messages=frozenset({message_like(model, init, type="VoteResponse", source=2, dest=1, epoch=0,
                                                                   voteGranted=True, errorCode="", leaderId=-1)}))
    assert_needed(model, cti, "CampaignEpochsPositive", "HandleVoteResponse", "TypeOK")


def test_a_vote_request_of_epoch_zero_is_not_an_indinv_state(model: Model) -> None:
    """The counterexample to induction z3 found for HandleVoteRequest: a VoteRequest of the
    cluster in epoch 0 reaches a replica still in epoch 0, which grants it and records a
    vote in epoch 0.  VoteRequestsFromCandidates excludes the state (BecomeCandidate
    moves on from epoch 0); without it, the vote breaks CampaignEpochsPositive."""

    init = reachable(model, 1)[0]
    cti = state_like(model, init, messages=frozenset({message_like(model, init, type="VoteRequest", source=2, dest=3, epoch=0,
                                                                   clusterId="kraft", lastOffsetEpoch=0, lastOffset=0)}))
    assert_needed(model, cti, "VoteRequestsFromCandidates", "HandleVoteRequest", "CampaignEpochsPositive")


def test_a_vote_request_of_an_observer_is_not_an_indinv_state() -> None:
    """The counterexample to induction z3 found for LoseDisk: in a static quorum observer 4
    has a VoteRequest of its epoch 1 in flight; losing its disk takes it back to epoch 0 with
    directory id 0, so the request names an epoch its sender never reached.
    VoteRequestsFromCandidates excludes the state (only voters campaign); without it,
    LoseDisk breaks VoteRequestsDescribeCandidate."""
    text = re.sub(r"Observers = \{[^}]*\}", "Observers = {4}", (SPEC / "MC_KRaft_indinv.cfg").read_text())
    cfg = parse_config(text)
    model = Model.load(SPEC / "MC_KRaft.tla", constants=cfg.constants, overrides=cfg.overrides)
    at = {n: k for k, n in enumerate(model.variables)}
    init = reachable(model, 1)[0]
    cti = state_like(model, init, currentEpoch=with_entry(init[at["currentEpoch"]], 4, 1),
                                  messages=frozenset({message_like(model, init, type="VoteRequest", source=4, dest=1, epoch=1,
                                                                   clusterId="kraft", sourceDirectoryId=0, lastOffsetEpoch=0,
                                                                   lastOffset=0)}))
    assert_needed(model, cti, "VoteRequestsFromCandidates", "LoseDisk", "VoteRequestsDescribeCandidate")


def test_a_vote_request_with_a_foreign_directory_id_is_not_an_indinv_state(model: Model) -> None:
    """The counterexample to induction z3 found for HandleVoteRequest once the requests'
    epochs were positive: candidate 3's VoteRequest of epoch 4 names directory id -1, so
    VoteRequestsDescribeCandidate (for requests with the sender's directory id) does not
    bound its epoch by 3's epoch 2; granting it records a vote for 3 in an epoch 3 never
    reached.  VoteRequestsFromCandidates excludes the state (a request carries a directory
    id its sender had); without it, the vote breaks EpochsNotAhead."""

    init = reachable(model, 1)[0]
    cti = state_like(model, init, currentEpoch=make_fn({1: 0, 2: 1, 3: 2}),
                                  messages=frozenset({message_like(model, init, type="VoteRequest", source=3, dest=1, epoch=4,
                                                                   clusterId="kraft", sourceDirectoryId=-1, lastOffsetEpoch=0,
                                                                   lastOffset=0)}))
    assert_needed(model, cti, "VoteRequestsFromCandidates", "HandleVoteRequest", "EpochsNotAhead")


def test_a_leader_with_a_record_beyond_its_log_is_not_an_indinv_state(model: Model) -> None:
    """The counterexample to induction z3 found for AdvanceHighWatermark: leader 2 of epoch 1
    records voter 3's fetch offset as 2, beyond its own log of one record, while 3 has moved
    to epoch 2 with an empty log; the high watermark the records give (1) is ahead of 2's (0),
    so 2 commits its leaderChange record held by itself alone.  LeaderRecordsWithinLog and
    HighWatermarksCurrent each exclude the state; without both, the step breaks
    CommittedOnMajority."""

    at = {n: k for k, n in enumerate(model.variables)}
    init = reachable(model, 1)[0]
    record = leader_change_record(1, 2)
    cti = state_like(model, init, currentEpoch=make_fn({1: 1, 2: 1, 3: 2}),
                                  votedId=make_fn({1: -1, 2: 2, 3: -1}),
                                  leaderId=make_fn({1: -1, 2: 2, 3: -1}),
                                  role=make_fn({1: "Unattached", 2: "Leader", 3: "Unattached"}),
                                  log=make_fn({1: (), 2: (record,), 3: ()}),
                                  replicaEndOffset=with_entry(init[at["replicaEndOffset"]], 2, make_fn({1: 0, 2: 0, 3: 2})),
                                  elections=frozenset({(1, 2)}),
                                  votes=frozenset({(2, 1, 2), (3, 1, 2)}))
    assert_needed(model, cti, ("LeaderRecordsWithinLog", "HighWatermarksCurrent"), "AdvanceHighWatermark",
                  "CommittedOnMajority")


def test_a_response_repeating_the_fetch_positions_leader_change_is_not_an_indinv_state(model: Model) -> None:
    """The counterexample to induction z3 found for HandleFetchResponse: leader 1 of epoch 1
    has moved on to epoch 2, and its FetchResponse to follower 2, which holds 1's
    leaderChange record at offset 1 and fetched from there (offset 1, epoch 1), carries that
    record again for offset 2.  FetchResponseRecordsWellFormed excludes the state (a first
    leaderChange record is of an epoch after the last fetched one); without it, appending
    the record breaks EntriesFromElectedLeaders."""

    init = reachable(model, 1)[0]
    record = leader_change_record(1, 1)
    cti = state_like(model, init, currentEpoch=make_fn({1: 2, 2: 1, 3: 2}),
                                  leaderId=make_fn({1: -1, 2: 1, 3: -1}),
                                  role=make_fn({1: "Unattached", 2: "Follower", 3: "Unattached"}),
                                  log=make_fn({1: (record,), 2: (record,), 3: ()}),
                                  elections=frozenset({(1, 1)}),
                                  votes=frozenset({(1, 1, 1), (3, 1, 1)}),
                                  messages=frozenset({message_like(model, init, type="FetchResponse", source=1, dest=2, epoch=1,
                                                                   clusterId="", errorCode="", leaderId=1, fetchOffset=1,
                                                                   lastFetchedEpoch=1, highWatermark=0, records=(record,),
                                                                   divergingEpoch=-1, divergingEndOffset=-1)}))
    assert_needed(model, cti, ("FetchResponseRecordsWellFormed", "LeaderChangeRecordsAligned"), "HandleFetchResponse", "EntriesFromElectedLeaders")


def test_a_divergence_below_a_committed_entry_is_not_an_indinv_state(model: Model) -> None:
    """The counterexample to induction z3 found for HandleFetchResponse: follower 3 of leader
    1 in epoch 1 holds 1's committed leaderChange record with high watermark 0, and a
    divergence of epoch 0 at 3's position cuts its log to nothing.
    FetchDivergenceKeepsCommitted excludes the state, and so does FetchDivergencesAboveCommitted
    (added later: the divergence names epoch 0 below 1's committed record of epoch 1); without
    both, the step breaks CommittedOnMajority."""

    init = reachable(model, 1)[0]
    record = leader_change_record(1, 1)
    cti = state_like(model, init, currentEpoch=make_fn({1: 2, 2: 2, 3: 1}),
                                  votedId=make_fn({1: -1, 2: -1, 3: 1}),
                                  leaderId=make_fn({1: -1, 2: -1, 3: 1}),
                                  role=make_fn({1: "Unattached", 2: "Unattached", 3: "Follower"}),
                                  log=make_fn({1: (record,), 2: (), 3: (record,)}),
                                  highWatermark=make_fn({1: 1, 2: 0, 3: 0}),
                                  elections=frozenset({(1, 1)}),
                                  votes=frozenset({(1, 1, 1), (3, 1, 1)}),
                                  committed=frozenset({(0, record, 1)}),
                                  messages=frozenset({message_like(model, init, type="FetchResponse", source=1, dest=3, epoch=1,
                                                                   clusterId="", errorCode="", leaderId=1, fetchOffset=1,
                                                                   lastFetchedEpoch=1, highWatermark=0, records=(),
                                                                   divergingEpoch=0, divergingEndOffset=1)}))
    assert_needed(model, cti, ("FetchDivergenceKeepsCommitted", "FetchDivergencesAboveCommitted", "FetchDivergencesBeforeTheirEpoch"),
                  "HandleFetchResponse", "CommittedOnMajority")


def test_a_divergence_of_a_leader_at_a_position_it_holds_is_not_an_indinv_state(model: Model) -> None:
    """The counterexample to induction z3 found for HandleFetchResponse: leader 3 of epoch 1
    has sent follower 1 a divergence to offset 0 for position (1, epoch 1), which its log
    holds; 1 empties its log while its FetchRequest for that position is in flight.
    FetchDivergencesFromLeaderLog excludes the state; without it, the step breaks
    FetchRequestsHeld."""
    init = reachable(model, 1)[0]
    record = leader_change_record(1, 3)
    request = message_like(model, init, type="FetchRequest", source=1, dest=3, epoch=1, clusterId="kraft",
                           fetchOffset=1, lastFetchedEpoch=1, sourceDirectoryId=0)
    divergence = message_like(model, init, type="FetchResponse", source=3, dest=1, epoch=1, clusterId="",
                              errorCode="", leaderId=3, fetchOffset=1, lastFetchedEpoch=1, highWatermark=0,
                              records=(), divergingEpoch=1, divergingEndOffset=0)
    cti = state_like(model, init, currentEpoch=make_fn({1: 1, 2: 2, 3: 1}),
                                  votedId=make_fn({1: 3, 2: -1, 3: -1}),
                                  leaderId=make_fn({1: 3, 2: -1, 3: 3}),
                                  role=make_fn({1: "Follower", 2: "Unattached", 3: "Leader"}),
                                  log=make_fn({1: (record,), 2: (), 3: (record,)}),
                                  elections=frozenset({(1, 3)}),
                                  votes=frozenset({(1, 1, 3), (2, 1, 3)}),
                                  messages=frozenset({request, divergence}))
    assert_needed(model, cti, ("FetchDivergencesFromLeaderLog", "FetchDivergencesBeforeTheirEpoch"), "HandleFetchResponse", "FetchRequestsHeld")


def test_a_message_to_its_own_sender_is_not_an_indinv_state(model: Model) -> None:
    """The counterexample to induction z3 found for HandleBeginQuorumEpochRequest: replica 1
    won epoch 1 (2 and 3 voted for it), restarted without a role, and its own
    BeginQuorumEpochRequest reaches it, so it follows itself.  MessagesToOthers excludes
    the state; without it, the step breaks LeadersElected."""

    init = reachable(model, 1)[0]
    cti = state_like(model, init, currentEpoch=make_fn({1: 1, 2: 1, 3: 1}),
                                  votedId=make_fn({1: -1, 2: 1, 3: 1}),
                                  role=make_fn({1: "Unattached", 2: "Voted", 3: "Voted"}),
                                  elections=frozenset({(1, 1)}),
                                  votes=frozenset({(2, 1, 1), (3, 1, 1)}),
                                  messages=frozenset({message_like(model, init, type="BeginQuorumEpochRequest", source=1, dest=1,
                                                                   epoch=1, clusterId="kraft", leaderId=1)}))
    assert_needed(model, cti, ("MessagesToOthers", "WinnersHoldTheirRecords"), "HandleBeginQuorumEpochRequest", "LeadersElected")


# FetchResponsesCommitPrefix as it was, for a follower of the response's sender only.
FOLLOWER_ONLY_COMMIT_PREFIX = r"""
\A m \in messages :
    LET j == m.dest
        kept == IF m.divergingEpoch = Nil THEN Len(log[j])
                ELSE Min(m.divergingEndOffset, EndOffsetForEpoch(log[j], m.divergingEpoch))
    IN
    (/\ m.type = "FetchResponse" /\ m.errorCode = ""
     /\ j \in Replicas
     /\ currentEpoch[j] = m.epoch /\ role[j] = "Follower" /\ leaderId[j] = m.source
     /\ m.fetchOffset = Len(log[j]) /\ m.lastFetchedEpoch = LastEpoch(log[j])
     /\ \/ m.divergingEpoch = Nil
        \/ kept <= 0
        \/ log[j][kept].epoch = m.divergingEpoch) =>
        \A k \in DOMAIN log[j] :
            k <= Min(m.highWatermark, kept) => \E c \in committed : c[1] = k - 1 /\ c[2] = log[j][k]
"""


@pytest.mark.parametrize("role, leader, action", [("Voted", 1, "Restart"),
                                                  ("Unattached", -1, "HandleBeginQuorumEpochResponse")])
def test_a_commit_prefix_for_followers_only_is_not_inductive(model: Model, role: str, leader: int,
                                                             action: str) -> None:
    """The counterexamples to induction z3 found for Restart and HandleBeginQuorumEpochResponse
    while FetchResponsesCommitPrefix spoke of a follower of the response's sender only:
    replica 3 holds leader 1's leaderChange record of epoch 1 without following 1 (voted and
    naming 1 as leader, or without a leader), and an old FetchResponse of 1 at 3's position
    says the record is below the high watermark although nothing is committed.  A restart, or
    a BeginQuorumEpochResponse of 2 that names leader 1, makes 3 the follower of 1 where the
    response finds it.  The lemma now speaks of any receiver at the position it fetched from,
    which excludes the state; so does FetchResponseHighWatermarksCommitted (added later: the
    response's high watermark 1 is no committed offset)."""
    init = reachable(model, 1)[0]
    record = leader_change_record(1, 1)
    response = message_like(model, init, type="FetchResponse", source=1, dest=3, epoch=1, clusterId="",
                            errorCode="", leaderId=1, fetchOffset=1, lastFetchedEpoch=1, highWatermark=1,
                            records=(), divergingEpoch=-1, divergingEndOffset=-1)
    teaching = message_like(model, init, type="BeginQuorumEpochResponse", source=2, dest=3, epoch=1,
                            clusterId="", errorCode="", leaderId=1)
    cti = state_like(model, init, currentEpoch=make_fn({1: 1, 2: 1, 3: 1}),
                                  votedId=make_fn({1: 1, 2: 1, 3: -1}),
                                  leaderId=make_fn({1: 1, 2: -1, 3: leader}),
                                  role=make_fn({1: "Leader", 2: "Voted", 3: role}),
                                  log=make_fn({1: (record,), 2: (), 3: (record,)}),
                                  elections=frozenset({(1, 1)}),
                                  votes=frozenset({(1, 1, 1), (2, 1, 1)}),
                                  messages=frozenset({response, teaching}))
    assert_needed_over(model, cti, "FetchResponsesCommitPrefix", FOLLOWER_ONLY_COMMIT_PREFIX, action,
                       also=("FetchResponseHighWatermarksCommitted", "FetchResponsePositionsCommitted"))


# FetchDivergenceKeepsHighWatermark as it was, for a follower of the response's sender only.
FOLLOWER_ONLY_DIVERGENCE = r"""
\A m \in messages :
    LET j == m.dest IN
    (/\ m.type = "FetchResponse" /\ m.errorCode = "" /\ m.divergingEpoch /= Nil
     /\ j \in Replicas
     /\ currentEpoch[j] = m.epoch /\ role[j] = "Follower" /\ leaderId[j] = m.source
     /\ m.fetchOffset = Len(log[j]) /\ m.lastFetchedEpoch = LastEpoch(log[j])) =>
        highWatermark[j] <= Min(m.divergingEndOffset, EndOffsetForEpoch(log[j], m.divergingEpoch))
"""


def test_a_divergence_rule_for_followers_only_is_not_inductive(model: Model) -> None:
    """The counterexample to induction z3 found for HandleBeginQuorumEpochRequest while
    FetchDivergenceKeepsHighWatermark spoke of a follower of the response's sender only:
    replica 1 voted for leader 2 in epoch 1 and holds its committed leaderChange record with
    high watermark 1, and an old divergence of 2 at 1's position says to keep offset 0 only.
    2's BeginQuorumEpochRequest makes 1 its follower where the divergence finds it.  The
    lemma now speaks of any receiver at the position it fetched from.  (Two lemmas added
    after it exclude the state too: leader 2's log holds the position its divergence
    answers, FetchDivergencesFromLeaderLog, and the divergence cuts 1's committed record,
    FetchDivergenceKeepsCommitted; and a later one: the divergence's end offset 0 is below that
    record, FetchDivergencesAboveCommitted.)"""
    init = reachable(model, 1)[0]
    record = leader_change_record(1, 2)
    divergence = message_like(model, init, type="FetchResponse", source=2, dest=1, epoch=1, clusterId="",
                              errorCode="", leaderId=2, fetchOffset=1, lastFetchedEpoch=1, highWatermark=1,
                              records=(), divergingEpoch=1, divergingEndOffset=0)
    begin = message_like(model, init, type="BeginQuorumEpochRequest", source=2, dest=1, epoch=1,
                         clusterId="kraft", leaderId=2)
    cti = state_like(model, init, currentEpoch=make_fn({1: 1, 2: 1, 3: 0}),
                                  votedId=make_fn({1: 2, 2: 2, 3: -1}),
                                  leaderId=make_fn({1: -1, 2: 2, 3: -1}),
                                  role=make_fn({1: "Voted", 2: "Leader", 3: "Unattached"}),
                                  log=make_fn({1: (record,), 2: (record,), 3: ()}),
                                  highWatermark=make_fn({1: 1, 2: 1, 3: 0}),
                                  elections=frozenset({(1, 2)}),
                                  votes=frozenset({(1, 1, 2), (2, 1, 2)}),
                                  committed=frozenset({(0, record, 1)}),
                                  messages=frozenset({divergence, begin}))
    assert_needed_over(model, cti, "FetchDivergenceKeepsHighWatermark", FOLLOWER_ONLY_DIVERGENCE,
                       "HandleBeginQuorumEpochRequest",
                       also=("FetchDivergencesFromLeaderLog", "FetchDivergenceKeepsCommitted",
                             "FetchDivergencesAboveCommitted", "FetchDivergencesBeforeTheirEpoch"))


def assert_needed_over(model: Model, cti: State, lemma: str, weaker: str, action: str,
                       also: tuple[str, ...] = ()) -> None:
    """``cti`` violates ``lemma`` (and each lemma of ``also``, added after it) and satisfies
    the other lemmas, TypeOK and ``weaker`` (an earlier form of the lemma, TLA+ text), and a
    step of ``action`` leads to a state violating ``weaker``: with that form, and without
    ``also``, ``cti`` is a counterexample to induction."""
    from conformance.tla.loader import parse_expression

    left_out = (lemma, *also)
    for name in left_out:
        assert model.eval_state(name, cti) is False, name
    rest = parse_expression(" /\\ ".join(n for n in LEMMAS if n not in left_out) + f" /\\ TypeOK /\\ ({weaker})")
    assert model.eval_state(rest, cti) is True, [n for n in (*LEMMAS, "TypeOK")
                                                 if n not in left_out and model.eval_state(n, cti) is not True]
    broken = parse_expression(weaker)
    steps = [t for label, t in model.successors(cti)
             if label.name == action and model.eval_state(broken, t) is not True]
    assert steps, f"the state should be a counterexample to induction of the earlier form of {lemma}"


def test_a_fetch_request_without_a_directory_id_is_not_an_indinv_state(model: Model) -> None:
    """The counterexample to induction z3 found for HandleFetchRequest: the leader records a
    FetchRequest's directory id as the sender's, so a request carrying none (Nil) breaks
    TypeOK.  FetchRequestsWellFormed excludes the state."""

    at = {n: k for k, n in enumerate(model.variables)}

    def to_leader(s: State) -> Fn | None:
        for m in s[at["messages"]]:  # type: ignore[union-attr]
            if fn_apply(m, "type") == "FetchRequest" and fn_apply(s[at["role"]], fn_apply(m, "dest")) == "Leader" \
                    and fn_apply(s[at["currentEpoch"]], fn_apply(m, "dest")) == fn_apply(m, "epoch"):
                return m  # type: ignore[no-any-return]
        return None

    state = next(s for s in reachable(model, 3000) if to_leader(s) is not None)
    request = to_leader(state)
    assert request is not None
    bogus = make_record(sorted({**dict(fn_items(request)), "sourceDirectoryId": -1}.items()))
    cti = state_like(model, state, messages=(state[at["messages"]] - {request}) | {bogus})  # type: ignore[operator]
    assert_needed(model, cti, "FetchRequestsWellFormed", "HandleFetchRequest", "TypeOK")


def test_the_dynamic_search_needs_committed_blocks_election() -> None:
    """Without CommittedBlocksElection the search finds the counterexample to induction that
    lemma closes: a replica whose own log makes it a one-voter quorum, lacking an entry
    committed by the others, wins at once. (WinnersHoldTheirRecords, added later, excludes
    the states the search reaches it from too, so the search leaves out both.)"""
    from conformance.tla.loader import parse_expression

    cfg = read_config(SPEC / "MC_KRaft_dynamic_indinv.cfg")
    model = Model.load(SPEC / "MC_KRaft.tla", constants=cfg.constants, overrides=cfg.overrides)
    assert cfg.init is not None
    weak = parse_expression(" /\\ ".join(n for n in LEMMAS
                                         if n not in ("CommittedBlocksElection", "WinnersHoldTheirRecords")))
    _, cti = find_counterexample(model, reachable(model, 1500, cfg.init), random.Random(20261124), 3000, (1, 2),
                                 dynamic=True, inv=weak)
    assert cti is not None, "the weakened invariant should not be inductive"
    assert cti.startswith("BecomeCandidate") and "'Safety'" in cti, cti  # LeaderCompleteness fails


@pytest.mark.slow
@pytest.mark.parametrize("config,seed", [("MC_KRaft_reassign_3to5.cfg", 3), ("MC_KRaft_reassign_5to3.cfg", 4)])
def test_no_counterexample_to_induction_on_reassignment_walks(config: str, seed: int) -> None:
    """Five replicas: perturbed states of random walks of the KIP-642 reassignment models
    (observers promoted, voters removed, restarts and disk losses) that satisfy IndInv have
    only successors that satisfy it."""
    cfg = read_config(SPEC / config)
    model = Model.load(SPEC / "MC_KRaft.tla", constants=cfg.constants, overrides=cfg.overrides)
    assert cfg.init is not None
    rng = random.Random(seed)
    states = walk_states(model, cfg.init, rng, walks=12, depth=60)
    checked = search_consecution(model, states, rng, 2500, (1, 2, 3, 4, 5), dynamic=True)
    assert checked >= 500, f"only {checked} perturbed states satisfied IndInv"


def test_a_candidate_that_already_won_its_epoch_is_not_an_indinv_state() -> None:
    """The counterexample to induction z3 found for HandleVoteResponse: candidate 3 of epoch 1
    has already won epoch 1, and replica 1 holds 3's records of that epoch; a granted vote
    makes 3 leader again with an empty log, so it lacks a record of its own epoch that
    replica 1 holds.  CandidatesNotElected excludes the state; without it, the step breaks
    EpochEntriesAtLeader.  (Client values on: with none, the only records of epoch 1 are
    3's leaderChange record, which it writes again.)"""

    cfg = read_config(SPEC / "MC_KRaft_indinv.cfg")
    model = Model.load(SPEC / "MC_KRaft.tla", constants={**cfg.constants, "Values": frozenset({"v"})},
                       overrides=cfg.overrides)
    at = {n: k for k, n in enumerate(model.variables)}
    init = reachable(model, 1)[0]
    records = (leader_change_record(1, 3),
               make_record([("epoch", 1), ("kind", "data"), ("value", "v"), ("voters", frozenset())]))
    cti = state_like(model, init, currentEpoch=make_fn({1: 1, 2: 2, 3: 1}),
                                  votedId=with_entry(init[at["votedId"]], 3, 3),
                                  leaderId=with_entry(init[at["leaderId"]], 1, 3),
                                  role=make_fn({1: "Follower", 2: "Unattached", 3: "Candidate"}),
                                  log=with_entry(init[at["log"]], 1, records),
                                  votesGranted=with_entry(init[at["votesGranted"]], 3, frozenset({3})),
                                  elections=frozenset({(1, 3)}),
                                  votes=frozenset({(2, 1, 3), (3, 1, 3)}),
                                  messages=frozenset({message_like(model, init, type="VoteResponse", source=2, dest=3, epoch=1,
                                                                   voteGranted=True, errorCode="", leaderId=-1)}))
    assert_needed(model, cti, ("CandidatesNotElected", "WinnersHoldTheirRecords"), "HandleVoteResponse", "EpochEntriesAtLeader")


def test_an_election_ahead_of_its_winner_is_not_an_indinv_state(model: Model) -> None:
    """The counterexample to induction z3 found for BecomeCandidate: replicas 2 and 3 voted
    for 1 in epoch 1, and 1 won epoch 1, while 1 is still in epoch 0; standing, 1 becomes a
    candidate of an epoch it already won.  EpochsNotAhead excludes the state; without it,
    the step breaks CandidatesNotElected."""

    cti = state_like(model, reachable(model, 1)[0], currentEpoch=make_fn({1: 0, 2: 1, 3: 1}),
                     votedId=make_fn({1: -1, 2: 1, 3: 1}),
                     role=make_fn({1: "Unattached", 2: "Voted", 3: "Voted"}),
                     elections=frozenset({(1, 1)}),
                     votes=frozenset({(2, 1, 1), (3, 1, 1)}))
    assert_needed(model, cti, "EpochsNotAhead", "BecomeCandidate", "CandidatesNotElected")


def test_the_commit_prefix_lemma_is_defined_for_a_negative_diverging_end_offset(model: Model) -> None:
    """z3 gave a FetchResponse whose divergingEndOffset is negative; FetchResponsesCommitPrefix
    then applied the follower's log at a negative offset, where TLA+ leaves it undefined (the
    explicit engine could not evaluate the counterexample). The lemma treats an end offset
    at most 0 as the empty log the follower would keep, as HandleFetchResponse does."""

    at = {n: k for k, n in enumerate(model.variables)}

    def follower(s: State) -> int | None:
        return next((i for i, r in fn_items(s[at["role"]]) if r == "Follower"), None)  # type: ignore[arg-type]

    state = next(s for s in reachable(model, 3000) if follower(s) is not None and s[at["messages"]])
    j = follower(state)
    lg = fn_apply(state[at["log"]], j)
    sample = next(iter(state[at["messages"]]))  # type: ignore[call-overload]
    response = make_record(sorted({
        **dict(fn_items(sample)), "type": "FetchResponse", "errorCode": "", "dest": j,
        "source": fn_apply(state[at["leaderId"]], j), "epoch": fn_apply(state[at["currentEpoch"]], j),
        "fetchOffset": len(lg), "lastFetchedEpoch": fn_apply(lg[-1], "epoch") if lg else 0,  # type: ignore[arg-type]
        "divergingEpoch": 1, "divergingEndOffset": -1, "highWatermark": 0, "records": ()}.items()))
    with_response = state_like(model, state, messages=state[at["messages"]] | {response})  # type: ignore[operator]
    assert model.eval_state("FetchResponsesCommitPrefix", with_response) is True


def test_a_follower_of_itself_is_not_an_indinv_state(model: Model) -> None:
    """The counterexample to induction z3 found for HandleFetchResponse: follower 2 follows
    itself in epoch 1, and a divergence in its own FetchResponse empties its log, dropping
    an entry committed on replicas 1 and 2 only.  LeadersElected (a follower follows
    another replica) excludes the state, and so does MessagesToOthers (added later: the
    response is 2's to itself), FetchDivergenceKeepsCommitted (the divergence cuts 2's
    committed record) and FetchDivergencesAboveCommitted (later still: it names epoch 0 below
    that record of epoch 1); without all four, the step breaks CommittedOnMajority."""

    at = {n: k for k, n in enumerate(model.variables)}
    init = reachable(model, 1)[0]
    entry = leader_change_record(1, 2)
    response = message_like(model, init, type="FetchResponse", errorCode="", source=2, dest=2, epoch=1, leaderId=-1,
                            fetchOffset=1, lastFetchedEpoch=1, divergingEpoch=0, divergingEndOffset=0,
                            highWatermark=0, records=())
    cti = state_like(model, init, currentEpoch=make_fn({1: 2, 2: 1, 3: 2}),
                                  leaderId=with_entry(init[at["leaderId"]], 2, 2),
                                  role=make_fn({1: "Unattached", 2: "Follower", 3: "Unattached"}),
                                  log=make_fn({1: (entry,), 2: (entry,), 3: ()}),
                                  highWatermark=make_fn({1: 1, 2: 0, 3: 0}),  # 2's at 1 is FetchDivergenceKeepsHighWatermark's case
                                  elections=frozenset({(1, 2)}),
                                  votes=frozenset({(1, 1, 2), (3, 1, 2)}),
                                  committed=frozenset({(0, entry, 1)}),
                                  messages=frozenset({response}))
    assert_needed(model, cti, ("LeadersElected", "MessagesToOthers", "FetchDivergenceKeepsCommitted",
                               "FetchDivergencesAboveCommitted", "FetchDivergencesFromLeaderLog", "FetchDivergencesBeforeTheirEpoch"),
                  "HandleFetchResponse", "CommittedOnMajority")


def test_a_divergence_below_the_followers_high_watermark_is_not_an_indinv_state(model: Model) -> None:
    """The counterexample to induction z3 found for HandleFetchResponse: leader 2 of epoch 2
    answers follower 3, whose log holds the committed leaderChange record of epoch 2, with a
    divergence of epoch 1 ending at offset 1; the follower keeps no record of epoch 1 and
    empties its log under its high watermark.  FetchDivergenceKeepsHighWatermark excludes
    the state, and so do two lemmas added after it (leader 2's log holds the position its
    divergence answers, FetchDivergencesFromLeaderLog; the divergence cuts 3's committed
    record, FetchDivergenceKeepsCommitted), and one added later still (the divergence names
    epoch 1 below the committed record of epoch 2, FetchDivergencesAboveCommitted); without the
    four, the step breaks HighWatermarkInLog."""

    init = reachable(model, 1)[0]
    entry = leader_change_record(2, 2)
    response = message_like(model, init, type="FetchResponse", errorCode="", source=2, dest=3, epoch=2, leaderId=-1,
                            fetchOffset=1, lastFetchedEpoch=2, divergingEpoch=1, divergingEndOffset=1,
                            highWatermark=1, records=())
    cti = state_like(model, init, currentEpoch=make_fn({1: 2, 2: 2, 3: 2}),
                                  votedId=make_fn({1: 2, 2: 2, 3: -1}),
                                  leaderId=make_fn({1: 2, 2: 2, 3: 2}),
                                  role=make_fn({1: "Follower", 2: "Leader", 3: "Follower"}),
                                  log=make_fn({1: (entry,), 2: (entry,), 3: (entry,)}),
                                  highWatermark=make_fn({1: 1, 2: 1, 3: 1}),
                                  elections=frozenset({(2, 2)}),
                                  votes=frozenset({(1, 2, 2), (2, 2, 2)}),
                                  committed=frozenset({(0, entry, 2)}),
                                  messages=frozenset({response}))
    assert_needed(model, cti, ("FetchDivergenceKeepsHighWatermark", "FetchDivergencesFromLeaderLog",
                               "FetchDivergenceKeepsCommitted", "FetchDivergencesAboveCommitted", "FetchDivergencesBeforeTheirEpoch"),
                  "HandleFetchResponse", "HighWatermarkInLog")


def test_a_fetch_request_ahead_of_its_sender_is_not_an_indinv_state(model: Model) -> None:
    """The counterexample to induction z3 found for HandleVoteResponse: replica 3, still in
    epoch 0 with an empty log, has a FetchRequest of epoch 1 at offset 1 in flight to leader
    2; a VoteResponse of epoch 1 moves it to epoch 1, where FetchRequestsHeld takes that
    request for its position.  FetchRequestsWellFormed (a request is of its sender's epoch
    or an earlier one) excludes the state; without it, the step breaks FetchRequestsHeld."""

    init = reachable(model, 1)[0]
    entry = leader_change_record(1, 2)
    request = message_like(model, init, type="FetchRequest", clusterId="kraft", source=3, dest=2, epoch=1,
                           fetchOffset=1, lastFetchedEpoch=1, sourceDirectoryId=0)
    answer = message_like(model, init, type="VoteResponse", source=1, dest=3, epoch=1, voteGranted=False,
                          errorCode="", leaderId=-1)
    cti = state_like(model, init, currentEpoch=make_fn({1: 1, 2: 1, 3: 0}),
                                  votedId=make_fn({1: 2, 2: 2, 3: -1}),
                                  leaderId=make_fn({1: 2, 2: 2, 3: -1}),
                                  role=make_fn({1: "Follower", 2: "Leader", 3: "Unattached"}),
                                  log=make_fn({1: (entry,), 2: (entry,), 3: ()}),
                                  elections=frozenset({(1, 2)}),
                                  votes=frozenset({(1, 1, 2), (2, 1, 2)}),
                                  messages=frozenset({request, answer}))
    assert_needed(model, cti, "FetchRequestsWellFormed", "HandleVoteResponse", "FetchRequestsHeld")


def test_a_foreign_fetch_request_does_not_speak_for_its_claimed_sender(model: Model) -> None:
    """The counterexample to induction z3 found for BecomeCandidate (and four more epoch
    changes): a misconfigured peer's FetchRequest (the foreign cluster id) names replica 2,
    epoch 1 and offset 1; once 2 stands in epoch 1, FetchRequestsHeld took that request for
    2's position, beyond 2's empty log.  The leader refuses such a request, and the lemmas
    about FetchRequests now leave it out: the state satisfies IndInv and so do its successors."""

    init = reachable(model, 1)[0]
    entry = leader_change_record(1, 1)
    foreign = message_like(model, init, type="FetchRequest", clusterId="other", source=2, dest=1, epoch=1,
                           fetchOffset=1, lastFetchedEpoch=1, sourceDirectoryId=0)
    state = state_like(model, init, currentEpoch=make_fn({1: 1, 2: 0, 3: 1}),
                       votedId=make_fn({1: 1, 2: -1, 3: 1}),
                       leaderId=make_fn({1: 1, 2: -1, 3: 1}),
                       role=make_fn({1: "Leader", 2: "Unattached", 3: "Follower"}),
                       log=make_fn({1: (entry,), 2: (), 3: ()}),
                       elections=frozenset({(1, 1)}),
                       votes=frozenset({(1, 1, 1), (3, 1, 1)}),
                       messages=frozenset({foreign}))
    assert model.eval_state("IndInv", state) is True
    stands = [t for label, t in model.successors(state) if label.name == "BecomeCandidate"]
    assert stands and all(model.eval_state("IndInv", t) is True for t in stands)


def test_a_fetch_at_offset_zero_names_epoch_zero(model: Model) -> None:
    """The counterexample to induction the reassignment walks found for HandleFetchRequest: a
    FetchRequest of replica 3 at offset 0 naming last fetched epoch 1 (no replica sends one: an
    empty log's last epoch is 0) is a valid position in leader 1's log of epoch 1, so 1
    answers with its leaderChange record of epoch 1, which is not after the last fetched epoch
    (FetchResponseRecordsWellFormed). FetchRequestsWellFormed now ties offset 0 to epoch 0."""
    init = reachable(model, 1)[0]
    record = leader_change_record(1, 1)
    fetch = message_like(model, init, type="FetchRequest", source=3, dest=1, epoch=1, clusterId="kraft",
                         fetchOffset=0, lastFetchedEpoch=1, sourceDirectoryId=0)
    cti = state_like(model, init, currentEpoch=make_fn({1: 1, 2: 1, 3: 1}),
                                  votedId=make_fn({1: 1, 2: 1, 3: -1}),
                                  leaderId=make_fn({1: 1, 2: -1, 3: -1}),
                                  role=make_fn({1: "Leader", 2: "Voted", 3: "Unattached"}),
                                  log=make_fn({1: (record,), 2: (), 3: ()}),
                                  elections=frozenset({(1, 1)}),
                                  votes=frozenset({(1, 1, 1), (2, 1, 1)}),
                                  messages=frozenset({fetch}))
    assert_needed(model, cti, "FetchRequestsWellFormed", "HandleFetchRequest", "FetchResponseRecordsWellFormed")


def test_a_voter_fetch_request_of_an_epoch_without_a_leader_is_not_an_indinv_state(model: Model) -> None:
    """The counterexample to induction z3 found for HandleVoteResponse once frame substitution
    let it decide: voter 2, in epoch 1 with an empty log, has a FetchRequest of epoch 1 at
    offset 1 (last fetched epoch 1) in flight to candidate 3 of epoch 1; a granted vote makes 3
    leader with its leaderChange record at that position, and FetchRequestsHeld takes the request
    for 2's position. No voter sends one: it fetches only from the elected leader it follows
    (FetchRequestsToElectedLeaders)."""
    init = reachable(model, 1)[0]
    request = message_like(model, init, type="FetchRequest", clusterId="kraft", source=2, dest=3, epoch=1,
                           fetchOffset=1, lastFetchedEpoch=1, sourceDirectoryId=0)
    grant = message_like(model, init, type="VoteResponse", clusterId="kraft", source=1, dest=3, epoch=1,
                         voteGranted=True, errorCode="", leaderId=-1)
    cti = state_like(model, init, currentEpoch=make_fn({1: 1, 2: 1, 3: 1}),
                                  votedId=make_fn({1: 3, 2: -1, 3: 3}),
                                  role=make_fn({1: "Voted", 2: "Unattached", 3: "Candidate"}),
                                  votesGranted=make_fn({1: frozenset(), 2: frozenset(), 3: frozenset({3})}),
                                  votes=frozenset({(1, 1, 3), (3, 1, 3)}),
                                  messages=frozenset({request, grant}))
    assert_needed(model, cti, "FetchRequestsToElectedLeaders", "HandleVoteResponse", "FetchRequestsHeld")


def test_a_fetch_request_naming_an_epoch_nobody_won_is_not_an_indinv_state() -> None:
    """The second counterexample to induction z3 gave HandleVoteResponse: observer 4 (it may
    fetch from any voter while it knows no leader) has a FetchRequest of epoch 1 at offset 2
    naming last fetched epoch 1, which elected nobody; candidate 3 wins epoch 1 with a log of
    one record, and FetchRequestsBehindLeader takes the request for a position within the new
    leader's log. A request's last fetched epoch is one its sender held an entry of, an
    elected one (FetchRequestsToElectedLeaders)."""
    text = re.sub(r"Observers = \{[^}]*\}", "Observers = {4}", (SPEC / "MC_KRaft_indinv.cfg").read_text())
    cfg = parse_config(text)
    model = Model.load(SPEC / "MC_KRaft.tla", constants=cfg.constants, overrides=cfg.overrides)
    init = reachable(model, 1)[0]
    request = message_like(model, init, type="FetchRequest", clusterId="kraft", source=4, dest=3, epoch=1,
                           fetchOffset=2, lastFetchedEpoch=1, sourceDirectoryId=0)
    grant = message_like(model, init, type="VoteResponse", clusterId="kraft", source=1, dest=3, epoch=1,
                         voteGranted=True, errorCode="", leaderId=-1)
    cti = state_like(model, init, currentEpoch=make_fn({1: 1, 2: 0, 3: 1, 4: 1}),
                                  votedId=make_fn({1: 3, 2: -1, 3: 3, 4: -1}),
                                  role=make_fn({1: "Voted", 2: "Unattached", 3: "Candidate", 4: "Unattached"}),
                                  votesGranted=make_fn({1: frozenset(), 2: frozenset(), 3: frozenset({3}),
                                                        4: frozenset()}),
                                  votes=frozenset({(1, 1, 3), (3, 1, 3)}),
                                  messages=frozenset({request, grant}))
    assert_needed(model, cti, "FetchRequestsToElectedLeaders", "HandleVoteResponse", "FetchRequestsBehindLeader")


def test_a_response_claiming_an_uncommitted_high_watermark_is_not_an_indinv_state(model: Model) -> None:
    """The counterexample to induction z3 found for HandleFetchResponse once it decided
    FetchResponsesCommitPrefix (tests/symbolic/test_kraft_cti.py asks z3 again): leader 2 of
    epoch 1 has moved on to epoch 2, and two of its responses are in flight to its follower 1,
    whose log is empty: one at offset 0 with 2's leaderChange record, and an old one at offset
    1 (epoch 1) saying the high watermark is 2 while nothing is committed. The first brings 1
    to the old one's position, and FetchResponsesCommitPrefix then asks for committed entries
    that are not. FetchResponseHighWatermarksCommitted (a successful response's high
    watermark is a committed offset) excludes the state."""
    init = reachable(model, 1)[0]
    record = leader_change_record(1, 2)
    old = message_like(model, init, type="FetchResponse", source=2, dest=1, epoch=1, clusterId="", errorCode="",
                       leaderId=2, fetchOffset=1, lastFetchedEpoch=1, highWatermark=2, records=(),
                       divergingEpoch=-1, divergingEndOffset=-1)
    first = message_like(model, init, type="FetchResponse", source=2, dest=1, epoch=1, clusterId="", errorCode="",
                         leaderId=2, fetchOffset=0, lastFetchedEpoch=0, highWatermark=0, records=(record,),
                         divergingEpoch=-1, divergingEndOffset=-1)
    cti = state_like(model, init, currentEpoch=make_fn({1: 1, 2: 2, 3: 0}),
                                  votedId=make_fn({1: 2, 2: -1, 3: -1}),
                                  leaderId=make_fn({1: 2, 2: -1, 3: -1}),
                                  role=make_fn({1: "Follower", 2: "Unattached", 3: "Unattached"}),
                                  log=make_fn({1: (), 2: (record,), 3: ()}),
                                  elections=frozenset({(1, 2)}),
                                  votes=frozenset({(1, 1, 2), (2, 1, 2)}),
                                  messages=frozenset({old, first}))
    assert_needed(model, cti, ("FetchResponseHighWatermarksCommitted", "FetchResponsePositionsCommitted"), "HandleFetchResponse", "FetchResponsesCommitPrefix")


def test_a_divergence_below_a_committed_entry_of_its_epoch_is_not_an_indinv_state(model: Model) -> None:
    """The counterexample to induction z3 found next for HandleFetchResponse (once
    FetchResponseHighWatermarksCommitted let it decide FetchResponsesCommitPrefix): leader 3
    of epoch 1, which has moved on to epoch 2, committed its leaderChange record; of its two
    responses in flight to follower 1 (empty log), one carries that record with high
    watermark 1, and an old divergence for the position <<1, 1>> names epoch 0, which 3's log
    never held. The first brings 1 to that position with high watermark 1, where the
    divergence would empty its log (FetchDivergenceKeepsHighWatermark).
    FetchDivergencesAboveCommitted (a divergence is above the entries committed by its epoch
    up to its last fetched epoch) excludes the state."""
    init = reachable(model, 1)[0]
    record = leader_change_record(1, 3)
    first = message_like(model, init, type="FetchResponse", source=3, dest=1, epoch=1, clusterId="", errorCode="",
                         leaderId=3, fetchOffset=0, lastFetchedEpoch=0, highWatermark=1, records=(record,),
                         divergingEpoch=-1, divergingEndOffset=-1)
    old = message_like(model, init, type="FetchResponse", source=3, dest=1, epoch=1, clusterId="", errorCode="",
                       leaderId=3, fetchOffset=1, lastFetchedEpoch=1, highWatermark=1, records=(),
                       divergingEpoch=0, divergingEndOffset=2)
    cti = state_like(model, init, currentEpoch=make_fn({1: 1, 2: 2, 3: 2}),
                                  leaderId=make_fn({1: 3, 2: -1, 3: -1}),
                                  role=make_fn({1: "Follower", 2: "Unattached", 3: "Unattached"}),
                                  log=make_fn({1: (), 2: (record,), 3: (record,)}),
                                  highWatermark=make_fn({1: 0, 2: 1, 3: 0}),
                                  elections=frozenset({(1, 3)}),
                                  votes=frozenset({(2, 1, 3), (3, 1, 3)}),
                                  committed=frozenset({(0, record, 1)}),
                                  messages=frozenset({first, old}))
    assert_needed(model, cti, ("FetchDivergencesAboveCommitted", "FetchDivergencesBeforeTheirEpoch"), "HandleFetchResponse",
                  "FetchDivergenceKeepsHighWatermark")


def test_a_voter_that_lost_its_fetched_record_in_a_later_epoch_is_not_an_indinv_state(model: Model) -> None:
    """The counterexample to induction z3 found for HandleFetchRequest (the case of a valid
    fetch, once the two FetchResponse lemmas let it get there): voter 2 fetched leader 1's
    leaderChange record at offset 1 in epoch 1 and has moved to epoch 2, which elected
    nobody, with an empty log. Leader 1 takes the stale request as 2's progress and commits
    the record on 1 and 2, and CommittedOnMajority breaks. FetchRequestsHeldAcrossEpochs (the
    request still speaks for 2's log while no later epoch up to 2's elected a leader)
    excludes the state."""
    init = reachable(model, 1)[0]
    record = leader_change_record(1, 1)
    request = message_like(model, init, type="FetchRequest", source=2, dest=1, epoch=1, clusterId="kraft",
                           fetchOffset=1, lastFetchedEpoch=1, sourceDirectoryId=0)
    cti = state_like(model, init, currentEpoch=make_fn({1: 1, 2: 2, 3: 1}),
                                  votedId=make_fn({1: 1, 2: -1, 3: 1}),
                                  leaderId=make_fn({1: 1, 2: -1, 3: -1}),
                                  role=make_fn({1: "Leader", 2: "Unattached", 3: "Voted"}),
                                  log=make_fn({1: (record,), 2: (), 3: ()}),
                                  elections=frozenset({(1, 1)}),
                                  votes=frozenset({(1, 1, 1), (3, 1, 1)}),
                                  messages=frozenset({request}))
    assert_needed(model, cti, "FetchRequestsHeldAcrossEpochs", "HandleFetchRequest", "CommittedOnMajority")
