"""Durable storage in a directory: log file, quorum-state file and meta.properties."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from reference.core.messages import Entry
from reference.storage.base import QuorumState
from reference.storage.file_log import FileLog
from reference.storage.meta_properties import check_or_create_meta
from reference.storage.quorum_state_file import read_quorum_state_file, write_quorum_state_file

LOG_FILE = "00000000000000000000.log"
QUORUM_STATE_FILE = "quorum-state"
META_FILE = "meta.properties"


class FileStorage:
    """A replica's data directory; opening it checks identity and recovers the log."""

    def __init__(self, directory: Path | str, node_id: int, cluster_id: str) -> None:
        self.directory = Path(directory)
        self.directory.mkdir(parents=True, exist_ok=True)
        self.node_id = node_id
        self.cluster_id = cluster_id
        check_or_create_meta(self.directory / META_FILE, node_id, cluster_id)
        self._log = FileLog(self.directory / LOG_FILE)

    def read_log(self) -> list[Entry]:
        return self._log.read()

    def append(self, entries: Sequence[Entry]) -> None:
        self._log.append(entries)

    def truncate(self, end_offset: int) -> None:
        self._log.truncate(end_offset)

    def flush(self) -> None:
        self._log.flush()

    def read_quorum_state(self) -> QuorumState | None:
        return read_quorum_state_file(self.directory / QUORUM_STATE_FILE)

    def write_quorum_state(self, state: QuorumState) -> None:
        write_quorum_state_file(self.directory / QUORUM_STATE_FILE, state)

    def close(self) -> None:
        self._log.close()
