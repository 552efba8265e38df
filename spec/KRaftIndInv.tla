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
(* The lemmas below hold for the KIP configuration; a misconfigured peer    *)
(* that shares the cluster id (ForeignClusterId = ClusterId) breaks the     *)
(* ones about leaders known from BeginQuorumEpoch, so they are stated only  *)
(* for a foreign cluster id.                                                *)
(***************************************************************************)
EXTENDS KRaft

\* Is entry c = <<offset, entry, epoch>> at its offset in lg?
\* @type: (<<Int, $entry, Int>>, Seq($entry)) => Bool;
Holds(c, lg) == c[1] + 1 \in DOMAIN lg /\ lg[c[1] + 1] = c[2]

\* Does some election of epoch e exist?
\* @type: (Int) => Bool;
Elected(e) == \E p \in elections : p[1] = e

\* Every entry of a log is of an epoch that elected a leader, no later than its
\* holder's epoch; a leaderChange entry names that leader.
EntriesFromElectedLeaders ==
    \A i \in Replicas : \A k \in DOMAIN log[i] :
        /\ log[i][k].epoch <= currentEpoch[i]
        /\ Elected(log[i][k].epoch)
        /\ log[i][k].kind = "leaderChange" => <<log[i][k].epoch, log[i][k].value>> \in elections

\* An election was won with the votes of a majority, recorded in `votes`.
ElectionsByMajority ==
    \A p \in elections : IsMajority({v \in Voters : <<v, p[1], p[2]>> \in votes})

\* Votes are cast in the voter's past or present epoch, and the durable vote of the
\* current epoch is the recorded one.
VotesConsistent ==
    /\ \A p \in votes : p[1] \in Voters /\ p[3] \in Voters /\ p[2] <= currentEpoch[p[1]]
    /\ \A i \in Voters : votedId[i] /= Nil => <<i, currentEpoch[i], votedId[i]>> \in votes
    /\ \A p \in votes : (DurableVote /\ p[2] = currentEpoch[p[1]]) => votedId[p[1]] = p[3]

\* A granted VoteResponse reports a recorded vote; a candidate counts only those.
GrantsRecorded ==
    /\ \A m \in messages :
        (m.type = "VoteResponse" /\ m.voteGranted) => <<m.source, m.epoch, m.dest>> \in votes
    /\ \A i \in Replicas : role[i] = "Candidate" =>
        /\ votedId[i] = i
        /\ \A v \in votesGranted[i] : <<v, currentEpoch[i], i>> \in votes

\* A leader won its epoch, knows itself as leader and its log ends in that epoch.
LeadersElected ==
    \A i \in Replicas : role[i] = "Leader" =>
        /\ <<currentEpoch[i], i>> \in elections
        /\ leaderId[i] = i
        /\ LastEpoch(log[i]) = currentEpoch[i]

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
            /\ (m.type = "BeginQuorumEpochRequest" /\ m.clusterId = ClusterId) => <<m.epoch, m.source>> \in elections
            /\ m.leaderId /= Nil => <<m.epoch, m.leaderId>> \in elections

\* A committed entry stays on a majority of voters.
CommittedOnMajority ==
    \A c \in committed : IsMajority({v \in Voters : Holds(c, log[v])})

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

IndInv ==
    /\ Safety
    /\ EntriesFromElectedLeaders
    /\ ElectionsByMajority
    /\ VotesConsistent
    /\ GrantsRecorded
    /\ LeadersElected
    /\ EpochEntriesAtLeader
    /\ LeadersKnownAreElected
    /\ CommittedOnMajority
    /\ CommittedEpochs
    /\ FetchResponsesSound

=============================================================================
