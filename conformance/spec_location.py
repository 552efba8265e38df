"""Where the project's TLA+ spec lives, for commands run from anywhere.

Looked for in this order: ``$KRAFTCHECK_SPEC_DIR`` (when set, it must hold the spec),
``./spec`` below the current folder, and the ``spec/`` beside the source tree (an
editable install or a checkout).
"""

from __future__ import annotations

import os
from pathlib import Path

SPEC_MODULE = "KRaft.tla"
ENV_VAR = "KRAFTCHECK_SPEC_DIR"
SOURCE_TREE_SPEC = Path(__file__).resolve().parents[1] / "spec"


def spec_dir() -> Path:
    """The folder holding ``KRaft.tla``; ``FileNotFoundError`` naming every place searched."""
    env = os.environ.get(ENV_VAR)
    if env:
        folder = Path(env)
        if (folder / SPEC_MODULE).is_file():
            return folder
        raise FileNotFoundError(f"{ENV_VAR}={env} does not hold {SPEC_MODULE}")
    candidates = [Path.cwd() / "spec", SOURCE_TREE_SPEC]
    for folder in candidates:
        if (folder / SPEC_MODULE).is_file():
            return folder
    searched = ", ".join(str(c) for c in candidates)
    raise FileNotFoundError(
        f"cannot find the KRaft spec ({SPEC_MODULE}); searched {searched}; set {ENV_VAR} or pass the path"
    )
