------------------------------ MODULE Tokens ------------------------------
(* Processes pass tokens around. Each step records the receiver in last, which
   the VIEW abstracts away; steps counts up to 2. The processes are symmetric. *)
EXTENDS Naturals, FiniteSets, TLC
CONSTANTS
  \* @type: Set(PROC);
  Procs,
  \* @type: Int;
  Total
VARIABLES
  \* @type: PROC -> Int;
  tokens,
  \* @type: Int;
  steps,
  \* @type: PROC;
  last
vars == <<tokens, steps, last>>
Sum(f) == LET S[D \in SUBSET Procs] ==
               IF D = {} THEN 0 ELSE LET p == CHOOSE q \in D : TRUE IN f[p] + S[D \ {p}]
          IN S[Procs]
Init ==
  /\ tokens \in {f \in [Procs -> 0..Total] : Sum(f) = Total}
  /\ steps = 0
  /\ last \in Procs
Pass(p, q) ==
  /\ p /= q
  /\ tokens[p] > 0
  /\ tokens' = [tokens EXCEPT ![p] = @ - 1, ![q] = @ + 1]
  /\ steps' = IF steps < 2 THEN steps + 1 ELSE 2
  /\ last' = q
Next == \E p, q \in Procs : Pass(p, q)
Conserved == Sum(tokens) = Total
Perms == Permutations(Procs)
View == <<tokens, steps>>
=============================================================================
