"""What the native community operators share about files: how they name one, and how they
read one as text."""

from __future__ import annotations

from pathlib import Path

from conformance.tla.syntax import EvalError


def shown_path(path: Path) -> str:
    """The file as given, and where a relative name led (the working directory)."""
    return repr(str(path)) if path.is_absolute() else f"{str(path)!r} ({path.absolute()})"


def read_utf8(path: Path, op: str) -> str:
    """The text of a UTF-8 file, its line ends as they are; an error naming the file."""
    try:
        return path.read_bytes().decode("utf-8")
    except OSError as e:
        raise EvalError(f"{op}: cannot read the file {shown_path(path)}: {e.strerror or e}") from None
    except UnicodeDecodeError as e:
        raise EvalError(f"{op}: the file {shown_path(path)} is not UTF-8 text: {e.reason}") from None
