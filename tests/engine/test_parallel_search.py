"""The parallel search: its processes send states with the hashes their functions computed
(a function arrives equal, with its hash: no record of a set of records hashed again), and
the next-state relation is compiled before the workers are forked."""

from __future__ import annotations

import multiprocessing
from pathlib import Path

from conformance.tla.cfg import parse_config
from conformance.tla.explorer import check
from conformance.tla.parallel import _recv, _send
from conformance.tla.values import Fn, make_record, same_value
from tests.engine.spec_text import load_text


def test_functions_travel_with_their_hashes() -> None:
    rec = make_record({"type": "VoteRequest", "epoch": 2, "granted": False, "log": (1, 2)})
    other = make_record({"type": "VoteRequest", "epoch": 3, "granted": 0, "log": (1, 2)})
    fn = Fn({(1, "a"): rec, 3: frozenset({rec, other})})
    state = (fn, frozenset({rec, other}), (rec, 0))
    hashes = hash(rec), hash(other), hash(fn)
    mine, theirs = multiprocessing.Pipe()
    _send(mine, state)
    got = _recv(theirs)
    assert got == state and same_value(got, state)
    g_rec, g_other = got[2][0], next(x for x in got[1] if x.map["epoch"] == 3)
    # the hashes came along (not computed again), and they are the values' hashes
    assert (g_rec._hash, g_other._hash, got[0]._hash) == hashes
    assert g_rec is not rec and g_rec.map["granted"] is False and g_other.map["granted"] == 0
    # a function whose hash was never computed arrives without one
    fresh = Fn({1: 2})
    _send(mine, fresh)
    got = _recv(theirs)
    assert got == fresh and got._hash is None


ERROR_SPEC = """---- MODULE Fails ----
EXTENDS Naturals
VARIABLE x
Init == x \\in {0, 1}
Next == x' = 1 \\div x
====
"""


def test_an_error_of_the_next_state_relation_in_an_initial_state_is_reported_by_two_workers(
        tmp_path: Path) -> None:
    # the relation is compiled (its successors of an initial state generated) before the
    # workers are forked; the error met then is reported as one worker reports it
    model = load_text(tmp_path, ERROR_SPEC)
    config = parse_config("INIT Init\nNEXT Next\n", str(tmp_path / "Fails.cfg"))
    one, two = (check(model, config, progress=False, workers=n) for n in (1, 2))
    assert one.verdict == two.verdict == "error"
    assert (one.message, [s.state for s in one.trace]) == (two.message, [s.state for s in two.trace])
    assert [s.state for s in two.trace] == [(0,)]
