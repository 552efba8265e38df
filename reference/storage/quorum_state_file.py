"""The quorum-state file of KIP-595, written atomically.

JSON with the KIP's fields, a data version and a checksum::

    {"AppliedOffset": 42, "Crc32": 3735928559, "CurrentVoters": [{"VoterId": 1}, {"VoterId": 2}],
     "LeaderEpoch": 3, "LeaderId": 1, "VotedId": -1, "data_version": 0}

data_version 1 (a dynamic quorum, KIP-853) adds ``VotedDirectoryId`` and ``KRaftVersion``; an
unknown kraft.version is refused naming the file and the field.

``Crc32`` is the CRC-32 of the other fields written as compact JSON with sorted keys; a file
that fails it (an edit, a flipped byte) is refused. ``AppliedOffset`` is the number of log
records that were fsynced when the file was written (see ``reference.storage.recovery``).

A write goes to a temporary file in the same directory, which is fsynced, renamed over
the target, and then the directory is fsynced (``reference.storage.filesystem.write_atomically``):
a crash leaves either the old or the new content, never a mix.
"""

from __future__ import annotations

import json
import zlib
from pathlib import Path
from typing import Any

from reference.core.quorum_state import DYNAMIC_QUORUM_STATE_DATA_VERSION
from reference.core.voter_set import KRAFT_VERSIONS
from reference.storage.base import QUORUM_STATE_DATA_VERSION, QuorumState, StorageError
from reference.storage.filesystem import FileSystem, OsFileSystem, write_atomically

_INT_FIELDS = ("LeaderId", "LeaderEpoch", "VotedId", "AppliedOffset")


def _checksum(doc: dict[str, Any]) -> int:
    body = {k: v for k, v in doc.items() if k != "Crc32"}
    return zlib.crc32(json.dumps(body, sort_keys=True, separators=(",", ":")).encode())


def encode_quorum_state(state: QuorumState) -> bytes:
    doc: dict[str, Any] = {
        "data_version": state.data_version,
        "LeaderId": state.leader_id,
        "LeaderEpoch": state.leader_epoch,
        "VotedId": state.voted_id,
        "AppliedOffset": state.applied_offset,
        "CurrentVoters": [{"VoterId": v} for v in state.current_voters],
    }
    if state.data_version == DYNAMIC_QUORUM_STATE_DATA_VERSION:
        doc["VotedDirectoryId"] = state.voted_directory_id
        doc["KRaftVersion"] = state.kraft_version
    doc["Crc32"] = _checksum(doc)
    return (json.dumps(doc, sort_keys=True) + "\n").encode()


def decode_quorum_state(path: Path, raw: bytes) -> QuorumState:
    try:
        doc: Any = json.loads(raw.decode())
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        pos = getattr(exc, "pos", getattr(exc, "start", 0))
        raise StorageError(f"{path}: byte {pos}: not valid JSON ({exc})") from None
    if not isinstance(doc, dict):
        raise StorageError(f"{path}: byte 0: expected a JSON object")
    crc = doc.get("Crc32")
    if type(crc) is not int:
        raise StorageError(f"{path}: field Crc32 missing or not an integer (expected the file's checksum)")
    if crc != _checksum(doc):
        raise StorageError(f"{path}: byte 0: checksum mismatch (stored Crc32 {crc}, computed {_checksum(doc)}): "
                           "the file is damaged or was edited")
    version = doc.get("data_version")
    if version not in (QUORUM_STATE_DATA_VERSION, DYNAMIC_QUORUM_STATE_DATA_VERSION):
        raise StorageError(f"{path}: unsupported data_version {version!r} "
                           f"(expected {QUORUM_STATE_DATA_VERSION} or {DYNAMIC_QUORUM_STATE_DATA_VERSION})")
    dynamic = _dynamic_fields(path, doc) if version == DYNAMIC_QUORUM_STATE_DATA_VERSION else {}
    for name in _INT_FIELDS:
        if type(doc.get(name)) is not int:
            raise StorageError(f"{path}: field {name} missing or not an integer")
    voters = doc.get("CurrentVoters")
    if not isinstance(voters, list) or not all(
        isinstance(v, dict) and type(v.get("VoterId")) is int for v in voters
    ):
        raise StorageError(f"{path}: field CurrentVoters must be a list of {{\"VoterId\": int}}")
    if doc["LeaderEpoch"] < 0:
        raise StorageError(f"{path}: LeaderEpoch {doc['LeaderEpoch']} is negative")
    return QuorumState(
        leader_id=doc["LeaderId"],
        leader_epoch=doc["LeaderEpoch"],
        voted_id=doc["VotedId"],
        applied_offset=doc["AppliedOffset"],
        current_voters=tuple(v["VoterId"] for v in voters),
        data_version=version,
        **dynamic,
    )


def _dynamic_fields(path: Path, doc: dict[str, Any]) -> dict[str, int]:
    """data_version 1 (KIP-853): the voted directory id and a known kraft.version."""
    for name in ("VotedDirectoryId", "KRaftVersion"):
        if type(doc.get(name)) is not int:
            raise StorageError(f"{path}: field {name} missing or not an integer (data_version 1)")
    if doc["KRaftVersion"] not in KRAFT_VERSIONS:
        raise StorageError(f"{path}: field KRaftVersion: unknown kraft.version {doc['KRaftVersion']} "
                           f"(known: {', '.join(map(str, KRAFT_VERSIONS))})")
    return {"voted_directory_id": doc["VotedDirectoryId"], "kraft_version": doc["KRaftVersion"]}


def read_quorum_state_file(path: Path | str) -> QuorumState | None:
    """The stored state, or ``None`` when the file does not exist."""
    path = Path(path)
    try:
        raw = path.read_bytes()
    except FileNotFoundError:
        return None
    return decode_quorum_state(path, raw)


def write_quorum_state_file(path: Path | str, state: QuorumState, fs: FileSystem | None = None) -> None:
    """Replace the file's content atomically and durably."""
    write_atomically(fs if fs is not None else OsFileSystem(), Path(path), encode_quorum_state(state))
