----------------------------- MODULE Monotone -----------------------------
(* A counter that may go up by 1 or 2, and once at 3 may drop back by 2:
   the action property "the counter never decreases" fails. *)
EXTENDS Naturals
VARIABLE
  \* @type: Int;
  n
Init == n = 0
Up(k) == n + k <= 4 /\ n' = n + k
Drop == n = 3 /\ n' = n - 2
Next == (\E k \in {1, 2} : Up(k)) \/ Drop \/ (n = 4 /\ UNCHANGED n)
Spec == Init /\ [][Next]_n
NeverDecreases == [][n' >= n]_n
Bounded == [](n <= 4)
=============================================================================
