"""Explorer building blocks (fingerprints, fingerprint set, spilling queue, progress)
and how the explorer reads the forms of SPECIFICATION, with its errors."""

from __future__ import annotations

import io
import itertools
from pathlib import Path

import pytest

from conformance.tla.cfg import parse_config, read_config
from conformance.tla.explorer import CheckResult, check
from conformance.tla.fpset import Fingerprinter, FingerprintSet
from conformance.tla.model import Model
from conformance.tla.progress import Progress
from conformance.tla.simulation import simulate
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
    bounded = StateQueue.bounded(8)
    for i in range(30):
        bounded.push(i)
        assert len(bounded._head) + len(bounded._tail) <= 8  # the in-memory part stays bounded
    assert bounded.chunks_written >= 3 and len(bounded) == 30
    assert [bounded.pop() for _ in range(30)] == list(range(30))
    bounded.close()


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


SPEC_FORMS = r"""---- MODULE Forms ----
EXTENDS Naturals
VARIABLES x, y
vars == <<x, y>>
Init == x = 0 /\ y = 0
Step == x < 3 /\ x' = x + 1 /\ y' = y
Flip == y' = 1 - y /\ x' = x
Next == Step \/ Flip
Fair == WF_vars(Next)
Base == Init /\ [][Next]_vars
Spec == Base /\ Fair
Inline == x = 0 /\ y = 0 /\ [][x < 3 /\ x' = x + 1 /\ y' = y]_vars
Twice == Init /\ [][Next]_vars /\ [][Step]_vars
NoInit == [][Next]_vars
Angle == Init /\ [](<<Next>>_vars)
Live == Init /\ [][Next]_vars /\ []<>(x = 3)
NotBool == x + 1
====
"""


def _forms(tmp_path: Path, cfg_text: str) -> CheckResult:
    (tmp_path / "Forms.tla").write_text(SPEC_FORMS)
    model = Model.load(tmp_path / "Forms.tla")
    config = parse_config(cfg_text, str(tmp_path / "Forms.cfg"))
    return check(model, config, progress=False)


def _brute_forms(flip: bool) -> tuple[int, int]:
    seen = {(0, 0)}
    frontier = [(0, 0)]
    generated = 1
    while frontier:
        new = []
        for x, y in frontier:
            succ = ([(x + 1, y)] if x < 3 else []) + ([(x, 1 - y)] if flip else [])
            generated += len(succ)
            for t in succ:
                if t not in seen:
                    seen.add(t)
                    new.append(t)
        frontier = new
    return generated, len(seen)


@pytest.mark.parametrize(("cfg", "flip"), [
    ("SPECIFICATION Spec", True),  # through definitions, fairness ignored
    ("SPECIFICATION Base", True),
    ("INIT Init\nNEXT Next", True),
    ("SPECIFICATION Inline\nCHECK_DEADLOCK FALSE", False),  # init and next as expressions
])
def test_specification_forms(tmp_path: Path, cfg: str, flip: bool) -> None:
    r = _forms(tmp_path, cfg)
    generated, distinct = _brute_forms(flip)
    assert (r.verdict, r.states_generated, r.distinct_states) == ("ok", generated, distinct)


@pytest.mark.parametrize(("cfg", "fragment"), [
    ("SPECIFICATION Twice", "exactly one conjunct [][Next]_vars, found 2"),
    ("SPECIFICATION NoInit", "has no initial predicate"),
    ("SPECIFICATION Angle", "must be boxed"),
    ("SPECIFICATION Live", "neither the initial predicate"),
    ("SPECIFICATION Nope", "SPECIFICATION Nope is not defined"),
    ("INIT Init", "needs SPECIFICATION or both INIT and NEXT"),
    ("SPECIFICATION Spec\nINIT Init", "not both"),
    ("INIT Init\nNEXT Next\nVIEW Missing", "VIEW Missing is not defined"),
    ("INIT Init\nNEXT Next\nINVARIANT NotBool", "Forms.tla:17:1: invariant NotBool evaluated to 1, not a boolean"),
    ("INIT Init\nNEXT Next\nCONSTRAINT NotBool", "CONSTRAINT NotBool evaluated to 1, not a boolean"),
])
def test_specification_errors(tmp_path: Path, cfg: str, fragment: str) -> None:
    r = _forms(tmp_path, cfg)
    assert r.verdict == "error" and fragment in (r.message or "")
    assert "Forms." in (r.message or "")


def test_check_reports_progress_while_running() -> None:
    specs = Path(__file__).parent / "specs"
    config = read_config(specs / "TwoPhase.cfg")
    model = Model.load(specs / "TwoPhase.tla", constants=config.constants)
    out = io.StringIO()
    r = check(model, config, progress=Progress(stream=out, plain_interval=0.0))
    lines = out.getvalue().splitlines()
    assert r.verdict == "ok" and lines
    assert all(line.startswith("progress: ") for line in lines)
    last = int(lines[-1].split()[1].replace(",", ""))
    assert 0 < last <= r.distinct_states


# --time-limit while the initial states are computed -----------------------------------------

MANY_INITS = """---- MODULE ManyInits ----
EXTENDS Naturals
CONSTANT N
VARIABLE x
Init == x \\in 1..N
Next == UNCHANGED x
====
"""


class _Clock:
    """A clock for the explorer that advances by one second at each reading."""

    def __init__(self) -> None:
        self.t = 0.0

    def monotonic(self) -> float:
        self.t += 1.0
        return self.t


def _many_inits(tmp_path: Path, n: int, limit: float, monkeypatch: pytest.MonkeyPatch | None = None
                ) -> CheckResult:
    (tmp_path / "ManyInits.tla").write_text(MANY_INITS)
    model = Model.load(tmp_path / "ManyInits.tla", constants={"N": n})
    config = parse_config("INIT Init\nNEXT Next\n", str(tmp_path / "ManyInits.cfg"))
    if monkeypatch is not None:
        # (the module's function, not the explorer's name for the module: the compiled core
        # looks the function up in the module at each call)
        monkeypatch.setattr("time.monotonic", _Clock().monotonic)
    return check(model, config, progress=False, time_limit=limit)


def test_time_limit_stops_the_enumeration_of_initial_states(tmp_path: Path) -> None:
    # a limit already past when the first initial state comes: no state is stored, and
    # the enumeration stops at once (without the check, all 20,000 were generated first
    # and the search stopped only at its 64th expansion)
    r = _many_inits(tmp_path, 20_000, 1e-9)
    assert r.verdict == "limit" and "time limit" in (r.message or "")
    assert r.distinct_states == 0 and r.queue_left == 0 and r.states_generated < 20_000


def test_simulation_honours_the_time_limit_in_init_and_within_a_walk(tmp_path: Path) -> None:
    # a limit already past: the simulation stops while the initial states are computed
    # (before, all 20,000 were computed and a whole walk run first), and a walk of a
    # million steps stops too (before, the limit was read only between walks)
    (tmp_path / "ManyInits.tla").write_text(MANY_INITS)
    config = parse_config("INIT Init\nNEXT Next\n", str(tmp_path / "ManyInits.cfg"))
    model = Model.load(tmp_path / "ManyInits.tla", constants={"N": 20_000})
    r = simulate(model, config, depth=10, traces=1, seed=1, time_limit=1e-9, progress=False)
    assert r.verdict == "limit" and r.states_generated == 0 and r.trace == []
    (tmp_path / "Long.tla").write_text("---- MODULE Long ----\nEXTENDS Naturals\nVARIABLE x\n"
                                       "Init == x = 0\nNext == x' = x + 1\n====\n")
    long_model = Model.load(tmp_path / "Long.tla")
    r = simulate(long_model, parse_config("INIT Init\nNEXT Next\n", str(tmp_path / "Long.cfg")),
                 depth=10**6, traces=1, seed=1, time_limit=0.5, progress=False)
    assert r.verdict == "limit" and 1 < r.depth < 10**6 and r.trace == []


@pytest.mark.parametrize(("limit", "generated", "distinct"), [
    # the clock reads 1 at the start of check, 2 for the deadline (2 + limit); each
    # initial state is read once as generated (3, 4, ...) and once before it is checked
    # and stored: generation stops at the reading 3 + k > 2 + limit, k = limit states
    (5, 5, 0),
    # 10 states generated (readings 3..12), then checked: reading 12 + j > 2 + 13 at j = 4
    # stops with 3 stored (without the checks: 10 states, verdict ok, as the search reads
    # the clock only every 64 expansions)
    (13, 10, 3),
])
def test_time_limit_counts_while_initial_states_are_computed(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, limit: int, generated: int,
        distinct: int) -> None:
    r = _many_inits(tmp_path, 10, limit, monkeypatch)
    assert (r.verdict, r.states_generated, r.distinct_states, r.queue_left) == \
        ("limit", generated, distinct, distinct)
