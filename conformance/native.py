"""The compiled core: the engine's hottest modules, compiled to C by mypyc when the project
is installed (``setup.py``), with the Python source as the fallback.

The compiled files sit beside their sources (``values.py`` and
``values.cpython-311-x86_64-linux-gnu.so``, say), and Python would import the compiled
one even when the source was edited after the build. So before anything imports them, the
package checks them: when one is missing or older than its source, or when
``KRAFTCHECK_PURE`` is set, every module of the group is loaded from its source (the
compiled modules call each other directly, so they are used all together or not at all).
This module imports only the standard library: ``setup.py`` reads ``COMPILED`` from it.
``describe()`` tells which core a process runs (the benchmarks print it).
"""

from __future__ import annotations

import importlib.abc
import importlib.machinery
import importlib.util
import os
import sys
from collections.abc import Sequence
from importlib.machinery import ModuleSpec
from pathlib import Path
from types import ModuleType

PACKAGE = "conformance.tla"
# the compiled modules of PACKAGE: values and their TLA+ equality, the explorer's loop, its
# checks and the model's successor loop. Not the fingerprints (fpset) nor the standard
# operators (stdlib): their integers exceed 63 bits, and a signal handled inside such an
# operation (CPython checks for signals while it multiplies long integers) raises where the
# compiled code expects no error, which aborts the process instead of stopping the run
# (SIGTERM, the time limit's alarm)
COMPILED = ("values", "stateparts", "checking", "explorer", "model")
GROUP = f"{PACKAGE}._native"  # the shared library of the group (``_native__mypyc``)
PURE_VARIABLE = "KRAFTCHECK_PURE"

_FOLDER = Path(__file__).resolve().parent / "tla"


def compiled_file(folder: Path, name: str) -> Path | None:
    """The compiled module ``name`` in ``folder``, if there is one."""
    for suffix in importlib.machinery.EXTENSION_SUFFIXES:
        path = folder / f"{name}{suffix}"
        if path.exists():
            return path
    return None


def source_reason(folder: Path, names: Sequence[str] = COMPILED) -> str | None:
    """Why the modules ``names`` of ``folder`` must be loaded from their sources, or None
    when each compiled one is there and at least as new as its source."""
    if os.environ.get(PURE_VARIABLE):
        return f"{PURE_VARIABLE} is set"
    for name in names:
        compiled = compiled_file(folder, name)
        if compiled is None:
            return f"{name}.py is not compiled (install the project with a C compiler)"
        if compiled.stat().st_mtime < (folder / f"{name}.py").stat().st_mtime:
            return f"{compiled.name} is older than {name}.py (rebuild: pip install -e .)"
    return None


class _FromSource(importlib.abc.MetaPathFinder):
    """Finds the modules of the compiled group in their Python sources."""

    def __init__(self, folder: Path, names: Sequence[str]) -> None:
        self._sources = {f"{PACKAGE}.{name}": folder / f"{name}.py" for name in names}

    def find_spec(self, fullname: str, path: Sequence[str] | None,
                  target: ModuleType | None = None) -> ModuleSpec | None:
        source = self._sources.get(fullname)
        if source is None:
            return None
        return importlib.util.spec_from_file_location(fullname, source)


REASON: str | None = None  # why this process runs the source (None: the compiled core)


def install(folder: Path = _FOLDER) -> None:
    """Load the group from its sources when the compiled modules may not be used."""
    global REASON
    REASON = source_reason(folder)
    if REASON is not None and not any(isinstance(f, _FromSource) for f in sys.meta_path):
        sys.meta_path.insert(0, _FromSource(folder, COMPILED))


def in_use() -> bool:
    """Whether the compiled core is what this process runs."""
    from conformance.tla import values

    return not (values.__file__ or "").endswith(".py")


def describe() -> str:
    """One line: which core runs, and why the source when it is the source."""
    if in_use():
        return f"compiled core (mypyc): {', '.join(COMPILED)}"
    return f"Python source core: {REASON or 'not compiled'}"

