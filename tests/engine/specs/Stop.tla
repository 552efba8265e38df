------------------------------- MODULE Stop -------------------------------
(* Two counters that each count up to their own bound, then nothing is enabled. *)
EXTENDS Naturals
VARIABLES
  \* @type: Int;
  x,
  \* @type: Int;
  y
Init == x = 0 /\ y = 0
IncX == x < 2 /\ x' = x + 1 /\ y' = y
IncY == y < 1 /\ y' = y + 1 /\ x' = x
Next == IncX \/ IncY
=============================================================================
