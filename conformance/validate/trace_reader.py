"""Stream a KRaft trace (NDJSON, optionally gzip) line by line, with errors naming file and line.

The format is described in ``traces/FORMAT.md``: a header line, an init line, one event line
per protocol step (``step`` counting from 1 consecutively), an optional error line (the step
in which the replica raised, kept in ``raised``) and an optional end line. The
reader checks the shape of every line; whether the names and values fit the spec is the
validator's business. Format 1 events carry the stepping replica's full state; format 2
events carry either the full state or only its changes (``delta``), which the reader applies
to the replica's previous values, so every ``TraceEvent`` has the full state either way;
format 3 events may give logged entries as a reference (``#slice``) to a replica's log as it
stood before the event, which the reader resolves.
Nothing but the current line and each replica's current values is held in memory.
"""

from __future__ import annotations

import gzip
import io
import json
import zlib
from collections.abc import Generator, Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TextIO

from conformance.tla.itf import ItfError, decode
from conformance.tla.values import Fn, Value, make_fn
from conformance.validate.fast_decode import IncrementalDecoder, NeedsSlowPath, Tags, decode_fast
from conformance.validate.legacy import (
    Upgrade,
    is_legacy,
    with_persistence_default,
    with_static_constants,
)
from conformance.validate.text_reuse import ArrayReuse, Reused

TRACE_FORMAT = "kraft-trace"
SUPPORTED_VERSIONS = (1, 2, 3)
SLICES_FROM = 3  # the first format version whose events may refer to logged sequences (#slice)
MAX_TIME_MS = 2**63 - 1  # a Java long, as in Kafka's clocks


# The durable files a trace's ``writes`` may name (spec/KRaft.tla's DurableFiles).
DURABLE_FILES = ("quorumState", "log")


class TraceFormatError(Exception):
    """Bad input: the trace cannot be read. Names the file and the 1-based line."""

    def __init__(self, file: str, line: int, message: str) -> None:
        super().__init__(f"{file}:{line}: {message}")
        self.file = file
        self.line = line
        self.message = message


@dataclass(frozen=True)
class TraceHeader:
    spec: str
    version: int
    constants: dict[str, Value]
    seed: Any
    generator: str
    faults: tuple[Any, ...]
    bug: str | None
    line: int


@dataclass(frozen=True)
class TraceInit:
    replicas: dict[int, dict[str, Value]]
    line: int


@dataclass(frozen=True)
class TraceEvent:
    step: int
    replica: int
    action: str
    params: dict[str, Value]
    state: dict[str, Value]
    sent: tuple[Value, ...]
    line: int
    time_ms: int | None = None
    # The durable writes the step completed before its sends, in order (None: not logged).
    writes: tuple[str, ...] | None = None


@dataclass(frozen=True)
class TraceRaised:
    """The error line: the step in which the replica raised, its input and the exception."""

    step: int
    replica: int
    input: str
    action: str | None
    params: dict[str, Value]
    error_type: str
    message: str
    line: int
    time_ms: int | None = None

    def describe(self) -> str:
        return f"replica {self.replica} raised {self.error_type}: {self.message}"


@dataclass(frozen=True)
class TraceEnd:
    steps: int
    reason: str
    line: int


def _open_text(source: Path | bytes) -> TextIO:
    """Text of a trace file or of a trace's raw bytes, gunzipped when it starts with gzip's magic."""
    if isinstance(source, bytes):
        raw = io.BytesIO(source)
        if source[:2] == b"\x1f\x8b":
            return io.TextIOWrapper(gzip.GzipFile(fileobj=raw, mode="rb"), encoding="utf-8")
        return io.TextIOWrapper(raw, encoding="utf-8")
    with source.open("rb") as probe:
        magic = probe.read(2)
    if magic == b"\x1f\x8b":
        return io.TextIOWrapper(gzip.open(source, "rb"), encoding="utf-8")
    return source.open("r", encoding="utf-8")


def _lines(source: Path | bytes | Iterable[str], name: str) -> Generator[tuple[int, str], None, None]:
    """Numbered lines; decoding and gzip errors become ``TraceFormatError``."""
    if isinstance(source, (Path, bytes)):
        try:
            handle = _open_text(source)
        except OSError as exc:
            raise TraceFormatError(name, 0, f"cannot open: {exc.strerror or exc}") from None
        with handle:
            lineno = 0
            try:
                for lineno, text in enumerate(handle, 1):
                    yield lineno, text
            except (EOFError, zlib.error, gzip.BadGzipFile) as exc:
                raise TraceFormatError(name, lineno + 1, f"corrupt or truncated gzip stream ({exc})") from None
            except UnicodeDecodeError as exc:
                raise TraceFormatError(name, lineno + 1, f"not UTF-8 text ({exc.reason})") from None
    else:
        yield from enumerate(source, 1)


class TraceStream:
    """A trace opened for streaming: ``header`` and ``init`` are read at once, ``events()`` lazily.

    ``source`` is a path, the file's raw bytes (plain or gzip, as a Spark job reads them) or its lines."""

    def __init__(self, source: Path | str | bytes | Iterable[str], name: str | None = None) -> None:
        if isinstance(source, str):
            source = Path(source)
        self.name = name if name is not None else (str(source) if isinstance(source, Path) else "<trace>")
        self._lines = _lines(source, self.name)
        self._last_line = 0
        self._incremental = IncrementalDecoder()
        self._reuse = ArrayReuse()
        self.end: TraceEnd | None = None
        self.raised: TraceRaised | None = None
        self._legacy = False
        self._upgrade = Upgrade()
        self.header = self._read_header()
        self.init = self._read_init()
        self._events_started = False
        self._last_time: int | None = None
        self._current: dict[int, dict[str, Value]] = {rid: dict(v) for rid, v in self.init.replicas.items()}
        self._slice_tags: Tags = {"#slice": self._slice}

    # -- helpers --------------------------------------------------------------------------------

    def error(self, line: int, message: str) -> TraceFormatError:
        return TraceFormatError(self.name, line, message)

    def _next_object(self, what: str, reuse: bool = False) -> tuple[int, dict[str, Any]] | None:
        for lineno, text in self._lines:
            self._last_line = lineno
            if not text.strip():
                raise self.error(lineno, f"empty line where {what} was expected")
            try:
                obj = self._reuse.loads(text) if reuse else json.loads(text)
            except json.JSONDecodeError as exc:
                truncated = " (truncated line?)" if not text.endswith("\n") else ""
                raise self.error(lineno, f"invalid JSON at column {exc.colno}: {exc.msg}{truncated}") from None
            except ValueError as exc:  # e.g. an integer literal of thousands of digits
                raise self.error(lineno, f"unreadable JSON: {exc}") from None
            if not isinstance(obj, dict):
                raise self.error(lineno, f"expected a JSON object ({what}), got {type(obj).__name__}")
            if self._legacy:
                self._upgrade(obj)
            return lineno, obj
        return None

    def _field(self, obj: dict[str, Any], key: str, kind: type | tuple[type, ...], line: int) -> Any:
        if key not in obj:
            raise self.error(line, f'missing field "{key}"')
        value = obj[key]
        if not isinstance(value, kind) or (kind is int and isinstance(value, bool)):
            names = kind.__name__ if isinstance(kind, type) else " or ".join(k.__name__ for k in kind)
            raise self.error(line, f'field "{key}" must be {names}, got {json.dumps(value)[:60]}')
        return value

    def _decode(self, obj: Any, path: str, line: int, key: Any = None, tags: Tags | None = None) -> Value:
        if type(obj) is Reused:
            if key is not None:
                self._incremental.forget(key)
            return obj.value
        try:
            if key is not None:
                return self._incremental.decode(key, obj)
            return decode_fast(obj, self._incremental.shared, tags)
        except NeedsSlowPath:
            pass
        except TypeError as exc:
            raise self.error(line, f"bad value at {path}: {exc}") from None
        except ItfError as exc:  # a bad reference
            raise self.error(line, f"bad value at {path}: {exc}") from None
        try:
            return decode(obj, where=path, tags=tags)
        except ItfError as exc:
            raise self.error(line, f"bad value encoding: {exc}") from None
        except TypeError as exc:  # unhashable combinations, e.g. a set of records holding sets of sets
            raise self.error(line, f"bad value at {path}: {exc}") from None

    def _decode_vars(self, obj: Any, path: str, line: int, replica: int) -> dict[str, Value]:
        if not isinstance(obj, dict):
            raise self.error(line, f"{path} must be an object of variables")
        return {k: self._decode(v, f"{path}.{k}", line, (replica, k)) for k, v in obj.items()}

    # -- the fixed lines ------------------------------------------------------------------------

    def _read_header(self) -> TraceHeader:
        got = self._next_object("the header")
        if got is None:
            raise self.error(1, "empty trace: missing header line")
        line, obj = got
        if obj.get("kind") != "header":
            raise self.error(line, f'missing header: the first line has kind {json.dumps(obj.get("kind"))}, expected "header"')
        fmt = obj.get("format")
        if fmt != TRACE_FORMAT:
            raise self.error(line, f'not a {TRACE_FORMAT} trace (format {json.dumps(fmt)})')
        version = self._field(obj, "version", int, line)
        if version not in SUPPORTED_VERSIONS:
            raise self.error(line, f"unsupported trace format version {version} (supported: {SUPPORTED_VERSIONS})")
        spec = self._field(obj, "spec", str, line)
        consts = self._field(obj, "constants", dict, line)
        if is_legacy(spec, consts):
            self._legacy = True
            self._upgrade = Upgrade()
            self._reuse.prepare = self._upgrade
            consts = with_static_constants(consts)
        if spec == "KRaft" and "Voters" in consts:
            consts = with_persistence_default(consts)
        constants = {k: self._decode(v, f"constants.{k}", line) for k, v in consts.items()}
        faults = obj.get("faults", [])
        bug = obj.get("bug")
        if bug is not None and not isinstance(bug, str):
            raise self.error(line, 'field "bug" must be null or a string')
        return TraceHeader(
            spec=spec, version=version, constants=constants, seed=obj.get("seed"),
            generator=str(obj.get("generator", "")),
            faults=tuple(faults) if isinstance(faults, list) else (faults,), bug=bug, line=line,
        )

    def _read_init(self) -> TraceInit:
        got = self._next_object("the init line")
        if got is None:
            raise self.error(self._last_line + 1, "missing init line after the header")
        line, obj = got
        if obj.get("kind") != "init":
            raise self.error(line, f'expected the init line (kind "init"), got kind {json.dumps(obj.get("kind"))}')
        reps = self._field(obj, "replicas", dict, line)
        if not reps:
            raise self.error(line, "init line lists no replicas")
        replicas: dict[int, dict[str, Value]] = {}
        names: set[str] | None = None
        for key, vars_obj in reps.items():
            rid = self._replica_id(key, line)
            replicas[rid] = self._decode_vars(vars_obj, f"replicas.{key}", line, rid)
            if names is None:
                names = set(replicas[rid])
            elif set(replicas[rid]) != names:
                diff = sorted(names.symmetric_difference(replicas[rid]))
                raise self.error(line, f"replica {key} logs different variables than the others: {diff}")
        return TraceInit(replicas=replicas, line=line)

    def _replica_id(self, key: str, line: int) -> int:
        try:
            return int(key)
        except ValueError:
            raise self.error(line, f"replica key {key!r} is not an integer id") from None

    def close(self) -> None:
        """Close the underlying file (a validation may stop before the end of the trace)."""
        self._lines.close()

    def adopt(self, replica: int, values: dict[str, Value]) -> None:
        """Reuse ``values`` (equal to what was decoded last for ``replica``) for later lines, so
        that unchanged or grown values share their parts with the spec's states and compare by
        identity."""
        for name, value in values.items():
            self._incremental.adopt((replica, name), value)
        self._reuse.adopt(replica, values)
        current = self._current.get(replica)
        if current is not None:
            for name, value in values.items():
                if name in current:
                    current[name] = value

    # -- events ---------------------------------------------------------------------------------

    def events(self) -> Iterator[TraceEvent]:
        """The event lines in order; checks consecutive steps and the optional end line."""
        if self._events_started:
            raise RuntimeError("events() of a trace stream can be iterated once")
        self._events_started = True
        expected = 1
        while True:
            got = self._next_object("an event", reuse=True)
            if got is None:
                return
            line, obj = got
            if self.end is not None:
                raise self.error(line, f"line after the end line (line {self.end.line})")
            kind = obj.get("kind")
            if self.raised is not None and kind != "end":
                raise self.error(line, f"only the end line may follow the error line (line {self.raised.line})")
            if kind == "end":
                steps = self._field(obj, "steps", int, line)
                if steps != expected - 1:
                    raise self.error(line, f"end line says {steps} steps, the trace has {expected - 1}")
                self.end = TraceEnd(steps=steps, reason=str(obj.get("reason", "")), line=line)
                continue
            if kind not in ("event", "error"):
                raise self.error(line, f'expected an event (kind "event" or "error"), got kind {json.dumps(kind)}')
            step = self._field(obj, "step", int, line)
            if step != expected:
                raise self.error(line, f"non-consecutive step: expected step {expected}, got {step}")
            expected += 1
            if kind == "error":
                self.raised = self._raised(obj, line, step)
                continue
            yield self._event(obj, line, step)

    def _event(self, obj: dict[str, Any], line: int, step: int) -> TraceEvent:
        replica = self._field(obj, "replica", int, line)
        if replica not in self.init.replicas:
            raise self.error(line, f"replica {replica} is not one of the init line's replicas {sorted(self.init.replicas)}")
        action = self._field(obj, "action", str, line)
        params_obj = self._field(obj, "params", dict, line)
        tags = self._slice_tags if self.header.version >= SLICES_FROM else None
        params = {k: self._decode(v, f"params.{k}", line, tags=tags) for k, v in params_obj.items()}
        sent_obj = self._field(obj, "sent", list, line)
        sent = tuple(self._decode(m, f"sent[{i}]", line, tags=tags) for i, m in enumerate(sent_obj))
        if self.header.version >= 2 and "delta" in obj:
            if "state" in obj:
                raise self.error(line, 'an event carries either "state" or "delta", not both')
            state = self._apply_delta(self._field(obj, "delta", dict, line), replica, line)
        else:
            state = self._decode_vars(self._field(obj, "state", dict, line), "state", line, replica)
            self._reuse.note(replica, state)
        self._current[replica] = state
        expected_vars = self.init.replicas[replica].keys()
        if state.keys() != expected_vars:
            missing = sorted(set(expected_vars) - set(state))
            extra = sorted(set(state) - set(expected_vars))
            parts = ([f"missing {missing}"] if missing else []) + ([f"unknown {extra}"] if extra else [])
            raise self.error(line, f"state of step {step} must list every per-replica variable: {'; '.join(parts)}")
        return TraceEvent(
            step=step, replica=replica, action=action, params=params, state=state, sent=sent,
            line=line, time_ms=self._time_ms(obj, line), writes=self._writes(obj, line),
        )

    def _raised(self, obj: dict[str, Any], line: int, step: int) -> TraceRaised:
        replica = self._field(obj, "replica", int, line)
        if replica not in self.init.replicas:
            raise self.error(line, f"replica {replica} is not one of the init line's replicas {sorted(self.init.replicas)}")
        action = self._field(obj, "action", (str, type(None)), line)
        params_obj = self._field(obj, "params", dict, line)
        params = {k: self._decode(v, f"params.{k}", line) for k, v in params_obj.items()}
        error = self._field(obj, "error", dict, line)
        error_type = self._field(error, "type", str, line)
        message = self._field(error, "message", str, line)
        return TraceRaised(
            step=step, replica=replica, input=self._field(obj, "input", str, line), action=action, params=params,
            error_type=error_type, message=message, line=line, time_ms=self._time_ms(obj, line),
        )

    def _writes(self, obj: dict[str, Any], line: int) -> tuple[str, ...] | None:
        """The optional ``writes`` field: distinct names of durable files, in order."""
        if "writes" not in obj:
            return None
        writes = obj["writes"]
        if type(writes) is not list or not all(type(w) is str for w in writes):
            raise self.error(line, 'field "writes" must be a list of file names (strings)')
        unknown = [w for w in writes if w not in DURABLE_FILES]
        if unknown or len(set(writes)) != len(writes):
            raise self.error(line, f'field "writes" must list distinct files among {list(DURABLE_FILES)}, got {writes}')
        return tuple(writes)

    def _apply_delta(self, delta: dict[str, Any], replica: int, line: int) -> dict[str, Value]:
        """The replica's state after applying a format-2 ``delta`` to its previous values."""
        state = dict(self._current[replica])
        for name, change in delta.items():
            if name not in state:
                raise self.error(line, f"delta.{name}: not a variable of the init line {sorted(state)}")
            state[name] = self._changed(state[name], change, f"delta.{name}", line)
            # the texts remembered from an earlier full state no longer describe the value
            self._incremental.forget((replica, name))
            self._reuse.forget(replica, name)
        return state

    def _changed(self, prev: Value, change: Any, path: str, line: int) -> Value:
        if type(change) is dict and set(change) == {"#keep", "#append"}:
            keep, append = change["#keep"], change["#append"]
            if type(prev) is not tuple:
                raise self.error(line, f"{path}: #keep/#append applied to a value that is not a sequence")
            if type(keep) is not int or not 0 <= keep <= len(prev):
                raise self.error(line, f"{path}.#keep must be an integer in 0..{len(prev)}, got {json.dumps(keep)[:40]}")
            if type(append) is dict and self.header.version >= SLICES_FROM:
                added = self._decode(append, f"{path}.#append", line, tags=self._slice_tags)
                if type(added) is not tuple:
                    raise self.error(line, f"{path}.#append must be a JSON array or a #slice")
                return prev[:keep] + added
            if type(append) is not list:
                raise self.error(line, f"{path}.#append must be a JSON array")
            return prev[:keep] + tuple(self._decode(x, f"{path}.#append[{i}]", line) for i, x in enumerate(append))
        if type(change) is dict and set(change) == {"#update"}:
            pairs = change["#update"]
            if not isinstance(prev, Fn | tuple):
                raise self.error(line, f"{path}: #update applied to a value that is not a function")
            if type(pairs) is not list or not all(type(p) is list and len(p) == 2 for p in pairs):
                raise self.error(line, f"{path}.#update must be a JSON array of [key, value] pairs")
            # a function over 1..n is a sequence in the engine's values
            mapping = dict(enumerate(prev, 1)) if isinstance(prev, tuple) else dict(prev.map)
            for i, (k, v) in enumerate(pairs):
                key = self._decode(k, f"{path}.#update[{i}][0]", line)
                if key not in mapping:
                    raise self.error(line, f"{path}.#update[{i}]: key {json.dumps(k)[:40]} is not in the function's domain")
                mapping[key] = self._decode(v, f"{path}.#update[{i}][1]", line)
            return make_fn(mapping)
        return self._decode(change, path, line)

    def _slice(self, inner: Any, where: str) -> Value:
        """The value of ``{"#slice": [r, v, a, n]}``: the ``n`` elements after the first ``a``
        of replica ``r``'s sequence variable ``v`` as it stood before the current event."""
        if not (type(inner) is list and len(inner) == 4 and type(inner[0]) is int and type(inner[1]) is str
                and type(inner[2]) is int and type(inner[3]) is int):
            raise ItfError(f"{where} must be [replica, variable, offset, count], got {json.dumps(inner)[:60]}")
        replica, name, offset, count = inner
        values = self._current.get(replica)
        if values is None:
            raise ItfError(f"{where}: replica {replica} is not one of the init line's replicas {sorted(self._current)}")
        seq = values.get(name)
        if type(seq) is not tuple:
            raise ItfError(f"{where}: replica {replica} has no sequence variable {name!r}")
        if not (offset >= 0 and count >= 1 and offset + count <= len(seq)):
            raise ItfError(f"{where}: elements {offset + 1}..{offset + count} of replica {replica}'s {name}, "
                           f"which has {len(seq)}")
        return seq[offset:offset + count]

    def _time_ms(self, obj: dict[str, Any], line: int) -> int | None:
        """The event's virtual time: optional, but once given an integer in
        ``0..MAX_TIME_MS`` on every later event, never going backwards."""
        if "time_ms" not in obj:
            if self._last_time is not None:
                raise self.error(line, f'missing field "time_ms" (earlier events have it; last {self._last_time})')
            return None
        time_ms = self._field(obj, "time_ms", int, line)
        if not 0 <= time_ms <= MAX_TIME_MS:
            raise self.error(line, f'field "time_ms" must be in 0..{MAX_TIME_MS}, got {str(time_ms)[:40]}')
        if self._last_time is not None and time_ms < self._last_time:
            raise self.error(line, f'field "time_ms" goes backwards: {time_ms} after {self._last_time}')
        self._last_time = time_ms
        return time_ms


def iter_trace_files(paths: Iterable[Path | str]) -> Iterator[Path]:
    """Trace files under the given paths (directories are searched recursively), sorted."""
    for p in paths:
        path = Path(p)
        if path.is_dir():
            found = sorted(
                q for q in path.rglob("*") if q.is_file() and (q.name.endswith(".ndjson") or q.name.endswith(".ndjson.gz"))
            )
            yield from found
        else:
            yield path
