"""The symbolic checks need the optional z3-solver (the ``symbolic`` extra): without it
these tests are not collected (``kraftcheck prove`` then reports the missing package)."""

from __future__ import annotations

import importlib.util

collect_ignore_glob = [] if importlib.util.find_spec("z3") is not None else ["test_*.py"]
