"""Reusing the text of long arrays between event lines gives exactly ``json.loads``'s values."""

from __future__ import annotations

import json
from typing import Any

from conformance.validate.fast_decode import decode_fast
from conformance.validate.text_reuse import MIN_TEXT, ArrayReuse, Reused


def _entry(k: int, epoch: int = 1) -> dict[str, Any]:
    return {"epoch": epoch, "kind": "data", "value": k}


def _line(step: int, replica: int, log: list[Any], sep: str = ", ", **extra: Any) -> str:
    state = {"currentEpoch": 1, "log": log, **extra}
    obj = {"kind": "event", "step": step, "replica": replica, "action": "A", "params": {}, "state": state,
           "sent": []}
    return json.dumps(obj, separators=(sep, ": ")) + "\n"


def _read(reuse: ArrayReuse, text: str) -> tuple[dict[str, Any], int]:
    """The decoded state of a line, and how many of its variables were reused."""
    obj = reuse.loads(text)
    state = {k: v.value if type(v) is Reused else decode_fast(v) for k, v in obj["state"].items()}
    reused = sum(type(v) is Reused for v in obj["state"].values())
    reuse.note(obj["replica"], state)
    expected = {k: decode_fast(v) for k, v in json.loads(text)["state"].items()}
    assert state == expected
    return state, reused


def test_growing_log_is_reused_and_extended() -> None:
    reuse = ArrayReuse()
    log = [_entry(k) for k in range(30)]
    assert len(json.dumps(log)) >= MIN_TEXT
    _, reused = _read(reuse, _line(1, 1, log))
    assert reused == 0
    _, reused = _read(reuse, _line(2, 1, log))
    assert reused == 1
    state, reused = _read(reuse, _line(3, 1, [*log, _entry(99, 2), _entry(98, 2)]))
    assert reused == 1 and len(state["log"]) == 32


def test_truncated_or_rewritten_log_is_parsed_afresh() -> None:
    reuse = ArrayReuse()
    log = [_entry(k) for k in range(30)]
    _read(reuse, _line(1, 1, log))
    state, reused = _read(reuse, _line(2, 1, log[:20]))
    assert reused == 0 and len(state["log"]) == 20
    state, reused = _read(reuse, _line(3, 1, log))  # grows again from the truncated prefix
    assert reused == 1 and len(state["log"]) == 30
    changed = [*log[:29], _entry(7, 3)]  # same length, last entry differs
    state, reused = _read(reuse, _line(3, 1, changed))
    assert reused == 0 and state["log"][-1].map["epoch"] == 3
    longer_number = [*log[:29], {"epoch": 1, "kind": "data", "value": 290}]  # text extends a number
    _read(reuse, _line(4, 1, [*longer_number[:29], _entry(29)]))
    state, reused = _read(reuse, _line(5, 1, longer_number))
    assert reused == 0 and state["log"][-1].map["value"] == 290


def test_replicas_are_kept_apart_and_other_formatting_works() -> None:
    reuse = ArrayReuse()
    a = [_entry(k) for k in range(30)]
    b = [_entry(k, 2) for k in range(30)]
    _read(reuse, _line(1, 1, a, sep=","))
    _read(reuse, _line(2, 2, b, sep=","))
    state, reused = _read(reuse, _line(3, 1, [*a, _entry(5)], sep=","))
    assert reused == 1 and len(state["log"]) == 31
    state, reused = _read(reuse, _line(4, 2, b, sep=","))
    assert reused == 1 and state["log"][0].map["epoch"] == 2


def test_key_text_inside_another_value_is_not_mistaken() -> None:
    reuse = ArrayReuse()
    log = [_entry(k) for k in range(30)]
    _read(reuse, _line(1, 1, log))
    # a string holding the remembered text sits before the real log: the placeholder check fails
    decoy = '"log": ' + json.dumps(log)
    state, _ = _read(reuse, _line(2, 1, [*log, _entry(1)], aaa=decoy))
    assert len(state["log"]) == 31


def test_adopted_values_are_returned() -> None:
    reuse = ArrayReuse()
    log = [_entry(k) for k in range(30)]
    state, _ = _read(reuse, _line(1, 1, log))
    same = tuple(state["log"])
    reuse.adopt(1, {"log": same})
    obj = reuse.loads(_line(2, 1, log))
    assert obj["state"]["log"].value is same
