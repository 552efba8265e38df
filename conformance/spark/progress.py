"""Progress on the driver: traces done out of the total, and the rate, while a job runs.

Executors add to two accumulators (traces, events); Spark merges a task's additions when the
task succeeds, so the count moves task by task and never counts a failed attempt.
"""

from __future__ import annotations

import threading
import time
from types import TracebackType
from typing import TYPE_CHECKING

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

if TYPE_CHECKING:
    from pyspark import Accumulator, SparkContext


class Counters:
    """The accumulators executors add to (picklable into the job's closure)."""

    def __init__(self, sc: SparkContext) -> None:
        self.traces: Accumulator[int] = sc.accumulator(0)
        self.events: Accumulator[int] = sc.accumulator(0)
        self.builds: Accumulator[int] = sc.accumulator(0)  # validators built (spec compilations)


class DriverProgress:
    """A progress bar (on a terminal) updated from the accumulators, and a closing line."""

    def __init__(self, what: str, total: int, counters: Counters, console: Console, enabled: bool,
                 interval: float = 0.5) -> None:
        self.what = what
        self.total = total
        self.counters = counters
        self.console = console
        self.interval = interval
        self.started = time.perf_counter()
        self._stop = threading.Event()
        self._bar = Progress(TextColumn(what), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
                             TextColumn("{task.fields[rate]}"), console=console,
                             disable=not enabled or not console.is_terminal)
        self._task = self._bar.add_task(what, total=total, rate="")
        self._thread = threading.Thread(target=self._poll, name="kraftcheck-progress", daemon=True)

    def rate(self) -> str:
        elapsed = max(time.perf_counter() - self.started, 1e-9)
        traces, events = self.counters.traces.value, self.counters.events.value
        return f"{traces / elapsed:.1f} traces/s, {events / elapsed:.0f} events/s"

    def _poll(self) -> None:
        while not self._stop.wait(self.interval):
            self._bar.update(self._task, completed=self.counters.traces.value, rate=self.rate())

    def __enter__(self) -> DriverProgress:
        self._bar.start()
        self._thread.start()
        return self

    def __exit__(self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None) -> None:
        self._stop.set()
        self._thread.join()
        self._bar.update(self._task, completed=self.counters.traces.value, rate=self.rate())
        self._bar.stop()
        if kind is None:
            elapsed = time.perf_counter() - self.started
            self.console.print(f"{self.what}: {self.counters.traces.value} / {self.total} traces in {elapsed:.1f} s "
                               f"({self.rate()})", markup=False, highlight=False)
