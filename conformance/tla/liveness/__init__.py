"""Liveness checking: temporal properties under fairness, on the explored state graph.

The layers, from the engine outward:

- ``graph``: the behaviour graph (state numbers, initial states, atom bits on states and
  edges, an implicit stuttering self-loop at every state) and its strongly connected
  components;
- ``search``: whether a fair behaviour violates a goal (SCCs pruned for strong fairness, as
  TLC does), and the lasso that shows it;
- ``formula``: a PROPERTY conjunct or the SPECIFICATION's fairness conjuncts, normalised to
  goals and fairness constraints over atoms (state predicates, ENABLED, action steps);
- ``recorder``: evaluates the atoms on the states and transitions the explorer reports,
  builds the graph, and turns a lasso back into counterexample steps;
- ``lasso``: the verdict on one given lasso (random simulation).
"""

from conformance.tla.liveness.recorder import LivenessRecorder, liveness_recorder

__all__ = ["LivenessRecorder", "liveness_recorder"]
