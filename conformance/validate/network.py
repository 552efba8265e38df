"""One network for all candidate states of a trace, when the spec lets the validator share it.

Every step the validator accepts satisfies ``messages' = messages \\cup sent``, so after ``k``
steps each candidate's network is the initial network plus the messages the first ``k``
events sent: a function of the trace, not of the candidate. When the spec's steps use the
network only to add to it, the validator can keep that network once, outside the states
(``SharedNetwork``), and run the steps on states whose network is the empty set: the
successor's network is then exactly what the step sends. This makes a step's cost
independent of how many messages were sent before it (the network is neither copied nor
compared per successor) and keeps one copy of it in memory.

``sharing_refusal`` is the static check that makes this exact: every use of the network
variable in the definitions the validator evaluates must be ``v' = v \\cup E`` (``E`` not
reading ``v``), a variable of ``UNCHANGED``, or the whole ``\\E`` domain of an action's
parameter in ``Next`` (a membership test the shared network answers); and no way through an
action may constrain ``v'`` twice (``Send(a) /\\ Send(b)`` holds in the spec when both are
already in the network, and would not on the empty set). Anything else — a guard reading
the network, a filtered domain, an instance — keeps the network in the states.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from conformance.tla import syntax as S
from conformance.tla.astwalk import children
from conformance.tla.values import Value
from conformance.validate.first_steps import IN_MEMORY, FirstSteps


def _cup_leaves(node: S.Expr) -> list[S.Expr]:
    """The operands of a chain of unions, left to right."""
    if isinstance(node, S.OpApp) and node.name in ("\\cup", "\\union") and len(node.args) == 2:
        return _cup_leaves(node.args[0]) + _cup_leaves(node.args[1])
    return [node]


class _Uses:
    """Walks the definitions reachable from some roots and records forbidden uses of a variable."""

    def __init__(self, definitions: Mapping[str, S.Unit], var: str) -> None:
        self.definitions = definitions
        self.var = var
        self.seen: set[str] = set()
        self.queue: list[str] = []
        self.refusals: list[str] = []

    def is_var(self, node: Any) -> bool:
        return isinstance(node, S.Name) and node.name == self.var

    def refuse(self, node: Any, what: str) -> None:
        loc = getattr(node, "loc", None)
        where = f"{loc}: " if loc is not None else ""
        self.refusals.append(f"{where}{what}")

    def reach(self, name: str) -> None:
        if name in self.definitions and name not in self.seen:
            self.seen.add(name)
            self.queue.append(name)

    def run(self) -> None:
        while self.queue:
            unit = self.definitions[self.queue.pop()]
            for child in children(unit):
                self.visit(child)

    def visit(self, node: Any) -> None:
        if isinstance(node, S.OpApp) and node.name == "=" and len(node.args) == 2 \
                and isinstance(node.args[0], S.Prime) and self.is_var(node.args[0].expr):
            leaves = _cup_leaves(node.args[1])
            if self.is_var(leaves[0]):
                for leaf in leaves[1:]:
                    self.visit(leaf)
                return
            self.refuse(node, f"{self.var}' is assigned something other than {self.var} \\cup ...")
            return
        if isinstance(node, S.Unchanged):
            self._unchanged(node.expr)
            return
        if isinstance(node, S.Name):
            if node.name == self.var:
                self.refuse(node, f"a step reads {self.var} (not only v' = v \\cup E)")
            else:
                self.reach(node.name)
            return
        if isinstance(node, S.Prime) and self.is_var(node.expr):
            self.refuse(node, f"{self.var}' is used outside {self.var}' = {self.var} \\cup ...")
            return
        if isinstance(node, S.InstanceOpApp):
            self.refuse(node, f"an instance operator ({'!'.join((*node.path, node.name))}) is not analysed")
            return
        if isinstance(node, S.OpApp):
            self.reach(node.name)
        for child in children(node):
            self.visit(child)

    def _unchanged(self, expr: S.Expr) -> None:
        """``UNCHANGED expr``: variables, tuples of them and names of such tuples keep the network."""
        if isinstance(expr, S.Tuple):
            for item in expr.items:
                self._unchanged(item)
            return
        if isinstance(expr, S.Name):
            unit = self.definitions.get(expr.name)
            if isinstance(unit, S.OpDef) and not unit.params:
                self._unchanged(unit.body)
            elif unit is not None:
                self.visit(expr)
            return  # a variable (the network or another one), or a constant
        self.visit(expr)

    def _unchanged_has_var(self, expr: S.Expr) -> bool:
        if isinstance(expr, S.Tuple):
            return any(self._unchanged_has_var(item) for item in expr.items)
        if isinstance(expr, S.Name):
            unit = self.definitions.get(expr.name)
            if isinstance(unit, S.OpDef) and not unit.params:
                return self._unchanged_has_var(unit.body)
            return expr.name == self.var
        return True  # not a tuple of variables: counted as a constraint (conservative)

    def writes(self, node: Any, stack: tuple[str, ...] = (), local: Mapping[str, S.Unit] | None = None) -> int:
        """How many times one way through ``node`` may constrain the network's next value
        (``v' = v \\cup E`` or ``UNCHANGED`` with ``v``), capped at 2 (conservative: a
        construct it does not follow counts the constraints of all its parts)."""
        local = local or {}
        w = self.writes
        if isinstance(node, S.OpApp) and node.name == "=" and len(node.args) == 2 \
                and isinstance(node.args[0], S.Prime) and self.is_var(node.args[0].expr):
            return 1
        if isinstance(node, S.Unchanged):
            return 1 if self._unchanged_has_var(node.expr) else 0
        if isinstance(node, S.Or):
            return max((w(x, stack, local) for x in node.items), default=0)
        if isinstance(node, S.If):
            return min(2, w(node.cond, stack, local) + max(w(node.then, stack, local), w(node.else_, stack, local)))
        if isinstance(node, S.Case):
            arms = [w(a.cond, stack, local) + w(a.value, stack, local) for a in node.arms]
            if node.other is not None:
                arms.append(w(node.other, stack, local))
            return min(2, max(arms, default=0))
        if isinstance(node, S.Let):
            inner = {**local, **{d.name: d for d in node.defs if isinstance(d, (S.OpDef, S.FnDef))}}
            return w(node.body, stack, inner)
        if isinstance(node, S.Quant) and node.kind == "E":
            return min(2, sum(w(b.domain, stack, local) for b in node.bounds)
                       + w(node.body, stack, local))
        if isinstance(node, (S.Name, S.OpApp)):
            unit = local.get(node.name) or self.definitions.get(node.name)
            if unit is not None:
                if node.name in stack:
                    return 2  # recursion through an action: not analysed
                args = node.args if isinstance(node, S.OpApp) else ()
                count = sum(w(a, stack, local) for a in args)
                body = getattr(unit, "body", None)
                if body is not None:
                    count += w(body, (*stack, node.name), local if node.name in local else None)
                return min(2, count)
        count = min(2, sum(w(c, stack, local) for c in children(node)))
        if count and hasattr(node, "bounds"):
            return 2  # \\A, a set or function constructor: the body's constraints repeat
        return count


def sharing_refusal(definitions: Mapping[str, S.Unit], roots: Iterable[str],
                    domains: Iterable[S.Expr], var: str) -> str | None:
    """Why the network ``var`` cannot be shared (None when it can): ``roots`` are the
    operators the validator evaluates on states (the actions of ``Next`` and the state
    functions it reads), ``domains`` the ``\\E`` domains of the actions' parameters."""
    uses = _Uses(definitions, var)
    for name in roots:
        uses.reach(name)
    for dom in domains:
        if not uses.is_var(dom):
            uses.visit(dom)
    uses.run()
    for name in roots:
        unit = definitions.get(name)
        if isinstance(unit, S.OpDef) and uses.writes(unit.body, (name,)) > 1:
            uses.refuse(unit, f"a way through {name} may constrain {var}' twice")
    if uses.refusals:
        more = f" (and {len(uses.refusals) - 1} more)" if len(uses.refusals) > 1 else ""
        return uses.refusals[0] + more
    return None


class SharedNetwork:
    """The network of one trace: every message with the first step that sent it.

    ``contains(m, k)``: whether ``m`` is in the network after ``k`` steps. Backtracking
    replays the same events, so the first steps never change once recorded. At most
    ``in_memory`` messages are kept in memory, the others in a temporary database
    (``FirstSteps``); ``close`` deletes it."""

    __slots__ = ("_first", "_recorded")

    def __init__(self, initial: Iterable[Value], in_memory: int = IN_MEMORY) -> None:
        self._first = FirstSteps(in_memory)
        for m in initial:
            self._first.add(m, 0)
        self._recorded = 0  # the last step whose messages were recorded

    def close(self) -> None:
        self._first.close()

    def record(self, step: int, sent: Iterable[Value]) -> None:
        """Add the messages event ``step`` sent (once per step; replays are ignored)."""
        if step <= self._recorded:
            return
        first = self._first
        for m in sent:
            first.add(m, step)
        self._recorded = step

    def contains(self, m: Value, steps: int) -> bool:
        found = self._first.get(m)
        return found is not None and found <= steps

    def new_messages(self, sent: frozenset[Value], steps: int) -> frozenset[Value]:
        """The messages of ``sent`` not in the network after ``steps`` steps."""
        return frozenset(m for m in sent if not self.contains(m, steps))

    def grows_by(self, sends: Any, new: frozenset[Value], steps: int) -> bool:
        """Whether ``network \\cup sends = network \\cup sent`` after ``steps`` steps, where
        ``new`` is ``sent`` minus the network: ``sends`` holds ``new`` and else old messages."""
        if type(sends) is not frozenset or not new <= sends:
            return False
        return all(m in new or self.contains(m, steps) for m in sends)

    def as_set(self, steps: int) -> frozenset[Value]:
        """The network after ``steps`` steps, as the spec's value (for diagnostics)."""
        return frozenset(m for m, k in self._first.items() if k <= steps)
