"""Progress display of long explorations.

On a terminal: a rich status line (distinct states, states/s, queue, depth) refreshed
about every 2 s. Otherwise (not a TTY): one plain line every ~10 s on stderr.
``enabled=False`` (``--quiet``) shows nothing.
"""

from __future__ import annotations

import sys
import time
from typing import IO, Any


class Progress:
    """Call ``update`` as often as you like; it redraws only when due."""

    def __init__(self, enabled: bool = True, stream: IO[str] | None = None,
                 tty_interval: float = 2.0, plain_interval: float = 10.0,
                 label: str = "distinct states") -> None:
        self.stream = stream if stream is not None else sys.stderr
        self.enabled = enabled
        self.tty = enabled and bool(getattr(self.stream, "isatty", lambda: False)())
        self.interval = tty_interval if self.tty else plain_interval
        self.label = label
        self.start = time.monotonic()
        self._next = self.start + self.interval
        self._last_generated = 0
        self._last_time = self.start
        self._live: Any = None
        self.lines_written = 0

    def update(self, distinct: int, generated: int, queue: int, depth: int) -> None:
        if not self.enabled:
            return
        now = time.monotonic()
        if now < self._next:
            return
        self._next = now + self.interval
        rate = (generated - self._last_generated) / max(now - self._last_time, 1e-9)
        self._last_generated, self._last_time = generated, now
        text = (f"{distinct:,} {self.label}, {generated:,} generated, {rate:,.0f} states/s, "
                f"queue {queue:,}, depth {depth}, {now - self.start:,.0f} s")
        if self.tty:
            self._show_live(text)
        else:
            print(f"progress: {text}", file=self.stream, flush=True)
        self.lines_written += 1

    def _show_live(self, text: str) -> None:
        from rich.console import Console
        from rich.live import Live
        from rich.text import Text

        if self._live is None:
            console = Console(file=self.stream)
            self._live = Live(Text(text), console=console, auto_refresh=False, transient=True)
            self._live.start()
        self._live.update(Text(text), refresh=True)

    def close(self) -> None:
        if self._live is not None:
            self._live.stop()
            self._live = None
