"""Apalache's type syntax (ADR-002 / ADR-014): parsing ``@type:`` annotations and
``@typeAlias:`` declarations, and checking runtime values against the types.

Types: ``Int``, ``Bool``, ``Str``, uninterpreted ``UPPER_CASE``, type variables ``a``,
``Set(T)``, ``Seq(T)``, ``T -> T``, ``<<T, T>>``, records ``{f: T, ...}`` and old-style
``[f: T, ...]`` (optionally open with a row variable ``| r``), variants
``A(T) | B(T)`` (optionally ``| r``), operator types ``(T, T) => T`` and aliases
``$name`` declared by ``@typeAlias: name = T;``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cached_property
from itertools import compress
from operator import is_not
from typing import Any

from conformance.tla.values import Fn, ModelValue, format_value, same_value, type_name


class TypeSyntaxError(ValueError):
    """An annotation that is not a valid Apalache type; ``offset`` is the character."""

    def __init__(self, message: str, offset: int) -> None:
        super().__init__(message)
        self.offset = offset


@dataclass(frozen=True)
class Type:
    """Base of type terms."""


@dataclass(frozen=True)
class TPrim(Type):
    name: str  # "Int" | "Bool" | "Str"


@dataclass(frozen=True)
class TConst(Type):
    name: str  # uninterpreted type


@dataclass(frozen=True)
class TVar(Type):
    name: str


@dataclass(frozen=True)
class TSet(Type):
    elem: Type


@dataclass(frozen=True)
class TSeq(Type):
    elem: Type


@dataclass(frozen=True)
class TFun(Type):
    arg: Type
    res: Type


@dataclass(frozen=True)
class TTuple(Type):
    items: tuple[Type, ...]


@dataclass(frozen=True)
class TRec(Type):
    fields: tuple[tuple[str, Type], ...]
    row: str | None

    @cached_property
    def names(self) -> frozenset[str]:
        """The field names (computed once)."""
        return frozenset(f for f, _ in self.fields)


@dataclass(frozen=True)
class TVariant(Type):
    options: tuple[tuple[str, Type], ...]
    row: str | None


@dataclass(frozen=True)
class TOper(Type):
    args: tuple[Type, ...]
    res: Type


@dataclass(frozen=True)
class TAlias(Type):
    name: str


def show(t: Type) -> str:
    """Apalache syntax of a type."""
    if isinstance(t, (TPrim, TConst, TVar)):
        return t.name
    if isinstance(t, TAlias):
        return "$" + t.name
    if isinstance(t, TSet):
        return f"Set({show(t.elem)})"
    if isinstance(t, TSeq):
        return f"Seq({show(t.elem)})"
    if isinstance(t, TFun):
        arg = show(t.arg)
        if isinstance(t.arg, (TFun, TOper)):
            arg = f"({arg})"
        return f"{arg} -> {show(t.res)}"
    if isinstance(t, TTuple):
        return "<<" + ", ".join(show(x) for x in t.items) + ">>"
    if isinstance(t, TRec):
        body = ", ".join(f"{f}: {show(x)}" for f, x in t.fields)
        return "{" + body + (f" | {t.row}" if t.row else "") + "}"
    if isinstance(t, TVariant):
        parts = [f"{tag}({show(x)})" for tag, x in t.options]
        if t.row:
            parts.append(t.row)
        return " | ".join(parts)
    if isinstance(t, TOper):
        return "(" + ", ".join(show(x) for x in t.args) + f") => {show(t.res)}"
    raise TypeError(t)


# ---------------------------------------------------------------------------
# Parsing
# ---------------------------------------------------------------------------

_TOKEN = re.compile(r"\s*(?:(<<|>>|->|=>|[()\[\]{},:|])|(\$?[A-Za-z_][A-Za-z0-9_]*))")
_UPPER = re.compile(r"[A-Z][A-Z0-9_]*$")
_LOWER = re.compile(r"[a-z]$")


class _TypeParser:
    def __init__(self, text: str) -> None:
        self.text = text
        self.toks: list[tuple[str, int]] = []
        pos = 0
        while pos < len(text):
            if text[pos:].strip() == "":
                break
            m = _TOKEN.match(text, pos)
            if m is None:
                off = pos + len(text[pos:]) - len(text[pos:].lstrip())
                raise TypeSyntaxError(f"unexpected character {text[off]!r} in type", off)
            tok = m.group(1) or m.group(2)
            self.toks.append((tok, m.start(1) if m.group(1) else m.start(2)))
            pos = m.end()
        self.i = 0

    def peek(self, k: int = 0) -> str:
        j = self.i + k
        return self.toks[j][0] if j < len(self.toks) else ""

    def offset(self) -> int:
        return self.toks[self.i][1] if self.i < len(self.toks) else len(self.text)

    def take(self, tok: str | None = None) -> str:
        got = self.peek()
        if got == "" or (tok is not None and got != tok):
            want = f"{tok!r}" if tok else "a type"
            raise TypeSyntaxError(f"expected {want}, found {got or 'end of annotation'!r}", self.offset())
        self.i += 1
        return got

    def parse(self) -> Type:
        t = self.type_()
        if self.peek():
            raise TypeSyntaxError(f"unexpected {self.peek()!r} after the type", self.offset())
        return t

    def type_(self) -> Type:
        if self.peek() == "(":
            start = self.i
            self.take("(")
            args: list[Type] = []
            if self.peek() != ")":
                args.append(self.type_())
                while self.peek() == ",":
                    self.take(",")
                    args.append(self.type_())
            self.take(")")
            if self.peek() == "=>":
                self.take("=>")
                return TOper(tuple(args), self.type_())
            if len(args) != 1:
                raise TypeSyntaxError("a parenthesised type list must be followed by '=>'", self.toks[start][1])
            left = args[0]
            if self.peek() == "->":
                self.take("->")
                return TFun(left, self.type_())
            return left
        left = self.variant()
        if self.peek() == "->":
            self.take("->")
            return TFun(left, self.type_())
        if self.peek() == "=>":
            self.take("=>")
            return TOper((left,), self.type_())
        return left

    def variant(self) -> Type:
        first = self.atom()
        if self.peek() != "|" or not isinstance(first, TVariant):
            return first
        options: list[tuple[str, Type]] = []
        row: str | None = None
        items: list[Type] = [first]
        while self.peek() == "|":
            self.take("|")
            items.append(self.atom())
        for k, item in enumerate(items):
            if isinstance(item, TVariant) and len(item.options) == 1 and item.row is None:
                options.extend(item.options)
            elif isinstance(item, TVar) and k == len(items) - 1:
                row = item.name
            else:
                raise TypeSyntaxError(f"{show(item)} is not a variant option Tag(T)", self.offset())
        return TVariant(tuple(options), row)

    def fields(self, close: str) -> TRec:
        fields: list[tuple[str, Type]] = []
        row: str | None = None
        while self.peek() != close:
            if self.peek() == "|":
                self.take("|")
                row = self.take()
                if not _LOWER.match(row):
                    raise TypeSyntaxError(f"row variable must be one lowercase letter, found {row!r}",
                                          self.toks[self.i - 1][1])
                break
            name = self.take()
            self.take(":")
            fields.append((name, self.type_()))
            if self.peek() == ",":
                self.take(",")
            elif self.peek() not in (close, "|"):
                raise TypeSyntaxError(f"expected ',' or {close!r} in record type", self.offset())
        self.take(close)
        return TRec(tuple(fields), row)

    def atom(self) -> Type:
        off = self.offset()
        tok = self.take()
        if tok in ("Int", "Bool", "Str"):
            return TPrim(tok)
        if tok in ("Set", "Seq"):
            self.take("(")
            inner = self.type_()
            self.take(")")
            return TSet(inner) if tok == "Set" else TSeq(inner)
        if tok == "<<":
            items = [self.type_()]
            while self.peek() == ",":
                self.take(",")
                items.append(self.type_())
            self.take(">>")
            return TTuple(tuple(items))
        if tok == "{":
            return self.fields("}")
        if tok == "[":
            return self.fields("]")
        if tok == "(":
            inner = self.type_()
            self.take(")")
            return inner
        if tok.startswith("$"):
            return TAlias(tok[1:])
        if tok[0].isalpha() or tok[0] == "_":
            if self.peek() == "(":
                self.take("(")
                inner = self.type_()
                self.take(")")
                return TVariant(((tok, inner),), None)
            if _UPPER.match(tok):
                return TConst(tok)
            if _LOWER.match(tok):
                return TVar(tok)
        raise TypeSyntaxError(f"{tok!r} is not a type", off)


def parse_type(text: str) -> Type:
    """Parse one Apalache type."""
    return _TypeParser(text).parse()


# ---------------------------------------------------------------------------
# Annotations inside comments
# ---------------------------------------------------------------------------


def comment_body(comment: str) -> str:
    """Comment text without ``\\*``, ``(*``, ``*)`` markers (line structure is kept)."""
    out: list[str] = []
    for line in comment.splitlines():
        s = line.strip()
        if s.startswith("\\*"):
            s = s[2:]
        s = s.replace("(*", "  ").replace("*)", "  ")
        s = s.strip()
        while s.startswith("*"):
            s = s[1:].lstrip()
        out.append(s)
    return "\n".join(out)


def find_annotations(comment: str, key: str) -> list[str]:
    """The texts of every ``@key:`` annotation in a comment, each up to its ``;``
    (or to the end of the comment)."""
    body = comment_body(comment)
    found: list[str] = []
    marker = f"@{key}:"
    pos = body.find(marker)
    while pos >= 0:
        start = pos + len(marker)
        end = body.find(";", start)
        nxt = body.find("@", start)
        if end < 0 or (0 <= nxt < end and not body[nxt + 1:nxt + 2].isspace()):
            end = nxt if nxt >= 0 else len(body)
        found.append(" ".join(body[start:end].split()))
        pos = body.find(marker, start)
    return found


_ALIAS_NAME = re.compile(r"\s*([A-Za-z_][A-Za-z0-9_]*)\s*=\s*(.*)$", re.S)


def parse_alias(text: str) -> tuple[str, Type]:
    """Parse the text of ``@typeAlias: name = T``."""
    m = _ALIAS_NAME.match(text)
    if m is None:
        raise TypeSyntaxError("expected 'name = type' in @typeAlias", 0)
    return m.group(1), parse_type(m.group(2))


def resolve(t: Type, aliases: dict[str, Type], seen: frozenset[str] = frozenset()) -> Type:
    """Expand aliases (``$name``, and old-style UPPER names that name an alias)."""
    if isinstance(t, TAlias) or (isinstance(t, TConst) and t.name in aliases):
        name = t.name
        if name not in aliases:
            raise KeyError(name)
        if name in seen:
            raise ValueError(f"type alias {name} is defined in terms of itself")
        return resolve(aliases[name], aliases, seen | {name})
    if isinstance(t, TSet):
        return TSet(resolve(t.elem, aliases, seen))
    if isinstance(t, TSeq):
        return TSeq(resolve(t.elem, aliases, seen))
    if isinstance(t, TFun):
        return TFun(resolve(t.arg, aliases, seen), resolve(t.res, aliases, seen))
    if isinstance(t, TTuple):
        return TTuple(tuple(resolve(x, aliases, seen) for x in t.items))
    if isinstance(t, TRec):
        return TRec(tuple((f, resolve(x, aliases, seen)) for f, x in t.fields), t.row)
    if isinstance(t, TVariant):
        return TVariant(tuple((f, resolve(x, aliases, seen)) for f, x in t.options), t.row)
    if isinstance(t, TOper):
        return TOper(tuple(resolve(x, aliases, seen) for x in t.args), resolve(t.res, aliases, seen))
    return t


# ---------------------------------------------------------------------------
# Values against types
# ---------------------------------------------------------------------------


# the Python type of each primitive type's values; a model value is also a Str: Apalache reads
# the model values of a TLC cfg as strings (its tlc-config documentation), and public specs
# annotate Str the constants their cfg gives model values
_PRIM = {"Int": int, "Bool": bool, "Str": str}
_LONG_SEQ = 64  # sequences longer than this are checked by their new tail (see ValueTypeChecker)
_LONG_KEPT = 8  # long sequences remembered per type


def _same_prefix(value: tuple[Any, ...], seen: tuple[Any, ...]) -> bool:
    """Whether ``value`` starts with ``seen``'s very TLA+ values, given that it does so by Python's
    equality (for which FALSE is 0): the items that are not the same objects are compared again."""
    return all(same_value(value[k], seen[k]) for k in compress(range(len(seen)), map(is_not, value, seen)))


class ValueTypeChecker:
    """Checks values against (alias-free) types, remembering values already accepted."""

    def __init__(self, cache_limit: int = 16_384) -> None:
        self._ok: dict[int, dict[Any, Any]] = {}  # per type, the values accepted
        self._seen: dict[int, dict[int, Any]] = {}  # per type, the objects accepted, by id
        self._keep: list[Type] = []  # keeps the cached types alive (their ids key the cache)
        self._limit = cache_limit
        # long sequences are not cached whole (a log would be kept once per length): the last
        # few accepted per type are, and a sequence that extends one has only its tail checked
        self._long: dict[int, list[tuple[Any, ...]]] = {}

    def mismatch(self, value: Any, t: Type, earlier: Any = None) -> tuple[Type, Any] | None:
        """None when ``value`` has type ``t``; else the innermost (type, value) that fails.
        ``earlier``: a value the caller knows to have type ``t`` (the variable's previous value,
        accepted): a long sequence that extends it has only its tail checked."""
        tt = type(t)  # the type classes have no subclasses
        if tt is TPrim:
            vt = type(value)
            if vt is _PRIM.get(t.name):  # type: ignore[attr-defined]
                return None
            # a model value is a Str (Apalache reads a cfg's model values as strings)
            return None if vt is ModelValue and t.name == "Str" else (t, value)  # type: ignore[attr-defined]
        if tt is TVar or tt is TOper:
            return None
        vt = type(value)
        if tt is TConst:
            return None if vt is ModelValue or vt is str else (t, value)
        if vt is tuple and tt is TSeq and len(value) > _LONG_SEQ:
            return self._long_seq(value, t, earlier)  # type: ignore[arg-type]
        seen = self._seen.get(id(t))
        if seen is None:
            seen = self._seen[id(t)] = {}
            self._ok[id(t)] = {}
            self._keep.append(t)
        # the very object accepted before (successive states share most of their values;
        # the entry keeps the value alive, so its id is not reused)
        if seen.get(id(value)) is value:
            return None
        cache = self._ok[id(t)]
        known = cache.get(value)
        # a hit counts only for the same TLA+ value (Python: [a |-> FALSE] == [a |-> 0])
        if known is not None and (known is value or same_value(known, value)):
            bad = None
        else:
            bad = self._container(value, t)
            if bad is None:
                if len(cache) >= self._limit:
                    cache.clear()
                cache[value] = value
        if bad is None:
            if len(seen) >= self._limit:
                seen.clear()
            seen[id(value)] = value
        return bad

    def _long_seq(self, value: tuple[Any, ...], t: TSeq, earlier: Any) -> tuple[Type, Any] | None:
        recent = self._long.get(id(t))
        if recent is None:
            recent = self._long[id(t)] = []
            self._keep.append(t)
        # the first accepted sequence that is a prefix of ``value`` (the variable's previous
        # value first, then the most recent): its end and last element are compared before
        # the whole prefix is, since each comparison copies the prefix
        start = 0
        known = (earlier,) if type(earlier) is tuple else ()
        for seen in (*known, *reversed(recent)):
            n = len(seen)
            if (0 < n <= len(value) and value[n - 1] == seen[-1] and value[:n] == seen
                    and _same_prefix(value, seen)):
                start = n
                break
        for k in range(start, len(value)):
            bad = self.mismatch(value[k], t.elem)
            if bad is not None:
                return bad
        recent.append(value)
        if len(recent) > _LONG_KEPT:
            del recent[0]
        return None

    def _elements(self, values: Any, et: Type) -> tuple[Type, Any] | None:
        """The first of ``values`` that is not of type ``et`` (primitive ones tested without
        a call per element, as ``mismatch`` tests them)."""
        if type(et) is TPrim:
            want = _PRIM.get(et.name)
            for x in values:
                if type(x) is not want and (want is not str or type(x) is not ModelValue):
                    return (et, x)
            return None
        for x in values:
            bad = self.mismatch(x, et)
            if bad is not None:
                return bad
        return None

    def _container(self, value: Any, t: Type) -> tuple[Type, Any] | None:
        vt = type(value)
        if isinstance(t, (TSet, TSeq)):
            if vt is not (frozenset if isinstance(t, TSet) else tuple):
                return (t, value)
            return self._elements(value, t.elem)
        if isinstance(t, TTuple):
            if vt is not tuple or len(value) != len(t.items):
                return (t, value)
            for x, xt in zip(value, t.items, strict=True):
                bad = self.mismatch(x, xt)
                if bad is not None:
                    return bad
            return None
        if isinstance(t, TFun):
            if vt is tuple:
                items: Any = enumerate(value, 1)
            elif vt is Fn:
                items = value.map.items()
            else:
                return (t, value)
            if vt is tuple and type(t.arg) is TPrim and t.arg.name == "Int":
                return self._elements(value, t.res)  # a sequence's keys are integers: its values only
            for k, x in items:
                if self.mismatch(k, t.arg) is not None:
                    return (t, value)
                bad = self.mismatch(x, t.res)
                if bad is not None:
                    return bad
            return None
        if isinstance(t, TRec):
            if vt is not Fn:
                return (t, value)
            m = value.map
            # keys equal to the (string) field names are all strings: a record
            if (m.keys() != t.names) if t.row is None else (
                    not value.is_record() or not (m.keys() >= t.names)):
                return (t, value)
            for f, ft in t.fields:
                x = m[f]
                if type(ft) is TPrim:
                    if type(x) is not _PRIM.get(ft.name) and self.mismatch(x, ft) is not None:
                        return (ft, x)
                    continue
                bad = self.mismatch(x, ft)
                if bad is not None:
                    return bad
            return None
        if isinstance(t, TVariant):
            if vt is not Fn or set(value.map) != {"tag", "value"}:
                return (t, value)
            tag = value.map["tag"]
            for name, ot in t.options:
                if tag == name:
                    return self.mismatch(value.map["value"], ot)
            return None if t.row is not None else (t, value)
        raise TypeError(f"cannot check a value against {show(t)} (unresolved alias?)")


def describe_mismatch(bad: tuple[Type, Any]) -> str:
    t, v = bad
    return f"expected {show(t)}, found the {type_name(v)} {format_value(v)}"
