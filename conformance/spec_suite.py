"""The spec suite (``tox -e spec``): model-check every config of ``spec/models.json``.

Each manifest entry names a config of the spec, a mode (``exhaustive`` or
``simulate``) and the expected verdict (``ok`` or ``violation`` with the property that
must fail). Runs go through the Python API of the engine (default) or the
``kraftcheck check --json`` command line (``--via cli``). A table of outcomes is
printed; the exit code is 0 only when every outcome is the expected one.

    python -m conformance.spec_suite [--only NAME ...] [--sim-traces N] [--sim-depth D]
                                     [--sim-seconds S] [--time-limit S] [--via api|cli] [--json]
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from conformance.spec_location import spec_dir

MODES = ("exhaustive", "simulate")
VERDICTS = ("ok", "violation")


class ManifestError(ValueError):
    """The manifest is not what this runner understands; the message names the entry."""


@dataclass(frozen=True)
class Entry:
    """One model of the manifest."""

    name: str
    spec: Path
    config: Path
    mode: str
    expect: str
    property: str | None
    depth: int = 50
    traces: int = 100
    seed: int = 0
    max_states: int | None = None
    note: str = ""


@dataclass
class Result:
    """What running one entry gave."""

    entry: Entry
    verdict: str
    failed: str | None  # the violated property, if any
    message: str | None
    distinct_states: int
    depth: int
    seconds: float
    trace_length: int = 0
    extra: dict[str, Any] = field(default_factory=dict)

    @property
    def as_expected(self) -> bool:
        if self.entry.expect == "ok":
            # a simulation (or an exhaustive run with max_states) that stopped at its
            # budget found nothing: that is the expected outcome of a clean model
            allowed = {"ok", "limit"} if (self.entry.mode == "simulate" or self.entry.max_states) else {"ok"}
            return self.verdict in allowed
        return self.verdict == "violation" and self.failed == self.entry.property


def load_manifest(path: Path | None = None) -> list[Entry]:
    """The entries of the manifest (default: the spec folder's ``models.json``); errors name
    the file and the entry."""
    if path is None:
        try:
            path = spec_dir() / "models.json"
        except FileNotFoundError as exc:
            raise ManifestError(str(exc)) from None
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise ManifestError(f"{path}: cannot read: {exc.strerror}") from None
    except json.JSONDecodeError as exc:
        raise ManifestError(f"{path}:{exc.lineno}:{exc.colno}: invalid JSON: {exc.msg}") from None
    if not isinstance(data, dict) or not isinstance(data.get("models"), list):
        raise ManifestError(f"{path}: expected an object with a 'models' list")
    default_spec = data.get("spec", "MC_KRaft.tla")
    entries: list[Entry] = []
    names: set[str] = set()
    for k, raw in enumerate(data["models"]):
        where = f"{path}: models[{k}]"
        if not isinstance(raw, dict):
            raise ManifestError(f"{where}: not an object")
        name = raw.get("name")
        if not isinstance(name, str) or not name:
            raise ManifestError(f"{where}: 'name' must be a non-empty string")
        where = f"{path}: model {name!r}"
        if name in names:
            raise ManifestError(f"{where}: duplicate name")
        names.add(name)
        unknown = set(raw) - {"name", "spec", "config", "mode", "expect", "property", "depth",
                              "traces", "seed", "max_states", "note"}
        if unknown:
            raise ManifestError(f"{where}: unknown key(s) {', '.join(sorted(unknown))}")
        mode, expect, prop = raw.get("mode"), raw.get("expect"), raw.get("property")
        if mode not in MODES:
            raise ManifestError(f"{where}: 'mode' must be one of {', '.join(MODES)}")
        if expect not in VERDICTS:
            raise ManifestError(f"{where}: 'expect' must be one of {', '.join(VERDICTS)}")
        if (expect == "violation") != isinstance(prop, str):
            raise ManifestError(f"{where}: 'property' names the failing property exactly when "
                                "'expect' is 'violation'")
        spec = path.parent / str(raw.get("spec", default_spec))
        config = path.parent / str(raw.get("config", ""))
        for what, p in (("spec", spec), ("config", config)):
            if not p.is_file():
                raise ManifestError(f"{where}: {what} {p} does not exist")
        ints = {}
        for key in ("depth", "traces", "seed", "max_states"):
            value = raw.get(key)
            if value is not None and (not isinstance(value, int) or isinstance(value, bool) or value < 0):
                raise ManifestError(f"{where}: '{key}' must be a non-negative integer")
            ints[key] = value
        entries.append(Entry(name, spec, config, mode, expect, prop,
                             depth=ints["depth"] or 50, traces=ints["traces"] or 100,
                             seed=ints["seed"] or 0, max_states=ints["max_states"],
                             note=str(raw.get("note", ""))))
    return entries


def run_api(entry: Entry, *, traces: int | None, depth: int | None, time_limit: float | None) -> Result:
    """Run one entry through the engine's Python API."""
    from conformance.tla.cfg import read_config
    from conformance.tla.explorer import check, simulate
    from conformance.tla.model import Model
    from conformance.tla.syntax import TlaError

    try:
        config = read_config(entry.config)
        model = Model.load(entry.spec, constants=config.constants, overrides=config.overrides)
    except TlaError as exc:
        return Result(entry, "error", None, str(exc), 0, 0, 0.0)
    if entry.mode == "simulate":
        res = simulate(model, config, depth=depth or entry.depth, traces=traces or entry.traces,
                       seed=entry.seed, time_limit=time_limit, progress=False)
    else:
        res = check(model, config, max_states=entry.max_states, time_limit=time_limit, progress=False)
    return Result(entry, res.verdict, res.property, res.message, res.distinct_states, res.depth,
                  res.seconds, len(res.trace))


def cli_command(entry: Entry, *, traces: int | None, depth: int | None,
                time_limit: float | None) -> list[str]:
    """The ``kraftcheck check`` command line for one entry."""
    cmd = [sys.executable, "-m", "conformance", "check", str(entry.spec), "--config", str(entry.config),
           "--json", "--quiet"]
    if entry.mode == "simulate":
        cmd += ["--simulate", "--depth", str(depth or entry.depth), "--traces", str(traces or entry.traces),
                "--seed", str(entry.seed)]
    elif entry.max_states is not None:
        cmd += ["--max-states", str(entry.max_states)]
    if time_limit is not None:
        cmd += ["--time-limit", str(time_limit)]
    return cmd


def run_cli(entry: Entry, *, traces: int | None, depth: int | None, time_limit: float | None) -> Result:
    """Run one entry through ``kraftcheck check --json`` in a subprocess."""
    cmd = cli_command(entry, traces=traces, depth=depth, time_limit=time_limit)
    proc = subprocess.run(cmd, capture_output=True, text=True, check=False)
    try:
        out = json.loads(proc.stdout.strip().splitlines()[-1])
    except (IndexError, json.JSONDecodeError):
        message = (proc.stderr.strip() or proc.stdout.strip() or "no output")[-500:]
        return Result(entry, "error", None, f"exit {proc.returncode}: {message}", 0, 0, 0.0)
    return Result(entry, out["verdict"], out.get("property"), out.get("message"),
                  int(out.get("distinct_states", 0)), int(out.get("depth", 0)),
                  float(out.get("seconds", 0.0)), len(out.get("trace", [])))


def format_table(results: Sequence[Result]) -> str:
    """The outcome table."""
    head = ("model", "mode", "expected", "got", "states", "depth", "trace", "seconds", "")
    rows = [head]
    for r in results:
        expected = r.entry.expect + (f" {r.entry.property}" if r.entry.property else "")
        got = r.verdict + (f" {r.failed}" if r.failed else "")
        rows.append((r.entry.name, r.entry.mode, expected, got, str(r.distinct_states), str(r.depth),
                     str(r.trace_length) if r.trace_length else "-", f"{r.seconds:.1f}",
                     "ok" if r.as_expected else "UNEXPECTED"))
    widths = [max(len(row[c]) for row in rows) for c in range(len(head))]
    lines = ["  ".join(cell.ljust(w) for cell, w in zip(row, widths, strict=True)).rstrip() for row in rows]
    lines.insert(1, "  ".join("-" * w for w in widths))
    return "\n".join(lines)


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="python -m conformance.spec_suite",
                                description="Model-check the spec's configs listed in spec/models.json "
                                "and compare each outcome with the expected one.")
    p.add_argument("--manifest", type=Path, default=None, help="the manifest (default: models.json of the spec folder)")
    p.add_argument("--only", action="append", default=[], metavar="NAME", help="run only this model (repeatable)")
    p.add_argument("--sim-traces", type=int, metavar="N", help="simulation: walks per model (overrides the manifest)")
    p.add_argument("--sim-depth", type=int, metavar="D", help="simulation: states per walk (overrides the manifest)")
    p.add_argument("--sim-seconds", type=float, metavar="S",
                   help="simulation: stop each simulated model after S seconds (a clean stop counts as ok)")
    p.add_argument("--time-limit", type=float, metavar="S", help="exhaustive: stop each model after S seconds")
    p.add_argument("--via", choices=("api", "cli"), default="api", help="engine Python API or kraftcheck CLI")
    p.add_argument("--json", action="store_true", help="print the outcomes as JSON instead of a table")
    return p


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    for opt in ("sim_traces", "sim_depth"):
        if getattr(args, opt) is not None and getattr(args, opt) < 1:
            print(f"spec_suite: error: --{opt.replace('_', '-')} must be at least 1", file=sys.stderr)
            return 2
    try:
        entries = load_manifest(args.manifest)
    except ManifestError as exc:
        print(f"spec_suite: error: {exc}", file=sys.stderr)
        return 2
    unknown = set(args.only) - {e.name for e in entries}
    if unknown:
        print(f"spec_suite: error: no model named {', '.join(sorted(unknown))} in {args.manifest or 'the manifest'}", file=sys.stderr)
        return 2
    runner = run_api if args.via == "api" else run_cli
    results: list[Result] = []
    for entry in entries:
        if args.only and entry.name not in args.only:
            continue
        limit = args.sim_seconds if entry.mode == "simulate" else args.time_limit
        if not args.json:
            print(f"running {entry.name} ({entry.mode}, {entry.config.name}) ...", file=sys.stderr, flush=True)
        results.append(runner(entry, traces=args.sim_traces, depth=args.sim_depth, time_limit=limit))
    if args.json:
        print(json.dumps([{"model": r.entry.name, "mode": r.entry.mode, "expect": r.entry.expect,
                           "expect_property": r.entry.property, "verdict": r.verdict,
                           "property": r.failed, "message": r.message,
                           "distinct_states": r.distinct_states, "depth": r.depth,
                           "seconds": round(r.seconds, 3), "as_expected": r.as_expected}
                          for r in results], indent=2))
    else:
        print(format_table(results))
        for r in results:
            if not r.as_expected and r.message:
                print(f"{r.entry.name}: {r.message}")
    bad = [r.entry.name for r in results if not r.as_expected]
    if bad and not args.json:
        print(f"{len(bad)} unexpected outcome(s): {', '.join(bad)}")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
