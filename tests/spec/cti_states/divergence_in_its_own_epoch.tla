\* A counterexample to induction z3 found at --seq-bound 3 --set-bound 4 --bound messages=4
\* (spec/MC_KRaft_indinv.cfg); its first state, in the prover's TLA+ syntax (state_text).
\* action: HandleFetchResponse
\* breaks: CommittedOnMajority
\* excluded by: FetchDivergencesBeforeTheirEpoch
/\ currentEpoch = <<2, 2, 1>>
/\ votedId = <<2, 2, 1>>
/\ leaderId = <<2, -1, 1>>
/\ log = <<<<>>, <<[epoch |-> 1, kind |-> "leaderChange", value |-> 1, voters |-> {}], [epoch |-> 2, kind |-> "leaderChange", value |-> 2, voters |-> {}]>>, <<[epoch |-> 1, kind |-> "leaderChange", value |-> 1, voters |-> {}]>>>>
/\ dirId = <<0, 0, 0>>
/\ role = <<"Unattached", "Unattached", "Follower">>
/\ highWatermark = <<0, 1, 0>>
/\ votesGranted = <<{}, {}, {}>>
/\ endorsers = <<{2, 3}, {2}, {1, 3}>>
/\ replicaEndOffset = <<<<0, 0, 0>>, <<0, 0, 2>>, <<1, 1, 0>>>>
/\ replicaDirectoryId = <<<<1, 1, 1>>, <<1, 1, 1>>, <<0, 0, 1>>>>
/\ pendingVoterChange = <<{}, {}, {}>>
/\ messages = {[clusterId |-> "FetchResponse", dest |-> 3, divergingEndOffset |-> 11149, divergingEpoch |-> 0, epoch |-> 1, errorCode |-> "", fetchOffset |-> 1, highWatermark |-> 1, lastFetchedEpoch |-> 1, lastOffset |-> 0, lastOffsetEpoch |-> 0, leaderId |-> -1, preferredSuccessors |-> <<0, 0, 0>>, records |-> <<>>, source |-> 1, sourceDirectoryId |-> 0, type |-> "FetchResponse", voteGranted |-> FALSE, voterDirectoryId |-> 0, voterId |-> 0]}
/\ elections = {<<1, 1>>, <<2, 2>>}
/\ votes = {<<1, 2, 2>>, <<2, 1, 1>>, <<2, 2, 2>>, <<3, 1, 1>>}
/\ committed = {<<0, [epoch |-> 1, kind |-> "leaderChange", value |-> 1, voters |-> {}], 2>>}
/\ restarts = 0
/\ unflushed = <<[epoch |-> -1, leaderId |-> -1, logLen |-> -1, votedId |-> -1], [epoch |-> -1, leaderId |-> -1, logLen |-> -1, votedId |-> -1], [epoch |-> -1, leaderId |-> -1, logLen |-> -1, votedId |-> -1]>>
/\ now = 0
/\ electionDeadline = <<0, 0, 0>>
/\ endQuorum = <<<<0, 0>>, <<0, 0>>, <<0, 0>>>>
/\ lastFetchTime = <<<<0, 0, 0>>, <<0, 0, 0>>, <<0, 0, 0>>>>
/\ checkQuorumDue = <<0, 0, 0>>
/\ beginEpochDue = <<<<0, 0, 0>>, <<0, 0, 0>>, <<0, 0, 0>>>>
