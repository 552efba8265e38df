"""Reference implementation of KIP-595 KRaft: sans-I/O core, storage, simulator, traces."""

__version__ = "0.1.0"
