---------------------------- MODULE KRaftLiveness ----------------------------
(***************************************************************************)
(* Liveness of KRaft (KIP-595) on a finite model: a leader is eventually   *)
(* elected and stays, and an entry a leader appends is eventually committed *)
(* unless that leader fails.  The protocol's actions are KRaft.tla's; this  *)
(* module only restricts which of them may happen (faults that stop,       *)
(* election timers that eventually stop racing) and adds fairness.         *)
(***************************************************************************)
EXTENDS MC_KRaft

\* The bounds of the model as a guard of every step, not as a CONSTRAINT: a step
\* beyond them is disabled (so fairness does not demand it) instead of leading to a
\* state that is cut off.
InBounds == StateBounds'

\* @type: (Int, Int) => $entry;
Data(e, v) == Entry(e, "data", v)

\* Messages a recovery from a fault needs at least (a new election, with room to spare).
RecoveryMessages == 6

\* Restart is the fault: at most MaxRestarts of them (faults stop), and only while the
\* bounded model leaves room (an epoch, messages) for the election that recovers from it.
Fault(i) ==
    /\ \A j \in Voters : currentEpoch[j] < MaxEpoch
    /\ Cardinality(messages) + RecoveryMessages <= MaxMessages
    /\ Restart(i)

\* The voters that refused voter i's request in its current epoch.
Refusers(i) ==
    {m.source : m \in {m \in messages : /\ m.type = "VoteResponse" /\ m.dest = i
                                        /\ m.epoch = currentEpoch[i] /\ ~m.voteGranted}}

\* Voter i's election can still be won: it is a candidate and the voters that did not
\* refuse it still make a majority.
Campaigning(i) ==
    /\ role[i] = "Candidate"
    /\ IsMajority(Voters \ Refusers(i))

\* An election timer fires only when no leader of the voter's epoch or a later one is
\* alive (as PatientVoters), no voter (itself included) still campaigns in that epoch
\* or a later one, and the voter's log is as up-to-date as every voter's: randomised
\* election timeouts eventually let a voter that can win time out alone, and a
\* candidate waits for the answers to its requests.
Timeout(i) ==
    /\ ~\E l \in Voters : role[l] = "Leader" /\ currentEpoch[l] >= currentEpoch[i]
    /\ ~\E j \in Voters : Campaigning(j) /\ currentEpoch[j] >= currentEpoch[i]
    /\ \A j \in Voters : UpToDate(LastEpoch(log[i]), Len(log[i]), log[j])
    /\ BecomeCandidate(i)

\* The same without the separation: timers may keep racing (split votes).
RacingTimeout(i) ==
    /\ ~\E l \in Voters : role[l] = "Leader" /\ currentEpoch[l] >= currentEpoch[i]
    /\ BecomeCandidate(i)

\* The network of the liveness models loses outdated messages (a behaviour of the lossy
\* network): those of an epoch older than their receiver's (otherwise duplicates of old
\* VoteRequests, refused in the current epoch, make the candidates of a two-voter
\* cluster step down forever) and Fetch requests below the offset the leader already
\* knows of their sender (otherwise duplicates of old fetches cycle forever).  The
\* other messages are delivered in any order, and again.
Fresh(m) ==
    /\ m.epoch >= currentEpoch[m.dest]
    /\ (m.type = "FetchRequest" /\ role[m.dest] = "Leader") =>
          m.fetchOffset >= replicaEndOffset[m.dest][m.source]

\* A client sends each record once per leader epoch.
NewRecord(i, v) == \A k \in DOMAIN log[i] : log[i][k] /= Data(currentEpoch[i], v)

\* The steps of the liveness models, each within the bounds (named, so that a
\* counterexample names its steps); no resignation, no foreign requests.
TimeoutStep(i) == Timeout(i) /\ InBounds
RacingTimeoutStep(i) == RacingTimeout(i) /\ InBounds
FetchStep(i, j) == SendFetchRequest(i, j) /\ InBounds
BeginEpochStep(i, j) == SendBeginQuorumEpoch(i, j) /\ InBounds
AppendStep(i, v) == NewRecord(i, v) /\ ClientAppend(i, v) /\ InBounds
AdvanceStep(i) == AdvanceHighWatermark(i) /\ InBounds
FaultStep(i) == Fault(i) /\ InBounds
DeliverStep(m) == Fresh(m) /\ Receive(m) /\ InBounds

Others ==
    \/ \E i, j \in Replicas : FetchStep(i, j)
    \/ \E i, j \in Voters : BeginEpochStep(i, j)
    \/ \E i \in Voters, v \in Values : AppendStep(i, v)
    \/ \E i \in Voters : AdvanceStep(i)
    \/ \E i \in Replicas : FaultStep(i)
    \/ \E m \in messages : DeliverStep(m)

LiveNext == (\E i \in Voters : TimeoutStep(i)) \/ Others
RacingNext == (\E i \in Voters : RacingTimeoutStep(i)) \/ Others

\* Weak fairness of the whole step relation: the system does not stop while a step
\* (a delivery, a send, a timer, a fault) is possible.
LiveSpec == Init /\ [][LiveNext]_vars /\ WF_vars(LiveNext)
RacingSpec == Init /\ [][RacingNext]_vars /\ WF_vars(RacingNext)
\* No fairness at all: the cluster may stop doing anything.
UnfairSpec == Init /\ [][LiveNext]_vars

(***************************************************************************)
(* Properties                                                               *)
(***************************************************************************)

HasLeader == \E i \in Voters : role[i] = "Leader"

\* A leader is eventually elected.
EventuallyLeader == <>HasLeader

\* Once faults stop, some leader stays.
EventuallyStableLeader == <>[]HasLeader

\* Leader l of epoch e holds the client record v it appended.
Appended(l, e, v) ==
    /\ role[l] = "Leader"
    /\ currentEpoch[l] = e
    /\ \E k \in DOMAIN log[l] : log[l][k] = Data(e, v)

IsCommitted(e, v) == \E c \in committed : c[2] = Data(e, v)

\* An appended entry is eventually committed, unless its leader stops leading.
AppendedEntryCommits ==
    \A l \in Voters, e \in 1..MaxEpoch, v \in Values :
        Appended(l, e, v) ~> (IsCommitted(e, v) \/ role[l] /= "Leader")

=============================================================================
