---- MODULE ScopedValueInst ----
EXTENDS Naturals
NoVal == CHOOSE v : v \notin {1, 2}
Bound == 5
Twice == Bound * 2
====
