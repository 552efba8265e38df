"""Start each action where an earlier run found its pieces (``kraftcheck prove --split --plan FILE``).

With ``--split``, an action too hard as a whole is attempted whole first: the attempt proves
most conjuncts of ``IndInv'`` and spends the rest of its budget on those it leaves to its
cases (or to conjunct pieces), a case the same on those it leaves to its conjunct pieces.
After a lemma is edited, that search is made again. A plan is what an earlier run's
journal (``journal.py``, of any inputs: only labels are compared) shows of it:

* ``whole``: per action split there, the conjuncts its whole attempts proved (or found
  unchanged);
* ``cases``: per case of such an action (by label), the conjuncts it left unknown (or that
  conjunct pieces of the case were asked).

``planned`` gives an action of the plan as that run's pieces: the whole attempt asks only the
conjuncts proved whole there; each case asks the others, but those it left open there,
which go to conjunct pieces of the case at once (of the action, when it no longer splits).
A conjunct the plan does not know (a new lemma) is asked whole. Every conjunct is thus
asked of the whole action or of each of its cases, so the action is proved only when each
of them is; nothing is taken from the earlier run but this order, and a piece unknown again
is split as usual (``refine.py``).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, replace
from pathlib import Path

from conformance.symbolic.journal import entries
from conformance.symbolic.prove import (
    Obligation,
    ObligationResult,
    ProofInput,
    conjunct_labels,
    forked,
)
from conformance.symbolic.refine import Refiner

_HOLDS = ("proved", "unchanged")


@dataclass(frozen=True)
class Plan:
    whole: dict[str, frozenset[str]]  # action -> conjuncts its whole attempts proved
    cases: dict[tuple[str, str], frozenset[str]]  # (action, case label) -> conjuncts left open
    seen: dict[str, frozenset[str]]  # action -> every conjunct the earlier run asked of it

    def __len__(self) -> int:
        return len(self.whole)


def plan_of(results: Iterable[ObligationResult]) -> Plan:
    """The plan an earlier run's results show, for the actions it decided in pieces."""
    split: set[str] = set()
    seen: dict[str, set[str]] = {}
    whole: dict[str, set[str]] = {}
    proved: dict[tuple[str, str], set[str]] = {}
    left: dict[tuple[str, str], set[str]] = {}
    for r in results:
        ob = r.obligation
        if ob.kind != "step" or ob.action is None:
            continue
        seen.setdefault(ob.action, set()).update(r.conjuncts)
        if ob.case >= 0 or ob.conjunct:
            split.add(ob.action)  # decided in pieces
        if ob.conjunct:  # what its attempt left open
            if ob.case >= 0:
                left.setdefault((ob.action, ob.label), set()).add(ob.conjunct)
            continue
        held = {label for label, v in r.conjuncts.items() if v in _HOLDS}
        if ob.case < 0:
            whole.setdefault(ob.action, set()).update(held)
            continue
        key = (ob.action, ob.label)
        proved.setdefault(key, set()).update(held)
        left.setdefault(key, set()).update(label for label, v in r.conjuncts.items() if v == "unknown")
    return Plan({a: frozenset(whole.get(a, ())) for a in sorted(split)},
                {key: frozenset(left[key] - proved[key]) for key in left if key[0] in split},
                {a: frozenset(seen[a]) for a in sorted(split)})


def planned(obs: list[Obligation], plan: Plan, labels: list[str],
            cases_of: Callable[[int], list[Obligation]]) -> list[Obligation]:
    """``obs`` with each whole step obligation of an action of ``plan`` replaced by its
    planned pieces (``labels``: the conjuncts of ``IndInv'`` this run asks, in order;
    ``cases_of``: an action's cases, by its index in ``Next``)."""
    out: list[Obligation] = []
    for ob in obs:
        if ob.kind != "step" or ob.case >= 0 or ob.conjunct or ob.action not in plan.whole:
            out.append(ob)
            continue
        asked = [label for label in labels if not ob.goals or label in ob.goals]
        whole = [label for label in asked  # and a conjunct added since: the plan knows nothing of it
                 if label in plan.whole[ob.action] or label not in plan.seen[ob.action]]
        rest = [label for label in asked if label not in whole]
        if not rest:
            out.append(ob)
            continue
        if whole:
            out.append(replace(ob, goals=tuple(whole)))
        cases = cases_of(ob.index)
        if not cases:
            out.extend(replace(ob, conjunct=label) for label in rest)
            continue
        for case in cases:
            open_ = plan.cases.get((ob.action, case.label), frozenset())
            goals = tuple(label for label in rest if label not in open_)
            if goals:
                out.append(replace(case, goals=goals))
            out.extend(replace(case, conjunct=label) for label in rest if label in open_)
    return out


def start_from(journal: Path, inp: ProofInput,
               refiner: Refiner) -> tuple[Plan, Callable[[list[Obligation]], list[Obligation]]]:
    """The plan of ``journal`` and ``prove``'s ``start`` that orders the obligations of
    ``inp`` by it (``refiner``: the proof's, for the cases of an action)."""
    plan = plan_of(r for _, r in entries(journal))
    return plan, lambda obs: planned(obs, plan, forked(conjunct_labels, inp), refiner.cases_of)


__all__ = ["Plan", "plan_of", "planned", "start_from"]
