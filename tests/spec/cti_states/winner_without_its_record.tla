\* A counterexample to induction z3 found at --seq-bound 3 --set-bound 4 --bound messages=4
\* (spec/MC_KRaft_indinv.cfg); its first state, in the prover's TLA+ syntax (state_text).
\* action: HandleFetchRequest
\* breaks: CommittedOnMajority
\* excluded by: WinnersHoldTheirRecords
/\ currentEpoch = <<1, 2, 2>>
/\ votedId = <<1, 3, 3>>
/\ leaderId = <<1, 3, 3>>
/\ log = <<<<[epoch |-> 1, kind |-> "leaderChange", value |-> 1, voters |-> {}]>>, <<>>, <<>>>>
/\ dirId = <<0, 0, 0>>
/\ role = <<"Leader", "Follower", "Unattached">>
/\ highWatermark = <<0, 0, 0>>
/\ votesGranted = <<{}, {}, {}>>
/\ endorsers = <<{2}, {3}, {3}>>
/\ replicaEndOffset = <<<<1, 0, 0>>, <<0, 29332, 1>>, <<5366, 32755, 21600>>>>
/\ replicaDirectoryId = <<<<31911, 0, 0>>, <<31909, 9836, 4518>>, <<31910, 31331, 13359>>>>
/\ pendingVoterChange = <<{}, {}, {}>>
/\ messages = {[clusterId |-> "kraft", dest |-> 1, divergingEndOffset |-> 0, divergingEpoch |-> 0, epoch |-> 1, errorCode |-> "UNKNOWN_LEADER_EPOCH", fetchOffset |-> 1, highWatermark |-> 0, lastFetchedEpoch |-> 1, lastOffset |-> 0, lastOffsetEpoch |-> 0, leaderId |-> -1, preferredSuccessors |-> <<>>, records |-> <<[epoch |-> 0, kind |-> "VoteRequest", value |-> 0, voters |-> {}], [epoch |-> 0, kind |-> "Candidate", value |-> 0, voters |-> {}], [epoch |-> 0, kind |-> "kraft", value |-> 0, voters |-> {}]>>, source |-> 2, sourceDirectoryId |-> 0, type |-> "FetchRequest", voteGranted |-> FALSE, voterDirectoryId |-> 0, voterId |-> 0]}
/\ elections = {<<1, 1>>, <<2, 3>>}
/\ votes = {<<1, 1, 1>>, <<2, 1, 1>>, <<2, 2, 3>>, <<3, 2, 3>>}
/\ committed = {}
/\ restarts = 0
/\ unflushed = <<[epoch |-> -1, leaderId |-> -1, logLen |-> -1, votedId |-> -1], [epoch |-> -1, leaderId |-> -1, logLen |-> -1, votedId |-> -1], [epoch |-> -1, leaderId |-> -1, logLen |-> -1, votedId |-> -1]>>
/\ now = 0
/\ electionDeadline = <<0, 0, 0>>
/\ endQuorum = <<<<0, 0>>, <<0, 0>>, <<0, 0>>>>
/\ lastFetchTime = <<<<0, 0, 0>>, <<0, 0, 0>>, <<0, 0, 0>>>>
/\ checkQuorumDue = <<0, 0, 0>>
/\ beginEpochDue = <<<<0, 0, 0>>, <<0, 0, 0>>, <<0, 0, 0>>>>
