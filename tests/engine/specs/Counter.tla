------------------------------ MODULE Counter ------------------------------
(* Two unbounded counters; the CONSTRAINT keeps the explored part finite. *)
EXTENDS Naturals
CONSTANT
  \* @type: Int;
  Limit
VARIABLES
  \* @type: Int;
  a,
  \* @type: Int;
  b
Init == a = 0 /\ b = 0
Next == \/ a' = a + 1 /\ b' = b
        \/ b' = b + a /\ a' = a
        \/ a > 0 /\ a' = a - 1 /\ b' = b + 1
InModel == a + b <= Limit
SmallSteps == b' - b <= 2
=============================================================================
