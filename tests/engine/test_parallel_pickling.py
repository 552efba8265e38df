"""The search's processes send states with the hashes their functions computed: a
function arrives equal, with its hash (no record of a set of records hashed again), and
sets of functions arrive equal."""

from __future__ import annotations

import multiprocessing

from conformance.tla.parallel import _recv, _send
from conformance.tla.values import Fn, make_record, same_value


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
    assert _recv(theirs)._hash is None and hash(fresh) == hash(Fn({1: 2}))
