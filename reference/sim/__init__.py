"""The deterministic simulator of a KRaft cluster (``simulator.run_seed``), its fault kinds
(``faults``), the safety invariants checked after every step (``invariants``), the bug
switches that break one rule each (``bugs``), and the ``kraftcheck simulate`` subcommand
(``cli``)."""
