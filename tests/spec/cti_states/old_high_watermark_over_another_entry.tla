\* A counterexample to induction z3 found at --seq-bound 3 --set-bound 4 --bound messages=4
\* (spec/MC_KRaft_indinv.cfg); its first state, in the prover's TLA+ syntax (state_text).
\* action: HandleFetchResponse
\* breaks: FetchResponsesCommitPrefix
\* excluded by: FetchResponsePositionsCommitted
/\ currentEpoch = <<1, 2, 2>>
/\ votedId = <<-1, 3, 3>>
/\ leaderId = <<3, -1, 3>>
/\ log = <<<<>>, <<[epoch |-> 2, kind |-> "leaderChange", value |-> 3, voters |-> {}]>>, <<[epoch |-> 2, kind |-> "leaderChange", value |-> 3, voters |-> {}]>>>>
/\ dirId = <<0, 0, 0>>
/\ role = <<"Follower", "Voted", "Unattached">>
/\ highWatermark = <<0, 1, 0>>
/\ votesGranted = <<{}, {2, 3}, {1, 3}>>
/\ endorsers = <<{3}, {2}, {1, 2, 3}>>
/\ replicaEndOffset = <<<<0, 0, 0>>, <<0, 1, 1>>, <<0, 2, 1>>>>
/\ replicaDirectoryId = <<<<1, 1, 1>>, <<0, 1, 0>>, <<1, 1, 1>>>>
/\ pendingVoterChange = <<{}, {}, {}>>
/\ messages = {[clusterId |-> "kraft", dest |-> 1, divergingEndOffset |-> -1, divergingEpoch |-> -1, epoch |-> 1, errorCode |-> "", fetchOffset |-> 0, highWatermark |-> 0, lastFetchedEpoch |-> 0, lastOffset |-> 0, lastOffsetEpoch |-> 0, leaderId |-> 3, preferredSuccessors |-> <<0, 0, 0>>, records |-> <<[epoch |-> 1, kind |-> "leaderChange", value |-> 3, voters |-> {}]>>, source |-> 3, sourceDirectoryId |-> 0, type |-> "FetchResponse", voteGranted |-> FALSE, voterDirectoryId |-> 0, voterId |-> 0], [clusterId |-> "other", dest |-> 1, divergingEndOffset |-> 0, divergingEpoch |-> -1, epoch |-> 1, errorCode |-> "", fetchOffset |-> 1, highWatermark |-> 1, lastFetchedEpoch |-> 1, lastOffset |-> 0, lastOffsetEpoch |-> 0, leaderId |-> -1, preferredSuccessors |-> <<>>, records |-> <<>>, source |-> 3, sourceDirectoryId |-> 0, type |-> "FetchResponse", voteGranted |-> FALSE, voterDirectoryId |-> 0, voterId |-> 0]}
/\ elections = {<<1, 3>>, <<2, 3>>}
/\ votes = {<<2, 1, 3>>, <<2, 2, 3>>, <<3, 1, 3>>, <<3, 2, 3>>}
/\ committed = {<<0, [epoch |-> 2, kind |-> "leaderChange", value |-> 3, voters |-> {}], 2>>}
/\ restarts = 0
/\ unflushed = <<[epoch |-> -1, leaderId |-> -1, logLen |-> -1, votedId |-> -1], [epoch |-> -1, leaderId |-> -1, logLen |-> -1, votedId |-> -1], [epoch |-> -1, leaderId |-> -1, logLen |-> -1, votedId |-> -1]>>
/\ now = 0
/\ electionDeadline = <<0, 0, 0>>
/\ endQuorum = <<<<0, 0>>, <<0, 0>>, <<0, 0>>>>
/\ lastFetchTime = <<<<0, 0, 0>>, <<0, 0, 0>>, <<0, 0, 0>>>>
/\ checkQuorumDue = <<0, 0, 0>>
/\ beginEpochDue = <<<<0, 0, 0>>, <<0, 0, 0>>, <<0, 0, 0>>>>
