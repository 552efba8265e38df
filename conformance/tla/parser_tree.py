"""Access to tree-sitter-tlaplus parse trees: the parser object, locations, comments, errors.

Everything here is independent of our AST; ``parser_expr.py`` and ``parser.py`` build the
AST on top of it.
"""

from __future__ import annotations

import bisect
import re
import threading
import warnings
from dataclasses import dataclass, field

import tree_sitter_tlaplus
from tree_sitter import Language, Node, Parser, Query, QueryCursor, Tree

from conformance.tla.syntax import Comment, Loc, ParseError

with warnings.catch_warnings():
    # older tree-sitter-tlaplus wheels hand the language over as an int pointer
    warnings.simplefilter("ignore", DeprecationWarning)
    LANGUAGE = Language(tree_sitter_tlaplus.language())

_LOCAL = threading.local()  # tree-sitter parsers must not be shared between threads
_COMMENT_QUERY = Query(LANGUAGE, "(comment) @c (block_comment) @c")

# Module-level node kinds that form a complete unit (used to locate errors in a module
# that tree-sitter could only recover as one big ERROR node).
UNIT_KINDS = frozenset(
    {
        "extends",
        "constant_declaration",
        "variable_declaration",
        "operator_definition",
        "function_definition",
        "module_definition",
        "local_definition",
        "recursive_declaration",
        "instance",
        "assumption",
        "theorem",
        "use_or_hide",
        "single_line",
        "header_line",
        "double_line",
        "comment",
        "block_comment",
    }
)


# Keywords after which a comment on the same line still annotates what follows.
_OPENING_KEYWORDS = frozenset(
    {b"LET", b"CONSTANT", b"CONSTANTS", b"VARIABLE", b"VARIABLES", b"RECURSIVE", b"LOCAL"}
)


_LEXEME = re.compile(rb'\(\*|\*\)|\\\*|"|\n')
_PLUSCAL = re.compile(rb"--(?:fair\s+)?algorithm\b")


def parse_tree(source: bytes) -> Tree:
    """The tree-sitter parse tree of TLA+ source bytes.

    PlusCal algorithms inside block comments are blanked out first (same byte
    positions): they are comments to TLA+, and tree-sitter-tlaplus would otherwise
    parse them and fail the whole module on any PlusCal it does not understand.
    """
    source = cut_after_module(source)
    if _PLUSCAL.search(source):
        source = mask_pluscal(source)
    parser = getattr(_LOCAL, "parser", None)
    if parser is None:
        parser = _LOCAL.parser = Parser(LANGUAGE)
    return parser.parse(source)


_MODULE_OPEN = re.compile(rb"^[ \t]*-{4,}[ \t]*MODULE\b", re.MULTILINE)
_MODULE_LINE = re.compile(rb"^[ \t]*(?:(-{4,}[ \t]*MODULE\b)|={4,})", re.MULTILINE)


def cut_after_module(source: bytes) -> bytes:
    """``source`` up to the ``====`` closing its first module: as SANY, anything after it
    is not read (positions before it do not move)."""
    first = _MODULE_OPEN.search(source)
    if first is None:
        return source
    end = _module_end(source, first.start())
    return source if end is None else source[:end]


def _module_end(source: bytes, start: int) -> int | None:
    """The position after the line of the ``====`` closing the module that opens at
    ``start`` (nested modules counted), or None when it is not closed."""
    depth = 0
    for m in _MODULE_LINE.finditer(source, start):
        if m.group(1) is not None:
            depth += 1
        else:
            depth -= 1
            if depth == 0:
                end = source.find(b"\n", m.end())
                return len(source) if end < 0 else end + 1
    return None


_MODULE_HEADER = re.compile(rb"[ \t]*-{4,}[ \t]*MODULE[ \t]+(\w+)[ \t]*-{4,}")


def trailing_modules(source: bytes) -> dict[str, bytes]:
    """The modules written after the first module of ``source`` (a file may hold the
    modules its first one uses after it, as TLC reads them), by name: each as ``source``
    with everything outside that module blanked (line breaks kept, so positions in the
    file do not move). Text after the first module that is not a ``---- MODULE Name ----``
    line opening a module closed by ``====`` is not read; nor is a module named twice."""
    first = _MODULE_OPEN.search(source)
    if first is None:
        return {}
    pos = _module_end(source, first.start())
    found: dict[str, bytes] = {}
    while pos is not None:
        m = _MODULE_OPEN.search(source, pos)
        if m is None:
            break
        header = _MODULE_HEADER.match(source, m.start())
        end = _module_end(source, m.start())
        if end is None:
            break
        if header is not None:
            name = header.group(1).decode("utf-8", "replace")
            found.setdefault(name, _blank(source[:m.start()]) + source[m.start():end])
        pos = end
    return found


def _blank(text: bytes) -> bytes:
    """``text`` with every byte but line breaks replaced by a space."""
    return re.sub(rb"[^\n]", b" ", text)


def mask_pluscal(source: bytes) -> bytes:
    """``source`` with the inside of every block comment holding a PlusCal algorithm
    replaced by spaces (line breaks kept, so positions do not move)."""
    out = bytearray(source)
    depth = 0
    start = 0
    pos = 0
    while True:
        match = _LEXEME.search(source, pos)
        if match is None:
            break
        token = match.group()
        pos = match.end()
        if depth == 0:
            if token == b"(*":
                depth, start = 1, match.end()
            elif token == b"\\*":
                end = source.find(b"\n", pos)
                pos = len(source) if end < 0 else end
            elif token == b'"':
                pos = _string_end(source, pos)
        elif token == b"(*":
            depth += 1
        elif token == b"*)":
            depth -= 1
            if depth == 0 and _PLUSCAL.search(source, start, match.start()):
                for i in range(start, match.start()):
                    if out[i] not in (0x0A, 0x0D):
                        out[i] = 0x20
    return bytes(out)


def _string_end(source: bytes, pos: int) -> int:
    """The position after the string literal whose opening quote ends at ``pos``."""
    while pos < len(source):
        char = source[pos]
        if char == 0x5C:  # backslash escape
            pos += 2
            continue
        if char in (0x22, 0x0A):  # closing quote, or an unterminated string
            return pos + 1
        pos += 1
    return pos


@dataclass
class Source:
    """A source file's bytes and name, with helpers to locate nodes.

    ``line_offset``/``col_offset`` shift reported locations (used when an expression is
    parsed inside a wrapper module).
    """

    text: bytes
    file: str
    line_offset: int = 0
    col_offset: int = 0
    _lines: list[bytes] = field(default_factory=list, repr=False)
    _ascii: list[bool] = field(default_factory=list, repr=False)
    _line_starts: list[int] = field(default_factory=list, repr=False)

    def __post_init__(self) -> None:
        self._lines = self.text.split(b"\n")
        self._ascii = [line.isascii() for line in self._lines]
        self._line_starts = [0]
        for line in self._lines[:-1]:
            self._line_starts.append(self._line_starts[-1] + len(line) + 1)

    def loc(self, node: Node) -> Loc:
        """The 1-based location of a node's first character."""
        row, col = node.start_point
        return self.loc_at(row, col)

    def loc_at(self, row: int, col: int) -> Loc:
        """The 1-based location of a 0-based (row, byte column) position."""
        if row < len(self._lines) and not self._ascii[row]:
            col = len(self._lines[row][:col].decode("utf-8", errors="replace"))
        if self.line_offset or self.col_offset:
            return Loc(
                self.file, max(1, row + 1 - self.line_offset), max(1, col + 1 - self.col_offset)
            )
        return Loc(self.file, row + 1, col + 1)

    def point(self, byte: int) -> tuple[int, int]:
        """The 0-based (row, byte column) of a byte offset."""
        row = bisect.bisect_right(self._line_starts, byte) - 1
        return row, byte - self._line_starts[row]

    def line_text(self, row: int) -> str:
        """The text of a 0-based source line."""
        if row >= len(self._lines):
            return ""
        return self._lines[row].decode("utf-8", errors="replace").rstrip("\r")

    def text_of(self, node: Node) -> str:
        """The source text a node spans."""
        return self.text[node.start_byte : node.end_byte].decode("utf-8", errors="replace")


class CommentIndex:
    """All comments of a tree, in source order, findable by where they end."""

    def __init__(self, source: Source, root: Node) -> None:
        self.source = source
        nodes = [n for ns in QueryCursor(_COMMENT_QUERY).captures(root).values() for n in ns]
        nodes.sort(key=lambda n: n.start_byte)
        spans: list[tuple[int, int]] = []
        for node in nodes:  # nested block comments are part of their enclosing one
            if spans and node.start_byte < spans[-1][1]:
                continue
            if node.type == "block_comment":
                # tree-sitter-tlaplus joins adjacent block comments into one node
                spans.extend(_split_block_comments(source.text, node.start_byte, node.end_byte))
            else:
                spans.append((node.start_byte, node.end_byte))
        self._spans = spans
        self.comments: tuple[Comment, ...] = tuple(
            Comment(
                source.loc_at(*source.point(start)),
                source.text[start:end].decode("utf-8", errors="replace").strip(),
            )
            for start, end in spans
        )
        self._starts = [start for start, _ in spans]
        self._by_end: dict[int, int] = {end: i for i, (_, end) in enumerate(spans)}

    def leading(self, start_byte: int, own_line: bool) -> str | None:
        """The comments directly before ``start_byte`` (only whitespace between them,
        no blank line), joined by newlines; None when there are none.

        With ``own_line``, a comment must begin its line or follow an opening keyword
        such as ``LET`` (a trailing comment of a code line does not annotate the next
        line).
        """
        text = self.source.text
        found: list[str] = []
        pos = start_byte
        while True:
            p = pos
            while p > 0 and text[p - 1] in b" \t\r\n":
                p -= 1
            if text.count(b"\n", p, pos) > 1:
                break
            index = self._by_end.get(p)
            if index is None:
                break
            start, _ = self._spans[index]
            if own_line:
                line_start = text.rfind(b"\n", 0, start) + 1
                before = text[line_start:start].split()
                if before and before[-1] not in _OPENING_KEYWORDS:
                    break
            found.append(self.comments[index].text)
            pos = start
        if not found:
            return None
        return "\n".join(reversed(found))


def _split_block_comments(text: bytes, start: int, end: int) -> list[tuple[int, int]]:
    """The byte spans of the block comments, each with its nested ones, in [start, end)."""
    spans: list[tuple[int, int]] = []
    depth = 0
    begin = start
    pos = start
    while pos < end - 1:
        pair = text[pos : pos + 2]
        if pair == b"(*":
            if depth == 0:
                begin = pos
            depth += 1
            pos += 2
        elif pair == b"*)" and depth > 0:
            depth -= 1
            pos += 2
            if depth == 0:
                spans.append((begin, pos))
        else:
            pos += 1
    if not spans or depth:
        return [(start, end)]
    return spans


def raise_first_error(source: Source, root: Node) -> None:
    """Raise ``ParseError`` at the first syntax error of a tree, if it has any."""
    if not root.has_error:
        return
    node = _first_error(root)
    if node is None:
        # tree-sitter recovered the whole module as a run of complete units: the
        # module is not closed
        row, col = root.end_point
        raise ParseError("syntax error: missing the module footer ====", source.loc_at(row, col))
    row, col = node.start_point
    line = source.line_text(row)
    if node.is_missing:
        what = f"missing {node.type!r}"
    else:
        snippet = source.text_of(node).split("\n", 1)[0].strip()
        what = f"unexpected {snippet[:40]!r}" if snippet else "unexpected input"
    raise ParseError(f"syntax error: {what} in line `{line.strip()}`", source.loc_at(row, col))


def _first_error(root: Node) -> Node | None:
    """The earliest MISSING node or ERROR point of a tree (None when the only error is
    a module recovered as a sequence of complete units)."""
    candidates: list[Node] = []
    stack = [root]
    while stack:
        node = stack.pop()
        if node.is_missing:
            candidates.append(node)
            continue
        if node.is_error and not _spans_module(node):
            candidates.append(node)
            continue
        if node.is_error:
            # a whole module recovered as ERROR: the error is at its first loose child
            seen_name = False
            for child in node.children:
                if child.type == "identifier" and not seen_name:
                    seen_name = True
                    continue
                if child.type in UNIT_KINDS or child.type == "MODULE" or child.is_extra:
                    continue
                candidates.append(child)
                break
        stack.extend(c for c in node.children if c.has_error or c.is_missing)
    if not candidates:
        return None
    return min(candidates, key=lambda n: n.start_byte)


def _spans_module(node: Node) -> bool:
    parent = node.parent
    return parent is None or parent.type == "source_file"
