---- MODULE ByName ----
EXTENDS Naturals
VARIABLES x, y
Set(v, n) == v = n
Keep(v) == UNCHANGED v
Bump(v) == v' = v + 1
Twice(v) == Bump(v)
Init == Set(x, 0) /\ Set(y, 0)
Next == \/ x < 3 /\ Twice(x) /\ Keep(y)
        \/ x = 3 /\ LET q == y IN q' = q + 5 /\ UNCHANGED x
        \/ y = 5 /\ LET Inc(w) == w' = w + 1 IN Inc(x) /\ Keep(y)
Inv == x + y < 9
====
