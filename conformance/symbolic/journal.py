"""The journal of a proof (``kraftcheck prove --journal FILE``): an interrupted run resumes
where it stopped.

A whole proof of the KRaft spec takes hours of solver time. Each obligation (or piece)
decided is appended to the journal as one JSON line as soon as it is known, keyed by a
digest of everything its verdict depends on: the checker's own source (``conformance``),
the z3 version, the text of every module the spec loads, the cfg, the options of the
proof (bounds, budgets, cases, goals) and the obligation itself. A later run with the same
journal takes a result whose key matches instead of deciding it again; change any of
those inputs and nothing is taken.

Only ``proved`` and ``unknown`` results are kept. An unknown result taken from the journal
never proves anything: it only decides that the obligation is split again (``--split``)
the way it was. Counterexamples and errors are decided again (their states are re-checked
by the explicit engine every time). A line that cannot be read (a run killed while
writing it, say) is reported on stderr with its line number and ignored: that obligation
is decided again, nothing else is lost.
"""

from __future__ import annotations

import hashlib
import json
import sys
from collections.abc import Iterator
from dataclasses import asdict, fields, replace
from pathlib import Path
from typing import Any

import z3

from conformance.symbolic.prove import Obligation, ObligationResult, ProofInput
from conformance.tla.loader import ModuleLoader

KEPT = ("proved", "unknown")
_SOURCE_ROOT = Path(__file__).resolve().parents[1]  # the conformance package


def _source_digest() -> str:
    """The digest of the checker's Python source and bundled modules (what decides a verdict)."""
    h = hashlib.sha256()
    for path in sorted(_SOURCE_ROOT.rglob("*")):
        if path.suffix in (".py", ".tla") and path.is_file():
            h.update(str(path.relative_to(_SOURCE_ROOT)).encode())
            h.update(path.read_bytes())
    return h.hexdigest()


def input_digest(inp: ProofInput) -> str:
    """The digest of everything the obligations of ``inp`` depend on (but the obligation)."""
    loader = ModuleLoader(inp.search_path)
    root = loader.load_file(inp.spec)
    modules = [root, *loader.load_dependencies(root).values()]
    h = hashlib.sha256()
    h.update(_source_digest().encode())
    h.update(z3.get_full_version().encode())
    for module in sorted(modules, key=lambda m: m.name):
        h.update(module.name.encode())
        h.update(Path(module.file).read_bytes())
    h.update(Path(inp.cfg).read_bytes())
    options = {f.name: getattr(inp, f.name) for f in fields(inp)
               if f.name not in ("spec", "cfg", "search_path")}
    h.update(repr(sorted(options.items())).encode())
    return h.hexdigest()


class Journal:
    """The results of one proof's earlier runs, and the file new ones are appended to."""

    def __init__(self, path: Path, inp: ProofInput) -> None:
        self.path = path
        self._digest = input_digest(inp)
        self._found: dict[str, ObligationResult] = {}
        self.taken = 0
        if path.exists():
            self._read()

    def _read(self) -> None:
        for key, result in entries(self.path, "that obligation is decided again"):
            self._found[key] = result

    def key(self, ob: Obligation) -> str:
        """The obligation's key: the inputs' digest and the obligation, its goals in a
        canonical order (which conjuncts it asks, not in what order they were listed)."""
        return hashlib.sha256(f"{self._digest}\n{_canonical(ob)!r}".encode()).hexdigest()

    def get(self, ob: Obligation) -> ObligationResult | None:
        """The result of ``ob`` from an earlier run with the same inputs, if kept."""
        found = self._found.get(self.key(ob))
        if found is None or _canonical(found.obligation) != _canonical(ob):
            return None
        self.taken += 1
        return replace(found, obligation=ob, journaled=True)

    def record(self, r: ObligationResult) -> None:
        """Append ``r`` (if proved or unknown), flushed at once."""
        if r.verdict not in KEPT or r.journaled:
            return
        with self.path.open("a", encoding="utf-8") as f:
            f.write(json.dumps({"key": self.key(r.obligation), "result": _entry_of(r)}, sort_keys=True) + "\n")
            f.flush()


def entries(path: Path, then: str = "skipped") -> Iterator[tuple[str, ObligationResult]]:
    """Every entry of the journal ``path`` (whatever its inputs), its key and its result;
    a line that cannot be read is reported on stderr with its number and what ``then``
    happens to it."""
    with path.open(encoding="utf-8") as f:
        for number, line in enumerate(f, start=1):
            if not line.strip():
                continue
            try:
                entry = json.loads(line)
                key, result = entry["key"], _result_of(entry["result"])
            except (ValueError, KeyError, TypeError) as exc:
                print(f"warning: {path}:{number}: not a journal entry ({exc}); {then}", file=sys.stderr)
                continue
            yield key, result


def _canonical(ob: Obligation) -> Obligation:
    """``ob`` with its goals sorted: which conjuncts it asks, not in what order they were
    listed (a result taken from the journal lists its open conjuncts as it kept them)."""
    return replace(ob, goals=tuple(sorted(ob.goals)))


_RESULT_FIELDS = ("verdict", "seconds", "message", "cpu_seconds", "conjuncts", "questions", "rlimit_used",
                  "kept", "changed", "conjunct_units")


def _entry_of(r: ObligationResult) -> dict[str, Any]:
    out = {name: getattr(r, name) for name in _RESULT_FIELDS}
    out["conjuncts"] = [[label, v] for label, v in r.conjuncts.items()]  # in the invariant's order
    out["conjunct_units"] = [[label, n] for label, n in r.conjunct_units.items()]
    out["obligation"] = asdict(r.obligation)
    return out


def _result_of(entry: dict[str, Any]) -> ObligationResult:
    ob = dict(entry["obligation"])
    ob["goals"] = tuple(ob["goals"])
    ob["kept"], ob["changed"] = _frame_of(ob)
    obligation = Obligation(**ob)
    if entry["verdict"] not in KEPT:
        raise ValueError(f"verdict {entry['verdict']!r}")
    kept, changed = _frame_of(entry)
    return ObligationResult(obligation, entry["verdict"], float(entry["seconds"]),
                            message=str(entry["message"]), cpu_seconds=float(entry["cpu_seconds"]),
                            conjuncts=_conjuncts_of(entry["conjuncts"]), questions=dict(entry["questions"]),
                            rlimit_used=int(entry["rlimit_used"]), kept=kept, changed=changed,
                            conjunct_units=_units_of(entry.get("conjunct_units", [])))


def _frame_of(fields: dict[str, Any]) -> tuple[tuple[str, ...] | None, tuple[str, ...]]:
    """``kept`` and ``changed`` as ``_entry_of`` writes them (lists of variable names;
    ``kept`` null: not known). Entries of an earlier version lack both (their keys match
    nothing anyway): not known, none."""
    kept, changed = fields.get("kept"), fields.get("changed", [])
    for names in (kept or [], changed):
        if not isinstance(names, list) or not all(isinstance(n, str) for n in names):
            raise ValueError("kept, changed: not a list of variable names")
    return (None if kept is None else tuple(kept)), tuple(changed)


def _conjuncts_of(kept: Any) -> dict[str, str]:
    """The conjuncts' outcomes as ``_entry_of`` keeps them: a list of [label, outcome] pairs
    in the invariant's order."""
    if not isinstance(kept, list) or not all(isinstance(p, list) and len(p) == 2 for p in kept):
        raise ValueError("conjuncts: not a list of [label, outcome] pairs")
    return {str(label): str(v) for label, v in kept}


def _units_of(kept: Any) -> dict[str, int]:
    """What each conjunct's questions spent, as ``_entry_of`` keeps it: a list of
    [label, units] pairs (none in an entry of an earlier version)."""
    if not isinstance(kept, list) or not all(isinstance(p, list) and len(p) == 2 and isinstance(p[1], int)
                                             for p in kept):
        raise ValueError("conjunct_units: not a list of [label, units] pairs")
    return {str(label): n for label, n in kept}


__all__ = ["Journal", "entries", "input_digest"]
