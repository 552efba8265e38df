"""Premise slicing: a step question asked with part of the invariant first.

A step obligation asks, one question at a time, whether ``IndInv /\\ C /\\ A /\\ ~Q`` is
satisfiable (``Q`` a piece of ``IndInv'``). Most questions need few of the conjuncts of
``IndInv``; the others only give the solver more to satisfy. So a question is first asked
with a slice of them (as interactive provers hide irrelevant facts, or SInE selects
axioms): the conjuncts that share a state variable with ``Q``.

* ``unsat`` with a slice proves the question: each conjunct of the slice is implied by
  ``IndInv``, so the full premise is stronger than the slice.
* ``sat`` with a slice proves nothing: the model may violate a conjunct left out. Those it
  violates join the slice and the question is asked again (a few rounds); when the model
  satisfies every conjunct, or the rounds or the time run out, the slice gives up and the
  caller asks with the whole premise. A counterexample only ever comes from that question.

The premises live in a solver of their own, each behind a switch literal
(``switch => conjunct``): a question assumes the switches of its slice on and the others
off, so one solver serves every slice without restating the conjuncts.
"""

from __future__ import annotations

from dataclasses import dataclass

import z3

from conformance.symbolic.budget import Budget

# a question is asked with a slice for at most this long per round (with a resource
# budget: at most this share of it), and in at most this many rounds, before the whole
# premise is asked
SLICE_SECONDS = 5.0
SLICE_SHARE = 1 / 24
SLICE_ROUNDS = 3


@dataclass(frozen=True)
class Premise:
    """A conjunct of the invariant in the first state; ``reads``: its state variables
    (``None``: not known, so it is in every slice)."""

    label: str
    formula: z3.BoolRef
    reads: frozenset[str] | None


class Slices:
    """Questions asked with slices of ``premises`` (on top of what ``solver`` holds: the
    action, the constraints, well-formedness)."""

    def __init__(self, solver: z3.Solver, premises: list[Premise]) -> None:
        self.solver = solver
        self.premises = premises
        self.switches = [z3.Bool(f"premise!{k}") for k in range(len(premises))]
        for switch, p in zip(self.switches, premises, strict=True):
            solver.add(z3.Implies(switch, p.formula))
        self.proved = 0  # questions a slice proved
        self.given_up = 0  # questions left to the whole premise

    def relevant(self, reads: frozenset[str] | None) -> frozenset[int]:
        """The premises sharing a state variable with ``reads`` (all of them when ``reads``
        is not known), and those whose variables are not known."""
        return frozenset(k for k, p in enumerate(self.premises)
                         if reads is None or p.reads is None or p.reads & reads)

    def ask(self, chosen: frozenset[int], negation: z3.BoolRef,
            budget: Budget) -> tuple[z3.CheckSatResult, z3.ModelRef | None]:
        """``negation`` with the premises ``chosen`` (for at most ``SLICE_SECONDS``, or
        ``SLICE_SHARE`` of a resource budget): the answer and the model of a sat one."""
        if budget.exhausted():
            return z3.unknown, None
        self.solver.push()
        self.solver.add(negation)
        answer, _ = budget.check(self.solver, SLICE_SECONDS, SLICE_SHARE,
                                 [s if k in chosen else z3.Not(s) for k, s in enumerate(self.switches)])
        found = self.solver.model() if answer == z3.sat else None
        self.solver.pop()
        return answer, found

    def violated(self, chosen: frozenset[int], found: z3.ModelRef) -> frozenset[int]:
        """The premises left out of ``chosen`` that the model ``found`` makes false."""
        return frozenset(k for k, p in enumerate(self.premises)
                         if k not in chosen and not z3.is_true(found.eval(p.formula, model_completion=True)))

    def refutes(self, reads: frozenset[str] | None, negation: z3.BoolRef, budget: Budget) -> bool:
        """Whether a slice of the premises makes ``negation`` unsatisfiable (``False``: not
        told, the whole premise must be asked), starting from the premises relevant to
        ``reads`` and adding those a model violates, for ``SLICE_ROUNDS`` rounds (within
        ``budget``, the obligation's)."""
        chosen = self.relevant(reads)
        for _ in range(SLICE_ROUNDS):
            if len(chosen) == len(self.premises):
                break  # the slice is the whole premise: the caller's question
            answer, found = self.ask(chosen, negation, budget)
            if answer == z3.unsat:
                self.proved += 1
                return True
            more = self.violated(chosen, found) if found is not None else frozenset()
            if not more:
                break  # unknown, or a model of every premise
            chosen |= more
        self.given_up += 1
        return False


__all__ = ["SLICE_ROUNDS", "SLICE_SECONDS", "SLICE_SHARE", "Premise", "Slices"]
