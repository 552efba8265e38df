\* A counterexample to induction z3 found at --seq-bound 3 --set-bound 4 --bound messages=4
\* (spec/MC_KRaft_indinv.cfg); its first state, in the prover's TLA+ syntax (state_text).
\* action: HandleFetchRequest
\* breaks: StateMachineSafety
\* excluded by: FetchRequestsBelowLaterVotes
/\ currentEpoch = <<2, 2, 1>>
/\ votedId = <<2, 2, -1>>
/\ leaderId = <<-1, -1, 3>>
/\ log = <<<<[epoch |-> 2, kind |-> "leaderChange", value |-> 2, voters |-> {}]>>, <<[epoch |-> 2, kind |-> "leaderChange", value |-> 2, voters |-> {}]>>, <<[epoch |-> 1, kind |-> "leaderChange", value |-> 3, voters |-> {}]>>>>
/\ dirId = <<0, 0, 0>>
/\ role = <<"Voted", "Unattached", "Leader">>
/\ highWatermark = <<1, 1, 0>>
/\ votesGranted = <<{}, {}, {}>>
/\ endorsers = <<{}, {1}, {}>>
/\ replicaEndOffset = <<<<2, 10525, 0>>, <<4234, 17586, 17593>>, <<0, 0, 0>>>>
/\ replicaDirectoryId = <<<<13891, 0, 31963>>, <<32471, 31746, 4879>>, <<1, 13019, 31962>>>>
/\ pendingVoterChange = <<{}, {}, {}>>
/\ messages = {[clusterId |-> "kraft", dest |-> 3, divergingEndOffset |-> 0, divergingEpoch |-> 0, epoch |-> 1, errorCode |-> "INVALID_CLUSTER_ID", fetchOffset |-> 1, highWatermark |-> 0, lastFetchedEpoch |-> 1, lastOffset |-> 0, lastOffsetEpoch |-> 0, leaderId |-> 3, preferredSuccessors |-> <<0>>, records |-> <<[epoch |-> 0, kind |-> "leaderChange", value |-> 0, voters |-> {}], [epoch |-> 0, kind |-> "data", value |-> 0, voters |-> {}]>>, source |-> 1, sourceDirectoryId |-> 0, type |-> "FetchRequest", voteGranted |-> FALSE, voterDirectoryId |-> 0, voterId |-> 0]}
/\ elections = {<<1, 3>>, <<2, 2>>}
/\ votes = {<<1, 1, 3>>, <<1, 2, 2>>, <<2, 1, 3>>, <<2, 2, 2>>}
/\ committed = {<<0, [epoch |-> 2, kind |-> "leaderChange", value |-> 2, voters |-> {}], 2>>}
/\ restarts = 0
/\ unflushed = <<[epoch |-> -1, leaderId |-> -1, logLen |-> -1, votedId |-> -1], [epoch |-> -1, leaderId |-> -1, logLen |-> -1, votedId |-> -1], [epoch |-> -1, leaderId |-> -1, logLen |-> -1, votedId |-> -1]>>
/\ now = 0
/\ electionDeadline = <<0, 0, 0>>
/\ endQuorum = <<<<0, 0>>, <<0, 0>>, <<0, 0>>>>
/\ lastFetchTime = <<<<0, 0, 0>>, <<0, 0, 0>>, <<0, 0, 0>>>>
/\ checkQuorumDue = <<0, 0, 0>>
/\ beginEpochDue = <<<<0, 0, 0>>, <<0, 0, 0>>, <<0, 0, 0>>>>
