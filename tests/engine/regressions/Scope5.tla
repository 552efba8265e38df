---- MODULE Scope5 ----
CONSTANT RM
VARIABLE st
Init == st = [rm \in RM |-> "w"]
all == \A x \in RM : st[x] = "p"
Prep == \E rm \in RM : st[rm] = "w" /\ st' = [st EXCEPT ![rm] = "p"]
Dec == \E rm \in RM : st[rm] = "p" /\ all /\ st' = [st EXCEPT ![rm] = "c"]
Next == Prep \/ Dec
Inv == \A r1, r2 \in RM : ~(st[r1] = "c" /\ st[r2] = "w")
====
