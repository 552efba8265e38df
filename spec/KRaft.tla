-------------------------------- MODULE KRaft --------------------------------
(***************************************************************************)
(* KRaft: the pull-based Raft dialect of KIP-595 ("A Raft Protocol for the  *)
(* Metadata Quorum"), election and replication, and KIP-853 quorum        *)
(* reconfiguration: replica keys (id, directory id), the voter set read    *)
(* from the log (VotersRecord), AddVoter / RemoveVoter / UpdateVoter.  A    *)
(* static quorum (KRaftVersion = 0) is exactly KIP-595.                     *)
(*                                                                         *)
(* Kafka words: epoch = term, offset = index (0-based), high watermark =   *)
(* commit index (exclusive).  Names of variables, messages and actions are *)
(* the contract of spec/VOCABULARY.md shared with the reference            *)
(* implementation's traces and the trace validator.                       *)
(*                                                                         *)
(* Every action changes the variables of exactly one replica, plus         *)
(* `messages` and the spec-only history variables.  The network loses,     *)
(* duplicates and reorders: a message joins `messages` and stays there.    *)
(* Timing is abstract unless TimedRules names timer rules: then a clock    *)
(* (`now`, advanced by AdvanceClock) and per-replica deadlines guard the   *)
(* timer-driven steps.                                                     *)
(* Nothing in this module bounds behaviours; MC_KRaft.tla adds the bounds  *)
(* as state constraints.                                                   *)
(***************************************************************************)
EXTENDS Integers, Sequences, FiniteSets

\* @type: Set(Int);
CONSTANT Voters
\* @type: Set(Int);
CONSTANT Observers
\* @type: Set(Int);
CONSTANT Values
\* @type: Str;
CONSTANT ClusterId
\* @type: Str;
CONSTANT ForeignClusterId
\* Request types a misconfigured peer may send; {} switches it off.
\* @type: Set(Str);
CONSTANT ForeignRequests

(***************************************************************************)
(* Rule toggles: TRUE is KIP-595.  A designer sets one to FALSE to see     *)
(* which property breaks (spec/README.md lists them).                      *)
(***************************************************************************)
\* @type: Bool;
CONSTANT CommitRequiresCurrentEpoch
\* @type: Bool;
CONSTANT VoteRequiresUpToDateLog
\* @type: Bool;
CONSTANT DurableVote
\* @type: Bool;
CONSTANT TruncateOnDivergence
\* @type: Bool;
CONSTANT RejectConflictingLeader
\* Persistence order.  KIP-595 makes every durable write of a step durable before the
\* step's messages leave ("Once this state is persistent, the voter becomes a candidate
\* and sends a VoteRequest"; "grant that vote by first updating the quorum-state file").
\* Each element is a rule toggle that breaks one such order: the send no longer waits
\* for the write, which stays pending (`unflushed`) until Flush, and a Restart before
\* it finds the durable state of before.  {} is KIP-595.
\*   "VoteRequest":  a candidate sends its VoteRequests before its epoch and self-vote
\*                   are durable (breaks VoteOnce: after a crash it votes again).
\*   "VoteResponse": a voter grants before its vote is durable (breaks VoteOnce).
\*   "FetchRequest": a follower acknowledges, by its next Fetch offset, records it has
\*                   appended but not flushed (breaks CommittedNeverTruncated: a crash
\*                   loses a committed entry).
\* @type: Set(Str);
CONSTANT SendBeforePersist
\* A crash between the two durable writes of one step (a fault, not a rule toggle).  A
\* step that writes both files writes the quorum-state first, then the log (DurableFiles):
\* a new leader its leaderId, then its leaderChange record.  With TRUE a crash may fall
\* between them: the step may stop after the quorum-state write, its record pending
\* (`unflushed`), and the replica's next step is then its Restart, which loses the record
\* (InCrashWindow).  FALSE: every step's writes are durable together.
\* @type: Bool;
CONSTANT CrashBetweenWrites
\* Time (KIP-595's timers).  Each element is a timer rule the spec enforces; {} is the
\* untimed spec, where any timer may fire whenever its state allows and the clock never
\* moves.  Removing one rule from the full set lets its timer fire early (or late):
\*   "ElectionTimeout":  an unattached, voted, candidate or resigned voter stands only
\*                       once quorum.election.timeout.ms passed since it entered that
\*                       state (a two-voter candidate refused steps down with a backoff
\*                       of 0 .. quorum.election.backoff.max.ms instead);
\*   "FetchTimeout":     a follower stands only after quorum.fetch.timeout.ms without a
\*                       successful Fetch from its leader;
\*   "SuccessorBackoff": the preferred successor at position N > 0 of an EndQuorumEpoch
\*                       stands no earlier than MIN(retry.backoff.max, retry.backoff *
\*                       2^(N-1)) after it (without the rule: at once);
\*   "CheckQuorum":      a leader resigns only when no majority of its voters fetched
\*                       within quorum.fetch.timeout.ms, and then before any other step
\*                       (a graceful shutdown is the step Shutdown);
\*   "BeginQuorumEpochResend": the leader sends BeginQuorumEpoch to a voter that has not
\*                       endorsed it at once, then again every quorum.request.timeout.ms,
\*                       each before any other step once due.
\*   "TimeoutUpperBound": a voter's election or fetch timer fires by the end of its
\*                       range: an unattached, voted, candidate or resigned voter takes
\*                       no step later than its election deadline plus
\*                       quorum.election.backoff.max.ms (the random part of the
\*                       timeout), a follower none later than its fetch timeout or its
\*                       successor schedule (TimeoutLatest).  A replica that is down
\*                       takes no step, and its Restart arms its timers again, so only
\*                       the steps of a replica that missed its timer break the rule.
\* The other rules' deadlines are lower bounds, exact where Kafka's timer is exact (fetch
\* timeout, successor backoff, check-quorum, resend), the start of the random range of
\* an election timer (quorum.election.timeout.ms; with TimeoutUpperBound the range ends
\* quorum.election.backoff.max.ms later).
\* @type: Set(Str);
CONSTANT TimedRules
\* The timer settings, in the spec's time unit (ms in traces, small ticks in models):
\* quorum.election.timeout.ms, quorum.fetch.timeout.ms, quorum.request.timeout.ms,
\* quorum.retry.backoff.ms, quorum.retry.backoff.max.ms, quorum.election.backoff.max.ms.
\* @type: { electionTimeout: Int, fetchTimeout: Int, requestTimeout: Int, retryBackoff: Int, retryBackoffMax: Int, electionBackoffMax: Int };
CONSTANT Timing
\* The leader's cap on the records of one FetchResponse (Kafka caps a fetch by bytes: the
\* Fetch's MaxBytes).  0: the leader may answer with any non-empty batch from the fetch
\* offset on (the models explore every size); N > 0: with exactly the next N records, or
\* all it holds beyond the fetch offset if fewer, as a leader that fills the fetch's
\* limit does (the reference implementation's traces, capped at 100 records).
\* @type: Int;
CONSTANT FetchMaxRecords

(***************************************************************************)
(* Reconfiguration (KIP-853).  KRaftVersion = 0: a static quorum, Voters is *)
(* controller.quorum.voters.  KRaftVersion = 1: a dynamic quorum, Voters is *)
(* the bootstrap voter set the storage was formatted with (a singleton for  *)
(* a standalone start); the voter set is then read from the log.            *)
(***************************************************************************)
\* @type: Int;
CONSTANT KRaftVersion
\* Voter-change requests the admin client (Add, Remove) and voters (Update) may
\* send; {} switches voter changes off.
\* @type: Set(Str);
CONSTANT VoterChangeRequests
\* Rule toggles of KIP-853 (TRUE is the KIP).
\* @type: Bool;
CONSTANT OneUncommittedChange
\* @type: Bool;
CONSTANT ChangeRequiresCurrentEpochCommit
\* @type: Bool;
CONSTANT VoteChecksDirectoryId

(*
  @typeAlias: key = <<Int, Int>>;
  @typeAlias: entry = { epoch: Int, kind: Str, value: Int, voters: Set($key) };
  @typeAlias: msg = {
    type: Str, source: Int, dest: Int, clusterId: Str, epoch: Int, leaderId: Int,
    errorCode: Str, voteGranted: Bool, lastOffsetEpoch: Int, lastOffset: Int,
    preferredSuccessors: Seq(Int), fetchOffset: Int, lastFetchedEpoch: Int,
    highWatermark: Int, divergingEpoch: Int, divergingEndOffset: Int,
    records: Seq($entry), sourceDirectoryId: Int, voterId: Int, voterDirectoryId: Int
  };
*)
KRaft_typedefs == TRUE

-----------------------------------------------------------------------------
(* Durable quorum-state (KIP-595 "Quorum State": LeaderEpoch, VotedId,      *)
(* LeaderId) and the log survive a restart.                                *)

\* @type: Int -> Int;
VARIABLE currentEpoch
\* @type: Int -> Int;
VARIABLE votedId
\* @type: Int -> Int;
VARIABLE leaderId
\* @type: Int -> Seq($entry);
VARIABLE log
\* The directory id of the metadata log dir (storage meta.properties): 0 in a
\* static quorum (no one reads it), 1 at first in a dynamic one, a fresh id after
\* each disk loss.
\* @type: Int -> Int;
VARIABLE dirId

(* Volatile state, lost on a restart. *)

\* @type: Int -> Str;
VARIABLE role
\* @type: Int -> Int;
VARIABLE highWatermark
\* @type: Int -> Set(Int);
VARIABLE votesGranted
\* @type: Int -> Set(Int);
VARIABLE endorsers
\* @type: Int -> (Int -> Int);
VARIABLE replicaEndOffset
\* Leader: the directory id of the Fetch whose offset replicaEndOffset holds (0: none).
\* @type: Int -> (Int -> Int);
VARIABLE replicaDirectoryId
\* Leader: the voter-change requests whose VotersRecord it appended and has not
\* answered yet.
\* @type: Int -> Set($msg);
VARIABLE pendingVoterChange

(* The network. *)

\* @type: Set($msg);
VARIABLE messages

(* Spec-only history variables (never in traces). *)

\* Every (epoch, leader) that won an election.
\* @type: Set(<<Int, Int>>);
VARIABLE elections
\* Every vote cast: (voter, epoch, candidate), self-votes included.
\* @type: Set(<<Int, Int, Int>>);
VARIABLE votes
\* (offset, entry, epoch of the leader that first committed it).
\* @type: Set(<<Int, $entry, Int>>);
VARIABLE committed
\* Number of Restart and LoseDisk steps so far.
\* @type: Int;
VARIABLE restarts

(* Pending durable writes (only with a SendBeforePersist toggle; never in traces). *)

\* Replica i's durable state where it lags the memory: the quorum-state file's
\* <<epoch, votedId, leaderId>> (epoch = Nil: no write pending) and the length of the
\* log prefix that is flushed (logLen = Nil: no write pending).  Only the steps a
\* SendBeforePersist toggle names, Flush, Restart and LoseDisk change it, so it rides
\* along with the history variables in UNCHANGED clauses.
\* @type: Int -> { epoch: Int, votedId: Int, leaderId: Int, logLen: Int };
VARIABLE unflushed

(* Time (only with TimedRules /= {}; never in traces: the validator advances `now` to *)
(* each event's time_ms and the deadlines follow from the steps).                    *)

\* The clock.
\* @type: Int;
VARIABLE now
\* The earliest time replica i may stand (BecomeCandidate) on a timeout: the election
\* timeout or, for a follower, the fetch timeout.
\* @type: Int -> Int;
VARIABLE electionDeadline
\* The EndQuorumEpoch that made replica i a preferred successor in its current state:
\* <<time received, 0-based position>> (<<Nil, Nil>>: none).
\* @type: Int -> <<Int, Int>>;
VARIABLE endQuorum
\* Leader l: the time of each voter's last Fetch with a valid position.
\* @type: Int -> (Int -> Int);
VARIABLE lastFetchTime
\* Leader l: when its next check-quorum falls due (Kafka's check-quorum timer: a fetch
\* timeout after its election, then when the fetch that completed the majority at the
\* last check leaves the window); Nil for other roles.
\* @type: Int -> Int;
VARIABLE checkQuorumDue
\* Leader l: when BeginQuorumEpoch to voter j is due (again).
\* @type: Int -> (Int -> Int);
VARIABLE beginEpochDue

serverVars == <<currentEpoch, votedId, leaderId, role>>
logVars == <<log, highWatermark, dirId>>
volatileVars == <<votesGranted, endorsers, replicaEndOffset, replicaDirectoryId, pendingVoterChange>>
historyVars == <<elections, votes, committed, restarts, unflushed>>
timerVars == <<now, electionDeadline, endQuorum, lastFetchTime, beginEpochDue, checkQuorumDue>>
vars == <<currentEpoch, votedId, leaderId, log, dirId, role, highWatermark, votesGranted,
          endorsers, replicaEndOffset, replicaDirectoryId, pendingVoterChange, messages,
          elections, votes, committed, restarts, unflushed,
          now, electionDeadline, endQuorum, lastFetchTime, beginEpochDue, checkQuorumDue>>

-----------------------------------------------------------------------------
(* Constants and helpers *)

Nil == -1
Replicas == Voters \cup Observers

Roles == {"Unattached", "Voted", "Candidate", "Leader", "Follower", "Resigned"}
RequestTypes == {"VoteRequest", "BeginQuorumEpochRequest", "EndQuorumEpochRequest", "FetchRequest",
                 "AddVoterRequest", "RemoveVoterRequest", "UpdateVoterRequest"}
MessageTypes == RequestTypes \cup
    {"VoteResponse", "BeginQuorumEpochResponse", "EndQuorumEpochResponse", "FetchResponse",
     "AddVoterResponse", "RemoveVoterResponse", "UpdateVoterResponse"}
ErrorCodes == {"", "FENCED_LEADER_EPOCH", "UNKNOWN_LEADER_EPOCH", "NOT_LEADER_FOR_PARTITION",
               "INVALID_CLUSTER_ID", "INCONSISTENT_VOTER_SET", "INVALID_QUORUM_STATE",
               "UNSUPPORTED_VERSION", "REQUEST_TIMED_OUT", "DUPLICATE_VOTER", "VOTER_NOT_FOUND",
               "INVALID_VOTER_KEY", "INVALID_REQUEST"}

ASSUME Voters \cap Observers = {} /\ Voters /= {} /\ Nil \notin Replicas
ASSUME Cardinality(Voters) <= 7   \* SortedSuccessors spells out up to 6 successors
ASSUME KRaftVersion \in {0, 1}
ASSUME KRaftVersion > 0 => Cardinality(Replicas) <= 7   \* any replica may become a voter
ASSUME VoterChangeRequests \subseteq {"AddVoterRequest", "RemoveVoterRequest", "UpdateVoterRequest"}
ASSUME \A t \in {OneUncommittedChange, ChangeRequiresCurrentEpochCommit, VoteChecksDirectoryId} :
        t \in BOOLEAN
ASSUME ClusterId /= ""
ASSUME ForeignRequests \subseteq {"VoteRequest", "BeginQuorumEpochRequest", "FetchRequest"}
ASSUME SendBeforePersist \subseteq {"VoteRequest", "VoteResponse", "FetchRequest"}
ASSUME CrashBetweenWrites \in BOOLEAN /\ (CrashBetweenWrites => SendBeforePersist = {})
ASSUME TimedRules \subseteq {"ElectionTimeout", "FetchTimeout", "SuccessorBackoff", "CheckQuorum",
                             "BeginQuorumEpochResend", "TimeoutUpperBound"}
ASSUME \A f \in {"electionTimeout", "fetchTimeout", "requestTimeout", "retryBackoff", "retryBackoffMax",
                 "electionBackoffMax"} :
        Timing[f] \in Nat
ASSUME \A t \in {CommitRequiresCurrentEpoch, VoteRequiresUpToDateLog, DurableVote,
                 TruncateOnDivergence, RejectConflictingLeader} : t \in BOOLEAN

\* @type: (Int, Int) => Int;
Min(a, b) == IF a <= b THEN a ELSE b
\* @type: (Int, Int) => Int;
Max(a, b) == IF a >= b THEN a ELSE b

\* "a candidate gathers a majority of votes from its peers (including itself)"
\* @type: (Set(Int)) => Bool;
IsMajority(S) == 2 * Cardinality(S \cap Voters) > Cardinality(Voters)

\* @type: (Seq(Int)) => Set(Int);
Range(s) == {s[k] : k \in DOMAIN s}

\* The epoch of the last entry of a log (0 for an empty log).
\* @type: (Seq($entry)) => Int;
LastEpoch(lg) == IF lg = <<>> THEN 0 ELSE lg[Len(lg)].epoch

\* End offset of epoch e in a log: the number of entries of epoch <= e
\* (epochs never decrease along a log).
\* @type: (Seq($entry), Int) => Int;
EndOffsetForEpoch(lg, e) == Cardinality({k \in DOMAIN lg : lg[k].epoch <= e})

\* The largest epoch <= e that the log holds (0 when none).
\* @type: (Seq($entry), Int) => Int;
LargestEpochAtMost(lg, e) ==
    LET n == EndOffsetForEpoch(lg, e) IN IF n = 0 THEN 0 ELSE lg[n].epoch

\* Vote request handling, 4.b: "If the logs' last entry have different epochs,
\* then the log with the later epoch is more up-to-date. If the logs end with the
\* same epoch, then whichever log is longer is more up-to-date."  Is the log position
\* (last epoch e1, end offset n1) at least as up-to-date as (e2, n2)?
\* @type: (Int, Int, Int, Int) => Bool;
PositionAtLeast(e1, n1, e2, n2) == e1 > e2 \/ (e1 = e2 /\ n1 >= n2)

\* Is the position (lastEpoch, lastOffset) at least as up-to-date as log lg?
\* @type: (Int, Int, Seq($entry)) => Bool;
UpToDate(lastEpoch, lastOffset, lg) == PositionAtLeast(lastEpoch, lastOffset, LastEpoch(lg), Len(lg))

\* FetchRequest handling, 3: "FetchOffset is expected to be in the range of offsets
\* with an epoch of LastFetchedEpoch or it is the start offset of the next epoch."
\* @type: (Seq($entry), Int, Int) => Bool;
ValidFetch(lg, fetchOffset, lastFetchedEpoch) ==
    /\ LargestEpochAtMost(lg, lastFetchedEpoch) = lastFetchedEpoch
    /\ fetchOffset <= EndOffsetForEpoch(lg, lastFetchedEpoch)

\* EndQuorumEpoch: "preferred successors sorted by each voter's current replicated
\* offset in descending order" (ties: smaller id first).
\* @type: (Set(Int), Int -> Int) => Seq(Int);
SortedSuccessors(S, off) ==
    LET Before(a, b) == off[a] > off[b] \/ (off[a] = off[b] /\ a < b)
        Rank(v) == Cardinality({w \in S : Before(w, v)}) + 1
        At(k) == CHOOSE v \in S : Rank(v) = k
        n == Cardinality(S)
    IN CASE n = 0 -> <<>>
         [] n = 1 -> <<At(1)>>
         [] n = 2 -> <<At(1), At(2)>>
         [] n = 3 -> <<At(1), At(2), At(3)>>
         [] n = 4 -> <<At(1), At(2), At(3), At(4)>>
         [] n = 5 -> <<At(1), At(2), At(3), At(4), At(5)>>
         [] n = 6 -> <<At(1), At(2), At(3), At(4), At(5), At(6)>>

ZeroOffsets == [r \in Replicas |-> 0]

-----------------------------------------------------------------------------
(* Durable writes *)

\* Nothing pending: the disk holds what the memory holds.
NoUnflushed == [epoch |-> Nil, votedId |-> Nil, leaderId |-> Nil, logLen |-> Nil]

\* The quorum-state file of replica i (what a restart reads).
\* @type: (Int) => <<Int, Int, Int>>;
DurableQuorumState(i) ==
    IF unflushed[i].epoch = Nil THEN <<currentEpoch[i], votedId[i], leaderId[i]>>
    ELSE <<unflushed[i].epoch, unflushed[i].votedId, unflushed[i].leaderId>>

\* The flushed log of replica i (what a restart reads).
\* @type: (Int) => Seq($entry);
DurableLog(i) == IF unflushed[i].logLen = Nil THEN log[i] ELSE SubSeq(log[i], 1, unflushed[i].logLen)

\* The order in which one step's durable writes reach the disk, all before its first
\* send: the quorum-state file, then the log (appends, truncations, one fsync).  The
\* stored epoch then always covers the epoch of every flushed record, which recovery
\* checks (a record of a later epoch than the quorum-state means a lost write).  The
\* trace validator checks the writes a trace logs against this order.
DurableFiles == <<"quorumState", "log">>

\* A step of replica i tagged t that changes its quorum-state: with the toggle t, the
\* step's sends go out before the write, which stays pending (a write already pending
\* keeps the older durable value).  Stated after the step's other conjuncts.
\* @type: (Int, Str) => Bool;
QuorumStateWrite(i, t) ==
    unflushed' =
        IF /\ t \in SendBeforePersist
           /\ unflushed[i].epoch = Nil
           /\ <<currentEpoch'[i], votedId'[i], leaderId'[i]>> /= <<currentEpoch[i], votedId[i], leaderId[i]>>
        THEN [unflushed EXCEPT ![i].epoch = currentEpoch[i], ![i].votedId = votedId[i],
                               ![i].leaderId = leaderId[i]]
        ELSE unflushed

\* The two writes of a new leader i (CrashBetweenWrites): both durable, or the crash fell
\* between them and the leaderChange record just appended is pending.
\* @type: (Int) => Bool;
LeaderChangeWrite(i) ==
    \/ unflushed' = unflushed
    \/ /\ CrashBetweenWrites
       /\ unflushed' = [unflushed EXCEPT ![i].logLen = Len(log[i])]

\* Replica i crashed between the two writes of its last step: it takes no step until its
\* Restart (only the window leaves a log write pending when CrashBetweenWrites is TRUE).
\* @type: (Int) => Bool;
InCrashWindow(i) == CrashBetweenWrites /\ unflushed[i].logLen /= Nil

-----------------------------------------------------------------------------
(* Log entries, replica keys and the voter set (KIP-853) *)

\* @type: (Int, Str, Int) => $entry;
Entry(e, kind, value) == [epoch |-> e, kind |-> kind, value |-> value, voters |-> {}]

\* KIP-853's VotersRecord: the complete voter set, as replica keys (id, directory id).
\* @type: (Int, Set($key)) => $entry;
VotersRecord(e, keys) == [epoch |-> e, kind |-> "voters", value |-> Nil, voters |-> keys]

\* The directory id a replica is formatted with: none (0) in a static quorum.
InitialDirId == IF KRaftVersion = 0 THEN 0 ELSE 1

\* controller.quorum.voters (static), or the initial controllers the storage was
\* formatted with (dynamic).
\* @type: Set($key);
BootstrapVoterKeys == {<<v, InitialDirId>> : v \in Voters}

\* The position of the latest VotersRecord of a log (0 when none).
\* @type: (Seq($entry)) => Int;
LastVotersIndex(lg) ==
    LET ks == {k \in DOMAIN lg : lg[k].kind = "voters"} IN
    IF ks = {} THEN 0 ELSE CHOOSE k \in ks : \A x \in ks : x <= k

\* "a replica's voter set is the one of the latest VotersRecord in its log,
\* committed or not, else the bootstrap set": truncating the record reverts it.
\* @type: (Seq($entry)) => Set($key);
VoterSetOf(lg) ==
    IF KRaftVersion = 0 THEN BootstrapVoterKeys
    ELSE LET k == LastVotersIndex(lg) IN IF k = 0 THEN BootstrapVoterKeys ELSE lg[k].voters

\* Replica i's voter set (a function of its log, not a variable).
\* @type: (Int) => Set($key);
VoterKeys(i) == VoterSetOf(log[i])

\* @type: (Set($key)) => Set(Int);
KeyIds(keys) == {k[1] : k \in keys}

\* @type: (Int) => Set(Int);
VoterIds(i) == KeyIds(VoterKeys(i))

\* "a replica whose directory id differs is not that voter"
\* @type: (Int) => Bool;
IsVoter(i) == <<i, dirId[i]>> \in VoterKeys(i)

\* The directory id the voter set holds for id v (0 when v is not in it).
\* @type: (Set($key), Int) => Int;
DirOf(keys, v) == IF v \in KeyIds(keys) THEN (CHOOSE k \in keys : k[1] = v)[2] ELSE 0

\* S (replica ids) is a majority of the voter set (a voter set holds one key per id).
\* @type: (Set(Int), Set($key)) => Bool;
IsMajorityOf(S, keys) == 2 * Cardinality({k \in keys : k[1] \in S}) > Cardinality(keys)

\* A request addressed to another directory id than the receiver's (dynamic quorum).
\* @type: (Int, $msg) => Bool;
WrongVoterKey(i, m) == KRaftVersion > 0 /\ m.voterDirectoryId /= dirId[i]

\* The leader-side state a replica drops when it leaves the leader role.
\* @type: (Int) => Bool;
ResetLeaderState(i) ==
    /\ replicaEndOffset' = [replicaEndOffset EXCEPT ![i] = ZeroOffsets]
    /\ replicaDirectoryId' = [replicaDirectoryId EXCEPT ![i] = ZeroOffsets]
    /\ pendingVoterChange' = [pendingVoterChange EXCEPT ![i] = {}]

-----------------------------------------------------------------------------
(* Timers (KIP-595).  Every step of replica i ends with Timers(i) (or one of its  *)
(* variants): the timers of a state i enters are armed, those of a state it      *)
(* leaves are dropped.  With TimedRules = {} none of the timer variables changes. *)

NoTimes == [r \in Replicas |-> Nil]
NoEndQuorum == <<Nil, Nil>>

\* "quorum.retry.backoff.max.ms ... MIN(retry.backoff.max.ms, retry.backoff.ms *
\* 2^(N-1))": the delay of the preferred successor at 0-based position p.
\* @type: (Int) => Int;
SuccessorBackoff(p) ==
    IF p <= 0 THEN 0 ELSE Min(Timing.retryBackoffMax, Timing.retryBackoff * 2^(p - 1))

\* Replica i enters another state in this step (role, epoch, leader or vote changes).
\* @type: (Int) => Bool;
NewEpochState(i) ==
    <<role'[i], currentEpoch'[i], leaderId'[i], votedId'[i]>> /= <<role[i], currentEpoch[i], leaderId[i], votedId[i]>>

\* The election deadline a state armed now starts with.
\* @type: (Int) => Int;
ArmedDeadline(i) ==
    CASE role'[i] = "Follower" -> now + Timing.fetchTimeout
      \* Gridlocked elections: "immediately step down and backoff"
      [] role[i] = "Candidate" /\ role'[i] = "Voted" /\ currentEpoch'[i] = currentEpoch[i] -> now
      [] OTHER -> now + Timing.electionTimeout

\* Check-quorum, as Kafka's timer runs it.  A check of leader l at time t, with its voter
\* set and fetch times: a majority of its voters, itself included, sent a Fetch at a valid
\* position within the fetch timeout before t.
\* @type: (Int, Int) => Bool;
QuorumHeard(l, t) ==
    IsMajorityOf((IF IsVoter(l) THEN {l} ELSE {}) \cup
                 {j \in VoterIds(l) \ {l} : lastFetchTime[l][j] > t - Timing.fetchTimeout},
                 VoterKeys(l))

\* The next check after one at t that heard the quorum: when the fetch that completed the
\* majority leaves the window (heard-ness only falls as time passes with the same fetches,
\* and changes only where a fetch leaves it); a voter that is a majority alone: t + timeout.
\* @type: (Int, Int) => Int;
CheckQuorumNext(l, t) ==
    LET ends == {lastFetchTime[l][j] + Timing.fetchTimeout : j \in VoterIds(l) \ {l}}
        lost == {d \in ends : d > t /\ ~QuorumHeard(l, d)}
    IN IF lost = {} THEN t + Timing.fetchTimeout
       ELSE CHOOSE d \in lost : \A x \in lost : d <= x

\* The checks of leader l that fell due before now all heard the quorum.  The fetch times
\* and the voter set change only at l's own steps, which bring checkQuorumDue up to date
\* (NextCheckQuorumDues), so the checks since then are judged with today's values.  A second
\* check with the same fetches fails, unless l is a majority alone (it never fails).
\* @type: (Int) => Bool;
ChecksPassed(l) ==
    LET d == checkQuorumDue[l]
        d1 == CheckQuorumNext(l, d)
    IN d >= now \/ (QuorumHeard(l, d) /\ (d1 >= now \/ QuorumHeard(l, d1)))

\* When the next check of leader l falls due once the checks before now passed.
\* @type: (Int) => Int;
DueAfterChecks(l) ==
    LET d == checkQuorumDue[l]
        d1 == CheckQuorumNext(l, d)
        t == Timing.fetchTimeout
    IN IF d >= now THEN d
       ELSE IF d1 >= now THEN d1
       ELSE d1 + t * ((now - d1 + t - 1) \div t)

\* A check-quorum of leader l that fell due by now did not hear the quorum: it resigns
\* (on time: the check falls due now; else nothing but the resignation is left to it).
\* @type: (Int) => Bool;
QuorumLost(l) == ~ChecksPassed(l) \/ (DueAfterChecks(l) = now /\ ~QuorumHeard(l, now))

\* checkQuorumDue after a step of replica i that sets its fetch times to `fetched`: a new
\* leader's first check is a fetch timeout away; a step that changes the fetch times or the
\* voter set first takes the checks that fell due before it, with the values before it (a
\* check due at this very time may come before the step or after it: Kafka orders a timer
\* and a message of the same millisecond either way).
\* @type: (Int, Int -> Int) => Set(Int);
NextCheckQuorumDues(i, fetched) ==
    CASE role'[i] /= "Leader" -> {Nil}
      [] role[i] /= "Leader" -> {now + Timing.fetchTimeout}
      [] fetched = lastFetchTime[i] /\ log'[i] = log[i] -> {checkQuorumDue[i]}
      [] OTHER -> {DueAfterChecks(i)} \cup
                  IF DueAfterChecks(i) = now /\ QuorumHeard(i, now) THEN {CheckQuorumNext(i, now)} ELSE {}

\* The timers of replica i after its step: deadline, successor schedule, and (leader)
\* fetch times and BeginQuorumEpoch due times, as given.
\* @type: (Int, Int, <<Int, Int>>, Int -> Int, Int -> Int) => Bool;
SetTimers(i, deadline, eq, fetched, due) ==
    IF TimedRules = {} THEN UNCHANGED timerVars
    ELSE /\ now' = now
         \* (a function that does not change is kept as it is: cheaper to evaluate)
         /\ electionDeadline' = IF deadline = electionDeadline[i] THEN electionDeadline
                                ELSE [electionDeadline EXCEPT ![i] = deadline]
         /\ endQuorum' = IF eq = endQuorum[i] THEN endQuorum ELSE [endQuorum EXCEPT ![i] = eq]
         /\ lastFetchTime' = IF fetched = lastFetchTime[i] THEN lastFetchTime
                             ELSE [lastFetchTime EXCEPT ![i] = fetched]
         /\ beginEpochDue' = IF due = beginEpochDue[i] THEN beginEpochDue ELSE [beginEpochDue EXCEPT ![i] = due]
         /\ \E d \in NextCheckQuorumDues(i, fetched) :
                checkQuorumDue' = IF d = checkQuorumDue[i] THEN checkQuorumDue ELSE [checkQuorumDue EXCEPT ![i] = d]

\* @type: (Int) => Int;
NextDeadline(i) == IF NewEpochState(i) THEN ArmedDeadline(i) ELSE electionDeadline[i]
\* @type: (Int) => <<Int, Int>>;
NextEndQuorum(i) == IF NewEpochState(i) THEN NoEndQuorum ELSE endQuorum[i]
\* A new leader has heard no fetch yet; BeginQuorumEpoch is due at once.
\* @type: (Int) => (Int -> Int);
NextFetchTimes(i) ==
    CASE role'[i] /= "Leader" -> NoTimes
      [] role[i] /= "Leader" -> NoTimes
      [] OTHER -> lastFetchTime[i]
\* @type: (Int) => (Int -> Int);
NextDue(i) ==
    CASE role'[i] /= "Leader" -> NoTimes
      [] role[i] /= "Leader" -> [r \in Replicas |-> now]
      [] OTHER -> beginEpochDue[i]

\* The timers after a step of replica i (stated after the step's other conjuncts).
\* @type: (Int) => Bool;
Timers(i) == SetTimers(i, NextDeadline(i), NextEndQuorum(i), NextFetchTimes(i), NextDue(i))

\* At time t, leader i owes a voter a BeginQuorumEpoch.
\* @type: (Int, Int) => Bool;
BeginQuorumEpochOverdue(i, t) ==
    \E j \in VoterIds(i) \ ({i} \cup endorsers[i]) : beginEpochDue[i][j] <= t

\* A leader's timers fire when due, before its other steps: none of them was due
\* before now (at the same time the order is free).  The check-quorum part and the
\* BeginQuorumEpoch part.
\* @type: (Int) => Bool;
CheckQuorumOnTime(i) ==
    role[i] = "Leader" /\ "CheckQuorum" \in TimedRules => ChecksPassed(i)
\* @type: (Int) => Bool;
BeginQuorumEpochOnTime(i) ==
    role[i] = "Leader" /\ "BeginQuorumEpochResend" \in TimedRules => ~BeginQuorumEpochOverdue(i, now - 1)

\* The latest time the election or fetch timer of voter i fires (Nil: i has none, as a
\* leader or an observer): an election deadline plus the random part of the timeout, a
\* follower's fetch timeout, or a preferred successor's schedule (with the backoff of its
\* position; it replaces a follower's fetch timer, and an earlier election deadline stays).
\* @type: (Int) => Int;
TimeoutLatest(i) ==
    LET successor == IF endQuorum[i] = NoEndQuorum THEN Nil
                     ELSE endQuorum[i][1] + SuccessorBackoff(endQuorum[i][2])
        own == IF role[i] /= "Follower" THEN electionDeadline[i] + Timing.electionBackoffMax
               ELSE IF successor = Nil THEN electionDeadline[i] ELSE Nil
    IN CASE role[i] = "Leader" \/ ~IsVoter(i) -> Nil
         [] successor = Nil -> own
         [] own = Nil -> successor
         [] OTHER -> Min(own, successor)

\* A non-leader's timer fires by its latest time, before its other steps (at the same
\* time the order is free).
\* @type: (Int) => Bool;
TimeoutOnTime(i) ==
    "TimeoutUpperBound" \in TimedRules => TimeoutLatest(i) = Nil \/ now <= TimeoutLatest(i)

\* Replica i may take a step now: it is not inside a crash window, and its timers are on
\* time.
\* @type: (Int) => Bool;
OnTime(i) ==
    /\ ~InCrashWindow(i)
    /\ \/ TimedRules = {}
       \/ role[i] /= "Leader" /\ TimeoutOnTime(i)
       \/ role[i] = "Leader" /\ CheckQuorumOnTime(i) /\ BeginQuorumEpochOnTime(i)

\* The EndQuorumEpoch that made i a preferred successor allows it to stand now.
\* @type: (Int) => Bool;
SuccessorDue(i) ==
    /\ endQuorum[i][1] /= Nil
    /\ now >= endQuorum[i][1] + IF "SuccessorBackoff" \in TimedRules THEN SuccessorBackoff(endQuorum[i][2]) ELSE 0

\* Replica i may stand now: its election (or fetch) timeout passed, or it is a preferred
\* successor whose backoff passed.
\* @type: (Int) => Bool;
MayStand(i) ==
    \/ (IF role[i] = "Follower" THEN "FetchTimeout" ELSE "ElectionTimeout") \notin TimedRules
    \/ now >= electionDeadline[i]
    \/ SuccessorDue(i)

\* The clock advances to `time` (the trace validator applies it when an event's time_ms
\* grows; the models tick by one).  Never in the untimed spec.
\* @type: (Int) => Bool;
AdvanceClock(time) ==
    /\ TimedRules /= {}
    /\ time > now
    /\ now' = time
    /\ UNCHANGED <<serverVars, logVars, volatileVars, messages, historyVars,
                   electionDeadline, endQuorum, lastFetchTime, beginEpochDue, checkQuorumDue>>

\* The models' clock advances one tick at a time.
\* @type: Set(Int);
NextTick == {now + 1}

-----------------------------------------------------------------------------
(* Messages: one record type, unused fields at their defaults. *)

\* @type: (Str, Int, Int) => $msg;
Message(type, source, dest) ==
    [type |-> type, source |-> source, dest |-> dest, clusterId |-> "",
     epoch |-> Nil, leaderId |-> Nil, errorCode |-> "", voteGranted |-> FALSE,
     lastOffsetEpoch |-> Nil, lastOffset |-> Nil, preferredSuccessors |-> <<>>,
     fetchOffset |-> Nil, lastFetchedEpoch |-> Nil, highWatermark |-> Nil,
     divergingEpoch |-> Nil, divergingEndOffset |-> Nil, records |-> <<>>,
     sourceDirectoryId |-> Nil, voterId |-> Nil, voterDirectoryId |-> Nil]

\* @type: (Int, Int, Str, Int, Int, Int) => $msg;
VoteRequest(i, j, cid, epoch, lastEpoch, lastOffset) ==
    [Message("VoteRequest", i, j) EXCEPT !.clusterId = cid, !.epoch = epoch,
        !.lastOffsetEpoch = lastEpoch, !.lastOffset = lastOffset]

\* A response of type t from i to j carrying i's epoch and leader (piggybacked
\* leader discovery: "We piggyback current leader and epoch information on all
\* responses").
\* @type: (Str, Int, Int, Str, Int, Int) => $msg;
Response(t, i, j, err, epoch, leader) ==
    [Message(t, i, j) EXCEPT !.errorCode = err, !.epoch = epoch, !.leaderId = leader]

\* @type: (Int, Int, Str, Int) => $msg;
BeginQuorumEpochRequest(i, j, cid, epoch) ==
    [Message("BeginQuorumEpochRequest", i, j) EXCEPT !.clusterId = cid, !.epoch = epoch]

\* @type: (Int, Int, Str, Int, Int, Int) => $msg;
FetchRequest(i, j, cid, epoch, fetchOffset, lastFetchedEpoch) ==
    [Message("FetchRequest", i, j) EXCEPT !.clusterId = cid, !.epoch = epoch,
        !.fetchOffset = fetchOffset, !.lastFetchedEpoch = lastFetchedEpoch]

\* A FetchResponse echoing the request's position (so that a stale response is
\* recognised).
\* @type: ($msg, Str, Int, Int) => $msg;
FetchResponseTo(m, err, epoch, leader) ==
    [Response("FetchResponse", m.dest, m.source, err, epoch, leader) EXCEPT
        !.fetchOffset = m.fetchOffset, !.lastFetchedEpoch = m.lastFetchedEpoch]

\* @type: ($msg) => Bool;
Send(m) == messages' = messages \cup {m}

\* "Check that the clusterId if not null matches the cached value": a request whose
\* sender does not know the cluster id yet carries none ("") and "the destination
\* broker will skip validation".
\* @type: ($msg) => Bool;
ClusterIdAccepted(m) == m.clusterId \in {ClusterId, ""}

-----------------------------------------------------------------------------
(* Transitions of one replica's protocol state. *)

\* Replica i takes the larger epoch e with leader l (Nil if unknown): "update the
\* quorum-state file and become a follower of that leader"; no vote in epoch e yet.
\* @type: (Int, Int, Int) => Bool;
TakeEpoch(i, e, l) ==
    /\ currentEpoch' = [currentEpoch EXCEPT ![i] = e]
    /\ votedId' = [votedId EXCEPT ![i] = Nil]
    /\ leaderId' = [leaderId EXCEPT ![i] = l]
    /\ role' = [role EXCEPT ![i] = IF l = Nil \/ l = i THEN "Unattached" ELSE "Follower"]
    /\ votesGranted' = [votesGranted EXCEPT ![i] = {}]
    /\ endorsers' = [endorsers EXCEPT ![i] = {}]
    /\ ResetLeaderState(i)

\* Replica i learns the leader l of its current epoch (its vote, if any, stays).
\* @type: (Int, Int) => Bool;
FollowInEpoch(i, l) ==
    /\ leaderId' = [leaderId EXCEPT ![i] = l]
    /\ role' = [role EXCEPT ![i] = "Follower"]
    /\ votesGranted' = [votesGranted EXCEPT ![i] = {}]
    /\ endorsers' = [endorsers EXCEPT ![i] = {}]
    /\ ResetLeaderState(i)
    /\ UNCHANGED <<currentEpoch, votedId>>

\* A response of i's current epoch names a leader i does not know yet.
\* @type: (Int, $msg) => Bool;
TeachesLeader(i, m) ==
    /\ m.epoch = currentEpoch[i]
    /\ m.leaderId \notin {Nil, i}
    /\ leaderId[i] = Nil

\* What a response teaches replica i about epochs and leaders; FALSE if nothing.
\* @type: (Int, $msg) => Bool;
LearnFromResponse(i, m) ==
    \/ /\ m.epoch > currentEpoch[i]
       /\ TakeEpoch(i, m.epoch, m.leaderId)
    \/ /\ TeachesLeader(i, m)
       /\ FollowInEpoch(i, m.leaderId)

\* @type: (Int, Int) => Bool;
BecomeLeader(i, e) ==
    /\ role' = [role EXCEPT ![i] = "Leader"]
    /\ leaderId' = [leaderId EXCEPT ![i] = i]
    \* "After becoming leader, we immediately append this control record."
    /\ log' = [log EXCEPT ![i] = Append(@, Entry(e, "leaderChange", i))]
    /\ votesGranted' = [votesGranted EXCEPT ![i] = {}]
    /\ endorsers' = [endorsers EXCEPT ![i] = {}]
    /\ ResetLeaderState(i)
    /\ elections' = elections \cup {<<e, i>>}

-----------------------------------------------------------------------------
(* Timers and local events *)

\* "A voter triggers an election by first voting for itself and updating the
\* quorum-state file. Once this state is persistent, the voter becomes a candidate
\* and sends a VoteRequest to all the other voters."  Fired by the fetch timeout, the
\* election timeout, an EndQuorumEpoch, or a resigned leader's election timeout.
\* KIP-853: the voters are those of the candidate's own log, addressed by replica key.
\* @type: (Int) => Bool;
BecomeCandidate(i) ==
    /\ IsVoter(i)
    /\ role[i] \in {"Unattached", "Voted", "Follower", "Candidate", "Resigned"}
    /\ MayStand(i)
    /\ TimeoutOnTime(i)
    /\ LET e == currentEpoch[i] + 1
           keys == VoterKeys(i)
       IN
       /\ currentEpoch' = [currentEpoch EXCEPT ![i] = e]
       /\ votedId' = [votedId EXCEPT ![i] = i]
       /\ votes' = votes \cup {<<i, e, i>>}
       /\ messages' = messages \cup
            {[VoteRequest(i, k[1], ClusterId, e, LastEpoch(log[i]), Len(log[i])) EXCEPT
                 !.sourceDirectoryId = dirId[i], !.voterDirectoryId = k[2]]
             : k \in {x \in keys : x[1] /= i}}
       /\ IF IsMajorityOf({i}, keys)
          THEN \* a one-voter quorum wins at once
               /\ BecomeLeader(i, e)
          ELSE /\ leaderId' = [leaderId EXCEPT ![i] = Nil]
               /\ role' = [role EXCEPT ![i] = "Candidate"]
               /\ votesGranted' = [votesGranted EXCEPT ![i] = {i}]
               /\ endorsers' = [endorsers EXCEPT ![i] = {}]
               /\ ResetLeaderState(i)
               /\ UNCHANGED <<log, elections>>
    /\ IF role'[i] = "Leader" /\ CrashBetweenWrites THEN LeaderChangeWrite(i)
       ELSE QuorumStateWrite(i, "VoteRequest")
    /\ UNCHANGED <<highWatermark, dirId, committed, restarts>>
    /\ Timers(i)

\* Fetch timer: "sends fetches to the current expected leader"; an observer that
\* knows no leader "will send a Fetch request to any of the voters at random".
\* An observer whose leader stops answering "retr[ies] the Fetch request again against
\* one of the remaining voters at random" (its fetch timed out: timing is abstract).
\* KIP-853: a replica not in its own voter set is an observer; the Fetch carries
\* the fetcher's directory id.
\* @type: (Int, Int) => Bool;
SendFetchRequest(i, j) ==
    /\ i /= j
    /\ \/ role[i] = "Follower" /\ j = leaderId[i]
       \/ ~IsVoter(i) /\ leaderId[i] = Nil /\ j \in VoterIds(i)
       \/ ~IsVoter(i) /\ role[i] = "Follower" /\ j \in VoterIds(i)
    /\ TimeoutOnTime(i)
    /\ Send([FetchRequest(i, j, ClusterId, currentEpoch[i], Len(log[i]), LastEpoch(log[i])) EXCEPT
               !.sourceDirectoryId = dirId[i]])
    /\ UNCHANGED <<serverVars, logVars, volatileVars, historyVars, timerVars>>

\* "The leader will continue sending BeginQuorumEpoch to each known voter until it
\* has received its endorsement."
\* @type: (Int, Int) => Bool;
SendBeginQuorumEpoch(i, j) ==
    /\ role[i] = "Leader"
    /\ j \in VoterIds(i) \ ({i} \cup endorsers[i])
    /\ "BeginQuorumEpochResend" \in TimedRules => now >= beginEpochDue[i][j]
    /\ ~InCrashWindow(i)
    /\ CheckQuorumOnTime(i)
    /\ Send([BeginQuorumEpochRequest(i, j, ClusterId, currentEpoch[i]) EXCEPT
               !.sourceDirectoryId = dirId[i], !.voterDirectoryId = DirOf(VoterKeys(i), j)])
    /\ UNCHANGED <<serverVars, logVars, volatileVars, historyVars>>
    \* "resend ... after quorum.request.timeout.ms"
    /\ SetTimers(i, electionDeadline[i], endQuorum[i], lastFetchTime[i],
                 [beginEpochDue[i] EXCEPT ![j] = now + Timing.requestTimeout])

\* Graceful shutdown, or the leader has not heard from a majority within the fetch
\* timeout (Leader Progress Timeout): it resigns and sends EndQuorumEpoch.
\* @type: (Int) => Set($msg);
EndQuorumEpochRequests(i) ==
    LET others == VoterIds(i) \ {i}
        successors == SortedSuccessors(others, replicaEndOffset[i])
    IN {[Message("EndQuorumEpochRequest", i, j) EXCEPT !.clusterId = ClusterId,
            !.epoch = currentEpoch[i], !.leaderId = i, !.preferredSuccessors = successors]
        : j \in others}

\* @type: (Int) => Bool;
StepDown(i) ==
    /\ role[i] = "Leader"
    /\ messages' = messages \cup EndQuorumEpochRequests(i)
    /\ role' = [role EXCEPT ![i] = "Resigned"]
    /\ endorsers' = [endorsers EXCEPT ![i] = {}]
    /\ ResetLeaderState(i)
    /\ UNCHANGED <<currentEpoch, votedId, leaderId, logVars, votesGranted, historyVars>>
    /\ Timers(i)

\* Check-quorum (or, untimed, also a graceful shutdown).
\* @type: (Int) => Bool;
Resign(i) ==
    /\ "CheckQuorum" \in TimedRules => QuorumLost(i)
    /\ ~InCrashWindow(i)
    /\ BeginQuorumEpochOnTime(i)
    /\ StepDown(i)

\* Graceful shutdown of a leader, at any time (its own step only when check-quorum is
\* timed; else it is a Resign).
\* @type: (Int) => Bool;
Shutdown(i) ==
    /\ "CheckQuorum" \in TimedRules
    /\ OnTime(i)
    /\ StepDown(i)

\* A client record appended by the leader.
\* @type: (Int, Int) => Bool;
ClientAppend(i, v) ==
    /\ role[i] = "Leader"
    /\ v \in Values
    /\ OnTime(i)
    /\ log' = [log EXCEPT ![i] = Append(@, Entry(currentEpoch[i], "data", v))]
    /\ UNCHANGED <<serverVars, highWatermark, dirId, volatileVars, messages, historyVars, timerVars>>

\* A restarted replica arms the timers of the state it restarts in.
\* @type: (Int) => Bool;
RestartTimers(i) ==
    SetTimers(i, IF role'[i] = "Follower" THEN now + Timing.fetchTimeout ELSE now + Timing.electionTimeout,
              NoEndQuorum, NoTimes, NoTimes)

\* Role after a restart, from the durable quorum-state.
\* @type: (Int, Int, Int) => Str;
RestartRole(i, leader, voted) ==
    IF leader = i THEN "Resigned"
    ELSE IF leader /= Nil THEN "Follower"
    ELSE IF voted /= Nil THEN "Voted"
    ELSE "Unattached"

\* Crash and restart: the durable log and quorum-state survive (writes still pending
\* are lost), the rest does not.  When votes are not durable (DurableVote = FALSE) the
\* vote is lost.
\* @type: (Int) => Bool;
Restart(i) ==
    /\ i \in Replicas
    /\ LET qs == DurableQuorumState(i)
           voted == IF DurableVote THEN qs[2] ELSE Nil
       IN
       /\ currentEpoch' = [currentEpoch EXCEPT ![i] = qs[1]]
       /\ votedId' = [votedId EXCEPT ![i] = voted]
       /\ leaderId' = [leaderId EXCEPT ![i] = qs[3]]
       /\ role' = [role EXCEPT ![i] = RestartRole(i, qs[3], voted)]
    /\ log' = [log EXCEPT ![i] = DurableLog(i)]
    /\ unflushed' = [unflushed EXCEPT ![i] = NoUnflushed]
    /\ highWatermark' = [highWatermark EXCEPT ![i] = 0]
    /\ votesGranted' = [votesGranted EXCEPT ![i] = {}]
    /\ endorsers' = [endorsers EXCEPT ![i] = {}]
    /\ ResetLeaderState(i)
    /\ restarts' = restarts + 1
    /\ UNCHANGED <<dirId, messages, elections, votes, committed>>
    /\ RestartTimers(i)

\* The pending writes of replica i reach the disk (the fsync a SendBeforePersist step
\* postponed).  Never enabled in KIP-595, where nothing is pending after a step, nor inside
\* a crash window (that write is lost with the crash).
\* @type: (Int) => Bool;
Flush(i) ==
    /\ unflushed[i] /= NoUnflushed
    /\ ~InCrashWindow(i)
    /\ unflushed' = [unflushed EXCEPT ![i] = NoUnflushed]
    /\ UNCHANGED <<serverVars, logVars, volatileVars, messages, elections, votes, committed, restarts,
                   timerVars>>

\* A replica restarts with an empty disk (same id).  KIP-595: observers only.
\* KIP-853: any replica; its storage is formatted again, with a new directory id,
\* so it comes back as an observer (its new replica key is in no voter set).
\* @type: (Int) => Bool;
LoseDisk(i) ==
    /\ i \in Observers \/ (i \in Replicas /\ KRaftVersion > 0)
    /\ dirId' = IF KRaftVersion = 0 THEN dirId ELSE [dirId EXCEPT ![i] = @ + 1]
    /\ currentEpoch' = [currentEpoch EXCEPT ![i] = 0]
    /\ votedId' = [votedId EXCEPT ![i] = Nil]
    /\ leaderId' = [leaderId EXCEPT ![i] = Nil]
    /\ role' = [role EXCEPT ![i] = "Unattached"]
    /\ log' = [log EXCEPT ![i] = <<>>]
    /\ highWatermark' = [highWatermark EXCEPT ![i] = 0]
    /\ votesGranted' = [votesGranted EXCEPT ![i] = {}]
    /\ endorsers' = [endorsers EXCEPT ![i] = {}]
    /\ ResetLeaderState(i)
    /\ restarts' = restarts + 1
    /\ unflushed' = [unflushed EXCEPT ![i] = NoUnflushed]
    /\ UNCHANGED <<messages, elections, votes, committed>>
    /\ RestartTimers(i)

\* A misconfigured peer claiming id i sends j a request carrying ForeignClusterId
\* (and j's current epoch, so that only the cluster id is wrong).
\* @type: (Int, Int, Str) => Bool;
SendForeignRequest(i, j, t) ==
    /\ t \in ForeignRequests
    /\ i /= j
    /\ LET m == CASE t = "VoteRequest" -> VoteRequest(i, j, ForeignClusterId, currentEpoch[j], 0, 0)
                   [] t = "BeginQuorumEpochRequest" -> BeginQuorumEpochRequest(i, j, ForeignClusterId, currentEpoch[j])
                   [] t = "FetchRequest" -> FetchRequest(i, j, ForeignClusterId, currentEpoch[j], 0, 0)
       IN Send(IF t = "FetchRequest" THEN [m EXCEPT !.sourceDirectoryId = dirId[i]]
               ELSE [m EXCEPT !.sourceDirectoryId = dirId[i], !.voterDirectoryId = dirId[j]])
    /\ UNCHANGED <<serverVars, logVars, volatileVars, historyVars, timerVars>>

-----------------------------------------------------------------------------
(* Vote *)

\* Vote Request Handling, steps 1-4 of KIP-595.
\* @type: ($msg) => Bool;
HandleVoteRequest(m) ==
    /\ m.type = "VoteRequest"
    /\ m.dest \in Replicas
    /\ OnTime(m.dest)
    /\ LET i == m.dest
           c == m.source
       IN
       \/ \* 1. "If not, then reject the vote and return INVALID_CLUSTER_ID."
          /\ ~ClusterIdAccepted(m)
          /\ Send(Response("VoteResponse", i, c, "INVALID_CLUSTER_ID", currentEpoch[i], leaderId[i]))
          /\ UNCHANGED <<serverVars, logVars, volatileVars, historyVars>>
       \/ \* KIP-853: a request for another directory id is not for this replica (it
          \* lost the disk that voter had).
          /\ ClusterIdAccepted(m)
          /\ VoteChecksDirectoryId /\ WrongVoterKey(i, m)
          /\ Send(Response("VoteResponse", i, c, "INVALID_VOTER_KEY", currentEpoch[i], leaderId[i]))
          /\ UNCHANGED <<serverVars, logVars, volatileVars, historyVars>>
       \/ \* 2. "it checks whether an epoch larger than the candidate epoch from the
          \* request is known. If so, the vote is rejected."
          /\ ClusterIdAccepted(m)
          /\ ~(VoteChecksDirectoryId /\ WrongVoterKey(i, m))
          /\ m.epoch < currentEpoch[i]
          /\ Send(Response("VoteResponse", i, c, "FENCED_LEADER_EPOCH", currentEpoch[i], leaderId[i]))
          /\ UNCHANGED <<serverVars, logVars, volatileVars, historyVars>>
       \/ /\ ClusterIdAccepted(m)
          /\ ~(VoteChecksDirectoryId /\ WrongVoterKey(i, m))
          /\ m.epoch >= currentEpoch[i]
          /\ LET bump == m.epoch > currentEpoch[i]
                 voted == IF bump THEN Nil ELSE votedId[i]
                 leader == IF bump THEN Nil ELSE leaderId[i]
                 \* 3. "only grant the vote if the candidate id matches the id that
                 \* was already voted"; 4.a "Check whether CandidateId is one of the
                 \* expected voters" (KIP-853 drops 4.a: "replicas will reply to votes
                 \* request when the candidate is not in the voter set or the voting
                 \* replica is not in the voter set"); 4.b "Check that the candidate's
                 \* log is at least as up-to-date as it".
                 grant == /\ KRaftVersion = 0 => (i \in Voters /\ c \in Voters)
                          /\ \/ voted = c
                             \/ /\ voted = Nil
                                /\ leader = Nil
                                /\ \/ ~VoteRequiresUpToDateLog
                                   \/ UpToDate(m.lastOffsetEpoch, m.lastOffset, log[i])
                 newVote == grant /\ voted = Nil
             IN
             /\ currentEpoch' = [currentEpoch EXCEPT ![i] = m.epoch]
             \* "grant that vote by first updating the quorum-state file"
             /\ votedId' = [votedId EXCEPT ![i] = IF newVote THEN c ELSE voted]
             /\ leaderId' = [leaderId EXCEPT ![i] = leader]
             /\ role' = [role EXCEPT ![i] = IF newVote THEN "Voted"
                                            ELSE IF bump THEN "Unattached" ELSE @]
             /\ votesGranted' = IF bump THEN [votesGranted EXCEPT ![i] = {}] ELSE votesGranted
             /\ endorsers' = IF bump THEN [endorsers EXCEPT ![i] = {}] ELSE endorsers
             /\ IF bump THEN ResetLeaderState(i)
                ELSE UNCHANGED <<replicaEndOffset, replicaDirectoryId, pendingVoterChange>>
             /\ votes' = IF newVote THEN votes \cup {<<i, m.epoch, c>>} ELSE votes
             /\ Send([Response("VoteResponse", i, c, "", m.epoch, leader) EXCEPT !.voteGranted = grant])
             /\ QuorumStateWrite(i, "VoteResponse")
             /\ UNCHANGED <<logVars, elections, committed, restarts>>
    /\ Timers(m.dest)

\* Vote Response Handling.
\* @type: ($msg) => Bool;
HandleVoteResponse(m) ==
    /\ m.type = "VoteResponse"
    /\ m.dest \in Replicas
    /\ OnTime(m.dest)
    /\ LET i == m.dest IN
       IF m.epoch > currentEpoch[i] \/ TeachesLeader(i, m)
       THEN /\ LearnFromResponse(i, m)
            /\ UNCHANGED <<logVars, messages, historyVars>>
       \* 1. "if it is no longer in candidate state, just ignore the response."
       ELSE IF role[i] = "Candidate" /\ m.epoch = currentEpoch[i]
       \* KIP-853: "a candidate counts only grants from its own current voter set"
       THEN LET granted == IF m.voteGranted /\ m.source \in VoterIds(i)
                           THEN votesGranted[i] \cup {m.source} ELSE votesGranted[i]
            IN
            IF m.voteGranted /\ IsMajorityOf(granted, VoterKeys(i))
            THEN \* 2. "it can transit to the leader state"
                 /\ BecomeLeader(i, currentEpoch[i])
                 /\ LeaderChangeWrite(i)
                 /\ UNCHANGED <<currentEpoch, votedId, highWatermark, dirId, messages, votes, committed,
                                restarts>>
            ELSE IF ~m.voteGranted /\ Cardinality(VoterKeys(i)) = 2
            THEN \* Gridlocked elections: "if there are only two voters and a candidate
                 \* fails to get a vote from the other voter ... The candidate in this
                 \* case can immediately step down and backoff."
                 /\ role' = [role EXCEPT ![i] = "Voted"]
                 /\ votesGranted' = [votesGranted EXCEPT ![i] = {}]
                 /\ UNCHANGED <<currentEpoch, votedId, leaderId, logVars, endorsers,
                                replicaEndOffset, replicaDirectoryId, pendingVoterChange, messages,
                                historyVars>>
            ELSE /\ votesGranted' = [votesGranted EXCEPT ![i] = granted]
                 /\ UNCHANGED <<serverVars, logVars, endorsers, replicaEndOffset, replicaDirectoryId,
                                pendingVoterChange, messages, historyVars>>
       ELSE UNCHANGED <<serverVars, logVars, volatileVars, messages, historyVars>>
    /\ Timers(m.dest)

-----------------------------------------------------------------------------
(* BeginQuorumEpoch *)

\* "A voter will accept a BeginQuorumEpoch if its leader epoch is greater than or
\* equal to the current known epoch so long as it doesn't conflict with previous
\* knowledge. ... If the epoch is less than the known epoch, the request is
\* rejected."
\* @type: ($msg) => Bool;
HandleBeginQuorumEpochRequest(m) ==
    /\ m.type = "BeginQuorumEpochRequest"
    /\ m.dest \in Replicas
    /\ OnTime(m.dest)
    /\ LET i == m.dest
           l == m.source
           Reply(err, epoch, leader) ==
               Send(Response("BeginQuorumEpochResponse", i, l, err, epoch, leader))
       IN
       \/ /\ ~ClusterIdAccepted(m)
          /\ Reply("INVALID_CLUSTER_ID", currentEpoch[i], leaderId[i])
          /\ UNCHANGED <<serverVars, logVars, volatileVars, historyVars>>
       \/ \* KIP-853: addressed to the voter key of another directory id
          /\ ClusterIdAccepted(m)
          /\ WrongVoterKey(i, m)
          /\ Reply("INVALID_VOTER_KEY", currentEpoch[i], leaderId[i])
          /\ UNCHANGED <<serverVars, logVars, volatileVars, historyVars>>
       \/ /\ ClusterIdAccepted(m) /\ ~WrongVoterKey(i, m)
          /\ m.epoch < currentEpoch[i]
          /\ Reply("FENCED_LEADER_EPOCH", currentEpoch[i], leaderId[i])
          /\ UNCHANGED <<serverVars, logVars, volatileVars, historyVars>>
       \/ /\ ClusterIdAccepted(m) /\ ~WrongVoterKey(i, m)
          /\ m.epoch > currentEpoch[i]
          \* "As soon as a broker accepts a BeginQuorumEpoch request, it will
          \* transition to a follower state"
          /\ TakeEpoch(i, m.epoch, l)
          /\ Reply("", m.epoch, l)
          /\ UNCHANGED <<logVars, historyVars>>
       \/ /\ ClusterIdAccepted(m) /\ ~WrongVoterKey(i, m)
          /\ m.epoch = currentEpoch[i]
          /\ leaderId[i] = l
          /\ Reply("", m.epoch, l)
          /\ UNCHANGED <<serverVars, logVars, volatileVars, historyVars>>
       \/ /\ ClusterIdAccepted(m) /\ ~WrongVoterKey(i, m)
          /\ m.epoch = currentEpoch[i]
          /\ leaderId[i] /= l
          /\ IF leaderId[i] = Nil \/ ~RejectConflictingLeader
             THEN /\ FollowInEpoch(i, l)
                  /\ Reply("", m.epoch, l)
             \* "if the leaderId for epoch 5 was known to be A, then a voter will
             \* reject a BeginQuorumEpoch request from a separate voter B from the
             \* same epoch."
             ELSE /\ Reply("INVALID_QUORUM_STATE", currentEpoch[i], leaderId[i])
                  /\ UNCHANGED <<serverVars, volatileVars>>
          /\ UNCHANGED <<logVars, historyVars>>
    /\ Timers(m.dest)

\* "If the response contains no errors, then the leader will record the follower
\* in memory as having endorsed the election."
\* @type: ($msg) => Bool;
HandleBeginQuorumEpochResponse(m) ==
    /\ m.type = "BeginQuorumEpochResponse"
    /\ m.dest \in Replicas
    /\ OnTime(m.dest)
    /\ LET i == m.dest IN
       IF m.errorCode = "INVALID_CLUSTER_ID"
       THEN UNCHANGED <<serverVars, logVars, volatileVars, messages, historyVars>>
       \* FENCED_LEADER_EPOCH: "the voter will update quorumstate and become a
       \* follower of that leader"
       ELSE IF m.epoch > currentEpoch[i] \/ TeachesLeader(i, m)
       THEN /\ LearnFromResponse(i, m)
            /\ UNCHANGED <<logVars, messages, historyVars>>
       ELSE IF /\ m.errorCode = ""
               /\ role[i] = "Leader"
               /\ m.epoch = currentEpoch[i]
               /\ m.source \in VoterIds(i) \ {i}
       THEN /\ endorsers' = [endorsers EXCEPT ![i] = @ \cup {m.source}]
            /\ UNCHANGED <<serverVars, logVars, votesGranted, replicaEndOffset, replicaDirectoryId,
                           pendingVoterChange, messages, historyVars>>
       ELSE UNCHANGED <<serverVars, logVars, volatileVars, messages, historyVars>>
    /\ Timers(m.dest)

-----------------------------------------------------------------------------
(* EndQuorumEpoch *)

\* "Upon receiving the EndQuorumEpoch, the voter checks if the epoch from the request
\* is greater than or equal to its last known epoch. If the epoch is smaller than the
\* last known epoch, or the leader id is not known for this epoch, the request is
\* rejected. Then the voter will check
\* whether it is inside the given preferred successors. If not, return
\* INCONSISTENT_VOTER_SET."  The election it may trigger is a later BecomeCandidate.
\* @type: ($msg) => Bool;
HandleEndQuorumEpochRequest(m) ==
    /\ m.type = "EndQuorumEpochRequest"
    /\ m.dest \in Replicas
    /\ OnTime(m.dest)
    /\ LET i == m.dest
           Reply(err, epoch, leader) ==
               Send(Response("EndQuorumEpochResponse", i, m.source, err, epoch, leader))
           successorError == IF i \in Range(m.preferredSuccessors) THEN "" ELSE "INCONSISTENT_VOTER_SET"
       IN
       \/ /\ ~ClusterIdAccepted(m)
          /\ Reply("INVALID_CLUSTER_ID", currentEpoch[i], leaderId[i])
          /\ UNCHANGED <<serverVars, logVars, volatileVars, historyVars>>
       \/ /\ ClusterIdAccepted(m)
          /\ m.epoch < currentEpoch[i]
          /\ Reply("FENCED_LEADER_EPOCH", currentEpoch[i], leaderId[i])
          /\ UNCHANGED <<serverVars, logVars, volatileVars, historyVars>>
       \/ /\ ClusterIdAccepted(m)
          /\ m.epoch > currentEpoch[i]
          /\ TakeEpoch(i, m.epoch, m.leaderId)
          /\ Reply(successorError, m.epoch, m.leaderId)
          /\ UNCHANGED <<logVars, historyVars>>
       \/ /\ ClusterIdAccepted(m)
          /\ m.epoch = currentEpoch[i]
          \* "or the leader id is not known for this epoch, the request is rejected"
          \* (a larger epoch is taken with the leader the request names, above)
          /\ Reply(IF leaderId[i] /= m.leaderId THEN "INVALID_QUORUM_STATE" ELSE successorError,
                   currentEpoch[i], leaderId[i])
          /\ UNCHANGED <<serverVars, logVars, volatileVars, historyVars>>
    \* "the voter will check whether it is inside the given preferred successors"; an
    \* unattached, voted or following successor schedules its election (the earliest
    \* schedule stays when one is known already)
    /\ LET i == m.dest
           eq == NextEndQuorum(i)
           new == <<now, CHOOSE k \in DOMAIN m.preferredSuccessors : m.preferredSuccessors[k] = i>>
           accepted == /\ ClusterIdAccepted(m)
                       /\ m.epoch >= currentEpoch[i]
                       /\ m.epoch = currentEpoch[i] => leaderId[i] = m.leaderId
                       /\ i \in Range(m.preferredSuccessors)
                       /\ role'[i] \in {"Follower", "Unattached", "Voted"}
           Due(x) == x[1] + IF "SuccessorBackoff" \in TimedRules THEN SuccessorBackoff(x[2]) ELSE 0
           pos0 == <<new[1], new[2] - 1>>
       IN IF TimedRules /= {} /\ accepted
          THEN SetTimers(i, NextDeadline(i), IF eq /= NoEndQuorum /\ Due(eq) <= Due(pos0) THEN eq ELSE pos0,
                         NextFetchTimes(i), NextDue(i))
          ELSE Timers(i)

\* "If there's no error code, then do nothing. Otherwise if the error code indicates
\* there's already higher epoch leader already ... transiting to follower state."
\* @type: ($msg) => Bool;
HandleEndQuorumEpochResponse(m) ==
    /\ m.type = "EndQuorumEpochResponse"
    /\ m.dest \in Replicas
    /\ OnTime(m.dest)
    /\ LET i == m.dest IN
       IF m.errorCode /= "INVALID_CLUSTER_ID" /\ (m.epoch > currentEpoch[i] \/ TeachesLeader(i, m))
       THEN /\ LearnFromResponse(i, m)
            /\ UNCHANGED <<logVars, messages, historyVars>>
       ELSE UNCHANGED <<serverVars, logVars, volatileVars, messages, historyVars>>
    /\ Timers(m.dest)

-----------------------------------------------------------------------------
(* Fetch *)

\* The high watermark leader l may advance to once replicaEndOffset is reo:
\* "the high watermark is set to the maximum offset which has been replicated to a
\* majority of the voters", but "we only advance the high-watermark if the current
\* leader has replicated at least one entry to majority of quorum to its current
\* epoch" (Extra condition on commitment).  KIP-853: the majority is of the leader's
\* own voter set (from its log, committed or not); the leader tracks replicas by key,
\* so an offset counts for a voter only if it came with the voter's directory id
\* (rdi); a leader that removed itself "will not count itself"; and the high
\* watermark never decreases.
\* @type: (Int, Int -> Int, Int -> Int) => Int;
AdvancedHighWatermark(l, reo, rdi) ==
    LET lg == log[l]
        keys == VoterSetOf(lg)
        EndOf(k) == IF k = <<l, dirId[l]>> THEN Len(lg)
                    ELSE IF k[1] /= l /\ rdi[k[1]] = k[2] THEN reo[k[1]] ELSE 0
        \* the largest end offset a majority has reached is one of the voters' own end
        \* offsets (the least of them is always reached), capped by the leader's log
        Reached == {n \in {EndOf(k) : k \in keys} :
                      2 * Cardinality({k \in keys : EndOf(k) >= n}) > Cardinality(keys)}
        h == Min(Len(lg), CHOOSE n \in Reached : \A x \in Reached : x <= n)
    IN IF h > highWatermark[l] /\ (~CommitRequiresCurrentEpoch \/ lg[h].epoch = currentEpoch[l])
       THEN h ELSE highWatermark[l]

\* History: the entries leader l commits when its high watermark moves to hw (an entry
\* already recorded at its offset, in whichever epoch, is not recorded again).
\* @type: (Int, Int) => Set(<<Int, $entry, Int>>);
NewlyCommitted(l, hw) ==
    LET recorded == {<<c[1], c[2]>> : c \in committed}
    IN {<<k - 1, log[l][k], currentEpoch[l]>> :
          k \in {p \in DOMAIN log[l] :
                   /\ p > highWatermark[l]
                   /\ p <= hw
                   /\ <<p - 1, log[l][p]>> \notin recorded}}

\* A negative fetch offset or last fetched epoch, or a last fetched epoch beyond the
\* request's epoch ("LeaderEpoch ... should never be negative"; a follower's log holds
\* no entry of an epoch later than its own).
\* @type: ($msg) => Bool;
MalformedFetch(m) == m.fetchOffset < 0 \/ m.lastFetchedEpoch < 0 \/ m.lastFetchedEpoch > m.epoch

\* The leader's own log end counts towards the majority: "the high watermark is set to
\* the maximum offset which has been replicated to a majority of the voters", and the
\* leader's appends replicate to itself.  When it is the only voter (KIP-853 standalone
\* formatting), or a VotersRecord it appended leaves a set it reaches a majority of with
\* the fetch offsets it already holds, its high watermark advances without a Fetch
\* (Kafka's leader recomputes it when its own log end or the voter set moves).  In
\* every other case a Fetch already advanced it as far (HandleFetchRequest).
\* @type: (Int) => Bool;
AdvanceHighWatermark(i) ==
    /\ role[i] = "Leader"
    /\ LET hw == AdvancedHighWatermark(i, replicaEndOffset[i], replicaDirectoryId[i]) IN
       /\ hw > highWatermark[i]
       /\ highWatermark' = [highWatermark EXCEPT ![i] = hw]
       /\ committed' = committed \cup NewlyCommitted(i, hw)
    /\ OnTime(i)
    /\ UNCHANGED <<serverVars, log, dirId, volatileVars, messages, elections, votes, restarts, unflushed,
                   timerVars>>

\* The offsets at which a FetchResponse's batch of the leader's log lg from fetch offset
\* fo may end (FetchMaxRecords): any offset beyond fo, or the one the cap gives.
\* @type: (Seq($entry), Int) => Set(Int);
BatchEnds(lg, fo) ==
    IF FetchMaxRecords = 0 THEN {k \in DOMAIN lg : k > fo}
    ELSE IF fo < Len(lg) THEN {Min(Len(lg), fo + FetchMaxRecords)}
    ELSE {}

\* FetchRequest Handling, steps 1-4 of KIP-595.
\* @type: ($msg) => Bool;
HandleFetchRequest(m) ==
    /\ m.type = "FetchRequest"
    /\ m.dest \in Replicas
    /\ OnTime(m.dest)
    /\ LET l == m.dest
           j == m.source
           ReplyError(err) == Send(FetchResponseTo(m, err, currentEpoch[l], leaderId[l]))
           Unchanged == UNCHANGED <<serverVars, logVars, volatileVars, historyVars>>
       IN
       \/ \* 1. "Check that the clusterId if not null matches the cached value"
          /\ ~ClusterIdAccepted(m)
          /\ ReplyError("INVALID_CLUSTER_ID")
          /\ Unchanged
       \/ \* 2. "ensure that the leader epoch from the request is the same as the
          \* locally cached value. If not, reject this request with either the
          \* FENCED_LEADER_EPOCH or UNKNOWN_LEADER_EPOCH error."
          /\ ClusterIdAccepted(m)
          /\ m.epoch < currentEpoch[l]
          /\ ReplyError("FENCED_LEADER_EPOCH")
          /\ Unchanged
       \/ /\ ClusterIdAccepted(m)
          /\ m.epoch > currentEpoch[l]
          /\ ReplyError("UNKNOWN_LEADER_EPOCH")
          /\ Unchanged
       \/ /\ ClusterIdAccepted(m)
          /\ m.epoch = currentEpoch[l]
          /\ role[l] /= "Leader"
          /\ ReplyError("NOT_LEADER_FOR_PARTITION")
          /\ Unchanged
       \/ \* Kafka's leader answers INVALID_REQUEST to a fetch position no replica can hold
          \* (spec/README.md, KIP fidelity)
          /\ ClusterIdAccepted(m)
          /\ m.epoch = currentEpoch[l]
          /\ role[l] = "Leader"
          /\ MalformedFetch(m)
          /\ ReplyError("INVALID_REQUEST")
          /\ Unchanged
       \/ /\ ClusterIdAccepted(m)
          /\ m.epoch = currentEpoch[l]
          /\ role[l] = "Leader"
          /\ ~MalformedFetch(m)
          \* "An endorsement from an existing voter may also be inferred through a
          \* received Fetch request with the new leader's epoch"
          /\ endorsers' = [endorsers EXCEPT ![l] = IF j \in VoterIds(l) \ {l} THEN @ \cup {j} ELSE @]
          /\ IF ValidFetch(log[l], m.fetchOffset, m.lastFetchedEpoch)
             THEN LET reo == [replicaEndOffset[l] EXCEPT ![j] = m.fetchOffset]
                      \* KIP-853: "The leaders will track the fetch offset for the
                      \* replica tuple (ID, UUID)."
                      rdi == [replicaDirectoryId[l] EXCEPT ![j] = m.sourceDirectoryId]
                      hw == AdvancedHighWatermark(l, reo, rdi)
                      base == [FetchResponseTo(m, "", currentEpoch[l], l) EXCEPT !.highWatermark = hw]
                  IN
                  \* 4. "If the request is from a voter not an observer, the leader
                  \* can possibly advance the high-watermark."
                  /\ replicaEndOffset' = [replicaEndOffset EXCEPT ![l] = reo]
                  /\ replicaDirectoryId' = [replicaDirectoryId EXCEPT ![l] = rdi]
                  /\ highWatermark' = [highWatermark EXCEPT ![l] = hw]
                  /\ committed' = committed \cup NewlyCommitted(l, hw)
                  \* the records from the fetch offset on, in a batch the leader may cap
                  /\ \/ /\ m.fetchOffset = Len(log[l])
                        /\ Send(base)
                     \/ \E k \in BatchEnds(log[l], m.fetchOffset) :
                          Send([base EXCEPT !.records = SubSeq(log[l], m.fetchOffset + 1, k)])
             \* 3. "If not, return a empty response (no records included in the
             \* response) and set the DivergingEpoch to the largest epoch which is
             \* less than fetcher's LastFetchedEpoch."  The spec takes the largest epoch
             \* AT MOST LastFetchedEpoch, with its end offset (as Kafka's leader does): when
             \* the leader holds LastFetchedEpoch but the fetch offset is beyond its end,
             \* the follower truncates to that end; when it does not hold it, that is the
             \* largest epoch less than LastFetchedEpoch, as the KIP says.
             ELSE /\ Send([FetchResponseTo(m, "", currentEpoch[l], l) EXCEPT
                             !.highWatermark = highWatermark[l],
                             !.divergingEpoch = LargestEpochAtMost(log[l], m.lastFetchedEpoch),
                             !.divergingEndOffset = EndOffsetForEpoch(log[l], m.lastFetchedEpoch)])
                  /\ UNCHANGED <<highWatermark, replicaEndOffset, replicaDirectoryId, committed>>
          /\ UNCHANGED <<serverVars, log, dirId, votesGranted, pendingVoterChange, elections, votes,
                         restarts, unflushed>>
    \* a voter's Fetch at a valid position counts for the leader's check-quorum
    /\ LET l == m.dest IN
       IF /\ TimedRules /= {}
          /\ ClusterIdAccepted(m) /\ m.epoch = currentEpoch[l] /\ role[l] = "Leader" /\ ~MalformedFetch(m)
          /\ ValidFetch(log[l], m.fetchOffset, m.lastFetchedEpoch)
          /\ <<m.source, m.sourceDirectoryId>> \in VoterKeys(l)
       THEN SetTimers(l, electionDeadline[l], endQuorum[l], [lastFetchTime[l] EXCEPT ![m.source] = now],
                      beginEpochDue[l])
       ELSE Timers(l)

\* FetchResponse Handling.
\* @type: ($msg) => Bool;
HandleFetchResponse(m) ==
    /\ m.type = "FetchResponse"
    /\ m.dest \in Replicas
    /\ OnTime(m.dest)
    /\ LET i == m.dest IN
       \* INVALID_CLUSTER_ID answers a misconfigured peer's request ("the broker will
       \* shutdown"); our replicas never send a foreign cluster id and ignore it.
       IF m.errorCode = "INVALID_CLUSTER_ID"
       THEN UNCHANGED <<serverVars, logVars, volatileVars, messages, historyVars>>
       \* 1. FENCED_LEADER_EPOCH: "check the leaderId from the response. If it is
       \* defined, then update the quorum-state file and become a follower"
       ELSE IF m.epoch > currentEpoch[i] \/ TeachesLeader(i, m)
       THEN /\ LearnFromResponse(i, m)
            /\ UNCHANGED <<logVars, messages, historyVars>>
       ELSE IF /\ m.errorCode = ""
               /\ m.epoch = currentEpoch[i]
               /\ role[i] = "Follower"
               /\ leaderId[i] = m.source
               \* a response to an older request of ours is stale
               /\ m.fetchOffset = Len(log[i])
               /\ m.lastFetchedEpoch = LastEpoch(log[i])
       THEN LET newLog ==
                  IF m.divergingEpoch /= Nil
                  THEN \* 2. "truncate from the log all of the offsets greater than or
                       \* equal to DivergingEpoch.EndOffset and truncate any offset
                       \* with an epoch greater than DivergingEpoch.EndOffset"
                       IF TruncateOnDivergence
                       THEN SubSeq(log[i], 1, Min(m.divergingEndOffset,
                                                  EndOffsetForEpoch(log[i], m.divergingEpoch)))
                       ELSE log[i]
                  ELSE log[i] \o m.records
                \* After a truncation the log is known to be a prefix of the leader's only
                \* if it is empty or ends in the diverging epoch (truncation may take
                \* several rounds); only then is the leader's high watermark taken.
                matched == \/ m.divergingEpoch = Nil
                           \/ ~TruncateOnDivergence
                           \/ newLog = <<>>
                           \/ LastEpoch(newLog) = m.divergingEpoch
            IN
            /\ log' = [log EXCEPT ![i] = newLog]
            /\ highWatermark' = [highWatermark EXCEPT ![i] =
                                   IF matched THEN Max(@, Min(m.highWatermark, Len(newLog))) ELSE @]
            \* Toggle "FetchRequest": the appended records are not flushed before the next
            \* Fetch acknowledges them (a truncation is durable at once).
            /\ unflushed' =
                 IF "FetchRequest" \in SendBeforePersist /\ Len(newLog) > Len(log[i])
                 THEN [unflushed EXCEPT ![i].logLen =
                         IF @ = Nil THEN Len(log[i]) ELSE Min(@, Len(log[i]))]
                 ELSE IF unflushed[i].logLen /= Nil /\ Len(newLog) < unflushed[i].logLen
                 THEN [unflushed EXCEPT ![i].logLen = Len(newLog)]
                 ELSE unflushed
            /\ UNCHANGED <<serverVars, dirId, volatileVars, messages, elections, votes, committed, restarts>>
       ELSE UNCHANGED <<serverVars, logVars, volatileVars, messages, historyVars>>
    \* a follower's successful Fetch restarts its fetch timeout
    /\ LET i == m.dest IN
       IF /\ TimedRules /= {}
          /\ m.errorCode /= "INVALID_CLUSTER_ID"
          /\ ~(m.epoch > currentEpoch[i] \/ TeachesLeader(i, m))
          /\ m.errorCode = "" /\ m.epoch = currentEpoch[i] /\ role[i] = "Follower" /\ leaderId[i] = m.source
          /\ m.fetchOffset = Len(log[i]) /\ m.lastFetchedEpoch = LastEpoch(log[i])
       THEN SetTimers(i, now + Timing.fetchTimeout, endQuorum[i], lastFetchTime[i], beginEpochDue[i])
       ELSE Timers(i)

-----------------------------------------------------------------------------
(* Voter changes (KIP-853): AddVoter, RemoveVoter, UpdateVoter *)

\* A voter-change request of type t to replica i about the replica key <<v, d>>, from
\* the admin client (source Nil).
\* @type: (Str, Int, Int, Int) => $msg;
VoterChangeRequest(t, i, v, d) ==
    [Message(t, Nil, i) EXCEPT !.clusterId = ClusterId, !.voterId = v, !.voterDirectoryId = d]

\* The admin client asks replica i to add replica v under its current key (the key
\* DescribeQuorum lists for the observer).
\* @type: (Int, Int) => Bool;
SendAddVoterRequest(i, v) ==
    /\ "AddVoterRequest" \in VoterChangeRequests
    /\ i \in Replicas /\ v \in Replicas
    /\ Send(VoterChangeRequest("AddVoterRequest", i, v, dirId[v]))
    /\ UNCHANGED <<serverVars, logVars, volatileVars, historyVars, timerVars>>

\* The replica keys the admin client may name to replica i (DescribeQuorum lists
\* the voters of i's set and the current key of every replica).
\* @type: (Int) => Set($key);
KnownKeys(i) == {<<v, dirId[v]>> : v \in Replicas} \cup VoterKeys(i)

\* Every directory id a replica or a voter set holds.
\* @type: Set(Int);
DirIdsInUse == {k[2] : k \in UNION {KnownKeys(r) : r \in Replicas}}

\* The admin client asks replica i to remove the replica key <<v, d>>.
\* @type: (Int, Int, Int) => Bool;
SendRemoveVoterRequest(i, v, d) ==
    /\ "RemoveVoterRequest" \in VoterChangeRequests
    /\ i \in Replicas /\ v \in Replicas
    /\ <<v, d>> \in KnownKeys(i)
    /\ Send(VoterChangeRequest("RemoveVoterRequest", i, v, d))
    /\ UNCHANGED <<serverVars, logVars, volatileVars, historyVars, timerVars>>

\* A voter asks its leader to update its registration (endpoints and supported
\* kraft.version: abstracted away, so the record repeats the voter set).
\* @type: (Int, Int) => Bool;
SendUpdateVoterRequest(i, j) ==
    /\ "UpdateVoterRequest" \in VoterChangeRequests
    /\ IsVoter(i)
    /\ role[i] = "Follower" /\ j = leaderId[i]
    /\ TimeoutOnTime(i)
    /\ Send([VoterChangeRequest("UpdateVoterRequest", j, i, dirId[i]) EXCEPT
               !.source = i, !.epoch = currentEpoch[i]])
    /\ UNCHANGED <<serverVars, logVars, volatileVars, historyVars, timerVars>>

\* Shipped KIP-853: the leader has committed an offset of its own epoch (its
\* leaderChange record at least), which fences the voter changes of older leaders.
\* @type: (Int) => Bool;
CommittedInOwnEpoch(l) == \E k \in 1..highWatermark[l] : log[l][k].epoch = currentEpoch[l]

\* A VotersRecord at or above the high watermark.
\* @type: (Int) => Bool;
HasUncommittedVoterChange(l) == LastVotersIndex(log[l]) > highWatermark[l]

\* "Wait for the fetch offset of the replica (ID, UUID) to catch up to the log end
\* offset of the leader."
\* @type: (Int, $key) => Bool;
CaughtUp(l, k) ==
    /\ replicaDirectoryId[l][k[1]] = k[2]
    /\ replicaEndOffset[l][k[1]] >= Len(log[l])

\* @type: (Str) => Str;
ResponseType(t) ==
    CASE t = "AddVoterRequest" -> "AddVoterResponse"
      [] t = "RemoveVoterRequest" -> "RemoveVoterResponse"
      [] OTHER -> "UpdateVoterResponse"

\* The answer of replica i to the voter-change request r.
\* @type: (Int, $msg, Str) => $msg;
VoterChangeResponse(i, r, err) ==
    [Response(ResponseType(r.type), i, r.source, err, currentEpoch[i], leaderId[i]) EXCEPT
        !.voterId = r.voterId, !.voterDirectoryId = r.voterDirectoryId]

\* The leader's handling of AddVoter / RemoveVoter / UpdateVoter, its checks in
\* order.  "For safety Kafka will only allow one voter change operation at a time";
\* the leader "will write a AddVoterRecord to the log and immediately update its
\* in-memory quorum state"; the response waits for the record to commit
\* (CompleteVoterChange).  Kafka holds a request that must wait and answers
\* REQUEST_TIMED_OUT at its deadline: the spec answers at once.
\* @type: ($msg) => Bool;
HandleVoterChangeRequest(m) ==
    /\ m.dest \in Replicas
    /\ OnTime(m.dest)
    /\ m.voterId \in Replicas
    /\ LET l == m.dest
           keys == VoterKeys(l)
           key == <<m.voterId, m.voterDirectoryId>>
           isAdd == m.type = "AddVoterRequest"
           error ==
               CASE ~ClusterIdAccepted(m) -> "INVALID_CLUSTER_ID"
                 [] role[l] /= "Leader" -> "NOT_LEADER_FOR_PARTITION"
                 [] KRaftVersion = 0 -> "UNSUPPORTED_VERSION"
                 [] ChangeRequiresCurrentEpochCommit /\ ~CommittedInOwnEpoch(l) -> "REQUEST_TIMED_OUT"
                 [] OneUncommittedChange /\ (HasUncommittedVoterChange(l) \/ pendingVoterChange[l] /= {})
                      -> "REQUEST_TIMED_OUT"
                 [] isAdd /\ m.voterId \in KeyIds(keys) -> "DUPLICATE_VOTER"
                 [] ~isAdd /\ key \notin keys -> "VOTER_NOT_FOUND"
                 [] isAdd /\ ~CaughtUp(l, key) -> "REQUEST_TIMED_OUT"
                 [] m.type = "RemoveVoterRequest" /\ keys = {key} -> "INVALID_REQUEST"
                 [] OTHER -> ""
           newKeys == CASE isAdd -> keys \cup {key}
                        [] m.type = "RemoveVoterRequest" -> keys \ {key}
                        [] OTHER -> keys
       IN
       IF error /= ""
       THEN /\ Send(VoterChangeResponse(l, m, error))
            /\ UNCHANGED <<serverVars, logVars, volatileVars, historyVars>>
       ELSE /\ log' = [log EXCEPT ![l] = Append(@, VotersRecord(currentEpoch[l], newKeys))]
            /\ pendingVoterChange' = [pendingVoterChange EXCEPT ![l] = @ \cup {m}]
            /\ UNCHANGED <<serverVars, highWatermark, dirId, votesGranted, endorsers, replicaEndOffset,
                           replicaDirectoryId, messages, historyVars>>
    \* a voter the leader adds is due a BeginQuorumEpoch at once; the check-quorum timer keeps
    \* the due time it had (Kafka computed it with the previous voter set) and the next check
    \* counts the new set (NextCheckQuorumDues)
    /\ LET l == m.dest IN
       IF TimedRules /= {} /\ log'[l] /= log[l]
       THEN SetTimers(l, electionDeadline[l], endQuorum[l], lastFetchTime[l],
                      IF m.type = "AddVoterRequest" THEN [beginEpochDue[l] EXCEPT ![m.voterId] = now]
                      ELSE beginEpochDue[l])
       ELSE Timers(l)

\* @type: ($msg) => Bool;
HandleAddVoterRequest(m) == m.type = "AddVoterRequest" /\ HandleVoterChangeRequest(m)

\* @type: ($msg) => Bool;
HandleRemoveVoterRequest(m) == m.type = "RemoveVoterRequest" /\ HandleVoterChangeRequest(m)

\* @type: ($msg) => Bool;
HandleUpdateVoterRequest(m) == m.type = "UpdateVoterRequest" /\ HandleVoterChangeRequest(m)

\* Like every response, an UpdateVoter response may teach a larger epoch or a leader.
\* @type: ($msg) => Bool;
HandleUpdateVoterResponse(m) ==
    /\ m.type = "UpdateVoterResponse"
    /\ m.dest \in Replicas
    /\ OnTime(m.dest)
    /\ LET i == m.dest IN
       IF m.errorCode /= "INVALID_CLUSTER_ID" /\ (m.epoch > currentEpoch[i] \/ TeachesLeader(i, m))
       THEN /\ LearnFromResponse(i, m)
            /\ UNCHANGED <<logVars, messages, historyVars>>
       ELSE UNCHANGED <<serverVars, logVars, volatileVars, messages, historyVars>>
    /\ Timers(m.dest)

\* "Once the AddVoterRecord operation has been committed by the majority of the new
\* voter set, the leader can respond to the AddVoter RPC and process new voter change
\* operations."  "If the removed voters is the leader, the leader will resign from
\* the quorum when the RemoveVoterRecord has been committed."
\* @type: (Int) => Bool;
CompleteVoterChange(i) ==
    /\ role[i] = "Leader"
    /\ OnTime(i)
    /\ pendingVoterChange[i] /= {}
    /\ ~HasUncommittedVoterChange(i)
    /\ LET answers == {VoterChangeResponse(i, r, "") : r \in pendingVoterChange[i]} IN
       IF IsVoter(i)
       THEN /\ messages' = messages \cup answers
            /\ pendingVoterChange' = [pendingVoterChange EXCEPT ![i] = {}]
            /\ UNCHANGED <<serverVars, logVars, votesGranted, endorsers, replicaEndOffset,
                           replicaDirectoryId, historyVars>>
       ELSE /\ messages' = messages \cup answers \cup EndQuorumEpochRequests(i)
            /\ role' = [role EXCEPT ![i] = "Resigned"]
            /\ endorsers' = [endorsers EXCEPT ![i] = {}]
            /\ ResetLeaderState(i)
            /\ UNCHANGED <<currentEpoch, votedId, leaderId, logVars, votesGranted, historyVars>>
    /\ Timers(i)

-----------------------------------------------------------------------------
(* The specification *)

\* The clock at 0; every replica starts unattached (election timeout armed).
TimersInit ==
    /\ now = 0
    /\ electionDeadline = [i \in Replicas |-> Timing.electionTimeout]
    /\ endQuorum = [i \in Replicas |-> NoEndQuorum]
    /\ lastFetchTime = [i \in Replicas |-> NoTimes]
    /\ checkQuorumDue = [i \in Replicas |-> Nil]
    /\ beginEpochDue = [i \in Replicas |-> NoTimes]

Init ==
    /\ currentEpoch = [i \in Replicas |-> 0]
    /\ votedId = [i \in Replicas |-> Nil]
    /\ leaderId = [i \in Replicas |-> Nil]
    /\ log = [i \in Replicas |-> <<>>]
    /\ role = [i \in Replicas |-> "Unattached"]
    /\ highWatermark = [i \in Replicas |-> 0]
    /\ votesGranted = [i \in Replicas |-> {}]
    /\ endorsers = [i \in Replicas |-> {}]
    /\ replicaEndOffset = [i \in Replicas |-> ZeroOffsets]
    /\ dirId = [i \in Replicas |-> InitialDirId]
    /\ replicaDirectoryId = [i \in Replicas |-> ZeroOffsets]
    /\ pendingVoterChange = [i \in Replicas |-> {}]
    /\ messages = {}
    /\ elections = {}
    /\ votes = {}
    /\ committed = {}
    /\ restarts = 0
    /\ unflushed = [i \in Replicas |-> NoUnflushed]
    /\ TimersInit

\* Delivery of one message (it stays in `messages`: duplicates are possible).
\* @type: ($msg) => Bool;
Receive(m) ==
    \/ HandleVoteRequest(m)
    \/ HandleVoteResponse(m)
    \/ HandleBeginQuorumEpochRequest(m)
    \/ HandleBeginQuorumEpochResponse(m)
    \/ HandleEndQuorumEpochRequest(m)
    \/ HandleEndQuorumEpochResponse(m)
    \/ HandleFetchRequest(m)
    \/ HandleFetchResponse(m)
    \/ HandleAddVoterRequest(m)
    \/ HandleRemoveVoterRequest(m)
    \/ HandleUpdateVoterRequest(m)
    \/ HandleUpdateVoterResponse(m)

\* Candidates, leaders and the replicas a leader addresses are those of voter sets
\* from the logs (any replica in a dynamic quorum; the actions check it).
Next ==
    \/ \E i \in Replicas : BecomeCandidate(i)
    \/ \E i, j \in Replicas : SendFetchRequest(i, j)
    \/ \E i, j \in Replicas : SendBeginQuorumEpoch(i, j)
    \/ \E i \in Replicas : Resign(i)
    \/ \E i \in Replicas : Shutdown(i)
    \/ \E i \in Replicas, v \in Values : ClientAppend(i, v)
    \/ \E i \in Replicas : AdvanceHighWatermark(i)
    \/ \E i \in Replicas : Restart(i)
    \/ \E i \in Replicas : Flush(i)
    \/ \E i \in Replicas : LoseDisk(i)
    \/ \E i, j \in Replicas, t \in ForeignRequests : SendForeignRequest(i, j, t)
    \/ \E i, v \in Replicas : SendAddVoterRequest(i, v)
    \/ \E i, v \in Replicas, d \in DirIdsInUse : SendRemoveVoterRequest(i, v, d)
    \/ \E i, j \in Replicas : SendUpdateVoterRequest(i, j)
    \/ \E i \in Replicas : CompleteVoterChange(i)
    \/ \E m \in messages : Receive(m)
    \/ \E time \in NextTick : AdvanceClock(time)

Spec == Init /\ [][Next]_vars

-----------------------------------------------------------------------------
(* Properties *)

\* The replicas that may ever be voters: Voters (static), any replica (dynamic).
PossibleVoters == IF KRaftVersion = 0 THEN Voters ELSE Replicas

\* The admin client's requests carry no epoch, and their answers go back to it (Nil).
AdminTypes == {"AddVoterRequest", "RemoveVoterRequest", "AddVoterResponse", "RemoveVoterResponse"}

\* A log entry's fields have their types (a record of a FetchResponse is one too).
\* @type: ($entry) => Bool;
EntryTyped(e) ==
    /\ e.epoch \in Nat \ {0}
    /\ e.kind \in {"data", "leaderChange", "voters"}
    /\ e.kind = "data" => e.value \in Values
    /\ e.kind = "leaderChange" => e.value \in PossibleVoters
    /\ e.kind = "voters" => KeyIds(e.voters) \subseteq Replicas
    /\ e.kind /= "voters" => e.voters = {}

TypeOK ==
    /\ DOMAIN currentEpoch = Replicas
    /\ \A i \in Replicas :
        /\ currentEpoch[i] \in Nat
        /\ votedId[i] \in PossibleVoters \cup {Nil}
        /\ leaderId[i] \in PossibleVoters \cup {Nil}
        /\ role[i] \in Roles
        /\ highWatermark[i] \in Nat
        /\ votesGranted[i] \subseteq PossibleVoters
        /\ endorsers[i] \subseteq PossibleVoters
        /\ DOMAIN replicaEndOffset[i] = Replicas
        /\ \A j \in Replicas : replicaEndOffset[i][j] \in Nat
        /\ \A j \in Replicas : replicaDirectoryId[i][j] \in Nat
        /\ dirId[i] \in Nat
        /\ \A k \in DOMAIN log[i] : EntryTyped(log[i][k])
        /\ role[i] \in {"Candidate", "Leader"} => i \in PossibleVoters
        /\ pendingVoterChange[i] /= {} => role[i] = "Leader"
    /\ \A m \in messages :
        /\ m.type \in MessageTypes
        /\ m.source \in Replicas \/ (m.source = Nil /\ m.type \in AdminTypes)
        /\ m.dest \in Replicas \/ (m.dest = Nil /\ m.type \in AdminTypes)
        /\ m.errorCode \in ErrorCodes
        /\ m.epoch \in Nat \/ m.type \in {"AddVoterRequest", "RemoveVoterRequest"}
    /\ restarts \in Nat
    /\ DOMAIN unflushed = Replicas
    /\ now \in Nat

\* Epochs of a log never decrease ("messages are unique by offset and epoch",
\* "monotonically increasing epoch").
LogEpochsSorted ==
    \A i \in Replicas : \A k \in DOMAIN log[i] :
        k > 1 => log[i][k - 1].epoch <= log[i][k].epoch

\* "For each epoch there will be only one leader which takes client requests for
\* new records."
ElectionSafety ==
    /\ \A p, q \in elections : p[1] = q[1] => p[2] = q[2]
    /\ \A i, j \in Replicas :
        (role[i] = "Leader" /\ role[j] = "Leader" /\ currentEpoch[i] = currentEpoch[j]) => i = j

\* "The Raft protocol does not allow voters to change their votes, so we have to
\* preserve this state across restarts" / "voters, including candidates, are not
\* allowed to change their vote once cast in a given epoch."
VoteOnce ==
    \A p, q \in votes : (p[1] = q[1] /\ p[2] = q[2]) => p[3] = q[3]

\* "Records are uniquely defined by their offset in the log and the epoch of the
\* leader that appended the record"; "the leader / replica log would never diverge
\* in the middle of the log while the log end index / term still agrees".
LogMatching ==
    \A i, j \in Replicas : \A k \in DOMAIN log[i] \cap DOMAIN log[j] :
        log[i][k].epoch = log[j][k].epoch => SubSeq(log[i], 1, k) = SubSeq(log[j], 1, k)

\* "The protocol is designed to guarantee that committed records are not lost":
\* an entry committed in epoch e is in the log of every leader of an epoch >= e.
LeaderCompleteness ==
    \A l \in Replicas : role[l] = "Leader" =>
        \A c \in committed : c[3] <= currentEpoch[l] =>
            /\ c[1] + 1 \in DOMAIN log[l]
            /\ log[l][c[1] + 1] = c[2]

\* Committed prefixes never disagree: one entry per committed offset, and every
\* entry below a replica's high watermark is that committed entry.
StateMachineSafety ==
    /\ \A c, d \in committed : c[1] = d[1] => c[2] = d[2]
    /\ \A i \in Replicas : \A k \in DOMAIN log[i] :
        k <= highWatermark[i] => \E c \in committed : c[1] = k - 1 /\ c[2] = log[i][k]

\* The high watermark never exceeds the log end offset.
HighWatermarkInLog ==
    \A i \in Replicas : highWatermark[i] <= Len(log[i])

\* A restart or an observer's disk loss happened in this step.
RestartStep == restarts' > restarts

\* Replica i lost its disk in this step (KIP-853: a voter too; it gets a new
\* directory id).  Never in a static quorum, where only observers lose disks.
\* @type: (Int) => Bool;
DiskLost(i) == dirId'[i] /= dirId[i]

\* Committed entries are never truncated from a log that holds them (an observer
\* losing its disk excepted).
CommittedNeverTruncated ==
    [][\A i \in Replicas : \A c \in committed :
          (c[1] + 1 \in DOMAIN log[i] /\ log[i][c[1] + 1] = c[2]) =>
              \/ c[1] + 1 \in DOMAIN (log'[i]) /\ log'[i][c[1] + 1] = c[2]
              \/ i \in Observers /\ RestartStep
              \/ DiskLost(i)]_vars

\* "the high watermark ... is the largest offset which is replicated to a majority":
\* a replica's known high watermark never decreases, except across its restart.
HighWatermarkMonotonic ==
    [][\A i \in Replicas : highWatermark'[i] >= highWatermark[i] \/ RestartStep]_vars

\* "Leader Epoch: ... a monotonically increasing sequence" (an observer losing its
\* disk starts over).
EpochMonotonic ==
    [][\A i \in Replicas : currentEpoch'[i] >= currentEpoch[i] \/ (i \in Observers /\ RestartStep)
                          \/ DiskLost(i)]_vars

\* "so long as it doesn't conflict with previous knowledge": once a replica knows the
\* leader of its epoch, it keeps it for that epoch.
KnownLeaderStable ==
    [][\A i \in Replicas :
          (currentEpoch'[i] = currentEpoch[i] /\ leaderId[i] /= Nil) =>
              (leaderId'[i] = leaderId[i] \/ (i \in Observers /\ RestartStep) \/ DiskLost(i))]_vars

\* All state invariants, for the inductive-invariant module and quick checks.
Safety ==
    /\ TypeOK
    /\ LogEpochsSorted
    /\ ElectionSafety
    /\ VoteOnce
    /\ LogMatching
    /\ LeaderCompleteness
    /\ StateMachineSafety
    /\ HighWatermarkInLog

-----------------------------------------------------------------------------
(* Reconfiguration rules (KIP-853), one per KIP sentence.  Not implied: the   *)
(* latest voter sets of two logs need NOT have intersecting majorities (an     *)
(* uncommitted removal on a crashed leader, then another removal by the next   *)
(* leader), so no such property is stated.                                     *)

\* "The voter set is data in the log": a candidate is a voter of its own log's set
\* and has counted only grants from that set.
VoterSetFromLog ==
    \A i \in Replicas : role[i] = "Candidate" => IsVoter(i) /\ votesGranted[i] \subseteq VoterIds(i)

\* "Kafka will only allow one voter change operation at a time": a leader's log holds
\* at most one uncommitted VotersRecord.
OneUncommittedVoterChange ==
    \A l \in Replicas : role[l] = "Leader" =>
        Cardinality({k \in DOMAIN log[l] : k > highWatermark[l] /\ log[l][k].kind = "voters"}) <= 1

\* A VotersRecord of epoch e follows a committed entry of epoch e (the leader of e
\* committed an offset in its own epoch before it appended the change).
VoterChangeAfterEpochCommit ==
    \A i \in Replicas : \A k \in DOMAIN log[i] :
        log[i][k].kind = "voters" =>
            \E c \in committed : c[1] < k - 1 /\ c[2].epoch = log[i][k].epoch

\* Consecutive voter sets of a log differ by at most one replica key (UpdateVoter
\* repeats the set): each VotersRecord's set and the one in force before it (the
\* previous VotersRecord's, else the bootstrap set).
VoterSetsDifferByOne ==
    \A i \in Replicas : \A k \in DOMAIN log[i] :
        log[i][k].kind = "voters" =>
            LET before == VoterSetOf(SubSeq(log[i], 1, k - 1))
                after == log[i][k].voters
            IN Cardinality((before \ after) \cup (after \ before)) <= 1

\* A candidate wins only by a majority of its own voter set (the votes recorded
\* for it in its epoch, from ids of that set).
LeaderElectedByOwnMajority ==
    [][\A i \in Replicas :
          (role'[i] = "Leader" /\ role[i] /= "Leader") =>
              IsMajorityOf({v \in VoterIds(i) : <<v, currentEpoch'[i], i>> \in votes'}, VoterKeys(i))]_vars

\* The high watermark a leader sets is reached by a majority of its own voter set
\* (the fetch offsets it holds for their keys, its own log end if it is a voter).
HighWatermarkByOwnMajority ==
    [][\A l \in Replicas :
          (role[l] = "Leader" /\ role'[l] = "Leader" /\ highWatermark'[l] > highWatermark[l]) =>
              LET keys == VoterKeys(l)
                  Reached(k) ==
                      IF k = <<l, dirId[l]>> THEN Len(log'[l]) >= highWatermark'[l]
                      ELSE /\ k[1] /= l
                           /\ replicaDirectoryId'[l][k[1]] = k[2]
                           /\ replicaEndOffset'[l][k[1]] >= highWatermark'[l]
              IN 2 * Cardinality({k \in keys : Reached(k)}) > Cardinality(keys)]_vars

\* The reconfiguration rules that are state invariants.
ReconfigSafety ==
    /\ VoterSetFromLog
    /\ OneUncommittedVoterChange
    /\ VoterChangeAfterEpochCommit
    /\ VoterSetsDifferByOne

=============================================================================
