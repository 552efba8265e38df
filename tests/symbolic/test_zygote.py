"""The zygote (``conformance/symbolic/zygote.py``): each item decided in a process forked
from one prepared state, its outcome, its exception or the exit code of a process that
died without an answer coming back under its key; closed, it ends at once."""

from __future__ import annotations

import os

from conformance.symbolic.zygote import Zygote


def decide(prepared: list[int], item: int) -> int:
    if item == 3:
        os._exit(7)  # dies without an answer
    if item == 4:
        raise ValueError("item 4")
    prepared.append(item)  # the forked copy only: the next item starts from [10]
    return sum(prepared)


def test_each_item_is_decided_from_the_prepared_state() -> None:
    zygote = Zygote(lambda: [10], decide, lambda item, code: ("died", item, code))
    try:
        for key in range(1, 6):
            zygote.submit(("k", key), key)
        outcomes = dict(zygote.receive() for _ in range(5))
    finally:
        zygote.close()
    assert outcomes[("k", 1)] == 11 and outcomes[("k", 2)] == 12 and outcomes[("k", 5)] == 15
    assert outcomes[("k", 3)] == ("died", 3, 7)
    assert isinstance(outcomes[("k", 4)], ValueError) and str(outcomes[("k", 4)]) == "item 4"
    assert zygote._proc.exitcode == 0  # it ended on the end of its requests, not killed after a wait
