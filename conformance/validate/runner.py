"""Validate many traces, in this process or in worker processes that each compile the spec once.

Ctrl-C (SIGINT) stops a run at once, whatever ``jobs``: workers ignore SIGINT, and the parent
cancels what is queued, terminates the workers and raises ``ValidationInterrupted`` carrying
the reports of the traces already done.
"""

from __future__ import annotations

import signal
import traceback
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import ProcessPoolExecutor, as_completed
from dataclasses import dataclass, field
from pathlib import Path

from conformance.tla.values import Value
from conformance.validate.validator import TraceValidator, ValidatorOptions
from conformance.validate.verdict import TraceReport, Verdict


@dataclass(frozen=True)
class ValidatorConfig:
    """Everything needed to build a ``TraceValidator`` (picklable, sent to workers)."""

    spec: Path
    constants: Mapping[str, Value] = field(default_factory=dict)
    overrides: Mapping[str, str] = field(default_factory=dict)
    search_path: tuple[Path, ...] = ()
    options: ValidatorOptions = field(default_factory=ValidatorOptions)

    def build(self) -> TraceValidator:
        return TraceValidator(self.spec, constants=self.constants, overrides=self.overrides,
                              search_path=self.search_path, options=self.options)

    @classmethod
    def from_options(cls, spec: str | None, config: str | None, max_candidates: int) -> ValidatorConfig:
        """The configuration of the ``--spec``, ``--config`` and ``--max-candidates`` options
        (the project's spec when ``spec`` is None), with an absolute spec path; ValueError
        naming the option on bad input."""
        from conformance.spec_location import SPEC_MODULE, spec_dir
        from conformance.tla.cfg import read_config

        path = Path(spec).resolve() if spec else spec_dir().resolve() / SPEC_MODULE
        if not path.is_file():
            raise ValueError(f"--spec {path}: no such file")
        constants: dict[str, Value] = {}
        overrides: dict[str, str] = {}
        if config:
            cfg = read_config(config)
            constants, overrides = dict(cfg.constants), dict(cfg.overrides)
        if max_candidates < 1:
            raise ValueError("--max-candidates must be at least 1")
        return cls(spec=path, constants=constants, overrides=overrides, search_path=(path.parent,),
                   options=ValidatorOptions(max_candidates=max_candidates))


class ValidationInterrupted(Exception):
    """SIGINT arrived; ``reports`` are those of the traces finished before it, in input order."""

    def __init__(self, reports: list[TraceReport], total: int) -> None:
        super().__init__(f"interrupted after {len(reports)} of {total} traces")
        self.reports = reports
        self.total = total


_worker: TraceValidator | None = None


def _init_worker(config: ValidatorConfig) -> None:
    global _worker
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the parent decides; it terminates the workers
    _worker = config.build()


def safe_validate(validator: TraceValidator, path: Path) -> TraceReport:
    """``validator.validate``, turning an unexpected failure into an ERROR report for that file."""
    try:
        return validator.validate(path)
    except Exception as exc:  # an engine failure must not hide the other files' results
        last = traceback.extract_tb(exc.__traceback__)[-1]
        return TraceReport(file=str(path), verdict=Verdict.ERROR,
                           error=f"{path}: internal error {type(exc).__name__}: {exc} ({last.filename}:{last.lineno})")


def _validate_in_worker(path: str) -> TraceReport:
    assert _worker is not None, "worker not initialised"
    return safe_validate(_worker, Path(path))


def validate_files(
    paths: Sequence[Path],
    config: ValidatorConfig,
    jobs: int = 1,
    on_report: Callable[[TraceReport], None] | None = None,
    validator: TraceValidator | None = None,
) -> list[TraceReport]:
    """Reports for ``paths`` in input order; ``on_report`` is called as each one finishes."""
    reports: list[TraceReport | None] = [None] * len(paths)
    try:
        if jobs <= 1 or len(paths) <= 1:
            local = validator or config.build()
            for i, p in enumerate(paths):
                reports[i] = safe_validate(local, p)
                if on_report is not None:
                    on_report(reports[i])  # type: ignore[arg-type]
        else:
            _in_workers(paths, config, jobs, reports, on_report)
    except KeyboardInterrupt:
        raise ValidationInterrupted([r for r in reports if r is not None], len(paths)) from None
    return [r for r in reports if r is not None]


def _in_workers(paths: Sequence[Path], config: ValidatorConfig, jobs: int, reports: list[TraceReport | None],
                on_report: Callable[[TraceReport], None] | None) -> None:
    pool = ProcessPoolExecutor(max_workers=jobs, initializer=_init_worker, initargs=(config,))
    try:
        futures = {pool.submit(_validate_in_worker, str(p)): i for i, p in enumerate(paths)}
        for fut in as_completed(futures):
            i = futures[fut]
            try:
                reports[i] = fut.result()
            except Exception as exc:  # a worker that died (e.g. out of memory)
                reports[i] = TraceReport(file=str(paths[i]), verdict=Verdict.ERROR,
                                         error=f"{paths[i]}: worker failed: {type(exc).__name__}: {exc}")
            if on_report is not None:
                on_report(reports[i])  # type: ignore[arg-type]
    except BaseException:
        workers = list(getattr(pool, "_processes", {}).values())  # not waiting for queued traces
        pool.shutdown(wait=False, cancel_futures=True)
        for process in workers:
            process.terminate()
        for process in workers:
            process.join(timeout=1)
        raise
    pool.shutdown(wait=True)
