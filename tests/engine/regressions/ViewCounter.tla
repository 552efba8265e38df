---- MODULE ViewCounter ----
\* x cycles 0 -> 1 -> 2 -> 0 while c counts steps without bound. By hand: under VIEW x
\* the states are told apart by x alone: 3 distinct states, 1 + 3 = 4 generated, depth 3
\* (without the VIEW the search would never end).
EXTENDS Naturals
VARIABLES x, c
Init == x = 0 /\ c = 0
Next == x' = (x + 1) % 3 /\ c' = c + 1
View == x
====
