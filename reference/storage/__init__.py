"""Durable state of a replica: the storage interface and in-memory storage with crash
semantics (``base``), the log file's record format (``file_records``: data, leaderChange and
KIP-853 VotersRecords) and the checksummed log file (``file_log``), the quorum-state file
(``quorum_state_file``, data_version 0 and 1), ``meta.properties`` with the directory id
(``meta_properties``), the start-up rules that never lose acknowledged data (``recovery``), a
directory of those (``file_storage``), the file operations they use (``filesystem``: the operating
system's, or a crash model's), ``persist``, which applies a step's ``Ready`` in the KIP's order,
and the ``kraftcheck storage check|dump|rejoin`` command (``check``, ``cli``)."""
