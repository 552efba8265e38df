---- MODULE PrimedSubstLib ----
\* A module whose variable y the instance in PrimedSubst replaces by an expression.
EXTENDS Naturals
VARIABLE y
Grow == y' = y + 1
Keep == UNCHANGED y
====
