\* A counterexample to induction z3 found at --seq-bound 3 --set-bound 4 --bound messages=4
\* (spec/MC_KRaft_indinv.cfg); its first state, in the prover's TLA+ syntax (state_text).
\* action: HandleFetchRequest
\* breaks: FetchOffsetsHeld
\* excluded by: FetchRequestsHeldAcrossEpochs, FetchRequestsHoldCommitted
/\ currentEpoch = <<1, 2, 2>>
/\ votedId = <<1, 2, 2>>
/\ leaderId = <<1, -1, -1>>
/\ log = <<<<[epoch |-> 1, kind |-> "leaderChange", value |-> 1, voters |-> {}]>>, <<[epoch |-> 1, kind |-> "leaderChange", value |-> 1, voters |-> {}], [epoch |-> 2, kind |-> "leaderChange", value |-> 2, voters |-> {}]>>, <<>>>>
/\ dirId = <<0, 0, 0>>
/\ role = <<"Leader", "Voted", "Unattached">>
/\ highWatermark = <<1, 1, 0>>
/\ votesGranted = <<{}, {}, {}>>
/\ endorsers = <<{2}, {1, 2}, {2, 3}>>
/\ replicaEndOffset = <<<<0, 0, 0>>, <<13763, 0, 23519>>, <<22076, 0, 0>>>>
/\ replicaDirectoryId = <<<<20846, 21715, 15454>>, <<20846, 17869, 15455>>, <<20845, 21716, 15453>>>>
/\ pendingVoterChange = <<{}, {}, {}>>
/\ messages = {[clusterId |-> "kraft", dest |-> 1, divergingEndOffset |-> 0, divergingEpoch |-> 0, epoch |-> 1, errorCode |-> "DUPLICATE_VOTER", fetchOffset |-> 1, highWatermark |-> 0, lastFetchedEpoch |-> 1, lastOffset |-> 0, lastOffsetEpoch |-> 0, leaderId |-> -1, preferredSuccessors |-> <<0>>, records |-> <<[epoch |-> 0, kind |-> "leaderChange", value |-> 0, voters |-> {}]>>, source |-> 3, sourceDirectoryId |-> 0, type |-> "FetchRequest", voteGranted |-> FALSE, voterDirectoryId |-> 0, voterId |-> 0]}
/\ elections = {<<1, 1>>, <<2, 2>>}
/\ votes = {<<1, 1, 1>>, <<2, 2, 2>>, <<3, 1, 1>>, <<3, 2, 2>>}
/\ committed = {<<0, [epoch |-> 1, kind |-> "leaderChange", value |-> 1, voters |-> {}], 1>>}
/\ restarts = 0
/\ unflushed = <<[epoch |-> -1, leaderId |-> -1, logLen |-> -1, votedId |-> -1], [epoch |-> -1, leaderId |-> -1, logLen |-> -1, votedId |-> -1], [epoch |-> -1, leaderId |-> -1, logLen |-> -1, votedId |-> -1]>>
/\ now = 0
/\ electionDeadline = <<0, 0, 0>>
/\ endQuorum = <<<<0, 0>>, <<0, 0>>, <<0, 0>>>>
/\ lastFetchTime = <<<<0, 0, 0>>, <<0, 0, 0>>, <<0, 0, 0>>>>
/\ checkQuorumDue = <<0, 0, 0>>
/\ beginEpochDue = <<<<0, 0, 0>>, <<0, 0, 0>>, <<0, 0, 0>>>>
