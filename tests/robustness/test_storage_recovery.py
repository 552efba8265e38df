"""Storage never loses acknowledged data silently: each damage the reliability review found
either recovers every acknowledged record and the vote or refuses to start naming file,
offset and expectation; an exhaustive crash-consistency enumeration over one written
log/quorum-state pair; ``kraftcheck storage check|dump|rejoin``."""

from __future__ import annotations

import json
import logging
import shutil
import zlib
from pathlib import Path

import pytest

from conformance.cli import main
from reference.file_storage import LOG_FILE, META_FILE, QUORUM_STATE_FILE, FileStorage
from reference.messages import DATA, LEADER_CHANGE, Entry
from reference.storage import QuorumState, StorageError

ACKED = [Entry(1, LEADER_CHANGE, 1), Entry(1, DATA, 10), Entry(2, LEADER_CHANGE, 2), Entry(2, DATA, 11)]
VOTE = QuorumState(leader_id=2, leader_epoch=2, voted_id=2, current_voters=(1, 2, 3))
RECORD = 25  # bytes per log record
HEADER = 8


def _write(directory: Path) -> FileStorage:
    """Epoch 1 (vote for 1), two records flushed; epoch 2 (vote for 2), two more flushed."""
    store = FileStorage(directory, 1, "abc")
    store.write_quorum_state(QuorumState(leader_id=1, leader_epoch=1, voted_id=1, current_voters=(1, 2, 3)))
    store.append(ACKED[:2])
    store.flush()
    store.write_quorum_state(VOTE)
    store.append(ACKED[2:])
    store.flush()
    return store


@pytest.fixture
def data_dir(tmp_path: Path) -> Path:
    d = tmp_path / "replica"
    _write(d).close()
    return d


def _refuses(d: Path, *needles: str) -> str:
    with pytest.raises(StorageError) as info:
        FileStorage(d, 1, "abc")
    text = str(info.value)
    for needle in needles:
        assert needle in text, text
    return text


def _starts_with_everything(d: Path) -> FileStorage:
    store = FileStorage(d, 1, "abc")
    assert store.read_log()[: len(ACKED)] == ACKED
    qs = store.read_quorum_state()
    assert qs is not None and (qs.leader_epoch, qs.voted_id) == (VOTE.leader_epoch, VOTE.voted_id)
    return store


def _rewrite_qs(d: Path, **fields: object) -> None:
    """Edit the quorum-state as an operator with an editor would, fixing up the checksum."""
    doc = json.loads((d / QUORUM_STATE_FILE).read_text())
    doc.update(fields)
    body = {k: v for k, v in doc.items() if k != "Crc32"}
    doc["Crc32"] = zlib.crc32(json.dumps(body, sort_keys=True, separators=(",", ":")).encode())
    (d / QUORUM_STATE_FILE).write_text(json.dumps(doc, sort_keys=True))


# -- the cases of the review, one by one ---------------------------------------------------------


def test_log_cut_at_a_record_boundary_refuses(data_dir: Path) -> None:
    log = data_dir / LOG_FILE
    log.write_bytes(log.read_bytes()[: HEADER + 2 * RECORD])
    _refuses(data_dir, str(log), f"byte {HEADER + 2 * RECORD}", "expected at least 4", "AppliedOffset 4")


def test_log_reduced_to_its_header_refuses(data_dir: Path) -> None:
    log = data_dir / LOG_FILE
    log.write_bytes(log.read_bytes()[:HEADER])
    _refuses(data_dir, str(log), "expected at least 4")


def test_deleted_log_refuses(data_dir: Path) -> None:
    (data_dir / LOG_FILE).unlink()
    _refuses(data_dir, str(data_dir / LOG_FILE), "missing", "epoch 2", "vote 2")


def test_flipped_byte_in_the_last_flushed_record_refuses(data_dir: Path) -> None:
    log = data_dir / LOG_FILE
    data = bytearray(log.read_bytes())
    data[-3] ^= 0x10
    log.write_bytes(bytes(data))
    _refuses(data_dir, str(log), f"byte {HEADER + 3 * RECORD}", "checksum", "expected 4 intact records")
    assert log.read_bytes() == bytes(data)  # nothing repaired behind the operator's back


def test_deleted_quorum_state_refuses(data_dir: Path) -> None:
    (data_dir / QUORUM_STATE_FILE).unlink()
    _refuses(data_dir, str(data_dir / QUORUM_STATE_FILE), "missing", "epoch and vote")


def test_edited_quorum_state_fails_its_checksum(data_dir: Path) -> None:
    qs = data_dir / QUORUM_STATE_FILE
    qs.write_text(qs.read_text().replace('"LeaderEpoch": 2', '"LeaderEpoch": 0'))
    _refuses(data_dir, str(qs), "checksum")


def test_epoch_edited_downwards_refuses_even_with_a_fixed_checksum(data_dir: Path) -> None:
    _rewrite_qs(data_dir, LeaderEpoch=1)
    _refuses(data_dir, str(data_dir / QUORUM_STATE_FILE), "LeaderEpoch 1", "expected at least 2")


@pytest.mark.parametrize(("fields", "needle"), [
    ({"LeaderId": 9}, "LeaderId 9 is not one of CurrentVoters"),
    ({"VotedId": 7}, "VotedId 7 is not one of CurrentVoters"),
    ({"CurrentVoters": [{"VoterId": 1}, {"VoterId": 1}]}, "CurrentVoters"),
    ({"AppliedOffset": 9}, "expected at least 9"),
    ({"AppliedOffset": -1}, "AppliedOffset -1"),
])
def test_implausible_quorum_state_refuses(data_dir: Path, fields: dict[str, object], needle: str) -> None:
    _rewrite_qs(data_dir, **fields)
    _refuses(data_dir, needle)


def test_torn_unflushed_tail_is_cut_with_a_message(data_dir: Path, caplog: pytest.LogCaptureFixture) -> None:
    log = data_dir / LOG_FILE
    log.write_bytes(log.read_bytes() + b"\x01" * 13)
    with caplog.at_level(logging.WARNING):
        store = _starts_with_everything(data_dir)
    assert store.read_log() == ACKED
    assert f"byte {HEADER + 4 * RECORD}" in caplog.text and "cut off" in caplog.text
    store.close()


def test_truncation_lowers_applied_offset_first(data_dir: Path) -> None:
    store = FileStorage(data_dir, 1, "abc")
    store.truncate(2)
    store.close()  # a crash before the next flush: the file is cut, the quorum-state already agrees
    again = FileStorage(data_dir, 1, "abc")
    assert again.read_log() == ACKED[:2]
    again.close()


def test_rejoin_as_a_new_replica_moves_damage_aside(data_dir: Path) -> None:
    (data_dir / LOG_FILE).unlink()
    old_id = _meta(data_dir)["directory.id"]
    assert main(["storage", "rejoin", str(data_dir)]) == 0
    assert _meta(data_dir)["directory.id"] != old_id
    assert (data_dir / "damaged-1" / QUORUM_STATE_FILE).exists()
    store = FileStorage(data_dir, 1, "abc")
    assert store.read_log() == [] and store.read_quorum_state() == QuorumState()
    store.close()


def _meta(d: Path) -> dict[str, str]:
    return dict(line.split("=", 1) for line in (d / META_FILE).read_text().splitlines())


# -- storage check / dump ------------------------------------------------------------------------


def test_storage_check_exit_codes(data_dir: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["storage", "check", str(data_dir)]) == 0
    assert "healthy: 4 records, epoch 2, vote 2" in capsys.readouterr().out
    before = {p.name: p.read_bytes() for p in data_dir.iterdir()}
    log = data_dir / LOG_FILE
    log.write_bytes(log.read_bytes()[:-1])
    assert main(["storage", "check", str(data_dir)]) == 1
    out = capsys.readouterr().out
    assert "DAMAGED" in out and str(log) in out and f"byte {HEADER + 3 * RECORD}" in out
    assert log.read_bytes() == before[LOG_FILE][:-1]  # check changes nothing


def test_storage_dump_prints_every_record(data_dir: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["storage", "dump", str(data_dir)]) == 0
    out = capsys.readouterr().out
    assert "offset: 0 position: 8 epoch: 1 kind: leaderChange value: 1 crc: ok" in out
    assert "offset: 3 position: 83 epoch: 2 kind: data value: 11 crc: ok" in out
    assert "checksum ok" in out and '"VotedId": 2' in out


# -- exhaustive crash consistency ----------------------------------------------------------------


def test_every_prefix_and_single_byte_corruption_recovers_everything_or_refuses(tmp_path: Path) -> None:
    """The pair: four acknowledged records (AppliedOffset 4) plus one written but unflushed
    record. Every prefix of either file, either file missing, and every single-byte change of
    either file (all 255 other values of every byte) is fed to recovery: it must recover the
    four records and the vote, or refuse. A sample goes through the real files as well."""
    from reference.file_records import encode_record
    from reference.recovery import recover

    d = tmp_path / "pair"
    _write(d).close()
    log_bytes = (d / LOG_FILE).read_bytes() + encode_record(Entry(2, DATA, 12))
    qs_bytes = (d / QUORUM_STATE_FILE).read_bytes()
    lp, qp = d / LOG_FILE, d / QUORUM_STATE_FILE
    outcomes = {"recovered": 0, "refused": 0}

    def judge(log: bytes | None, qs: bytes | None) -> None:
        try:
            got = recover(lp, log, qp, qs)
        except StorageError as exc:
            assert str(lp) in str(exc) or str(qp) in str(exc)
            outcomes["refused"] += 1
            return
        assert got.entries[: len(ACKED)] == ACKED, (log, qs)
        assert got.quorum_state is not None
        assert (got.quorum_state.leader_epoch, got.quorum_state.voted_id) == (2, 2), (log, qs)
        outcomes["recovered"] += 1

    judge(None, qs_bytes)
    judge(log_bytes, None)
    for n in range(len(log_bytes) + 1):
        judge(log_bytes[:n], qs_bytes)
    for n in range(len(qs_bytes) + 1):
        judge(log_bytes, qs_bytes[:n])
    for blob, which in ((log_bytes, "log"), (qs_bytes, "qs")):
        for pos in range(len(blob)):
            for value in range(256):
                if value == blob[pos]:
                    continue
                bad = blob[:pos] + bytes([value]) + blob[pos + 1:]
                judge(bad, qs_bytes) if which == "log" else judge(log_bytes, bad)
    assert outcomes["recovered"] > 0 and outcomes["refused"] > 0
    # The real files agree with the pure rules (prefixes and one corruption per byte).
    cases = [(log_bytes[:n], qs_bytes) for n in range(len(log_bytes) + 1)]
    cases += [(log_bytes[:p] + bytes([log_bytes[p] ^ 0xFF]) + log_bytes[p + 1:], qs_bytes) for p in range(len(log_bytes))]
    cases += [(log_bytes, qs_bytes[:p] + bytes([qs_bytes[p] ^ 0x01]) + qs_bytes[p + 1:]) for p in range(len(qs_bytes))]
    for i, (log, qs) in enumerate(cases):
        case = tmp_path / f"case{i}"
        shutil.copytree(d, case)
        (case / LOG_FILE).write_bytes(log)
        (case / QUORUM_STATE_FILE).write_bytes(qs)
        try:
            expected = recover(case / LOG_FILE, log, case / QUORUM_STATE_FILE, qs).entries
        except StorageError:
            with pytest.raises(StorageError):
                FileStorage(case, 1, "abc")
            continue
        store = FileStorage(case, 1, "abc")
        assert store.read_log() == expected
        store.close()
        again = FileStorage(case, 1, "abc")  # the repaired folder starts cleanly and keeps it all
        assert again.read_log() == expected and again.read_log()[:4] == ACKED
        again.close()
        shutil.rmtree(case)
