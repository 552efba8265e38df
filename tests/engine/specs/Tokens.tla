------------------------------ MODULE Tokens ------------------------------
(* Processes pass tokens around; each process holds a count of tokens and a
   step counter that the VIEW abstracts away. The processes are symmetric. *)
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
  steps
vars == <<tokens, steps>>
Init ==
  /\ tokens \in {f \in [Procs -> 0..Total] : Sum(f) = Total}
  /\ steps = 0
Sum(f) == LET S[D \in SUBSET Procs] ==
               IF D = {} THEN 0 ELSE LET p == CHOOSE q \in D : TRUE IN f[p] + S[D \ {p}]
          IN S[Procs]
Pass(p, q) ==
  /\ p /= q
  /\ tokens[p] > 0
  /\ tokens' = [tokens EXCEPT ![p] = @ - 1, ![q] = @ + 1]
  /\ steps' = (steps + 1) % 3
Next == \E p, q \in Procs : Pass(p, q)
Conserved == Sum(tokens) = Total
Perms == Permutations(Procs)
View == tokens
=============================================================================
