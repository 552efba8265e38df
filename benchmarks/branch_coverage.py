"""Branch coverage of the protocol modules (``reference/core``) reached by ``kraftcheck verify``'s
default simulation campaigns.

The campaigns are read from ``kraftcheck verify`` itself (its ``simulate`` stages with their
default arguments), run in this process with one worker under coverage.py, and the branch
coverage of each module of ``reference/core`` is printed, with every branch never taken
(``line -> line`` and the source line), so that each can be argued. Two kinds of branch are
counted apart: those of the ``--inject-bug`` switches (their line tests ``.bugs``; a clean
campaign never takes the bug side) and those of ``config.py`` (reading a properties file,
not the protocol; its unit tests cover it).

    python benchmarks/branch_coverage.py [--seeds 1-200] [--steps 1000] [--json OUT]
"""

from __future__ import annotations

import argparse
import json
import linecache
import sys
from pathlib import Path

import coverage

ROOT = Path(__file__).resolve().parents[1]
PROTOCOL = ROOT / "reference" / "core"
sys.path.insert(0, str(ROOT))  # measure this checkout, whichever one is installed


def campaigns(seeds: str | None, steps: int | None) -> list[list[str]]:
    """The ``simulate`` argument lists of ``kraftcheck verify`` (its defaults), one worker."""
    from conformance import verify_cmd
    from conformance.spec_location import spec_dir

    parser = argparse.ArgumentParser()
    verify_cmd.register(parser.add_subparsers())
    argv = ["verify"]
    argv += ["--seeds", seeds] if seeds else []
    argv += ["--steps", str(steps)] if steps else []
    args = parser.parse_args([*argv, "--jobs", "1", "--out", "/nonexistent-unused"])
    out = []
    for name, stage in verify_cmd._stages(args, spec_dir()):
        if name.startswith("simulate"):
            out.append(stage)
    if not out:
        raise SystemExit("kraftcheck verify has no simulate stage")
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", default=None, help="override verify's seeds (default: verify's)")
    parser.add_argument("--steps", type=int, default=None, help="override verify's steps (default: verify's)")
    parser.add_argument("--json", type=Path, default=None, help="write the figures and missed branches here")
    args = parser.parse_args()
    import tempfile

    stages = campaigns(args.seeds, args.steps)
    cov = coverage.Coverage(branch=True, source=[str(PROTOCOL)], data_file=None)
    from conformance.cli import main as kraftcheck

    with tempfile.TemporaryDirectory() as tmp:
        cov.start()
        try:
            for k, stage in enumerate(stages):
                run = list(stage)  # as verify runs it: traces written (to a scratch folder)
                if "--out" in run:
                    run[run.index("--out") + 1] = f"{tmp}/{k}"
                print("kraftcheck " + " ".join(run), file=sys.stderr, flush=True)
                code = kraftcheck(run)
                if code != 0:
                    raise SystemExit(f"the campaign failed (exit {code}): kraftcheck {' '.join(run)}")
        finally:
            cov.stop()
    taken = branches = bug_missed = 0
    report: dict[str, object] = {"campaigns": [" ".join(s) for s in stages], "modules": {}}
    for path in sorted(PROTOCOL.glob("*.py")):
        analysis = cov._analyze(str(path))  # the public report API prints; this gives the numbers
        n, missed = analysis.numbers.n_branches, analysis.numbers.n_missing_branches
        lines = [(a, b, linecache.getline(str(path), a).strip())
                 for a, targets in sorted(analysis.missing_branch_arcs().items()) for b in targets]
        switch = [x for x in lines if ".bugs" in x[2]]
        pct = 100.0 * (n - missed) / n if n else 100.0
        report["modules"][path.name] = {  # type: ignore[index]
            "branches": n, "taken": n - missed, "percent": round(pct, 1),
            "missed": [f"{a} -> {'exit' if b < 0 else b}: {text}" for a, b, text in lines]}
        print(f"{path.name:22} {n - missed:4}/{n:<4} branches {pct:5.1f} %"
              + (" (configuration parsing: not counted)" if path.name == "config.py" else ""))
        for a, b, text in lines:
            print(f"    {a} -> {'exit' if b < 0 else b}: {text}" + ("   [bug switch]" if ".bugs" in text else ""))
        if path.name != "config.py":
            branches += n
            taken += n - missed
            bug_missed += len(switch)
    counted = branches - bug_missed
    pct = 100.0 * taken / counted if counted else 100.0
    report.update(branches=branches, taken=taken, bug_switch_branches=bug_missed, percent=round(pct, 2))
    print(f"\nreference/core protocol modules: {taken}/{counted} branches taken, {pct:.1f} % "
          f"({bug_missed} branches of bug switches, never taken by a clean campaign, not counted; "
          f"{100.0 * taken / branches if branches else 100.0:.1f} % with them)")
    if args.json:
        args.json.write_text(json.dumps(report, indent=2))


if __name__ == "__main__":
    main()
