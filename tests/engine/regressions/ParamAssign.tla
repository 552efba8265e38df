---- MODULE ParamAssign ----
\* A variable assigned through the parameter of a parameterised instance (TLC binds the
\* parameter to the argument expression and reads the assignment through it).
EXTENDS Naturals
VARIABLE x
I(v) == INSTANCE ParamAssignInner WITH y <- v
Init == I(x)!Start
Next == I(x)!Step
====
