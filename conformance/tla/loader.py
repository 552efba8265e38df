"""Finding, parsing and caching TLA+ modules by name.

Standard modules (``syntax.STANDARD_MODULES``) are provided natively by the engine and are
never read from disk. Other modules are looked up as ``<name>.tla`` in the search path,
which starts with the given folders and grows with the folder of every file loaded; its
last folder holds the community and proof modules the engine bundles (``modules/``).
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from conformance.tla.modules import FOLDER as BUNDLED_MODULES
from conformance.tla.parser import (
    References,
    parse_expression,
    parse_module_text,
    parse_module_with_references,
)
from conformance.tla.parser_tree import trailing_modules
from conformance.tla.syntax import STANDARD_MODULES, Instance, Loc, Module, TlaError

__all__ = ["ModuleLoader", "parse_expression", "parse_module_text"]


class ModuleLoader:
    """Loads modules by name from a search path; each module is parsed once."""

    def __init__(self, search_path: Sequence[Path | str]) -> None:
        self.search_path: list[Path] = []
        for folder in search_path:
            self._add_folder(Path(folder))
        self._bundled = BUNDLED_MODULES.resolve()
        self._cache: dict[str, Module] = {}
        self._references: dict[str, tuple[tuple[str, Loc], ...]] = {}
        self._requested_at: dict[str, Loc] = {}  # first EXTENDS/INSTANCE naming a module
        # modules written after the first module of a file loaded (name -> file, its text
        # with the rest blanked), read when an EXTENDS or INSTANCE asks for them
        self._trailing: dict[str, tuple[Path, str]] = {}

    def is_standard(self, name: str) -> bool:
        """Whether the engine provides the module natively."""
        return name in STANDARD_MODULES

    def load(self, name: str, requested_at: Loc | None = None) -> Module:
        """The module ``name``, found as ``<name>.tla`` on the search path.

        ``requested_at`` is where an EXTENDS or INSTANCE asked for it, named in the
        error when the module cannot be found; by default, the first EXTENDS or
        INSTANCE naming it in a module this loader has loaded.
        """
        cached = self._cache.get(name)
        if cached is not None:
            return cached
        if requested_at is None:
            requested_at = self._requested_at.get(name)
        if self.is_standard(name):
            raise TlaError(
                f"module {name} is a standard module provided by the engine, not read from disk",
                requested_at,
            )
        trailing = self._trailing.get(name)
        if trailing is not None:
            return self._read(name, *trailing)
        for folder in [*self.search_path, self._bundled]:
            candidate = folder / f"{name}.tla"
            if candidate.is_file():
                return self.load_file(candidate)
        searched = ", ".join(str(f) for f in self.search_path) or "(no folders)"
        raise TlaError(f"cannot find module {name}: no {name}.tla in {searched}", requested_at)

    def load_file(self, path: Path | str) -> Module:
        """Parse a module file and add its folder to the search path (first, when new)."""
        file = Path(path)
        bundled = file.resolve().parent == self._bundled
        cached = self._cache.get(file.stem)
        if cached is not None and _same_file(cached.file, file):
            return cached
        try:
            text = file.read_text(encoding="utf-8")
        except OSError as exc:
            raise TlaError(f"cannot read {file}: {exc.strerror or exc}") from None
        except UnicodeDecodeError as exc:
            raise TlaError(f"{file} is not UTF-8 text: {exc.reason}") from None
        if not bundled:  # the bundled folder stays last
            self._add_folder(file.parent, first=True)
        module, references = parse_module_with_references(text, str(file))
        if module.name != file.stem:
            raise TlaError(
                f"file {file.name} holds MODULE {module.name}; "
                f"the module name must match the file name ({file.stem})",
                module.loc,
            )
        self._register(module, references, file)
        for name, trailing in trailing_modules(text.encode("utf-8")).items():
            if name not in self._cache:
                self._trailing.setdefault(name, (file, trailing.decode("utf-8")))
        return module

    def _read(self, name: str, file: Path, text: str) -> Module:
        """The module ``name`` written after the first module of ``file`` (``text``: the
        file with everything else blanked)."""
        module, references = parse_module_with_references(text, str(file))
        assert module.name == name
        del self._trailing[name]
        self._register(module, references, file)
        return module

    def _register(self, module: Module, references: References, file: Path) -> None:
        cached = self._cache.get(module.name)
        if cached is not None:
            raise TlaError(
                f"two files define MODULE {module.name}: {cached.file} and {file}", module.loc
            )
        self._cache[module.name] = module
        self._references[module.name] = references
        for name, loc in references:
            self._requested_at.setdefault(name, loc)

    def load_dependencies(self, module: Module) -> dict[str, Module]:
        """Every non-standard module that ``module`` extends or instantiates, transitively.

        Missing modules raise ``TlaError`` at the EXTENDS/INSTANCE that names them, and
        so does a module that (indirectly) extends or instantiates itself.
        """
        found: dict[str, Module] = {}
        self._visit(module, [module.name], found)
        return found

    def _visit(self, module: Module, path: list[str], found: dict[str, Module]) -> None:
        for name, loc in self._references_of(module):
            if self.is_standard(name):
                continue
            if name in path:
                cycle = " -> ".join([*path[path.index(name) :], name])
                raise TlaError(f"circular module dependency: {cycle}", loc)
            if name in found:
                continue
            dep = self.load(name, requested_at=loc)
            found[name] = dep
            self._visit(dep, [*path, name], found)

    def _references_of(self, module: Module) -> tuple[tuple[str, Loc], ...]:
        known = self._references.get(module.name)
        if known is not None and self._cache.get(module.name) is module:
            return known
        # a module parsed elsewhere: EXTENDS names are located at the module header
        refs = [(name, module.loc) for name in module.extends]
        refs.extend((u.module, u.loc) for u in module.units if isinstance(u, Instance))
        return tuple(refs)

    def _add_folder(self, folder: Path, first: bool = False) -> None:
        resolved = folder.resolve()
        if resolved not in self.search_path:
            self.search_path.insert(0 if first else len(self.search_path), resolved)


def _same_file(a: Path | str, b: Path | str) -> bool:
    return Path(a).resolve() == Path(b).resolve()
