"""The file operations of durable storage, behind one small interface.

The log, the quorum-state file and ``meta.properties`` change files only through a
``FileSystem``, so that a crash model (``reference.crashfs``) can stand in for the operating
system and decide which writes a crash keeps. The semantics are POSIX's: ``write`` and
``truncate`` change a file's content, only ``fsync`` of that file makes them durable, and only
``fsync_dir`` of the folder makes a file's creation or a rename in it durable.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Protocol


class FileSystem(Protocol):
    """What durable storage needs from a file system (paths are absolute or as given)."""

    def read(self, path: Path) -> bytes | None:
        """The file's whole content, or None when it does not exist."""

    def create(self, path: Path) -> None:
        """Create an empty file, or cut an existing one to length 0."""

    def write(self, path: Path, offset: int, data: bytes) -> None:
        """Write ``data`` at byte ``offset`` of an existing file."""

    def truncate(self, path: Path, size: int) -> None:
        """Cut an existing file to ``size`` bytes."""

    def fsync(self, path: Path) -> None:
        """Make the file's content durable."""

    def rename(self, source: Path, target: Path) -> None:
        """Move ``source`` over ``target`` (atomically replacing it)."""

    def fsync_dir(self, directory: Path) -> None:
        """Make the creations and renames in ``directory`` durable."""

    def close(self, path: Path) -> None:
        """Release what is held open for ``path`` (its content stays)."""


class OsFileSystem:
    """The operating system's files; ``sync=False`` skips the fsync calls (for a crash model
    that decides durability itself, or scratch folders whose durability does not matter)."""

    def __init__(self, sync: bool = True) -> None:
        self.sync = sync
        self._fds: dict[Path, int] = {}

    def _fd(self, path: Path) -> int:
        fd = self._fds.get(path)
        if fd is None:
            fd = self._fds[path] = os.open(path, os.O_RDWR)
        return fd

    def read(self, path: Path) -> bytes | None:
        try:
            return path.read_bytes()
        except FileNotFoundError:
            return None

    def create(self, path: Path) -> None:
        self.close(path)
        self._fds[path] = os.open(path, os.O_RDWR | os.O_CREAT | os.O_TRUNC, 0o644)

    def write(self, path: Path, offset: int, data: bytes) -> None:
        fd = self._fd(path)
        done = 0
        while done < len(data):
            done += os.pwrite(fd, data[done:], offset + done)

    def truncate(self, path: Path, size: int) -> None:
        os.ftruncate(self._fd(path), size)

    def fsync(self, path: Path) -> None:
        if self.sync:
            os.fsync(self._fd(path))

    def rename(self, source: Path, target: Path) -> None:
        self.close(source)
        self.close(target)
        os.replace(source, target)

    def fsync_dir(self, directory: Path) -> None:
        if not self.sync:
            return
        fd = os.open(directory, os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)

    def close(self, path: Path) -> None:
        fd = self._fds.pop(path, None)
        if fd is not None:
            os.close(fd)

    def close_all(self) -> None:
        for path in list(self._fds):
            self.close(path)


def write_atomically(fs: FileSystem, path: Path, data: bytes) -> None:
    """Replace a small file's content so that a crash leaves the old or the new content, never
    a mix: write a temporary file next to it, fsync it, rename it over the file, fsync the folder."""
    tmp = path.with_name(path.name + ".tmp")
    fs.create(tmp)
    fs.write(tmp, 0, data)
    fs.fsync(tmp)
    fs.rename(tmp, path)
    fs.fsync_dir(path.parent)
