"""Executable TLA+ engine, Apalache driver and trace conformance checking for KRaft."""

from conformance import native as _native

_native.install()  # before the engine's compiled modules are first imported
