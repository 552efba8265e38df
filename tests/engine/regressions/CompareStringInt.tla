---- MODULE CompareStringInt ----
\* An invariant comparing a string with an integer: TLC stops with "Attempted to check
\* equality of string "idle" with non-string: 0" (StringValue.equals); the engine must
\* report the same evaluation error, located, not evaluate the comparison as FALSE.
EXTENDS Integers
VARIABLES phase
Init == phase = "idle"
Next == phase' = IF phase = "idle" THEN "busy" ELSE "idle"
NotZero == phase # 0
====
