"""Building the name tables of a root module, its EXTENDS chain and its instances."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from conformance.tla import syntax as S
from conformance.tla.semantics.compiled import (
    located,
)
from conformance.tla.semantics.scope import (
    ConstEntry,
    Ctx,
    DefEntry,
    Entry,
    InstEntry,
    Scope,
    SubstEntry,
    VarEntry,
)
from conformance.tla.standard_modules import STANDARD, standard_closure
from conformance.tla.syntax import EvalError, Loc, TlaError

# ---------------------------------------------------------------------------
# Building contexts from modules
# ---------------------------------------------------------------------------


class ContextBuilder:
    """Builds the name tables of a root module, its EXTENDS chain and its instances."""

    def __init__(self, loader: Any) -> None:
        self.loader = loader
        self.variables: list[str] = []
        self.var_entries: dict[str, VarEntry] = {}
        self.const_entries: dict[str, ConstEntry] = {}
        self.assumes: list[tuple[S.Assume, Ctx]] = []
        self.root_contexts: list[Ctx] = []  # root and extended modules (overrides apply)
        self._extended: dict[str, tuple[Ctx, dict[str, Entry], frozenset[str]]] = {}
        self.contexts: list[Ctx] = []  # every context built so far
        # cfg overrides X <- [Mod] Def: module -> name -> the entry replacing it (also
        # applied to the contexts of instances built later)
        self.module_overrides: dict[str, dict[str, Entry]] = {}
        # cfg overrides of standard-module operators (Seq <- LimitedSeq): name -> the entry
        # replacing it in every context that sees the operator (also those built later)
        self.std_overrides: dict[str, Entry] = {}

    # root binding: declarations create globals -----------------------------

    def build_root(self, module: S.Module) -> Ctx:
        ctx, _, _ = self._build(module, None, 0, root=True)
        return ctx

    def _load(self, name: str, loc: Loc) -> S.Module:
        try:
            return self.loader.load(name)
        except TlaError as err:
            raise located(err, loc) from None

    def _build(
        self,
        module: S.Module,
        binding: Callable[[str, S.Unit], Entry] | None,
        base: int,
        root: bool,
    ) -> tuple[Ctx, dict[str, Entry], frozenset[str]]:
        """The context of ``module`` and the names (and standard modules) it exports."""
        ctx = Ctx(module.name, base=base, builder=self)
        names: dict[str, Entry] = {}
        std: set[str] = set()
        for ext in module.extends:
            if ext in STANDARD:
                std.add(ext)
                continue
            if root and ext in self._extended:
                _, exported, ext_std = self._extended[ext]
            else:
                _, exported, ext_std = self._build(
                    self._load(ext, module.loc), binding, base, root
                )
            names.update(exported)
            std |= ext_std
        exported_names = dict(names)
        exported_std = set(std)
        pending_instances: list[S.Instance] = []
        for unit in module.units:
            if isinstance(unit, (S.ConstantDecl, S.VariableDecl)):
                entry = self._declare(unit) if binding is None else binding(unit.name, unit)
                names[unit.name] = entry
                exported_names[unit.name] = entry
            elif isinstance(unit, (S.OpDef, S.FnDef)):
                d = DefEntry(unit, ctx)
                names[unit.name] = d
                if not unit.local:
                    exported_names[unit.name] = d
            elif isinstance(unit, S.Instance):
                if unit.name is not None:
                    ie = InstEntry(unit, ctx)
                    names[unit.name] = ie
                    if not unit.local:
                        exported_names[unit.name] = ie
                elif unit.module in STANDARD:
                    std.add(unit.module)
                    if not unit.local:
                        exported_std.add(unit.module)
                else:
                    pending_instances.append(unit)
            elif isinstance(unit, (S.Theorem, S.Assume)):
                if unit.definition is not None:  # THEOREM T == e: T stands for e
                    d = DefEntry(unit.definition, ctx)
                    names[unit.definition.name] = d
                    exported_names[unit.definition.name] = d
                if isinstance(unit, S.Assume) and root:
                    self.assumes.append((unit, ctx))
        ctx.names = names
        ctx.std = standard_closure(std)
        for unit in pending_instances:
            ictx = self.instance_ctx(unit, Scope(ctx, base))
            imported = {n: e for n, e in ictx.names.items()
                        if n in ictx.exported and n not in ctx.names}
            ctx.names.update(imported)
            ctx.std = ctx.std | ictx.std
            if not unit.local:
                exported_names.update(imported)
                exported_std |= ictx.std
        for name, entry in self.module_overrides.get(module.name, {}).items():
            self.replace_entry(ctx.names.get(name), entry, [ctx.names, exported_names])
        ctx.exported = frozenset(exported_names)
        self.apply_std_overrides(ctx, standard_closure(exported_std))
        self.contexts.append(ctx)
        result = (ctx, exported_names, standard_closure(exported_std))
        if root:
            self.root_contexts.append(ctx)
            self._extended[module.name] = result
        return result

    def override_std(self, name: str, entry: Entry) -> bool:
        """Make ``entry`` the standard-module operator ``name`` in every context that sees
        it, as TLC's cfg ``name <- Def`` replaces the definition in the standard module
        itself; False if no context built so far sees such an operator."""
        if not any(name in STANDARD[m] for ctx in self.root_contexts for m in ctx.std):
            return False
        self.std_overrides[name] = entry
        for ctx in self.contexts:
            self.apply_std_overrides(ctx, ctx.std)
        return True

    def apply_std_overrides(self, ctx: Ctx, exported_std: frozenset[str]) -> None:
        """The overridden standard operators ``ctx`` sees become names of ``ctx`` (exported
        where the standard module that defines them is: ``exported_std``)."""
        for name, entry in self.std_overrides.items():
            if name in ctx.names or not any(name in STANDARD[m] for m in ctx.std):
                continue
            ctx.names[name] = entry
            if any(name in STANDARD[m] for m in exported_std):
                ctx.exported = ctx.exported | {name}

    @staticmethod
    def replace_entry(old: Entry | None, new: Entry, tables: list[dict[str, Entry]]) -> None:
        """Replace the entry ``old`` (the same object) by ``new`` in ``tables``."""
        if old is None:
            return
        for table in tables:
            for name, entry in list(table.items()):
                if entry is old:
                    table[name] = new

    def _declare(self, unit: S.Unit) -> Entry:
        if isinstance(unit, S.VariableDecl):
            existing = self.var_entries.get(unit.name)
            if existing is None:
                existing = VarEntry(unit.name, len(self.variables))
                self.variables.append(unit.name)
                self.var_entries[unit.name] = existing
            return existing
        assert isinstance(unit, S.ConstantDecl)
        c = self.const_entries.get(unit.name)
        if c is None:
            c = ConstEntry(unit.name, unit.arity, unit.loc)
            self.const_entries[unit.name] = c
        return c

    # instances ---------------------------------------------------------------

    def named_instance_ctx(self, entry: InstEntry) -> Ctx:
        """The context of ``entry`` (``I == INSTANCE M ...`` without parameters), built
        once, when first needed."""
        if entry.ctx is None:
            entry.ctx = self.instance_ctx(entry.unit, Scope(entry.outer, entry.outer.base))
        return entry.ctx

    def instance_ctx(self, unit: S.Instance, outer: Scope) -> Ctx:
        """The context of ``INSTANCE M WITH ...`` seen from ``outer`` (params bound there)."""
        if unit.module in STANDARD:
            std = standard_closure([unit.module])
            ctx = Ctx(unit.module, std=std, base=outer.depth, builder=self)
            self.apply_std_overrides(ctx, std)
            return ctx
        module = self._load(unit.module, unit.loc)
        subs = dict(unit.substitutions)

        def binding(name: str, decl: S.Unit) -> Entry:
            expr = subs.get(name)
            if expr is None:  # implicit substitution by the same name
                expr = S.Name(decl.loc, name)
                if name not in outer.names and name not in outer.ctx.names:
                    raise EvalError(
                        f"INSTANCE {unit.module}: no substitution for {name} and no {name} "
                        f"in the instantiating module",
                        unit.loc,
                    )
            return SubstEntry(name, expr, outer)

        ctx, _, _ = self._build(module, binding, outer.depth, root=False)
        return ctx
