---- MODULE OpParamLib ----
EXTENDS Naturals
CONSTANTS F(_), lim
VARIABLE v
Step == v < lim /\ v' = F(v)
Twice(x) == F(F(x))
Limit == lim
====
