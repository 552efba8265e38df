---- MODULE TwoBounds ----
EXTENDS Naturals
VARIABLE x
Init == x = 0
Next == \E q \in {1, 2}, s \in {m \in 1..2 : m > 1} : x' = q
====
Text after the module's end is not read: ---- MODULE Junk ---- (((
