---- MODULE PrimedSubst ----
\* y <- x + 10 makes L!Grow the action (x + 10)' = (x + 10) + 1, that is x' = x + 1, and
\* L!Keep the action x' = x. R replaces y by a record's field; G' is (x + 10)' too.
EXTENDS Naturals
VARIABLES x, z, r
L == INSTANCE PrimedSubstLib WITH y <- x + 10
R == INSTANCE PrimedSubstLib WITH y <- r.a
Init == x = 0 /\ z = 0 /\ r = [a |-> 0]
G == x + 10
Next == \/ /\ x < 3 /\ x' = x + 1 /\ L!Grow /\ G' = G + 1
           /\ UNCHANGED <<z, r>>
        \/ /\ z < 1 /\ z' = z + 1
           /\ UNCHANGED <<x, r>> /\ L!Keep
        \/ /\ r.a < 1 /\ r' = [r EXCEPT !.a = 1] /\ R!Grow
           /\ UNCHANGED <<x, z>> /\ L!Keep
Spec == Init /\ [][Next]_<<x, z, r>>
GrowsWithX == [][x' = x + 1 => L!Grow]_<<x, z, r>>
====
