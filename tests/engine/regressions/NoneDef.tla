---- MODULE NoneDef ----
EXTENDS Naturals
CONSTANT Vals
None == CHOOSE v : v \notin Vals
VARIABLE x
Init == x = None
Next == \/ x = None /\ x' = 1
        \/ x # None /\ x' = None
Inv == x = None \/ x \in Vals
====
This text after the end is not TLA+ at all: ==== MODULE Broken (((
