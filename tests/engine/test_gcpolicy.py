"""The collector settings of a search are restored afterwards."""

from __future__ import annotations

import gc

from conformance.tla.gcpolicy import YOUNG, search_collector


def test_the_collector_is_restored_after_a_search() -> None:
    before = gc.get_threshold()
    frozen = gc.get_freeze_count()
    with search_collector():
        assert gc.get_threshold()[0] >= YOUNG
        assert gc.get_freeze_count() > frozen  # the objects alive on entry (this test's too)
    assert gc.get_threshold() == before
    assert gc.get_freeze_count() == 0
