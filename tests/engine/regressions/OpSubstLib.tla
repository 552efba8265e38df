---- MODULE OpSubstLib ----
\* An operator constant H, which OpSubst's instances replace by an operator of their own.
EXTENDS Naturals
CONSTANT H(_, _)
VARIABLE v
Init == v = H(1, 2)
Next == v < 20 /\ v' = H(v, 1)
====
