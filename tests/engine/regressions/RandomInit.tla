---- MODULE RandomInit ----
\* Init draws a random number: a replay of the path draws another.
EXTENDS Naturals, TLC
VARIABLE v
Init == v = RandomElement(1..1000)
Next == v' = v + 1
Inv == v < 1002
====
