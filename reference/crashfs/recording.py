"""A ``FileSystem`` on real files that records every operation in a ``CrashModel``.

The real files are what the running replica sees (the page cache); the model knows what is
durable. fsync calls are recorded, not made: the model decides durability. ``mark`` starts a
window (one step's durable writes); ``window_models`` replays it, giving the model as it was
after each operation of the window, so that a crash can be placed anywhere inside it.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

from reference.crashfs.model import CrashModel
from reference.storage.filesystem import OsFileSystem

_Call = tuple[str, tuple[object, ...]]


class RecordingFileSystem:
    """The files of one folder (``folder``), recorded in ``model``."""

    def __init__(self, folder: Path, model: CrashModel | None = None) -> None:
        self.folder = folder
        self.model = model or CrashModel()
        self._os = OsFileSystem(sync=False)
        self._start = self.model.copy()
        self._window: list[_Call] = []

    def _name(self, path: Path) -> str:
        if path.parent != self.folder:
            raise ValueError(f"{path}: outside the recorded folder {self.folder}")
        return path.name

    def _record(self, method: str, *args: object) -> None:
        self._window.append((method, args))
        getattr(self.model, method)(*args)

    # -- FileSystem --------------------------------------------------------------------

    def read(self, path: Path) -> bytes | None:
        return self._os.read(path)

    def create(self, path: Path) -> None:
        self._record("create", self._name(path))
        self._os.create(path)

    def write(self, path: Path, offset: int, data: bytes) -> None:
        self._record("write", self._name(path), offset, bytes(data))
        self._os.write(path, offset, data)

    def truncate(self, path: Path, size: int) -> None:
        self._record("truncate", self._name(path), size)
        self._os.truncate(path, size)

    def fsync(self, path: Path) -> None:
        self._record("fsync", self._name(path))

    def rename(self, source: Path, target: Path) -> None:
        self._record("rename", self._name(source), self._name(target))
        self._os.rename(source, target)

    def fsync_dir(self, directory: Path) -> None:
        if directory != self.folder:
            raise ValueError(f"{directory}: not the recorded folder {self.folder}")
        self._record("fsync_dir")

    def close(self, path: Path) -> None:
        self._os.close(path)

    def close_all(self) -> None:
        self._os.close_all()

    # -- windows -------------------------------------------------------------------------

    def mark(self) -> None:
        """Start a new window at the model's current state."""
        self._start = self.model.copy()
        self._window = []

    @property
    def window_length(self) -> int:
        return len(self._window)

    def window_models(self) -> Iterator[tuple[int, CrashModel]]:
        """(k, the model after the window's first k operations) for k = 0 .. window length."""
        model = self._start.copy()
        yield 0, model
        for k, (method, args) in enumerate(self._window, 1):
            model = model.copy()
            getattr(model, method)(*args)
            yield k, model
