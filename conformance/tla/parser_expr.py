"""Translation of tree-sitter-tlaplus expression and definition nodes into our AST."""

from __future__ import annotations

import re
from collections.abc import Callable

from tree_sitter import Node

from conformance.tla import syntax as ast
from conformance.tla.parser_tree import CommentIndex, Source
from conformance.tla.syntax import Loc, ParseError, UnsupportedError, canonical

# Nodes that are punctuation or keywords of a construct, never operands.
_PUNCTUATION = frozenset(
    {
        "langle_bracket",
        "rangle_bracket",
        "rangle_bracket_sub",
        "def_eq",
        "set_in",
        "all_map_to",
        "maps_to",
        "case_arrow",
        "case_box",
        "bullet_conj",
        "bullet_disj",
        "label_as",
        "gets",
        "placeholder",
    }
)

# Unicode spellings of standard operators (tree-sitter-tlaplus accepts both forms).
_UNICODE = {
    "∧": "/\\",
    "\u2228": "\\/",  # logical or
    "¬": "~",
    "⇒": "=>",
    "⟹": "=>",
    "≡": "<=>",
    "⇔": "<=>",
    "∈": "\\in",
    "∉": "\\notin",
    "\u222a": "\\cup",  # union
    "∩": "\\cap",
    "⊆": "\\subseteq",
    "⊂": "\\subset",
    "⊇": "\\supseteq",
    "⊃": "\\supset",
    "≠": "/=",
    "≤": "<=",
    "≥": ">=",
    "\u00d7": "\\times",  # multiplication sign
    "∘": "\\o",
    "÷": "\\div",
    "↝": "~>",
    "□": "[]",
    "◇": "<>",
    "⋅": "\\cdot",
    "⋄": "<>",  # the standard table's eventually (◇ above is also accepted)
    "⇸": "-+->",
    "‥": "..",
    "…": "...",
    "⁺": "^+",
    "⊕": "\\oplus",
    "⊖": "\\ominus",
    "⊗": "\\otimes",
    "⊘": "\\oslash",
    "⊙": "\\odot",
    "≺": "\\prec",
    "≻": "\\succ",
    "⪯": "\\preceq",
    "⪰": "\\succeq",
    "\u223c": "\\sim",  # tilde operator
    "≃": "\\simeq",
    "≈": "\\approx",
    "≅": "\\cong",
    "≐": "\\doteq",
    "≍": "\\asymp",
    "≪": "\\ll",
    "≫": "\\gg",
    "∝": "\\propto",
    "⊑": "\\sqsubseteq",
    "⊒": "\\sqsupseteq",
    "⊏": "\\sqsubset",
    "⊐": "\\sqsupset",
    "⊓": "\\sqcap",
    "⊔": "\\sqcup",
    "⊎": "\\uplus",
    "⋆": "\\star",
    "≀": "\\wr",
    "●": "\\bullet",
    "◯": "\\bigcirc",
    "⊢": "|-",
    "⊨": "|=",
    "⊣": "-|",
    "⫤": "=|",
    "≔": ":=",
    "⩴": "::=",
    "‖": "||",
    "‼": "!!",
    "⁇": "??",
}

_STRING_ESCAPES = {"\\": "\\", '"': '"', "n": "\n", "t": "\t", "r": "\r", "f": "\f"}
_ESCAPE_RE = re.compile(r"\\(.)")

_PREFIX_TEMPORAL = {"always": "[]", "eventually": "<>", "enabled": "ENABLED"}
_INFIX_TEMPORAL = {"leads_to": "~>", "cdot": "\\cdot"}
_SPECIAL_INFIX = frozenset({"land", "lor", "times", *_INFIX_TEMPORAL})
_QUANTIFIERS = {"forall": "A", "exists": "E", "temporal_forall": "AA", "temporal_exists": "EE"}
# Nodes that bind identifiers: a label below one of them names an expression with free
# bound variables (``Op!lbl`` to it is refused).
_BINDERS = frozenset({
    "bounded_quantification", "unbounded_quantification", "choose", "set_filter", "set_map",
    "function_literal", "let_in", "lambda", "function_definition",
})
# Where a label's search for binders stops.
_DEFINITION_NODES = frozenset({"operator_definition", "module"})

_NAMED_SETS = {
    "boolean_set": "BOOLEAN",
    "string_set": "STRING",
    "nat_number_set": "Nat",
    "int_number_set": "Int",
}


def operands(node: Node) -> list[Node]:
    """The named children of a node that are neither comments nor punctuation."""
    return [c for c in node.named_children if not c.is_extra and c.type not in _PUNCTUATION]


class Builder:
    """Builds AST expressions and definitions from the nodes of one source."""

    def __init__(self, source: Source, comments: CommentIndex) -> None:
        self.source = source
        self.comments = comments
        # labels of the operator definitions being built (innermost last)
        self._labels: list[dict[str, ast.Expr | None]] = []
        self._singles: list[list[ast.Expr]] = []  # the items of one-item bulleted lists
        self._expr: dict[str, Callable[[Node], ast.Expr]] = {
            "parentheses": self._parentheses,
            "subexpression": self._subexpression,
            "label": self._label,
            "identifier_ref": self._name,
            "nat_number": self._nat,
            "binary_number": self._based_number,
            "octal_number": self._based_number,
            "hex_number": self._based_number,
            "string": self._string,
            "boolean": self._boolean,
            "boolean_set": self._named_set,
            "string_set": self._named_set,
            "nat_number_set": self._named_set,
            "int_number_set": self._named_set,
            "bound_op": self._bound_op,
            "bound_nonfix_op": self._bound_nonfix_op,
            "infix_op_symbol": self._op_symbol_name,
            "prefix_op_symbol": self._op_symbol_name,
            "postfix_op_symbol": self._op_symbol_name,
            "prefixed_op": self._prefixed_op,
            "bound_infix_op": self._infix,
            "bound_prefix_op": self._prefix,
            "bound_postfix_op": self._postfix,
            "conj_list": self._junction_list,
            "disj_list": self._junction_list,
            "if_then_else": self._if,
            "case": self._case,
            "let_in": self._let,
            "bounded_quantification": self._bounded_quant,
            "unbounded_quantification": self._unbounded_quant,
            "choose": self._choose,
            "finite_set_literal": self._set_enum,
            "set_filter": self._set_filter,
            "set_map": self._set_map,
            "function_literal": self._fn_construct,
            "set_of_functions": self._fn_set,
            "function_evaluation": self._fn_app,
            "except": self._except,
            "prev_func_val": self._at,
            "record_literal": self._record,
            "set_of_records": self._record_set,
            "record_value": self._field_access,
            "tuple_literal": self._tuple,
            "lambda": self._lambda,
            "step_expr_or_stutter": self._action_box,
            "step_expr_no_stutter": self._action_box,
            "fairness": self._fairness,
        }

    # ------------------------------------------------------------------ helpers

    def loc(self, node: Node) -> Loc:
        return self.source.loc(node)

    def text(self, node: Node) -> str:
        return self.source.text_of(node)

    def unsupported(self, node: Node, what: str | None = None) -> UnsupportedError:
        kind = what or f"construct '{node.type}'"
        excerpt = self.text(node).split("\n", 1)[0].strip()[:40]
        return UnsupportedError(f"unsupported {kind}: `{excerpt}`", self.loc(node))

    # ------------------------------------------------------------------ expressions

    def expr(self, node: Node) -> ast.Expr:
        """The AST of an expression node."""
        handler = self._expr.get(node.type)
        if handler is None:
            if node.type in ("real_number", "real_number_set"):
                raise self.unsupported(node, "real numbers")
            raise self.unsupported(node)
        return handler(node)

    def _parentheses(self, node: Node) -> ast.Expr:
        return self.expr(operands(node)[0])

    def _label(self, node: Node) -> ast.Expr:
        body = node.child_by_field_name("expression")
        if body is None:
            raise self.unsupported(node, "label")
        out = self.expr(body)
        name = node.child_by_field_name("name")
        if self._labels and name is not None:
            bound = any(c.type not in ("identifier", "label_as") and c.id != body.id
                        for c in node.named_children if not c.is_extra)  # lbl(x) :: e
            parent = node.parent
            while parent is not None and parent.type not in _DEFINITION_NODES:
                bound = bound or parent.type in _BINDERS
                parent = parent.parent
            self._labels[-1][self.text(name)] = None if bound else out
        return out

    def _name(self, node: Node) -> ast.Expr:
        return ast.Name(self.loc(node), self.text(node))

    def _nat(self, node: Node) -> ast.Expr:
        return ast.Num(self.loc(node), int(self.text(node)))

    def _based_number(self, node: Node) -> ast.Expr:
        base = {"binary_number": 2, "octal_number": 8, "hex_number": 16}[node.type]
        digits = next(c for c in node.named_children if c.type == "value")
        try:
            return ast.Num(self.loc(node), int(self.text(digits), base))
        except ValueError:
            raise ParseError(f"bad number {self.text(node)!r}", self.loc(node)) from None

    def _string(self, node: Node) -> ast.Expr:
        raw = self.text(node)[1:-1]

        def unescape(match: re.Match[str]) -> str:
            char = match.group(1)
            if char not in _STRING_ESCAPES:
                raise ParseError(f"unknown string escape '\\{char}'", self.loc(node))
            return _STRING_ESCAPES[char]

        return ast.Str(self.loc(node), _ESCAPE_RE.sub(unescape, raw))

    def _boolean(self, node: Node) -> ast.Expr:
        return ast.Bool(self.loc(node), self.text(node) == "TRUE")

    def _named_set(self, node: Node) -> ast.Expr:
        return ast.Name(self.loc(node), _NAMED_SETS[node.type])

    def _op_symbol_name(self, node: Node) -> ast.Expr:
        """An operator symbol used as an argument (``Op(+, x)``)."""
        return ast.Name(self.loc(node), self.symbol(node))

    def symbol(self, node: Node) -> str:
        """The canonical spelling of an operator symbol node."""
        inner = node.named_children[0] if node.named_child_count else node
        if inner.type == "negative":
            return "-."
        text = self.text(inner).strip()
        return canonical(_UNICODE.get(text, text))

    def _args(self, node: Node) -> tuple[ast.Expr, ...]:
        params = node.children_by_field_name("parameter")
        return tuple(self.expr(c) for c in params if c.is_named and not c.is_extra)

    def _bound_op(self, node: Node) -> ast.Expr:
        name = node.child_by_field_name("name")
        if name is None:  # pragma: no cover - grammar guarantees a name
            raise self.unsupported(node)
        return ast.OpApp(self.loc(node), self.text(name), self._args(node))

    def _bound_nonfix_op(self, node: Node) -> ast.Expr:
        symbol = node.child_by_field_name("symbol")
        if symbol is None:  # pragma: no cover
            raise self.unsupported(node)
        args = tuple(self.expr(c) for c in operands(node) if c.id != symbol.id)
        return ast.OpApp(self.loc(node), self.symbol(symbol), args)

    def _prefixed_op(self, node: Node) -> ast.Expr:
        prefix = node.child_by_field_name("prefix")
        op = node.child_by_field_name("op")
        if prefix is None or op is None:  # pragma: no cover
            raise self.unsupported(node)
        path, pargs = self._prefixed_path(prefix, node)
        loc = self.loc(node)
        if op.type == "identifier_ref":
            return ast.InstanceOpApp(loc, path, self.text(op), (), pargs)
        if op.type == "bound_op":
            app = self._bound_op(op)
            assert isinstance(app, ast.OpApp)
            return ast.InstanceOpApp(loc, path, app.name, app.args, pargs)
        if op.type == "bound_nonfix_op":
            app = self._bound_nonfix_op(op)
            assert isinstance(app, ast.OpApp)
            return ast.InstanceOpApp(loc, path, app.name, app.args, pargs)
        raise self.unsupported(op, "subexpression reference")

    def _prefixed_path(self, prefix: Node, at: Node) -> tuple[tuple[str, ...], tuple[tuple[ast.Expr, ...], ...]]:
        """The components of ``A!B(x)!1!`` and their arguments (empty when none has any)."""
        path: list[str] = []
        path_args: list[tuple[ast.Expr, ...]] = []
        for component in operands(prefix):
            if component.type == "subexpr_tree_nav":  # Op!1!lbl
                path.append(self._selector(component, at))
                path_args.append(())
                continue
            if component.type != "subexpr_component":
                raise self.unsupported(component, "subexpression reference")
            inner = operands(component)
            if len(inner) == 1 and inner[0].type == "identifier_ref":
                path.append(self.text(inner[0]))
                path_args.append(())
            elif len(inner) == 1 and inner[0].type == "bound_op":  # I(a, b)!Op
                app = self._bound_op(inner[0])
                assert isinstance(app, ast.OpApp)
                path.append(app.name)
                path_args.append(app.args)
            else:
                raise self.unsupported(component, "subexpression reference")
        return tuple(path), (tuple(path_args) if any(path_args) else ())

    def _selector(self, nav: Node, at: Node) -> str:
        """A positional selector of a subexpression reference: ``"1"``, ``"2"`` ... or
        ``":"``; the others (``<<``, ``>>``, ``@``, ``(e)``) are refused."""
        kids = [c for c in nav.children if not c.is_extra]
        if len(kids) == 1 and kids[0].type == "child_id":
            return self.text(kids[0])
        if len(kids) == 1 and kids[0].type == "colon":
            return ":"
        excerpt = self.text(at).split("\n", 1)[0].strip()[:40]
        raise UnsupportedError(f"unsupported subexpression selector `!{self.text(nav)}` in "
                               f"`{excerpt}` (only !1, !2 ..., !: and labels are supported)",
                               self.loc(at))

    def _subexpression(self, node: Node) -> ast.Expr:
        """``Op!1``, ``Op!lbl!2``, ``Op!:``: kept as a reference resolved when compiled."""
        kids = operands(node)
        if len(kids) != 2 or kids[0].type != "subexpr_prefix" or kids[1].type != "subexpr_tree_nav":
            raise self.unsupported(node, "subexpression reference")  # pragma: no cover
        ref = self._prefixed_path(kids[0], node)
        return ast.InstanceOpApp(self.loc(node), ref[0], self._selector(kids[1], node), (), ref[1])

    def _infix(self, node: Node) -> ast.Expr:
        # Walk down the left spine of an operator chain (a + b - c ...) iteratively, so
        # that long chains do not exhaust the Python stack.
        spine: list[tuple[Node, Node, Node]] = []
        current = node
        while current.type == "bound_infix_op":
            symbol, rhs = self._infix_parts(current)
            if symbol.type in _SPECIAL_INFIX:
                break
            spine.append((current, symbol, rhs))
            lhs = current.child_by_field_name("lhs")
            assert lhs is not None
            current = lhs
        if not spine:
            return self._special_infix(node)
        result = self.expr(current)
        for infix, symbol, rhs in reversed(spine):
            result = ast.OpApp(self.loc(infix), self.symbol(symbol), (result, self.expr(rhs)))
        return result

    def _infix_parts(self, node: Node) -> tuple[Node, Node]:
        symbol = node.child_by_field_name("symbol")
        rhs = node.child_by_field_name("rhs")
        if symbol is None or rhs is None or node.child_by_field_name("lhs") is None:
            raise self.unsupported(node)  # pragma: no cover - guaranteed by the grammar
        return symbol, rhs

    def _special_infix(self, node: Node) -> ast.Expr:
        """Infix forms with their own AST node: /\\, \\/, \\X chains and temporal ones."""
        symbol, rhs = self._infix_parts(node)
        lhs = node.child_by_field_name("lhs")
        assert lhs is not None
        kind = symbol.type
        loc = self.loc(node)
        if kind in _INFIX_TEMPORAL:
            return ast.Temporal(loc, _INFIX_TEMPORAL[kind], (self.expr(lhs), self.expr(rhs)))
        items = tuple(self.expr(n) for n in self._chain(node, kind))
        if kind == "land":
            return ast.And(loc, items)
        if kind == "lor":
            return ast.Or(loc, items)
        return ast.OpApp(loc, "\\times", items)

    def _chain(self, node: Node, kind: str) -> list[Node]:
        """The operands of an unparenthesised chain of one associative infix operator."""
        out: list[Node] = []
        stack = [node]
        while stack:
            current = stack.pop()
            symbol = current.child_by_field_name("symbol")
            if current.type == "bound_infix_op" and symbol is not None and symbol.type == kind:
                rhs = current.child_by_field_name("rhs")
                lhs = current.child_by_field_name("lhs")
                assert lhs is not None and rhs is not None
                stack.append(rhs)
                stack.append(lhs)
            else:
                out.append(current)
        return out

    def _prefix(self, node: Node) -> ast.Expr:
        symbol_node = node.child_by_field_name("symbol")
        rhs = node.child_by_field_name("rhs")
        if symbol_node is None or rhs is None:  # pragma: no cover
            raise self.unsupported(node)
        loc = self.loc(node)
        kind = symbol_node.type
        arg = self.expr(rhs)
        if kind == "unchanged":
            return ast.Unchanged(loc, arg)
        if kind in _PREFIX_TEMPORAL:
            return ast.Temporal(loc, _PREFIX_TEMPORAL[kind], (arg,))
        return ast.OpApp(loc, self.symbol(symbol_node), (arg,))

    def _postfix(self, node: Node) -> ast.Expr:
        symbol_node = node.child_by_field_name("symbol")
        lhs = node.child_by_field_name("lhs")
        if symbol_node is None or lhs is None:  # pragma: no cover
            raise self.unsupported(node)
        if symbol_node.type == "prime":
            return ast.Prime(self.loc(node), self.expr(lhs))
        return ast.OpApp(self.loc(node), self.symbol(symbol_node), (self.expr(lhs),))

    def _junction_list(self, node: Node) -> ast.Expr:
        items: list[ast.Expr] = []
        for item in operands(node):
            if item.type not in ("conj_item", "disj_item"):  # pragma: no cover
                raise self.unsupported(item)
            items.extend(self.expr(e) for e in operands(item))
        if len(items) == 1:
            if self._singles:  # ``Op!1`` selects the item of a one-item list
                self._singles[-1].append(items[0])
            return items[0]
        loc = self.loc(node)
        if node.type == "conj_list":
            return ast.And(loc, tuple(items), bullet=True)
        return ast.Or(loc, tuple(items), bullet=True)

    def _if(self, node: Node) -> ast.Expr:
        parts = [node.child_by_field_name(f) for f in ("if", "then", "else")]
        if any(p is None for p in parts):  # pragma: no cover
            raise self.unsupported(node)
        cond, then, else_ = (self.expr(p) for p in parts if p is not None)
        return ast.If(self.loc(node), cond, then, else_)

    def _case(self, node: Node) -> ast.Expr:
        arms: list[ast.CaseArm] = []
        other: ast.Expr | None = None
        for child in operands(node):
            parts = operands(child)
            if child.type == "case_arm" and len(parts) == 2:
                arms.append(ast.CaseArm(self.expr(parts[0]), self.expr(parts[1])))
            elif child.type == "other_arm" and len(parts) == 1:
                other = self.expr(parts[0])
            else:  # pragma: no cover
                raise self.unsupported(child)
        return ast.Case(self.loc(node), tuple(arms), other)

    def _let(self, node: Node) -> ast.Expr:
        defs = tuple(self.definition(d) for d in node.children_by_field_name("definitions"))
        body = node.child_by_field_name("expression")
        if body is None:  # pragma: no cover
            raise self.unsupported(node)
        return ast.Let(self.loc(node), defs, self.expr(body))

    def bound(self, node: Node) -> ast.Bound:
        """A ``quantifier_bound`` node: ``x, y \\in S`` or ``<<x, y>> \\in S``."""
        intro = [c for c in node.children_by_field_name("intro") if c.is_named and not c.is_extra]
        domain = node.child_by_field_name("set")
        if domain is None:  # pragma: no cover
            raise self.unsupported(node)
        names, tuple_pattern = self._intro_names(intro)
        return ast.Bound(names, tuple_pattern, self.expr(domain), self.loc(node))

    def _intro_names(self, intro: list[Node]) -> tuple[tuple[str, ...], bool]:
        intro = [c for c in intro if not c.is_extra]
        if len(intro) == 1 and intro[0].type == "tuple_of_identifiers":
            ids = [c for c in operands(intro[0]) if c.type == "identifier"]
            return tuple(self.text(c) for c in ids), True
        for c in intro:
            if c.type != "identifier":
                raise self.unsupported(c, "bound variable form")
        return tuple(self.text(c) for c in intro), False

    def _bounds(self, node: Node, field_name: str | None = None) -> tuple[ast.Bound, ...]:
        kids = node.children_by_field_name(field_name) if field_name else node.named_children
        return tuple(self.bound(c) for c in kids if c.type == "quantifier_bound")

    def _body(self, node: Node) -> ast.Expr:
        body = node.child_by_field_name("expression")
        if body is None:  # pragma: no cover
            raise self.unsupported(node)
        return self.expr(body)

    def _bounded_quant(self, node: Node) -> ast.Expr:
        quant = node.child_by_field_name("quantifier")
        if quant is None or quant.type not in ("forall", "exists"):
            raise self.unsupported(node, "quantifier")
        kind = _QUANTIFIERS[quant.type]
        return ast.Quant(self.loc(node), kind, self._bounds(node, "bound"), self._body(node))

    def _unbounded_quant(self, node: Node) -> ast.Expr:
        quant = node.child_by_field_name("quantifier")
        if quant is None or quant.type not in _QUANTIFIERS:  # pragma: no cover
            raise self.unsupported(node, "quantifier")
        intro = [c for c in node.children_by_field_name("intro") if c.is_named]
        names, _ = self._intro_names(intro)
        return ast.UnboundedQuant(self.loc(node), _QUANTIFIERS[quant.type], names, self._body(node))

    def _choose(self, node: Node) -> ast.Expr:
        intro = [c for c in node.children_by_field_name("intro") if c.is_named]
        names, tuple_pattern = self._intro_names(intro)
        domain = node.child_by_field_name("set")
        return ast.Choose(
            self.loc(node),
            names,
            tuple_pattern,
            None if domain is None else self.expr(domain),
            self._body(node),
        )

    def _set_enum(self, node: Node) -> ast.Expr:
        return ast.SetEnum(self.loc(node), tuple(self.expr(c) for c in operands(node)))

    def _set_filter(self, node: Node) -> ast.Expr:
        generator = node.child_by_field_name("generator")
        pred = node.child_by_field_name("filter")
        if generator is None or pred is None:  # pragma: no cover
            raise self.unsupported(node)
        return ast.SetFilter(self.loc(node), self.bound(generator), self.expr(pred))

    def _set_map(self, node: Node) -> ast.Expr:
        expr = node.child_by_field_name("map")
        if expr is None:  # pragma: no cover
            raise self.unsupported(node)
        return ast.SetMap(self.loc(node), self.expr(expr), self._bounds(node, "generator"))

    def _fn_construct(self, node: Node) -> ast.Expr:
        parts = operands(node)
        return ast.FnConstruct(self.loc(node), self._bounds(node), self.expr(parts[-1]))

    def _fn_set(self, node: Node) -> ast.Expr:
        domain, range_ = operands(node)
        return ast.FnSet(self.loc(node), self.expr(domain), self.expr(range_))

    def _fn_app(self, node: Node) -> ast.Expr:
        fn, *args = operands(node)
        return ast.FnApp(self.loc(node), self.expr(fn), tuple(self.expr(a) for a in args))

    def _except(self, node: Node) -> ast.Expr:
        target = node.child_by_field_name("expr_to_update")
        if target is None:  # pragma: no cover
            raise self.unsupported(node)
        updates: list[ast.ExceptUpdate] = []
        for update in operands(node):
            if update.type != "except_update":
                continue
            spec = next(
                (c for c in update.named_children if c.type == "except_update_specifier"), None
            )
            value = update.child_by_field_name("new_val")
            if spec is None or value is None:  # pragma: no cover
                raise self.unsupported(update)
            path: list[ast.ExceptPath] = []
            for step in operands(spec):
                if step.type == "except_update_record_field":
                    path.append(ast.ExceptPath(self.text(operands(step)[0]), ()))
                elif step.type == "except_update_fn_appl":
                    index = tuple(self.expr(e) for e in operands(step))
                    path.append(ast.ExceptPath(None, index))
                else:  # pragma: no cover
                    raise self.unsupported(step)
            updates.append(ast.ExceptUpdate(tuple(path), self.expr(value)))
        return ast.Except(self.loc(node), self.expr(target), tuple(updates))

    def _at(self, node: Node) -> ast.Expr:
        return ast.At(self.loc(node))

    def _fields(self, node: Node) -> tuple[tuple[str, ast.Expr], ...]:
        parts = operands(node)
        return tuple(
            (self.text(parts[i]), self.expr(parts[i + 1])) for i in range(0, len(parts), 2)
        )

    def _record(self, node: Node) -> ast.Expr:
        return ast.RecordConstruct(self.loc(node), self._fields(node))

    def _record_set(self, node: Node) -> ast.Expr:
        return ast.RecordSet(self.loc(node), self._fields(node))

    def _field_access(self, node: Node) -> ast.Expr:
        record, name = operands(node)
        return ast.FieldAccess(self.loc(node), self.expr(record), self.text(name))

    def _tuple(self, node: Node) -> ast.Expr:
        return ast.Tuple(self.loc(node), tuple(self.expr(c) for c in operands(node)))

    def _lambda(self, node: Node) -> ast.Expr:
        parts = operands(node)
        params = tuple(self.text(c) for c in parts[:-1])
        return ast.Lambda(self.loc(node), params, self.expr(parts[-1]))

    def _action_box(self, node: Node) -> ast.Expr:
        action, sub = operands(node)
        box = node.type == "step_expr_or_stutter"
        return ast.ActionBox(self.loc(node), self.expr(action), self.expr(sub), box)

    def _fairness(self, node: Node) -> ast.Expr:
        sub, action = operands(node)
        kind = "WF" if self.text(node).startswith("WF_") else "SF"
        return ast.Fairness(self.loc(node), kind, self.expr(sub), self.expr(action))

    # ------------------------------------------------------------------ definitions

    def annotation(self, node: Node) -> str | None:
        """The comments directly above a definition or declaration."""
        return self.comments.leading(node.start_byte, own_line=True)

    def params(self, node: Node) -> tuple[ast.Param, ...]:
        """The parameters of an operator definition: ``x`` or ``F(_, _)``."""
        out: list[ast.Param] = []
        for p in node.children_by_field_name("parameter"):
            if p.type == "identifier":
                out.append(ast.Param(self.text(p), 0))
            elif p.type == "operator_declaration":
                out.append(self.declared_operator(p))
        return tuple(out)

    def declared_operator(self, node: Node) -> ast.Param:
        """An ``operator_declaration`` such as ``F(_, _)``: its name and arity."""
        name = node.child_by_field_name("name")
        if name is None:  # pragma: no cover
            raise self.unsupported(node)
        arity = sum(1 for c in node.children_by_field_name("parameter") if c.type == "placeholder")
        if name.type != "identifier":
            return ast.Param(self.symbol(name), arity)
        return ast.Param(self.text(name), arity)

    def named_statement(self, node: Node, name: str, statement: Node) -> ast.OpDef:
        """``THEOREM T == e`` / ``ASSUME A == e`` as the definition ``T == e`` (its labels
        and one-item lists kept for ``T!lbl`` and ``T!1``)."""
        expr, labels, singles = self._labelled_body(statement)
        return ast.OpDef(self.loc(node), name, (), expr, False, None, tuple(labels.items()),
                         tuple(singles))

    def _labelled_body(self, node: Node) -> tuple[ast.Expr, dict[str, ast.Expr | None], list[ast.Expr]]:
        """A definition's body, with the labels and one-item lists met in it."""
        self._labels.append({})
        self._singles.append([])
        try:
            expr = self.expr(node)
        finally:
            labels = self._labels.pop()
            singles = self._singles.pop()
        return expr, labels, singles

    def definition(
        self, node: Node, local: bool = False, annotated: Node | None = None
    ) -> ast.Unit:
        """An operator/function definition or RECURSIVE declaration (module level or LET).

        ``annotated`` is the node whose leading comments annotate the definition
        (the enclosing ``LOCAL`` one, if any).
        """
        if annotated is None:
            annotated = node
        if node.type == "local_definition":
            inner = operands(node)
            if not inner:  # pragma: no cover
                return self._bad(node)
            return self.definition(inner[0], local=True, annotated=node)
        if node.type == "operator_definition":
            name = node.child_by_field_name("name")
            body = node.child_by_field_name("definition")
            if name is None or body is None:  # pragma: no cover
                raise self.unsupported(node)
            op_name = self.text(name) if name.type == "identifier" else self.symbol(name)
            expr, labels, singles = self._labelled_body(body)
            return ast.OpDef(
                self.loc(node),
                op_name,
                self.params(node),
                expr,
                local,
                self.annotation(annotated),
                tuple(labels.items()),
                tuple(singles),
            )
        if node.type == "function_definition":
            name = node.child_by_field_name("name")
            body = node.child_by_field_name("definition")
            if name is None or body is None:  # pragma: no cover
                raise self.unsupported(node)
            return ast.FnDef(
                self.loc(node),
                self.text(name),
                self._bounds(node),
                self.expr(body),
                local,
                self.annotation(annotated),
            )
        if node.type == "recursive_declaration":
            names: list[tuple[str, int]] = []
            for c in operands(node):
                if c.type == "identifier":
                    names.append((self.text(c), 0))
                elif c.type == "operator_declaration":
                    p = self.declared_operator(c)
                    names.append((p.name, p.arity))
            return ast.Recursive(self.loc(node), tuple(names))
        if node.type in ("module_definition", "instance"):
            return self.instance(node, local)
        return self._bad(node)

    def _bad(self, node: Node) -> ast.Unit:
        raise self.unsupported(node, f"definition '{node.type}'")

    def instance(self, node: Node, local: bool) -> ast.Instance:
        """``INSTANCE M WITH ...`` or ``I(p) == INSTANCE M WITH ...``."""
        name: str | None = None
        params: tuple[ast.Param, ...] = ()
        inst = node
        if node.type == "module_definition":
            name_node = node.child_by_field_name("name")
            inst_node = node.child_by_field_name("definition")
            if name_node is None or inst_node is None:  # pragma: no cover
                raise self.unsupported(node)
            name, params, inst = self.text(name_node), self.params(node), inst_node
        parts = operands(inst)
        if not parts:  # pragma: no cover
            raise self.unsupported(inst)
        module = self.text(parts[0])
        subs: list[tuple[str, ast.Expr]] = []
        for sub in parts[1:]:
            if sub.type != "substitution":  # pragma: no cover
                raise self.unsupported(sub)
            target, value = operands(sub)
            target_name = (
                self.text(target) if target.type == "identifier_ref" else self.symbol(target)
            )
            subs.append((target_name, self.expr(value)))
        return ast.Instance(self.loc(node), module, tuple(subs), local, name, params)
