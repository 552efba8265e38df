"""The Informal Trace Format (ITF, Apalache ADR-015): JSON values and traces.

Encoding of values: booleans and strings as JSON, integers as ``{"#bigint": "n"}``,
sets as ``{"#set": [...]}`` (elements in a deterministic order), sequences (every tuple)
as JSON arrays, records as JSON objects, other functions as ``{"#map": [[k, v], ...]}``,
model values as their name (a string). Decoding also accepts plain JSON numbers for
integers and ``{"#tup": [...]}`` for tuples; ``model_values`` names strings that stand
for model values.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from conformance.tla.values import Fn, ModelValue, Value, make_fn, sort_key, type_name

Json = Any  # a JSON-compatible Python object


class ItfError(ValueError):
    """A JSON document that is not a valid ITF value or trace; the message names where."""


def encode(value: Value) -> Json:
    """The ITF JSON form of a runtime value."""
    t = type(value)
    if t is bool or t is str:
        return value
    if t is int:
        return {"#bigint": str(value)}
    if t is ModelValue:
        return value.name  # type: ignore[union-attr]
    if t is tuple:
        return [encode(x) for x in value]  # type: ignore[union-attr]
    if t is frozenset:
        return {"#set": [encode(x) for x in sorted(value, key=sort_key)]}  # type: ignore[arg-type]
    if t is Fn:
        fmap = value.map  # type: ignore[union-attr]
        keys = sorted(fmap, key=sort_key)
        if keys and all(type(k) is str and not k.startswith("#") for k in keys):
            return {k: encode(fmap[k]) for k in keys}
        return {"#map": [[encode(k), encode(fmap[k])] for k in keys]}
    raise ItfError(f"cannot encode a value of kind {type_name(value)} in ITF")


def decode(data: Json, model_values: Collection[str] = (), where: str = "value",
           tags: Mapping[str, Callable[[Any, str], Value]] | None = None) -> Value:
    """The runtime value of an ITF JSON value; ``where`` prefixes error messages. ``tags``:
    single-key objects beyond ITF's (a trace format's references), tag -> the function that
    gives the value of the tag's content (called with the content and its path)."""
    if isinstance(data, bool):
        return data
    if isinstance(data, int):
        return data
    if isinstance(data, str):
        return ModelValue(data) if data in model_values else data
    if isinstance(data, list):
        return tuple(decode(x, model_values, f"{where}[{i}]", tags) for i, x in enumerate(data))
    if isinstance(data, dict):
        if len(data) == 1:
            (key, inner), = data.items()
            if key == "#bigint":
                try:
                    return int(inner)
                except (TypeError, ValueError):
                    raise ItfError(f"{where}: #bigint holds {inner!r}, not an integer") from None
            if key in ("#set", "#tup", "#map"):
                if not isinstance(inner, list):
                    raise ItfError(f"{where}: {key} must hold a JSON array")
                items = [decode(x, model_values, f"{where}.{key}[{i}]", tags) for i, x in enumerate(inner)]
                if key == "#set":
                    elements = frozenset(items)
                    if len(elements) != len(items):
                        raise ItfError(f"{where}: #set lists an element twice (not a set)")
                    return elements
                if key == "#tup":
                    return tuple(items)
                pairs: dict[Any, Any] = {}
                for i, pair in enumerate(items):
                    if not (isinstance(pair, tuple) and len(pair) == 2):
                        raise ItfError(f"{where}.#map[{i}] must be a [key, value] pair")
                    if pair[0] in pairs:
                        raise ItfError(f"{where}.#map[{i}]: key listed twice (not a function)")
                    pairs[pair[0]] = pair[1]
                return make_fn(pairs)
            if key == "#unserializable":
                raise ItfError(f"{where}: unserializable value {inner!r}")
            if tags is not None and key in tags:
                return tags[key](inner, f"{where}.{key}")
        for key in data:
            if key.startswith("#"):
                raise ItfError(f"{where}: unknown ITF tag {key!r}")
        return make_fn({k: decode(v, model_values, f"{where}.{k}", tags) for k, v in data.items()})
    raise ItfError(f"{where}: {type(data).__name__} {data!r} is not an ITF value")


@dataclass
class ItfTrace:
    """A decoded ITF trace: variable names, one mapping per state, and metadata."""

    vars: list[str]
    states: list[dict[str, Value]]
    meta: dict[str, Any] = field(default_factory=dict)
    state_meta: list[dict[str, Any]] = field(default_factory=list)
    params: list[str] = field(default_factory=list)
    loop: int | None = None


def trace_to_json(
    variables: Sequence[str],
    states: Sequence[Mapping[str, Value]],
    meta: Mapping[str, Any] | None = None,
    state_meta: Sequence[Mapping[str, Any]] | None = None,
    loop: int | None = None,
) -> dict[str, Any]:
    """The ITF JSON object of a trace; ``state_meta[i]`` is merged into state i's ``#meta``;
    ``loop``: the index of the state the last one is followed by (a lasso)."""
    out_states = []
    for i, st in enumerate(states):
        smeta: dict[str, Any] = {"index": i}
        if state_meta is not None and i < len(state_meta):
            smeta.update(state_meta[i])
        entry: dict[str, Any] = {"#meta": smeta}
        for var in variables:
            entry[var] = encode(st[var])
        out_states.append(entry)
    head: dict[str, Any] = {"format": "ITF", "format-description": "https://apalache-mc.org/docs/adr/015adr-trace.html"}
    if meta:
        head.update(meta)
    doc: dict[str, Any] = {"#meta": head, "vars": list(variables), "states": out_states}
    if loop is not None:
        doc["loop"] = loop
    return doc


def trace_from_json(data: Json, model_values: Collection[str] = (), source: str = "<itf>") -> ItfTrace:
    """Decode an ITF trace object; errors name ``source`` and the state index."""
    if not isinstance(data, dict):
        raise ItfError(f"{source}: an ITF trace is a JSON object")
    variables = data.get("vars")
    states = data.get("states")
    if not isinstance(variables, list) or not all(isinstance(v, str) for v in variables):
        raise ItfError(f"{source}: 'vars' must be a list of variable names")
    if not isinstance(states, list):
        raise ItfError(f"{source}: 'states' must be a list")
    meta = data.get("#meta", {})
    params = data.get("params", [])
    loop = data.get("loop")
    decoded: list[dict[str, Value]] = []
    metas: list[dict[str, Any]] = []
    for i, st in enumerate(states):
        if not isinstance(st, dict):
            raise ItfError(f"{source}: state {i} is not a JSON object")
        missing = [v for v in variables if v not in st]
        if missing:
            raise ItfError(f"{source}: state {i} lacks variable(s) {', '.join(missing)}")
        decoded.append({v: decode(st[v], model_values, f"{source}: state {i}: {v}") for v in variables})
        smeta = st.get("#meta", {})
        metas.append(dict(smeta) if isinstance(smeta, dict) else {})
    return ItfTrace(
        vars=list(variables),
        states=decoded,
        meta=dict(meta) if isinstance(meta, dict) else {},
        state_meta=metas,
        params=list(params) if isinstance(params, list) else [],
        loop=loop if isinstance(loop, int) and not isinstance(loop, bool) else None,
    )


def write_trace(
    path: Path | str,
    variables: Sequence[str],
    states: Sequence[Mapping[str, Value]],
    meta: Mapping[str, Any] | None = None,
    state_meta: Sequence[Mapping[str, Any]] | None = None,
    loop: int | None = None,
) -> None:
    """Write a trace as an ITF JSON file (``loop`` as in ``trace_to_json``)."""
    doc = trace_to_json(variables, states, meta, state_meta, loop)
    Path(path).write_text(json.dumps(doc, indent=2) + "\n", encoding="utf-8")


def read_trace(path: Path | str, model_values: Collection[str] = ()) -> ItfTrace:
    """Read an ITF JSON file."""
    p = Path(path)
    try:
        data = json.loads(p.read_text(encoding="utf-8"))
    except OSError as exc:
        raise ItfError(f"{p}: cannot read: {exc.strerror}") from None
    except json.JSONDecodeError as exc:
        raise ItfError(f"{p}:{exc.lineno}:{exc.colno}: invalid JSON: {exc.msg}") from None
    return trace_from_json(data, model_values, str(p))
