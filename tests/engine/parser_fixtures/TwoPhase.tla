------------------------------- MODULE TwoPhase -------------------------------
(***************************************************************************)
(* Two-phase commit: a transaction manager (TM) collects "prepared"        *)
(* votes from resource managers (RMs) and then broadcasts the decision.    *)
(***************************************************************************)
EXTENDS TLC, FiniteSets

CONSTANT RM   \* the resource managers

VARIABLES
  rmState,     \* rmState[r] is the state of resource manager r
  tmState,     \* "init", "committed" or "aborted"
  tmPrepared,  \* the RMs from which the TM received "Prepared"
  msgs         \* every message ever sent

vars == <<rmState, tmState, tmPrepared, msgs>>

Messages ==
  [type : {"Prepared"}, rm : RM] \cup [type : {"Commit", "Abort"}]

TPTypeOK ==
  /\ rmState \in [RM -> {"working", "prepared", "committed", "aborted"}]
  /\ tmState \in {"init", "committed", "aborted"}
  /\ tmPrepared \subseteq RM
  /\ msgs \subseteq Messages

TPInit ==
  /\ rmState = [r \in RM |-> "working"]
  /\ tmState = "init"
  /\ tmPrepared = {}
  /\ msgs = {}
-----------------------------------------------------------------------------
TMRcvPrepared(r) ==
  /\ tmState = "init"
  /\ [type |-> "Prepared", rm |-> r] \in msgs
  /\ tmPrepared' = tmPrepared \cup {r}
  /\ UNCHANGED <<rmState, tmState, msgs>>

TMCommit ==
  /\ tmState = "init"
  /\ tmPrepared = RM
  /\ tmState' = "committed"
  /\ msgs' = msgs \cup {[type |-> "Commit"]}
  /\ UNCHANGED <<rmState, tmPrepared>>

TMAbort ==
  /\ tmState = "init"
  /\ tmState' = "aborted"
  /\ msgs' = msgs \cup {[type |-> "Abort"]}
  /\ UNCHANGED <<rmState, tmPrepared>>

RMPrepare(r) ==
  /\ rmState[r] = "working"
  /\ rmState' = [rmState EXCEPT ![r] = "prepared"]
  /\ msgs' = msgs \cup {[type |-> "Prepared", rm |-> r]}
  /\ UNCHANGED <<tmState, tmPrepared>>

RMChooseToAbort(r) ==
  /\ rmState[r] = "working"
  /\ rmState' = [rmState EXCEPT ![r] = "aborted"]
  /\ UNCHANGED <<tmState, tmPrepared, msgs>>

RMRcvCommitMsg(r) ==
  /\ [type |-> "Commit"] \in msgs
  /\ rmState' = [rmState EXCEPT ![r] = "committed"]
  /\ UNCHANGED <<tmState, tmPrepared, msgs>>

RMRcvAbortMsg(r) ==
  /\ [type |-> "Abort"] \in msgs
  /\ rmState' = [rmState EXCEPT ![r] = "aborted"]
  /\ UNCHANGED <<tmState, tmPrepared, msgs>>

TPNext ==
  \/ TMCommit \/ TMAbort
  \/ \E r \in RM : TMRcvPrepared(r)
  \/ \E rm \in RM :
       \/ RMPrepare(rm)
       \/ RMChooseToAbort(rm)
       \/ RMRcvCommitMsg(rm)
       \/ RMRcvAbortMsg(rm)
       \/ /\ Cardinality(tmPrepared) = 0
          /\ UNCHANGED vars
-----------------------------------------------------------------------------
TCConsistent ==
  \A r1, r2 \in RM : ~ /\ rmState[r1] = "aborted"
                       /\ rmState[r2] = "committed"

TPSpec == TPInit /\ [][TPNext]_vars /\ WF_vars(TMCommit)

THEOREM TPSpec => [](TPTypeOK /\ TCConsistent)
=============================================================================
