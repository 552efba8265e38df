---- MODULE SharedBound ----
EXTENDS Naturals
VARIABLE leaders
Init == leaders = {}
Next == \E s \in 1..2 : leaders' = leaders \cup {s}
\* at most one leader: i and j share a domain holding a binder of its own
Safety == \A i, j \in {s \in 1..2 : s \in leaders} : i = j
====
