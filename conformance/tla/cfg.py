"""Reader of TLC model configuration files (``.cfg``).

The supported sections are those of TLC: ``CONSTANT(S)`` (values ``N = 3``,
``S = {a, b}``, ``T = <<1, "x">>``, ``R = [a |-> 1, b |-> {c}]``, model values ``a = a``,
overrides ``X <- Def`` and ``X <- [Mod] Def``), ``INIT``/``NEXT``, ``SPECIFICATION``,
``INVARIANT(S)``, ``PROPERTY``/``PROPERTIES``, ``CONSTRAINT(S)``, ``ACTION_CONSTRAINT(S)``,
``SYMMETRY``, ``VIEW``, ``ALIAS``, ``POSTCONDITION`` and ``CHECK_DEADLOCK``. A
module-scoped override ``X <- [Mod] Def`` (replace ``X`` of module ``Mod`` only) is kept
in ``overrides`` under the key ``Mod!X``, and a module-scoped value ``X = [Mod] v`` in
``constants`` under the key ``Mod!X``. Comments are
``\\*`` to the end of the line and ``(* ... *)`` (nested). In a constant value a bare
identifier stands for the model value of that name, as in TLC.

Every error names ``file:line:col`` of the cfg.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from conformance.tla.syntax import Loc, ParseError
from conformance.tla.values import ModelValue, Value, make_record

# Section keyword -> canonical section name.
SECTIONS: dict[str, str] = {
    "CONSTANT": "CONSTANT",
    "CONSTANTS": "CONSTANT",
    "INIT": "INIT",
    "NEXT": "NEXT",
    "SPECIFICATION": "SPECIFICATION",
    "INVARIANT": "INVARIANT",
    "INVARIANTS": "INVARIANT",
    "PROPERTY": "PROPERTY",
    "PROPERTIES": "PROPERTY",
    "CONSTRAINT": "CONSTRAINT",
    "CONSTRAINTS": "CONSTRAINT",
    "ACTION_CONSTRAINT": "ACTION_CONSTRAINT",
    "ACTION_CONSTRAINTS": "ACTION_CONSTRAINT",
    "SYMMETRY": "SYMMETRY",
    "VIEW": "VIEW",
    "ALIAS": "ALIAS",
    "POSTCONDITION": "POSTCONDITION",
    "POSTCONDITIONS": "POSTCONDITION",
    "CHECK_DEADLOCK": "CHECK_DEADLOCK",
}

_UNSUPPORTED_SECTIONS = {"TYPE", "TYPE_CONSTRAINT"}


@dataclass
class ModelConfig:
    """The content of a ``.cfg`` file; ``locs`` maps each named item to where it stands."""

    file: str
    constants: dict[str, Value] = field(default_factory=dict)
    overrides: dict[str, str] = field(default_factory=dict)
    init: str | None = None
    next: str | None = None
    specification: str | None = None
    invariants: list[str] = field(default_factory=list)
    properties: list[str] = field(default_factory=list)
    constraints: list[str] = field(default_factory=list)
    action_constraints: list[str] = field(default_factory=list)
    symmetry: str | None = None
    view: str | None = None
    alias: str | None = None
    postconditions: list[str] = field(default_factory=list)
    check_deadlock: bool = True
    locs: dict[str, Loc] = field(default_factory=dict)

    def loc_of(self, name: str) -> Loc:
        """Where ``name`` is mentioned in the cfg (the file start when unknown)."""
        return self.locs.get(name, Loc(self.file, 1, 1))


@dataclass(frozen=True)
class _Token:
    kind: str  # "id", "num", "str", "sym", "eof"
    text: str
    loc: Loc


_SYMBOLS = ("<-", "|->", "<<", ">>", "{", "}", ",", "=", "(", ")", "[", "]", "-")


def _tokenize(text: str, file: str) -> list[_Token]:
    tokens: list[_Token] = []
    i, line, col = 0, 1, 1
    n = len(text)

    def advance(k: int) -> None:
        nonlocal i, line, col
        for _ in range(k):
            if text[i] == "\n":
                line += 1
                col = 1
            else:
                col += 1
            i += 1

    while i < n:
        c = text[i]
        if c in " \t\r\n\f":
            advance(1)
            continue
        if text.startswith("\\*", i):
            while i < n and text[i] != "\n":
                advance(1)
            continue
        if text.startswith("(*", i):
            start = Loc(file, line, col)
            depth = 0
            while i < n:
                if text.startswith("(*", i):
                    depth += 1
                    advance(2)
                elif text.startswith("*)", i):
                    depth -= 1
                    advance(2)
                    if depth == 0:
                        break
                else:
                    advance(1)
            if depth != 0:
                raise ParseError("unterminated comment (* ... *)", start)
            continue
        if text.startswith("----", i) or text.startswith("====", i):
            # Module-style separator lines some cfg files carry: ignore the dashes.
            while i < n and text[i] in "-=":
                advance(1)
            continue
        loc = Loc(file, line, col)
        if c.isalnum() or c == "_":
            j = i
            while j < n and (text[j].isalnum() or text[j] == "_"):
                j += 1
            word = text[i:j]
            kind = "num" if word.isdigit() else "id"
            tokens.append(_Token(kind, word, loc))
            advance(j - i)
            continue
        if c == '"':
            j = i + 1
            chars: list[str] = []
            while j < n and text[j] != '"':
                if text[j] == "\n":
                    raise ParseError("unterminated string", loc)
                if text[j] == "\\" and j + 1 < n:
                    esc = text[j + 1]
                    chars.append({"n": "\n", "t": "\t", '"': '"', "\\": "\\"}.get(esc, esc))
                    j += 2
                    continue
                chars.append(text[j])
                j += 1
            if j >= n:
                raise ParseError("unterminated string", loc)
            tokens.append(_Token("str", "".join(chars), loc))
            advance(j + 1 - i)
            continue
        for sym in _SYMBOLS:
            if text.startswith(sym, i):
                tokens.append(_Token("sym", sym, loc))
                advance(len(sym))
                break
        else:
            raise ParseError(f"unexpected character {c!r} in model configuration", loc)
    tokens.append(_Token("eof", "", Loc(file, line, col)))
    return tokens


class _Parser:
    def __init__(self, tokens: list[_Token], file: str) -> None:
        self.tokens = tokens
        self.pos = 0
        self.file = file

    @property
    def tok(self) -> _Token:
        return self.tokens[self.pos]

    def next(self) -> _Token:
        t = self.tokens[self.pos]
        self.pos += 1
        return t

    def at_section(self) -> bool:
        t = self.tok
        return t.kind == "eof" or (
            t.kind == "id" and (t.text in SECTIONS or t.text in _UNSUPPORTED_SECTIONS)
        )

    def expect_sym(self, sym: str) -> _Token:
        t = self.next()
        if t.kind != "sym" or t.text != sym:
            raise ParseError(f"expected {sym!r}, found {t.text or 'end of file'!r}", t.loc)
        return t

    def ident(self, what: str) -> _Token:
        t = self.next()
        if t.kind != "id" or t.text in SECTIONS:
            raise ParseError(f"expected {what}, found {t.text or 'end of file'!r}", t.loc)
        return t

    def value(self) -> Value:
        t = self.next()
        if t.kind == "num":
            return int(t.text)
        if t.kind == "sym" and t.text == "-":
            num = self.next()
            if num.kind != "num":
                raise ParseError("expected a number after '-'", num.loc)
            return -int(num.text)
        if t.kind == "str":
            return t.text
        if t.kind == "id":
            if t.text == "TRUE":
                return True
            if t.text == "FALSE":
                return False
            if t.text in SECTIONS:
                raise ParseError(f"expected a value, found the keyword {t.text}", t.loc)
            return ModelValue(t.text)
        if t.kind == "sym" and t.text in ("{", "<<"):
            close = "}" if t.text == "{" else ">>"
            items: list[Value] = []
            if not (self.tok.kind == "sym" and self.tok.text == close):
                items.append(self.value())
                while self.tok.kind == "sym" and self.tok.text == ",":
                    self.next()
                    items.append(self.value())
            self.expect_sym(close)
            return frozenset(items) if close == "}" else tuple(items)
        if t.kind == "sym" and t.text == "[":
            return self.record(t)
        raise ParseError(f"expected a value, found {t.text or 'end of file'!r}", t.loc)


    def record(self, opening: _Token) -> Value:
        """``[f1 |-> v1, ...]`` after its ``[``: a record value."""
        fields: list[tuple[str, Value]] = []
        while True:
            name = self.ident("a record field name")
            if any(f == name.text for f, _ in fields):
                raise ParseError(f"record field {name.text} given twice", name.loc)
            self.expect_sym("|->")
            fields.append((name.text, self.value()))
            if not (self.tok.kind == "sym" and self.tok.text == ","):
                break
            self.next()
        self.expect_sym("]")
        return make_record(fields)


def parse_config(text: str, file: str = "<cfg>") -> ModelConfig:
    """Parse the text of a TLC model configuration."""
    p = _Parser(_tokenize(text, file), file)
    cfg = ModelConfig(file=file)
    while p.tok.kind != "eof":
        t = p.next()
        if t.kind != "id" or (t.text not in SECTIONS and t.text not in _UNSUPPORTED_SECTIONS):
            raise ParseError(f"expected a section keyword (CONSTANT, INIT, ...), found {t.text!r}", t.loc)
        if t.text in _UNSUPPORTED_SECTIONS:
            raise ParseError(f"the cfg section {t.text} is not supported", t.loc)
        section = SECTIONS[t.text]
        if section == "CONSTANT":
            _constants(p, cfg)
        elif section == "CHECK_DEADLOCK":
            v = p.next()
            if v.kind != "id" or v.text not in ("TRUE", "FALSE"):
                raise ParseError("CHECK_DEADLOCK expects TRUE or FALSE", v.loc)
            cfg.check_deadlock = v.text == "TRUE"
        else:
            names: list[_Token] = []
            while not p.at_section():
                names.append(p.ident("a definition name"))
            if not names and section in _SINGLE:
                raise ParseError(f"{t.text} needs a definition name", t.loc)
            for n in names:
                cfg.locs.setdefault(n.text, n.loc)
            _assign_names(cfg, section, t, names)
    return cfg


_SINGLE = {"INIT": "init", "NEXT": "next", "SPECIFICATION": "specification",
           "SYMMETRY": "symmetry", "VIEW": "view", "ALIAS": "alias"}


def _assign_names(cfg: ModelConfig, section: str, kw: _Token, names: list[_Token]) -> None:
    """Record a section's names; a list section (INVARIANTS, PROPERTIES ...) may be empty."""
    single = _SINGLE
    if section in single:
        if len(names) != 1:
            raise ParseError(f"{kw.text} takes exactly one name", names[1].loc)
        attr = single[section]
        if getattr(cfg, attr) is not None:
            raise ParseError(f"{kw.text} given twice", kw.loc)
        setattr(cfg, attr, names[0].text)
        return
    target = {"INVARIANT": cfg.invariants, "PROPERTY": cfg.properties,
              "CONSTRAINT": cfg.constraints, "ACTION_CONSTRAINT": cfg.action_constraints,
              "POSTCONDITION": cfg.postconditions}[section]
    target.extend(n.text for n in names)


def _constants(p: _Parser, cfg: ModelConfig) -> None:
    while not p.at_section():
        name = p.ident("a constant name")
        op = p.next()
        if op.kind == "sym" and op.text == "<-":
            key = name.text
            if p.tok.kind == "sym" and p.tok.text == "[":  # X <- [Mod] Def
                p.next()
                key = f"{p.ident('a module name').text}!{name.text}"
                p.expect_sym("]")
            target = p.ident("a definition name")
            if key in cfg.overrides:
                raise ParseError(f"{name.text} overridden twice", name.loc)
            cfg.overrides[key] = target.text
        elif op.kind == "sym" and op.text == "=":
            key = name.text
            if _module_scope_follows(p):  # X = [Mod] value (a record is [f |-> v])
                p.next()
                key = f"{p.ident('a module name').text}!{name.text}"
                p.expect_sym("]")
            if key in cfg.constants or name.text in cfg.overrides:
                raise ParseError(f"constant {name.text} assigned twice", name.loc)
            cfg.constants[key] = p.value()
        else:
            raise ParseError(
                f"expected '=' or '<-' after constant {name.text}, found {op.text or 'end of file'!r}",
                op.loc,
            )
        cfg.locs.setdefault(name.text, name.loc)


def _module_scope_follows(p: _Parser) -> bool:
    """Whether the next tokens are ``[ Mod ]`` (not the ``[ f |->`` of a record)."""
    ahead = p.tokens[p.pos:p.pos + 3]
    return (len(ahead) == 3 and ahead[0].kind == "sym" and ahead[0].text == "["
            and ahead[1].kind == "id" and ahead[2].kind == "sym" and ahead[2].text == "]")


def read_config(path: Path | str) -> ModelConfig:
    """Read and parse a ``.cfg`` file."""
    p = Path(path)
    try:
        text = p.read_text(encoding="utf-8")
    except OSError as exc:
        raise ParseError(f"cannot read model configuration: {exc.strerror}", Loc(str(p), 1, 1)) from None
    return parse_config(text, str(p))
