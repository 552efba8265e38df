"""Compiled action steps are cached per definition object, never per bare ``id()``.

Objects used as cache keys (definitions, LET slots) may be freed once a compilation ends,
and CPython then reuses their ids for new objects. The test makes every id collide, as a
reuse would, and checks each operator still runs its own body.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from conformance.tla import actions
from conformance.tla.model import Model

SPEC = """---- MODULE Cache ----
EXTENDS Naturals
VARIABLE x
Inc(n) == x' = x + n
Dbl(n) == x' = x * n
Init == x = 2
A == Inc(1)
B == Dbl(3)
Next == A \\/ B
====
"""


def test_colliding_ids_do_not_share_compiled_bodies(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    spec = tmp_path / "Cache.tla"
    spec.write_text(SPEC)
    monkeypatch.setattr(actions, "id", lambda obj: 42, raising=False)
    model = Model.load(spec)
    assert list(model.action_successors("A", (), (2,))) == [(3,)]
    assert list(model.action_successors("B", (), (2,))) == [(6,)]
    assert sorted(s for _, s in model.successors((2,))) == [(3,), (6,)]
