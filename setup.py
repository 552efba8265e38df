"""Builds the compiled core (``conformance/native.py``): the engine's hottest modules
compiled to C with mypyc. The metadata is in ``pyproject.toml``. A build without a C
compiler, or with ``KRAFTCHECK_PURE=1``, installs the Python sources alone, which run the
same (slower)."""

from __future__ import annotations

import importlib.util
import os
from pathlib import Path

from setuptools import setup


def _compiled_modules() -> list:
    if os.environ.get("KRAFTCHECK_PURE"):
        return []
    spec = importlib.util.spec_from_file_location(
        "_kraftcheck_native", Path(__file__).parent / "conformance" / "native.py")
    assert spec is not None and spec.loader is not None
    native = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(native)
    try:
        from mypyc.build import mypycify
    except ImportError:
        print("kraftcheck: mypyc not found; installing the Python sources only")
        return []
    folder = native.PACKAGE.replace(".", "/")
    try:
        extensions = mypycify([f"{folder}/{name}.py" for name in native.COMPILED],
                              opt_level="3", group_name=native.GROUP)
    except (Exception, SystemExit) as err:  # mypyc reports a module it cannot compile by exiting
        print(f"kraftcheck: mypyc failed ({err}); installing the Python sources only")
        return []
    for extension in extensions:
        extension.optional = True  # no C compiler: the sources run instead
    return extensions


setup(ext_modules=_compiled_modules())
