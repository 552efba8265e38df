---- MODULE HigherOrderAction ----
\* An action passed as an operator argument: TLC substitutes the argument, so v' is x'.
EXTENDS Naturals
VARIABLE x
Apply(Op(_), v) == Op(v)
SetNext(v) == v' = v + 1
Small(v) == v < 3
Init == x = 0
Next == x < 2 /\ Apply(SetNext, x)
NextLambda == x < 2 /\ Apply(LAMBDA v : v' = v + 1, x)
Plain == x < 2 /\ x' = x + 1
Inv == Apply(Small, x)
====
