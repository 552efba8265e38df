"""The Json community module, native as in TLC (which writes and reads JSON with gson)."""

from __future__ import annotations

import json
from collections.abc import Iterable
from decimal import Decimal, InvalidOperation
from pathlib import Path
from typing import Any

from conformance.tla.community.args import read_utf8, shown_path
from conformance.tla.stdlib import LazySet, StdOp, enumerate_set, show
from conformance.tla.syntax import EvalError, UnsupportedError
from conformance.tla.values import (
    Fn,
    ModelValue,
    format_value,
    make_fn,
    sort_key,
    sorted_values,
    type_name,
)

# TLC writes JSON compactly (no spaces), escapes strings as gson does, writes a set as the
# array of its elements in TLC's order, a sequence (a function over 1..n) as an array, a
# record or other function as an object keyed by its domain (a string as itself, any
# other value as TLC prints it), a model value as the string of its name. A file name is
# resolved as java.io.File resolves it: from the working directory.

_JSON_ESCAPES = {'"': '\\"', "\\": "\\\\", "\t": "\\t", "\b": "\\b", "\n": "\\n", "\r": "\\r",
                 "\f": "\\f", "\u2028": "\\u2028", "\u2029": "\\u2029"}


def _json_string(s: str) -> str:
    out = []
    for ch in s:
        esc = _JSON_ESCAPES.get(ch)
        if esc is None and ch < " ":
            esc = f"\\u{ord(ch):04x}"
        out.append(esc if esc is not None else ch)
    return '"' + "".join(out) + '"'


def _json_array(items: Iterable[Any]) -> str:
    return "[" + ",".join(_json(x) for x in items) + "]"


def _json_object(f: Fn) -> str:
    fields: dict[str, str] = {}
    for k, x in sorted(f.map.items(), key=lambda kv: sort_key(kv[0])):
        fields[k if type(k) is str else format_value(k)] = _json(x)
    return "{" + ",".join(f"{_json_string(k)}:{x}" for k, x in fields.items()) + "}"


def _json(v: Any) -> str:
    t = type(v)
    if t is bool:
        return "true" if v else "false"
    if t is int:
        return str(v)
    if t is str:
        return _json_string(v)
    if t is ModelValue:
        return _json_string(v.name)
    if t is tuple:
        return _json_array(v)
    if t is Fn:
        return _json_object(v)
    if t is frozenset or t is LazySet:
        return _json_array(sorted_values(enumerate_set(v)))
    raise EvalError(f"cannot convert the {type_name(v)} {show(v)} to JSON")


def to_json(v: Any) -> str:
    """``ToJson(v)``."""
    return _json(v)


def to_json_array(v: Any) -> str:
    """``ToJsonArray(v)``: a sequence or a set as an array. TLC writes a function that is
    not a sequence as an object, but refuses a record: the two are one value here."""
    if type(v) is Fn:
        if all(type(k) is str for k in v.map):
            raise UnsupportedError(
                f"ToJsonArray of the record {show(v)}: TLC refuses a record built as one and "
                "writes an object for a function with string arguments, which are the same value")
        return _json_object(v)
    if type(v) is tuple or type(v) is frozenset or type(v) is LazySet:
        return _json(v)
    raise EvalError(f"ToJsonArray cannot convert the {type_name(v)} {show(v)} to a JSON array")


def to_json_object(v: Any) -> str:
    """``ToJsonObject(v)``: a record or function as an object. TLC writes a sequence built
    as a tuple with keys from "0" but one built as a function as an array, which are the
    same value here: refused."""
    if type(v) is tuple:
        raise UnsupportedError(
            f"ToJsonObject of the sequence {show(v)}: TLC writes an object keyed from \"0\" for a "
            "tuple and an array for a function over 1..n, which are the same value")
    if type(v) is Fn:
        return _json_object(v)
    raise EvalError(f"ToJsonObject cannot convert the {type_name(v)} {show(v)} to a JSON object")


def _json_path(path: Any, op: str) -> Path:
    if type(path) is not str:
        raise EvalError(f"the first argument of {op} must be a string (a file name), got {show(path)}")
    return Path(path)


def _json_sequence(v: Any, op: str) -> tuple:
    if type(v) is not tuple:
        raise EvalError(f"The second argument of {op} should be a sequence, but instead it is:\n"
                        f"{show(v)}")
    return v


def _json_write(path: Path, text: str, op: str) -> bool:
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    except OSError as e:
        raise EvalError(f"{op}: cannot write the file {shown_path(path)}: {e.strerror or e}") from None
    return True


def json_serialize(path: Any, v: Any) -> bool:
    """``JsonSerialize(file, seq)``: the sequence as one JSON array, an element a line."""
    p, items = _json_path(path, "JsonSerialize"), _json_sequence(v, "JsonSerialize")
    return _json_write(p, "[\n" + ",\n".join(_json(x) for x in items) + "\n]\n", "JsonSerialize")


def nd_json_serialize(path: Any, v: Any) -> bool:
    """``ndJsonSerialize(file, seq)``: each element of the sequence as JSON on its line."""
    p, items = _json_path(path, "ndJsonSerialize"), _json_sequence(v, "ndJsonSerialize")
    return _json_write(p, "".join(_json(x) + "\n" for x in items), "ndJsonSerialize")


def _java_int(text: str) -> int:
    """A JSON number as TLC reads it (gson's ``getAsInt``): a fraction truncated towards
    zero, then the low 32 bits as a signed integer."""
    try:
        n = int(text) if text.lstrip("-").isdigit() else int(Decimal(text))
    except (ValueError, InvalidOperation, OverflowError):
        raise ValueError(f"the number {text} has no integer value") from None
    return (n + 2**31) % 2**32 - 2**31


def _json_refuse_constant(name: str) -> Any:
    raise ValueError(f"{name} is not a JSON number")


def _json_value(x: Any) -> Any:
    """A parsed JSON value as TLC builds it: arrays are tuples, objects records."""
    if x is None:
        raise ValueError("null has no TLA+ value")
    if isinstance(x, list):
        return tuple(_json_value(e) for e in x)
    if isinstance(x, dict):
        return make_fn({k: _json_value(e) for k, e in x.items()})
    return x  # bool, int (numbers are read by _java_int) or str


def _json_parse(text: str) -> Any:
    return _json_value(json.loads(text, parse_int=_java_int, parse_float=_java_int,
                                  parse_constant=_json_refuse_constant))


def _json_read(path: Path, op: str) -> str:
    """The file's text, its line ends made ``\\n`` (a lone CR too)."""
    return read_utf8(path, op).replace("\r\n", "\n").replace("\r", "\n")


def json_deserialize(path: Any) -> Any:
    """``JsonDeserialize(file)``: the one JSON value the file holds."""
    p = _json_path(path, "JsonDeserialize")
    text = _json_read(p, "JsonDeserialize")
    if not text.strip():
        raise EvalError(f"JsonDeserialize: the file {shown_path(p)} holds no JSON value")
    try:
        return _json_parse(text)
    except json.JSONDecodeError as e:
        raise EvalError(f"JsonDeserialize: the file {shown_path(p)} is not JSON: {e.msg} "
                        f"(line {e.lineno}, column {e.colno})") from None
    except ValueError as e:
        raise EvalError(f"JsonDeserialize: the file {shown_path(p)}: {e}") from None


def nd_json_deserialize(path: Any) -> tuple:
    """``ndJsonDeserialize(file)``: the JSON value of each non-blank line, as a sequence."""
    p = _json_path(path, "ndJsonDeserialize")
    values = []
    for n, line in enumerate(_json_read(p, "ndJsonDeserialize").split("\n"), 1):
        line = line.strip("".join(chr(c) for c in range(33)))  # Java's String.trim
        if not line:
            continue
        try:
            values.append(_json_parse(line))
        except json.JSONDecodeError as e:
            raise EvalError(f"ndJsonDeserialize: the file {shown_path(p)}, line {n}, is not JSON: {e.msg} "
                            f"(column {e.colno})") from None
        except ValueError as e:
            raise EvalError(f"ndJsonDeserialize: the file {shown_path(p)}, line {n}: {e}") from None
    return tuple(values)


OPERATORS: dict[str, StdOp] = {
    "ToJson": StdOp(to_json, 1),
    "ToJsonArray": StdOp(to_json_array, 1),
    "ToJsonObject": StdOp(to_json_object, 1),
    "JsonSerialize": StdOp(json_serialize, 2, pure=False),
    "JsonDeserialize": StdOp(json_deserialize, 1, pure=False),
    "ndJsonSerialize": StdOp(nd_json_serialize, 2, pure=False),
    "ndJsonDeserialize": StdOp(nd_json_deserialize, 1, pure=False),
}
