"""Reference implementation of KRaft (KIP-595), in rooms by layer.

* ``reference.core`` -- the sans-I/O replica (``Replica.step(input, now) -> Ready``): one
  class per replica state, one module per RPC, messages, the in-memory log, configuration.
* ``reference.storage`` -- durable state: the storage interface and the in-memory storage of
  the simulator, the checksummed log file, the quorum-state file, ``meta.properties``,
  ``recovery`` (the start-up rules: nothing acknowledged lost silently), ``persist`` (applying
  a step's ``Ready`` in the order the KIP requires), and the ``kraftcheck storage
  check|dump|rejoin`` command.
* ``reference.sim`` -- the deterministic simulator (``run_seed``), its fault kinds, the
  safety invariants, the bug switches, the ``kraftcheck simulate`` subcommand.
* ``reference.trace`` -- the trace writer (``traces/FORMAT.md``), ITF encoding and export,
  and the spec constants written in a trace header.

Imports go downward only: ``sim`` uses ``core``, ``storage`` and ``trace``; ``storage`` and
``trace`` use ``core``; ``core`` uses nothing else of the package.
"""

__version__ = "0.1.0"
