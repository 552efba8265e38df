"""``Model.action_successors(..., checks)``: a test on a variable's assigned values prunes
exactly the successors whose value fails it, wherever the action assigns it."""

from __future__ import annotations

from typing import Any

from tests.engine.test_actions import model

SPEC = """
VARIABLES x, y, z
Send(v) == y' = y \\cup {v}
Pick == \\E k \\in 1..6 : x' = k /\\ (IF k > 3 THEN Send(k) ELSE UNCHANGED y) /\\ z' = x' * 2
Keep == UNCHANGED <<x, y>> /\\ z' \\in {1, 2}
"""


def _successors(action: str, state: tuple[Any, ...], checks: dict[int, Any] | None = None) -> list[tuple[Any, ...]]:
    return sorted(model(SPEC).action_successors(action, (), state, checks), key=repr)


def test_a_check_keeps_exactly_the_successors_whose_value_passes() -> None:
    s = (0, frozenset({9}), 0)
    every = _successors("Pick", s)
    assert len(every) == 6
    for i, test in [(0, lambda v: v % 2 == 0), (1, lambda v: 5 in v or v == frozenset({9})),
                    (2, lambda v: v > 100)]:
        calls: list[Any] = []

        def counted(v: Any, test: Any = test, calls: list[Any] = calls) -> bool:
            calls.append(v)
            return bool(test(v))

        assert _successors("Pick", s, {i: counted}) == [t for t in every if test(t[i])]
        if i == 1:  # assigned through Send and through UNCHANGED: tested either way, once per way
            assert len(calls) == 6


def test_a_check_on_an_unchanged_variable_tests_its_old_value() -> None:
    s = (3, frozenset(), 0)
    assert _successors("Keep", s, {0: lambda v: v == 3}) == _successors("Keep", s)
    assert _successors("Keep", s, {0: lambda v: v != 3}) == []
