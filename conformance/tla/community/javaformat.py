"""Java's ``String.format`` for string arguments, as TLC's CSV and IOUtils operators use it."""

from __future__ import annotations

import os
import re

from conformance.tla.syntax import EvalError, UnsupportedError

# A format specifier is %[index$][flags][width][.precision]conversion. With string
# arguments Java formats %s and %S (upper case), %b and %B ("true": the argument is not
# null), and %% and %n (the line separator); each other conversion throws. An index n$
# names the n-th argument, < the previous one's, none the next of the unnamed ones.

_JAVA_SPEC = re.compile(r"%(\d+\$|<)?([-#+ 0,(]*)(\d+)?(\.\d+)?([tT]?[a-zA-Z%])")


def java_format(template: str, args: list[str], op: str) -> str:
    """``String.format(template, args)`` for string arguments."""
    out: list[str] = []
    pos, ordinary, last = 0, 0, -1
    for m in _JAVA_SPEC.finditer(template):
        if template.find("%", pos, m.start()) >= 0:
            break  # a % before this match that begins no specifier: reported below
        out.append(template[pos:m.start()])
        pos = m.end()
        index, flags, width, precision, conv = m.groups()
        text: str
        if conv == "n" and not (index or flags or width or precision):
            text = os.linesep
        elif conv == "%" and not (index or precision or set(flags) - {"-"}):
            text = "%"
        elif conv in ("n", "%"):
            raise EvalError(f"{op}: the format specifier {m.group()!r} of {template!r} is not "
                            "one Java accepts")
        elif conv in ("s", "S", "b", "B"):
            if set(flags) - {"-"}:
                raise EvalError(f"{op}: the flags {flags!r} of {m.group()!r} in {template!r} do not "
                                "apply to a string")
            if index == "<":
                i = last
            elif index:
                i = int(index[:-1]) - 1
            else:
                i, ordinary = ordinary, ordinary + 1
            if not 0 <= i < len(args):
                raise EvalError(f"{op}: the format {template!r} has no argument for {m.group()!r} "
                                f"(it has {len(args)})")
            last = i
            text = args[i] if conv in "sS" else "true"
            if precision:
                text = text[:int(precision[1:])]
            if conv in "SB":
                text = text.upper()
        elif conv in ("h", "H"):
            raise UnsupportedError(f"{op}: the format {m.group()!r} (a Java hash code) is not "
                                   "provided")
        else:
            raise EvalError(f"{op}: the format specifier {m.group()!r} of {template!r} cannot "
                            "format a string")
        if "-" in flags and not width:
            raise EvalError(f"{op}: the format specifier {m.group()!r} of {template!r} has the "
                            "flag '-' and no width")
        if width and conv != "n":
            text = text.ljust(int(width)) if "-" in flags else text.rjust(int(width))
        out.append(text)
    rest = template[pos:]
    if "%" in rest:
        bad = rest[rest.index("%"):][:2]
        raise EvalError(f"{op}: the format {template!r} has the unknown format specifier {bad!r}")
    out.append(rest)
    return "".join(out)
