---- MODULE NestedParamInstance ----
\* A parameterised instance (P) inside instances, parameterised (M) or not (MI).
EXTENDS Naturals
VARIABLE v
M(j) == INSTANCE NestedMid
MI == INSTANCE NestedMid WITH j <- 0
Init == v = 0
Next == \/ v < 6 /\ \E j \in {0, 2} : \E n \in {1, 2} : M(j)!P(n)!Bump
        \/ v = 9 /\ MI!Step
Inv == M(2)!P(2)!Small
Tight == M(1)!P(2)!Small
====
