"""The time limit of a run, also in the middle of one long evaluation.

The search and the simulation read their deadline between states (and between initial
states). One evaluation may still run much longer than the limit: an invariant that
computes a large closure, an ``Init`` that enumerates a huge set. ``interrupting`` arms a
timer that, some seconds after the deadline, raises ``TimeLimitReached`` wherever Python
is: a ``BaseException``, so that no evaluation code that catches errors swallows it (as
Ctrl-C's ``KeyboardInterrupt``). The run then reports the limit verdict with what it found.
"""

from __future__ import annotations

import signal
import threading
from collections.abc import Iterator
from contextlib import contextmanager

GRACE = 5.0  # seconds past the deadline before an evaluation is interrupted
MESSAGE = "stopped by the time limit (--time-limit), in the middle of an evaluation"


class TimeLimitReached(BaseException):
    """The time limit passed, and the run did not stop by itself within ``GRACE``."""


def _raise(signum: int, frame: object) -> None:
    raise TimeLimitReached(MESSAGE)


@contextmanager
def interrupting(seconds: float | None) -> Iterator[None]:
    """Within the block, ``TimeLimitReached`` is raised ``seconds + GRACE`` after entering
    it (nothing when ``seconds`` is None, off the main thread, or without POSIX timers)."""
    if seconds is None or not hasattr(signal, "setitimer") or \
            threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = signal.signal(signal.SIGALRM, _raise)
    signal.setitimer(signal.ITIMER_REAL, max(seconds, 0.0) + GRACE)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)
