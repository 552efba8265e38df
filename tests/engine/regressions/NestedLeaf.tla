---- MODULE NestedLeaf ----
EXTENDS Naturals
CONSTANT k
VARIABLE v
Bump == v' = v + k
Small == v < 3 * k
====
