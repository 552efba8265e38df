"""Static-quorum KRaft traces written before the reconfiguration vocabulary (KIP-853).

A static quorum (``kraftcheck simulate --quorum static``) still writes the KIP-595 trace of
``traces/FORMAT.md``: its header lacks the reconfiguration constants, its entries lack the
``voters`` field and its messages the directory-id fields. ``spec/KRaft.tla`` declares them, so
such a trace is read as the spec's static quorum (``KRaftVersion = 0``): the constants take
their static values and every entry and message gets the fields the spec gives it there
(directory ids are 0 in a static quorum: the replicas' ``dirId`` and every voter key's; fields a
message type does not use are ``Nil``). Only shapes are filled in; nothing is re-decided.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from conformance.tla.values import Value

MARKER = "KRaftVersion"
STATIC_CONSTANTS: dict[str, Value] = {
    "KRaftVersion": 0,
    "VoterChangeRequests": frozenset(),
    "OneUncommittedChange": True,
    "ChangeRequiresCurrentEpochCommit": True,
    "VoteChecksDirectoryId": True,
}
NIL = -1
STATIC_DIRECTORY = 0
_EMPTY_SET: dict[str, list[Any]] = {"#set": []}
# (sourceDirectoryId, voterDirectoryId) of the requests that carry replica keys.
_KEYED = {
    "VoteRequest": (STATIC_DIRECTORY, STATIC_DIRECTORY),
    "BeginQuorumEpochRequest": (STATIC_DIRECTORY, STATIC_DIRECTORY),
    "FetchRequest": (STATIC_DIRECTORY, NIL),
}


def needs_upgrade(spec: str, declared: list[str], constants: Mapping[str, Value]) -> bool:
    """A KRaft trace without the reconfiguration constants, for a spec that declares them."""
    return spec == "KRaft" and MARKER in declared and MARKER not in constants


class StaticTraceUpgrade:
    """Fills a static trace's lines (decoded JSON, before ITF decoding) to the spec's shapes."""

    def __init__(self, constants: dict[str, Value]) -> None:
        self.foreign_cluster = constants.get("ForeignClusterId")
        for name, value in STATIC_CONSTANTS.items():
            constants.setdefault(name, value)

    def entry(self, e: Any) -> None:
        if type(e) is dict and "voters" not in e:
            e["voters"] = _EMPTY_SET

    def log(self, entries: Any) -> None:
        if type(entries) is list:
            for e in entries:
                self.entry(e)

    def message(self, m: Any) -> None:
        if type(m) is not dict or "voterId" in m:
            return
        kind = m.get("type")
        source, voter = _KEYED.get(kind, (NIL, NIL)) if isinstance(kind, str) else (NIL, NIL)
        if m.get("clusterId") == self.foreign_cluster and m.get("type") in _KEYED:
            voter = STATIC_DIRECTORY  # a misconfigured peer addresses the receiver's key
        m["sourceDirectoryId"] = source
        m["voterId"] = NIL
        m["voterDirectoryId"] = voter
        self.log(m.get("records"))

    def state_element(self, variable: str, element: Any) -> None:
        if variable == "log":
            self.entry(element)

    def state(self, variables: Any) -> None:
        if type(variables) is dict:
            self.log(variables.get("log"))

    def params(self, params: Any) -> None:
        if type(params) is dict:
            for value in params.values():
                self.message(value)

    def sent(self, messages: Any) -> None:
        if type(messages) is list:
            for m in messages:
                self.message(m)
