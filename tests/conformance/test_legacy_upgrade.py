"""Static KRaft traces without the reconfiguration vocabulary are read as the spec's static
quorum: constants, entries and messages get the shapes spec/KRaft.tla gives them there."""

from __future__ import annotations

from conformance.validate.legacy import STATIC_CONSTANTS, StaticTraceUpgrade, needs_upgrade


def test_only_kraft_traces_lacking_the_marker_for_a_spec_declaring_it() -> None:
    assert needs_upgrade("KRaft", ["Voters", "KRaftVersion"], {"Voters": frozenset()})
    assert not needs_upgrade("KRaft", ["Voters", "KRaftVersion"], {"KRaftVersion": 1})
    assert not needs_upgrade("KRaft", ["Voters"], {})
    assert not needs_upgrade("Toy", ["KRaftVersion"], {})


def test_constants_take_their_static_values_without_overriding_the_header() -> None:
    constants = {"ForeignClusterId": "f", "OneUncommittedChange": False}
    StaticTraceUpgrade(constants)
    assert constants["KRaftVersion"] == 0 and constants["VoterChangeRequests"] == frozenset()
    assert constants["OneUncommittedChange"] is False
    assert set(STATIC_CONSTANTS) <= set(constants)


def test_entries_and_messages_get_the_static_fields() -> None:
    up = StaticTraceUpgrade({"ForeignClusterId": "f"})
    entry = {"epoch": 1, "kind": "data", "value": 2}
    vote = {"type": "VoteRequest", "clusterId": "c"}
    fetch = {"type": "FetchRequest", "clusterId": "c"}
    foreign_fetch = {"type": "FetchRequest", "clusterId": "f"}
    response = {"type": "FetchResponse", "records": [dict(entry)]}
    up.sent([vote, fetch, foreign_fetch, response])
    up.state({"log": [entry]})
    assert entry["voters"] == {"#set": []} and response["records"][0]["voters"] == {"#set": []}
    keys = ("sourceDirectoryId", "voterId", "voterDirectoryId")
    assert [tuple(m[k] for k in keys) for m in (vote, fetch, foreign_fetch, response)] == [
        (0, -1, 0), (0, -1, -1), (0, -1, 0), (-1, -1, -1)]
    keyed = {"type": "VoteRequest", "voterId": -1, "sourceDirectoryId": 1, "voterDirectoryId": 2}
    up.params({"m": keyed})
    assert keyed["voterDirectoryId"] == 2  # a message that has the fields is left alone
