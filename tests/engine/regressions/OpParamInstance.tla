---- MODULE OpParamInstance ----
\* An instance with an operator parameter F, given a definition or a LAMBDA.
EXTENDS Naturals
VARIABLE v
Double(x) == 2 * x
I(F(_), lim) == INSTANCE OpParamLib
J(G(_), b) == INSTANCE OpParamLib WITH F <- G, lim <- G(b)
Init == v = 1
Next == \/ I(Double, 20)!Step
        \/ \E d \in {1, 3} : I(LAMBDA x : x + d, 10)!Step
Inv == /\ I(Double, 0)!Twice(v) = 4 * v
       /\ \A d \in {2} : I(LAMBDA x : x + d, 0)!Twice(v) = v + 4
       /\ J(Double, 3)!Limit = 6 /\ J(Double, 3)!Twice(v) = 4 * v
Bad == I(Double, 0)!Twice(v) # 8
====
