"""The CSV community module, native as in TLC."""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import Any

from conformance.tla.community.args import read_utf8, shown_path
from conformance.tla.community.javaformat import java_format
from conformance.tla.stdlib import StdOp, show, want_seq, want_str
from conformance.tla.syntax import EvalError, UnsupportedError
from conformance.tla.values import format_value, make_record

# CSVWrite fills the template with the elements of the sequence as TLC prints them
# (a string with its quotes) and appends the line, with the line separator, to the file
# (created if missing, its folder not). CSVRead splits each line of the file at the
# delimiter, a Java regular expression (as String.split: trailing empty fields dropped),
# into a record with the given field names, every field a string; CSVRecords counts the
# lines. A missing file holds no records. A file name is resolved from the working
# directory, as java.io.File resolves it.


def _lines(path: Path, op: str) -> list[str]:
    """The lines of a UTF-8 file as Java's ``readAllLines`` splits them."""
    text = read_utf8(path, op)
    lines = re.split(r"\r\n|\r|\n", text)
    if lines[-1] == "":
        lines.pop()
    return lines


def java_split(line: str, pattern: re.Pattern[str]) -> list[str]:
    """Java's ``line.split(regex)``: no empty first field for a match of nothing at the
    start, trailing empty fields dropped, the whole line when nothing matches."""
    fields, start = [], 0
    for m in pattern.finditer(line):
        if m.end() == 0:
            continue
        fields.append(line[start:m.start()])
        start = m.end()
    if not fields:
        return [line]
    fields.append(line[start:])
    while fields and fields[-1] == "":
        fields.pop()
    return fields


def csv_write(template: Any, val: Any, file: Any) -> bool:
    """``CSVWrite(template, val, file)``."""
    t = want_str(template, "CSVWrite: the template (first argument)")
    items = want_seq(val, "CSVWrite: the second argument")
    p = Path(want_str(file, "CSVWrite: the file name (third argument)"))
    line = java_format(t, [format_value(x) for x in items], "CSVWrite") + os.linesep
    try:
        with p.open("ab") as f:
            f.write(line.encode("utf-8"))
    except OSError as e:
        raise EvalError(f"CSVWrite: cannot write the file {shown_path(p)}: {e.strerror or e}") from None
    return True


def csv_read(columns: Any, delimiter: Any, file: Any) -> tuple:
    """``CSVRead(columns, delimiter, file)``."""
    names = want_seq(columns, "CSVRead: the columns (first argument)")
    for n in names:
        want_str(n, "CSVRead: the column name")
    if len(set(names)) != len(names):
        raise EvalError(f"CSVRead: the columns {show(names)} name a field twice")
    delim = want_str(delimiter, "CSVRead: the delimiter (second argument)")
    p = Path(want_str(file, "CSVRead: the file name (third argument)"))
    if not p.exists():
        return ()
    try:
        pattern = re.compile(delim)
    except re.error as e:
        raise EvalError(f"CSVRead: the delimiter {delim!r} is not a regular expression: {e}") from None
    records = []
    for i, line in enumerate(_lines(p, "CSVRead"), 1):
        fields = java_split(line, pattern)
        if len(fields) != len(names):
            raise EvalError(f"CSVRead: line {i} of the file {shown_path(p)} has {len(fields)} "
                            f"field(s) for the {len(names)} column(s) {show(names)}")
        records.append(make_record(zip(names, fields, strict=True)))
    return tuple(records)


def csv_records(file: Any) -> int:
    """``CSVRecords(file)``: the number of lines of the file, 0 if it does not exist."""
    p = Path(want_str(file, "CSVRecords: the file name"))
    if not p.exists():
        return 0
    return len(_lines(p, "CSVRecords"))


def _csv_write_record(*_: Any) -> Any:
    raise UnsupportedError("CSVWriteRecord is not provided: the TLC implementation we could "
                           "check defines no override for it")


OPERATORS: dict[str, StdOp] = {
    "CSVWrite": StdOp(csv_write, 3, pure=False),
    "CSVRead": StdOp(csv_read, 3, pure=False),
    "CSVRecords": StdOp(csv_records, 1, pure=False),
    "CSVWriteRecord": StdOp(_csv_write_record, 4, pure=False),
}
