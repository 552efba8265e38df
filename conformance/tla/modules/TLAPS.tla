-------------------------------- MODULE TLAPS --------------------------------
(* The proof-backend pragmas of the TLA+ proof system. Proofs are not checked by the
   model checker (theorems and their proofs are skipped), so these names only need to
   exist; their values carry no meaning here. *)
SMT == TRUE
SMTT(X) == TRUE
CVC3 == TRUE
CVC3T(X) == TRUE
Yices == TRUE
YicesT(X) == TRUE
veriT == TRUE
veriTT(X) == TRUE
Z3 == TRUE
Z3T(X) == TRUE
Spass == TRUE
SpassT(X) == TRUE
Zenon == TRUE
ZenonT(X) == TRUE
Isa == TRUE
IsaT(X) == TRUE
IsaM(X) == TRUE
IsaMT(X, Y) == TRUE
Auto == TRUE
Force == TRUE
Blast == TRUE
SimpleArithmetic == TRUE
SlowAuto == TRUE
SlowBlast == TRUE
SlowForce == TRUE
AllProvers == TRUE
AllProversT(X) == TRUE
LS4 == TRUE
PTL == TRUE
PropositionalTemporalLogic == TRUE
ExpandENABLED == TRUE
ExpandCdot == TRUE
AutoUSE == TRUE
Lambdify == TRUE
ENABLEDaxioms == TRUE
ENABLEDrewrites == TRUE
ENABLEDrules == TRUE
LevelComparison == TRUE
=============================================================================
