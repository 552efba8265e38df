---- MODULE UnusedArgs ----
\* Arguments TLC never evaluates: Head(q) fails (q stays empty) but no body reads it.
EXTENDS Naturals, Sequences
VARIABLES x, q
Pick(c, a, b) == IF c THEN a ELSE b
\* junk is passed by name (primed in the body) and never read: x > 5 never holds
Act(n, junk) == x < 2 /\ x' = n /\ UNCHANGED q /\ (x > 5 => junk' = 0)
\* z is passed by value and never read
Bump(z) == x < 2 /\ x' = x + 1 /\ UNCHANGED q
\* Init: q is not assigned yet where Pick's unread argument names it
Init == x = Pick(TRUE, 0, Head(q)) /\ q = <<>> /\ x = Pick(TRUE, x, q)
Next == Act(x + 1, Head(q)) \/ Bump(Head(q))
Inv == x < 2
====
