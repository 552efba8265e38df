\* A counterexample to induction z3 found at --seq-bound 3 --set-bound 4 --bound messages=4
\* (spec/MC_KRaft_indinv.cfg); its first state, in the prover's TLA+ syntax (state_text).
\* action: HandleFetchResponse
\* breaks: CommittedBlocksElection
\* excluded by: LeaderChangeRecordsAligned, FetchResponsesFromLeaderLog
/\ currentEpoch = <<2, 2, 1>>
/\ votedId = <<1, 1, -1>>
/\ leaderId = <<1, 1, -1>>
/\ log = <<<<[epoch |-> 1, kind |-> "leaderChange", value |-> 3, voters |-> {}], [epoch |-> 2, kind |-> "leaderChange", value |-> 1, voters |-> {}]>>, <<>>, <<[epoch |-> 1, kind |-> "leaderChange", value |-> 3, voters |-> {}]>>>>
/\ dirId = <<0, 0, 0>>
/\ role = <<"Voted", "Follower", "Voted">>
/\ highWatermark = <<0, 0, 1>>
/\ votesGranted = <<{3}, {1}, {1}>>
/\ endorsers = <<{3}, {2}, {3}>>
/\ replicaEndOffset = <<<<0, 0, 0>>, <<0, 0, 0>>, <<1, 1, 1>>>>
/\ replicaDirectoryId = <<<<1, 1, 1>>, <<1, 1, 1>>, <<1, 1, 1>>>>
/\ pendingVoterChange = <<{}, {}, {}>>
/\ messages = {[clusterId |-> "FetchResponse", dest |-> 2, divergingEndOffset |-> 0, divergingEpoch |-> -1, epoch |-> 2, errorCode |-> "", fetchOffset |-> 0, highWatermark |-> 0, lastFetchedEpoch |-> 0, lastOffset |-> 0, lastOffsetEpoch |-> 0, leaderId |-> -1, preferredSuccessors |-> <<0>>, records |-> <<[epoch |-> 2, kind |-> "leaderChange", value |-> 1, voters |-> {}]>>, source |-> 1, sourceDirectoryId |-> 0, type |-> "FetchResponse", voteGranted |-> FALSE, voterDirectoryId |-> 0, voterId |-> 0]}
/\ elections = {<<1, 3>>, <<2, 1>>}
/\ votes = {<<1, 1, 3>>, <<1, 2, 1>>, <<2, 1, 3>>, <<2, 2, 1>>}
/\ committed = {<<0, [epoch |-> 1, kind |-> "leaderChange", value |-> 3, voters |-> {}], 2>>}
/\ restarts = 0
/\ unflushed = <<[epoch |-> -1, leaderId |-> -1, logLen |-> -1, votedId |-> -1], [epoch |-> -1, leaderId |-> -1, logLen |-> -1, votedId |-> -1], [epoch |-> -1, leaderId |-> -1, logLen |-> -1, votedId |-> -1]>>
/\ now = 0
/\ electionDeadline = <<0, 0, 0>>
/\ endQuorum = <<<<0, 0>>, <<0, 0>>, <<0, 0>>>>
/\ lastFetchTime = <<<<0, 0, 0>>, <<0, 0, 0>>, <<0, 0, 0>>>>
/\ checkQuorumDue = <<0, 0, 0>>
/\ beginEpochDue = <<<<0, 0, 0>>, <<0, 0, 0>>, <<0, 0, 0>>>>
