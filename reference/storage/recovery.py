"""Recovery of a replica's data folder: what a start may keep, and what must stop it.

Pure functions of the files' bytes (no I/O), so that every crash and every corruption can be
enumerated in a test. The rules (nothing acknowledged is ever dropped silently):

* The quorum-state's ``AppliedOffset`` is the number of log records that were fsynced when it
  was written; the storage keeps it current after every flush and lowers it before a
  truncation. Records below it may have been acknowledged to other replicas.
* A record at or beyond ``AppliedOffset`` that is cut short or fails its checksum is a torn,
  unflushed tail: it and everything after it are cut off, and the cut is reported.
* A record with a valid checksum that this version cannot read (a VotersRecord of an unknown
  kraft.version) stops the replica wherever it is: it was written by a newer version.
* Anything else stops the replica with an error naming the file, the byte offset and what was
  expected: a checksum failure or a missing record below ``AppliedOffset``, a bad header, a
  quorum-state that fails its checksum or its cross-checks (its epoch below the log's last
  epoch, a vote or leader outside ``CurrentVoters``), a log without a quorum-state, or a
  quorum-state that has recorded data or a vote without a log.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from pathlib import Path

from reference.core.messages import NIL, Entry
from reference.storage.base import QuorumState, StorageError
from reference.storage.file_records import MAGIC, decode_record
from reference.storage.quorum_state_file import decode_quorum_state

REJOIN_HINT = "(to rejoin as a new replica with a new directory id: kraftcheck storage rejoin DIR)"


@dataclass(frozen=True)
class LogScan:
    """A log file read up to its first bad byte."""

    entries: list[Entry]
    good_bytes: int  # length of the header and the good records
    problem: tuple[int, str] | None  # (byte offset, what is wrong there) or None
    starts: list[int] = field(default_factory=list)  # byte offset of each good record
    fatal: bool = False  # the problem is a valid record this version cannot read


def torn_header(data: bytes) -> bool:
    """A file header whose write was torn: the start of the header, cut short or followed by
    zeros (the file's length reached the disk before all of its bytes did)."""
    return len(data) <= len(MAGIC) and data != MAGIC and MAGIC.startswith(data.rstrip(b"\0"))


def scan_log(data: bytes) -> LogScan:
    if data[: len(MAGIC)] != MAGIC:
        if torn_header(data):
            return LogScan([], 0, (0, f"torn file header ({len(data.rstrip(bytes(1)))} of {len(MAGIC)} bytes)"))
        return LogScan([], 0, (0, f"expected the header {MAGIC.decode()} (not a log file)"))
    entries: list[Entry] = []
    starts: list[int] = []
    offset = len(MAGIC)
    while offset < len(data):
        record = decode_record(data, offset)
        if record.entry is None:
            return LogScan(entries, offset, (offset, f"record {len(entries)} {record.problem}"), starts, record.fatal)
        entries.append(record.entry)
        starts.append(offset)
        offset += record.size
    return LogScan(entries, offset, None, starts)


def fatal_record(path: Path, scan: LogScan) -> StorageError | None:
    """The error for a record no start may cut off (an unknown kraft.version), if any."""
    if not scan.fatal or scan.problem is None:
        return None
    offset, what = scan.problem
    return StorageError(f"{path}: byte {offset}: {what}")


@dataclass(frozen=True)
class Recovered:
    """What a start keeps: the log records, the quorum-state (None: a fresh folder) and notes on
    what was cut (``keep_bytes``: the log file's length after the cut; None: nothing to cut)."""

    entries: list[Entry]
    quorum_state: QuorumState | None
    keep_bytes: int | None
    notes: tuple[str, ...]


def is_pristine(state: QuorumState) -> bool:
    """A quorum-state that records nothing yet: no epoch, vote, leader or flushed record."""
    return (state.leader_epoch, state.voted_id, state.leader_id, state.applied_offset) == (0, NIL, NIL, 0)


def check_quorum_state(path: Path, state: QuorumState) -> None:
    """Plausibility of a decoded quorum-state on its own."""
    voters = state.current_voters
    if len(set(voters)) != len(voters) or any(v < 0 for v in voters):
        raise StorageError(f"{path}: CurrentVoters {list(voters)}: expected distinct non-negative replica ids")
    if state.applied_offset < 0:
        raise StorageError(f"{path}: AppliedOffset {state.applied_offset}: expected a non-negative offset")
    for name, value in (("VotedId", state.voted_id), ("LeaderId", state.leader_id)):
        if value != NIL and voters and value not in voters:
            raise StorageError(f"{path}: {name} {value} is not one of CurrentVoters {list(voters)}")
        if value < NIL:
            raise StorageError(f"{path}: {name} {value}: expected -1 or a replica id")


def check_scanned_log(path: Path, data: bytes, scan: LogScan, acked: int, why: str = "") -> str | None:
    """Refuse a scanned log that lost any of its ``acked`` flushed records (``why`` says where
    that number comes from); else the note to log when an unflushed torn tail is to be cut off
    (None when the log is intact)."""
    if scan.problem is None:
        if len(scan.entries) < acked:
            raise StorageError(
                f"{path}: byte {len(data)}: the log ends after {len(scan.entries)} records; expected at "
                f"least {acked}{why} (acknowledged records are lost) {REJOIN_HINT}")
        return None
    offset, what = scan.problem
    if len(scan.entries) < acked:
        raise StorageError(
            f"{path}: byte {offset}: {what}; expected {acked} intact records{why} (flushed data is damaged) "
            f"{REJOIN_HINT}")
    if offset == 0 and not torn_header(data):
        raise StorageError(f"{path}: byte 0: {what} {REJOIN_HINT}")
    return (f"{path}: byte {offset}: {what}: unflushed torn tail of {len(data) - offset} bytes cut off "
            f"(records {len(scan.entries)}.. were never acknowledged)")


def recover(log_path: Path, log_data: bytes | None, qs_path: Path, qs_data: bytes | None) -> Recovered:
    """Decide a start from the two files' bytes (None: the file does not exist)."""
    if qs_data is None:
        if log_data is None:
            return Recovered([], None, None, ())
        scan = scan_log(log_data)
        raise StorageError(
            f"{qs_path}: missing, but the log {log_path} exists ({len(scan.entries)} records): "
            f"the epoch and vote it recorded are lost {REJOIN_HINT}")
    state = decode_quorum_state(qs_path, qs_data)
    check_quorum_state(qs_path, state)
    acked = state.applied_offset
    if log_data is None:
        if is_pristine(state):
            return Recovered([], state, None, (f"{log_path}: missing next to an empty quorum-state; created",))
        raise StorageError(
            f"{log_path}: missing, but {qs_path} records epoch {state.leader_epoch}, vote {state.voted_id} "
            f"and AppliedOffset {acked} (flushed records) {REJOIN_HINT}")
    scan = scan_log(log_data)
    fatal = fatal_record(log_path, scan)
    if fatal is not None:
        raise fatal
    notes: list[str] = []
    keep: int | None = None
    cut = check_scanned_log(log_path, log_data, scan, acked, f", as {qs_path} records AppliedOffset {acked}")
    if cut is not None:
        keep = scan.good_bytes
        notes.append(cut)
    if scan.entries and scan.entries[-1].epoch > state.leader_epoch:
        raise StorageError(
            f"{qs_path}: LeaderEpoch {state.leader_epoch}: expected at least {scan.entries[-1].epoch}, the epoch "
            f"of the last record of {log_path} (the quorum-state is stale or edited) {REJOIN_HINT}")
    for i in range(1, len(scan.entries)):
        if scan.entries[i].epoch < scan.entries[i - 1].epoch:
            raise StorageError(
                f"{log_path}: byte {scan.starts[i]}: record {i} has epoch {scan.entries[i].epoch}; "
                f"expected at least {scan.entries[i - 1].epoch} (epochs never decrease in a log)")
    if keep is None and len(scan.entries) != acked:
        notes.append(f"{log_path}: {len(scan.entries) - acked} intact records after AppliedOffset {acked} kept")
    return Recovered(scan.entries, replace(state, applied_offset=acked), keep, tuple(notes))
