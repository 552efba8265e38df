"""Checks of the arguments the native community operators share, and how they name a file."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from conformance.tla.stdlib import show
from conformance.tla.syntax import EvalError
from conformance.tla.values import type_name


def want_str(v: Any, what: str, op: str) -> str:
    if type(v) is not str:
        raise EvalError(f"{op}: the {what} must be a string, got the {type_name(v)} {show(v)}")
    return v


def want_seq(v: Any, what: str, op: str) -> tuple:
    if type(v) is not tuple:
        raise EvalError(f"{op}: the {what} must be a sequence, got the {type_name(v)} {show(v)}")
    return v


def shown_path(path: Path) -> str:
    """The file as given, and where a relative name led (the working directory)."""
    return repr(str(path)) if path.is_absolute() else f"{str(path)!r} ({path.absolute()})"
