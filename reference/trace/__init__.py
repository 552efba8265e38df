"""Traces of the reference implementation (``traces/FORMAT.md``): the trace writer
(``trace_writer``) and the per-event changes it writes (``trace_delta``), ITF encoding of
states and messages (``itf_encode``), export of a trace to an ITF file (``itf_export``), and
the spec constants and names shared with ``spec/KRaft.tla`` (``spec_constants``)."""
