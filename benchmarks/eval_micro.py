"""Micro-benchmark of the evaluator: successor states computed per second.

A small message-passing spec (replicas exchanging requests through a set of records,
with EXCEPT updates, quantified guards and UNCHANGED) is explored breadth-first once
to collect its reachable states; each run then recomputes ``Model.successors`` for all
of them. Prints the median of 5 runs of successor states per second (per second of
this process's CPU time, which a machine shared with other jobs does not distort, and
per second of wall-clock time) and of states expanded per CPU second.

    python benchmarks/eval_micro.py [--runs 5]
"""

from __future__ import annotations

import argparse
import statistics
import time

from conformance.tla.loader import ModuleLoader
from conformance.tla.model import Model, State
from conformance.tla.parser import parse_module_text

SPEC = r"""
---- MODULE Micro ----
EXTENDS Naturals, FiniteSets
CONSTANTS Replicas, MaxEpoch
VARIABLES epoch, role, votes, msgs
vars == <<epoch, role, votes, msgs>>
Quorum == Cardinality(Replicas) \div 2 + 1

Init == /\ epoch = [r \in Replicas |-> 0]
        /\ role = [r \in Replicas |-> "Follower"]
        /\ votes = [r \in Replicas |-> {}]
        /\ msgs = {}

Timeout(r) == /\ role[r] /= "Leader"
              /\ epoch[r] < MaxEpoch
              /\ epoch' = [epoch EXCEPT ![r] = @ + 1]
              /\ role' = [role EXCEPT ![r] = "Candidate"]
              /\ votes' = [votes EXCEPT ![r] = {r}]
              /\ msgs' = msgs \cup {[type |-> "Vote", src |-> r, dst |-> d, epoch |-> epoch[r] + 1]
                                     : d \in Replicas \ {r}}

Grant(m) == /\ m.type = "Vote"
            /\ m.epoch > epoch[m.dst]
            /\ epoch' = [epoch EXCEPT ![m.dst] = m.epoch]
            /\ role' = [role EXCEPT ![m.dst] = "Follower"]
            /\ msgs' = (msgs \ {m}) \cup {[type |-> "Granted", src |-> m.dst, dst |-> m.src,
                                            epoch |-> m.epoch]}
            /\ UNCHANGED votes

Count(m) == /\ m.type = "Granted"
            /\ role[m.dst] = "Candidate"
            /\ m.epoch = epoch[m.dst]
            /\ votes' = [votes EXCEPT ![m.dst] = @ \cup {m.src}]
            /\ role' = IF Cardinality(votes'[m.dst]) >= Quorum
                       THEN [role EXCEPT ![m.dst] = "Leader"] ELSE role
            /\ msgs' = msgs \ {m}
            /\ UNCHANGED epoch

Drop(m) == /\ m.epoch < epoch[m.dst]
           /\ msgs' = msgs \ {m}
           /\ UNCHANGED <<epoch, role, votes>>

Next == \/ \E r \in Replicas : Timeout(r)
        \/ \E m \in msgs : Grant(m) \/ Count(m) \/ Drop(m)
====
"""


def build() -> Model:
    module = parse_module_text(SPEC, "Micro.tla")
    return Model(module, ModuleLoader([]), {"Replicas": frozenset({1, 2, 3}), "MaxEpoch": 2})


def reachable(model: Model, limit: int) -> list[State]:
    seen: dict[State, None] = {}
    frontier = list(model.init_states())
    for s in frontier:
        seen[s] = None
    while frontier and len(seen) < limit:
        nxt = []
        for s in frontier:
            for _, t in model.successors(s):
                if t not in seen:
                    seen[t] = None
                    nxt.append(t)
        frontier = nxt
    return list(seen)[:limit]


def run_once(model: Model, states: list[State]) -> tuple[float, float, int]:
    """(CPU seconds, wall seconds, successors) of one pass over ``states``."""
    cpu, wall = time.process_time(), time.perf_counter()
    n = 0
    for s in states:
        for _ in model.successors(s):
            n += 1
    return time.process_time() - cpu, time.perf_counter() - wall, n


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--states", type=int, default=5000, help="states per run")
    args = parser.parse_args()
    model = build()
    states = reachable(model, args.states)
    run_once(model, states[:100])  # compile everything before timing
    rates, wall_rates, expand = [], [], []
    total = 0
    for _ in range(args.runs):
        cpu, wall, total = run_once(model, states)
        rates.append(total / cpu)
        wall_rates.append(total / wall)
        expand.append(len(states) / cpu)
    med = statistics.median
    print(f"states expanded per run: {len(states)}, successors per run: {total}")
    print(f"successors/CPU second (median of {args.runs}): {med(rates):,.0f}")
    print(f"successors/wall second (median of {args.runs}): {med(wall_rates):,.0f}")
    print(f"states expanded/CPU second (median of {args.runs}): {med(expand):,.0f}")


if __name__ == "__main__":
    main()
