---- MODULE PrimeParam ----
EXTENDS Naturals
VARIABLES x, y
Set(v, n) == v' = n
Init == x = 0 /\ y = 0
Next == x < 2 /\ Set(x, x + 1) /\ Set(y, y + 2)
Inv == x < 2
====
