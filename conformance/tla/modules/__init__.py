"""TLA+ source of the community and proof modules the engine provides: read like a
spec's own modules, from the last folder of every search path (a spec's own copy of a
module wins). Definitions are written from the modules' documented meaning."""

from pathlib import Path

FOLDER = Path(__file__).resolve().parent
"""The folder holding the bundled ``.tla`` modules."""
