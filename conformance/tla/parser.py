"""TLA+ module text -> AST (``syntax.py``), via tree-sitter-tlaplus.

``parse_module_text`` reads one module; ``parse_expression`` reads a standalone
expression. Syntax errors raise ``ParseError`` and valid constructs outside the
fragment the engine executes raise ``UnsupportedError``, both at ``file:line:col``.
"""

from __future__ import annotations

from tree_sitter import Node

from conformance.tla import syntax as ast
from conformance.tla.parser_expr import Builder, operands
from conformance.tla.parser_tree import CommentIndex, Source, parse_tree, raise_first_error
from conformance.tla.syntax import Module, ParseError, UnsupportedError

References = tuple[tuple[str, ast.Loc], ...]
"""Module names referenced by EXTENDS or INSTANCE, with where they are named."""

# Module-level node kinds that carry no meaning for evaluation.
_IGNORED = frozenset(
    {"header_line", "single_line", "double_line", "comment", "block_comment", "use_or_hide"}
)
_DEFINITIONS = frozenset(
    {
        "operator_definition",
        "function_definition",
        "recursive_declaration",
        "local_definition",
        "module_definition",
        "instance",
    }
)


def parse_module_text(text: str, file: str = "<text>") -> Module:
    """Parse the text of one TLA+ module (the first module of the text)."""
    return _parse(Source(text.encode("utf-8"), file))[0]


def parse_module_with_references(text: str, file: str = "<text>") -> tuple[Module, References]:
    """Parse a module and also return the modules it names in EXTENDS and INSTANCE,
    each with the location of the name (for errors about missing modules)."""
    return _parse(Source(text.encode("utf-8"), file))


def parse_expression(text: str, file: str = "<expr>") -> ast.Expr:
    """Parse a standalone TLA+ expression; locations refer to ``text`` itself."""
    if not text.strip():
        raise ParseError("empty expression", ast.Loc(file, 1, 1))
    indent = "  "
    body = "\n".join(indent + line for line in text.split("\n"))
    wrapped = f"---- MODULE Expression ----\nEXPRESSION ==\n{body}\n====\n"
    source = Source(wrapped.encode("utf-8"), file, line_offset=2, col_offset=len(indent))
    module = _parse(source)[0]
    if len(module.units) != 1 or not isinstance(module.units[0], ast.OpDef):
        raise ParseError(f"not a single expression: {text.strip()[:60]!r}", ast.Loc(file, 1, 1))
    return module.units[0].body


def _parse(source: Source) -> tuple[Module, References]:
    tree = parse_tree(source.text)
    root = tree.root_node
    raise_first_error(source, root)
    modules = [c for c in root.named_children if c.type == "module"]
    if not modules:
        raise ParseError("no MODULE found", ast.Loc(source.file, 1, 1))
    comments = CommentIndex(source, root)
    try:
        return _ModuleReader(source, comments).read(modules[0])
    except RecursionError:
        raise UnsupportedError(
            "expression nested too deeply to translate", source.loc(modules[0])
        ) from None


class _ModuleReader:
    """Reads the units of one ``module`` node."""

    def __init__(self, source: Source, comments: CommentIndex) -> None:
        self.source = source
        self.comments = comments
        self.build = Builder(source, comments)

    def read(self, node: Node) -> tuple[Module, References]:
        name_node = node.child_by_field_name("name")
        if name_node is None:  # pragma: no cover - guaranteed by the grammar
            raise ParseError("module without a name", self.source.loc(node))
        extends: list[str] = []
        references: list[tuple[str, ast.Loc]] = []
        units: list[ast.Unit] = []
        for child in node.named_children:
            kind = child.type
            if child.id == name_node.id or kind in _IGNORED or child.is_extra:
                continue
            if kind == "extends":
                for c in operands(child):
                    extends.append(self.source.text_of(c))
                    references.append((extends[-1], self.source.loc(c)))
            elif kind == "constant_declaration":
                units.extend(self._constants(child))
            elif kind == "variable_declaration":
                units.extend(self._variables(child))
            elif kind in _DEFINITIONS:
                unit = self.build.definition(child)
                if isinstance(unit, ast.Instance):
                    references.append((unit.module, unit.loc))
                units.append(unit)
            elif kind == "assumption":
                units.append(self._assume(child))
            elif kind == "theorem":
                units.append(self._theorem(child))
            elif kind == "module":
                raise UnsupportedError("unsupported nested module", self.source.loc(child))
            else:
                raise self.build.unsupported(child, f"module-level construct '{kind}'")
        _check_unique(units)
        module = Module(
            name=self.source.text_of(name_node),
            file=self.source.file,
            extends=tuple(extends),
            units=tuple(units),
            comments=self.comments.comments,
            loc=self.source.loc(node),
        )
        return module, tuple(references)

    def _name_annotation(self, decl: Node, name: Node) -> str | None:
        """Comments right before a declared name, else those above the declaration."""
        own = self.comments.leading(name.start_byte, own_line=False)
        if own is not None and name.start_byte > decl.start_byte:
            return own
        return self.build.annotation(decl)

    def _constants(self, node: Node) -> list[ast.Unit]:
        out: list[ast.Unit] = []
        for c in operands(node):
            note = self._name_annotation(node, c)
            if c.type == "identifier":
                out.append(ast.ConstantDecl(self.source.loc(c), self.source.text_of(c), 0, note))
            elif c.type == "operator_declaration":
                p = self.build.declared_operator(c)
                out.append(ast.ConstantDecl(self.source.loc(c), p.name, p.arity, note))
            else:
                raise self.build.unsupported(c, "constant declaration")
        return out

    def _variables(self, node: Node) -> list[ast.Unit]:
        out: list[ast.Unit] = []
        for c in operands(node):
            if c.type != "identifier":  # pragma: no cover - grammar allows only identifiers
                raise self.build.unsupported(c, "variable declaration")
            note = self._name_annotation(node, c)
            out.append(ast.VariableDecl(self.source.loc(c), self.source.text_of(c), note))
        return out

    def _assume(self, node: Node) -> ast.Unit:
        names = [c for c in operands(node) if c.type == "identifier"]
        parts = [c for c in operands(node) if c.type != "identifier"]
        if len(parts) != 1 or len(names) > 1:
            raise self.build.unsupported(node, "assumption form")
        loc = self.source.loc(node)
        if not names:
            return ast.Assume(loc, self.build.expr(parts[0]))
        name = self.source.text_of(names[0])
        definition = self.build.named_statement(node, name, parts[0])
        return ast.Assume(loc, definition.body, name, definition)

    def _theorem(self, node: Node) -> ast.Unit:
        name = node.child_by_field_name("name")
        statement = node.child_by_field_name("statement")
        expr: ast.Expr | None = None
        definition: ast.OpDef | None = None
        if statement is not None and statement.type != "assume_prove":
            try:
                if name is None:
                    expr = self.build.expr(statement)
                else:
                    definition = self.build.named_statement(
                        node, self.source.text_of(name), statement)
                    expr = definition.body
            except UnsupportedError:
                expr = None  # theorems are listed, never evaluated
        return ast.Theorem(
            self.source.loc(node), None if name is None else self.source.text_of(name), expr,
            definition,
        )


_NAMED_UNITS = (
    ast.ConstantDecl, ast.VariableDecl, ast.OpDef, ast.FnDef, ast.Instance, ast.Theorem, ast.Assume,
)


def _check_unique(units: list[ast.Unit]) -> None:
    """Raise ``ParseError`` when a module declares or defines one name twice."""
    seen: dict[str, ast.Loc] = {}
    for unit in units:
        if not isinstance(unit, _NAMED_UNITS) or unit.name is None:
            continue
        name = unit.name
        if name in seen:
            raise ParseError(f"{name} is already declared or defined at {seen[name]}", unit.loc)
        seen[name] = unit.loc
