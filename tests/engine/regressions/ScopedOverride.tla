---- MODULE ScopedOverride ----
\* cfg: Max <- [ScopedLib] Two, Bound <- [ScopedInst] Small. By hand: Lim = Max = 2, so
\* x = 0, 1, 2: 3 distinct states; the root's own Bound stays 7, the instance's is 1 and
\* the instance's Twice (Bound * 2) sees the override: 2. Without the overrides: 4 states
\* and Inv violated (I!Bound = 5).
EXTENDS Naturals, ScopedLib
VARIABLE x
I == INSTANCE ScopedInst
Bound == 7
Small == 1
Two == 2
Init == x = 0
Next == x < Lim /\ x' = x + 1
Inv == Bound = 7 /\ I!Bound = 1 /\ I!Twice = 2
====
