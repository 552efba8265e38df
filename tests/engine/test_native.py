"""The compiled core (conformance/native.py): when it is used, and that it answers as the
Python source does (mypyc compiles the same modules; a difference is a compiler bug or a
construct it runs otherwise, and a wrong answer either way)."""

from __future__ import annotations

import importlib.machinery
import importlib.util
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from conformance import native

ROOT = Path(__file__).resolve().parents[2]
SPECS = Path(__file__).parent / "specs"
REGRESSIONS = Path(__file__).parent / "regressions"
SUFFIX = importlib.machinery.EXTENSION_SUFFIXES[0]


def _touch(path: Path, mtime: float) -> None:
    path.write_text("")
    os.utime(path, (mtime, mtime))


def test_reason_names_a_missing_or_older_compiled_module(tmp_path: Path,
                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(native.PURE_VARIABLE, raising=False)
    _touch(tmp_path / "a.py", 100)
    _touch(tmp_path / "b.py", 100)
    _touch(tmp_path / f"a{SUFFIX}", 200)
    assert "b.py is not compiled" in str(native.source_reason(tmp_path, ("a", "b")))
    _touch(tmp_path / f"b{SUFFIX}", 50)  # built before its source was edited
    assert native.source_reason(tmp_path, ("a", "b")) == f"b{SUFFIX} is older than b.py (rebuild: pip install -e .)"
    os.utime(tmp_path / f"b{SUFFIX}", (300, 300))
    assert native.source_reason(tmp_path, ("a", "b")) is None
    monkeypatch.setenv(native.PURE_VARIABLE, "1")
    assert native.source_reason(tmp_path, ("a", "b")) == f"{native.PURE_VARIABLE} is set"


def _core(env_extra: dict[str, str]) -> str:
    env = {k: v for k, v in os.environ.items() if k != native.PURE_VARIABLE}
    env.update(env_extra, PYTHONPATH=str(ROOT))
    probe = ("from conformance import native; from conformance.tla import values, explorer; "
             "print(native.in_use(), values.__file__.endswith('.py'), explorer.__file__.endswith('.py'))")
    return subprocess.run([sys.executable, "-c", probe], env=env, capture_output=True, text=True,
                          check=True, cwd=ROOT).stdout.strip()


def test_source_core_on_request() -> None:
    assert _core({native.PURE_VARIABLE: "1"}) == "False True True"


def test_an_installation_built_with_a_compiler_runs_the_compiled_core() -> None:
    reason = native.source_reason(ROOT / "conformance" / "tla")
    if reason is not None and "older than" in reason:
        pytest.skip(f"the sources were edited after the build: {reason}")
    if reason is not None and (shutil.which("cc") is None or importlib.util.find_spec("mypyc") is None):
        pytest.skip(f"no C compiler or mypyc here: {reason}")
    assert reason is None, reason
    assert _core({}) == "True False False"


def _cases() -> list[tuple[Path, list[str]]]:
    cases = [(tla, []) for tla in sorted(SPECS.glob("*.tla")) if tla.with_suffix(".cfg").exists()]
    for name in ("MemoAlias", "LetAliasAssign", "HigherOrderAction", "NestedParamInstance",
                 "OpParamInstance", "UnchangedParts", "TransitiveChain"):
        cases.append((REGRESSIONS / f"{name}.tla", []))
    cases.append((SPECS / "TwoPhase.tla", ["--workers", "2"]))
    cases.append((SPECS / "Peterson.tla", ["--simulate", "--traces", "20", "--depth", "30"]))
    return cases


def _check(tla: Path, flags: list[str], pure: bool) -> tuple[int, list[str]]:
    env = {k: v for k, v in os.environ.items() if k != native.PURE_VARIABLE}
    env["PYTHONPATH"] = str(ROOT)
    if pure:
        env[native.PURE_VARIABLE] = "1"
    proc = subprocess.run([sys.executable, "-m", "conformance", "check", str(tla), "--quiet", *flags],
                          env=env, capture_output=True, text=True, cwd=tla.parent, timeout=300)
    lines = [line for line in (proc.stdout + proc.stderr).splitlines()
             if not line.startswith(("Finished in", "Calculated (optimistic)"))]
    return proc.returncode, lines


@pytest.mark.parametrize(("tla", "flags"), _cases(), ids=lambda c: c.stem if isinstance(c, Path) else " ".join(c))
def test_compiled_and_source_cores_answer_alike(tla: Path, flags: list[str]) -> None:
    """Verdict, counts, counterexample and messages equal, line for line (the source core
    on its own is what the rest of the suite also checks against hand-derived answers)."""
    if native.source_reason(ROOT / "conformance" / "tla") is not None:
        pytest.skip(f"no compiled core to compare: {native.source_reason(ROOT / 'conformance' / 'tla')}")
    assert _check(tla, flags, pure=False) == _check(tla, flags, pure=True)
