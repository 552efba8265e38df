"""Export a kraft-trace (``traces/FORMAT.md``) to an ITF trace (Apalache ADR-015).

One ITF state per trace line after the header: the init line, then one state per event,
each holding the *global* state -- every per-replica variable as a function over the
replica ids, and ``messages`` as the set of every message sent so far (the spec's
network keeps delivered messages). Each state's ``#meta`` names the event (step, time,
replica, action, parameters). Values are decoded and re-encoded with the engine's ITF
codec (``conformance.tla.itf``).

Usage: ``python -m reference.itf_export TRACE.ndjson[.gz] OUT.itf.json``
"""

from __future__ import annotations

import json
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from conformance.tla.itf import encode, trace_to_json
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


def export_trace(path: Path | str) -> dict[str, Any]:
    """The ITF JSON object of a kraft-trace file (any format version the trace reader reads)."""
    from conformance.validate.trace_reader import TraceFormatError, TraceStream

    path = Path(path)
    messages: set[Value] = set()
    states: list[dict[str, Value]] = []
    metas: list[dict[str, Any]] = []
    try:
        stream = TraceStream(path)
        replicas = {rid: _per_replica(state, f"{path}:{stream.init.line}: replica {rid}")
                    for rid, state in stream.init.replicas.items()}
        metas.append({"kind": "init"})
        states.append(_global_state(replicas, messages))
        for event in stream.events():
            replicas[event.replica] = _per_replica(event.state, f"{path}:{event.line}: state")
            messages.update(event.sent)
            metas.append({"step": event.step, "time_ms": event.time_ms, "replica": event.replica,
                          "action": event.action, "params": {k: encode(v) for k, v in event.params.items()}})
            states.append(_global_state(replicas, messages))
        stream.close()
    except TraceFormatError as exc:
        raise TraceExportError(str(exc)) from None
    header = stream.header
    meta = {"source": str(path), "seed": header.seed, "bug": header.bug,
            "constants": {k: encode(v) for k, v in header.constants.items()}}
    return trace_to_json(ITF_VARS, states, meta, metas)


def _per_replica(state: dict[str, Value], where: str) -> dict[str, Value]:
    missing = [v for v in PER_REPLICA_VARS if v not in state]
    if missing:
        raise TraceExportError(f"{where}: missing variable(s) {', '.join(missing)}")
    return {v: state[v] for v in PER_REPLICA_VARS}


def _global_state(replicas: dict[int, dict[str, Value]], messages: set[Value]) -> dict[str, Value]:
    out: dict[str, Value] = {v: make_fn({rid: st[v] for rid, st in replicas.items()}) for v in PER_REPLICA_VARS}
    out["messages"] = frozenset(messages)
    return out


def main(argv: Sequence[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    if len(args) != 2:
        print("usage: python -m reference.itf_export TRACE.ndjson[.gz] OUT.itf.json", file=sys.stderr)
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
