------------------------------- MODULE MC_KRaft -------------------------------
(***************************************************************************)
(* Model-checking harness for KRaft: the bounds of a finite model, as state *)
(* constraints (KRaft's actions themselves are unbounded, because the trace  *)
(* validator evaluates them on unbounded traces), and constant              *)
(* initialisations for Apalache's --cinit.                                  *)
(***************************************************************************)
EXTENDS KRaftIndInv

\* @type: Int;
CONSTANT MaxEpoch
\* @type: Int;
CONSTANT MaxLogLen
\* @type: Int;
CONSTANT MaxMessages
\* @type: Int;
CONSTANT MaxRestarts

ASSUME MaxEpoch \in Nat /\ MaxLogLen \in Nat /\ MaxMessages \in Nat /\ MaxRestarts \in Nat

\* The bounds of the finite model (a CONSTRAINT: states beyond them are not explored).
StateBounds ==
    /\ \A i \in Replicas : currentEpoch[i] <= MaxEpoch /\ Len(log[i]) <= MaxLogLen
    /\ Cardinality(messages) <= MaxMessages
    /\ restarts <= MaxRestarts

\* Optional narrowing for focused configs: no graceful resignation.
NoResignation == \A i \in Replicas : role[i] /= "Resigned"

\* No VIEW drops the history variables: states with equal protocol variables but
\* different histories may lead to different verdicts, so merging them is unsound.

(***************************************************************************)
(* Constant initialisations for Apalache (--cinit).  Each matches one .cfg. *)
(***************************************************************************)

KIPToggles ==
    /\ CommitRequiresCurrentEpoch = TRUE
    /\ VoteRequiresUpToDateLog = TRUE
    /\ DurableVote = TRUE
    /\ TruncateOnDivergence = TRUE
    /\ RejectConflictingLeader = TRUE

\* MC_KRaft_small.cfg
ConstInitSmall ==
    /\ Voters = {1, 2, 3}
    /\ Observers = {}
    /\ Values = {1}
    /\ ClusterId = "kraft"
    /\ ForeignClusterId = "other"
    /\ ForeignRequests = {}
    /\ KIPToggles
    /\ MaxEpoch = 2
    /\ MaxLogLen = 2
    /\ MaxMessages = 8
    /\ MaxRestarts = 1

\* MC_KRaft_sim.cfg
ConstInitSim ==
    /\ Voters = {1, 2, 3}
    /\ Observers = {4}
    /\ Values = {1, 2}
    /\ ClusterId = "kraft"
    /\ ForeignClusterId = "other"
    /\ ForeignRequests = {"VoteRequest", "BeginQuorumEpochRequest", "FetchRequest"}
    /\ KIPToggles
    /\ MaxEpoch = 5
    /\ MaxLogLen = 5
    /\ MaxMessages = 40
    /\ MaxRestarts = 3

=============================================================================
