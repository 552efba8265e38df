"""Access to tree-sitter-tlaplus parse trees: the parser object, locations, comments, errors.

Everything here is independent of our AST; ``parser_expr.py`` and ``parser.py`` build the
AST on top of it.
"""

from __future__ import annotations

import bisect
import warnings
from dataclasses import dataclass, field

import tree_sitter_tlaplus
from tree_sitter import Language, Node, Parser, Query, QueryCursor, Tree

from conformance.tla.syntax import Comment, Loc, ParseError

with warnings.catch_warnings():
    # older tree-sitter-tlaplus wheels hand the language over as an int pointer
    warnings.simplefilter("ignore", DeprecationWarning)
    LANGUAGE = Language(tree_sitter_tlaplus.language())

_PARSER = Parser(LANGUAGE)
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


def parse_tree(source: bytes) -> Tree:
    """The tree-sitter parse tree of TLA+ source bytes."""
    return _PARSER.parse(source)


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

    def __post_init__(self) -> None:
        self._lines = self.text.split(b"\n")

    def loc(self, node: Node) -> Loc:
        """The 1-based location of a node's first character."""
        row, col = node.start_point
        return self.loc_at(row, col)

    def loc_at(self, row: int, col: int) -> Loc:
        """The 1-based location of a 0-based (row, byte column) position."""
        line = self._lines[row] if row < len(self._lines) else b""
        if not line.isascii():
            col = len(line[:col].decode("utf-8", errors="replace"))
        return Loc(self.file, max(1, row + 1 - self.line_offset), max(1, col + 1 - self.col_offset))

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
        outer: list[Node] = []
        for node in nodes:  # nested block comments are part of their enclosing one
            if outer and node.start_byte < outer[-1].end_byte:
                continue
            outer.append(node)
        self.comments: tuple[Comment, ...] = tuple(
            Comment(source.loc(n), source.text_of(n).strip()) for n in outer
        )
        self._starts = [n.start_byte for n in outer]
        self._by_end: dict[int, int] = {n.end_byte: i for i, n in enumerate(outer)}
        self._nodes = outer

    def inside(self, start: int, end: int) -> list[Comment]:
        """Comments lying within the byte range [start, end)."""
        lo = bisect.bisect_left(self._starts, start)
        out = []
        for i in range(lo, len(self._nodes)):
            if self._nodes[i].start_byte >= end:
                break
            out.append(self.comments[i])
        return out

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
            node = self._nodes[index]
            if own_line:
                line_start = text.rfind(b"\n", 0, node.start_byte) + 1
                before = text[line_start : node.start_byte].split()
                if before and before[-1] not in _OPENING_KEYWORDS:
                    break
            found.append(self.comments[index].text)
            pos = node.start_byte
        if not found:
            return None
        return "\n".join(reversed(found))


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
