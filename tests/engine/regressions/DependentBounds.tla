---- MODULE DependentBounds ----
\* Bounds whose domain reads both a name bound outside the quantifier (i) and one bound
\* before it in the same quantifier (a): the domain must see a's value.
EXTENDS Integers, FiniteSets
VARIABLES x, y
Init == x = 0 /\ y = 0
Next == \E i \in {5} : \E a \in {1, 2}, b \in {a} \cup {i} : x' = b /\ y' = a
Seen == \A i \in {5} : {b : a \in {1, 2}, b \in {a, i}} = {1, 2, 5}
Pairs == \A i \in {5} : [p \in {<<a, b>> : a \in {1, 2}, b \in {a, i}} |-> p[2]][<<2, 2>> ] = 2
Some == \A i \in {7} : \E a \in {3}, b \in {a + 1, i} : b = 4
Inv == Seen /\ Pairs /\ Some
====
