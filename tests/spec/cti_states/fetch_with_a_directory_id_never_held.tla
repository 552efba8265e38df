\* A counterexample to induction z3 found at --seq-bound 3 --set-bound 4 --bound messages=4
\* (spec/MC_KRaft_indinv.cfg); its first state, in the prover's TLA+ syntax (state_text).
\* action: HandleFetchRequest
\* breaks: FetchResponsesToReachedEpochs
\* excluded by: FetchRequestsWellFormed
/\ currentEpoch = <<2, 1, 2>>
/\ votedId = <<3, 1, 3>>
/\ leaderId = <<-1, 1, 3>>
/\ log = <<<<[epoch |-> 2, kind |-> "leaderChange", value |-> 3, voters |-> {}]>>, <<[epoch |-> 1, kind |-> "leaderChange", value |-> 1, voters |-> {}]>>, <<[epoch |-> 2, kind |-> "leaderChange", value |-> 3, voters |-> {}]>>>>
/\ dirId = <<0, 0, 0>>
/\ role = <<"Unattached", "Follower", "Leader">>
/\ highWatermark = <<0, 0, 1>>
/\ votesGranted = <<{}, {}, {}>>
/\ endorsers = <<{2}, {1}, {}>>
/\ replicaEndOffset = <<<<1, 0, 1>>, <<0, 1, 0>>, <<1, 0, 1>>>>
/\ replicaDirectoryId = <<<<1, 0, 1>>, <<0, 1, 1>>, <<1, 1, 1>>>>
/\ pendingVoterChange = <<{}, {}, {}>>
/\ messages = {[clusterId |-> "", dest |-> 3, divergingEndOffset |-> 0, divergingEpoch |-> 0, epoch |-> 2, errorCode |-> "REQUEST_TIMED_OUT", fetchOffset |-> 12754, highWatermark |-> 0, lastFetchedEpoch |-> 1, lastOffset |-> 0, lastOffsetEpoch |-> 0, leaderId |-> -1, preferredSuccessors |-> <<0>>, records |-> <<[epoch |-> 0, kind |-> "Resigned", value |-> 0, voters |-> {}], [epoch |-> 0, kind |-> "leaderChange", value |-> 0, voters |-> {}]>>, source |-> 2, sourceDirectoryId |-> 1, type |-> "FetchRequest", voteGranted |-> FALSE, voterDirectoryId |-> 0, voterId |-> 0]}
/\ elections = {<<1, 1>>, <<2, 3>>}
/\ votes = {<<1, 2, 3>>, <<2, 1, 1>>, <<3, 1, 1>>, <<3, 2, 3>>}
/\ committed = {<<0, [epoch |-> 2, kind |-> "leaderChange", value |-> 3, voters |-> {}], 2>>}
/\ restarts = 0
/\ unflushed = <<[epoch |-> -1, leaderId |-> -1, logLen |-> -1, votedId |-> -1], [epoch |-> -1, leaderId |-> -1, logLen |-> -1, votedId |-> -1], [epoch |-> -1, leaderId |-> -1, logLen |-> -1, votedId |-> -1]>>
/\ now = 0
/\ electionDeadline = <<0, 0, 0>>
/\ endQuorum = <<<<0, 0>>, <<0, 0>>, <<0, 0>>>>
/\ lastFetchTime = <<<<0, 0, 0>>, <<0, 0, 0>>, <<0, 0, 0>>>>
/\ checkQuorumDue = <<0, 0, 0>>
/\ beginEpochDue = <<<<0, 0, 0>>, <<0, 0, 0>>, <<0, 0, 0>>>>
