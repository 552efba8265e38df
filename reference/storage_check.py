"""``storage check`` and ``storage dump``: a replica's data folder examined without changing it.

``check_directory`` applies the start-up rules of ``reference.recovery`` (and reads
meta.properties) and says whether the folder is healthy; a torn unflushed tail that a start
would cut is reported but is not damage. ``dump_directory`` lists every record of the log
with its offset, byte position, epoch, kind, value and checksum status, then the
quorum-state and meta.properties, in the manner of Kafka's log dump tool.
"""

from __future__ import annotations

import contextlib
import json
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

from reference.file_records import MAGIC, RECORD_SIZE, decode_record
from reference.file_storage import LOG_FILE, META_FILE, QUORUM_STATE_FILE
from reference.meta_properties import read_meta_properties
from reference.recovery import recover
from reference.storage import StorageError


def _read(path: Path) -> bytes | None:
    try:
        return path.read_bytes()
    except FileNotFoundError:
        return None


@dataclass
class CheckResult:
    directory: Path
    healthy: bool
    problems: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    records: int = 0
    epoch: int | None = None
    voted_id: int | None = None
    applied_offset: int | None = None


def check_directory(directory: Path) -> CheckResult:
    result = CheckResult(directory, healthy=True)
    if not directory.is_dir():
        result.healthy = False
        result.problems.append(f"{directory}: not a directory")
        return result
    try:
        meta = read_meta_properties(directory / META_FILE)
        if meta is None:
            result.notes.append(f"{directory / META_FILE}: missing (created on first start)")
    except StorageError as exc:
        result.problems.append(str(exc))
    log_path, qs_path = directory / LOG_FILE, directory / QUORUM_STATE_FILE
    try:
        recovered = recover(log_path, _read(log_path), qs_path, _read(qs_path))
    except StorageError as exc:
        result.problems.append(str(exc))
    else:
        result.notes.extend(recovered.notes)
        result.records = len(recovered.entries)
        if recovered.quorum_state is None:
            result.notes.append(f"{directory}: no log and no quorum-state (a fresh replica)")
        else:
            qs = recovered.quorum_state
            result.epoch, result.voted_id, result.applied_offset = qs.leader_epoch, qs.voted_id, qs.applied_offset
    result.healthy = not result.problems
    return result


def dump_directory(directory: Path) -> Iterator[str]:
    """Lines describing every record and the two small files (never raises on damage)."""
    log_path = directory / LOG_FILE
    data = _read(log_path)
    if data is None:
        yield f"{log_path}: missing"
    else:
        yield f"{log_path}: {len(data)} bytes, header {'ok' if data[:len(MAGIC)] == MAGIC else repr(data[:len(MAGIC)])}"
        offset, index = len(MAGIC), 0
        while offset < len(data):
            raw = data[offset : offset + RECORD_SIZE]
            if len(raw) < RECORD_SIZE:
                yield f"offset: {index} position: {offset} cut short: {len(raw)} of {RECORD_SIZE} bytes"
                break
            entry, problem = decode_record(raw)
            if entry is None:
                yield f"offset: {index} position: {offset} crc: BAD ({problem})"
            else:
                yield f"offset: {index} position: {offset} epoch: {entry.epoch} kind: {entry.kind} value: {entry.value} crc: ok"
            offset += RECORD_SIZE
            index += 1
    for name in (QUORUM_STATE_FILE, META_FILE):
        raw_file = _read(directory / name)
        if raw_file is None:
            yield f"{directory / name}: missing"
            continue
        text = raw_file.decode("utf-8", errors="replace").strip()
        if name == QUORUM_STATE_FILE:
            try:
                from reference.quorum_state_file import decode_quorum_state

                decode_quorum_state(directory / name, raw_file)
                status = "checksum ok"
            except StorageError as exc:
                status = f"BAD: {exc}"
            yield f"{directory / name}: {status}"
            with contextlib.suppress(ValueError):
                text = json.dumps(json.loads(text), sort_keys=True)
        else:
            yield f"{directory / name}:"
        for line in text.splitlines():
            yield f"  {line}"
