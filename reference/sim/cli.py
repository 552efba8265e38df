"""``kraftcheck simulate``: run the reference implementation in the simulator.

Exit code 0 when no invariant failed in any seed, 1 otherwise (2 for bad arguments, 130 when
interrupted: the summary then covers the finished runs, whose traces are all kept).
"""

from __future__ import annotations

import argparse
import multiprocessing
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Table

from conformance.output_paths import writable_dir
from reference.sim.bugs import BUGS, UnknownBugError, parse_bug
from reference.sim.faults import (
    DEFAULT_FAULTS,
    DYNAMIC_DEFAULT_FAULTS,
    FAULTS,
    UnknownFaultError,
    parse_faults,
)
from reference.sim.simulator import (
    BOOTSTRAPS,
    QUORUMS,
    STORAGES,
    RunResult,
    RunStats,
    SimConfig,
    run_seed,
)


def parse_seeds(text: str) -> list[int]:
    """Seeds from ``"7"``, ``"1-1000"`` or a comma-separated mix (``"1-5,9"``)."""
    seeds: list[int] = []
    for part in text.split(","):
        part = part.strip()
        if not part:
            continue
        try:
            if "-" in part:
                lo_text, hi_text = part.split("-", 1)
                lo, hi = int(lo_text), int(hi_text)
                if hi < lo:
                    raise argparse.ArgumentTypeError(f"empty seed range {part!r}")
                seeds.extend(range(lo, hi + 1))
            else:
                seeds.append(int(part))
        except ValueError:
            raise argparse.ArgumentTypeError(f"bad seed or seed range {part!r}") from None
    if not seeds:
        raise argparse.ArgumentTypeError("no seeds given")
    return seeds


def register(subparsers: Any) -> None:
    bug_list = "; ".join(f"{name}: {text}" for name, text in BUGS.items())
    fault_list = "; ".join(f"{name}: {text}" for name, text in FAULTS.items())
    p = subparsers.add_parser(
        "simulate",
        help="run the reference implementation in the deterministic simulator",
        description="Simulate a KRaft cluster (reference implementation) under faults, one run "
        "per seed, checking the safety invariants after every step and writing one trace per run.",
        epilog=f"Fault kinds: {fault_list}. Bug switches: {bug_list}.",
    )
    p.add_argument("--quorum", choices=QUORUMS, default="dynamic",
                   help="dynamic: KIP-853 voter set in the log, with voter changes (default); "
                   "static: KIP-595's fixed controller.quorum.voters")
    p.add_argument("--bootstrap", choices=BOOTSTRAPS, default="initial-controllers",
                   help="how a dynamic quorum is formatted (default initial-controllers)")
    p.add_argument("--storage", choices=STORAGES, default="memory",
                   help="memory: in-memory storage (default); file: real log, quorum-state and meta.properties "
                   "files (a temporary folder per replica) under a crash model that drops, reorders and tears "
                   "unsynced writes; every crash recovers the explored crash states and checks that no "
                   "acknowledged epoch, vote or record was lost")
    p.add_argument("--seeds", type=parse_seeds, default=parse_seeds("1-10"), help="seeds, e.g. 1-1000 or 3,7,9-12 (default 1-10)")
    p.add_argument("--voters", type=int, default=3, help="number of voters (ids 1..N; default 3)")
    p.add_argument("--observers", type=int, default=1, help="number of observers (default 1)")
    p.add_argument("--faults", default=None,
                   help=f"comma-separated fault kinds or 'none' (default {','.join(DYNAMIC_DEFAULT_FAULTS)} "
                   f"with a dynamic quorum, {','.join(DEFAULT_FAULTS)} with a static one)")
    p.add_argument("--steps", type=int, default=1000, help="protocol steps per run (default 1000)")
    p.add_argument("--out", type=Path, default=Path("sim-out"), help="directory for traces (default sim-out)")
    p.add_argument("--inject-bug", default=None, metavar="NAME", help=f"break one rule: {', '.join(BUGS)}")
    p.add_argument("--jobs", type=int, default=1, help="worker processes (default 1)")
    p.add_argument("--no-trace", action="store_true", help="do not write traces")
    p.add_argument("--gzip", action="store_true", help="write traces as .ndjson.gz")
    p.add_argument("--full-state-every", type=int, default=0, metavar="N",
                   help="every N-th trace event carries the replica's full state (default 0: changes only)")
    p.set_defaults(func=run)


def _run_one(job: tuple[SimConfig, int]) -> RunResult:
    config, seed = job
    return run_seed(config, seed)


def _results(config: SimConfig, seeds: list[int], jobs: int) -> Iterator[RunResult]:
    work = [(config, s) for s in seeds]
    if jobs <= 1:
        for item in work:
            yield _run_one(item)
        return
    ctx = multiprocessing.get_context("fork" if sys.platform != "win32" else "spawn")
    with ctx.Pool(jobs) as pool:
        # one seed per task: each finished run is reported (and counted) as soon as it ends
        yield from pool.imap_unordered(_run_one, work, chunksize=1)


def run(args: argparse.Namespace) -> int:
    console = Console(stderr=True)
    try:
        default = DYNAMIC_DEFAULT_FAULTS if args.quorum == "dynamic" else DEFAULT_FAULTS
        faults = parse_faults(args.faults if args.faults is not None else ",".join(default))
        parse_bug(args.inject_bug)
        config = SimConfig(
            quorum=args.quorum,
            bootstrap=args.bootstrap,
            voters=args.voters,
            observers=args.observers,
            faults=faults,
            steps=args.steps,
            out_dir=args.out,
            bug=args.inject_bug,
            trace=not args.no_trace,
            gzip=args.gzip,
            full_state_every=args.full_state_every,
            storage=args.storage,
        )
        if args.full_state_every < 0:
            raise ValueError("--full-state-every must be 0 or positive")
        if config.trace:
            writable_dir(args.out, "--out")
    except (UnknownFaultError, UnknownBugError, ValueError) as exc:
        console.print(f"[red]error:[/red] {exc}")
        return 2
    seeds: list[int] = args.seeds
    total = RunStats()
    seeds_with: dict[str, int] = dict.fromkeys(VOTER_CHANGE_FIGURES, 0)
    failed: list[RunResult] = []
    started = time.perf_counter()
    with Progress(
        TextColumn("[bold]simulate"),
        BarColumn(),
        MofNCompleteColumn(),
        TextColumn("{task.fields[events]} events, {task.fields[failed]} failed"),
        TimeElapsedColumn(),
        console=console,
        transient=not console.is_terminal,
    ) as progress:
        task = progress.add_task("runs", total=len(seeds), events=0, failed=0)
        finished = 0
        try:
            for result in _results(config, seeds, max(1, args.jobs)):
                total.add(result.stats)
                finished += 1
                for name in VOTER_CHANGE_FIGURES:
                    seeds_with[name] += getattr(result.stats, name) > 0
                if result.failures:
                    failed.append(result)
                progress.update(task, advance=1, events=total.events, failed=len(failed))
        except KeyboardInterrupt:  # Ctrl-C: the finished runs' traces are complete and kept
            interrupted = True
        else:
            interrupted = False
    elapsed = time.perf_counter() - started
    _summary(Console(), config, seeds[:finished] if interrupted else seeds, total, failed, elapsed, seeds_with)
    if interrupted:
        console.print(f"interrupted: {finished} of {len(seeds)} runs finished; their traces are complete in "
                      f"{args.out}; a run cut short leaves a trace without its end line", markup=False)
        return 130
    return 1 if failed else 0


# Committed voter changes counted per run (a dynamic quorum's coverage), with their labels.
VOTER_CHANGE_FIGURES = {
    "adds_committed": "AddVoter committed",
    "removes_committed": "RemoveVoter committed",
    "updates_committed": "UpdateVoter committed",
    "self_removals": "leader self-removals committed",
    "rejoins_committed": "disk-loss rejoins committed (AddVoter of a new directory id)",
}


def _summary(console: Console, config: SimConfig, seeds: list[int], total: RunStats, failed: list[RunResult],
             elapsed: float, seeds_with: dict[str, int]) -> None:
    table = Table(title="kraftcheck simulate", show_header=False)
    table.add_column("figure", no_wrap=True)
    table.add_column("value", overflow="fold")
    table.add_row("runs", str(len(seeds)))
    table.add_row("quorum", config.quorum if not config.dynamic else f"dynamic ({config.bootstrap})")
    table.add_row("events", str(total.events))
    table.add_row("elections", str(total.elections))
    table.add_row("commits (committed entries)", str(total.commits))
    table.add_row("client appends", str(total.client_appends))
    table.add_row("messages sent / dropped", f"{total.messages_sent} / {total.messages_dropped}")
    table.add_row("crashes (inside a step; between two writes)",
                  f"{total.crashes} ({total.crashes_in_step}; {total.crashes_between_writes})")
    table.add_row("shutdowns / disk losses / partitions", f"{total.shutdowns} / {total.disk_losses} / {total.partitions}")
    if config.dynamic:
        table.add_row("voter changes requested / committed", f"{total.voter_change_requests} / {total.voter_changes_committed}")
        for name, label in VOTER_CHANGE_FIGURES.items():
            table.add_row(label, f"{getattr(total, name)} in {seeds_with[name]} seeds")
    if config.storage == "file":
        table.add_row("storage", "file (crash model)")
        table.add_row("crash points / crash states explored", f"{total.crash_points} / {total.crash_states}")
    # messages sent before the receiver changed epoch, leader or role, handled right after it
    table.add_row("old messages after a change (older epoch)", f"{total.old_after_change} ({total.older_epoch_after_change})")
    table.add_row("bug switch", config.bug or "none")
    table.add_row("faults", ",".join(sorted(config.faults)) or "none")
    table.add_row("wall time", f"{elapsed:.1f} s ({total.events / elapsed if elapsed else 0:.0f} events/s)")
    table.add_row("invariant failures", str(len(failed)))
    console.print(table)
    for result in sorted(failed, key=lambda r: r.seed)[:20]:
        failure = result.failures[0]
        console.print(f"[red]FAIL[/red] {failure}", highlight=False, soft_wrap=True)
        if result.trace_path is not None:
            console.print(f"  trace: {result.trace_path}", highlight=False, soft_wrap=True)
    if len(failed) > 20:
        console.print(f"... and {len(failed) - 20} more failing seeds")
