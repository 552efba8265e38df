---- MODULE AssumeOnly ----
\* No behaviour spec: only the assumptions are evaluated. By hand: 2 + 2 = 4 holds,
\* Cardinality({1, 2, 2}) = 2 holds; with N = 3 from the cfg, N > 2 holds.
EXTENDS Naturals, FiniteSets
CONSTANT N
ASSUME 2 + 2 = 4
ASSUME Cardinality({1, 2, 2}) = 2
ASSUME N > 2
====
