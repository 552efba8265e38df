"""Executable TLA+ engine, Apalache driver and trace conformance checking for KRaft."""
