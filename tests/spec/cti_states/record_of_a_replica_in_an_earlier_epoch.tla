\* A counterexample to induction z3 found at --seq-bound 3 --set-bound 4 --bound messages=4
\* (spec/MC_KRaft_indinv.cfg); its first state, in the prover's TLA+ syntax (state_text).
\* action: HandleFetchResponse
\* breaks: RecordedOffsetsHeld
\* excluded by: RecordedOffsetsHeld
/\ currentEpoch = <<1, 2, 2>>
/\ votedId = <<3, 2, 2>>
/\ leaderId = <<3, 2, 2>>
/\ log = <<<<>>, <<[epoch |-> 1, kind |-> "leaderChange", value |-> 3, voters |-> {}], [epoch |-> 2, kind |-> "leaderChange", value |-> 2, voters |-> {}]>>, <<[epoch |-> 1, kind |-> "leaderChange", value |-> 3, voters |-> {}], [epoch |-> 2, kind |-> "leaderChange", value |-> 2, voters |-> {}]>>>>
/\ dirId = <<0, 0, 0>>
/\ role = <<"Voted", "Leader", "Voted">>
/\ highWatermark = <<0, 0, 0>>
/\ votesGranted = <<{}, {2}, {3}>>
/\ endorsers = <<{}, {1}, {2}>>
/\ replicaEndOffset = <<<<1, 1, 1>>, <<1, 1, 1>>, <<2, 15043, 44598>>>>
/\ replicaDirectoryId = <<<<1, 1, 1>>, <<0, 5304, 0>>, <<14971, 1904, 6757>>>>
/\ pendingVoterChange = <<{}, {}, {}>>
/\ messages = {[clusterId |-> "FetchResponse", dest |-> 1, divergingEndOffset |-> 0, divergingEpoch |-> 0, epoch |-> 0, errorCode |-> "INVALID_VOTER_KEY", fetchOffset |-> 0, highWatermark |-> 0, lastFetchedEpoch |-> 0, lastOffset |-> 0, lastOffsetEpoch |-> 0, leaderId |-> -1, preferredSuccessors |-> <<>>, records |-> <<[epoch |-> 0, kind |-> "leaderChange", value |-> 0, voters |-> {}]>>, source |-> 3, sourceDirectoryId |-> 1, type |-> "FetchResponse", voteGranted |-> FALSE, voterDirectoryId |-> 0, voterId |-> 0], [clusterId |-> "FetchResponse", dest |-> 1, divergingEndOffset |-> 0, divergingEpoch |-> 0, epoch |-> 2, errorCode |-> "INVALID_VOTER_KEY", fetchOffset |-> 0, highWatermark |-> 0, lastFetchedEpoch |-> -1, lastOffset |-> 0, lastOffsetEpoch |-> 0, leaderId |-> 2, preferredSuccessors |-> <<0, 0, 0>>, records |-> <<>>, source |-> 3, sourceDirectoryId |-> 0, type |-> "FetchResponse", voteGranted |-> FALSE, voterDirectoryId |-> 0, voterId |-> 0]}
/\ elections = {<<1, 3>>, <<2, 2>>}
/\ votes = {<<1, 1, 3>>, <<2, 1, 3>>, <<2, 2, 2>>, <<3, 2, 2>>}
/\ committed = {}
/\ restarts = 0
/\ unflushed = <<[epoch |-> -1, leaderId |-> -1, logLen |-> -1, votedId |-> -1], [epoch |-> -1, leaderId |-> -1, logLen |-> -1, votedId |-> -1], [epoch |-> -1, leaderId |-> -1, logLen |-> -1, votedId |-> -1]>>
/\ now = 0
/\ electionDeadline = <<0, 0, 0>>
/\ endQuorum = <<<<0, 0>>, <<0, 0>>, <<0, 0>>>>
/\ lastFetchTime = <<<<0, 0, 0>>, <<0, 0, 0>>, <<0, 0, 0>>>>
/\ checkQuorumDue = <<0, 0, 0>>
/\ beginEpochDue = <<<<0, 0, 0>>, <<0, 0, 0>>, <<0, 0, 0>>>>
