"""Explorer building blocks (fingerprints, fingerprint set, spilling queue, progress)
and explorer behaviour on small inline specs: limits, errors, VIEW, simulation."""

from __future__ import annotations

import io
import itertools
from pathlib import Path

import pytest

from conformance.tla.fpset import Fingerprinter, FingerprintSet
from conformance.tla.progress import Progress
from conformance.tla.statequeue import StateQueue
from conformance.tla.values import Fn, ModelValue, make_fn, make_record


def test_fingerprints_follow_tla_equality() -> None:
    fp = Fingerprinter()
    a = frozenset(range(50))
    b = frozenset(reversed(range(50)))
    assert fp.value(a) == fp.value(b)
    assert fp.value(make_fn({"x": 1, "y": 2})) == fp.value(make_fn({"y": 2, "x": 1}))
    assert fp.state((1, a)) == Fingerprinter().state((1, b))  # no per-instance state
    distinct = [
        -1, -2, 0, 1, 2**64, 2**64 + 1, True, False, "a", "b", ModelValue("a"), (), (1,), (1, 2), (2, 1),
        frozenset(), frozenset({1}), frozenset({(1, 2)}), frozenset({1, 2}), Fn({0: 1}), Fn({1: 0}),
        make_record([("a", 1)]), make_record([("a", 2)]), ((1,), 2), (1, (2,)),
        frozenset({frozenset({1}), frozenset({2})}), frozenset({frozenset({1, 2})}),
    ]
    fps = [fp.value(v) for v in distinct]
    assert len(set(fps)) == len(distinct)
    assert all(0 <= x < 2**64 for x in fps)
    assert fp.state((1, 2)) != fp.state((2, 1))


def test_fingerprints_of_many_small_states_do_not_collide() -> None:
    fp = Fingerprinter(memo_limit=1000)
    states = list(itertools.product(range(-3, 12), range(-3, 12), [frozenset(), frozenset({1}), frozenset({1, 2})]))
    assert len({fp.state(s) for s in states}) == len(states)


def test_fingerprint_set_numbers_states_and_links_parents() -> None:
    s = FingerprintSet()
    assert s.add(10, -1) == 0
    assert s.add(11, -1) == 1
    assert s.add(20, 1) == 2
    assert s.add(30, 2) == 3
    assert s.add(20, 0) == -1  # already seen: the first parent stays
    assert len(s) == 4 and 30 in s and 31 not in s
    assert s.path_to(3) == [1, 2, 3]
    assert s.path_to(0) == [0]


def test_queue_spills_to_disk_and_stays_fifo() -> None:
    with StateQueue(memory_limit=10, chunk_size=4) as q:
        for i in range(25):
            q.push((i, ("s", i)))
        assert q.chunks_written > 0
        assert len(q) == 25
        out = [q.pop()[0] for _ in range(12)]
        for i in range(25, 40):
            q.push((i, ("s", i)))
        out += [q.pop()[0] for _ in range(len(q))]
        assert out == list(range(40))
        with pytest.raises(IndexError):
            q.pop()
        spill_dir = q._dir
    assert spill_dir is None or not Path(spill_dir).exists()


def test_progress_plain_lines_when_not_a_tty() -> None:
    out = io.StringIO()
    p = Progress(enabled=True, stream=out, plain_interval=0.0)
    p.update(10, 20, 3, 2)
    p.update(11, 25, 3, 2)
    p.close()
    lines = out.getvalue().splitlines()
    assert len(lines) == 2
    assert lines[0].startswith("progress: 10 distinct states, 20 generated")
    assert "queue 3, depth 2" in lines[0]
    quiet = io.StringIO()
    q = Progress(enabled=False, stream=quiet, plain_interval=0.0)
    q.update(1, 1, 1, 1)
    assert quiet.getvalue() == ""


class _FakeTty(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_progress_on_a_terminal_uses_a_live_display() -> None:
    out = _FakeTty()
    p = Progress(enabled=True, stream=out, tty_interval=0.0)
    assert p.tty
    p.update(1234, 5678, 9, 4)
    p.close()
    text = out.getvalue()
    assert "1,234 distinct states" in text and "queue 9" in text
    assert p.lines_written == 1
