"""Durable state: the log file's crash recovery, the quorum-state file, meta.properties,
and the in-memory storage's crash semantics."""

from __future__ import annotations

import json
import logging
import os
from pathlib import Path

import pytest

from reference.core.log import ReplicatedLog
from reference.core.messages import DATA, LEADER_CHANGE, Entry
from reference.storage.base import MemoryStorage, QuorumState, StorageError
from reference.storage.file_log import MAGIC, RECORD_SIZE, FileLog
from reference.storage.file_storage import LOG_FILE, QUORUM_STATE_FILE, FileStorage
from reference.storage.meta_properties import check_or_create_meta
from reference.storage.quorum_state_file import read_quorum_state_file, write_quorum_state_file
from tests.reference.helpers import write_log

ENTRIES = [Entry(1, LEADER_CHANGE, 1), Entry(1, DATA, 10), Entry(2, LEADER_CHANGE, 3), Entry(2, DATA, 11)]


def test_log_round_trip_and_epoch_cache(tmp_path: Path) -> None:
    path = tmp_path / "x.log"
    write_log(path, ENTRIES)
    log = FileLog(path)
    assert log.read() == ENTRIES
    rebuilt = ReplicatedLog(log.read())
    assert rebuilt.epoch_starts() == ((1, 0), (2, 2))
    assert rebuilt.end_offset_for_epoch(1) == (1, 2)
    log.truncate(1)
    log.append([Entry(3, DATA, 12)])
    log.flush()
    log.close()
    assert FileLog(path).read() == [ENTRIES[0], Entry(3, DATA, 12)]


def test_every_cut_of_an_unflushed_last_record_is_cut_off(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    full = write_log(tmp_path / "full.log", ENTRIES)
    last_start = len(full) - RECORD_SIZE
    for cut in range(last_start, len(full)):
        path = tmp_path / f"cut{cut}.log"
        path.write_bytes(full[:cut])
        caplog.clear()
        with caplog.at_level(logging.WARNING, logger="reference.storage.file_log"):
            log = FileLog(path, acknowledged=len(ENTRIES) - 1)
        assert log.read() == ENTRIES[:-1], cut
        if cut > last_start:
            assert "torn tail" in caplog.text and str(path) in caplog.text
        assert path.stat().st_size == last_start
        log.append([ENTRIES[-1]])
        log.flush()
        log.close()
        assert path.read_bytes() == full


def test_every_corrupt_byte_of_an_unflushed_last_record_is_cut_off(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    full = write_log(tmp_path / "full.log", ENTRIES)
    last_start = len(full) - RECORD_SIZE
    for pos in range(last_start, len(full)):
        path = tmp_path / f"bad{pos}.log"
        data = bytearray(full)
        data[pos] ^= 0x5A
        path.write_bytes(bytes(data))
        caplog.clear()
        with caplog.at_level(logging.WARNING, logger="reference.storage.file_log"):
            assert FileLog(path, acknowledged=len(ENTRIES) - 1).read() == ENTRIES[:-1], pos
        assert f"byte {last_start}" in caplog.text and "torn tail" in caplog.text


def test_a_corrupt_byte_of_a_flushed_last_record_is_an_error(tmp_path: Path) -> None:
    full = write_log(tmp_path / "full.log", ENTRIES)
    last_start = len(full) - RECORD_SIZE
    for pos in range(last_start, len(full)):
        path = tmp_path / f"bad{pos}.log"
        data = bytearray(full)
        data[pos] ^= 0x5A
        path.write_bytes(bytes(data))
        with pytest.raises(StorageError) as info:
            FileLog(path, acknowledged=len(ENTRIES))
        assert str(path) in str(info.value) and f"byte {last_start}" in str(info.value)
        assert "expected 4 intact records" in str(info.value)
        assert path.read_bytes() == bytes(data)


def test_corruption_in_the_middle_is_an_error_naming_file_and_offset(tmp_path: Path) -> None:
    full = write_log(tmp_path / "full.log", ENTRIES)
    for record in range(len(ENTRIES) - 1):
        start = len(MAGIC) + record * RECORD_SIZE
        for pos in (start, start + 5, start + RECORD_SIZE - 1):
            path = tmp_path / f"mid{pos}.log"
            data = bytearray(full)
            data[pos] ^= 0x01
            path.write_bytes(bytes(data))
            with pytest.raises(StorageError) as info:
                FileLog(path, acknowledged=len(ENTRIES))
            assert str(path) in str(info.value) and f"byte {start}" in str(info.value)
            assert path.read_bytes() == bytes(data)  # never silently repaired


def test_bad_magic_is_an_error_and_torn_header_recreated(tmp_path: Path) -> None:
    path = tmp_path / "m.log"
    path.write_bytes(b"NOTALOG!" + b"\0" * RECORD_SIZE)
    with pytest.raises(StorageError, match="byte 0"):
        FileLog(path)
    path.write_bytes(MAGIC[:3])
    assert FileLog(path).read() == []
    assert path.read_bytes() == MAGIC
    for torn in (MAGIC[:3] + bytes(5), bytes(8), bytes(2)):  # its length on disk before its bytes
        path.write_bytes(torn)
        assert FileLog(path).read() == [] and path.read_bytes() == MAGIC
    path.write_bytes(MAGIC[:3] + b"\0X")
    with pytest.raises(StorageError, match="byte 0"):
        FileLog(path)


def test_quorum_state_round_trip_with_kip_fields(tmp_path: Path) -> None:
    path = tmp_path / "quorum-state"
    state = QuorumState(leader_id=2, leader_epoch=5, voted_id=3, applied_offset=9, current_voters=(1, 2, 3))
    write_quorum_state_file(path, state)
    doc = json.loads(path.read_text())
    assert set(doc) == {"data_version", "LeaderId", "LeaderEpoch", "VotedId", "AppliedOffset", "CurrentVoters", "Crc32"}
    assert doc["CurrentVoters"] == [{"VoterId": 1}, {"VoterId": 2}, {"VoterId": 3}]
    assert read_quorum_state_file(path) == state
    assert read_quorum_state_file(tmp_path / "absent") is None


def test_quorum_state_write_is_atomic(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "quorum-state"
    old = QuorumState(leader_epoch=1, voted_id=2, current_voters=(1, 2, 3))
    write_quorum_state_file(path, old)
    calls: list[str] = []
    real_fsync = os.fsync

    def fsync(fd: int) -> None:
        calls.append("fsync")
        real_fsync(fd)

    def crash_on_replace(src: object, dst: object) -> None:
        calls.append("replace")
        raise OSError("crash before rename")

    monkeypatch.setattr(os, "fsync", fsync)
    monkeypatch.setattr(os, "replace", crash_on_replace)
    with pytest.raises(OSError):
        write_quorum_state_file(path, QuorumState(leader_epoch=2, voted_id=3, current_voters=(1, 2, 3)))
    assert calls == ["fsync", "replace"]  # the temp file is synced before the rename
    assert read_quorum_state_file(path) == old  # a crash leaves the old content
    monkeypatch.undo()
    new = QuorumState(leader_epoch=2, voted_id=3, current_voters=(1, 2, 3))
    write_quorum_state_file(path, new)
    assert read_quorum_state_file(path) == new
    assert not (tmp_path / "quorum-state.tmp").exists()


@pytest.mark.parametrize(
    ("content", "needle"),
    [
        (b"{not json", "byte 1"),
        (b"[]", "JSON object"),
        (b'{"data_version": 7, "Crc32": 1357828818}', "data_version"),
        (b'{"data_version": 0, "LeaderId": 1, "LeaderEpoch": "x", "VotedId": -1, "AppliedOffset": 0, "CurrentVoters": []}', "Crc32"),
        (b'{"data_version": 0, "LeaderId": 1, "LeaderEpoch": 1, "VotedId": -1, "AppliedOffset": 0, "CurrentVoters": [3], "Crc32": 1}', "checksum"),
    ],
)
def test_bad_quorum_state_names_the_file(tmp_path: Path, content: bytes, needle: str) -> None:
    path = tmp_path / "quorum-state"
    path.write_bytes(content)
    with pytest.raises(StorageError) as info:
        read_quorum_state_file(path)
    assert str(path) in str(info.value) and needle in str(info.value)


def test_meta_properties_refuses_mismatch(tmp_path: Path) -> None:
    path = tmp_path / "meta.properties"
    check_or_create_meta(path, 1, "abc")
    check_or_create_meta(path, 1, "abc")
    with pytest.raises(StorageError, match=r"node\.id 1 does not match the configured node id 2"):
        check_or_create_meta(path, 2, "abc")
    with pytest.raises(StorageError, match=r"cluster\.id"):
        check_or_create_meta(path, 1, "other")


def test_file_storage_survives_reopen(tmp_path: Path) -> None:
    store = FileStorage(tmp_path, 1, "abc")
    store.append(ENTRIES[:2])
    store.flush()
    store.write_quorum_state(QuorumState(leader_id=1, leader_epoch=1, current_voters=(1, 2, 3)))
    store.close()
    again = FileStorage(tmp_path, 1, "abc")
    assert again.read_log() == ENTRIES[:2]
    assert again.read_quorum_state() == QuorumState(leader_id=1, leader_epoch=1, applied_offset=2, current_voters=(1, 2, 3))
    assert (tmp_path / LOG_FILE).exists() and (tmp_path / QUORUM_STATE_FILE).exists()
    again.close()
    with pytest.raises(StorageError):
        FileStorage(tmp_path, 2, "abc")


def test_memory_storage_loses_unflushed_writes_on_crash() -> None:
    store = MemoryStorage(1, "abc")
    store.append(ENTRIES[:2])
    store.flush()
    store.append(ENTRIES[2:])
    store.truncate(0)
    store.crash()
    assert store.read_log() == ENTRIES[:2]
    store.write_quorum_state(QuorumState(leader_epoch=3))
    store.crash()
    assert store.read_quorum_state() == QuorumState(leader_epoch=3)
    store.lose_disk()
    assert store.read_log() == [] and store.read_quorum_state() is None


def test_replica_restarts_from_file_storage(tmp_path: Path) -> None:
    """A leader's steps persisted to files; a replica rebuilt from them has the same
    durable state and comes back Resigned (KIP-595 restart of a leader)."""
    import random

    from reference.core.config import QuorumConfig
    from reference.core.messages import Message
    from reference.core.replica import ClientAppend, Deliver, Replica, Tick
    from reference.storage.persist import persist

    cfg = QuorumConfig(voters=frozenset({1, 2, 3}))
    store = FileStorage(tmp_path, 1, "abc")
    r = Replica(1, cfg, "abc", (1, 2, 3), random.Random(1))
    persist(store, r.step(Tick(), r.next_deadline() or 0))
    vote = Message("VoteResponse", 2, 1, epoch=1, voteGranted=True)
    persist(store, r.step(Deliver(vote), r.now))
    persist(store, r.step(ClientAppend(7), r.now))
    assert r.role == "Leader"
    store.close()
    again = FileStorage(tmp_path, 1, "abc")
    back = Replica(1, cfg, "abc", (1, 2, 3), random.Random(2),
                   quorum_state=again.read_quorum_state(), log_entries=again.read_log())
    assert (back.current_epoch, back.voted_id, back.leader_id) == (1, 1, 1)
    assert back.log.entries == r.log.entries == [Entry(1, LEADER_CHANGE, 1), Entry(1, DATA, 7)]
    assert back.role == "Resigned" and back.high_watermark == 0
    again.close()
