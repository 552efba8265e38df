"""The sans-I/O KRaft replica: pure functions of (state, input) -> (state, Ready).

``replica`` holds the ``Replica`` and its inputs and ``Ready``; ``states`` one class per
replica state; ``rpc_vote``, ``rpc_epoch`` (BeginQuorumEpoch, EndQuorumEpoch) and
``rpc_fetch`` (Fetch, DescribeQuorum) the handlers, written against ``handler_context``;
``messages`` entries, messages and error codes; ``log`` the in-memory log with its epoch
cache; ``quorum_state`` the durable record the replica asks to persist; ``config`` the
quorum configuration. No I/O, no clock, no imports from the other rooms.
"""
