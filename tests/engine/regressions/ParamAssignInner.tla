---- MODULE ParamAssignInner ----
EXTENDS Naturals
VARIABLE y
Start == y \in {0, 1}
Step == y < 2 /\ y' = y + 1
====
