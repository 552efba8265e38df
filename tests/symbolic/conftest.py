"""The symbolic checks need the optional z3-solver (the ``symbolic`` extra): without it
these tests are not collected (``kraftcheck prove`` then reports the missing package)."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

collect_ignore_glob = [] if importlib.util.find_spec("z3") is not None else ["test_*.py"]


@pytest.fixture
def mailbox(tmp_path: Path) -> tuple[Path, Path]:
    """The toy handler spec of ``test_cases`` (``MAILBOX``) and its cfg, in ``tmp_path``."""
    from tests.symbolic.test_cases import MAILBOX

    spec, cfg = tmp_path / "Mailbox.tla", tmp_path / "Mailbox.cfg"
    spec.write_text(MAILBOX)
    cfg.write_text("CONSTANT Nodes = {1, 2, 3}\nCONSTANT Max = 2\nINIT Init\nNEXT Next\n")
    return spec, cfg
