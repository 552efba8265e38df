"""Log entries and the messages of KIP-595 and KIP-853, in the record shape of
``spec/VOCABULARY.md``.

Every message is one record type with all fields; fields a message type does not use
hold their defaults (``NIL`` for ints, ``""`` for strings, ``False``, ``()``).
Messages and entries are immutable once built.
"""

from __future__ import annotations

from dataclasses import dataclass, field

NIL = -1

DATA = "data"
LEADER_CHANGE = "leaderChange"
VOTERS_RECORD = "voters"  # KIP-853 VotersRecord: the voter set, as replica keys

# A replica key (KIP-853): (replica id, directory id). NO_DIRECTORY is the directory id of a
# kraft.version 0 (static) voter, which is never checked.
NO_DIRECTORY = 0
ReplicaKey = tuple[int, int]

# Error codes (KIP-595 names); "" means no error.
NONE = ""
FENCED_LEADER_EPOCH = "FENCED_LEADER_EPOCH"
UNKNOWN_LEADER_EPOCH = "UNKNOWN_LEADER_EPOCH"
NOT_LEADER_FOR_PARTITION = "NOT_LEADER_FOR_PARTITION"
INVALID_CLUSTER_ID = "INVALID_CLUSTER_ID"
INCONSISTENT_VOTER_SET = "INCONSISTENT_VOTER_SET"
INVALID_QUORUM_STATE = "INVALID_QUORUM_STATE"
# KIP-853
UNSUPPORTED_VERSION = "UNSUPPORTED_VERSION"
REQUEST_TIMED_OUT = "REQUEST_TIMED_OUT"
DUPLICATE_VOTER = "DUPLICATE_VOTER"
INVALID_REQUEST = "INVALID_REQUEST"
VOTER_NOT_FOUND = "VOTER_NOT_FOUND"
INVALID_VOTER_KEY = "INVALID_VOTER_KEY"

VOTE_REQUEST = "VoteRequest"
VOTE_RESPONSE = "VoteResponse"
BEGIN_QUORUM_EPOCH_REQUEST = "BeginQuorumEpochRequest"
BEGIN_QUORUM_EPOCH_RESPONSE = "BeginQuorumEpochResponse"
END_QUORUM_EPOCH_REQUEST = "EndQuorumEpochRequest"
END_QUORUM_EPOCH_RESPONSE = "EndQuorumEpochResponse"
FETCH_REQUEST = "FetchRequest"
FETCH_RESPONSE = "FetchResponse"
ADD_VOTER_REQUEST = "AddVoterRequest"
ADD_VOTER_RESPONSE = "AddVoterResponse"
REMOVE_VOTER_REQUEST = "RemoveVoterRequest"
REMOVE_VOTER_RESPONSE = "RemoveVoterResponse"
UPDATE_VOTER_REQUEST = "UpdateVoterRequest"
UPDATE_VOTER_RESPONSE = "UpdateVoterResponse"

VOTER_CHANGE_REQUESTS: tuple[str, ...] = (ADD_VOTER_REQUEST, REMOVE_VOTER_REQUEST, UPDATE_VOTER_REQUEST)
VOTER_CHANGE_RESPONSE: dict[str, str] = {
    ADD_VOTER_REQUEST: ADD_VOTER_RESPONSE,
    REMOVE_VOTER_REQUEST: REMOVE_VOTER_RESPONSE,
    UPDATE_VOTER_REQUEST: UPDATE_VOTER_RESPONSE,
}

MESSAGE_TYPES: tuple[str, ...] = (
    VOTE_REQUEST,
    VOTE_RESPONSE,
    BEGIN_QUORUM_EPOCH_REQUEST,
    BEGIN_QUORUM_EPOCH_RESPONSE,
    END_QUORUM_EPOCH_REQUEST,
    END_QUORUM_EPOCH_RESPONSE,
    FETCH_REQUEST,
    FETCH_RESPONSE,
    ADD_VOTER_REQUEST,
    ADD_VOTER_RESPONSE,
    REMOVE_VOTER_REQUEST,
    REMOVE_VOTER_RESPONSE,
    UPDATE_VOTER_REQUEST,
    UPDATE_VOTER_RESPONSE,
)

# The spec action that handles each message type.
HANDLER_ACTION: dict[str, str] = {t: "Handle" + t for t in MESSAGE_TYPES}


@dataclass(frozen=True, slots=True)
class Entry:
    """A log entry: the epoch of the leader that appended it, its kind and payload; a
    ``VOTERS_RECORD`` entry also holds the voter set it establishes (replica keys).

    ``itf`` is the entry's ITF JSON text, computed once (entries are immutable).
    """

    epoch: int
    kind: str
    value: int
    voters: frozenset[ReplicaKey] = frozenset()
    itf: str = field(default="", init=False, repr=False, compare=False, hash=False)
    itf_keyed: str = field(default="", init=False, repr=False, compare=False, hash=False)

    def __post_init__(self) -> None:
        kind = self.kind.replace("\\", "\\\\").replace('"', '\\"')
        head = f'{{"epoch": {self.epoch}, "kind": "{kind}", "value": {self.value}'
        object.__setattr__(self, "itf", head + "}")
        keys = ", ".join(f"[{i}, {d}]" for i, d in sorted(self.voters))
        object.__setattr__(self, "itf_keyed", f'{head}, "voters": {{"#set": [{keys}]}}}}')


@dataclass(slots=True, eq=False)
class Message:
    """One KIP-595 request or response (all fields; unused ones at their defaults).

    ``eq=False``: two sends of equal content are distinct messages in the simulator;
    use ``fields()`` to compare contents.
    """

    type: str
    source: int
    dest: int
    clusterId: str = ""
    epoch: int = NIL
    leaderId: int = NIL
    errorCode: str = NONE
    voteGranted: bool = False
    lastOffsetEpoch: int = NIL
    lastOffset: int = NIL
    preferredSuccessors: tuple[int, ...] = ()
    fetchOffset: int = NIL
    lastFetchedEpoch: int = NIL
    highWatermark: int = NIL
    divergingEpoch: int = NIL
    divergingEndOffset: int = NIL
    records: tuple[Entry, ...] = ()
    # KIP-853: the sender's directory id (Vote, BeginQuorumEpoch, Fetch requests); the voter
    # key a Vote / BeginQuorumEpoch is addressed to, or the subject of a voter change.
    sourceDirectoryId: int = NIL
    voterId: int = NIL
    voterDirectoryId: int = NIL
    # Encoded form, cached by the trace writer (not part of the message's content).
    encoded: str | None = field(default=None, repr=False, compare=False)

    def fields(self) -> tuple[object, ...]:
        """The message's content, in vocabulary field order."""
        return tuple(getattr(self, name) for name in MESSAGE_FIELDS)


MESSAGE_FIELDS: tuple[str, ...] = (
    "type",
    "source",
    "dest",
    "clusterId",
    "epoch",
    "leaderId",
    "errorCode",
    "voteGranted",
    "lastOffsetEpoch",
    "lastOffset",
    "preferredSuccessors",
    "fetchOffset",
    "lastFetchedEpoch",
    "highWatermark",
    "divergingEpoch",
    "divergingEndOffset",
    "records",
)

# The message fields of a dynamic quorum (KIP-853): the KIP-595 ones and the replica keys.
RECONFIG_MESSAGE_FIELDS: tuple[str, ...] = (
    *MESSAGE_FIELDS,
    "sourceDirectoryId",
    "voterId",
    "voterDirectoryId",
)
