---- MODULE NestedMid ----
EXTENDS Naturals
CONSTANT j
VARIABLE v
P(x) == INSTANCE NestedLeaf WITH k <- x + j
Step == P(1)!Bump
====
