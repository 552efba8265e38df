"""Output paths checked before any work starts, so that a run never fails at its end.

``writable_file`` and ``writable_dir`` create missing parent folders, then prove that the
path can be written by writing a probe file next to it (permission bits alone are no proof:
a read-only file system, or a parent that is a file); they raise ``OutputPathError`` with a
message naming the option and the path. An existing output file is not modified.
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path


class OutputPathError(ValueError):
    """An output path that cannot be written: names the option and the path."""


def _probe(directory: Path, flag: str, path: Path) -> None:
    try:
        with tempfile.NamedTemporaryFile(dir=directory, prefix=".kraftcheck-probe-"):
            pass
    except OSError as exc:
        raise OutputPathError(f"{flag} {path}: cannot write in {directory}: {exc.strerror or exc}") from None


def _make_dir(directory: Path, flag: str, path: Path) -> None:
    try:
        directory.mkdir(parents=True, exist_ok=True)
    except FileExistsError:
        raise OutputPathError(f"{flag} {path}: {directory} exists and is not a folder") from None
    except OSError as exc:
        raise OutputPathError(f"{flag} {path}: cannot create the folder {directory}: {exc.strerror or exc}") from None


def writable_file(path: Path | str, flag: str) -> Path:
    """``path`` as a file that can be (over)written."""
    path = Path(path)
    if path.is_dir():
        raise OutputPathError(f"{flag} {path}: is a folder, expected a file name")
    _make_dir(path.parent, flag, path)
    if path.exists():
        try:
            with open(path, "ab"):
                pass
        except OSError as exc:
            raise OutputPathError(f"{flag} {path}: cannot write: {exc.strerror or exc}") from None
    else:
        _probe(path.parent, flag, path)
    return path


def writable_dir(path: Path | str, flag: str) -> Path:
    """``path`` as a folder (created if missing) in which files can be written."""
    path = Path(path)
    if path.exists() and not path.is_dir():
        raise OutputPathError(f"{flag} {path}: exists and is not a folder")
    _make_dir(path, flag, path)
    if not os.access(path, os.W_OK | os.X_OK):
        raise OutputPathError(f"{flag} {path}: folder not writable")
    _probe(path, flag, path)
    return path
