"""Hand-mutated traces: an event dropped, duplicated, swapped with its neighbour, a value edited.

A mutation works on the decoded JSON lines of a trace (header, init, events, end), renumbers
the steps so that the result is well-formed, and records the step at which a validator must
reject it. Positions are chosen so that this step is forced by the mutation itself:

* ``drop``: event k whose messages are first handled by a later event j, with no event of
  k's replica and no other handler of k's messages in between; those events do not depend on
  k, and without k the message handled by j is not on the network: j (now step j-1) is not
  enabled.
* ``swap``: the same pair swapped (their ``time_ms`` stay in place, so time never goes back);
  the handler (now step k) comes before the send.
* ``duplicate``: an event of an action that changes the state every time it runs (e.g. a
  counter or epoch increment); the copy (step k+1) leads to a state the trace does not show.
* ``edit-state``: an integer variable of event k's state moved far out of range (step k).
* ``edit-param``: an integer field (not an address) of event k's message parameter moved out
  of range; no such message was sent, so step k is not enabled.
"""

from __future__ import annotations

import copy
import gzip
import json
import random
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

Line = dict[str, Any]
KINDS = ("drop", "duplicate", "swap", "edit-state", "edit-param")
EDIT_OFFSET = 1000
ADDRESS_FIELDS = ("source", "dest")  # never edited: a message to no replica is bad input, not a violation


@dataclass(frozen=True)
class Mutation:
    kind: str
    step: int  # the event the mutation is applied to (original numbering)
    reject_step: int  # the step (new numbering) at which the mutated trace must be rejected
    detail: str


def read_lines(path: Path | str, expand: bool = True) -> list[Line]:
    """The decoded lines of a trace; with ``expand``, every event with its full ``state``."""
    p = Path(path)
    raw = gzip.decompress(p.read_bytes()) if p.read_bytes()[:2] == b"\x1f\x8b" else p.read_bytes()
    lines = [json.loads(t) for t in raw.decode("utf-8").splitlines() if t.strip()]
    return expand_deltas(lines) if expand else lines


def expand_deltas(lines: list[Line]) -> list[Line]:
    """Replace each event's ``delta`` (format 2) by the full ``state`` it stands for, and every
    reference to a logged sequence (``#slice``, format 3) by the elements it stands for, so that
    a mutation can edit, drop or move events freely (a format-2 event may carry either)."""
    init = next((line for line in lines if line.get("kind") == "init"), None)
    if init is None:
        return lines
    current = {str(rid): dict(state) for rid, state in init["replicas"].items()}
    for line in lines:
        if line.get("kind") != "event":
            continue
        rid = str(line["replica"])
        for key in ("params", "sent", "delta"):  # references are to the states before the event
            if key in line:
                line[key] = _without_slices(line[key], current)
        if "delta" in line:
            state = dict(current[rid])
            for name, change in line.pop("delta").items():
                state[name] = _apply_json(state[name], change)
            line["state"] = state
        current[rid] = dict(line["state"])
    return lines


def _without_slices(obj: Any, current: dict[str, dict[str, Any]]) -> Any:
    """``obj`` with each ``{"#slice": [r, v, a, n]}`` replaced by the elements it names."""
    if isinstance(obj, list):
        return [_without_slices(x, current) for x in obj]
    if isinstance(obj, dict):
        if set(obj) == {"#slice"}:
            r, name, offset, count = obj["#slice"]
            return list(current[str(r)][name][offset:offset + count])
        return {k: _without_slices(v, current) for k, v in obj.items()}
    return obj


def _apply_json(prev: Any, change: Any) -> Any:
    if isinstance(change, dict) and set(change) == {"#keep", "#append"}:
        return prev[: change["#keep"]] + change["#append"]
    if isinstance(change, dict) and set(change) == {"#update"}:
        updates = {json.dumps(k, sort_keys=True): v for k, v in change["#update"]}
        if isinstance(prev, list):  # a function over 1..n written as a sequence
            return [updates.get(str(i), x) for i, x in enumerate(prev, 1)]
        return {"#map": [[k, updates.get(json.dumps(k, sort_keys=True), v)] for k, v in prev["#map"]]}
    return change


def write_lines(path: Path | str, lines: Iterable[Line], compress: bool | None = None) -> None:
    p = Path(path)
    text = "".join(json.dumps(line, sort_keys=False, separators=(",", ":")) + "\n" for line in lines)
    data = text.encode("utf-8")
    if compress if compress is not None else p.name.endswith(".gz"):
        data = gzip.compress(data, mtime=0)
    p.write_bytes(data)


def _events(lines: Sequence[Line]) -> list[Line]:
    return [line for line in lines if line.get("kind") == "event"]


def _assemble(lines: Sequence[Line], events: list[Line]) -> list[Line]:
    head = [line for line in lines if line.get("kind") in ("header", "init")]
    for k, e in enumerate(events, 1):
        e["step"] = k
    tail = [dict(line, steps=len(events)) for line in lines if line.get("kind") == "end"]
    return head + events + tail


def _msg_key(m: Any) -> str:
    return json.dumps(m, sort_keys=True)


def _first_sender(events: Sequence[Line]) -> dict[str, int]:
    """Message (canonical JSON) -> index of the first event that sent it."""
    first: dict[str, int] = {}
    for idx, e in enumerate(events):
        for m in e.get("sent", []):
            first.setdefault(_msg_key(m), idx)
    return first


def _handled_message(e: Line) -> Any | None:
    params = e.get("params", {})
    return params.get("m")


def causal_pairs(events: Sequence[Line]) -> list[int]:
    """Indices k such that event k+1 handles a message first sent by event k."""
    first = _first_sender(events)
    out = []
    for k in range(len(events) - 1):
        m = _handled_message(events[k + 1])
        if m is not None and first.get(_msg_key(m)) == k:
            out.append(k)
    return out


def drop_points(events: Sequence[Line]) -> list[tuple[int, int]]:
    """Pairs (k, j): event j is the first to handle a message that only event k (so far) sent,
    and no event strictly between them belongs to k's replica or handles one of k's messages."""
    first = _first_sender(events)
    out = []
    for k, e in enumerate(events):
        own = {_msg_key(m) for m in e.get("sent", []) if first[_msg_key(m)] == k}
        if not own:
            continue
        for j in range(k + 1, len(events)):
            m = _handled_message(events[j])
            if m is not None and _msg_key(m) in own:
                out.append((k, j))
                break
            if events[j]["replica"] == e["replica"]:
                break
    return out


def drop(lines: Sequence[Line], k: int, j: int | None = None) -> tuple[list[Line], Mutation]:
    """Drop event k (0-based); ``j`` is the index of the first handler of its messages."""
    events = copy.deepcopy(_events(lines))
    e = events.pop(k)
    reject = j if j is not None else k + 1  # j's new 1-based step is (j - 1) + 1
    return _assemble(lines, events), Mutation("drop", k + 1, reject, f"dropped step {k + 1} ({e['action']})")


def swap(lines: Sequence[Line], k: int) -> tuple[list[Line], Mutation]:
    events = copy.deepcopy(_events(lines))
    events[k], events[k + 1] = events[k + 1], events[k]
    if "time_ms" in events[k] and "time_ms" in events[k + 1]:  # the clock still runs forwards
        events[k]["time_ms"], events[k + 1]["time_ms"] = events[k + 1]["time_ms"], events[k]["time_ms"]
    return _assemble(lines, events), Mutation(
        "swap", k + 1, k + 1, f"swapped steps {k + 1} ({events[k + 1]['action']}) and {k + 2} ({events[k]['action']})")


def duplicate(lines: Sequence[Line], k: int) -> tuple[list[Line], Mutation]:
    events = copy.deepcopy(_events(lines))
    events.insert(k + 1, copy.deepcopy(events[k]))
    return _assemble(lines, events), Mutation("duplicate", k + 1, k + 2, f"duplicated step {k + 1} ({events[k]['action']})")


def _int_fields(obj: dict[str, Any]) -> list[str]:
    return [key for key, v in obj.items() if type(v) is int]


def edit_state(lines: Sequence[Line], k: int, variable: str) -> tuple[list[Line], Mutation]:
    events = copy.deepcopy(_events(lines))
    old = events[k]["state"][variable]
    events[k]["state"][variable] = old + EDIT_OFFSET
    return _assemble(lines, events), Mutation(
        "edit-state", k + 1, k + 1, f"step {k + 1}: state.{variable} {old} -> {old + EDIT_OFFSET}")


def edit_param(lines: Sequence[Line], k: int, fld: str) -> tuple[list[Line], Mutation]:
    events = copy.deepcopy(_events(lines))
    m = events[k]["params"]["m"]
    old = m[fld]
    m[fld] = old + EDIT_OFFSET
    return _assemble(lines, events), Mutation(
        "edit-param", k + 1, k + 1, f"step {k + 1}: params.m.{fld} {old} -> {old + EDIT_OFFSET}")


def mutate(lines: Sequence[Line], kind: str, rng: random.Random,
           growing_actions: Sequence[str] = ("BecomeCandidate", "ClientAppend")) -> tuple[list[Line], Mutation] | None:
    """One mutation of the given kind at a position where its rejection step is forced; None if no
    position qualifies. ``growing_actions`` change the state every time they run."""
    lines = expand_deltas(copy.deepcopy(list(lines)))
    events = _events(lines)
    if kind == "drop":
        points = drop_points(events)
        if not points:
            return None
        k, j = rng.choice(points)
        return drop(lines, k, j)
    if kind == "swap":
        pairs = causal_pairs(events)
        if not pairs:
            return None
        return swap(lines, rng.choice(pairs))
    if kind == "duplicate":
        ks = [k for k, e in enumerate(events) if e["action"] in growing_actions]
        return duplicate(lines, rng.choice(ks)) if ks else None
    if kind == "edit-state":
        spots = [(k, f) for k, e in enumerate(events) for f in _int_fields(e["state"])]
        if not spots:
            return None
        k, f = rng.choice(spots)
        return edit_state(lines, k, f)
    if kind == "edit-param":
        spots = [(k, f) for k, e in enumerate(events) if isinstance(_handled_message(e), dict)
                 for f in _int_fields(e["params"]["m"]) if f not in ADDRESS_FIELDS]
        if not spots:
            return None
        k, f = rng.choice(spots)
        return edit_param(lines, k, f)
    raise ValueError(f"unknown mutation kind {kind!r} (known: {', '.join(KINDS)})")
