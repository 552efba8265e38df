---- MODULE OpSubst ----
\* INSTANCE ... WITH H <- Sum (a defined operator) and H <- LAMBDA a, b : a * 2 + b.
EXTENDS Naturals
VARIABLE w
Sum(a, b) == a + b + 1
I == INSTANCE OpSubstLib WITH H <- Sum, v <- w
J == INSTANCE OpSubstLib WITH H <- LAMBDA a, b : a * 2 + b, v <- w
Init == I!Init
Next == I!Next
JNext == J!Next
====
