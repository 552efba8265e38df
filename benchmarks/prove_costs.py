"""Where a proof's z3 units went, from its journal (``kraftcheck prove --journal FILE``).

Every obligation and piece a run decided (proved or unknown) is in its journal with the
units each conjunct of the invariant's primed form spent in it (its frame question, its
first and second round). This prints, for the proof as a whole and for each action, the
conjuncts that cost most, and how much went to attempts that were decided again in pieces:
what to look at when the proof is too slow, or which lemma a strengthening made costly.

    python benchmarks/prove_costs.py kraft.journal
    python benchmarks/prove_costs.py kraft.journal --top 10 --action HandleFetchRequest

A journal that holds several runs with other inputs mixes their figures: give each proof
a journal of its own.
"""

from __future__ import annotations

import argparse
import sys
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from conformance.symbolic.journal import entries  # noqa: E402
from conformance.symbolic.prove import ObligationResult  # noqa: E402


def costs(results: list[ObligationResult]) -> tuple[Counter[str], dict[str, Counter[str]], Counter[str], Counter[str]]:
    """Units per conjunct (over every step result), per action and conjunct, per action in
    all, and per action in attempts decided again (an unknown result but a conjunct piece:
    its pieces follow)."""
    overall: Counter[str] = Counter()
    per_action: dict[str, Counter[str]] = {}
    total: Counter[str] = Counter()
    redone: Counter[str] = Counter()
    for r in results:
        name = r.obligation.action or r.obligation.kind
        total[name] += r.rlimit_used
        if r.verdict == "unknown" and not r.obligation.conjunct:  # a conjunct piece is not split again
            redone[name] += r.rlimit_used
        for label, units in r.conjunct_units.items():
            overall[label] += units
            per_action.setdefault(name, Counter())[label] += units
    return overall, per_action, total, redone


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("journal", type=Path)
    p.add_argument("--top", type=int, default=5, help="conjuncts listed (overall and per action)")
    p.add_argument("--action", nargs="*", help="only these actions")
    args = p.parse_args()
    if not args.journal.is_file():
        sys.exit(f"prove_costs: error: {args.journal}: no such journal")
    results = [r for _, r in entries(args.journal)]
    if args.action:
        results = [r for r in results if r.obligation.action in args.action]
    overall, per_action, total, redone = costs(results)
    units = sum(total.values())
    print(f"{args.journal}: {len(results)} obligations and pieces, {units / 1e6:,.0f} M units, "
          f"{sum(r.cpu_seconds for r in results):,.0f} CPU s; attempts decided again: "
          f"{sum(redone.values()) / 1e6:,.0f} M units")
    print("costliest conjuncts over the proof (M units, share of all):")
    for label, n in overall.most_common(args.top):
        print(f"  {label:<45} {n / 1e6:9,.0f} {n / max(units, 1):7.1%}")
    print("per action (M units, of which decided again; costliest conjuncts):")
    for name, n in total.most_common():
        top = ", ".join(f"{label} {k / 1e6:,.0f}" for label, k in per_action.get(name, Counter()).most_common(args.top)
                        if k)
        print(f"  {name:<40} {n / 1e6:9,.0f} {redone[name] / 1e6:9,.0f}  {top}")


if __name__ == "__main__":
    main()
