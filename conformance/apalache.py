"""Driver of an installed Apalache (``apalache-mc``), the symbolic model checker.

Apalache runs as a subprocess, each run in a fresh temporary directory given as
``--out-dir`` and ``--run-dir``, with a sanitized environment and a timeout that kills
the whole process group. Its outcome is read from the exit code (Apalache's
``ExitCodes``: 0 no error, 12 a property violation, 75 a spec it cannot evaluate,
120 a type error, 150 a parse error, 255 any other error) and its counterexample from
the ITF file it writes (``violation1.itf.json``), decoded into the engine's
``TraceStep`` objects; when a ``Model`` is given, each step is labelled with the
action that produces it (ITF traces carry no action names).

Finding the executable: an explicit path (``--apalache``), then ``apalache-mc`` on
``PATH``, then ``$APALACHE_HOME/bin/apalache-mc``.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import signal
import subprocess
import tempfile
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from conformance.tla import itf
from conformance.tla.explorer import TraceStep
from conformance.tla.model import Model, State
from conformance.tla.syntax import Loc, TlaError
from conformance.tla.values import Value

EXECUTABLE = "apalache-mc"

# Apalache's exit codes and what each means for us.
EXIT_OUTCOMES: dict[int, str] = {
    0: "ok",
    12: "violation",
    75: "eval-error",
    120: "type-error",
    150: "parse-error",
    255: "error",
}

# Environment variables passed through to Apalache; everything else is dropped.
PASSED_ENV = ("PATH", "JAVA_HOME", "APALACHE_HOME", "JVM_ARGS", "JVM_GC_ARGS", "LANG", "LC_ALL")

DEFAULT_TIMEOUT = 600.0

_VERSION = re.compile(r"\b(\d+\.\d+\.\d+)\b")
_COUNTEREXAMPLES = ("violation1.itf.json", "violation.itf.json", "counterexample1.itf.json",
                    "counterexample.itf.json")


class ApalacheError(Exception):
    """Apalache is missing, unusable, or its output cannot be read."""


class ApalacheNotFound(ApalacheError):
    """No ``apalache-mc`` executable in any of the places searched."""


@dataclass(frozen=True)
class Installation:
    """A usable Apalache: its executable, version and the Java it runs on."""

    executable: Path
    version: str
    java: str


def find_executable(explicit: str | Path | None = None,
                    env: Mapping[str, str] | None = None) -> Path:
    """The ``apalache-mc`` to run: ``explicit``, else on ``PATH``, else under ``APALACHE_HOME``.

    Raises ``ApalacheNotFound`` naming the three places searched.
    """
    env = os.environ if env is None else env
    searched: list[str] = []
    if explicit is not None:
        path = Path(explicit)
        if path.is_file() and os.access(path, os.X_OK):
            return path
        searched.append(f"--apalache {path} (not an executable file)")
    else:
        searched.append("--apalache (not given)")
    on_path = shutil.which(EXECUTABLE, path=env.get("PATH", ""))
    if on_path is not None:
        return Path(on_path)
    searched.append(f"{EXECUTABLE} on PATH (not found)")
    home = env.get("APALACHE_HOME")
    if home:
        candidate = Path(home) / "bin" / EXECUTABLE
        if candidate.is_file() and os.access(candidate, os.X_OK):
            return candidate
        searched.append(f"APALACHE_HOME/bin/{EXECUTABLE} = {candidate} (not an executable file)")
    else:
        searched.append(f"APALACHE_HOME/bin/{EXECUTABLE} (APALACHE_HOME is not set)")
    raise ApalacheNotFound("Apalache is not installed; searched: " + "; ".join(searched))


def find_java(env: Mapping[str, str] | None = None) -> str | None:
    """The ``java`` Apalache would run on: ``$JAVA_HOME/bin/java`` or ``java`` on PATH."""
    env = os.environ if env is None else env
    home = env.get("JAVA_HOME")
    if home:
        candidate = Path(home) / "bin" / "java"
        if candidate.is_file() and os.access(candidate, os.X_OK):
            return str(candidate)
    return shutil.which("java", path=env.get("PATH", ""))


def sanitized_env(home: Path, env: Mapping[str, str] | None = None) -> dict[str, str]:
    """The environment of an Apalache run: only ``PASSED_ENV``, with ``HOME`` and
    ``TMPDIR`` inside the run's private directory (so no user file is read or written)."""
    env = os.environ if env is None else env
    clean = {k: env[k] for k in PASSED_ENV if k in env}
    clean.setdefault("LANG", "C.UTF-8")
    clean["HOME"] = str(home)
    clean["TMPDIR"] = str(home)
    return clean


def parse_version(output: str) -> str:
    """The ``x.y.z`` version in ``apalache-mc version`` output."""
    match = _VERSION.search(output)
    if match is None:
        raise ApalacheError(f"cannot read a version from `{EXECUTABLE} version` output: {output.strip()[:200]!r}")
    return match.group(1)


# ---------------------------------------------------------------------------
# Command lines (pure functions)
# ---------------------------------------------------------------------------


def _dirs(out_dir: Path, run_dir: Path) -> list[str]:
    return [f"--out-dir={out_dir}", f"--run-dir={run_dir}"]


def typecheck_command(executable: Path, spec: Path, out_dir: Path, run_dir: Path) -> list[str]:
    """``apalache-mc typecheck`` of ``spec``."""
    return [str(executable), "typecheck", *_dirs(out_dir, run_dir), str(spec)]


def check_command(
    executable: Path,
    spec: Path,
    out_dir: Path,
    run_dir: Path,
    *,
    init: str | None = None,
    next: str | None = None,
    inv: Sequence[str] = (),
    cinit: str | None = None,
    length: int | None = None,
    max_error: int | None = None,
    config: Path | None = None,
    no_deadlock: bool = False,
) -> list[str]:
    """``apalache-mc check`` with the given options (those left None are not passed)."""
    cmd = [str(executable), "check", *_dirs(out_dir, run_dir)]
    cmd += _common_options(init, next, inv, cinit, length, config)
    if max_error is not None:
        cmd.append(f"--max-error={max_error}")
    if no_deadlock:
        cmd.append("--no-deadlock")
    cmd.append(str(spec))
    return cmd


def simulate_command(
    executable: Path,
    spec: Path,
    out_dir: Path,
    run_dir: Path,
    *,
    max_run: int,
    init: str | None = None,
    next: str | None = None,
    inv: Sequence[str] = (),
    cinit: str | None = None,
    length: int | None = None,
    config: Path | None = None,
) -> list[str]:
    """``apalache-mc simulate``: ``max_run`` random symbolic runs of ``length`` steps."""
    cmd = [str(executable), "simulate", *_dirs(out_dir, run_dir)]
    cmd += _common_options(init, next, inv, cinit, length, config)
    cmd.append(f"--max-run={max_run}")
    cmd.append(str(spec))
    return cmd


def _common_options(init: str | None, next: str | None, inv: Sequence[str], cinit: str | None,
                    length: int | None, config: Path | None) -> list[str]:
    opts: list[str] = []
    if config is not None:
        opts.append(f"--config={config}")
    if init is not None:
        opts.append(f"--init={init}")
    if next is not None:
        opts.append(f"--next={next}")
    if inv:
        opts.append("--inv=" + ",".join(inv))
    if cinit is not None:
        opts.append(f"--cinit={cinit}")
    if length is not None:
        if length < 0:
            raise ValueError("--length must not be negative")
        opts.append(f"--length={length}")
    return opts


@dataclass(frozen=True)
class InductiveStep:
    """One of the three runs proving an inductive invariant."""

    name: str
    claim: str
    init: str
    inv: str
    length: int


def inductive_steps(init: str, ind_init: str, ind_inv: str, safety: str) -> list[InductiveStep]:
    """The three-run recipe: Init => IndInv; IndInv /\\ Next => IndInv'; IndInv => Safety.

    ``ind_init`` is the initial predicate that generates every state satisfying the
    invariant (typically a type generator conjoined with ``ind_inv``).
    """
    return [
        InductiveStep("initiation", f"{init} => {ind_inv}", init, ind_inv, 0),
        InductiveStep("consecution", f"{ind_inv} /\\ Next => {ind_inv}'", ind_init, ind_inv, 1),
        InductiveStep("implication", f"{ind_inv} => {safety}", ind_init, safety, 0),
    ]


# ---------------------------------------------------------------------------
# Running
# ---------------------------------------------------------------------------


@dataclass
class Outcome:
    """What one Apalache run did."""

    command: list[str]
    exit_code: int | None  # None when the run was killed by the timeout
    outcome: str  # "ok", "violation", "type-error", "parse-error", "eval-error", "error", "timeout"
    stdout: str = ""
    stderr: str = ""
    seconds: float = 0.0
    message: str | None = None
    counterexample: list[TraceStep] = field(default_factory=list)
    itf: dict | None = None  # the raw ITF counterexample, when there is one

    @property
    def ok(self) -> bool:
        return self.outcome == "ok"


def classify(exit_code: int | None, stdout: str) -> tuple[str, str | None]:
    """Our outcome for Apalache's exit code, and a message from its output."""
    if exit_code is None:
        return "timeout", "Apalache was stopped by the timeout"
    outcome = EXIT_OUTCOMES.get(exit_code, "error")
    message = _summary(stdout)
    if exit_code not in EXIT_OUTCOMES:
        message = f"unexpected Apalache exit code {exit_code}" + (f": {message}" if message else "")
    return outcome, message


def _summary(stdout: str) -> str | None:
    """The most telling line of Apalache's output (an error, the outcome)."""
    lines = [re.sub(r"\s+[IEW]@\S+$", "", ln).rstrip() for ln in stdout.splitlines()]
    for marker in ("Error", "error:", "Parsing error", "Typing", "Found a deadlock",
                   "Checker has found an error", "The outcome is:"):
        for ln in lines:
            if ln.strip().startswith(marker):
                return ln.strip()
    return None


def run_process(command: Sequence[str], cwd: Path, env: Mapping[str, str],
                timeout: float) -> tuple[int | None, str, str, float]:
    """Run ``command`` in its own process group; on timeout kill the group.

    Returns (exit code or None on timeout, stdout, stderr, seconds).
    """
    start = time.monotonic()
    try:
        proc = subprocess.Popen(list(command), cwd=cwd, env=dict(env), stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE, text=True, start_new_session=True)
    except OSError as exc:
        raise ApalacheError(f"cannot start {command[0]}: {exc.strerror}") from None
    try:
        out, err = proc.communicate(timeout=timeout)
        return proc.returncode, out, err, time.monotonic() - start
    except subprocess.TimeoutExpired:
        _kill_group(proc)
        try:
            out, err = proc.communicate(timeout=10)
        except subprocess.TimeoutExpired:  # a descendant left the group and holds the pipes
            proc.kill()
            out, err = "", ""
        return None, out or "", err or "", time.monotonic() - start


def _kill_group(proc: subprocess.Popen[str]) -> None:
    try:
        os.killpg(proc.pid, signal.SIGTERM)
        proc.wait(timeout=5)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
    except ProcessLookupError:
        pass


def find_counterexample(run_dir: Path) -> Path | None:
    """The ITF counterexample Apalache wrote into ``run_dir``, if any."""
    for name in _COUNTEREXAMPLES:
        path = run_dir / name
        if path.is_file():
            return path
    return None


def decode_counterexample(data: dict, model: Model | None = None,
                          source: str = "<itf>") -> list[TraceStep]:
    """The engine's trace steps for an Apalache ITF counterexample.

    With a ``model``, the state tuples follow ``model.variables`` and every step after
    the first is labelled with an action of ``Next`` producing it (``"?"`` when none
    does, e.g. for a spec-only variable Apalache adds); without one, variables are in
    the ITF order and steps are labelled ``"?"``.
    """
    trace = itf.trace_from_json(data, source=source)
    variables = tuple(model.variables) if model is not None else tuple(trace.vars)
    missing = [v for v in variables if v not in trace.vars]
    if missing:
        raise ApalacheError(f"{source}: the counterexample lacks variable(s) {', '.join(missing)}")
    states: list[State] = [tuple(st[v] for v in variables) for st in trace.states]
    steps: list[TraceStep] = []
    for k, state in enumerate(states):
        if k == 0:
            steps.append(TraceStep("Init", (), None, state))
            continue
        label = _label(model, states[k - 1], state) if model is not None else None
        if label is None:
            steps.append(TraceStep("?", (), None, state))
        else:
            steps.append(TraceStep(label[0], label[1], label[2], state))
    return steps


def _label(model: Model, prev: State, cur: State) -> tuple[str, tuple[tuple[str, Value], ...], Loc] | None:
    try:
        for label, succ in model.successors(prev):
            if succ == cur:
                return label.name, label.params, label.loc
    except TlaError:
        return None  # e.g. constants Apalache got from --cinit that the model lacks
    return None


class Apalache:
    """An Apalache installation and the runs it can do."""

    def __init__(self, executable: Path, timeout: float = DEFAULT_TIMEOUT,
                 env: Mapping[str, str] | None = None, keep_dir: Path | None = None) -> None:
        self.executable = executable
        self.timeout = timeout
        self.env = dict(os.environ if env is None else env)
        self.keep_dir = keep_dir

    @classmethod
    def locate(cls, explicit: str | Path | None = None, timeout: float = DEFAULT_TIMEOUT,
               env: Mapping[str, str] | None = None) -> Apalache:
        return cls(find_executable(explicit, env), timeout, env)

    def installation(self) -> Installation:
        """Check that Java is present and read Apalache's version."""
        java = find_java(self.env)
        if java is None:
            raise ApalacheError("Apalache needs Java: no java under JAVA_HOME or on PATH")
        with tempfile.TemporaryDirectory(prefix="apalache-") as tmp:
            code, out, err, _ = run_process([str(self.executable), "version"], Path(tmp),
                                            sanitized_env(Path(tmp), self.env), min(self.timeout, 120.0))
        if code != 0:
            raise ApalacheError(f"`{self.executable} version` failed (exit {code}): {(err or out).strip()[:300]}")
        return Installation(self.executable, parse_version(out), java)

    def run(self, build: Callable[[Path, Path], list[str]], model: Model | None = None) -> Outcome:
        """Run the command ``build(out_dir, run_dir)`` returns, in a fresh directory."""
        with tempfile.TemporaryDirectory(prefix="apalache-") as tmp:
            root = Path(tmp)
            out_dir, run_dir, home = root / "out", root / "run", root / "home"
            for d in (out_dir, run_dir, home):
                d.mkdir()
            command = build(out_dir, run_dir)
            code, out, err, seconds = run_process(command, root, sanitized_env(home, self.env), self.timeout)
            outcome, message = classify(code, out)
            result = Outcome(command, code, outcome, out, err, seconds, message)
            cex = find_counterexample(run_dir)
            if cex is not None:
                try:
                    result.itf = json.loads(cex.read_text(encoding="utf-8"))
                except (OSError, json.JSONDecodeError) as exc:
                    raise ApalacheError(f"{cex.name}: cannot read the counterexample: {exc}") from None
                result.counterexample = decode_counterexample(result.itf, model, cex.name)
            if self.keep_dir is not None:
                shutil.copytree(root, self.keep_dir / f"run-{int(time.time() * 1000)}", dirs_exist_ok=True)
            return result

    def typecheck(self, spec: Path) -> Outcome:
        return self.run(lambda o, r: typecheck_command(self.executable, spec.resolve(), o, r))

    def check(self, spec: Path, *, model: Model | None = None, **options: Any) -> Outcome:
        """``apalache-mc check``; ``options`` are those of ``check_command``."""
        return self.run(lambda o, r: check_command(self.executable, spec.resolve(), o, r, **options),
                        model)

    def simulate(self, spec: Path, *, max_run: int, model: Model | None = None,
                 **options: Any) -> Outcome:
        """``apalache-mc simulate``; ``options`` are those of ``simulate_command``."""
        return self.run(lambda o, r: simulate_command(self.executable, spec.resolve(), o, r,
                                                      max_run=max_run, **options), model)

    def inductive(self, spec: Path, *, ind_inv: str, safety: str, init: str = "Init",
                  ind_init: str = "IndInit",
                  next: str = "Next", cinit: str | None = None, config: Path | None = None,
                  model: Model | None = None) -> list[tuple[InductiveStep, Outcome]]:
        """The three runs of the inductive-invariant recipe, stopping at the first failure."""
        results: list[tuple[InductiveStep, Outcome]] = []
        for step in inductive_steps(init, ind_init, ind_inv, safety):
            outcome = self.check(spec, model=model, init=step.init, next=next, inv=[step.inv],
                                 cinit=cinit, length=step.length, config=config)
            results.append((step, outcome))
            if not outcome.ok:
                break
        return results
