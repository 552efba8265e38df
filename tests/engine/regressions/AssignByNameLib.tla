---- MODULE AssignByNameLib ----
\* An operator constant H that the instantiating module replaces by an action operator.
EXTENDS Naturals
CONSTANT H(_, _)
VARIABLES v, w
Next == v < 3 /\ H(v, v') /\ w' = v'
====
