"""Traces written before quorum reconfiguration (KIP-853), read as a static quorum.

Such a trace of the KRaft spec has no ``KRaftVersion`` constant in its header, and its log
entries and messages lack the fields the spec added for reconfiguration. The reader fills
them in (on the JSON, before decoding) with what the spec gives a static quorum: kraft.version
0, no voter-change requests, the KIP-853 rules on, every directory id 0, no VotersRecord.
"""

from __future__ import annotations

from typing import Any

NIL = -1
STATIC_CONSTANTS: dict[str, Any] = {
    "KRaftVersion": 0,
    "VoterChangeRequests": {"#set": []},
    "OneUncommittedChange": True,
    "ChangeRequiresCurrentEpochCommit": True,
    "VoteChecksDirectoryId": True,
}
_ENTRY_KEYS = frozenset({"epoch", "kind", "value"})
_SOURCE_DIR = frozenset({"VoteRequest", "BeginQuorumEpochRequest", "FetchRequest"})
_VOTER_DIR = frozenset({"VoteRequest", "BeginQuorumEpochRequest"})


def is_legacy(spec: str, constants: dict[str, Any]) -> bool:
    """A KRaft trace written before reconfiguration (its header lacks ``KRaftVersion``)."""
    return spec == "KRaft" and "Voters" in constants and "KRaftVersion" not in constants


def with_static_constants(constants: dict[str, Any]) -> dict[str, Any]:
    return {**STATIC_CONSTANTS, **constants}


def upgrade(obj: Any) -> Any:
    """Add the reconfiguration fields to the entries and messages inside ``obj`` (in place)."""
    if isinstance(obj, list):
        for item in obj:
            upgrade(item)
    elif isinstance(obj, dict):
        if obj.keys() == _ENTRY_KEYS:
            obj["voters"] = {"#set": []}
            return obj
        if "type" in obj and "records" in obj:
            t = obj["type"]
            obj.setdefault("sourceDirectoryId", 0 if t in _SOURCE_DIR else NIL)
            obj.setdefault("voterId", NIL)
            obj.setdefault("voterDirectoryId", 0 if t in _VOTER_DIR else NIL)
        for value in obj.values():
            upgrade(value)
    return obj
