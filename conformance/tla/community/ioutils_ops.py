"""The IOUtils community module, native as in TLC: commands, the environment, text files."""

from __future__ import annotations

import errno
import os
import subprocess
from collections.abc import Callable
from pathlib import Path
from typing import Any

from conformance.tla.community.javaformat import java_format
from conformance.tla.stdlib import StdOp, show, want_int, want_seq, want_str
from conformance.tla.syntax import EvalError, UnsupportedError
from conformance.tla.values import Fn, Value, format_value, make_fn, make_record, type_name

# A command is a sequence of strings, the program and its arguments, run without a
# shell and without quoting; its answer is [exitValue |-> n, stdout |-> s, stderr |-> s]
# (a process ended by signal k exits with 128 + k, as Java reports it). Its environment
# is the engine's, with the given record's fields added (a value other than a string as
# TLC prints it). IOEnv is the record of the environment variables, read at each call.
# Serialize and Deserialize with [ser |-> "TXT", ...] write and read text, answering a
# record as a command does (exitValue 1 and the reason in stderr when it fails); the
# other serializers and IOSerialize/IODeserialize (Java's binary serialization of TLC's
# values) are not provided.


def _exec_result(exit_value: int, stdout: str, stderr: str) -> Fn:
    return make_record([("exitValue", exit_value), ("stdout", stdout), ("stderr", stderr)])


def _strings(v: Any, what: str, op: str) -> list[str]:
    items = want_seq(v, f"{op}: the {what}")
    for x in items:
        want_str(x, f"{op}: the element {show(x)} of the {what}")
    return list(items)


def _exec_env(env: Any, op: str) -> dict[str, str]:
    if env == ():
        return {}
    if type(env) is not Fn or not all(type(k) is str for k in env.map):
        raise EvalError(f"{op}: the environment (first argument) must be a record, got the "
                        f"{type_name(env)} {show(env)}")
    return {k: x if type(x) is str else format_value(x) for k, x in env.map.items()}


def _run(command: list[str], env: dict[str, str] | None, op: str) -> Fn:
    if not command:
        raise EvalError(f"{op}: the command is empty")
    try:
        done = subprocess.run(command, capture_output=True, stdin=subprocess.DEVNULL,
                              env=None if env is None else {**os.environ, **env}, check=False)
    except OSError as e:
        raise EvalError(f"{op}: cannot run the command {show(tuple(command))}: "
                        f"{e.strerror or e}") from None
    code = done.returncode if done.returncode >= 0 else 128 - done.returncode
    return _exec_result(code, done.stdout.decode("utf-8", errors="replace"),
                        done.stderr.decode("utf-8", errors="replace"))


def io_exec(command: Any) -> Fn:
    """``IOExec(command)``."""
    return _run(_strings(command, "command", "IOExec"), None, "IOExec")


def io_env_exec(env: Any, command: Any) -> Fn:
    """``IOEnvExec(env, command)``."""
    e = _exec_env(env, "IOEnvExec")
    return _run(_strings(command, "command", "IOEnvExec"), e, "IOEnvExec")


def _template(template: Any, parameters: Any, op: str) -> list[str]:
    parts = _strings(template, "command template", op)
    params = _strings(parameters, "parameters", op)
    return [java_format(part, params, op) for part in parts]


def io_exec_template(template: Any, parameters: Any) -> Fn:
    """``IOExecTemplate(commandTemplate, parameters)``: each part of the command filled
    with the parameters by Java's String.format."""
    return _run(_template(template, parameters, "IOExecTemplate"), None, "IOExecTemplate")


def io_env_exec_template(env: Any, template: Any, parameters: Any) -> Fn:
    """``IOEnvExecTemplate(env, commandTemplate, parameters)``."""
    e = _exec_env(env, "IOEnvExecTemplate")
    return _run(_template(template, parameters, "IOEnvExecTemplate"), e, "IOEnvExecTemplate")


def io_env() -> Value:
    """``IOEnv``: the environment variables as a record."""
    return make_fn(dict(os.environ))


def atoi(v: Any) -> int:
    """``atoi(s)``: Java's Integer.parseInt (a sign, decimal digits, 32 bits)."""
    if type(v) is str:
        digits = v[1:] if v[:1] in ("+", "-") else v
        if digits and all(c.isdecimal() for c in digits):
            n = int(v)
            if -2**31 <= n < 2**31:
                return n
    raise EvalError(f"atoi: the argument must be a string of a 32-bit integer, got the "
                    f"{type_name(v)} {show(v)}")


def zero_pad_n(n: Any, width: Any) -> str:
    """``zeroPadN(n, width)``: ToString(n) with zeros before it up to the width."""
    s = format_value(n)
    return "0" * max(0, want_int(width, "second argument of zeroPadN") - len(s)) + s


# Java charset names (and the aliases Java knows) for the text serializer
_CHARSETS = {"UTF-8": "utf-8", "UTF8": "utf-8", "US-ASCII": "ascii", "ASCII": "ascii",
             "ISO-8859-1": "latin-1", "ISO8859_1": "latin-1", "LATIN1": "latin-1",
             "UTF-16": "utf-16", "UTF-16BE": "utf-16-be", "UTF-16LE": "utf-16-le"}

_OPEN_OPTIONS = ("READ", "WRITE", "APPEND", "TRUNCATE_EXISTING", "CREATE", "CREATE_NEW",
                 "DELETE_ON_CLOSE", "SPARSE", "SYNC", "DSYNC")


class _JavaFailure(Exception):
    """What a Java exception's toString would say."""


def _java_io_error(e: OSError, path: str) -> _JavaFailure:
    kind = {errno.ENOENT: "NoSuchFileException", errno.EEXIST: "FileAlreadyExistsException",
            errno.EACCES: "AccessDeniedException", errno.EPERM: "AccessDeniedException"}.get(
        e.errno or 0)
    if kind:
        return _JavaFailure(f"java.nio.file.{kind}: {path}")
    return _JavaFailure(f"java.nio.file.FileSystemException: {path}: {e.strerror}")


def _charset(options: Fn, op: str) -> str:
    name = options.map.get("charset")
    if type(name) is not str:
        raise _JavaFailure(f"the option charset must be a string, got {show(name)}")
    codec = _CHARSETS.get(name.upper())
    if codec is None:
        raise UnsupportedError(f"{op}: the charset {name!r} is not provided (only "
                               f"{', '.join(sorted(_CHARSETS))})")
    return codec


def _serializer(options: Any, op: str) -> str:
    if type(options) is not Fn or not all(type(k) is str for k in options.map):
        raise _JavaFailure(f"the options must be a record, got the {type_name(options)} {show(options)}")
    ser = options.map.get("ser")
    if type(ser) is not str:
        raise EvalError(f"{op}: the options {show(options)} name no serializer (a string field ser)")
    if ser != "TXT":
        raise UnsupportedError(f"{op}: the serializer {ser!r} is not provided (only \"TXT\")")
    return ser


def _txt_args(payload: Any, dest: Any, options: Fn) -> tuple[str, str, tuple, str]:
    """The payload, file, open options and codec of a TXT write."""
    if type(payload) is not str or type(dest) is not str:
        bad = payload if type(payload) is not str else dest
        raise _JavaFailure(f"the payload and the file must be strings, got {show(bad)}")
    opts = options.map.get("openOptions")
    if type(opts) is not tuple or not all(type(o) is str for o in opts):
        raise _JavaFailure(f"the option openOptions must be a sequence of strings, got {show(opts)}")
    return payload, dest, opts, _charset(options, "Serialize")


def _encode(text: str, codec: str) -> bytes:
    if codec == "utf-16":
        return b"\xfe\xff" + text.encode("utf-16-be")  # Java writes a big-endian mark
    try:
        return text.encode(codec)
    except UnicodeEncodeError:
        raise _JavaFailure("java.nio.charset.UnmappableCharacterException: Input length = 1") from None


def _write_with_options(payload: str, dest: str, given: tuple, codec: str) -> None:
    for o in given:
        if o not in _OPEN_OPTIONS:
            raise _JavaFailure("java.lang.IllegalArgumentException: No enum constant "
                               f"java.nio.file.StandardOpenOption.{o}")
    opts = set(given) or {"CREATE", "TRUNCATE_EXISTING", "WRITE"}
    if "READ" in opts:
        raise _JavaFailure("java.lang.IllegalArgumentException: READ not allowed")
    if {"APPEND", "TRUNCATE_EXISTING"} <= opts:
        raise _JavaFailure("java.lang.IllegalArgumentException: APPEND + TRUNCATE_EXISTING not allowed")
    data = _encode(payload, codec)
    flags = os.O_WRONLY
    if "CREATE_NEW" in opts:
        flags |= os.O_CREAT | os.O_EXCL
    elif "CREATE" in opts:
        flags |= os.O_CREAT
    if "TRUNCATE_EXISTING" in opts:
        flags |= os.O_TRUNC
    if "APPEND" in opts:
        flags |= os.O_APPEND
    try:
        fd = os.open(dest, flags, 0o666)
        with os.fdopen(fd, "wb") as f:
            f.write(data)
        if "DELETE_ON_CLOSE" in opts:
            os.unlink(dest)
    except OSError as e:
        raise _java_io_error(e, dest) from None


def serialize(value: Any, dest: Any, options: Any) -> Fn:
    """``Serialize(value, dest, options)`` with the TXT serializer."""
    try:
        _serializer(options, "Serialize")
        args = _txt_args(value, dest, options)
    except _JavaFailure as e:
        return _exec_result(1, "", f"Serialize error invalid parameters: {e}")
    try:
        _write_with_options(*args)
    except _JavaFailure as e:
        return _exec_result(1, "", f"Serialize error writting to the file: {e}")
    return _exec_result(0, "Finish writting to the file with success!", "")


def _decode(data: bytes, codec: str) -> str:
    if codec == "utf-16" and data[:2] not in (b"\xfe\xff", b"\xff\xfe"):
        codec = "utf-16-be"  # Java reads a text without a mark as big-endian
    try:
        return data.decode(codec)
    except UnicodeDecodeError:
        raise _JavaFailure("java.nio.charset.MalformedInputException: Input length = 1") from None


def deserialize(src: Any, options: Any) -> Fn:
    """``Deserialize(src, options)`` with the TXT serializer."""
    try:
        _serializer(options, "Deserialize")
        if type(src) is not str:
            raise _JavaFailure(f"the file must be a string, got {show(src)}")
        codec = _charset(options, "Deserialize")
    except _JavaFailure as e:
        return _exec_result(1, "", f"Deserialize error invalid parameters: {e}")
    try:
        try:
            data = Path(src).read_bytes()
        except OSError as e:
            raise _java_io_error(e, src) from None
        text = _decode(data, codec)
    except _JavaFailure as e:
        return _exec_result(1, "", f"Deserialize error reading from the file: {e}")
    return _exec_result(0, text, "")


def _io_binary(op: str) -> Callable[..., Any]:
    def refuse(*_: Any) -> Any:
        raise UnsupportedError(f"{op} is not provided: TLC writes Java's binary serialization "
                               "of its values, which the engine does not reproduce")
    return refuse


OPERATORS: dict[str, StdOp] = {
    "IOExec": StdOp(io_exec, 1, pure=False),
    "IOEnvExec": StdOp(io_env_exec, 2, pure=False),
    "IOExecTemplate": StdOp(io_exec_template, 2, pure=False),
    "IOEnvExecTemplate": StdOp(io_env_exec_template, 3, pure=False),
    "IOEnv": StdOp(io_env, 0, pure=False),
    "atoi": StdOp(atoi, 1),
    "zeroPadN": StdOp(zero_pad_n, 2),
    "Serialize": StdOp(serialize, 3, pure=False),
    "Deserialize": StdOp(deserialize, 2, pure=False),
    "IOSerialize": StdOp(_io_binary("IOSerialize"), 3, pure=False),
    "IODeserialize": StdOp(_io_binary("IODeserialize"), 2, pure=False),
}
