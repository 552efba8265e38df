"""Apalache compatibility lint of TLA+ modules.

Reports every CONSTANT/VARIABLE without a parsable ``@type:`` annotation (aliases from
``@typeAlias:`` anywhere in comments are honoured) and constructs Apalache rejects:
RECURSIVE operators, recursive functions, unbounded ``\\A``/``\\E``/``CHOOSE``,
``Seq(S)`` used as a set to quantify over or enumerate, ``STRING`` as a domain, and
``Nat``/``Int`` as a domain to quantify over, choose from or enumerate.

Also builds the per-variable type check the explorer runs with ``--typecheck``.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from itertools import compress
from operator import is_not
from pathlib import Path

from conformance.tla import syntax as S
from conformance.tla.apalache_types import (
    Type,
    TypeSyntaxError,
    ValueTypeChecker,
    describe_mismatch,
    find_annotations,
    parse_alias,
    parse_type,
    resolve,
    show,
)
from conformance.tla.astwalk import walk
from conformance.tla.loader import ModuleLoader
from conformance.tla.syntax import Loc, Module
from conformance.tla.values import Value


@dataclass(frozen=True, order=True)
class LintIssue:
    """One finding, printed as ``file:line:col: message``."""

    file: str
    line: int
    col: int
    message: str

    @classmethod
    def at(cls, loc: Loc, message: str) -> LintIssue:
        return cls(loc.file, loc.line, loc.col, message)

    def __str__(self) -> str:
        return f"{self.file}:{self.line}:{self.col}: {self.message}"


def collect_modules(loader: ModuleLoader, root: Module) -> list[Module]:
    """``root`` and every non-standard module it extends or instantiates, transitively."""
    out: list[Module] = []
    seen: set[str] = set()
    todo = [root]
    while todo:
        mod = todo.pop(0)
        if mod.name in seen:
            continue
        seen.add(mod.name)
        out.append(mod)
        names = list(mod.extends) + [u.module for u in mod.units if isinstance(u, S.Instance)]
        for unit in mod.units:
            for node in walk(unit):
                if isinstance(node, S.Let):
                    names.extend(d.module for d in node.defs if isinstance(d, S.Instance))
        for name in names:
            if not loader.is_standard(name) and name not in seen:
                todo.append(loader.load(name))
    return out


# ---------------------------------------------------------------------------
# Type annotations
# ---------------------------------------------------------------------------


@dataclass
class DeclaredTypes:
    """Types read from annotations: per constant and per variable, with the issues found."""

    constants: dict[str, Type]
    variables: dict[str, Type]
    issues: list[LintIssue]


def _aliases(modules: Sequence[Module], issues: list[LintIssue]) -> dict[str, Type]:
    raw: dict[str, tuple[Type, Loc]] = {}
    for mod in modules:
        for comment in mod.comments:
            for text in find_annotations(comment.text, "typeAlias"):
                try:
                    name, t = parse_alias(text)
                except TypeSyntaxError as exc:
                    issues.append(LintIssue.at(comment.loc, f"cannot parse @typeAlias: {text!r}: {exc}"))
                    continue
                if name in raw and raw[name][0] != t:
                    issues.append(LintIssue.at(comment.loc, f"type alias {name} declared twice differently"))
                raw[name] = (t, comment.loc)
    aliases = {name: t for name, (t, _) in raw.items()}
    for name, (t, loc) in raw.items():
        try:
            resolve(t, aliases, frozenset({name}))
        except KeyError as exc:
            issues.append(LintIssue.at(loc, f"type alias {name} uses the undeclared alias ${exc.args[0]}"))
        except ValueError as exc:
            issues.append(LintIssue.at(loc, str(exc)))
    return aliases


def _declared_type(kind: str, name: str, text: str | None, loc: Loc, aliases: dict[str, Type],
                   issues: list[LintIssue]) -> Type | None:
    found = find_annotations(text, "type") if text else []
    if not found:
        issues.append(LintIssue.at(loc, f"{kind} {name} has no @type: annotation"))
        return None
    try:
        t = parse_type(found[0])
    except TypeSyntaxError as exc:
        issues.append(LintIssue.at(loc, f"cannot parse the @type: annotation of {kind} {name} "
                                        f"({found[0]!r}): {exc}"))
        return None
    try:
        return resolve(t, aliases)
    except KeyError as exc:
        issues.append(LintIssue.at(loc, f"the @type: annotation of {kind} {name} uses the undeclared "
                                        f"alias ${exc.args[0]}"))
    except ValueError as exc:
        issues.append(LintIssue.at(loc, f"the @type: annotation of {kind} {name}: {exc}"))
    return None


def declared_types(modules: Sequence[Module]) -> DeclaredTypes:
    """Read the ``@type:`` annotations of every constant and variable of ``modules``."""
    issues: list[LintIssue] = []
    aliases = _aliases(modules, issues)
    consts: dict[str, Type] = {}
    variables: dict[str, Type] = {}
    for mod in modules:
        for unit in mod.units:
            if isinstance(unit, S.ConstantDecl):
                t = _declared_type("CONSTANT", unit.name, unit.annotation, unit.loc, aliases, issues)
                if t is not None:
                    consts[unit.name] = t
            elif isinstance(unit, S.VariableDecl):
                t = _declared_type("VARIABLE", unit.name, unit.annotation, unit.loc, aliases, issues)
                if t is not None:
                    variables[unit.name] = t
            elif isinstance(unit, (S.OpDef, S.FnDef)) and unit.annotation:
                _optional_type(unit.name, unit.annotation, unit.loc, aliases, issues)
    return DeclaredTypes(consts, variables, issues)


def _optional_type(name: str, text: str, loc: Loc, aliases: dict[str, Type], issues: list[LintIssue]) -> None:
    """Check the ``@type:`` annotation of a definition, when it has one."""
    for found in find_annotations(text, "type"):
        try:
            resolve(parse_type(found), aliases)
        except TypeSyntaxError as exc:
            issues.append(LintIssue.at(loc, f"cannot parse the @type: annotation of {name} ({found!r}): {exc}"))
        except KeyError as exc:
            issues.append(LintIssue.at(loc, f"the @type: annotation of {name} uses the undeclared alias "
                                            f"${exc.args[0]}"))
        except ValueError as exc:
            issues.append(LintIssue.at(loc, f"the @type: annotation of {name}: {exc}"))


# ---------------------------------------------------------------------------
# Constructs Apalache rejects
# ---------------------------------------------------------------------------

_QUANT_WORD = {"A": "\\A", "E": "\\E"}


def _domain_issues(domain: S.Expr, where: str, loc: Loc) -> Iterable[LintIssue]:
    if isinstance(domain, S.Name) and domain.name in ("Nat", "Int"):
        yield LintIssue.at(loc, f"{domain.name} used as the domain of {where} (Apalache needs a finite set)")
    elif isinstance(domain, S.Name) and domain.name == "STRING":
        yield LintIssue.at(loc, f"STRING used as the domain of {where} (Apalache cannot enumerate it)")
    elif isinstance(domain, S.OpApp) and domain.name == "Seq":
        yield LintIssue.at(loc, f"Seq(S) used as a set in {where} (Apalache cannot enumerate it)")


def _bounds_issues(bounds: Iterable[S.Bound], where: str) -> Iterable[LintIssue]:
    for b in bounds:
        yield from _domain_issues(b.domain, where, b.loc)


def _node_issues(node: object) -> Iterable[LintIssue]:
    if isinstance(node, S.Recursive):
        for name, _ in node.names:
            yield LintIssue.at(node.loc, f"RECURSIVE operator {name} (Apalache rejects recursive operators)")
    elif isinstance(node, S.FnDef):
        yield from _bounds_issues(node.bounds, f"the function {node.name}")
        for sub in walk(node.body):
            if isinstance(sub, S.Name) and sub.name == node.name:
                yield LintIssue.at(node.loc, f"recursive function {node.name} "
                                             "(Apalache rejects recursive functions)")
                break
    elif isinstance(node, S.UnboundedQuant) and node.kind in _QUANT_WORD:
        yield LintIssue.at(node.loc, f"unbounded {_QUANT_WORD[node.kind]} {', '.join(node.names)} "
                                     "(Apalache needs \\in S)")
    elif isinstance(node, S.Quant):
        yield from _bounds_issues(node.bounds, f"\\{node.kind}")
    elif isinstance(node, S.Choose):
        if node.domain is None:
            yield LintIssue.at(node.loc, f"unbounded CHOOSE {', '.join(node.names)} (Apalache needs \\in S)")
        else:
            yield from _domain_issues(node.domain, "CHOOSE", node.loc)
    elif isinstance(node, S.SetFilter):
        yield from _bounds_issues((node.bound,), "a set filter {x \\in S : P}")
    elif isinstance(node, S.SetMap):
        yield from _bounds_issues(node.bounds, "a set map {e : x \\in S}")
    elif isinstance(node, S.FnConstruct):
        yield from _bounds_issues(node.bounds, "a function [x \\in S |-> e]")
    elif isinstance(node, S.FnSet):
        if isinstance(node.domain, S.Name) and node.domain.name == "STRING":
            yield LintIssue.at(node.loc, "STRING used as a function domain [STRING -> T]")
    elif isinstance(node, S.OpApp) and node.name in ("SUBSET", "UNION", "Cardinality"):
        for arg in node.args:
            if isinstance(arg, S.OpApp) and arg.name == "Seq":
                yield LintIssue.at(arg.loc, f"Seq(S) used as a set in {node.name} (Apalache cannot enumerate it)")


def construct_issues(modules: Sequence[Module]) -> list[LintIssue]:
    """Constructs of ``modules`` that Apalache rejects."""
    issues: list[LintIssue] = []
    for mod in modules:
        for unit in mod.units:
            for node in walk(unit):
                issues.extend(_node_issues(node))
    return issues


def lint_modules(modules: Sequence[Module]) -> list[LintIssue]:
    """Every issue of ``modules``, sorted by location, without duplicates."""
    issues = declared_types(modules).issues + construct_issues(modules)
    return sorted(set(issues))


def lint_file(path: Path | str, search_path: Sequence[Path | str] = ()) -> list[LintIssue]:
    """Lint a spec file and the user modules it extends or instantiates."""
    loader = ModuleLoader(list(search_path))
    root = loader.load_file(path)
    return lint_modules(collect_modules(loader, root))


# ---------------------------------------------------------------------------
# Type checking of states during exploration
# ---------------------------------------------------------------------------


_NOTHING = object()
_KNOWN_LIMIT = 1 << 12  # values kept per variable by StateTypeCheck


class StateTypeCheck:
    """Checks each state's variables against their declared types (a ``StateCheck``)."""

    def __init__(self, variables: Sequence[str], types: dict[str, Type]) -> None:
        self.variables = tuple(variables)
        self.types = [types[v] for v in self.variables]
        self.checker = ValueTypeChecker()
        # per variable, the value it held when it last passed (successive states share
        # most of their values with their parent: the very same objects pass at once)
        self._passed: list[object] = [_NOTHING] * len(self.variables)
        # per variable, the other values that passed, by identity (each kept alive, so that
        # its id is not reused): the search gives equal values one object (fpset.canonical)
        self._known: list[dict[int, object]] = [{} for _ in self.variables]

    def __call__(self, state: Sequence[Value], number: int) -> str | None:
        passed = self._passed
        if len(state) != len(passed):
            raise ValueError(f"a state of {len(state)} values, {len(passed)} variables")
        for k in compress(range(len(passed)), map(is_not, state, passed)):  # the others passed
            value, known = state[k], self._known[k]
            if known.get(id(value)) is not value:
                t = self.types[k]
                bad = self.checker.mismatch(value, t)
                if bad is not None:
                    return (f"state {number}: variable {self.variables[k]} does not have the "
                            f"type {show(t)} of its @type: annotation: {describe_mismatch(bad)} "
                            f"(a check of the Apalache type annotations, which TLC ignores; "
                            f"--no-typecheck turns it off)")
                if len(known) >= _KNOWN_LIMIT:
                    known.clear()
                known[id(value)] = value
            passed[k] = value
        return None


def state_type_check(modules: Sequence[Module], variables: Sequence[str]) -> tuple[StateTypeCheck | None, list[str]]:
    """The type check of states, or None with the variables that lack a usable annotation."""
    declared = declared_types(modules)
    missing = [v for v in variables if v not in declared.variables]
    if missing:
        return None, missing
    return StateTypeCheck(variables, declared.variables), []
