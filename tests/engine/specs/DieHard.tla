---------------------------- MODULE DieHard ----------------------------
(* Two jugs of 3 and 5 gallons, a faucet and a sink: can we measure 4 gallons? *)
EXTENDS Naturals

VARIABLES
  \* @type: Int;
  small,
  \* @type: Int;
  big

vars == <<small, big>>

TypeOK == small \in 0..3 /\ big \in 0..5

Init == small = 0 /\ big = 0

FillSmall == small' = 3 /\ big' = big
FillBig == big' = 5 /\ small' = small
EmptySmall == small' = 0 /\ big' = big
EmptyBig == big' = 0 /\ small' = small

Min(m, n) == IF m < n THEN m ELSE n

SmallToBig ==
  /\ big' = Min(big + small, 5)
  /\ small' = small - (big' - big)

BigToSmall ==
  /\ small' = Min(big + small, 3)
  /\ big' = big - (small' - small)

Next ==
  \/ FillSmall
  \/ FillBig
  \/ EmptySmall
  \/ EmptyBig
  \/ SmallToBig
  \/ BigToSmall

Spec == Init /\ [][Next]_vars

NotSolved == big /= 4
=============================================================================
