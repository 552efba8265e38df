---- MODULE ScopedValue ----
\* cfg: NoVal = [ScopedValueInst] nv, Bound = [ScopedValueInst] 1 (model values given to
\* the definitions of one module, TLC's X = [Mod] v). By hand: I!Bound = 1, so I!Twice =
\* Bound * 2 = 2 and x = 0, 1, 2: 3 distinct states, 3 generated (the initial one, then
\* 0 -> 1 and 1 -> 2; 2 has no successor, CHECK_DEADLOCK FALSE); y is the model value nv
\* throughout; the root's own Bound stays 7. Without the values: NoVal is an unbounded
\* CHOOSE (an error) and I!Bound = 5.
EXTENDS Naturals
VARIABLES x, y
I == INSTANCE ScopedValueInst
Bound == 7
Init == x = 0 /\ y = I!NoVal
Next == x < I!Twice /\ x' = x + 1 /\ UNCHANGED y
Inv == Bound = 7 /\ I!Bound = 1 /\ y = I!NoVal
====
