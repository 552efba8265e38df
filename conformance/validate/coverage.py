"""Coverage of ``Next``: which actions and disjuncts (by source location) traces exercised.

``next_disjuncts`` splits ``Next`` statically the way the engine labels successors: through
``\\/``, ``\\E``, ``LET`` and applications of user-defined operators, until a conjunction
(or any other expression) is reached; the label is the innermost user operator on the way and
the location is that of its application.
``Coverage`` counts hits per action and per disjunct and lists what was never reached.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import PurePath
from typing import Any

from conformance.tla.astwalk import walk as walk_ast
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

ParamDomain = tuple[str, Expr] | None  # (bound variable, its domain in Next) or unknown


@dataclass(frozen=True)
class Disjunct:
    """One disjunct of ``Next`` as the engine labels it: the innermost action operator and the
    location of its application (the call site). ``domains`` gives, per parameter of the action,
    the ``\\E`` bound it comes from in ``Next`` (so a step can check that, e.g., a handled
    message is in ``messages``), or None when the argument is not a plain bound variable."""

    action: str
    loc: Loc
    params: tuple[str, ...] = field(default=(), compare=False)
    domains: tuple[ParamDomain, ...] = field(default=(), compare=False)
    key: str = field(default="", compare=False, init=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "key", disjunct_key(self.action, self.loc))


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


def _mentions(expr: Expr, names: Iterable[str]) -> bool:
    wanted = set(names)
    return any(isinstance(n, Name) and n.name in wanted for n in walk_ast(expr))


def next_disjuncts(definitions: Mapping[str, Unit], next_name: str = "Next") -> list[Disjunct]:
    """The disjuncts of ``next_name`` in source order, one per action call site."""
    out: dict[tuple[str, Loc], Disjunct] = {}

    def walk(expr: Expr, label: str, loc: Loc, params: tuple[str, ...],
             env: dict[str, ParamDomain], stack: tuple[str, ...]) -> None:
        if isinstance(expr, Or):
            for item in expr.items:
                walk(item, label, loc, params, env, stack)
            return
        if isinstance(expr, Quant) and expr.kind == "E":
            inner = dict(env)
            for b in expr.bounds:
                for n in b.names:
                    usable = not b.tuple_pattern and not _mentions(b.domain, env)
                    inner[n] = (n, b.domain) if usable else None
            walk(expr.body, label, loc, params, inner, stack)
            return
        if isinstance(expr, Let):
            inner = {k: v for k, v in env.items() if all(getattr(d, "name", None) != k for d in expr.defs)}
            walk(expr.body, label, loc, params, inner, stack)
            return
        if isinstance(expr, (OpApp, Name)) and expr.name not in stack:
            unit = definitions.get(expr.name)
            args = expr.args if isinstance(expr, OpApp) else ()
            if isinstance(unit, OpDef) and len(unit.params) == len(args):
                names = tuple(p.name for p in unit.params)
                inner = {p: (env.get(a.name) if isinstance(a, Name) else None) for p, a in zip(names, args, strict=True)}
                walk(unit.body, unit.name, expr.loc, names, inner, (*stack, unit.name))
                return
        if (label, loc) not in out:
            out[(label, loc)] = Disjunct(label, loc, params, tuple(env.get(p) for p in params))

    unit = definitions.get(next_name)
    if not isinstance(unit, OpDef):
        raise KeyError(f"the spec has no operator {next_name}")
    walk(unit.body, next_name, unit.loc, (), {}, (next_name,))
    return list(out.values())


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
