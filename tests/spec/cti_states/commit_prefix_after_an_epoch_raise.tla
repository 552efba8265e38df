\* A counterexample to induction z3 found at --seq-bound 3 --set-bound 4 --bound messages=4
\* (spec/MC_KRaft_indinv.cfg); its first state, in the prover's TLA+ syntax (state_text).
\* action: BecomeCandidate
\* breaks: FetchResponsesCommitPrefix
\* excluded by: CommittedClosedDownwards, FetchResponsesToReachedEpochs, FetchResponsePositionsCommitted
/\ currentEpoch = <<2, 1, 2>>
/\ votedId = <<3, -1, 3>>
/\ leaderId = <<3, 1, 3>>
/\ log = <<<<[epoch |-> 1, kind |-> "leaderChange", value |-> 1, voters |-> {}], [epoch |-> 2, kind |-> "leaderChange", value |-> 3, voters |-> {}]>>, <<[epoch |-> 1, kind |-> "leaderChange", value |-> 1, voters |-> {}]>>, <<[epoch |-> 1, kind |-> "leaderChange", value |-> 1, voters |-> {}], [epoch |-> 2, kind |-> "leaderChange", value |-> 3, voters |-> {}]>>>>
/\ dirId = <<0, 0, 0>>
/\ role = <<"Unattached", "Follower", "Unattached">>
/\ highWatermark = <<0, 0, 0>>
/\ votesGranted = <<{2, 3}, {}, {1, 2}>>
/\ endorsers = <<{1, 2, 3}, {}, {1}>>
/\ replicaEndOffset = <<<<2, 1, 2>>, <<1, 1, 1>>, <<2, 2, 1>>>>
/\ replicaDirectoryId = <<<<1, 0, 1>>, <<1, 1, 1>>, <<1, 1, 0>>>>
/\ pendingVoterChange = <<{}, {}, {}>>
/\ messages = {[clusterId |-> "TimeoutUpperBound", dest |-> 2, divergingEndOffset |-> 0, divergingEpoch |-> -1, epoch |-> 2, errorCode |-> "", fetchOffset |-> 1, highWatermark |-> 2, lastFetchedEpoch |-> 1, lastOffset |-> 0, lastOffsetEpoch |-> 0, leaderId |-> 3, preferredSuccessors |-> <<0>>, records |-> <<>>, source |-> 3, sourceDirectoryId |-> 0, type |-> "FetchResponse", voteGranted |-> FALSE, voterDirectoryId |-> 0, voterId |-> 0]}
/\ elections = {<<1, 1>>, <<2, 3>>}
/\ votes = {<<1, 1, 1>>, <<1, 2, 3>>, <<3, 1, 1>>, <<3, 2, 3>>}
/\ committed = {<<1, [epoch |-> 2, kind |-> "leaderChange", value |-> 3, voters |-> {}], 2>>}
/\ restarts = 0
/\ unflushed = <<[epoch |-> -1, leaderId |-> -1, logLen |-> -1, votedId |-> -1], [epoch |-> -1, leaderId |-> -1, logLen |-> -1, votedId |-> -1], [epoch |-> -1, leaderId |-> -1, logLen |-> -1, votedId |-> -1]>>
/\ now = 0
/\ electionDeadline = <<0, 0, 0>>
/\ endQuorum = <<<<0, 0>>, <<0, 0>>, <<0, 0>>>>
/\ lastFetchTime = <<<<0, 0, 0>>, <<0, 0, 0>>, <<0, 0, 0>>>>
/\ checkQuorumDue = <<0, 0, 0>>
/\ beginEpochDue = <<<<0, 0, 0>>, <<0, 0, 0>>, <<0, 0, 0>>>>
