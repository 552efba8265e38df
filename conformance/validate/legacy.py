"""Traces written before quorum reconfiguration (KIP-853), read as a static quorum.

Such a trace of the KRaft spec has no ``KRaftVersion`` constant in its header, and its log
entries and messages lack the fields the spec added for reconfiguration (a static quorum,
``kraftcheck simulate --quorum static``, still writes them so, byte for byte as before). The
reader fills them in (on the JSON, before decoding) with what the spec gives a static quorum:
kraft.version 0, no voter-change requests, the KIP-853 rules on, no VotersRecord, every
directory id 0 (``sourceDirectoryId`` of Vote, BeginQuorumEpoch and Fetch requests; the
``voterDirectoryId`` a Vote or BeginQuorumEpoch is addressed to, a misconfigured peer's
included), ``Nil`` where a message type does not use the field (a Fetch names no voter).
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


# Kafka's default timer settings (reference/core/config.py), for headers without ``Timing``.
DEFAULT_TIMING: dict[str, Any] = {
    "electionTimeout": 1000, "fetchTimeout": 2000, "requestTimeout": 2000, "retryBackoff": 20, "retryBackoffMax": 1000,
    "electionBackoffMax": 1000,
}


def with_persistence_default(constants: dict[str, Any]) -> dict[str, Any]:
    """A header written before the persistence-order toggle claims KIP-595's order too (and
    before ``CrashBetweenWrites``, no crash between a step's writes); one
    written before the timer rules is untimed (``TimedRules`` empty: the clock is not checked); one
    written before the batch cap lets the leader answer with any batch (``FetchMaxRecords = 0``).
    A ``Timing`` written before ``electionBackoffMax`` gets Kafka's default: its ``TimedRules``
    predate ``TimeoutUpperBound``, the one rule that reads it."""
    out = {"SendBeforePersist": {"#set": []}, "CrashBetweenWrites": False, "TimedRules": {"#set": []},
           "Timing": dict(DEFAULT_TIMING), "FetchMaxRecords": 0, **constants}
    timing = out["Timing"]
    if type(timing) is dict and "electionBackoffMax" not in timing:
        out["Timing"] = {**timing, "electionBackoffMax": DEFAULT_TIMING["electionBackoffMax"]}
    return out


class Upgrade:
    """Adds the reconfiguration fields to the entries and messages of a line, in place. On an
    event or init line it visits only where they occur (the states' ``log`` or the entries a
    format-2 ``delta`` appends to it, ``params``, ``sent`` and the ``records`` of messages);
    anything else is walked whole."""

    def __call__(self, obj: Any) -> Any:
        if type(obj) is dict and obj.get("kind") in ("event", "init"):
            self._line(obj)
        else:
            self._walk(obj)
        return obj

    def _line(self, line: dict[str, Any]) -> None:
        state = line.get("state")
        if type(state) is dict:
            self._entries(state.get("log"))
        delta = line.get("delta")  # format 2: the log's change appends entries
        if type(delta) is dict:
            change = delta.get("log")
            self._entries(change.get("#append") if type(change) is dict else change)
        replicas = line.get("replicas")
        if type(replicas) is dict:
            for variables in replicas.values():
                if type(variables) is dict:
                    self._entries(variables.get("log"))
        params = line.get("params")
        if type(params) is dict:
            for value in params.values():
                self._message(value)
        sent = line.get("sent")
        if type(sent) is list:
            for m in sent:
                self._message(m)

    def _entries(self, entries: Any) -> None:
        if type(entries) is list:
            for e in entries:
                self._entry(e)

    @staticmethod
    def _entry(e: Any) -> None:
        if type(e) is dict and e.keys() == _ENTRY_KEYS:
            e["voters"] = {"#set": []}

    def _message(self, m: Any) -> None:
        if type(m) is not dict or "type" not in m or "records" not in m:
            return
        t = m["type"]
        m.setdefault("sourceDirectoryId", 0 if t in _SOURCE_DIR else NIL)
        m.setdefault("voterId", NIL)
        m.setdefault("voterDirectoryId", 0 if t in _VOTER_DIR else NIL)
        self._entries(m["records"])

    def _walk(self, obj: Any) -> None:
        if type(obj) is list:
            for item in obj:
                self._walk(item)
        elif type(obj) is dict:
            if obj.keys() == _ENTRY_KEYS:
                self._entry(obj)
                return
            if "type" in obj and "records" in obj:
                self._message(obj)
                return
            for value in obj.values():
                self._walk(value)


def upgrade(obj: Any) -> Any:
    """Add the reconfiguration fields to the entries and messages inside ``obj`` (in place)."""
    return Upgrade()(obj)
