"""Coverage of ``Next``: which actions and disjuncts (by source location) traces exercised.

``next_disjuncts`` splits ``Next`` statically the way the engine labels successors: through
``\\/``, ``\\E``, ``LET`` and applications of user-defined operators, until a conjunction
(or any other expression) is reached; the label is the innermost user operator on the way.
``Coverage`` counts hits per action and per disjunct and lists what was never reached.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import PurePath
from typing import Any

from conformance.tla.loader import ModuleLoader
from conformance.tla.syntax import (
    Expr,
    FnDef,
    Let,
    Loc,
    Module,
    Name,
    OpApp,
    OpDef,
    Or,
    Quant,
    Unit,
)


@dataclass(frozen=True)
class Disjunct:
    """One disjunct of ``Next``: the action it belongs to and where it stands."""

    action: str
    loc: Loc

    @property
    def key(self) -> str:
        return disjunct_key(self.action, self.loc)


def disjunct_key(action: str, loc: Loc) -> str:
    """``Action@File.tla:line:col`` -- independent of how the spec's path was spelled."""
    return f"{action}@{PurePath(loc.file).name}:{loc.line}:{loc.col}"


def module_definitions(module: Module, loader: ModuleLoader | None = None) -> dict[str, Unit]:
    """User operator definitions of a module and of the non-standard modules it extends."""
    defs: dict[str, Unit] = {}
    if loader is not None:
        for name in module.extends:
            if not loader.is_standard(name):
                defs.update(module_definitions(loader.load(name), loader))
    for unit in module.units:
        if isinstance(unit, (OpDef, FnDef)):
            defs[unit.name] = unit
    return defs


def next_disjuncts(definitions: Mapping[str, Unit], next_name: str = "Next") -> list[Disjunct]:
    """The disjuncts of ``next_name`` in source order (one per action body branch)."""
    out: list[Disjunct] = []
    seen: set[tuple[str, Loc]] = set()

    def walk(expr: Expr, label: str, stack: tuple[str, ...]) -> None:
        if isinstance(expr, Or):
            for item in expr.items:
                walk(item, label, stack)
            return
        if isinstance(expr, Quant) and expr.kind == "E":
            walk(expr.body, label, stack)
            return
        if isinstance(expr, Let):
            walk(expr.body, label, stack)
            return
        if isinstance(expr, (OpApp, Name)) and _name(expr) not in stack:
            unit = definitions.get(_name(expr))
            nargs = len(expr.args) if isinstance(expr, OpApp) else 0
            if isinstance(unit, OpDef) and len(unit.params) == nargs:
                walk(unit.body, unit.name, (*stack, unit.name))
                return
        if (label, expr.loc) not in seen:
            seen.add((label, expr.loc))
            out.append(Disjunct(label, expr.loc))

    unit = definitions.get(next_name)
    if not isinstance(unit, OpDef):
        raise KeyError(f"the spec has no operator {next_name}")
    walk(unit.body, next_name, (next_name,))
    return out


def _name(expr: OpApp | Name) -> str:
    return expr.name


def actions_of(disjuncts: Iterable[Disjunct]) -> list[str]:
    """Action names in order of first appearance."""
    return list(dict.fromkeys(d.action for d in disjuncts))


@dataclass
class Coverage:
    """Hit counts of the actions and disjuncts of ``Next`` over one or many traces."""

    disjuncts: list[Disjunct]
    action_hits: Counter[str] = field(default_factory=Counter)
    disjunct_hits: Counter[str] = field(default_factory=Counter)

    def record(self, action: str, disjunct_key: str | None) -> None:
        self.action_hits[action] += 1
        if disjunct_key is not None:
            self.disjunct_hits[disjunct_key] += 1

    def merge(self, other: Coverage) -> None:
        self.action_hits.update(other.action_hits)
        self.disjunct_hits.update(other.disjunct_hits)

    def actions(self) -> list[str]:
        return actions_of(self.disjuncts)

    def unreached_actions(self) -> list[str]:
        return [a for a in self.actions() if self.action_hits[a] == 0]

    def unreached_disjuncts(self) -> list[Disjunct]:
        return [d for d in self.disjuncts if self.disjunct_hits[d.key] == 0]

    def to_json(self) -> dict[str, Any]:
        return {
            "actions": {a: self.action_hits[a] for a in self.actions()},
            "disjuncts": [
                {"action": d.action, "location": str(d.loc), "hits": self.disjunct_hits[d.key]}
                for d in self.disjuncts
            ],
            "unreached_actions": self.unreached_actions(),
            "unreached_disjuncts": [d.key for d in self.unreached_disjuncts()],
        }

    @classmethod
    def from_counts(cls, disjuncts: list[Disjunct], counts: dict[str, int]) -> Coverage:
        """Rebuild from a trace report's flat counts (``action:NAME`` and disjunct keys)."""
        cov = cls(disjuncts)
        for key, n in counts.items():
            if key.startswith("action:"):
                cov.action_hits[key[len("action:"):]] += n
            else:
                cov.disjunct_hits[key] += n
        return cov

    def to_counts(self) -> dict[str, int]:
        counts = {f"action:{a}": n for a, n in self.action_hits.items()}
        counts.update(self.disjunct_hits)
        return counts
