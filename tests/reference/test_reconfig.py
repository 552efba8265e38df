"""KIP-853 voter changes in the reference replica: the voter set from the log, the
AddVoter / RemoveVoter / UpdateVoter preconditions and errors, the answer on commit, a leader
removing itself, replica keys in Vote and BeginQuorumEpoch."""

from __future__ import annotations

import json
import random
import zlib
from collections.abc import Iterable
from pathlib import Path

import pytest

from reference.core.messages import LEADER_CHANGE, NIL, VOTERS_RECORD, Entry, Message, ReplicaKey
from reference.core.replica import Membership, Replica, ReplicaOptions, Tick, UpdateVoter
from reference.core.voter_set import DYNAMIC
from tests.reference.helpers import CLUSTER, CONFIG, deliver, fire, msg, only

KEYS = frozenset({(1, 1), (2, 1), (3, 1)})


def dynamic_replica(node_id: int = 1, log: Iterable[Entry] = (), directory: int = 1,
                    bugs: frozenset[str] = frozenset(), bootstrap: frozenset[ReplicaKey] = KEYS) -> Replica:
    return Replica(node_id, CONFIG, CLUSTER, (1, 2, 3, 4, 5), random.Random(node_id), log_entries=log,
                   options=ReplicaOptions(bugs=bugs),
                   membership=Membership(kraft_version=DYNAMIC, directory_id=directory, bootstrap=bootstrap))


def voters_entry(epoch: int, keys: Iterable[ReplicaKey]) -> Entry:
    return Entry(epoch, VOTERS_RECORD, NIL, voters=frozenset(keys))


def dynamic_leader(bugs: frozenset[str] = frozenset(), commit: bool = True) -> Replica:
    """Replica 1 leading epoch 1 of {1, 2, 3}; with ``commit`` its LeaderChange is committed and
    replica 4 (directory 1) has fetched up to the log end."""
    r = dynamic_replica(1, bugs=bugs)
    fire(r)
    deliver(r, msg("VoteResponse", 2, 1, epoch=1, voteGranted=True))
    assert r.role == "Leader"
    if commit:
        fetch(r, 2, r.log.end_offset)
        fetch(r, 4, r.log.end_offset)
        assert r.high_watermark == 1
    return r


def fetch(r: Replica, source: int, offset: int, directory: int = 1) -> Message:
    return only(deliver(r, msg("FetchRequest", source, r.id, epoch=r.current_epoch, fetchOffset=offset,
                               lastFetchedEpoch=r.log.epoch_at(offset - 1) if offset else 0,
                               sourceDirectoryId=directory)))


def add(r: Replica, vid: int, directory: int = 1) -> list[Message]:
    return deliver(r, msg("AddVoterRequest", NIL, r.id, voterId=vid, voterDirectoryId=directory)).messages


def remove(r: Replica, vid: int, directory: int = 1) -> list[Message]:
    return deliver(r, msg("RemoveVoterRequest", NIL, r.id, voterId=vid, voterDirectoryId=directory)).messages


def test_voter_set_is_the_latest_record_committed_or_not_and_truncation_reverts() -> None:
    r = dynamic_replica(4, log=[Entry(1, LEADER_CHANGE, 1)])
    assert r.voter_set.keys == KEYS and not r.is_voter
    r.append_entries([voters_entry(1, KEYS | {(4, 1)})])
    assert r.high_watermark == 0 and r.is_voter and r.voters == {1, 2, 3, 4}
    r.truncate_log(1)
    assert r.voter_set.keys == KEYS and not r.is_voter


def test_another_directory_id_is_not_that_voter() -> None:
    r = dynamic_replica(3, directory=2)
    assert 3 in r.voters and not r.is_voter
    assert r.next_deadline() is not None  # it looks for the leader by fetching, as an observer
    ready = r.step(Tick(), r.next_deadline() or 0)
    assert ready.action == "SendFetchRequest"


def test_voter_change_errors_in_kip_order() -> None:
    follower = dynamic_replica(2)
    assert [m.errorCode for m in add(follower, 4)] == ["NOT_LEADER_FOR_PARTITION"]
    fresh = dynamic_leader(commit=False)
    assert [m.errorCode for m in add(fresh, 4)] == ["REQUEST_TIMED_OUT"]  # no own-epoch commit yet
    r = dynamic_leader()
    assert [m.errorCode for m in add(r, 2)] == ["DUPLICATE_VOTER"]
    assert [m.errorCode for m in add(r, 5)] == ["REQUEST_TIMED_OUT"]  # 5 never fetched
    assert [m.errorCode for m in add(r, 4, directory=2)] == ["REQUEST_TIMED_OUT"]  # another directory
    assert [m.errorCode for m in remove(r, 3, directory=2)] == ["VOTER_NOT_FOUND"]
    bad = deliver(r, msg("AddVoterRequest", NIL, 1, clusterId="other", voterId=4, voterDirectoryId=1))
    assert [m.errorCode for m in bad.messages] == ["INVALID_CLUSTER_ID"]
    for m in add(r, 2) + remove(r, 3, directory=2):
        assert (m.dest, m.epoch, m.leaderId) == (NIL, 1, 1)


def test_static_quorum_answers_unsupported_version() -> None:
    from tests.reference.helpers import make_leader

    r = make_leader(1)
    assert [m.errorCode for m in add(r, 4)] == ["UNSUPPORTED_VERSION"]


def test_add_voter_appends_record_answers_on_commit_and_refuses_a_second_change() -> None:
    r = dynamic_leader()
    assert add(r, 4) == []  # no answer before the commit
    assert r.log.entries[-1].voters == KEYS | {(4, 1)} and r.voters == {1, 2, 3, 4}
    assert [m.errorCode for m in remove(r, 3)] == ["REQUEST_TIMED_OUT"]  # one change at a time
    assert not r.voter_change_committed()
    assert r.state.begin_epoch_due.get(4) == r.now  # type: ignore[attr-defined]  # BeginQuorumEpoch to the new voter
    fetch(r, 2, 2)
    assert r.high_watermark == 1  # {1, 2} is no longer a majority of four voters
    fetch(r, 4, 2)
    assert r.high_watermark == 2
    ready = r.step(Tick(), r.now)
    assert ready.action == "CompleteVoterChange"
    (resp,) = ready.messages
    assert (resp.type, resp.errorCode, resp.dest, resp.voterId, resp.voterDirectoryId) == ("AddVoterResponse", "", NIL, 4, 1)
    assert r.pending_voter_changes == [] and r.role == "Leader"


def test_two_uncommitted_changes_bug_accepts_the_second() -> None:
    r = dynamic_leader(bugs=frozenset({"two-uncommitted-changes"}))
    add(r, 4)
    assert remove(r, 3) == []
    assert len(r.log.voters_record_offsets()) == 2


def test_change_before_epoch_commit_bug_accepts() -> None:
    r = dynamic_leader(bugs=frozenset({"change-before-epoch-commit"}), commit=False)
    assert remove(r, 3) == []


def test_leader_removing_itself_leads_until_commit_then_resigns() -> None:
    r = dynamic_leader()
    assert remove(r, 1) == []
    assert r.role == "Leader" and not r.is_voter
    fetch(r, 2, 2)
    assert r.high_watermark == 1  # it no longer counts itself: {2, 3} must both have the record
    fetch(r, 3, 2)
    assert r.high_watermark == 2
    ready = r.step(Tick(), r.now)
    assert ready.action == "CompleteVoterChange" and r.role == "Resigned"
    kinds = sorted((m.type, m.dest) for m in ready.messages)
    assert kinds == [("EndQuorumEpochRequest", 2), ("EndQuorumEpochRequest", 3), ("RemoveVoterResponse", NIL)]


def test_removing_the_last_voter_is_an_invalid_request() -> None:
    r = dynamic_replica(1, bootstrap=frozenset({(1, 1)}))
    ready = fire(r)
    assert ready.action == "BecomeCandidate" and r.role == "Leader"
    fetch(r, 4, 1)
    assert r.high_watermark == 1
    assert [m.errorCode for m in remove(r, 1)] == ["INVALID_REQUEST"]


def test_update_voter_from_a_follower_rewrites_the_same_set() -> None:
    r = dynamic_leader()
    follower = dynamic_replica(2)
    deliver(follower, msg("BeginQuorumEpochRequest", 1, 2, epoch=1, voterDirectoryId=1, sourceDirectoryId=1))
    ready = follower.step(UpdateVoter(), follower.now)
    req = only(ready)
    assert ready.action == "SendUpdateVoterRequest" and ready.params == {"i": 2, "j": 1}
    assert (req.voterId, req.voterDirectoryId, req.epoch) == (2, 1, 1)
    deliver(r, req)
    assert r.log.entries[-1].kind == VOTERS_RECORD and r.log.entries[-1].voters == KEYS


def test_vote_addressed_to_another_directory_is_refused_unless_bug() -> None:
    request = {"epoch": 1, "lastOffsetEpoch": 0, "lastOffset": 0, "sourceDirectoryId": 1, "voterDirectoryId": 1}
    r = dynamic_replica(3, directory=2)
    resp = only(deliver(r, msg("VoteRequest", 1, 3, **request)))
    assert (resp.voteGranted, resp.errorCode, r.current_epoch) == (False, "INVALID_VOTER_KEY", 0)
    buggy = dynamic_replica(3, directory=2, bugs=frozenset({"vote-ignores-directory-id"}))
    assert only(deliver(buggy, msg("VoteRequest", 1, 3, **request))).voteGranted


def test_begin_quorum_epoch_addressed_to_another_directory_is_refused() -> None:
    r = dynamic_replica(3, directory=2)
    resp = only(deliver(r, msg("BeginQuorumEpochRequest", 1, 3, epoch=1, voterDirectoryId=1, sourceDirectoryId=1)))
    assert resp.errorCode == "INVALID_VOTER_KEY" and r.leader_id == NIL


def test_replica_outside_its_voter_set_grants_a_vote() -> None:
    """KIP-853 reverses KIP-595's rule 4.a: observers and candidates outside the set."""
    r = dynamic_replica(4)
    resp = only(deliver(r, msg("VoteRequest", 5, 4, epoch=1, lastOffsetEpoch=0, lastOffset=0,
                               sourceDirectoryId=1, voterDirectoryId=1)))
    assert resp.voteGranted and r.voted_id == 5


def test_candidate_counts_only_grants_from_its_own_voter_set() -> None:
    r = dynamic_replica(1)
    fire(r)
    deliver(r, msg("VoteResponse", 4, 1, epoch=1, voteGranted=True))
    assert r.role == "Candidate" and r.votes_granted == {1}
    deliver(r, msg("VoteResponse", 3, 1, epoch=1, voteGranted=True))
    assert r.role == "Leader"


def test_high_watermark_counts_a_voter_only_with_its_directory() -> None:
    r = dynamic_leader(commit=False)
    fetch(r, 2, 1, directory=2)  # replica 2 with a new disk is not voter (2, 1)
    assert r.high_watermark == 0
    fetch(r, 2, 1, directory=1)
    assert r.high_watermark == 1


def test_quorum_state_file_keeps_directory_id_and_rejects_unknown_kraft_version(tmp_path: Path) -> None:
    from reference.core.quorum_state import QuorumState
    from reference.storage.base import StorageError
    from reference.storage.quorum_state_file import read_quorum_state_file, write_quorum_state_file

    path = tmp_path / "quorum-state"
    state = QuorumState(leader_id=2, leader_epoch=3, voted_id=2, applied_offset=7, data_version=1,
                        voted_directory_id=4, kraft_version=1)
    write_quorum_state_file(path, state)
    assert read_quorum_state_file(path) == state
    doc = json.loads(path.read_text())
    doc["KRaftVersion"] = 7  # as a newer writer would store it: with a valid checksum
    body = {k: v for k, v in doc.items() if k != "Crc32"}
    doc["Crc32"] = zlib.crc32(json.dumps(body, sort_keys=True, separators=(",", ":")).encode())
    path.write_text(json.dumps(doc))
    with pytest.raises(StorageError, match=r"quorum-state: field KRaftVersion: unknown kraft.version 7 \(known: 0, 1\)"):
        read_quorum_state_file(path)


def test_dynamic_replica_persists_the_voted_directory_id() -> None:
    r = dynamic_replica(4)
    ready = deliver(r, msg("VoteRequest", 2, 4, epoch=1, lastOffsetEpoch=0, lastOffset=0,
                           sourceDirectoryId=3, voterDirectoryId=1))
    assert ready.quorum_state is not None
    assert (ready.quorum_state.voted_id, ready.quorum_state.voted_directory_id, ready.quorum_state.kraft_version) == (2, 3, 1)
    restarted = Replica(4, CONFIG, CLUSTER, (1, 2, 3, 4, 5), random.Random(4), quorum_state=ready.quorum_state,
                        membership=Membership(kraft_version=DYNAMIC, directory_id=1, bootstrap=KEYS))
    assert (restarted.voted_id, restarted.voted_directory_id) == (2, 3)


def test_meta_properties_keep_the_directory_id(tmp_path: Path) -> None:
    from reference.storage.meta_properties import check_or_create_meta

    path = tmp_path / "meta.properties"
    assert check_or_create_meta(path, 3, "c", directory_id=2) == 2
    assert "directory.id=2" in path.read_text()
    assert check_or_create_meta(path, 3, "c") == 2


def test_keyed_message_encoding_is_every_reconfig_field_in_order() -> None:
    from reference.core.messages import RECONFIG_MESSAGE_FIELDS
    from reference.trace.itf_encode import encode, encode_keyed_message

    m = Message("FetchResponse", 1, 2, clusterId='a"b', epoch=3, preferredSuccessors=(2, 3), voteGranted=True,
                records=(voters_entry(3, {(1, 1)}), Entry(3, "data", 5)), sourceDirectoryId=4, voterId=5)
    parsed = json.loads(encode_keyed_message(m))
    assert list(parsed) == list(RECONFIG_MESSAGE_FIELDS)
    for name in RECONFIG_MESSAGE_FIELDS:
        if name != "records":
            assert json.dumps(parsed[name]) == encode(getattr(m, name)), name
    assert parsed["records"] == [{"epoch": 3, "kind": "voters", "value": -1, "voters": {"#set": [[1, 1]]}},
                                 {"epoch": 3, "kind": "data", "value": 5, "voters": {"#set": []}}]
