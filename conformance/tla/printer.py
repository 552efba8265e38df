"""A compact TLA+ rendering of AST expressions, for diagnostics (the parser keeps no text).

The output is valid-looking TLA+ on one line; sub-expressions are parenthesised
whenever they are operator applications, so the rendering never misleads about
precedence. Long renderings are shortened with ``...``.
"""

from __future__ import annotations

from conformance.tla import syntax as S

_INFIX = frozenset({
    "=", "/=", "\\in", "\\notin", "\\cup", "\\cap", "\\", "\\subseteq", "\\subset",
    "\\supseteq", "\\supset", "+", "-", "*", "^", "\\div", "%", "<", "<=", ">", ">=",
    "..", "=>", "<=>", "\\o", ":>", "@@", "(+)", "(-)", "\\oplus", "\\ominus",
    "\\sqsubseteq", "/\\", "\\/",
})
_PREFIX = {"~": "~", "-.": "-", "SUBSET": "SUBSET ", "UNION": "UNION ", "DOMAIN": "DOMAIN "}

MAX_WIDTH = 160


def render(node: S.Expr, width: int = MAX_WIDTH) -> str:
    """One-line TLA+ text of ``node``, at most ``width`` characters."""
    text = _r(node)
    return text if len(text) <= width else text[: width - 3] + "..."


def _paren(node: S.Expr) -> str:
    text = _r(node)
    if isinstance(node, (S.OpApp, S.And, S.Or, S.If, S.Case, S.Let, S.Quant, S.Choose)) and \
            not (isinstance(node, S.OpApp) and (not node.args or (node.name not in _INFIX
                                                and node.name not in _PREFIX))):
        return f"({text})"
    return text


def _bound(b: S.Bound) -> str:
    names = f"<<{', '.join(b.names)}>>" if b.tuple_pattern else ", ".join(b.names)
    return f"{names} \\in {_r(b.domain)}"


def _args(args: tuple[S.Expr, ...]) -> str:
    return ", ".join(_r(a) for a in args)


def _definition(unit: S.Unit) -> str:
    if isinstance(unit, S.OpDef):
        params = ", ".join(p.name if not p.arity else f"{p.name}({', '.join('_' * p.arity)})"
                           for p in unit.params)
        head = f"{unit.name}({params})" if unit.params else unit.name
        return f"{head} == {_r(unit.body)}"
    if isinstance(unit, S.FnDef):
        return f"{unit.name}[{', '.join(_bound(b) for b in unit.bounds)}] == {_r(unit.body)}"
    return type(unit).__name__


def _r(node: S.Expr) -> str:
    if isinstance(node, S.Num):
        return str(node.value)
    if isinstance(node, S.Str):
        return '"' + node.value.replace("\\", "\\\\").replace('"', '\\"') + '"'
    if isinstance(node, S.Bool):
        return "TRUE" if node.value else "FALSE"
    if isinstance(node, S.Name):
        return node.name
    if isinstance(node, S.OpApp):
        if node.name in _INFIX and len(node.args) == 2:
            return f"{_paren(node.args[0])} {node.name} {_paren(node.args[1])}"
        if node.name in _PREFIX and len(node.args) == 1:
            return f"{_PREFIX[node.name]}{_paren(node.args[0])}"
        if node.name == "\\times":
            return " \\X ".join(_paren(a) for a in node.args)
        return f"{node.name}({_args(node.args)})" if node.args else node.name
    if isinstance(node, S.InstanceOpApp):
        head = "!".join((*node.path, node.name))
        return f"{head}({_args(node.args)})" if node.args else head
    if isinstance(node, S.And):
        return " /\\ ".join(_paren(x) for x in node.items)
    if isinstance(node, S.Or):
        return " \\/ ".join(_paren(x) for x in node.items)
    if isinstance(node, S.If):
        return f"IF {_r(node.cond)} THEN {_r(node.then)} ELSE {_r(node.else_)}"
    if isinstance(node, S.Case):
        arms = " [] ".join(f"{_r(a.cond)} -> {_r(a.value)}" for a in node.arms)
        other = f" [] OTHER -> {_r(node.other)}" if node.other is not None else ""
        return f"CASE {arms}{other}"
    if isinstance(node, S.Let):
        defs = " ".join(_definition(d) for d in node.defs if not isinstance(d, S.Recursive))
        return f"LET {defs} IN {_r(node.body)}"
    if isinstance(node, S.Quant):
        return f"\\{node.kind} {', '.join(_bound(b) for b in node.bounds)} : {_r(node.body)}"
    if isinstance(node, S.UnboundedQuant):
        return f"\\{node.kind} {', '.join(node.names)} : {_r(node.body)}"
    if isinstance(node, S.Choose):
        names = f"<<{', '.join(node.names)}>>" if node.tuple_pattern else ", ".join(node.names)
        dom = f" \\in {_r(node.domain)}" if node.domain is not None else ""
        return f"CHOOSE {names}{dom} : {_r(node.body)}"
    if isinstance(node, S.SetEnum):
        return "{" + _args(node.items) + "}"
    if isinstance(node, S.SetFilter):
        return "{" + f"{_bound(node.bound)} : {_r(node.pred)}" + "}"
    if isinstance(node, S.SetMap):
        return "{" + f"{_r(node.expr)} : {', '.join(_bound(b) for b in node.bounds)}" + "}"
    if isinstance(node, S.FnConstruct):
        return f"[{', '.join(_bound(b) for b in node.bounds)} |-> {_r(node.body)}]"
    if isinstance(node, S.FnSet):
        return f"[{_r(node.domain)} -> {_r(node.range)}]"
    if isinstance(node, S.FnApp):
        return f"{_paren(node.fn)}[{_args(node.args)}]"
    if isinstance(node, S.Except):
        ups = []
        for u in node.updates:
            path = "".join(f".{p.field}" if p.field is not None else f"[{_args(p.index)}]"
                           for p in u.path)
            ups.append(f"!{path} = {_r(u.value)}")
        return f"[{_r(node.fn)} EXCEPT {', '.join(ups)}]"
    if isinstance(node, S.At):
        return "@"
    if isinstance(node, S.RecordConstruct):
        return "[" + ", ".join(f"{n} |-> {_r(v)}" for n, v in node.fields) + "]"
    if isinstance(node, S.RecordSet):
        return "[" + ", ".join(f"{n} : {_r(v)}" for n, v in node.fields) + "]"
    if isinstance(node, S.FieldAccess):
        return f"{_paren(node.record)}.{node.field}"
    if isinstance(node, S.Tuple):
        return f"<<{_args(node.items)}>>"
    if isinstance(node, S.Lambda):
        return f"LAMBDA {', '.join(node.params)} : {_r(node.body)}"
    if isinstance(node, S.Prime):
        return f"{_paren(node.expr)}'"
    if isinstance(node, S.Unchanged):
        return f"UNCHANGED {_paren(node.expr)}"
    if isinstance(node, S.ActionBox):
        return f"[{_r(node.action)}]_{_paren(node.sub)}" if node.box else \
            f"<<{_r(node.action)}>>_{_paren(node.sub)}"
    if isinstance(node, S.Temporal):
        if len(node.args) == 2:
            return f"{_paren(node.args[0])} {node.op} {_paren(node.args[1])}"
        return f"{node.op}{_paren(node.args[0])}"
    if isinstance(node, S.Fairness):
        return f"{node.kind}_{_paren(node.sub)}({_r(node.action)})"
    return type(node).__name__
