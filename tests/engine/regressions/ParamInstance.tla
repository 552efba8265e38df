---- MODULE ParamInstance ----
EXTENDS Naturals
VARIABLE n
C(k) == INSTANCE InstCounter WITH Limit <- k, c <- n
Init == n = 0
Next == C(3)!Inc
Inv == C(2)!Ok
====
