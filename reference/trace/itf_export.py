"""Export a kraft-trace (``traces/FORMAT.md``) to an ITF trace (Apalache ADR-015).

One ITF state per trace line after the header: the init line, then one state per event,
each holding the *global* state -- every per-replica variable as a function over the
replica ids, and ``messages`` as the set of every message sent so far (the spec's
network keeps delivered messages). Each state's ``#meta`` names the event (step, time,
replica, action, parameters). Values are decoded and re-encoded with the engine's ITF
codec (``conformance.tla.itf``).

Usage: ``python -m reference.trace.itf_export TRACE.ndjson[.gz] OUT.itf.json``
"""

from __future__ import annotations

import gzip
import json
import sys
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

from conformance.tla.itf import decode, trace_to_json
from conformance.tla.values import Value, make_fn

PER_REPLICA_VARS: tuple[str, ...] = (
    "currentEpoch",
    "votedId",
    "leaderId",
    "log",
    "role",
    "highWatermark",
    "votesGranted",
    "endorsers",
    "replicaEndOffset",
)
ITF_VARS: tuple[str, ...] = (*PER_REPLICA_VARS, "messages")


class TraceExportError(ValueError):
    """A kraft-trace line that cannot be exported; names the file and line."""


def _lines(path: Path) -> Iterator[tuple[int, dict[str, Any]]]:
    opener = gzip.open if path.suffix == ".gz" else open
    with opener(path, "rt", encoding="utf-8") as f:
        for lineno, text in enumerate(f, 1):
            if not text.strip():
                continue
            try:
                doc = json.loads(text)
            except json.JSONDecodeError as exc:
                raise TraceExportError(f"{path}:{lineno}: invalid JSON: {exc.msg}") from None
            if not isinstance(doc, dict) or "kind" not in doc:
                raise TraceExportError(f"{path}:{lineno}: expected a JSON object with a 'kind'")
            yield lineno, doc


def export_trace(path: Path | str) -> dict[str, Any]:
    """The ITF JSON object of a kraft-trace file."""
    path = Path(path)
    replicas: dict[int, dict[str, Value]] = {}
    messages: set[Value] = set()
    states: list[dict[str, Value]] = []
    metas: list[dict[str, Any]] = []
    header: dict[str, Any] | None = None
    for lineno, doc in _lines(path):
        where = f"{path}:{lineno}"
        kind = doc["kind"]
        if kind == "header":
            header = doc
            continue
        if header is None:
            raise TraceExportError(f"{where}: the first line must be the header")
        if kind == "init":
            for rid, state in doc["replicas"].items():
                replicas[int(rid)] = _decode_state(state, f"{where}: replica {rid}")
            metas.append({"kind": "init"})
        elif kind == "event":
            rid = doc["replica"]
            if rid not in replicas:
                raise TraceExportError(f"{where}: event of unknown replica {rid}")
            replicas[rid] = _decode_state(doc["state"], f"{where}: state")
            for i, m in enumerate(doc["sent"]):
                messages.add(decode(m, where=f"{where}: sent[{i}]"))
            metas.append(
                {
                    "step": doc["step"],
                    "time_ms": doc["time_ms"],
                    "replica": rid,
                    "action": doc["action"],
                    "params": doc["params"],
                }
            )
        elif kind == "end":
            break
        else:
            raise TraceExportError(f"{where}: unknown line kind {kind!r}")
        states.append(_global_state(replicas, messages))
    if header is None:
        raise TraceExportError(f"{path}: empty trace")
    meta = {"source": str(path), "seed": header.get("seed"), "bug": header.get("bug"),
            "constants": header.get("constants")}
    return trace_to_json(ITF_VARS, states, meta, metas)


def _decode_state(state: Any, where: str) -> dict[str, Value]:
    if not isinstance(state, dict):
        raise TraceExportError(f"{where}: not a JSON object")
    missing = [v for v in PER_REPLICA_VARS if v not in state]
    if missing:
        raise TraceExportError(f"{where}: missing variable(s) {', '.join(missing)}")
    return {v: decode(state[v], where=f"{where}.{v}") for v in PER_REPLICA_VARS}


def _global_state(replicas: dict[int, dict[str, Value]], messages: set[Value]) -> dict[str, Value]:
    out: dict[str, Value] = {v: make_fn({rid: st[v] for rid, st in replicas.items()}) for v in PER_REPLICA_VARS}
    out["messages"] = frozenset(messages)
    return out


def main(argv: Sequence[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    if len(args) != 2:
        print("usage: python -m reference.trace.itf_export TRACE.ndjson[.gz] OUT.itf.json", file=sys.stderr)
        return 2
    try:
        doc = export_trace(args[0])
    except (TraceExportError, ValueError, OSError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    Path(args[1]).write_text(json.dumps(doc) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
