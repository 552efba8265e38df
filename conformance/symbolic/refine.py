"""Deciding an unknown step obligation again, in smaller pieces (``kraftcheck prove --split``).

A step obligation ``IndInv /\\ C /\\ A => IndInv'`` that comes back unknown (over its
resource or time budget) is decided again:

* case by case when the action splits (``cases.py``): one obligation per case, each with
  the whole budget, asking only the conjuncts of ``IndInv'`` the attempt left open (those it
  proved or found unchanged hold for the whole action, so for each case);
* per conjunct otherwise, and for a case that comes back unknown: one obligation per
  conjunct of ``IndInv'`` left open, the premise staying the whole of ``IndInv``
  (``ProofInput.goals``). A piece's step is the attempt's, so it takes what the attempt
  found of the frame (the variables the step keeps, those a model of the premises
  changes) instead of asking again: each piece would otherwise spend the same questions.

An attempt that pieces follow asks each of its questions once, at its first round's cap
(``ProofInput.refined``): what it leaves open is decided by the pieces, each with the whole
budget, rather than by a second round that shares what is left of the attempt's. A
conjunct piece, the last, keeps its second round.

The action is proved when every final piece is; a counterexample in any piece is one of
the action (its premise is the whole of ``IndInv`` and its step one of ``A``). A piece of
one conjunct that stays unknown is not split further.
"""

from __future__ import annotations

from dataclasses import replace

from conformance.symbolic.prove import Obligation, ObligationResult, ProofInput, forked, obligations


class Refiner:
    """The pieces an unknown step result of ``inp`` is decided again in (none: final)."""

    def __init__(self, inp: ProofInput) -> None:
        self.inp = inp
        self._cases: dict[int, list[Obligation]] | None = None

    def __call__(self, r: ObligationResult) -> list[Obligation]:
        ob = r.obligation
        if ob.kind != "step" or r.verdict != "unknown" or ob.conjunct:
            return []
        open_ = open_conjuncts(r)
        if not open_:
            return []
        if ob.case < 0:
            cases = self.cases_of(ob.index)
            if cases:
                return [replace(c, goals=open_) for c in cases]
        # the pieces share the attempt's step: what it found of its frame holds for them
        kept, changed = (r.kept, r.changed) if self.inp.pieces_take_frame else (None, ())
        return [replace(ob, goals=(), conjunct=label, kept=kept, changed=changed) for label in open_]

    def cases_of(self, index: int) -> list[Obligation]:
        """The cases of the action ``index`` of ``Next`` (empty: it does not split)."""
        if self._cases is None:
            self._cases = {}
            for o in forked(obligations, self.inp, True):
                if o.case >= 0:
                    self._cases.setdefault(o.index, []).append(o)
        return self._cases.get(index, [])


def open_conjuncts(r: ObligationResult) -> tuple[str, ...]:
    """The conjuncts of ``IndInv'`` a step result left unknown."""
    return tuple(label for label, v in r.conjuncts.items() if v == "unknown")


__all__ = ["Refiner", "open_conjuncts"]
