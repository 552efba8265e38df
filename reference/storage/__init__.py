"""Durable state of a replica: the storage interface and in-memory storage with crash
semantics (``base``), the checksummed log file (``file_log``), the quorum-state file
(``quorum_state_file``), ``meta.properties`` (``meta_properties``), a directory of those
(``file_storage``), and ``persist``, which applies a step's ``Ready`` in the KIP's order."""
