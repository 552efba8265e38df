----------------------------- MODULE Peterson -----------------------------
(* Peterson's mutual exclusion for two processes 0 and 1, one atomic step per label. *)
EXTENDS Naturals

VARIABLES
  \* @type: Int -> Bool;
  flag,
  \* @type: Int;
  turn,
  \* @type: Int -> Str;
  pc

vars == <<flag, turn, pc>>
Procs == {0, 1}
Other(p) == 1 - p

Init ==
  /\ flag = [p \in Procs |-> FALSE]
  /\ turn = 0
  /\ pc = [p \in Procs |-> "idle"]

SetFlag(p) ==
  /\ pc[p] = "idle"
  /\ flag' = [flag EXCEPT ![p] = TRUE]
  /\ pc' = [pc EXCEPT ![p] = "turn"]
  /\ UNCHANGED turn

SetTurn(p) ==
  /\ pc[p] = "turn"
  /\ turn' = Other(p)
  /\ pc' = [pc EXCEPT ![p] = "wait"]
  /\ UNCHANGED flag

Enter(p) ==
  /\ pc[p] = "wait"
  /\ (flag[Other(p)] = FALSE \/ turn = p)
  /\ pc' = [pc EXCEPT ![p] = "cs"]
  /\ UNCHANGED <<flag, turn>>

Leave(p) ==
  /\ pc[p] = "cs"
  /\ flag' = [flag EXCEPT ![p] = FALSE]
  /\ pc' = [pc EXCEPT ![p] = "idle"]
  /\ UNCHANGED turn

Next == \E p \in Procs : SetFlag(p) \/ SetTurn(p) \/ Enter(p) \/ Leave(p)

Spec == Init /\ [][Next]_vars /\ \A p \in Procs : WF_vars(Next)

MutualExclusion == ~(pc[0] = "cs" /\ pc[1] = "cs")
=============================================================================
