"""Writes one simulated run as a kraft-trace (``traces/FORMAT.md``).

Each event carries the stepping replica's *changes* (``delta``), computed generically from
its variables (see ``reference.trace.trace_delta``), and a run of entries that some replica's
last logged log already holds at the same offset (a FetchResponse's records, the entries a
follower appends from one) is written as a reference to it (``#slice``), so that an event's
size does not grow with the log and a trace grows linearly with its length; with
``full_every = N`` every N-th event carries the full state instead.
Newline-delimited JSON, gzip-compressed when the path ends in ``.gz``. A plain file is
handed to the operating system every ``FLUSH_EVERY`` events, and every file is closed when
the run ends (also when the simulator raises), so an interrupted generator keeps the steps
written so far.
"""

from __future__ import annotations

import gzip
import io
import json
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, TextIO

from reference import __version__
from reference.core.messages import Message
from reference.trace.itf_encode import encode, encode_message, encode_record, encode_str
from reference.trace.trace_delta import delta_text, snapshot

FORMAT = "kraft-trace"
FORMAT_VERSION = 3
FLUSH_EVERY = 256
MIN_SLICE = 2  # runs of fewer entries are written out (a reference is not shorter)
_SCALARS = (int, str, bool)


class TraceWriter:
    """Appends header, init, event and end lines to a trace file."""

    def __init__(self, path: Path | str, full_every: int = 0) -> None:
        if full_every < 0:
            raise ValueError(f"full_every must be 0 (never) or positive, got {full_every}")
        self.path = Path(path)
        self.full_every = full_every
        self._last: dict[int, dict[str, Any]] = {}  # per replica: snapshot of each variable
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._out: TextIO
        if self.path.suffix == ".gz":
            raw = gzip.open(self.path, "wb", compresslevel=4)  # noqa: SIM115 - closed by close()
            self._out = io.TextIOWrapper(raw, encoding="utf-8")
        else:
            self._out = open(self.path, "w", encoding="utf-8", buffering=1 << 16)  # noqa: SIM115 - closed by close()
        self._flush_plain = self.path.suffix != ".gz"
        self.steps = 0

    def header(
        self,
        constants: Mapping[str, Any],
        seed: int,
        faults: Sequence[str],
        bug: str | None,
    ) -> None:
        generator = json.dumps(f"kraftcheck-reference {__version__}")
        line = (
            f'{{"kind": "header", "format": "{FORMAT}", "version": {FORMAT_VERSION}, "spec": "KRaft", '
            f'"constants": {encode_record(dict(constants))}, "seed": {seed}, "generator": {generator}, '
            f'"faults": {json.dumps(list(faults))}, "bug": {json.dumps(bug)}, "full_every": {self.full_every}}}\n'
        )
        self._out.write(line)

    def init(self, replicas: Mapping[int, Mapping[str, Any]]) -> None:
        body = ", ".join(f'"{rid}": {encode_record(dict(state))}' for rid, state in sorted(replicas.items()))
        self._last = {rid: {name: snapshot(v) for name, v in state.items()} for rid, state in replicas.items()}
        self._out.write(f'{{"kind": "init", "replicas": {{{body}}}}}\n')

    def event(
        self,
        time_ms: int,
        replica: int,
        action: str,
        params: Mapping[str, Any],
        state: Mapping[str, Any],
        sent: Sequence[Message],
        writes: Sequence[str] = (),
    ) -> None:
        self.steps += 1
        # references are to the logged values before this event: build every text first
        sent_text = ", ".join(self._message_text(m) for m in sent)
        params_text = "{" + ", ".join(encode_str(k) + ": " + (self._message_text(v) if type(v) is Message else encode(v))
                                      for k, v in params.items()) + "}"
        last = self._last.setdefault(replica, {})
        # one snapshot per variable: compared with the last logged value, then kept in its place
        taken: dict[str, Any] = {}
        full = self.full_every and self.steps % self.full_every == 0
        parts = []
        for name, value in state.items():
            scalar = type(value) in _SCALARS  # its own snapshot; its delta is the value or nothing
            cur = taken[name] = value if scalar else snapshot(value)
            if full:
                continue
            if name not in last:
                text: str | None = encode(value)
            elif scalar:
                text = None if last[name] == cur else encode(value)
            else:
                text = delta_text(last[name], value, self._slice_text, cur)
            if text is not None:
                parts.append(f'"{name}": {text}')
        change = f'"state": {encode_record(dict(state))}' if full else '"delta": {' + ", ".join(parts) + "}"
        last.update(taken)
        self._out.write(
            f'{{"kind": "event", "step": {self.steps}, "time_ms": {time_ms}, "replica": {replica}, '
            f'"action": "{action}", "params": {params_text}, '
            f'{change}, "writes": {_writes_text(writes)}, "sent": [{sent_text}]}}\n'
        )
        if self._flush_plain and self.steps % FLUSH_EVERY == 0:
            self._out.flush()

    def _slice_text(self, items: Sequence[Any], offset: int, prefer: int | None = None) -> str | None:
        """``{"#slice": [r, v, offset, n]}`` when replica ``r``'s last logged sequence ``v`` holds
        ``items`` from ``offset`` on (``prefer`` is tried first), else None."""
        n = len(items)
        if n < MIN_SLICE or offset < 0:
            return None
        first = items[0]
        order = sorted(self._last, key=lambda r: (r != prefer, r))
        for r in order:
            for name, seq in self._last[r].items():
                if (type(seq) is list and len(seq) >= offset + n and seq[offset] == first
                        and seq[offset:offset + n] == list(items)):
                    return f'{{"#slice": [{r}, {encode_str(name)}, {offset}, {n}]}}'
        return None

    def _message_text(self, m: Message) -> str:
        """A message's text, its records written as a reference where a logged log holds them
        at the fetch offset (the message's own text, the cached one, is left as it is)."""
        text = encode_message(m)
        if len(m.records) < MIN_SLICE:
            return text
        ref = self._slice_text(m.records, m.fetchOffset, m.source)
        if ref is None:
            return text
        for entry_text in ("itf", "itf_keyed"):  # the form the message was encoded in
            array = "[" + ", ".join([getattr(e, entry_text) for e in m.records]) + "]"
            at = text.find('"records": ' + array)
            if at >= 0:
                at += len('"records": ')
                return text[:at] + ref + text[at + len(array):]
        return text

    def error(
        self,
        time_ms: int,
        replica: int,
        input_kind: str,
        action: str | None,
        params: Mapping[str, Any],
        error_type: str,
        message: str,
    ) -> None:
        """The step in which the replica raised: its input (the spec action it stands for,
        when the input decides it) and the exception; the run stops after it."""
        self.steps += 1
        self._out.write(
            f'{{"kind": "error", "step": {self.steps}, "time_ms": {time_ms}, "replica": {replica}, '
            f'"input": {json.dumps(input_kind)}, "action": {json.dumps(action)}, '
            f'"params": {encode_record(dict(params))}, '
            f'"error": {{"type": {json.dumps(error_type)}, "message": {json.dumps(message)}}}}}\n'
        )

    def end(self, reason: str) -> None:
        self._out.write(f'{{"kind": "end", "steps": {self.steps}, "reason": {json.dumps(reason)}}}\n')

    def close(self) -> None:
        self._out.close()


_WRITES_TEXT: dict[tuple[str, ...], str] = {}


def _writes_text(writes: Sequence[str]) -> str:
    """JSON text of an event's ``writes`` (a handful of distinct lists, each encoded once)."""
    key = tuple(writes)
    text = _WRITES_TEXT.get(key)
    if text is None:
        text = _WRITES_TEXT[key] = json.dumps(list(key))
    return text


def encode_value(v: Any) -> str:
    """ITF text of one value (re-exported for callers that build their own lines)."""
    return encode(v)
