"""Reference implementation of KIP-595 KRaft: sans-I/O core, storage, simulator, traces.

Modules:

* ``replica`` -- the sans-I/O replica (``Replica.step(input, now) -> Ready``); ``states``
  holds one class per replica state; ``rpc_vote``, ``rpc_epoch`` (BeginQuorumEpoch,
  EndQuorumEpoch) and ``rpc_fetch`` (Fetch, DescribeQuorum) the handlers; ``log`` the
  in-memory log with its epoch cache; ``messages`` entries and messages; ``config`` the
  KIP-595 configuration; ``bugs`` the bug switches.
* ``storage`` the storage interface and the simulator's in-memory storage; ``file_records``,
  ``file_log``, ``quorum_state_file``, ``meta_properties`` and ``file_storage`` the durable
  files; ``recovery`` the start-up rules (nothing acknowledged lost silently);
  ``storage_check`` and ``storage_cmd`` the ``kraftcheck storage check|dump|rejoin`` command.
* ``simulator`` the deterministic simulator (``run_seed``), ``faults`` its fault kinds,
  ``invariants`` the safety checks, ``cli`` the ``kraftcheck simulate`` subcommand.
* ``trace_writer``, ``itf_encode``, ``spec_constants`` the traces (``traces/FORMAT.md``);
  ``itf_export`` their export to ITF.
"""

__version__ = "0.1.0"
