---- MODULE OpChainMid ----
EXTENDS Naturals
CONSTANT Pick(_)
VARIABLES v, w
INSTANCE OpChainLeaf
Twice(F(_), x) == F(F(x))
Init == v = 0 /\ w = Step(1)
Next == v < 3 /\ v' = v + 1 /\ w' = Twice(Pick, v')
Inv == v = 3 => w = 2
====
