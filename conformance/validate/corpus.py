"""Regenerate ``traces/corpus`` deterministically: ``python -m conformance.validate.corpus``.

The corpus holds, with a ``manifest.json`` saying what the validator must answer for each file:

* ``valid/``: traces of the reference implementation under faults (must be accepted): static
  quorums (``seed-N``) and dynamic ones (``dynamic-seed-N``, KIP-853), the dynamic seeds chosen
  so that together they commit every kind of voter change;
* ``bugs/``: for each bug switch of ``reference.sim.bugs``, the trace of the first seed where the
  bug changes the run, cut a few events after that point (the KIP-853 switches with a dynamic
  quorum). The run with the bug and the run
  without it (same seed) are identical up to the first step where the bug acts, so that step
  is where the trace must be rejected; a bug that leaves out a timer's step (``OMISSION_BUGS``)
  is rejected at the next step of the replica that should have taken it, once it was due, and
  one that delays a timer past its range (``LATE_TIMER_BUGS``) at that replica's late candidacy
  (from the first seed where it is the replica's next step);
* ``mutated/``: valid traces with an event dropped, duplicated, swapped with its neighbour, or
  a value edited (``conformance.validate.mutations``), each with its forced rejection step;
* ``malformed/``: bad input (truncated JSON, unknown action, wrong value encoding, a trace for
  another spec, missing header, non-consecutive steps), each with the line to be named.

Everything is derived from the deterministic simulator and fixed seeds; gzip files carry no
timestamp, so regenerating gives the same bytes.
"""

from __future__ import annotations

import argparse
import copy
import json
import random
import sys
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from conformance.validate.mutations import (
    KINDS,
    Line,
    expand_deltas,
    mutate,
    read_lines,
    write_lines,
)

CORPUS_DIR = Path("traces/corpus")
VALID_SEEDS = tuple(range(1, 9))
STEPS = 200
BUG_SEARCH_SEEDS = 60
BUG_STEPS = 600
TAIL = 5  # events kept after the first buggy step
MUTATION_SEEDS = (1, 2, 3)
DYNAMIC_STEPS = 600
DYNAMIC_SEARCH_SEEDS = 40
# What the dynamic valid traces commit between them (figures of the simulator's run stats).
VOTER_CHANGES = ("adds_committed", "removes_committed", "updates_committed", "self_removals", "rejoins_committed")
GROWING_ACTIONS = ("BecomeCandidate", "ClientAppend")


@dataclass(frozen=True)
class Entry:
    file: str
    expect: str  # ACCEPT, REJECT or ERROR
    step: int | None  # the rejection step (REJECT)
    line: int | None  # the line to be named (ERROR)
    origin: str
    detail: str


def run(seed: int, steps: int, bug: str | None, workdir: Path, dynamic: bool = False) -> tuple[Any, list[Line]]:
    """The run's statistics and the decoded lines of its trace, as written (events with deltas)."""
    from reference.sim.faults import PREVIOUS_DEFAULT_FAULTS
    from reference.sim.simulator import SimConfig, run_seed

    # The fault set the corpus was generated with (the defaults before the stale-message
    # faults), so that its files, and the tests that name them, do not move with the defaults.
    faults = frozenset(PREVIOUS_DEFAULT_FAULTS)
    config = SimConfig(out_dir=workdir, steps=steps, bug=bug, faults=faults)
    if dynamic:
        config = SimConfig(out_dir=workdir, steps=steps, bug=bug, quorum="dynamic",
                           faults=faults | {"voter-disk-loss"})
    result = run_seed(config, seed)
    if result.trace_path is None:
        raise RuntimeError("the simulator wrote no trace")
    return result.stats, read_lines(result.trace_path, expand=False)


def simulate(seed: int, steps: int, bug: str | None, workdir: Path, dynamic: bool = False) -> list[Line]:
    """The decoded lines of one reference run, as written (events with deltas)."""
    return run(seed, steps, bug, workdir, dynamic)[1]


def dynamic_valid(workdir: Path) -> list[tuple[int, list[Line], dict[str, int]]]:
    """(seed, lines, committed voter changes) of the fewest early seeds, taken in order, that
    together commit every kind of ``VOTER_CHANGES``: a seed is kept when it adds a kind."""
    kept: list[tuple[int, list[Line], dict[str, int]]] = []
    missing = set(VOTER_CHANGES)
    for seed in range(1, DYNAMIC_SEARCH_SEEDS + 1):
        stats, lines = run(seed, DYNAMIC_STEPS, None, workdir, dynamic=True)
        counts = {name: int(getattr(stats, name)) for name in VOTER_CHANGES}
        if any(counts[name] for name in missing):
            kept.append((seed, lines, counts))
            missing -= {name for name in VOTER_CHANGES if counts[name]}
        if not missing:
            return kept
    raise RuntimeError(f"seeds 1..{DYNAMIC_SEARCH_SEEDS} never commit {sorted(missing)}")


def _comparable(e: Line) -> Line:
    return {k: v for k, v in e.items() if k != "time_ms"}


def first_divergence(clean: Sequence[Line], buggy: Sequence[Line]) -> int | None:
    """The first step where two runs of one seed differ (ignoring timestamps), if any."""
    ce = [e for e in clean if e["kind"] == "event"]
    be = [e for e in buggy if e["kind"] == "event"]
    for a, b in zip(ce, be, strict=False):
        if _comparable(a) != _comparable(b):
            return int(b["step"])
    return None


def next_step_after_due(clean: Sequence[Line], buggy: Sequence[Line], step: int) -> int | None:
    """For a left-out timer step (the clean run's event ``step``): the first later event of the
    bug run by the same replica at a later time (when the missing step was overdue)."""
    missing = next(e for e in clean if e["kind"] == "event" and e["step"] == step)
    for e in buggy:
        if (e["kind"] == "event" and e["step"] >= step and e["replica"] == missing["replica"]
                and e["time_ms"] > missing["time_ms"]):
            return int(e["step"])
    return None


def _fires_timer(lines: Sequence[Line], step: int) -> bool:
    """Event ``step`` of the bug run is a candidacy. Found by ``next_step_after_due``, it is the
    replica's first step since the run without the bug stood: its election timer, armed as in
    that run, fired past the end of its range."""
    return any(e["kind"] == "event" and e["step"] == step and e["action"] == "BecomeCandidate" for e in lines)


def bug_trace(bug: str, workdir: Path, dynamic: bool = False) -> tuple[list[Line], int, int, str]:
    """(lines cut after the rejected step, the step, seed, why that step) for the first seed
    where the bug acts (and, for a left-out timer step, the replica acts again)."""
    from reference.sim.bugs import LATE_TIMER_BUGS, OMISSION_BUGS

    for seed in range(1, BUG_SEARCH_SEEDS + 1):
        clean = simulate(seed, BUG_STEPS, None, workdir, dynamic)
        buggy = simulate(seed, BUG_STEPS, bug, workdir, dynamic)
        step = first_divergence(clean, buggy)
        if step is None:
            continue
        why = f"first step where the run differs from the run without the bug: {step}"
        if bug in OMISSION_BUGS or bug in LATE_TIMER_BUGS:
            late = next_step_after_due(clean, buggy, step)
            if late is None or (bug in LATE_TIMER_BUGS and not _fires_timer(buggy, late)):
                continue
            why = (f"the run without the bug takes a timer step at step {step}; the next step of that "
                   f"replica once it was due: {late}")
            step = late
        kept = [line for line in buggy if line["kind"] in ("header", "init")
                or (line["kind"] == "event" and line["step"] <= step + TAIL)]
        return kept, step, seed, why
    raise RuntimeError(f"bug {bug!r} never changed a run in seeds 1..{BUG_SEARCH_SEEDS}")


def malformed(lines: Sequence[Line]) -> list[tuple[str, list[str], int, str]]:
    """(name, raw text lines, line to be named, what is wrong) for each kind of bad input."""
    head = [json.dumps(line) + "\n" for line in lines[:12]]
    out = []
    cut = list(head)
    cut[-1] = cut[-1][: len(cut[-1]) // 2]
    out.append(("truncated-json", cut, len(cut), "the last line is cut in the middle"))
    data = [json.loads(t) for t in head]
    data[4]["action"] = "HandleTeleportRequest"
    out.append(("unknown-action", [json.dumps(x) + "\n" for x in data], 5, "step 3 names an action Next does not have"))
    data = [json.loads(t) for t in head]
    data[3]["state"]["votesGranted"] = {"#sett": []}
    out.append(("wrong-encoding", [json.dumps(x) + "\n" for x in data], 4, "a set encoded with an unknown tag"))
    data = [json.loads(t) for t in head]
    data[0]["spec"] = "Paxos"
    out.append(("another-spec", [json.dumps(x) + "\n" for x in data], 1, "the header names another spec"))
    out.append(("missing-header", head[1:], 1, "the header line is missing"))
    out.append(("non-consecutive", head[:4] + head[5:], 5, "step 3 is missing"))
    return out


def build(out_dir: Path) -> list[Entry]:
    """Write the corpus under ``out_dir`` and return its manifest entries."""
    entries: list[Entry] = []
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        valid: dict[int, list[Line]] = {}
        for seed in VALID_SEEDS:
            valid[seed] = simulate(seed, STEPS, None, work)
            name = f"valid/seed-{seed}.ndjson.gz"
            _write(out_dir / name, valid[seed])
            entries.append(Entry(name, "ACCEPT", None, None, f"reference seed {seed}, {STEPS} steps, all faults", ""))
        for seed, lines, counts in dynamic_valid(work):
            name = f"valid/dynamic-seed-{seed}.ndjson.gz"
            _write(out_dir / name, lines)
            committed = ", ".join(f"{k} {v}" for k, v in counts.items())
            entries.append(Entry(name, "ACCEPT", None, None,
                                 f"reference seed {seed}, --quorum dynamic, {DYNAMIC_STEPS} steps, all faults",
                                 f"committed: {committed}"))
        from reference.sim.bugs import BUGS, DYNAMIC_BUGS

        for bug in sorted(BUGS):
            dynamic = bug in DYNAMIC_BUGS
            lines, step, seed, why = bug_trace(bug, work, dynamic)
            name = f"bugs/{bug}-seed-{seed}.ndjson.gz"
            _write(out_dir / name, lines)
            quorum = " --quorum dynamic" if dynamic else ""
            entries.append(Entry(name, "REJECT", step, None, f"reference seed {seed}{quorum} with --inject-bug {bug}",
                                 why))
        for seed in MUTATION_SEEDS:
            for kind in KINDS:
                got = mutate(valid[seed], kind, random.Random(f"{seed}-{kind}"), GROWING_ACTIONS)
                if got is None:
                    raise RuntimeError(f"no position for a {kind} mutation in seed {seed}")
                lines, m = got
                name = f"mutated/seed-{seed}-{kind}.ndjson.gz"
                _write(out_dir / name, lines)
                entries.append(Entry(name, "REJECT", m.reject_step, None, f"valid/seed-{seed}.ndjson.gz", m.detail))
        for bad, text, line, what in malformed(expand_deltas(copy.deepcopy(valid[VALID_SEEDS[0]]))):
            name = f"malformed/{bad}.ndjson"
            path = out_dir / name
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text("".join(text), encoding="utf-8")
            entries.append(Entry(name, "ERROR", None, line, f"valid/seed-{VALID_SEEDS[0]}.ndjson.gz", what))
    manifest = {"generator": "python -m conformance.validate.corpus", "entries": [e.__dict__ for e in entries]}
    (out_dir / "manifest.json").write_text(json.dumps(manifest, indent=1) + "\n", encoding="utf-8")
    _remove_stale(out_dir, {e.file for e in entries})
    return entries


def _remove_stale(out_dir: Path, written: set[str]) -> None:
    """Remove the traces of an earlier corpus that this one no longer lists (a bug switch's
    trace moves to another seed when the simulator changes)."""
    for sub in ("valid", "bugs", "mutated", "malformed"):
        for path in (out_dir / sub).glob("*"):
            if path.is_file() and f"{sub}/{path.name}" not in written:
                path.unlink()


def _write(path: Path, lines: Sequence[Line]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    write_lines(path, lines, compress=True)


def load_manifest(corpus: Path = CORPUS_DIR) -> list[Entry]:
    data: dict[str, Any] = json.loads((corpus / "manifest.json").read_text(encoding="utf-8"))
    return [Entry(**e) for e in data["entries"]]


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m conformance.validate.corpus", description=__doc__.split("\n")[0])
    parser.add_argument("--out", type=Path, default=CORPUS_DIR, help=f"corpus directory (default {CORPUS_DIR})")
    args = parser.parse_args(argv)
    entries = build(args.out)
    size = sum(p.stat().st_size for p in args.out.rglob("*") if p.is_file())
    print(f"wrote {len(entries)} traces to {args.out} ({size / 1e6:.2f} MB)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
