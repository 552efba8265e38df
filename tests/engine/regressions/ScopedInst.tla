---- MODULE ScopedInst ----
EXTENDS Naturals
Bound == 5
Twice == Bound * 2
====
