---- MODULE AssignByName ----
\* Impl(v, v') assigns v' through its parameter new (TLC substitutes the argument), also
\* when called as the operator constant H of an instance (cfg: H <- Impl).
EXTENDS Naturals
CONSTANT H(_, _)
VARIABLES v, w
Impl(old, new) == new = old + 1
N == INSTANCE AssignByNameLib
Init == v = 0 /\ w = 0
Next == v < 3 /\ Impl(v, v') /\ w' = v'
InstNext == N!Next
====
