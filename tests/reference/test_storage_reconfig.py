"""Durable state of a dynamic quorum (KIP-853): VotersRecords in the log file (variable-length
records, crash recovery across them), an unknown kraft.version in the log or the quorum-state
is a clear error, and the directory id of a formatted and of a rejoined folder."""

from __future__ import annotations

import logging
from pathlib import Path

import pytest

from reference.core.messages import DATA, LEADER_CHANGE, VOTERS_RECORD, Entry
from reference.core.quorum_state import DYNAMIC_QUORUM_STATE_DATA_VERSION
from reference.storage.base import QuorumState, StorageError
from reference.storage.check import dump_directory
from reference.storage.file_log import MAGIC, RECORD_SIZE, FileLog
from reference.storage.file_records import encode_record
from reference.storage.file_storage import LOG_FILE, META_FILE, FileStorage
from reference.storage.quorum_state_file import write_quorum_state_file
from tests.reference.helpers import write_log

VOTERS = frozenset({(1, 1), (2, 1), (3, 1)})
GROWN = VOTERS | {(4, 2)}
ENTRIES = [Entry(1, LEADER_CHANGE, 1), Entry(1, VOTERS_RECORD, -1, VOTERS), Entry(1, DATA, 10),
           Entry(2, VOTERS_RECORD, -1, GROWN), Entry(2, DATA, 11)]


def test_voters_records_round_trip_and_truncate_between_variable_length_records(tmp_path: Path) -> None:
    path = tmp_path / "x.log"
    data = write_log(path, ENTRIES)
    assert len(data) == len(MAGIC) + 3 * RECORD_SIZE + 2 * (RECORD_SIZE + 5) + 16 * (3 + 4)
    log = FileLog(path)
    assert log.read() == ENTRIES and log.read()[3].voters == GROWN
    log.truncate(3)  # the newer voter set goes: the replica's set reverts to VOTERS
    log.append([Entry(3, DATA, 12)])
    log.flush()
    log.close()
    assert FileLog(path).read() == [*ENTRIES[:3], Entry(3, DATA, 12)]


def test_every_cut_of_an_unflushed_voters_record_is_cut_off(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    full = write_log(tmp_path / "full.log", ENTRIES[:4])
    start = len(write_log(tmp_path / "head.log", ENTRIES[:3]))
    for cut in range(start + 1, len(full)):
        path = tmp_path / f"cut{cut}.log"
        path.write_bytes(full[:cut])
        caplog.clear()
        with caplog.at_level(logging.WARNING, logger="reference.storage.file_log"):
            log = FileLog(path, acknowledged=3)
        assert log.read() == ENTRIES[:3], cut
        assert f"byte {start}" in caplog.text and "torn tail" in caplog.text
        log.close()
        assert path.read_bytes() == full[:start]


def test_a_log_with_an_unknown_kraft_version_is_an_error_never_cut_off(tmp_path: Path) -> None:
    path = tmp_path / "x.log"
    head = write_log(path, ENTRIES[:1])
    path.write_bytes(head + encode_record(Entry(1, VOTERS_RECORD, -1, VOTERS), kraft_version=7))
    before = path.read_bytes()
    for acknowledged in (0, 2):  # also where an unflushed torn tail would be cut
        with pytest.raises(StorageError) as info:
            FileLog(path, acknowledged=acknowledged)
        assert str(info.value) == (f"{path}: byte {len(head)}: record 1 is a VotersRecord of unknown kraft.version 7 "
                                   "(known: 1); it was written by a newer version")
        assert path.read_bytes() == before


def test_file_storage_refuses_a_log_with_an_unknown_kraft_version(tmp_path: Path) -> None:
    store = FileStorage(tmp_path, 1, "abc")
    store.append(ENTRIES[:2])
    store.flush()
    store.close()
    log_path = tmp_path / LOG_FILE
    data = log_path.read_bytes()
    log_path.write_bytes(data[: len(MAGIC) + RECORD_SIZE] + encode_record(ENTRIES[1], kraft_version=2))
    with pytest.raises(StorageError, match=r"00\.log: byte 33: record 1 is a VotersRecord of unknown kraft\.version 2"):
        FileStorage(tmp_path, 1, "abc")
    assert any("unknown kraft.version 2" in line for line in dump_directory(tmp_path))


def test_dynamic_storage_keeps_voters_records_quorum_state_and_directory_id(tmp_path: Path) -> None:
    store = FileStorage(tmp_path, 4, "abc", directory_id=1)
    store.append(ENTRIES)
    store.flush()
    state = QuorumState(leader_id=2, leader_epoch=2, voted_id=2, data_version=DYNAMIC_QUORUM_STATE_DATA_VERSION,
                        voted_directory_id=1, kraft_version=1)
    store.write_quorum_state(state)
    store.close()
    again = FileStorage(tmp_path, 4, "abc", directory_id=9)  # a formatted folder keeps its id
    assert again.read_log() == ENTRIES
    assert again.read_quorum_state() == QuorumState(leader_id=2, leader_epoch=2, voted_id=2, applied_offset=5,
                                                    data_version=1, voted_directory_id=1, kraft_version=1)
    assert again.directory_id() == 1
    again.close()
    assert "directory.id=1" in (tmp_path / META_FILE).read_text()
    assert any("kind: voters" in line and "(4, 2)" in line for line in dump_directory(tmp_path))


def test_rejoin_after_damage_takes_the_next_directory_id(tmp_path: Path) -> None:
    store = FileStorage(tmp_path, 3, "abc")
    store.append(ENTRIES[:2])
    store.flush()
    store.close()
    write_quorum_state_file(tmp_path / "quorum-state", QuorumState(leader_epoch=1, applied_offset=9))
    with pytest.raises(StorageError):
        FileStorage(tmp_path, 3, "abc")
    rejoined = FileStorage(tmp_path, 3, "abc", rejoin=True)
    assert rejoined.directory_id() == 2 and rejoined.read_log() == []
    rejoined.close()
