---- MODULE MemoAlias ----
EXTENDS TLC
VARIABLE x
Init == x = [a |-> 0] \/ x = [a |-> FALSE]
Next == UNCHANGED x
Inv == ToString(x.a) # "FALSE"
====
