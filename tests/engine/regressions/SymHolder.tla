---- MODULE SymHolder ----
\* One token held by nobody or by one process of P = {a, b, c}. By hand: without symmetry
\* 4 distinct states (none, a, b, c), 1 + 3 + 3 * 1 = 7 generated; under SYMMETRY Perms the
\* three holders are one class: 2 distinct states, 1 + 3 + 1 = 5 generated, depth 2.
EXTENDS TLC
CONSTANT P
VARIABLE holder
Init == holder = "none"
Next == \/ holder = "none" /\ \E p \in P : holder' = p
        \/ holder \in P /\ holder' = "none"
Perms == Permutations(P)
====
