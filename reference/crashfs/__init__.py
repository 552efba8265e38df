"""Crash-consistency testing of the file storage, in the style of ALICE and CrashMonkey.

``model``: a file-system model that records every write, truncation, creation, rename and
fsync of one data folder, knows which of them are durable, and lists the states a crash may
leave (unsynced operations dropped, reordered — any subset reaches the disk — and the last
write torn); ``recording``: the ``FileSystem`` that performs the operations on real files and
feeds the model; ``acknowledged``: what a replica has acknowledged to others (an epoch, a vote,
a fetch offset, a high watermark) and the checks that a recovered folder kept it;
``file_disk``: a replica's disk for the simulator, which at each crash recovers every explored
crash state from real files and continues from one of them.
"""
