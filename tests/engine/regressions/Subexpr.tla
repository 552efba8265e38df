---- MODULE Subexpr ----
\* Subexpression references. By hand: Guard!1 is x < 3, Guard!2 is y = x, Step!lbl is
\* x' = x + 1, Pick!3 is the ELSE branch 10, Guard!: is Guard itself, Sum!1 is x (operand
\* 1 of x + y). Init: x = 0, y = 0. Next keeps x = y and counts both up while x < 3:
\* states (0,0), (1,1), (2,2), (3,3) - 4 distinct states, then deadlock is off.
EXTENDS Naturals
VARIABLES x, y
Guard == /\ x < 3
         /\ y = x
Step == /\ Guard!:
        /\ lbl:: x' = x + 1
        /\ y' = y + 1
Pick == IF x > 100 THEN 20 ELSE 10
Sum == x + y
One == /\ x >= 0
Init == x = 0 /\ y = 0
Next == /\ Guard!1
        /\ Guard!2
        /\ Step!lbl
        /\ y' = x'
Inv == /\ Pick!3 = 10
       /\ Pick!1 = FALSE
       /\ Sum!1 = x
       /\ One!1 = (x >= 0)
       /\ x <= 3
====
