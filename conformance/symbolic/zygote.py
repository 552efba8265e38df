"""Items decided each in a process of its own, forked from one prepared process.

z3's search depends on the terms its context already holds, so an obligation decided after
others in one process can spend other resource units than alone. Each is therefore decided
in a fresh process. What they all start from (for a proof: the model, the first state, the
invariant translated on it) is made once, by ``prepare`` in a *zygote*: a process forked
from the caller, which then forks one process per item. The zygote's later work (receiving
items, passing results on) makes no z3 term, so every item starts from the same state: it
spends the same units whatever the order, the number of jobs running at once, or what the
caller did between two proofs.
"""

from __future__ import annotations

import gc
import multiprocessing
from collections.abc import Callable, Hashable
from multiprocessing.connection import Connection, wait
from multiprocessing.process import BaseProcess
from typing import Any


class Zygote:
    """A process that runs ``prepare()`` once; ``submit(key, item)`` has ``decide(prepared,
    item)`` computed in a process forked from it, and ``receive()`` gives each ``(key,
    outcome)`` as it comes: the outcome, the exception ``decide`` raised, or ``died(item,
    exit code)`` for a process that died without an answer."""

    def __init__(self, prepare: Callable[[], Any], decide: Callable[[Any, Any], Any],
                 died: Callable[[Any, int | None], Any]) -> None:
        ctx = multiprocessing.get_context("fork")
        take_request, self._requests = ctx.Pipe(duplex=False)  # (receiving end, sending end)
        self._results, give_result = ctx.Pipe(duplex=False)
        # not a daemon: it has children of its own; ``close`` ends it
        self._proc = ctx.Process(target=_serve,
                                 args=(prepare, decide, died, take_request, give_result, self._requests))
        self._proc.start()
        take_request.close()
        give_result.close()

    def submit(self, key: Hashable, item: Any) -> None:
        self._requests.send((key, item))

    def receive(self) -> tuple[Hashable, Any]:
        try:
            key, outcome = self._results.recv()
        except EOFError:
            self._proc.join()
            raise RuntimeError(f"the process deciding the items died (exit code {self._proc.exitcode})") from None
        return key, outcome

    def close(self) -> None:
        """End the zygote and the items it is still deciding."""
        self._requests.close()  # it stops on reading the end of its requests
        self._proc.join(10)
        if self._proc.is_alive():
            self._proc.kill()
            self._proc.join()
        self._results.close()


def _serve(prepare: Callable[[], Any], decide: Callable[[Any, Any], Any],
           died: Callable[[Any, int | None], Any], requests: Connection, results: Connection,
           sending_end: Connection) -> None:
    sending_end.close()  # the caller's end, copied by the fork: else its close is no end of requests
    prepared = prepare()
    gc.collect()  # what ``prepare`` dropped goes now, not between two forks
    ctx = multiprocessing.get_context("fork")
    running: dict[Connection, tuple[Hashable, Any, BaseProcess]] = {}
    try:
        while True:
            for conn in wait([requests, *running]):
                assert isinstance(conn, Connection)
                if conn is requests:
                    try:
                        key, item = requests.recv()
                    except EOFError:
                        return
                    receive, send = ctx.Pipe(duplex=False)
                    proc: BaseProcess = ctx.Process(target=_decide_one, args=(decide, prepared, item, send), daemon=True)
                    proc.start()
                    send.close()
                    running[receive] = (key, item, proc)
                    continue
                key, item, proc = running.pop(conn)
                try:
                    outcome = conn.recv()
                except EOFError:  # no answer: the process died
                    proc.join()
                    outcome = died(item, proc.exitcode)
                conn.close()
                proc.join()
                results.send((key, outcome))
    finally:
        for conn, (_, _, proc) in running.items():
            proc.kill()
            proc.join()
            conn.close()
        results.close()


def _decide_one(decide: Callable[[Any, Any], Any], prepared: Any, item: Any, conn: Connection) -> None:
    try:
        outcome = decide(prepared, item)
    except Exception as exc:  # the caller raises it
        outcome = exc
    conn.send(outcome)
    conn.close()


__all__ = ["Zygote"]
