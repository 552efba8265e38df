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
\* The clock's bound (0 for the untimed models, whose clock stands still).
\* @type: Int;
CONSTANT MaxTime

ASSUME MaxEpoch \in Nat /\ MaxLogLen \in Nat /\ MaxMessages \in Nat /\ MaxRestarts \in Nat /\ MaxTime \in Nat

\* The bounds of the finite model (a CONSTRAINT: states beyond them are not explored).
StateBounds ==
    /\ \A i \in Replicas : currentEpoch[i] <= MaxEpoch /\ Len(log[i]) <= MaxLogLen
    /\ Cardinality(messages) <= MaxMessages
    /\ restarts <= MaxRestarts
    /\ now <= MaxTime

(***************************************************************************)
(* Timer rules (TimedRules): each property is a KIP-595 timer rule as seen  *)
(* in behaviours; it holds with its rule in TimedRules and its config shows *)
(* a counterexample without it.                                             *)
(***************************************************************************)

\* Replica i stands for election in this step (BecomeCandidate: a larger epoch, its own vote).
\* @type: (Int) => Bool;
Stands(i) == currentEpoch'[i] > currentEpoch[i] /\ votedId'[i] = i /\ role'[i] \in {"Candidate", "Leader"}

\* The preferred-successor schedule of i, with the KIP's backoff by position.
\* @type: (Int) => Bool;
SuccessorScheduleDue(i) == endQuorum[i][1] /= Nil /\ now >= endQuorum[i][1] + SuccessorBackoff(endQuorum[i][2])

\* "If the election timeout is reached ... the voter becomes a candidate": not before.
ElectionTimeoutRespected ==
    [][\A i \in Replicas : (Stands(i) /\ role[i] /= "Follower") =>
          now >= electionDeadline[i] \/ SuccessorScheduleDue(i)]_vars

\* "if it does not receive a successful FetchResponse within quorum.fetch.timeout.ms, it
\* becomes a candidate": a follower stands only after its fetch timeout.
FetchTimeoutRespected ==
    [][\A i \in Replicas : (Stands(i) /\ role[i] = "Follower") =>
          now >= electionDeadline[i] \/ SuccessorScheduleDue(i)]_vars

\* A voter that stands before its timeout does so as a preferred successor, not before
\* the backoff of its position.
SuccessorBackoffRespected ==
    [][\A i \in Replicas : (Stands(i) /\ now < electionDeadline[i]) => SuccessorScheduleDue(i)]_vars

\* A leader whose check-quorum failed sends nothing but its EndQuorumEpoch.
CheckQuorumRespected ==
    [][\A i \in Replicas :
          (role[i] = "Leader" /\ \E m \in messages' \ messages : m.source = i /\ m.type /= "EndQuorumEpochRequest")
             => ChecksPassed(i)]_vars

\* A leader that owes a voter a BeginQuorumEpoch sends nothing else.
BeginQuorumEpochResent ==
    [][\A i \in Replicas :
          (role[i] = "Leader" /\ \E m \in messages' \ messages : m.source = i /\ m.type /= "BeginQuorumEpochRequest")
             => ~BeginQuorumEpochOverdue(i, now - 1)]_vars

\* A voter's election or fetch timer fires by the end of its range: a voter never stands
\* later than that (KIP-595: the election timeout is randomized up to
\* quorum.election.backoff.max.ms; a follower's fetch timeout is exact).
TimeoutUpperBoundRespected ==
    [][\A i \in Replicas : Stands(i) => TimeoutLatest(i) = Nil \/ now <= TimeoutLatest(i)]_vars

\* Witness (expected VIOLATED by a timed walk without PatientVoters): a voter stands
\* while a leader of its epoch or a later one still has its quorum (a disruptive
\* election; KIP-595 has no pre-vote).
NoDisruptiveElection ==
    [][\A i \in Voters : Stands(i) =>
          ~\E l \in Replicas : role[l] = "Leader" /\ currentEpoch[l] >= currentEpoch[i] /\ ~QuorumLost(l)]_vars

\* Optional narrowing for focused configs: no graceful resignation.
NoResignation == \A i \in Replicas : role[i] /= "Resigned"

(***************************************************************************)
(* Coverage witnesses: each is expected to be VIOLATED by a config that     *)
(* lists it, showing that the bounded model reaches the behaviour (so that  *)
(* a clean run of the safety properties is not vacuous).                    *)
(***************************************************************************)

\* Some entry gets committed.
WitnessNoCommit == committed = {}
\* A leader of epoch 2 commits, after a change of leader.
WitnessNoCommitInSecondEpoch == \A c \in committed : c[3] < 2
\* A follower's high watermark advances.
WitnessNoFollowerHighWatermark == \A i \in Replicas : role[i] = "Follower" => highWatermark[i] = 0

\* Voter changes (KIP-853): a change is answered only once its record committed.
\* @type: (Str) => Bool;
NoAnswered(t) == ~\E m \in messages : m.type = t /\ m.errorCode = ""
\* An AddVoter commits.
WitnessNoAddCommitted == NoAnswered("AddVoterResponse")
\* A RemoveVoter commits.
WitnessNoRemoveCommitted == NoAnswered("RemoveVoterResponse")
\* A leader removes itself: the removal commits and the leader resigns.
WitnessNoSelfRemoval ==
    ~\E m \in messages : m.type = "RemoveVoterResponse" /\ m.errorCode = "" /\ m.source = m.voterId
\* A replica that lost its disk rejoins the voters under its new directory id.
WitnessNoDiskLossRejoin ==
    ~\E m \in messages : m.type = "AddVoterResponse" /\ m.errorCode = "" /\ m.voterDirectoryId > 1

(***************************************************************************)
(* Action constraints for simulation (random walks): they drop steps, so    *)
(* they only narrow the behaviours explored, never add any.                 *)
(***************************************************************************)

\* Steps that would leave the bounds are not taken (a walk goes on within them
\* instead of ending at the first state beyond them).
StaysInBounds == StateBounds'

\* No step that changes nothing (e.g. a duplicate delivery that is ignored).
NoStutter == vars' /= vars

\* No step whose only effect is an error answer or a refused vote (most deliveries of
\* old messages in a long walk); the exhaustive models keep them.
Productive ==
    \/ ~UNCHANGED <<serverVars, logVars, volatileVars, historyVars>>
    \/ \A m \in messages' \ messages :
          m.errorCode = "" /\ ~(m.type = "VoteResponse" /\ ~m.voteGranted)

\* Productive, except that an error answer telling its recipient a later epoch or the
\* leader it does not know is kept: that is how an observer finds the leader (for walks
\* where observers join the voters).
ProductiveOrTeaching ==
    \/ Productive
    \/ \A m \in messages' \ messages :
          m.dest \in Replicas /\ (m.epoch > currentEpoch[m.dest] \/ TeachesLeader(m.dest, m))

\* No voter times out while a leader of its epoch or a later one is alive (timers of a
\* mostly healthy cluster); elections still follow resignations and restarts.
PatientVoters ==
    \A i \in Voters :
        (currentEpoch'[i] = currentEpoch[i] + 1 /\ votedId'[i] = i) =>
            ~\E l \in Voters : role[l] = "Leader" /\ currentEpoch[l] >= currentEpoch[i]

\* KIP-642 reassignment to the voter ids `target` as single-member KIP-853 changes:
\* the admin client only asks to add a replica of the target (an observer's
\* promotion) and to remove a replica outside it or a key of a lost disk.
\* @type: (Set(Int)) => Bool;
TowardVoters(target) ==
    \A m \in messages' \ messages :
        /\ m.type = "AddVoterRequest" => m.voterId \in target
        /\ m.type = "RemoveVoterRequest" => (m.voterId \notin target \/ m.voterDirectoryId /= dirId[m.voterId])

\* Optional narrowing for focused configs: the admin client asks only the leader.
AdminAsksLeader ==
    \A m \in messages' \ messages :
        m.type \in {"AddVoterRequest", "RemoveVoterRequest"} => role[m.dest] = "Leader"

\* The admin client (or a reassignment driver) waits: it asks only a leader that would
\* accept a change now (an offset of its epoch committed, no change pending), to add a
\* replica outside its voter set or to remove a key of that set.  Refusals are what the
\* exhaustive models and tests/spec cover; in random walks they would drown the changes.
AdminWaits ==
    \A m \in messages' \ messages :
        m.type \in {"AddVoterRequest", "RemoveVoterRequest"} =>
            /\ role[m.dest] = "Leader"
            /\ CommittedInOwnEpoch(m.dest)
            /\ pendingVoterChange[m.dest] = {}
            /\ ~HasUncommittedVoterChange(m.dest)
            /\ m.type = "AddVoterRequest" => m.voterId \notin VoterIds(m.dest)
            /\ m.type = "RemoveVoterRequest" => <<m.voterId, m.voterDirectoryId>> \in VoterKeys(m.dest)

\* Walks of voter changes: a leader resigns only once it has removed itself (no
\* graceful resignation), and no disk is lost (except where a config wants one).
NoVoluntaryResignation ==
    \A i \in Replicas :
        (role[i] = "Leader" /\ role'[i] = "Resigned") =>
            ~IsVoter(i) /\ pendingVoterChange[i] /= {} /\ ~HasUncommittedVoterChange(i)
NoDiskLoss == dirId' = dirId
\* A leader's view of a replica's fetch offset does not move back (no stale Fetch is
\* delivered again: in long walks those redeliveries crowd out every other step).
InOrderFetches ==
    \A l, j \in Replicas :
        (role[l] = "Leader" /\ role'[l] = "Leader" /\ replicaDirectoryId'[l][j] = replicaDirectoryId[l][j]) =>
            replicaEndOffset'[l][j] >= replicaEndOffset[l][j]

\* Optional narrowing for scenario starts that hold the admin client's requests: it
\* sends no other.
NoNewAdminRequests ==
    \A m \in messages' \ messages : m.type \notin {"AddVoterRequest", "RemoveVoterRequest"}

ReassignTo5 == TowardVoters({1, 2, 3, 4, 5})
\* 5 -> 3 away from the first leader, 1: its removal is a self-removal.
ReassignTo3 == TowardVoters({3, 4, 5})
\* Disk-loss recovery: the only changes are the removal of a lost disk's key and the
\* addition of a replica's new key.
DiskLossRecovery ==
    \A m \in messages' \ messages :
        /\ m.type = "AddVoterRequest" => m.voterDirectoryId > 1
        /\ m.type = "RemoveVoterRequest" => m.voterDirectoryId /= dirId[m.voterId]

\* No VIEW drops the history variables: states with equal protocol variables but
\* different histories may lead to different verdicts, so merging them is unsound.

(***************************************************************************)
(* Scenario initial states for the toggles whose counterexamples are deep.  *)
(* Each is a state reachable from Init by the steps listed above it, with   *)
(* `messages` emptied or cut down to the few it names: a state with fewer   *)
(* messages has fewer behaviours (every step it allows is allowed with the  *)
(* messages kept), so a violation found from it is a violation of Spec.     *)
(* tests/spec replays each prefix.  Unless stated otherwise they assume     *)
(* Voters = {1, 2, 3} and Observers = {}.                                   *)
(***************************************************************************)

\* @type: (Int, Int) => $entry;
LC(e, l) == Entry(e, "leaderChange", l)

NoVolatile ==
    /\ votesGranted = [i \in Replicas |-> {}]
    /\ messages = {}
    /\ restarts = 0
    /\ unflushed = [i \in Replicas |-> NoUnflushed]
    /\ TimersInit
    /\ dirId = [i \in Replicas |-> InitialDirId]
    /\ replicaDirectoryId = [i \in Replicas |-> ZeroOffsets]
    /\ pendingVoterChange = [i \in Replicas |-> {}]

\* Prefix: BecomeCandidate(1); HandleVoteRequest(VoteRequest 1->2, epoch 1);
\* HandleVoteResponse(granted 2->1); SendBeginQuorumEpoch(1, 2);
\* HandleBeginQuorumEpochRequest(1->2); SendFetchRequest(2, 1);
\* HandleFetchRequest(Fetch 2->1 at offset 0); HandleFetchResponse(its response).
\* Replica 1 leads epoch 1, replica 2 holds its leaderChange entry, nothing is
\* committed yet, replica 3 is still in epoch 0.
ScenarioFirstEntryReplicated ==
    /\ currentEpoch = [i \in Replicas |-> IF i = 3 THEN 0 ELSE 1]
    /\ votedId = [i \in Replicas |-> IF i = 3 THEN Nil ELSE 1]
    /\ leaderId = [i \in Replicas |-> IF i = 3 THEN Nil ELSE 1]
    /\ log = [i \in Replicas |-> IF i = 3 THEN <<>> ELSE <<LC(1, 1)>>]
    /\ role = [i \in Replicas |-> CASE i = 1 -> "Leader" [] i = 2 -> "Follower" [] OTHER -> "Unattached"]
    /\ highWatermark = [i \in Replicas |-> 0]
    /\ endorsers = [i \in Replicas |-> IF i = 1 THEN {2} ELSE {}]
    /\ replicaEndOffset = [i \in Replicas |-> ZeroOffsets]
    /\ elections = {<<1, 1>>}
    /\ votes = {<<1, 1, 1>>, <<2, 1, 1>>}
    /\ committed = {}
    /\ NoVolatile

\* ScenarioFirstEntryReplicated, then SendFetchRequest(2, 1); HandleFetchRequest(Fetch
\* 2->1 at offset 1): the leader has committed its leaderChange record (an offset of
\* its own epoch), the follower does not know it yet (every variable but messages).
FirstEntryCommitted ==
    /\ currentEpoch = [i \in Replicas |-> IF i = 3 THEN 0 ELSE 1]
    /\ votedId = [i \in Replicas |-> IF i = 3 THEN Nil ELSE 1]
    /\ leaderId = [i \in Replicas |-> IF i = 3 THEN Nil ELSE 1]
    /\ log = [i \in Replicas |-> IF i = 3 THEN <<>> ELSE <<LC(1, 1)>>]
    /\ role = [i \in Replicas |-> CASE i = 1 -> "Leader" [] i = 2 -> "Follower" [] OTHER -> "Unattached"]
    /\ highWatermark = [i \in Replicas |-> IF i = 1 THEN 1 ELSE 0]
    /\ endorsers = [i \in Replicas |-> IF i = 1 THEN {2} ELSE {}]
    /\ replicaEndOffset = [i \in Replicas |-> IF i = 1 THEN [ZeroOffsets EXCEPT ![2] = 1] ELSE ZeroOffsets]
    /\ elections = {<<1, 1>>}
    /\ votes = {<<1, 1, 1>>, <<2, 1, 1>>}
    /\ committed = {<<0, LC(1, 1), 1>>}
    /\ votesGranted = [i \in Replicas |-> {}]
    /\ restarts = 0
    /\ unflushed = [i \in Replicas |-> NoUnflushed]
    /\ TimersInit
    /\ dirId = [i \in Replicas |-> InitialDirId]
    /\ replicaDirectoryId = [i \in Replicas |->
                               IF i = 1 THEN [ZeroOffsets EXCEPT ![2] = InitialDirId] ELSE ZeroOffsets]
    /\ pendingVoterChange = [i \in Replicas |-> {}]

ScenarioFirstEntryCommitted == FirstEntryCommitted /\ messages = {}

\* A dynamic quorum: ScenarioFirstEntryCommitted, then SendRemoveVoterRequest(1, 2, 1) and
\* SendRemoveVoterRequest(1, 3, 1); the two removal requests are the only messages.
ScenarioTwoRemovalsRequested ==
    /\ FirstEntryCommitted
    /\ messages = {VoterChangeRequest("RemoveVoterRequest", 1, 2, InitialDirId),
                   VoterChangeRequest("RemoveVoterRequest", 1, 3, InitialDirId)}

\* Raft's Figure 8 with three voters.  Prefix: BecomeCandidate(1);
\* HandleVoteRequest(1->3, epoch 1); HandleVoteResponse(3->1); BecomeCandidate(2);
\* BecomeCandidate(2); HandleVoteRequest(2->3, epoch 2); HandleVoteResponse(3->2);
\* Resign(1); BecomeCandidate(1); BecomeCandidate(1); HandleVoteRequest(1->3, epoch 3);
\* HandleVoteResponse(3->1); Resign(2); SendBeginQuorumEpoch(1, 3);
\* HandleBeginQuorumEpochRequest(1->3, epoch 3); SendFetchRequest(3, 1);
\* HandleFetchRequest(3->1 at offset 0, the leader capping the batch at one record);
\* HandleFetchResponse(1->3).
\* Replica 1 leads epoch 3 with [LC(1,1), LC(3,1)], replica 2 (leader of epoch 2,
\* resigned) holds [LC(2,2)] only, replica 3 follows 1 and holds [LC(1,1)].
ScenarioFigureEight ==
    /\ currentEpoch = [i \in Replicas |-> IF i = 2 THEN 2 ELSE 3]
    /\ votedId = [i \in Replicas |-> IF i = 2 THEN 2 ELSE 1]
    /\ leaderId = [i \in Replicas |-> IF i = 2 THEN 2 ELSE 1]
    /\ log = [i \in Replicas |-> CASE i = 1 -> <<LC(1, 1), LC(3, 1)>> [] i = 2 -> <<LC(2, 2)>>
                                     [] OTHER -> <<LC(1, 1)>>]
    /\ role = [i \in Replicas |-> CASE i = 1 -> "Leader" [] i = 2 -> "Resigned" [] OTHER -> "Follower"]
    /\ highWatermark = [i \in Replicas |-> 0]
    /\ endorsers = [i \in Replicas |-> IF i = 1 THEN {3} ELSE {}]
    /\ replicaEndOffset = [i \in Replicas |-> ZeroOffsets]
    /\ elections = {<<1, 1>>, <<2, 2>>, <<3, 1>>}
    /\ votes = {<<1, 1, 1>>, <<3, 1, 1>>, <<2, 1, 2>>, <<2, 2, 2>>, <<3, 2, 2>>,
                <<1, 2, 1>>, <<1, 3, 1>>, <<3, 3, 1>>}
    /\ committed = {}
    /\ NoVolatile

\* Prefix: BecomeCandidate(1); HandleVoteRequest(1->3, epoch 1); HandleVoteResponse(3->1);
\* BecomeCandidate(2); BecomeCandidate(2); HandleVoteRequest(2->3, epoch 2);
\* HandleVoteResponse(3->2); SendBeginQuorumEpoch(2, 3); HandleBeginQuorumEpochRequest(2->3);
\* SendFetchRequest(3, 2); HandleFetchRequest(3->2 at offset 0); HandleFetchResponse(2->3);
\* SendFetchRequest(3, 2); HandleFetchRequest(3->2 at offset 1); HandleFetchResponse(2->3).
\* Replica 2 leads epoch 2 and has committed LC(2,2) with replica 3; replica 1, the
\* leader of epoch 1, still holds its uncommitted LC(1,1).
ScenarioStaleLeaderEntry ==
    /\ currentEpoch = [i \in Replicas |-> IF i = 1 THEN 1 ELSE 2]
    /\ votedId = [i \in Replicas |-> IF i = 1 THEN 1 ELSE 2]
    /\ leaderId = [i \in Replicas |-> IF i = 1 THEN 1 ELSE 2]
    /\ log = [i \in Replicas |-> IF i = 1 THEN <<LC(1, 1)>> ELSE <<LC(2, 2)>>]
    /\ role = [i \in Replicas |-> CASE i = 1 -> "Leader" [] i = 2 -> "Leader" [] OTHER -> "Follower"]
    /\ highWatermark = [i \in Replicas |-> IF i = 1 THEN 0 ELSE 1]
    /\ endorsers = [i \in Replicas |-> IF i = 2 THEN {3} ELSE {}]
    /\ replicaEndOffset = [i \in Replicas |-> IF i = 2 THEN [ZeroOffsets EXCEPT ![3] = 1] ELSE ZeroOffsets]
    /\ elections = {<<1, 1>>, <<2, 2>>}
    /\ votes = {<<1, 1, 1>>, <<3, 1, 1>>, <<2, 1, 2>>, <<2, 2, 2>>, <<3, 2, 2>>}
    /\ committed = {<<0, LC(2, 2), 2>>}
    /\ NoVolatile

\* Four voters (dynamic quorum).  Prefix: BecomeCandidate(1); HandleVoteRequest(1->3)
\* and (1->4); HandleVoteResponse(3->1) and (4->1); SendBeginQuorumEpoch(1, j) and
\* HandleBeginQuorumEpochRequest for j = 3, 4; for j = 3, 4: SendFetchRequest(j, 1),
\* HandleFetchRequest (at offset 0), HandleFetchResponse; SendFetchRequest(3, 1),
\* HandleFetchRequest (at offset 1); SendFetchRequest(4, 1), HandleFetchRequest (at
\* offset 1: the high watermark reaches 1); SendBeginQuorumEpoch(1, 2),
\* HandleBeginQuorumEpochRequest, SendFetchRequest(2, 1), HandleFetchRequest,
\* HandleFetchResponse; SendRemoveVoterRequest(1, 4, 1), HandleRemoveVoterRequest;
\* Resign(1); BecomeCandidate(2); HandleVoteRequest(2->1) (refused: 1's log is longer);
\* HandleVoteRequest(2->3) and (2->4); HandleVoteResponse(3->2) and (4->2);
\* SendBeginQuorumEpoch(2, 4); HandleBeginQuorumEpochRequest(2->4); SendFetchRequest(4, 2);
\* HandleFetchRequest (at offset 1); HandleFetchResponse.
\* Replica 1 holds its uncommitted removal of 4 from epoch 1; replica 2 leads epoch 2
\* and has committed nothing in it (LC(2, 2) is on 2 and 4 only, not a majority of four;
\* the high watermark 1 of 1, 2 and 4 is LC(1, 1)) (every variable but messages).
StaleVoterChange ==
    /\ currentEpoch = [i \in Replicas |-> 2]
    /\ votedId = [i \in Replicas |-> IF i = 1 THEN Nil ELSE 2]
    /\ leaderId = [i \in Replicas |-> IF i \in {2, 4} THEN 2 ELSE Nil]
    /\ log = [i \in Replicas |->
                CASE i = 1 -> <<LC(1, 1), VotersRecord(1, {<<1, 1>>, <<2, 1>>, <<3, 1>>})>>
                  [] i = 3 -> <<LC(1, 1)>>
                  [] OTHER -> <<LC(1, 1), LC(2, 2)>>]
    /\ role = [i \in Replicas |-> CASE i = 1 -> "Unattached" [] i = 2 -> "Leader" [] i = 3 -> "Voted"
                                     [] OTHER -> "Follower"]
    /\ highWatermark = [i \in Replicas |-> IF i = 3 THEN 0 ELSE 1]
    /\ endorsers = [i \in Replicas |-> IF i = 2 THEN {4} ELSE {}]
    /\ replicaEndOffset = [i \in Replicas |-> IF i = 2 THEN [ZeroOffsets EXCEPT ![4] = 1] ELSE ZeroOffsets]
    /\ replicaDirectoryId = [i \in Replicas |-> IF i = 2 THEN [ZeroOffsets EXCEPT ![4] = 1] ELSE ZeroOffsets]
    /\ elections = {<<1, 1>>, <<2, 2>>}
    /\ votes = {<<1, 1, 1>>, <<3, 1, 1>>, <<4, 1, 1>>, <<2, 2, 2>>, <<3, 2, 2>>, <<4, 2, 2>>}
    /\ committed = {<<0, LC(1, 1), 1>>}
    /\ votesGranted = [i \in Replicas |-> {}]
    /\ restarts = 0
    /\ unflushed = [i \in Replicas |-> NoUnflushed]
    /\ TimersInit
    /\ dirId = [i \in Replicas |-> InitialDirId]
    /\ pendingVoterChange = [i \in Replicas |-> {}]

ScenarioStaleVoterChange == StaleVoterChange /\ messages = {}

\* ScenarioStaleVoterChange, then SendRemoveVoterRequest(2, 3, 1): the admin client asks
\* the new leader to remove voter 3; that request is the only message.
ScenarioStaleChangeRequested ==
    StaleVoterChange /\ messages = {VoterChangeRequest("RemoveVoterRequest", 2, 3, InitialDirId)}

\* A dynamic quorum formatted standalone: Voters = {1}, Observers = {2}.  Prefix:
\* BecomeCandidate(1) (a one-voter quorum wins at once); SendFetchRequest(2, 1);
\* HandleFetchRequest (epoch 0: FENCED_LEADER_EPOCH naming leader 1 of epoch 1);
\* HandleFetchResponse; SendFetchRequest(2, 1); HandleFetchRequest (epoch 1, offset 0:
\* the leader commits LC(1, 1)); HandleFetchResponse; SendFetchRequest(2, 1);
\* HandleFetchRequest (offset 1).
\* Replica 1 leads epoch 1 and has committed LC(1, 1); observer 2 follows it, holds
\* LC(1, 1) and has caught up (the leader holds its fetch offset 1 for key <<2, 1>>).
ScenarioStandaloneCaughtUp ==
    /\ currentEpoch = [i \in Replicas |-> 1]
    /\ votedId = [i \in Replicas |-> IF i = 1 THEN 1 ELSE Nil]
    /\ leaderId = [i \in Replicas |-> 1]
    /\ log = [i \in Replicas |-> <<LC(1, 1)>>]
    /\ role = [i \in Replicas |-> IF i = 1 THEN "Leader" ELSE "Follower"]
    /\ highWatermark = [i \in Replicas |-> 1]
    /\ endorsers = [i \in Replicas |-> {}]
    /\ replicaEndOffset = [i \in Replicas |-> IF i = 1 THEN [ZeroOffsets EXCEPT ![2] = 1] ELSE ZeroOffsets]
    /\ replicaDirectoryId = [i \in Replicas |-> IF i = 1 THEN [ZeroOffsets EXCEPT ![2] = 1] ELSE ZeroOffsets]
    /\ elections = {<<1, 1>>}
    /\ votes = {<<1, 1, 1>>}
    /\ committed = {<<0, LC(1, 1), 1>>}
    /\ votesGranted = [i \in Replicas |-> {}]
    /\ messages = {}
    /\ restarts = 0
    /\ unflushed = [i \in Replicas |-> NoUnflushed]
    /\ TimersInit
    /\ dirId = [i \in Replicas |-> InitialDirId]
    /\ pendingVoterChange = [i \in Replicas |-> {}]

\* Any voter set containing 1 (a dynamic quorum for the reassignment walks, whose budget
\* would otherwise go to the first elections).  Prefix: BecomeCandidate(1);
\* HandleVoteRequest(1->j) for every other voter j; HandleVoteResponse(j->1) for j = 2, 3,
\* ... until a majority; then for every other voter j: SendBeginQuorumEpoch(1, j),
\* HandleBeginQuorumEpochRequest(1->j); then for every j: SendFetchRequest(j, 1),
\* HandleFetchRequest (at offset 0), HandleFetchResponse; then for every j:
\* SendFetchRequest(j, 1), HandleFetchRequest (at offset 1).
\* Replica 1 leads epoch 1 and has committed LC(1, 1), which every voter holds; the
\* observers have not started.
\* @type: (Int) => (Int -> Int);
FollowerOffsets(x) == [j \in Replicas |-> IF j \in Voters \ {1} THEN x ELSE 0]

ScenarioStableLeader ==
    /\ currentEpoch = [i \in Replicas |-> IF i \in Voters THEN 1 ELSE 0]
    /\ votedId = [i \in Replicas |-> IF i \in Voters THEN 1 ELSE Nil]
    /\ leaderId = [i \in Replicas |-> IF i \in Voters THEN 1 ELSE Nil]
    /\ log = [i \in Replicas |-> IF i \in Voters THEN <<LC(1, 1)>> ELSE <<>>]
    /\ role = [i \in Replicas |-> CASE i = 1 -> "Leader" [] i \in Voters -> "Follower" [] OTHER -> "Unattached"]
    /\ highWatermark = [i \in Replicas |-> IF i = 1 THEN 1 ELSE 0]
    /\ endorsers = [i \in Replicas |-> IF i = 1 THEN Voters \ {1} ELSE {}]
    /\ replicaEndOffset = [i \in Replicas |-> IF i = 1 THEN FollowerOffsets(1) ELSE ZeroOffsets]
    /\ replicaDirectoryId = [i \in Replicas |-> IF i = 1 THEN FollowerOffsets(InitialDirId) ELSE ZeroOffsets]
    /\ elections = {<<1, 1>>}
    /\ votes = {<<j, 1, 1>> : j \in Voters}
    /\ committed = {<<0, LC(1, 1), 1>>}
    /\ votesGranted = [i \in Replicas |-> {}]
    /\ messages = {}
    /\ restarts = 0
    /\ unflushed = [i \in Replicas |-> NoUnflushed]
    /\ TimersInit
    /\ dirId = [i \in Replicas |-> InitialDirId]
    /\ pendingVoterChange = [i \in Replicas |-> {}]

(***************************************************************************)
(* Constant initialisations for Apalache (--cinit).  Each matches one .cfg. *)
(***************************************************************************)

\* No timer rule (the clock stands still); the timings are Kafka's defaults in ms.
Untimed ==
    /\ TimedRules = {}
    /\ Timing = [electionTimeout |-> 1000, fetchTimeout |-> 2000, requestTimeout |-> 2000,
                 retryBackoff |-> 20, retryBackoffMax |-> 1000, electionBackoffMax |-> 1000]
    /\ MaxTime = 0

KIPToggles ==
    /\ CommitRequiresCurrentEpoch = TRUE
    /\ VoteRequiresUpToDateLog = TRUE
    /\ DurableVote = TRUE
    /\ SendBeforePersist = {}
    /\ CrashBetweenWrites = FALSE
    /\ TruncateOnDivergence = TRUE
    /\ RejectConflictingLeader = TRUE
    /\ OneUncommittedChange = TRUE
    /\ ChangeRequiresCurrentEpochCommit = TRUE
    /\ VoteChecksDirectoryId = TRUE
    /\ Untimed
    /\ FetchMaxRecords = 0

\* A static quorum (controller.quorum.voters, kraft.version 0).
StaticQuorum ==
    /\ KRaftVersion = 0
    /\ VoterChangeRequests = {}

\* MC_KRaft_small.cfg
ConstInitSmall ==
    /\ Voters = {1, 2, 3}
    /\ Observers = {}
    /\ Values = {}
    /\ ClusterId = "kraft"
    /\ ForeignClusterId = "other"
    /\ ForeignRequests = {}
    /\ KIPToggles
    /\ StaticQuorum
    /\ MaxEpoch = 2
    /\ MaxLogLen = 2
    /\ MaxMessages = 9
    /\ MaxRestarts = 1

\* MC_KRaft_sim.cfg
ConstInitSim ==
    /\ Voters = {1, 2, 3}
    /\ Observers = {4}
    /\ Values = {1, 2}
    /\ ClusterId = "kraft"
    /\ ForeignClusterId = "other"
    /\ ForeignRequests = {}
    /\ KIPToggles
    /\ StaticQuorum
    /\ MaxEpoch = 8
    /\ MaxLogLen = 8
    /\ MaxMessages = 300
    /\ MaxRestarts = 3

\* MC_KRaft_dynamic.cfg
ConstInitDynamic ==
    /\ Voters = {1}
    /\ Observers = {2}
    /\ Values = {}
    /\ ClusterId = "kraft"
    /\ ForeignClusterId = "other"
    /\ ForeignRequests = {}
    /\ CommitRequiresCurrentEpoch = TRUE
    /\ VoteRequiresUpToDateLog = TRUE
    /\ DurableVote = TRUE
    /\ SendBeforePersist = {}
    /\ CrashBetweenWrites = FALSE
    /\ TruncateOnDivergence = TRUE
    /\ RejectConflictingLeader = TRUE
    /\ OneUncommittedChange = TRUE
    /\ ChangeRequiresCurrentEpochCommit = TRUE
    /\ VoteChecksDirectoryId = TRUE
    /\ Untimed
    /\ FetchMaxRecords = 0
    /\ KRaftVersion = 1
    /\ VoterChangeRequests = {"AddVoterRequest", "RemoveVoterRequest"}
    /\ MaxEpoch = 2
    /\ MaxLogLen = 3
    /\ MaxMessages = 6
    /\ MaxRestarts = 0

=============================================================================
