"""Durable storage in a directory: log file, quorum-state file and meta.properties.

Opening the directory recovers it by the rules of ``reference.storage.recovery`` and refuses to start
(``StorageError`` naming file, offset and expectation) when acknowledged data or the vote could
be lost; ``rejoin=True`` is the operator's way out (KIP-853's disk-loss path): the damaged files
are moved to ``damaged-<n>/`` and the replica starts empty under a new directory id.

The storage keeps the quorum-state's ``AppliedOffset`` equal to the number of fsynced log
records: it rewrites the quorum-state after a flush that changed it, and lowers it before a
truncation cuts records from the file. Every file operation goes through ``fs``
(``reference.storage.filesystem``; the operating system's by default).
"""

from __future__ import annotations

import logging
import os
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path

from reference.core.messages import Entry
from reference.storage.base import QuorumState, StorageError
from reference.storage.file_log import FileLog
from reference.storage.filesystem import FileSystem, OsFileSystem
from reference.storage.meta_properties import (
    check_or_create_meta,
    write_meta_properties,
)
from reference.storage.quorum_state_file import write_quorum_state_file
from reference.storage.recovery import recover

LOG_FILE = "00000000000000000000.log"
QUORUM_STATE_FILE = "quorum-state"
META_FILE = "meta.properties"
FIRST_DIRECTORY_ID = 1  # the spec's dirId of a folder as first formatted

log = logging.getLogger(__name__)


class FileStorage:
    """A replica's data directory; opening it checks identity and recovers log and quorum-state."""

    def __init__(self, directory: Path | str, node_id: int, cluster_id: str, *, rejoin: bool = False,
                 directory_id: int = FIRST_DIRECTORY_ID, fs: FileSystem | None = None) -> None:
        """``directory_id`` is written when the folder is formatted (first start); a formatted
        folder keeps the one it has."""
        self.directory = Path(directory)
        self.directory.mkdir(parents=True, exist_ok=True)
        self.fs: FileSystem = fs if fs is not None else OsFileSystem()
        self.node_id = node_id
        self.cluster_id = cluster_id
        check_or_create_meta(self.directory / META_FILE, node_id, cluster_id, directory_id, self.fs)
        log_path, qs_path = self.directory / LOG_FILE, self.directory / QUORUM_STATE_FILE
        try:
            recovered = recover(log_path, self.fs.read(log_path), qs_path, self.fs.read(qs_path))
        except StorageError as exc:
            if not rejoin:
                raise
            self._move_aside(exc)
            recovered = recover(log_path, None, qs_path, None)
        for note in recovered.notes:
            log.warning("%s", note)
        state = recovered.quorum_state
        if state is None:  # a fresh folder: the quorum-state first, so that a log never stands alone
            state = QuorumState()
            write_quorum_state_file(qs_path, state, self.fs)
        self._state = state
        self._log = FileLog(log_path, acknowledged=state.applied_offset, fs=self.fs)
        if self._log.flushed != state.applied_offset:  # intact records after AppliedOffset were kept
            self.flush()

    def _move_aside(self, why: StorageError) -> None:
        n = 1
        while (self.directory / f"damaged-{n}").exists():
            n += 1
        aside = self.directory / f"damaged-{n}"
        aside.mkdir()
        for name in (LOG_FILE, QUORUM_STATE_FILE):
            if (self.directory / name).exists():
                os.replace(self.directory / name, aside / name)
        (aside / "reason.txt").write_text(f"{why}\n")
        old = self.directory_id()
        new = (old or 0) + 1
        write_meta_properties(self.directory / META_FILE, self.node_id, self.cluster_id, new, self.fs)
        self.fs.fsync_dir(self.directory)
        log.warning("%s: rejoining as a new replica (directory.id %s -> %s); damaged files kept in %s: %s",
                    self.directory, "none" if old is None else old, new, aside, why)

    def directory_id(self) -> int | None:
        """The folder's ``directory.id`` (None in a folder formatted without one)."""
        return check_or_create_meta(self.directory / META_FILE, self.node_id, self.cluster_id, fs=self.fs)

    def read_log(self) -> list[Entry]:
        return self._log.read()

    def append(self, entries: Sequence[Entry]) -> None:
        self._log.append(entries)

    def truncate(self, end_offset: int) -> None:
        if end_offset < self._state.applied_offset:  # lower AppliedOffset before the records go
            self._write_state(replace(self._state, applied_offset=end_offset))
        self._log.truncate(end_offset)

    def flush(self) -> None:
        self._log.flush()
        if self._log.flushed != self._state.applied_offset:
            self._write_state(replace(self._state, applied_offset=self._log.flushed))

    def read_quorum_state(self) -> QuorumState | None:
        return self._state

    def write_quorum_state(self, state: QuorumState) -> None:
        """Store the replica's epoch, vote, leader and voters; ``AppliedOffset`` is the storage's."""
        self._write_state(replace(state, applied_offset=self._state.applied_offset))

    def _write_state(self, state: QuorumState) -> None:
        write_quorum_state_file(self.directory / QUORUM_STATE_FILE, state, self.fs)
        self._state = state

    def close(self) -> None:
        self._log.close()
