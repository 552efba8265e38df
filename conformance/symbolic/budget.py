"""What one obligation may spend on solver calls: wall-clock seconds, and optionally z3
resource units (``rlimit``).

A wall-clock timeout depends on the machine and its load, so the same obligation can be
proved on a quiet machine and left unknown on a busy one. z3's resource limit counts the
solver's own steps instead: with the same z3 build and the same formulas, a question
proved within ``rlimit`` units is proved within them on any machine, at any load. With a
resource budget, every cap of the schedule (a question of the first round, the frame
question, a slice round) is a share of the budget rather than a number of seconds, and
the wall-clock timeout stays only as an outer bound (set it high for figures that
compare). A question over either limit is ``unknown``, and an obligation with an unknown
question is ``unknown``: running out of budget never proves anything.
"""

from __future__ import annotations

import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager

import z3

RLIMIT_KEY = "rlimit count"
MAX_SECONDS = 4_000_000.0  # z3's timeout is an unsigned 32-bit count of milliseconds


def rlimit_count(solver: z3.Solver) -> int:
    """The resource units ``solver`` has spent so far (z3 counts them over its lifetime)."""
    try:
        return int(solver.statistics().get_key_value(RLIMIT_KEY))
    except z3.Z3Exception:  # not counted yet: nothing spent
        return 0


Z3Param = tuple[str, bool | int | float | str]

# What ``kraftcheck prove`` sets unless ``--z3`` names the key: z3's older simplex
# (``smt.arith.solver=2``; z3's own default is 6). The whole KRaft proof with the observer
# spent 12 % fewer units and 10 % less CPU with it (spec/README.md gives the figures per
# action: two of the five actions that split got dearer, three cheaper).
PROVE_DEFAULTS: tuple[Z3Param, ...] = (("smt.arith.solver", 2),)


def with_defaults(given: Sequence[Z3Param],
                  defaults: Sequence[Z3Param] = PROVE_DEFAULTS) -> tuple[Z3Param, ...]:
    """``defaults`` whose key ``given`` does not name, then ``given``."""
    named = {key for key, _ in given}
    return tuple(p for p in defaults if p[0] not in named) + tuple(given)


def z3_param(text: str) -> Z3Param:
    """``KEY=VALUE`` as a z3 solver parameter (``smt.arith.solver=2``): the value a boolean,
    an integer, a float or else a string; ``ValueError`` for a missing value or a key z3
    does not know."""
    key, sep, raw = text.partition("=")
    if not sep or not key or not raw:
        raise ValueError(f"{text!r}: expected KEY=VALUE")
    value: bool | int | float | str = raw
    if raw.lower() in ("true", "false"):
        value = raw.lower() == "true"
    else:
        for kind in (int, float):
            try:
                value = kind(raw)
                break
            except ValueError:
                continue
    try:
        # a context of its own: a term or solver made in the main context would change the
        # searches of every later obligation forked from this process
        trial = z3.Solver(ctx=z3.Context())
        trial.set(key, value)
        trial.check()  # an unknown key or a value of the wrong type raises here
    except z3.Z3Exception as exc:
        first = (exc.value if isinstance(exc.value, str) else exc.value.decode()).splitlines()[0]
        raise ValueError(f"{text!r}: z3 does not take it ({first})") from None
    return key, value


@contextmanager
def z3_params_set(params: Sequence[Z3Param]) -> Iterator[None]:
    """z3's global parameters set to ``params`` within the block, and back to what they
    were after it. Global, as in the runs that measured ``smt.arith.solver=2``, whose units
    ``prove --z3`` then spends exactly (spec/README.md); set on each solver instead, it was
    not measured on its own."""
    old = [(key, z3.get_param(key)) for key, _ in params]
    try:
        for key, value in params:
            z3.set_param(key, value)
        yield
    finally:
        for key, before in old:
            z3.set_param(key, before)


class Budget:
    """The seconds (until ``deadline``) and resource units (``rlimit``, 0: no limit) left
    to an obligation; ``used``: the resource units its solver calls have spent."""

    def __init__(self, seconds: float, rlimit: int = 0) -> None:
        if rlimit < 0:
            raise ValueError("the resource limit must not be negative")
        self.deadline = time.monotonic() + seconds
        self.rlimit = rlimit
        self.used = 0
        self.over = False  # a question ran out of resource units (not of time)

    def seconds_left(self) -> float:
        return self.deadline - time.monotonic()

    def units_left(self) -> int | None:
        """Resource units left (``None``: no resource limit)."""
        return None if not self.rlimit else self.rlimit - self.used

    def exhausted(self) -> bool:
        units = self.units_left()
        return self.seconds_left() <= 0 or (units is not None and units <= 0)

    def check(self, solver: z3.Solver, seconds: float, share: float = 1.0,
              assumptions: Sequence[z3.BoolRef] = ()) -> tuple[z3.CheckSatResult, str]:
        """``solver.check(*assumptions)`` for at most ``seconds`` (and what is left of the
        time), or with a resource budget, for at most ``share`` of it (and what is left of
        it) and what is left of the time (the per-question cap in seconds does not apply:
        it would make the answer depend on the load); the answer and, for ``unknown``, why
        (``time limit`` or ``resource limit``)."""
        units = self.units_left()
        seconds = self.seconds_left() if units is not None else min(seconds, self.seconds_left())
        limit = 0
        if units is not None:
            limit = min(units, max(1, int(self.rlimit * share)))
            if limit <= 0:
                self.over = True
                return z3.unknown, "resource limit"
        if seconds <= 0:
            return z3.unknown, "time limit"
        solver.set("timeout", max(1, min(int(min(seconds, MAX_SECONDS) * 1000), 2**32 - 1)))
        solver.set("rlimit", limit)
        before = rlimit_count(solver)
        answer = solver.check(*assumptions)
        spent = rlimit_count(solver) - before
        self.used += spent
        why = ""
        if answer == z3.unknown:
            reason = solver.reason_unknown()
            if limit and (spent >= limit or reason == "canceled"):  # z3's word for an rlimit stop
                why = "resource limit"
                self.over = True
            elif reason in ("timeout", "canceled"):
                why = "time limit"
            else:
                why = reason
        return answer, why


__all__ = ["PROVE_DEFAULTS", "Budget", "Z3Param", "rlimit_count", "with_defaults", "z3_param", "z3_params_set"]
