---- MODULE AliasPost ----
\* By hand: x counts 0, 1, 2, 3; Inv (x < 3) fails in the 4th state. The ALIAS record
\* [sum |-> x + x', twice |-> 2 * x] prints on each step s -> t: 0+1, 1+2, 2+3 and, on the
\* last state paired with itself, 3+3. Post (checked only when no error is found, e.g.
\* with Inv off) holds: 4 distinct states, 4 generated (x = 3 has no successor).
EXTENDS Naturals, TLC
VARIABLE x
Init == x = 0
Next == x < 3 /\ x' = x + 1
Inv == x < 3
Alias == [sum |-> x + x', twice |-> 2 * x]
Post == TLCGet("stats").distinct = 4 /\ TLCGet("generated") = 4
BadPost == TLCGet("distinct") = 5
====
