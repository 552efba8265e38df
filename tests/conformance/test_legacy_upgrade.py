"""Static KRaft traces without the reconfiguration fields are read as the spec's static
quorum: constants, entries and messages get the shapes spec/KRaft.tla gives them there."""

from __future__ import annotations

from conformance.validate.legacy import (
    STATIC_CONSTANTS,
    Upgrade,
    is_legacy,
    upgrade,
    with_static_constants,
)


def test_only_kraft_traces_lacking_the_marker() -> None:
    assert is_legacy("KRaft", {"Voters": {"#set": [1]}})
    assert not is_legacy("KRaft", {"Voters": {"#set": [1]}, "KRaftVersion": 1})
    assert not is_legacy("Toy", {"Voters": {"#set": [1]}})


def test_constants_take_their_static_values_without_overriding_the_header() -> None:
    merged = with_static_constants({"OneUncommittedChange": False})
    assert merged["KRaftVersion"] == 0 and merged["OneUncommittedChange"] is False
    assert set(STATIC_CONSTANTS) <= set(merged)


def _message(kind: str, cluster: str = "c") -> dict[str, object]:
    return {"type": kind, "clusterId": cluster, "records": []}


def test_a_line_gets_the_static_fields() -> None:
    entry = {"epoch": 1, "kind": "data", "value": 2}
    response = {"type": "FetchResponse", "clusterId": "", "records": [dict(entry)]}
    vote, fetch, foreign_fetch = _message("VoteRequest"), _message("FetchRequest"), _message("FetchRequest", "f")
    line = {"kind": "event", "params": {"m": vote, "i": 1}, "state": {"log": [entry]},
            "sent": [fetch, foreign_fetch, response]}
    Upgrade()(line)
    assert entry["voters"] == {"#set": []} and response["records"][0]["voters"] == {"#set": []}  # type: ignore[index]
    keys = ("sourceDirectoryId", "voterId", "voterDirectoryId")
    assert [tuple(m[k] for k in keys) for m in (vote, fetch, foreign_fetch, response)] == [
        (0, -1, 0), (0, -1, -1), (0, -1, -1), (-1, -1, -1)]


def test_the_targeted_walk_and_the_whole_walk_agree_on_an_init_line() -> None:
    def init() -> dict[str, object]:
        return {"kind": "init", "replicas": {"1": {"log": [{"epoch": 1, "kind": "leaderChange", "value": 1}]}}}

    targeted, whole = init(), init()
    Upgrade()(targeted)
    upgrade({"wrapped": whole})
    assert targeted == whole


def test_fields_already_there_are_kept() -> None:
    keyed = {"type": "VoteRequest", "records": [], "voterId": 3, "sourceDirectoryId": 1, "voterDirectoryId": 2}
    upgrade(keyed)
    assert (keyed["sourceDirectoryId"], keyed["voterId"], keyed["voterDirectoryId"]) == (1, 3, 2)


def test_entries_a_format_2_delta_appends_get_the_static_fields() -> None:
    entry = {"epoch": 1, "kind": "data", "value": 2}
    line = {"kind": "event", "params": {}, "delta": {"log": {"#keep": 3, "#append": [entry]}}, "sent": []}
    Upgrade()(line)
    assert entry["voters"] == {"#set": []}
