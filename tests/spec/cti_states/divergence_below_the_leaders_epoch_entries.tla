\* A counterexample to induction z3 found at --seq-bound 3 --set-bound 4 --bound messages=4
\* (spec/MC_KRaft_indinv.cfg); its first state, in the prover's TLA+ syntax (state_text).
\* action: HandleFetchRequest
\* breaks: FetchDivergencesAboveCommitted
\* excluded by: FetchDivergencesFromLeaderLog
/\ currentEpoch = <<1, 2, 2>>
/\ votedId = <<1, 2, 2>>
/\ leaderId = <<1, 2, -1>>
/\ log = <<<<[epoch |-> 1, kind |-> "leaderChange", value |-> 1, voters |-> {}]>>, <<[epoch |-> 1, kind |-> "leaderChange", value |-> 1, voters |-> {}], [epoch |-> 2, kind |-> "leaderChange", value |-> 2, voters |-> {}]>>, <<[epoch |-> 1, kind |-> "leaderChange", value |-> 1, voters |-> {}], [epoch |-> 2, kind |-> "leaderChange", value |-> 2, voters |-> {}]>>>>
/\ dirId = <<0, 0, 0>>
/\ role = <<"Leader", "Voted", "Unattached">>
/\ highWatermark = <<0, 0, 0>>
/\ votesGranted = <<{}, {}, {}>>
/\ endorsers = <<{}, {3}, {2}>>
/\ replicaEndOffset = <<<<0, 0, 1>>, <<1, 1, 1>>, <<7386, 2021, 3056>>>>
/\ replicaDirectoryId = <<<<23345, 6766, 22573>>, <<23345, 0, 22573>>, <<23346, 6767, 22572>>>>
/\ pendingVoterChange = <<{}, {}, {}>>
/\ messages = {[clusterId |-> "errorCode", dest |-> 3, divergingEndOffset |-> 1, divergingEpoch |-> 0, epoch |-> 2, errorCode |-> "", fetchOffset |-> 0, highWatermark |-> 0, lastFetchedEpoch |-> 1, lastOffset |-> 0, lastOffsetEpoch |-> 0, leaderId |-> 2, preferredSuccessors |-> <<0>>, records |-> <<>>, source |-> 2, sourceDirectoryId |-> 0, type |-> "FetchResponse", voteGranted |-> FALSE, voterDirectoryId |-> 0, voterId |-> 0], [clusterId |-> "kraft", dest |-> 1, divergingEndOffset |-> 0, divergingEpoch |-> 0, epoch |-> 1, errorCode |-> "", fetchOffset |-> 1, highWatermark |-> 0, lastFetchedEpoch |-> 1, lastOffset |-> 0, lastOffsetEpoch |-> 0, leaderId |-> 1, preferredSuccessors |-> <<>>, records |-> <<[epoch |-> 0, kind |-> "leaderChange", value |-> 0, voters |-> {}], [epoch |-> 0, kind |-> "leaderChange", value |-> 0, voters |-> {}]>>, source |-> 2, sourceDirectoryId |-> 0, type |-> "FetchRequest", voteGranted |-> FALSE, voterDirectoryId |-> 0, voterId |-> 0]}
/\ elections = {<<1, 1>>, <<2, 2>>}
/\ votes = {<<1, 1, 1>>, <<2, 2, 2>>, <<3, 1, 1>>, <<3, 2, 2>>}
/\ committed = {}
/\ restarts = 0
/\ unflushed = <<[epoch |-> -1, leaderId |-> -1, logLen |-> -1, votedId |-> -1], [epoch |-> -1, leaderId |-> -1, logLen |-> -1, votedId |-> -1], [epoch |-> -1, leaderId |-> -1, logLen |-> -1, votedId |-> -1]>>
/\ now = 0
/\ electionDeadline = <<0, 0, 0>>
/\ endQuorum = <<<<0, 0>>, <<0, 0>>, <<0, 0>>>>
/\ lastFetchTime = <<<<0, 0, 0>>, <<0, 0, 0>>, <<0, 0, 0>>>>
/\ checkQuorumDue = <<0, 0, 0>>
/\ beginEpochDue = <<<<0, 0, 0>>, <<0, 0, 0>>, <<0, 0, 0>>>>
