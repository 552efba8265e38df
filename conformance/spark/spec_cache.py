"""The spec shipped with a job, and one compiled validator per executor process.

``ValidationSpec`` carries the validator's configuration and the text of the spec's modules, so
executors on other machines need no copy of the spec: a process that cannot read the driver's
files (or reads different ones) writes the shipped text to a private temporary folder once.
``validator_for`` keeps one ``TraceValidator`` per process and configuration; the validator
compiles the spec for the first trace it sees and reuses it for every later trace and task
(Spark reuses its Python worker processes across tasks).
"""

from __future__ import annotations

import hashlib
import pickle
import tempfile
import traceback
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path

from conformance.validate.runner import ValidatorConfig
from conformance.validate.validator import TraceValidator
from conformance.validate.verdict import TraceReport, Verdict


@dataclass(frozen=True)
class ValidationSpec:
    """A ``ValidatorConfig`` and the ``.tla`` files of its folders (folder index, name, text)."""

    config: ValidatorConfig
    modules: tuple[tuple[int, str, str], ...]
    key: str  # digest of the configuration and the modules: the per-process cache key

    @classmethod
    def of(cls, config: ValidatorConfig) -> ValidationSpec:
        modules = tuple(
            (i, f.name, f.read_text(encoding="utf-8"))
            for i, folder in enumerate(_folders(config))
            for f in sorted(folder.glob("*.tla"))
        )
        key = hashlib.sha256(pickle.dumps((config, modules))).hexdigest()
        return cls(config, modules, key)

    def local_config(self) -> ValidatorConfig:
        """The configuration as is when this process reads the same modules at the same paths,
        else one pointing at a private copy of the shipped modules."""
        folders = _folders(self.config)
        if all(_reads(folders[i] / name, text) for i, name, text in self.modules):
            return self.config
        root = Path(tempfile.mkdtemp(prefix="kraftcheck-spec-"))
        copies = [root / str(i) for i in range(len(folders))]
        for folder in copies:
            folder.mkdir()
        for i, name, text in self.modules:
            (copies[i] / name).write_text(text, encoding="utf-8")
        spec = copies[0] / self.config.spec.name
        return replace(self.config, spec=spec, search_path=tuple(copies[1:]) or (copies[0],))


def _folders(config: ValidatorConfig) -> list[Path]:
    """The spec's folder first, then the search path's other folders."""
    folders = [config.spec.parent]
    folders += [Path(p) for p in config.search_path if Path(p) != config.spec.parent]
    return folders


def _reads(path: Path, text: str) -> bool:
    try:
        return path.read_text(encoding="utf-8") == text
    except OSError:
        return False


_VALIDATORS: dict[str, TraceValidator] = {}


def validator_for(spec: ValidationSpec, on_build: Callable[[], None] | None = None) -> TraceValidator:
    """This process's validator for ``spec`` (built on first use; ``on_build`` counts builds)."""
    validator = _VALIDATORS.get(spec.key)
    if validator is None:
        validator = spec.local_config().build()
        validator.disjuncts()
        _VALIDATORS[spec.key] = validator
        if on_build is not None:
            on_build()
    return validator


def validate_safely(validator: TraceValidator, trace: Path | bytes, name: str) -> TraceReport:
    """``validator.validate``, turning an unexpected failure into an ERROR report for that trace."""
    try:
        return validator.validate(trace, name=name)
    except Exception as exc:  # an engine failure must not hide the other traces' results
        last = traceback.extract_tb(exc.__traceback__)[-1]
        return TraceReport(file=name, verdict=Verdict.ERROR,
                           error=f"{name}: internal error {type(exc).__name__}: {exc} ({last.filename}:{last.lineno})")
