"""Which parameters an operator's body always evaluates, and which it never reads.

TLA+ (and TLC) evaluates an operator's argument only where the body uses it: with
``Pick(c, a, b) == IF c THEN a ELSE b``, ``Pick(TRUE, 0, Head(<<>>))`` is 0. The engine
evaluates an argument at the call when the body is *strict* in its parameter (every
evaluation of the body reads it, or fails before it could), since an error of that
argument is then an error of the call in TLC as well. Any other argument's error is
deferred to where the body reads the parameter (``arguments.py``).

The analysis is conservative: a parameter it cannot show to be read is not strict, which
costs a check on each read and never changes a result.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from conformance.tla import syntax as S
from conformance.tla.astwalk import children, walk

# operators that may return without evaluating their later operands
_SHORT_CIRCUIT = frozenset({"/\\", "\\/", "=>"})
# operators whose operands are not evaluated as values in the current state
_NOT_EVALUATED = frozenset({"ENABLED", "\\cdot", "[]", "<>", "~>", "-+->"})

Strict = frozenset[str]
Lookup = Callable[[str], Any]
_NONE: Strict = frozenset()


class Strictness:
    """Strict parameters of definitions, computed once per definition."""

    def __init__(self, callee: Callable[[Any], tuple[S.OpDef, Lookup] | None]) -> None:
        # ``callee(entry)``: the operator definition an entry of a name table stands for and
        # the lookup of names in its body's scope, or None for anything else
        self._callee = callee
        self._cache: dict[int, tuple[S.OpDef, Strict]] = {}

    def params(self, unit: S.OpDef, lookup: Lookup) -> Strict:
        """The zero-arity parameters of ``unit`` its body is strict in."""
        hit = self._cache.get(id(unit))
        if hit is not None and hit[0] is unit:
            return hit[1]
        self._cache[id(unit)] = (unit, _NONE)  # a recursive call: assume none is strict
        tracked = {p.name: frozenset((p.name,)) for p in unit.params if p.arity == 0}
        walk = _Walk(self, lookup, {p.name for p in unit.params if p.arity})
        result = walk.strict(unit.body, tracked) & frozenset(tracked)
        self._cache[id(unit)] = (unit, result)
        return result


class _Walk:
    """One analysis: ``tracked`` maps each name whose value depends on the parameters
    (a parameter, a zero-arity LET definition) to the parameters evaluating it reads."""

    def __init__(self, owner: Strictness, lookup: Lookup, operators: set[str]) -> None:
        self.owner = owner
        self.lookup = lookup
        self.operators = operators  # operator parameters: what they evaluate is unknown
        self.visiting: set[int] = set()  # LET operators being analysed (recursion: none)

    def strict(self, node: S.Expr, tracked: Mapping[str, Strict],
               lets: Mapping[str, S.OpDef] | None = None) -> Strict:
        lets = lets or {}
        t = type(node)
        if t is S.Name or t is S.OpApp:
            return self._apply(node, tracked, lets)
        if t is S.And or t is S.Or:
            items = node.items  # type: ignore[attr-defined]
            return self.strict(items[0], tracked, lets) if items else _NONE
        if t is S.If:
            assert isinstance(node, S.If)
            both = self.strict(node.then, tracked, lets) & self.strict(node.else_, tracked, lets)
            return self.strict(node.cond, tracked, lets) | both
        if t is S.Case:
            assert isinstance(node, S.Case)
            return self.strict(node.arms[0].cond, tracked, lets) if node.arms else _NONE
        if t is S.Let:
            assert isinstance(node, S.Let)
            return self._let(node, tracked, lets)
        if t is S.Quant or t is S.SetMap or t is S.FnConstruct:
            bounds = node.bounds  # type: ignore[attr-defined]
            return self.strict(bounds[0].domain, tracked, lets) if bounds else _NONE
        if t is S.SetFilter:
            assert isinstance(node, S.SetFilter)
            return self.strict(node.bound.domain, tracked, lets)
        if t is S.Choose:
            assert isinstance(node, S.Choose)
            return self.strict(node.domain, tracked, lets) if node.domain is not None else _NONE
        if t is S.SetEnum or t is S.Tuple:
            return self._union(node.items, tracked, lets)  # type: ignore[attr-defined]
        if t is S.RecordConstruct or t is S.RecordSet:
            fields = node.fields  # type: ignore[attr-defined]
            return self._union([e for _, e in fields], tracked, lets)
        if t is S.FnSet:
            assert isinstance(node, S.FnSet)
            return self._union([node.domain, node.range], tracked, lets)
        if t is S.FnApp:
            assert isinstance(node, S.FnApp)
            return self._union([node.fn, *node.args], tracked, lets)
        if t is S.FieldAccess:
            assert isinstance(node, S.FieldAccess)
            return self.strict(node.record, tracked, lets)
        if t is S.Except:  # the function and every key; a value only where its key is
            assert isinstance(node, S.Except)
            keys = [k for u in node.updates for step in u.path for k in step.index]
            return self._union([node.fn, *keys], tracked, lets)
        return _NONE  # literals, LAMBDA, primes, temporal operators, instances: nothing shown

    def _union(self, nodes: Any, tracked: Mapping[str, Strict],
               lets: Mapping[str, S.OpDef]) -> Strict:
        out = _NONE
        for n in nodes:
            out = out | self.strict(n, tracked, lets)
        return out

    def _let(self, node: S.Let, tracked: Mapping[str, Strict],
             lets: Mapping[str, S.OpDef]) -> Strict:
        inner_tracked = dict(tracked)
        inner_lets = dict(lets)
        for d in node.defs:
            if isinstance(d, S.OpDef) and not d.params:
                inner_tracked[d.name] = self.strict(d.body, inner_tracked, inner_lets)
            elif isinstance(d, S.OpDef):
                inner_lets[d.name] = d
                inner_tracked.pop(d.name, None)
            elif isinstance(d, S.FnDef):
                inner_tracked.pop(d.name, None)
                inner_lets.pop(d.name, None)
        return self.strict(node.body, inner_tracked, inner_lets)

    def _apply(self, node: S.Expr, tracked: Mapping[str, Strict],
               lets: Mapping[str, S.OpDef]) -> Strict:
        name: str = node.name  # type: ignore[attr-defined]
        args: tuple[S.Expr, ...] = getattr(node, "args", ())
        if not args and name in tracked:
            return tracked[name]
        if name in self.operators:
            return _NONE
        local = lets.get(name)
        if local is not None:
            return self._let_call(local, args, tracked, lets)
        entry = self.lookup(name)
        callee = self.owner._callee(entry)
        if callee is not None:
            unit, lookup = callee
            if len(unit.params) != len(args):
                return _NONE
            strict = self.owner.params(unit, lookup)
            return self._union([a for p, a in zip(unit.params, args, strict=True)
                                if p.name in strict], tracked, lets)
        if entry is not None:
            return _NONE  # a parameter operator, a constant, a variable, an instance
        if name in _NOT_EVALUATED:
            return _NONE
        if name in _SHORT_CIRCUIT:
            return self.strict(args[0], tracked, lets) if args else _NONE
        # a built-in or standard-module operator: every operand is evaluated
        return self._union([a for a in args if not isinstance(a, S.Lambda)], tracked, lets)

    def _let_call(self, unit: S.OpDef, args: tuple[S.Expr, ...], tracked: Mapping[str, Strict],
                  lets: Mapping[str, S.OpDef]) -> Strict:
        """A call of a LET operator defined inside the analysed body: its body may read the
        enclosing parameters directly, and its own parameters through the arguments."""
        if len(unit.params) != len(args) or id(unit) in self.visiting:
            return _NONE
        own = {p.name: frozenset((p.name,)) for p in unit.params if p.arity == 0}
        self.operators.update(p.name for p in unit.params if p.arity)
        self.visiting.add(id(unit))
        try:
            body = self.strict(unit.body, {**tracked, **own}, lets)
        finally:
            self.visiting.discard(id(unit))
        out = body - frozenset(own)
        for p, a in zip(unit.params, args, strict=True):
            if p.name in body and p.name in own:
                out = out | self.strict(a, tracked, lets)
        return out


def unread_params(unit: S.OpDef, known: Callable[[S.Expr], Any]) -> Strict:
    """The zero-arity parameters of ``unit`` its body never reads: their names occur
    nowhere in it outside the branches that a condition known before any evaluation rules
    out (an ``IF`` whose condition is a constant, a ``CASE`` arm whose condition is a
    constant FALSE), as ``IF TimedRules = {} THEN UNCHANGED timers ELSE ...`` with
    ``TimedRules = {}`` reads no parameter of the ``ELSE``. Their arguments need not be
    evaluated: TLC evaluates an argument only where the body reads it.

    ``known(cond)`` is the value of a condition (a constant-level expression the body
    binds no name of), or None. Any occurrence of a parameter's name counts as a read
    (inside a LET, a LAMBDA, an argument of another call, under a binder of the same
    name), and a body that may refer to its own parts by position or label (a name
    with ``!``) reads every parameter: the analysis may miss an unread parameter but
    never calls a read one unread."""
    params = frozenset(p.name for p in unit.params if p.arity == 0)
    if not params:
        return _NONE
    bound: set[str] = set()
    for n in walk(unit.body):
        if isinstance(n, (S.Bound, S.UnboundedQuant, S.Choose, S.Lambda)):
            bound.update(n.names if not isinstance(n, S.Lambda) else n.params)
        elif isinstance(n, S.Let):
            bound.update(d.name for d in n.defs if isinstance(d, (S.OpDef, S.FnDef)))
        elif isinstance(n, S.OpDef):
            bound.update(p.name for p in n.params)

    def decided(cond: S.Expr) -> Any:
        """The value of ``cond`` when it names nothing the body binds (a bound variable
        or LET definition of the body would otherwise be looked up outside it)."""
        if any(getattr(n, "name", None) in bound for n in walk(cond)):
            return None
        return known(cond)

    read: set[str] = set()
    stack: list[Any] = [unit.body]
    while stack:
        n = stack.pop()
        name = getattr(n, "name", None)
        if isinstance(name, str):
            if "!" in name:
                return _NONE
            read.add(name)
        if isinstance(n, S.If):
            value = decided(n.cond)
            stack.append(n.cond)
            if value is not False:
                stack.append(n.then)
            if value is not True:
                stack.append(n.else_)
            continue
        if isinstance(n, S.CaseArm):
            stack.append(n.cond)
            if decided(n.cond) is not False:
                stack.append(n.value)
            continue
        stack.extend(children(n))
    return params - read
