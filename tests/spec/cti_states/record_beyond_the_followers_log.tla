\* A counterexample to induction z3 found at --seq-bound 3 --set-bound 4 --bound messages=4
\* (spec/MC_KRaft_indinv.cfg); its first state, in the prover's TLA+ syntax (state_text).
\* action: HandleFetchRequest
\* breaks: FetchOffsetsHeld
\* excluded by: RecordedOffsetsHeld
/\ currentEpoch = <<2, 2, 2>>
/\ votedId = <<-1, 2, 2>>
/\ leaderId = <<-1, 2, -1>>
/\ log = <<<<[epoch |-> 1, kind |-> "leaderChange", value |-> 3, voters |-> {}], [epoch |-> 2, kind |-> "leaderChange", value |-> 2, voters |-> {}]>>, <<[epoch |-> 1, kind |-> "leaderChange", value |-> 3, voters |-> {}], [epoch |-> 2, kind |-> "leaderChange", value |-> 2, voters |-> {}]>>, <<>>>>
/\ dirId = <<0, 0, 0>>
/\ role = <<"Unattached", "Leader", "Unattached">>
/\ highWatermark = <<0, 0, 0>>
/\ votesGranted = <<{}, {}, {}>>
/\ endorsers = <<{1, 2}, {1}, {3}>>
/\ replicaEndOffset = <<<<3, 1, 0>>, <<1, 0, 1>>, <<1, 0, 31268>>>>
/\ replicaDirectoryId = <<<<13109, 18849, 24132>>, <<13110, 10538, 0>>, <<3832, 2359, 23988>>>>
/\ pendingVoterChange = <<{}, {}, {}>>
/\ messages = {[clusterId |-> "kraft", dest |-> 2, divergingEndOffset |-> 0, divergingEpoch |-> 0, epoch |-> 2, errorCode |-> "", fetchOffset |-> 2, highWatermark |-> 0, lastFetchedEpoch |-> 2, lastOffset |-> 0, lastOffsetEpoch |-> 0, leaderId |-> -1, preferredSuccessors |-> <<0>>, records |-> <<[epoch |-> 0, kind |-> "leaderChange", value |-> 0, voters |-> {}], [epoch |-> 0, kind |-> "FetchRequest", value |-> 0, voters |-> {}]>>, source |-> 1, sourceDirectoryId |-> 0, type |-> "FetchRequest", voteGranted |-> FALSE, voterDirectoryId |-> 0, voterId |-> 0]}
/\ elections = {<<1, 3>>, <<2, 2>>}
/\ votes = {<<1, 1, 3>>, <<2, 2, 2>>, <<3, 1, 3>>, <<3, 2, 2>>}
/\ committed = {}
/\ restarts = 0
/\ unflushed = <<[epoch |-> -1, leaderId |-> -1, logLen |-> -1, votedId |-> -1], [epoch |-> -1, leaderId |-> -1, logLen |-> -1, votedId |-> -1], [epoch |-> -1, leaderId |-> -1, logLen |-> -1, votedId |-> -1]>>
/\ now = 0
/\ electionDeadline = <<0, 0, 0>>
/\ endQuorum = <<<<0, 0>>, <<0, 0>>, <<0, 0>>>>
/\ lastFetchTime = <<<<0, 0, 0>>, <<0, 0, 0>>, <<0, 0, 0>>>>
/\ checkQuorumDue = <<0, 0, 0>>
/\ beginEpochDue = <<<<0, 0, 0>>, <<0, 0, 0>>, <<0, 0, 0>>>>
