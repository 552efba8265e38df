------------------------------ MODULE KRaftIndInv ------------------------------
(***************************************************************************)
(* A candidate inductive invariant of KRaft for auditors: IndInv strengthens *)
(* the safety properties with the lemmas a proof by induction needs (who    *)
(* voted, who was elected, where committed entries live, what messages      *)
(* may say).  IndInv => Safety holds by construction (it is a conjunct).    *)
(*                                                                         *)
(* Apalache's three-run recipe (MC_KRaftIndInv.tla generates IndInit):      *)
(*   Init => IndInv                 check --init=Init    --inv=IndInv --length=0 *)
(*   IndInv /\ Next => IndInv'      check --init=IndInit --inv=IndInv --length=1 *)
(*   IndInv => Safety               check --init=IndInit --inv=Safety --length=0 *)
(* Our engine checks IndInv on every reachable state of the small model.    *)
(*                                                                         *)
(* Lemmas about voters count majorities of voter sets read from the logs    *)
(* (KIP-853); in a static quorum those are all Voters, as in KIP-595.        *)
(*                                                                         *)
(* The lemmas below hold for the KIP configuration; a misconfigured peer    *)
(* that shares the cluster id (ForeignClusterId = ClusterId) breaks the     *)
(* ones about leaders known from BeginQuorumEpoch, so they are stated only  *)
(* for a foreign cluster id.                                                *)
(***************************************************************************)
EXTENDS KRaft

\* Is entry c = <<offset, entry, epoch>> at its offset in lg?
\* @type: (<<Int, $entry, Int>>, Seq($entry)) => Bool;
Holds(c, lg) == c[1] + 1 \in DOMAIN lg /\ lg[c[1] + 1] = c[2]

\* Candidates, leaders, elections and votes are of an epoch some replica started: BecomeCandidate
\* moves on from epoch 0 (so a leader's records have an epoch of Nat \ {0}).
CampaignEpochsPositive ==
    /\ \A i \in Replicas : role[i] \in {"Candidate", "Leader"} => currentEpoch[i] > 0
    /\ \A p \in elections : p[1] > 0
    /\ \A p \in votes : p[2] > 0

\* A replica that kept its disk is in the epoch of every election it won and of every
\* vote cast for it, or a later one (it asked for the vote in that epoch; the epoch is
\* durable and only a disk loss resets it).
EpochsNotAhead ==
    /\ \A p \in elections : OriginalDisk(p[2]) => p[1] <= currentEpoch[p[2]]
    /\ \A p \in votes : OriginalDisk(p[3]) => p[2] <= currentEpoch[p[3]]

\* A candidate has not won the epoch it campaigns in: it won no election of a later epoch
\* than the one it is in (EpochsNotAhead) and left that epoch to stand (without it, a
\* state where candidate 3 of epoch 1 already won epoch 1 lets it win again and append a
\* second, different leaderChange record at the offset of the first).
CandidatesNotElected ==
    \A i \in Replicas : role[i] = "Candidate" => <<currentEpoch[i], i>> \notin elections

\* Does some election of epoch e exist?
\* @type: (Int) => Bool;
Elected(e) == \E p \in elections : p[1] = e

\* Every entry of a log is of an epoch that elected a leader, no later than its
\* holder's epoch; a leaderChange entry names that leader and is the first entry of its
\* epoch (the leader writes it on winning, when its log ends in an earlier epoch); voter
\* sets only in a dynamic quorum.
EntriesFromElectedLeaders ==
    \A i \in Replicas : \A k \in DOMAIN log[i] :
        /\ log[i][k].epoch <= currentEpoch[i]
        /\ Elected(log[i][k].epoch)
        /\ log[i][k].kind = "leaderChange" => <<log[i][k].epoch, log[i][k].value>> \in elections
        /\ log[i][k].kind = "leaderChange" /\ k > 1 => log[i][k - 1].epoch < log[i][k].epoch
        /\ log[i][k].kind = "voters" => KRaftVersion > 0

\* A leaderChange record sits at one offset wherever it is: its leader wrote it once, at
\* the end of its log, and followers copy records to the offsets the leader's log gives
\* them, as do the FetchResponses that carry it.  (Without it, follower 1 holds leader 3's
\* record of epoch 1 at offset 0 while 3 holds it at offset 1, and a fetch at offset 1 of
\* epoch 1 is valid in 3's log, although 3's entry there is of another epoch.)
LeaderChangeRecordsAligned ==
    /\ \A i, j \in Replicas : \A k \in DOMAIN log[i] : \A q \in DOMAIN log[j] :
           (log[i][k].kind = "leaderChange" /\ log[i][k] = log[j][q]) => k = q
    /\ \A m \in messages : \A j \in Replicas : \A q \in DOMAIN log[j] :
           (m.type = "FetchResponse" /\ m.errorCode = "") =>
               \A k \in DOMAIN m.records :
                   (m.records[k].kind = "leaderChange" /\ m.records[k] = log[j][q]) => q = m.fetchOffset + k
    /\ \A m1, m2 \in messages :
           (/\ m1.type = "FetchResponse" /\ m1.errorCode = ""
            /\ m2.type = "FetchResponse" /\ m2.errorCode = "") =>
               \A k1 \in DOMAIN m1.records : \A k2 \in DOMAIN m2.records :
                   (m1.records[k1].kind = "leaderChange" /\ m1.records[k1] = m2.records[k2]) =>
                       m1.fetchOffset + k1 = m2.fetchOffset + k2

\* The replica ids whose votes for candidate l in epoch e are recorded.
\* @type: (Int, Int) => Set(Int);
VotesFor(e, l) == {v \in Replicas : <<v, e, l>> \in votes}

\* An election was won with the votes of a majority, recorded in `votes`: a majority of
\* the voter set of the winner's log when it won, which is the prefix before its
\* leaderChange record wherever that record is (KIP-853), and in a static quorum a
\* majority of Voters for every election (its leaderChange record may be truncated).
ElectionsByMajority ==
    /\ KRaftVersion = 0 => \A p \in elections : IsMajority(VotesFor(p[1], p[2]))
    /\ \A i \in Replicas : \A k \in DOMAIN log[i] :
        log[i][k].kind = "leaderChange" =>
            IsMajorityOf(VotesFor(log[i][k].epoch, log[i][k].value), VoterSetOf(SubSeq(log[i], 1, k - 1)))

\* A replica that still has the disk it was formatted with (always, in a static quorum).
\* @type: (Int) => Bool;
OriginalDisk(i) == dirId[i] = InitialDirId

\* Directory ids only grow from the formatted one, on a disk loss of a dynamic quorum; a
\* static quorum never changes them. (Without it, a state where a voter of a static quorum
\* has another directory id escapes VotesConsistent, and that voter votes twice.)
DirIdsFormatted ==
    \A i \in Replicas : IF KRaftVersion = 0 THEN dirId[i] = InitialDirId ELSE dirId[i] >= InitialDirId

\* Votes are cast by replicas that may be voters, in the voter's past or present epoch,
\* and the durable vote of the current epoch is the recorded one (a disk loss forgets
\* both, so these hold for the replicas that kept their disk).
VotesConsistent ==
    /\ \A p \in votes : p[1] \in PossibleVoters /\ p[3] \in PossibleVoters
    /\ \A p \in votes : OriginalDisk(p[1]) => p[2] <= currentEpoch[p[1]]
    /\ \A i \in Replicas : votedId[i] /= Nil => <<i, currentEpoch[i], votedId[i]>> \in votes
    /\ \A p \in votes : (DurableVote /\ OriginalDisk(p[1]) /\ p[2] = currentEpoch[p[1]]) => votedId[p[1]] = p[3]

\* A granted VoteResponse reports a recorded vote; a candidate counts only those.
GrantsRecorded ==
    /\ \A m \in messages :
        (m.type = "VoteResponse" /\ m.voteGranted) => <<m.source, m.epoch, m.dest>> \in votes
    /\ \A i \in Replicas : role[i] = "Candidate" =>
        /\ votedId[i] = i
        /\ \A v \in votesGranted[i] : <<v, currentEpoch[i], i>> \in votes

\* A leader won its epoch, knows itself as leader and its log ends in that epoch; a
\* follower follows another replica (a replica that restarts as its own leader resigns).
\* (Without the second, a state where follower 2 follows itself and answers its own Fetch
\* with a divergence truncates a committed entry.)
LeadersElected ==
    /\ \A i \in Replicas : role[i] = "Leader" =>
        /\ <<currentEpoch[i], i>> \in elections
        /\ leaderId[i] = i
        /\ LastEpoch(log[i]) = currentEpoch[i]
    /\ \A i \in Replicas : role[i] = "Follower" => leaderId[i] \notin {Nil, i}

\* The leader of an epoch holds every entry of its epoch, with the prefix before it.
EpochEntriesAtLeader ==
    \A l \in Replicas : role[l] = "Leader" =>
        \A i \in Replicas : \A k \in DOMAIN log[i] :
            log[i][k].epoch = currentEpoch[l] =>
                k \in DOMAIN log[l] /\ SubSeq(log[i], 1, k) = SubSeq(log[l], 1, k)

\* Known leaders, BeginQuorumEpoch senders and the leaders messages name (responses,
\* EndQuorumEpoch) are elected leaders of the epoch they go with.
LeadersKnownAreElected ==
    ForeignClusterId /= ClusterId =>
        /\ \A i \in Replicas : leaderId[i] /= Nil => <<currentEpoch[i], leaderId[i]>> \in elections
        /\ \A m \in messages :
            /\ (m.type = "BeginQuorumEpochRequest" /\ m.clusterId /= ForeignClusterId) => <<m.epoch, m.source>> \in elections
            /\ m.leaderId /= Nil => <<m.epoch, m.leaderId>> \in elections

\* Voter key k holds entry c, or can never again vote or acknowledge: its replica lost
\* the disk of that key.
\* @type: (<<Int, $entry, Int>>, $key) => Bool;
KeyHolds(c, k) == dirId[k[1]] /= k[2] \/ Holds(c, log[k[1]])

\* A committed entry stays on a majority of voters: of Voters in a static quorum; in a
\* dynamic one, every majority of the voter set of a leader of its commit epoch or a later
\* one meets a key that holds it (not of every replica's set: a replica that missed its own
\* removal keeps an older one). "Meets" and not "is held by a majority": a leader that
\* removes itself from {1, 3, 4}, where 1 and 3 hold an entry, leads {3, 4}, where only 3
\* holds it until 4 fetches; every majority of {3, 4} still contains 3.
CommittedOnMajority ==
    /\ KRaftVersion = 0 => \A c \in committed : IsMajority({v \in Voters : Holds(c, log[v])})
    /\ \A c \in committed : \A l \in Replicas :
        (role[l] = "Leader" /\ c[3] <= currentEpoch[l]) =>
            LET keys == VoterKeys(l) IN 2 * Cardinality({k \in keys : ~KeyHolds(c, k)}) <= Cardinality(keys)

\* A replica that lacks a committed entry cannot gather a majority of its own voter set:
\* every majority of that set meets a key that refuses it, because that replica lost the
\* disk of that key or its log is more up-to-date (vote rule 4.b) and it has not already
\* granted its vote to it as the candidate of an epoch where the entry matters (its commit
\* epoch or a later one).  In a dynamic quorum this is what bounds a candidate whose log
\* holds an older voter set (a one-voter set wins at once); the blockers hold the commit
\* epoch's entry.
CommittedBlocksElection ==
    \A c \in committed : \A i \in Replicas :
        ~Holds(c, log[i]) =>
            LET keys == VoterKeys(i)
                Blocks(k) ==
                    \/ dirId[k[1]] /= k[2]
                    \/ /\ ~UpToDate(LastEpoch(log[i]), Len(log[i]), log[k[1]])
                       /\ (role[i] = "Candidate" /\ c[3] <= currentEpoch[i]) =>
                              <<k[1], currentEpoch[i], i>> \notin votes
            IN 2 * Cardinality({k \in keys : ~Blocks(k)}) <= Cardinality(keys)

\* No replica sends a message to itself: requests go to other replicas (a foreign request
\* too) and responses to the request's sender.  (Without it, a replica that won epoch 1 and
\* restarted handles its own BeginQuorumEpochRequest and follows itself.)
MessagesToOthers == \A m \in messages : m.source /= m.dest

\* The cluster's VoteRequests are sent by possible voters in an epoch they started
\* (BecomeCandidate moves on from epoch 0), with a directory id their sender had (ids only
\* grow).  (A misconfigured peer's requests, with the foreign cluster id, are not our
\* replicas'.  Without the epoch, a VoteRequest of epoch 0 reaches a replica of epoch 0,
\* which records a vote in epoch 0; without the sender, a VoteRequest of observer 4
\* outlives the epoch 4 forgets when it loses its disk, keeping directory id 0 in a static
\* quorum, and breaks VoteRequestsDescribeCandidate; without the directory id, a request
\* of candidate 3 naming directory id -1 escapes VoteRequestsDescribeCandidate with an
\* epoch 3 never reached, and the vote for it breaks EpochsNotAhead.)
VoteRequestsFromCandidates ==
    \A m \in messages :
        (m.type = "VoteRequest" /\ m.clusterId /= ForeignClusterId) =>
            /\ m.source \in PossibleVoters
            /\ m.epoch > 0
            /\ InitialDirId <= m.sourceDirectoryId /\ m.sourceDirectoryId <= dirId[m.source]

\* A replica's VoteRequests are of its current epoch or an earlier one (while it keeps
\* its disk), and a candidate's log does not change while it campaigns: its VoteRequests
\* of the current epoch describe its log as it is.  (A misconfigured peer's requests,
\* with the foreign cluster id, are not our replicas'.)
VoteRequestsDescribeCandidate ==
    \A m \in messages :
        (/\ m.type = "VoteRequest"
         /\ m.clusterId /= ForeignClusterId
         /\ m.sourceDirectoryId = dirId[m.source]) =>
            /\ m.epoch <= currentEpoch[m.source]
            /\ (role[m.source] = "Candidate" /\ currentEpoch[m.source] = m.epoch) =>
                   /\ m.lastOffsetEpoch = LastEpoch(log[m.source])
                   /\ m.lastOffset = Len(log[m.source])

\* One voter change at a time (KIP-853): a VotersRecord followed by another in a log was
\* committed before the leader appended the next one.
VoterChangesCommittedInTurn ==
    \A i \in Replicas : \A k1, k2 \in DOMAIN log[i] :
        (k1 < k2 /\ log[i][k1].kind = "voters" /\ log[i][k2].kind = "voters") =>
            \E c \in committed : c[1] = k1 - 1 /\ c[2] = log[i][k1]

\* A leader records fetch offsets its log holds (ValidFetch: at most the end of the fetched
\* epoch; the records start at 0 when it is elected and its log only grows while it leads).
LeaderRecordsWithinLog ==
    \A l, j \in Replicas : role[l] = "Leader" => replicaEndOffset[l][j] <= Len(log[l])

\* In a static quorum of two or more voters a leader's high watermark is the one its records
\* give: it moves with the records (HandleFetchRequest), and the leader's own appends never
\* move it, since the majority's offset is another voter's record, at most the log's length
\* before the append (LeaderRecordsWithinLog).  So AdvanceHighWatermark, for a single voter
\* or a voter set the leader appended, is never enabled there.  (Without it, a leader whose
\* record of voter 3 is beyond what 3 holds, 3 having moved to a later epoch, commits its
\* leaderChange record on itself alone.)
HighWatermarksCurrent ==
    (KRaftVersion = 0 /\ Cardinality(Voters) > 1) =>
        \A l \in Replicas : role[l] = "Leader" =>
            AdvancedHighWatermark(l, replicaEndOffset[l], replicaDirectoryId[l]) = highWatermark[l]

\* A leader's record of a replica's fetch offset beyond 0 (for the directory id it still
\* has) comes from a fetch the replica sent in the leader's epoch, so the replica is in that
\* epoch or a later one; while it is in that epoch, the record is a prefix of both logs:
\* the replica's log started with the leader's up to that offset when it fetched, and in
\* that epoch the replica's log only grows from a valid position (only the leader changes
\* it) and the leader's only grows.  In a static quorum for voters only, as in
\* FetchOffsetsHeld.  (Without the prefix, leader 2 of epoch 2 records voter 3 at offset 1
\* while 3, in epoch 2, holds an empty log; a fetch of voter 1 commits the entry at offset 0
\* on 1 and 2, and the record of 3 breaks FetchOffsetsHeld.  Without the epoch, voter 1 of
\* epoch 1 with an empty log learns epoch 2 from a response, and the record of leader 2 of
\* epoch 2 at offset 1 applies to it.)
RecordedOffsetsHeld ==
    \A l, j \in Replicas :
        (/\ role[l] = "Leader"
         /\ KRaftVersion > 0 \/ j \in Voters
         /\ replicaDirectoryId[l][j] = dirId[j]
         /\ replicaEndOffset[l][j] > 0) =>
            /\ currentEpoch[j] >= currentEpoch[l]
            /\ currentEpoch[j] = currentEpoch[l] =>
                   /\ replicaEndOffset[l][j] <= Len(log[j])
                   /\ SubSeq(log[j], 1, replicaEndOffset[l][j]) = SubSeq(log[l], 1, replicaEndOffset[l][j])

\* A leader's record of a replica's fetch offset (for the directory id it still has)
\* is a lower bound of what that replica holds of the entries committed up to the
\* leader's epoch: KIP-853's catch-up check (AddVoter) relies on it.  In a static
\* quorum only voters: an observer that lost its disk keeps directory id 0, so the
\* leader's record of it outlives the log it described (and no AddVoter reads it).
FetchOffsetsHeld ==
    \A l, j \in Replicas : \A c \in committed :
        (/\ role[l] = "Leader"
         /\ KRaftVersion > 0 \/ j \in Voters
         /\ replicaDirectoryId[l][j] = dirId[j]
         /\ c[3] <= currentEpoch[l]
         /\ c[1] < replicaEndOffset[l][j]) => Holds(c, log[j])

\* Would replica l, leading the epoch of message m, take m as a FetchRequest of its
\* sender's progress?  A request of this cluster (not a misconfigured peer's, which the
\* leader refuses) from a replica it counts (in a static quorum, a voter: an observer that
\* lost its disk keeps its id 0), naming the sender's directory id, at a position valid in
\* l's log.
\* @type: ($msg, Int) => Bool;
FetchCountedBy(m, l) ==
    /\ m.type = "FetchRequest" /\ m.clusterId /= ForeignClusterId
    /\ role[l] = "Leader"
    /\ currentEpoch[l] = m.epoch
    /\ KRaftVersion > 0 \/ m.source \in Voters
    /\ m.sourceDirectoryId = dirId[m.source]
    /\ m.fetchOffset >= 0 /\ m.lastFetchedEpoch >= 0
    /\ ValidFetch(log[l], m.fetchOffset, m.lastFetchedEpoch)

\* Is entry en the leaderChange record of election p = <<epoch, winner>>?
\* @type: ($entry, <<Int, Int>>) => Bool;
ElectionRecord(en, p) == en.kind = "leaderChange" /\ en.epoch = p[1] /\ en.value = p[2]

\* A FetchRequest in flight that the leader of its epoch would accept (its position is
\* valid in the leader's log) speaks for its sender while the sender stays in that epoch
\* on the disk it fetched with: the sender's log starts with the leader's log up to the
\* fetch offset (the leader takes that offset as the sender's progress, FetchOffsetsHeld).
FetchRequestsHeld ==
    \A m \in messages : \A l \in Replicas :
        (FetchCountedBy(m, l) /\ currentEpoch[m.source] = m.epoch) =>
            /\ m.fetchOffset <= Len(log[m.source])
            /\ SubSeq(log[m.source], 1, m.fetchOffset) = SubSeq(log[l], 1, m.fetchOffset)

\* Does some log hold the leaderChange record of election p after the first n entries of
\* log lg?  (Its winner's log, as it won, started with them.)
\* @type: (<<Int, Int>>, Int, Seq($entry)) => Bool;
WonOver(p, n, lg) ==
    \E i \in Replicas : \E q \in DOMAIN log[i] :
        /\ ElectionRecord(log[i][q], p)
        /\ q > n
        /\ SubSeq(log[i], 1, n) = SubSeq(lg, 1, n)

\* FetchRequestsHeld still holds once the sender has moved on to a later epoch, as long as
\* every epoch after the request's, up to the sender's, that elected another leader elected
\* one whose log started with the fetched prefix of the leader's log: only a leader of its
\* epoch changes a replica's log (its divergence, or its own leaderChange record), a leader
\* whose log holds the prefix never truncates it (epochs grow along a log), a sender that
\* won such an epoch itself only appended to its log, and a leader of the request's epoch
\* still counts the request as the sender's progress.
\* (Without it, voter 2 fetched leader 1's leaderChange record at offset 1 in epoch 1, moved
\* to epoch 2, which elected nobody, with an empty log; 1 takes the stale request as 2's
\* progress, commits the record on 1 and 2, and CommittedOnMajority breaks.  Without the
\* sender's own elections, 2 fetched that record in epoch 1 and won epoch 2 with a log
\* that starts with its own leaderChange record instead; 1 commits its record of epoch 1
\* on 1 and 2, at the offset where 2's record of epoch 2 is committed.  Without the
\* elections won over the prefix, voter 3 fetched that record in epoch 1, voted for 2 in
\* epoch 2, which won with a log that starts with it, and holds an empty log; 1 commits its
\* record on 1 and 3, and FetchOffsetsHeld breaks.)
FetchRequestsHeldAcrossEpochs ==
    \A m \in messages : \A l \in Replicas :
        (/\ FetchCountedBy(m, l)
         /\ currentEpoch[m.source] > m.epoch
         /\ \A p \in elections :
                (m.epoch < p[1] /\ p[1] <= currentEpoch[m.source] /\ p[2] /= m.source) =>
                    WonOver(p, m.fetchOffset, log[l])) =>
            /\ m.fetchOffset <= Len(log[m.source])
            /\ SubSeq(log[m.source], 1, m.fetchOffset) = SubSeq(log[l], 1, m.fetchOffset)

\* The winner of an election holds its leaderChange record while it stays in that epoch on
\* its disk: it wrote the record on winning, and only a leader of its epoch (itself, which
\* only appends) changes its log there.  Not with a crash between the two writes, which
\* loses the record, nor with writes that may be pending at a crash (SendBeforePersist).
\* (Without it, leader 3 of epoch 2 has an empty log, and FetchRequestsBelowLaterVotes
\* finds no record to bound a stale request of its voter.)
WinnersHoldTheirRecords ==
    (SendBeforePersist = {} /\ ~CrashBetweenWrites) =>
        \A p \in elections :
            (currentEpoch[p[2]] = p[1] /\ OriginalDisk(p[2])) =>
                \E q \in DOMAIN log[p[2]] : ElectionRecord(log[p[2]][q], p)

\* A FetchRequest that the leader of its epoch would take as its sender's progress (as in
\* FetchRequestsHeld) speaks for the committed entries below its fetch offset, whatever its
\* sender did since: the sender held the leader's log up to that offset when it sent the
\* request, the leader holds every entry committed up to its epoch (LeaderCompleteness),
\* and a committed entry is never truncated.  It is what FetchOffsetsHeld needs once the
\* leader records the request's offset.  (Without it, voter 3 fetched leader 1's
\* committed record at offset 1 in epoch 1, voted for 2 in epoch 2 and holds an empty
\* log; 1 takes the stale request as 3's progress, and its record of 3 is beyond what 3
\* holds.)
FetchRequestsHoldCommitted ==
    \A m \in messages : \A l \in Replicas : \A c \in committed :
        (FetchCountedBy(m, l) /\ c[3] <= m.epoch /\ c[1] < m.fetchOffset) => Holds(c, log[m.source])

\* A FetchRequest that the leader of its epoch would still take as its sender's progress
\* (as in FetchRequestsHeldAcrossEpochs) is no more up-to-date than the log of a replica
\* its sender voted for in the first later epoch that elected someone, or in a later epoch
\* when none did: up to that vote the sender's log only grew from the fetched position (the
\* leader of the request's epoch only appends to a valid position, and no other leader
\* touched it), and the vote rule (4.b) asked the candidate's log to be at least as
\* up-to-date.  For a candidate that is its log as it campaigns; for a winner, the prefix
\* before its leaderChange record, wherever a log holds it.  (Without it, voter 1 fetched
\* leader 3's leaderChange record at offset 1 in epoch 1, then voted in epoch 2 for 2,
\* which won with an empty log and committed its own record at offset 0; 3 takes the stale
\* request as 1's progress and commits its record of epoch 1 at that offset.)
FetchRequestsBelowLaterVotes ==
    \A m \in messages : \A l \in Replicas :
        FetchCountedBy(m, l) =>
            /\ \A c \in Replicas :
                   (/\ role[c] = "Candidate"
                    /\ currentEpoch[c] > m.epoch
                    /\ <<m.source, currentEpoch[c], c>> \in votes
                    /\ ~\E r \in elections : m.epoch < r[1] /\ r[1] < currentEpoch[c]) =>
                       PositionAtLeast(LastEpoch(log[c]), Len(log[c]), m.lastFetchedEpoch, m.fetchOffset)
            /\ \A p \in elections : \A i \in Replicas : \A q \in DOMAIN log[i] :
                   (/\ p[1] > m.epoch
                    /\ <<m.source, p[1], p[2]>> \in votes
                    /\ ~\E r \in elections : m.epoch < r[1] /\ r[1] < p[1]
                    /\ ElectionRecord(log[i][q], p)) =>
                       PositionAtLeast(IF q = 1 THEN 0 ELSE log[i][q - 1].epoch, q - 1,
                                       m.lastFetchedEpoch, m.fetchOffset)

\* A replica's FetchRequest names a position of its log and its directory id (the leader
\* records both as the sender's progress: replicaEndOffset, replicaDirectoryId), and is of
\* its sender's epoch or an earlier one while the sender keeps that disk (in a static quorum
\* for voters only: an observer that lost its disk keeps its id 0 and restarts in epoch 0).
\* (Without the last, a replica that learns epoch 1 from a response finds a FetchRequest of
\* epoch 1 it never sent, at an offset beyond its log, and breaks FetchRequestsHeld.)  Its
\* last fetched epoch is 0 exactly at offset 0: no entry is of epoch 0.  (Without that, a
\* Fetch at offset 0 naming epoch 1 is a valid position in a leader's log of epoch 1, and
\* the answer starts with a leaderChange record of the last fetched epoch, which breaks
\* FetchResponseRecordsWellFormed.)
\* Its directory id is one its sender had (ids only grow from the formatted one).  (Without
\* that, a request of epoch 2 from voter 2 of epoch 1 names directory id 1, escapes the epoch
\* bound, and its answer reaches 2 in an epoch it has not reached.)
FetchRequestsWellFormed ==
    \A m \in messages :
        (m.type = "FetchRequest" /\ m.clusterId /= ForeignClusterId) =>
            /\ m.fetchOffset >= 0
            /\ m.lastFetchedEpoch >= 0
            /\ (m.fetchOffset = 0) = (m.lastFetchedEpoch = 0)
            /\ InitialDirId <= m.sourceDirectoryId /\ m.sourceDirectoryId <= dirId[m.source]
            /\ (m.sourceDirectoryId = dirId[m.source] /\ (KRaftVersion > 0 \/ m.source \in Voters)) =>
                   m.epoch <= currentEpoch[m.source]

\* A FetchRequest's position that the leader of its epoch finds valid names the epoch of
\* the leader's entry at that position: the sender's entry there is of the last fetched
\* epoch, and the entries of an epoch are the same, at the same offsets, in every log that
\* holds them (they come from that epoch's leader, after its leaderChange record).
\* (Without it, a response to a fetch at offset 1 of epoch 1 claims a high watermark over
\* the leader's entry of epoch 2 there.)
FetchRequestsMatchLeaderEpochs ==
    \A m \in messages : \A l \in Replicas :
        (/\ m.type = "FetchRequest" /\ m.clusterId /= ForeignClusterId
         /\ role[l] = "Leader"
         /\ currentEpoch[l] = m.epoch
         /\ m.fetchOffset > 0
         /\ ValidFetch(log[l], m.fetchOffset, m.lastFetchedEpoch)) =>
            log[l][m.fetchOffset].epoch = m.lastFetchedEpoch

\* In a static quorum a voter fetches only from the leader it follows: a FetchRequest of the
\* cluster from a voter goes to an elected leader of its epoch.  (Without it, a FetchRequest
\* of epoch 1 from a voter with an empty log, at offset 1 of epoch 1, meets candidate 3 of
\* epoch 1 that wins with a leaderChange record at that position, and breaks FetchRequestsHeld.)
\* Any FetchRequest of the cluster names as last fetched epoch 0 or an epoch that elected a
\* leader (its sender held an entry of it).  (Without it, observer 4's request naming epoch 1,
\* which elected nobody, meets candidate 3 of epoch 1 that wins with a shorter log, and breaks
\* FetchRequestsBehindLeader.)
FetchRequestsToElectedLeaders ==
    /\ \A m \in messages :
           (/\ m.type = "FetchRequest" /\ m.clusterId /= ForeignClusterId
            /\ m.lastFetchedEpoch > 0) => Elected(m.lastFetchedEpoch)
    /\ ForeignClusterId /= ClusterId =>
           \A m \in messages :
               (/\ m.type = "FetchRequest" /\ m.clusterId /= ForeignClusterId
                /\ KRaftVersion = 0 /\ m.source \in Voters) => <<m.epoch, m.dest>> \in elections

\* A FetchRequest of the cluster whose last fetched epoch is the epoch it is sent in asks for a
\* position within the log of that epoch's leader (the entries of its epoch came from that leader).
FetchRequestsBehindLeader ==
    \A m \in messages : \A l \in Replicas :
        (/\ m.type = "FetchRequest" /\ m.clusterId /= ForeignClusterId
         /\ role[l] = "Leader"
         /\ currentEpoch[l] = m.epoch
         /\ m.lastFetchedEpoch = m.epoch) => m.fetchOffset <= Len(log[l])

\* Committed offsets are closed downwards: a leader's high watermark covers its whole log
\* prefix, and NewlyCommitted records every entry between its old and its new high
\* watermark, so an offset is committed only after every offset below it.  (Without it,
\* a state where only offset 1 is committed, by leader 3 of epoch 2, lets a response of 3
\* with high watermark 2 reach a follower whose offset 0 is not recorded as committed,
\* and FetchResponsesCommitPrefix breaks.)
CommittedClosedDownwards ==
    \A c \in committed : c[1] >= 0 /\ (c[1] > 0 => \E d \in committed : d[1] = c[1] - 1)

\* In a static quorum a successful FetchResponse goes to a voter in its epoch or a later
\* one: the leader answers only a request of its own epoch, and a voter's requests are of
\* its epoch or an earlier one (FetchRequestsWellFormed); epochs never go back.  (Not a
\* misconfigured peer's request that shares the cluster id, answered to the id it claims.
\* Without it, a response of epoch 2 reaches a follower of epoch 1 that stands at its fetch
\* position, becomes a candidate of epoch 2 and finds the response's high watermark
\* covering an entry not recorded as committed: FetchResponsesCommitPrefix breaks.)
FetchResponsesToReachedEpochs ==
    ForeignClusterId /= ClusterId =>
        \A m \in messages :
            (/\ m.type = "FetchResponse" /\ m.errorCode = ""
             /\ KRaftVersion = 0 /\ m.dest \in Voters) => m.epoch <= currentEpoch[m.dest]

\* Committed entries are from elected epochs no later than their commit epoch.
CommittedEpochs ==
    \A c \in committed : c[2].epoch <= c[3] /\ Elected(c[3])

\* What a successful FetchResponse carries is the leader's committed prefix below its
\* high watermark, from an elected leader.
FetchResponsesSound ==
    \A m \in messages :
        (m.type = "FetchResponse" /\ m.errorCode = "") =>
            /\ <<m.epoch, m.source>> \in elections
            /\ \A k \in DOMAIN m.records :
                m.fetchOffset + k <= m.highWatermark =>
                    \E c \in committed : c[1] = m.fetchOffset + k - 1 /\ c[2] = m.records[k]
            /\ \A k \in DOMAIN m.records : m.records[k].epoch <= m.epoch

\* A successful FetchResponse's divergence names an epoch and an end offset, and its
\* records are entries as logs hold them: typed, of an elected epoch (a leaderChange record
\* names that epoch's leader and follows no record of its epoch: not the record before it,
\* nor, for the first, the last fetched epoch, that of the entry at the fetch offset), voter
\* sets only in a dynamic quorum.  The follower truncates to the one or appends the other.
\* (Without the first record's rule, a response of leader 1, which has moved on, carries
\* 1's leaderChange record of epoch 1 for the offset after a follower's own copy of it, and
\* the follower appends a second leaderChange record of epoch 1.)
FetchResponseRecordsWellFormed ==
    \A m \in messages :
        (m.type = "FetchResponse" /\ m.errorCode = "") =>
            /\ m.divergingEpoch = Nil \/ (m.divergingEpoch >= 0 /\ m.divergingEndOffset >= 0)
            /\ \A k \in DOMAIN m.records :
                   /\ EntryTyped(m.records[k])
                   /\ Elected(m.records[k].epoch)
                   /\ m.records[k].kind = "leaderChange" => <<m.records[k].epoch, m.records[k].value>> \in elections
                   /\ m.records[k].kind = "voters" => KRaftVersion > 0
                   /\ m.records[k].kind = "leaderChange" /\ k > 1 => m.records[k - 1].epoch < m.records[k].epoch
                   /\ m.records[k].kind = "leaderChange" /\ k = 1 => m.lastFetchedEpoch < m.records[k].epoch

\* A successful FetchResponse (not a divergence) of a leader that is still in its epoch
\* carries a piece of that leader's log, at the offset it names (a leader only appends,
\* and once it steps down nobody else changes its log in that epoch), so each of its
\* records is at an offset of that log.  After a restart only when every write is durable
\* before a send (a crash between a new leader's two writes comes before it sends).  (Not
\* only while it leads: without that, a response of leader 1 of epoch 2, which restarted
\* in epoch 2, carries 1's record of epoch 2 for offset 0, where 1 holds a record of epoch
\* 1, and follower 2 appends it below the record 1 committed there.)
FetchResponsesFromLeaderLog ==
    \A m \in messages :
        (/\ m.type = "FetchResponse" /\ m.errorCode = "" /\ m.divergingEpoch = Nil
         /\ currentEpoch[m.source] = m.epoch
         /\ OriginalDisk(m.source)
         /\ role[m.source] = "Leader" \/ SendBeforePersist = {}) =>
            /\ m.fetchOffset >= 0
            /\ m.fetchOffset + Len(m.records) <= Len(log[m.source])
            /\ \A k \in DOMAIN m.records : log[m.source][m.fetchOffset + k] = m.records[k]

\* A divergence of a leader that still leads its epoch answers a position its log does not
\* hold, and names its log's largest epoch up to the last fetched one (an epoch before its
\* own: FetchDivergencesBeforeTheirEpoch) with that epoch's end offset: all of it unchanged
\* while the leader appends entries of its epoch.  So does a divergence of a leader that
\* stepped down in its epoch, whose log nobody changes there (after a restart, as in
\* FetchResponsesFromLeaderLog).  (Without it, leader 3 of epoch 1 has sent follower 1 a
\* divergence to offset 0 for the position 1 it holds, and 1 empties its log under its own
\* FetchRequest; without the leaders that stepped down, the same comes from leader 2 of
\* epoch 2, now unattached in epoch 2, and 1 loses the prefix of a stale FetchRequest that
\* FetchRequestsHeldAcrossEpochs speaks for.)
FetchDivergencesFromLeaderLog ==
    \A m \in messages :
        (/\ m.type = "FetchResponse" /\ m.errorCode = "" /\ m.divergingEpoch /= Nil
         /\ currentEpoch[m.source] = m.epoch
         /\ OriginalDisk(m.source)
         /\ role[m.source] = "Leader" \/ SendBeforePersist = {}) =>
            /\ ~ValidFetch(log[m.source], m.fetchOffset, m.lastFetchedEpoch)
            /\ m.divergingEpoch = LargestEpochAtMost(log[m.source], m.lastFetchedEpoch)
            /\ m.divergingEndOffset = EndOffsetForEpoch(log[m.source], m.lastFetchedEpoch)

\* A successful divergence answers a last fetched epoch before its own epoch, whether its
\* sender still leads or not: a position in the leader's own epoch is within its log
\* (FetchRequestsBehindLeader) and that log ends in its epoch (LeadersElected), so such a
\* fetch is valid.  (Without it, an old divergence of leader 1 of epoch 1, which has moved
\* on, names epoch 0 for follower 3's position at offset 1 of epoch 1, and 3 empties its
\* log of a record committed in epoch 2.)
FetchDivergencesBeforeTheirEpoch ==
    \A m \in messages :
        (m.type = "FetchResponse" /\ m.errorCode = "" /\ m.divergingEpoch /= Nil) =>
            m.lastFetchedEpoch < m.epoch

\* A successful divergence stays above the entries committed by its epoch: its sender, the
\* leader of its epoch, held each of them (LeaderCompleteness; one of an epoch before its own
\* since it was elected), so an entry of an epoch up to the last fetched one is within the
\* largest such epoch of the leader's log and its end offset.  This outlives the sender's
\* leadership, which FetchDivergencesFromLeaderLog does not.  (Without it, an old divergence
\* of leader 3 of epoch 1, which has moved on, names epoch 0 for the position <<1, 1>> of
\* 3's committed leaderChange record; another response of 3 brings follower 1 to that
\* position with high watermark 1, and the divergence would empty its log, which breaks
\* FetchDivergenceKeepsHighWatermark.)
FetchDivergencesAboveCommitted ==
    \A m \in messages : \A c \in committed :
        (/\ m.type = "FetchResponse" /\ m.errorCode = "" /\ m.divergingEpoch /= Nil
         /\ c[3] <= m.epoch
         /\ c[2].epoch <= m.lastFetchedEpoch) =>
            /\ c[1] + 1 <= m.divergingEndOffset
            /\ c[2].epoch <= m.divergingEpoch

\* A successful FetchResponse's high watermark is a committed offset: its sender was the
\* leader of its epoch, whose high watermark moves only when the entries below it are
\* committed (NewlyCommitted), so the entry just below it is.  (Without it, an old
\* response of a moved-on leader says its high watermark is 2 while nothing is committed,
\* and a second response of that leader brings its follower to the first one's position,
\* which breaks FetchResponsesCommitPrefix.)
FetchResponseHighWatermarksCommitted ==
    \A m \in messages :
        (m.type = "FetchResponse" /\ m.errorCode = "" /\ m.highWatermark > 0) =>
            \E c \in committed : c[1] = m.highWatermark - 1

\* A successful FetchResponse (not a divergence) whose high watermark covers its fetch
\* position says that the entry just below that position, of the last fetched epoch (the
\* leader's entry there, FetchRequestsMatchLeaderEpochs), is committed.  (Without it, an
\* old response of leader 3 of epoch 1 with high watermark 1 for the position after 3's
\* record of epoch 1 finds follower 1 there, while the entry committed at offset 0 is 3's
\* record of epoch 2: FetchResponsesCommitPrefix breaks.)
FetchResponsePositionsCommitted ==
    \A m \in messages :
        (/\ m.type = "FetchResponse" /\ m.errorCode = "" /\ m.divergingEpoch = Nil
         /\ 0 < m.fetchOffset /\ m.fetchOffset <= m.highWatermark) =>
            \E c \in committed : c[1] = m.fetchOffset - 1 /\ c[2].epoch = m.lastFetchedEpoch

\* The receiver of FetchResponse m still stands where it sent the request m answers: in m's
\* epoch, its log ending at m's fetch offset in m's last fetched epoch (HandleFetchResponse
\* takes the response only then).
\* @type: ($msg) => Bool;
AtFetchPosition(m) ==
    /\ m.dest \in Replicas
    /\ currentEpoch[m.dest] = m.epoch
    /\ m.fetchOffset = Len(log[m.dest]) /\ m.lastFetchedEpoch = LastEpoch(log[m.dest])

\* The length of log the receiver of divergence m keeps (HandleFetchResponse's truncation).
\* @type: ($msg) => Int;
DivergenceKept(m) == Min(m.divergingEndOffset, EndOffsetForEpoch(log[m.dest], m.divergingEpoch))

\* The high watermark a FetchResponse carries covers committed entries only: when its
\* receiver still stands where it fetched from (same epoch and log position, whatever its
\* role), every entry of the log it keeps (all of it, or the prefix a divergence leaves when
\* that prefix ends in the diverging epoch) below that high watermark is committed.  (Not
\* only for a follower of the sender: a replica without a leader that holds a record of the
\* epoch, or a voted one that names the leader, becomes its follower by learning the leader
\* from another response, or by a restart, where the old response finds it.)  (kept <= Len(log[j]):
\* the offsets are quantified over DOMAIN log[j], a set the symbolic translation bounds;
\* kept <= 0, as the empty log the follower then keeps, also covers a negative end offset,
\* where log[j][kept] would be undefined.)
FetchResponsesCommitPrefix ==
    \A m \in messages :
        LET j == m.dest
            kept == IF m.divergingEpoch = Nil THEN Len(log[j]) ELSE DivergenceKept(m)
        IN
        (/\ m.type = "FetchResponse" /\ m.errorCode = ""
         /\ AtFetchPosition(m)
         /\ \/ m.divergingEpoch = Nil
            \/ kept <= 0
            \/ log[j][kept].epoch = m.divergingEpoch) =>
            \A k \in DOMAIN log[j] :
                k <= Min(m.highWatermark, kept) => \E c \in committed : c[1] = k - 1 /\ c[2] = log[j][k]

\* A divergence in a FetchResponse whose receiver still stands where it fetched from (same
\* epoch and log position, whatever its role, as in FetchResponsesCommitPrefix) keeps the
\* receiver's high watermark: the leader's log holds every committed entry, so the
\* receiver's log up to its high watermark ends no later than the leader's entries of the
\* diverging epoch.  (Without it, a state where a divergence of epoch 1 reaches a follower
\* whose committed entry is of epoch 2 empties its log below its high watermark; for a
\* follower only, a voted replica whose high watermark covers its leaderChange record
\* learns the leader from a BeginQuorumEpochRequest and stands where an old divergence to
\* offset 0 finds it.)
FetchDivergenceKeepsHighWatermark ==
    \A m \in messages :
        (m.type = "FetchResponse" /\ m.errorCode = "" /\ m.divergingEpoch /= Nil /\ AtFetchPosition(m)) =>
            highWatermark[m.dest] <= DivergenceKept(m)

\* Nor does it cut a committed entry (of its epoch or an earlier one) that the receiver
\* holds: the leader of the response's epoch holds every such entry, and its entries after
\* the divergence's end offset are of epochs after the receiver's last one, so the receiver
\* holds none of them.  (Without it, a divergence of epoch 0 reaches follower 3, whose high
\* watermark is 0 but whose leaderChange record is committed, and empties its log.)
FetchDivergenceKeepsCommitted ==
    \A m \in messages : \A c \in committed :
        (/\ m.type = "FetchResponse" /\ m.errorCode = "" /\ m.divergingEpoch /= Nil /\ AtFetchPosition(m)
         /\ c[3] <= m.epoch
         /\ Holds(c, log[m.dest])) =>
            c[1] + 1 <= DivergenceKept(m)

\* A leader's pending voter change is a voter-change request it received, in a dynamic
\* quorum only: the responses CompleteVoterChange sends for it are messages like the
\* others (without it, a state whose pending "request" names no replica escapes TypeOK).
PendingVoterChangesReceived ==
    \A i \in Replicas : \A r \in pendingVoterChange[i] :
        /\ KRaftVersion > 0
        /\ r \in messages
        /\ r.type \in {"AddVoterRequest", "RemoveVoterRequest", "UpdateVoterRequest"}

\* With the KIP's persistence order no durable write is pending between steps, but for a
\* crash between a new leader's two writes: its leaderChange record, the last of its log,
\* is pending, and it takes no step until its Restart loses the record.
NothingUnflushed ==
    SendBeforePersist = {} =>
        \A i \in Replicas :
            \/ unflushed[i] = NoUnflushed
            \/ /\ CrashBetweenWrites
               /\ role[i] = "Leader"
               /\ Len(log[i]) > 0
               /\ log[i][Len(log[i])] = Entry(currentEpoch[i], "leaderChange", i)
               /\ unflushed[i] = [NoUnflushed EXCEPT !.logLen = Len(log[i]) - 1]

IndInv ==
    /\ Safety
    /\ ReconfigSafety
    /\ DirIdsFormatted
    /\ NothingUnflushed
    /\ CampaignEpochsPositive
    /\ EpochsNotAhead
    /\ CandidatesNotElected
    /\ PendingVoterChangesReceived
    /\ EntriesFromElectedLeaders
    /\ LeaderChangeRecordsAligned
    /\ ElectionsByMajority
    /\ VotesConsistent
    /\ GrantsRecorded
    /\ LeadersElected
    /\ EpochEntriesAtLeader
    /\ LeadersKnownAreElected
    /\ CommittedOnMajority
    /\ CommittedBlocksElection
    /\ MessagesToOthers
    /\ VoteRequestsFromCandidates
    /\ VoteRequestsDescribeCandidate
    /\ VoterChangesCommittedInTurn
    /\ LeaderRecordsWithinLog
    /\ HighWatermarksCurrent
    /\ RecordedOffsetsHeld
    /\ FetchOffsetsHeld
    /\ FetchRequestsWellFormed
    /\ FetchRequestsToElectedLeaders
    /\ FetchRequestsHeld
    /\ FetchRequestsHeldAcrossEpochs
    /\ WinnersHoldTheirRecords
    /\ FetchRequestsBelowLaterVotes
    /\ FetchRequestsHoldCommitted
    /\ FetchRequestsBehindLeader
    /\ FetchRequestsMatchLeaderEpochs
    /\ CommittedEpochs
    /\ CommittedClosedDownwards
    /\ FetchResponsesToReachedEpochs
    /\ FetchResponsesSound
    /\ FetchResponseRecordsWellFormed
    /\ FetchResponsesFromLeaderLog
    /\ FetchDivergencesFromLeaderLog
    /\ FetchDivergencesBeforeTheirEpoch
    /\ FetchDivergencesAboveCommitted
    /\ FetchResponseHighWatermarksCommitted
    /\ FetchResponsePositionsCommitted
    /\ FetchResponsesCommitPrefix
    /\ FetchDivergenceKeepsHighWatermark
    /\ FetchDivergenceKeepsCommitted

=============================================================================
