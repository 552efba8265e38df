"""Branch coverage of the protocol modules (``reference/core``) reached by ``kraftcheck verify``'s
default simulation campaigns.

The campaigns are read from ``kraftcheck verify`` itself (its ``simulate`` stages with their
default arguments), run in this process with one worker under coverage.py, and the branch
coverage of each module of ``reference/core`` is printed, with every branch never taken
(``line -> line`` and the source line), so that each can be argued. Three kinds of branch are
counted apart: those of the ``--inject-bug`` switches (their line tests ``.bugs``; a clean
campaign never takes the bug side), those of ``config.py`` (reading a properties file, not the
protocol; its unit tests cover it), and the branches listed in ``EXCLUDED`` below, each with the
reason it can never be taken by a driver that keeps the replica's contract (defensive checks)
or by a clean campaign at all (code only a bug switch calls). Every exclusion is printed with
its reason; one that matches no branch of its module stops the script (the source changed:
update the list), and an excluded branch that a campaign took is reported as a contradiction
(the reason is wrong) and counted. ``EXPLAINED`` gives the reason of branches that a clean
campaign does not reach although they are not defensive; they stay counted as missed.

    python benchmarks/branch_coverage.py [--seeds 1-200] [--steps 1000] [--json OUT]
"""

from __future__ import annotations

import argparse
import ast
import json
import linecache
import sys
from pathlib import Path

import coverage

ROOT = Path(__file__).resolve().parents[1]
PROTOCOL = ROOT / "reference" / "core"
sys.path.insert(0, str(ROOT))  # measure this checkout, whichever one is installed


# (module, function, source line, target line or "exit") -> why no clean campaign can take
# that branch. Lines are matched by their text (stripped), not their numbers.
EXCLUDED: dict[tuple[str, str, str, str], str] = {
    ("log.py", "append", "if self._epoch_starts and entry.epoch < self._epoch_starts[-1][0]:", "raise ValueError("):
        "driver contract: no handler appends an entry below the log's last epoch (a leader appends "
        "its own epoch, a follower the leader's records after a matching prefix)",
    ("log.py", "truncate", "if end_offset < 0:", 'raise ValueError(f"negative truncation offset {end_offset}")'):
        "driver contract: the only caller (Replica.truncate_log) passes the minimum of two end offsets",
    ("log.py", "truncate", "if end_offset >= len(self.entries):", "return"):
        "driver contract: Replica.truncate_log calls truncate only below the log end",
    ("replica.py", "step", "if now_ms < self.now:", 'raise ValueError(f"replica {self.id}: time went backwards ({now_ms} < {self.now})")'):
        "driver contract: the driver's clock never goes backwards",
    ("replica.py", "_deliver", "if m.dest != self.id:", 'raise ValueError(f"replica {self.id}: message for {m.dest} delivered here: {m}")'):
        "driver contract: the driver delivers a message only to its destination",
    ("replica.py", "truncate_log", "if end_offset < self.log.end_offset:", "exit"):
        "the fetch handler truncates to min(DivergingEpoch end offset, its own end of that epoch), "
        "always below its log end: its last epoch is the fetched one, above the diverging epoch, or "
        "equal to it with the fetch offset beyond the leader's end of it",
    ("replica.py", "_check_quorum", "if state.check_quorum_deadline <= self.now:",
     "state.check_quorum_deadline = self.now + self.config.fetch_timeout_ms"):
        "the recomputed check-quorum deadline is always after now: every fetch it counts is later "
        "than now minus the fetch timeout (or none is needed: now plus the timeout)",
    ("replica.py", "_voters_changed", "if voter != self.id:", "for voter in sorted(self.voters - previous.ids):"):
        "a leader's VotersRecord never adds the leader: it leads only as a voter and, once it "
        "removed itself, takes no other change before it resigns",
    ("replica.py", "committed_voter_set", "for offset in reversed(self.log.voters_record_offsets()):", "if offset < self.high_watermark:"):
        "committed_voter_set: only the bug switch majority-from-committed-voters calls it",
    ("replica.py", "committed_voter_set", "for offset in reversed(self.log.voters_record_offsets()):", "return self.bootstrap"):
        "committed_voter_set: only the bug switch majority-from-committed-voters calls it",
    ("replica.py", "committed_voter_set", "if offset < self.high_watermark:", "for offset in reversed(self.log.voters_record_offsets()):"):
        "committed_voter_set: only the bug switch majority-from-committed-voters calls it",
    ("replica.py", "committed_voter_set", "if offset < self.high_watermark:", "return VoterSet.of(self.log.entries[offset].voters)"):
        "committed_voter_set: only the bug switch majority-from-committed-voters calls it",
    ("replica.py", "fetch_completed", "if isinstance(s, Follower) or not self.is_voter:", "if isinstance(s, Follower) and self.is_voter:"):
        "fetch_completed is called only by the fetch-response handler, for a follower",
    ("replica.py", "schedule_election", "if isinstance(s, Follower):", "deadline = self.now + delay_ms"):
        "schedule_election is called only for the receiver of an EndQuorumEpoch it accepted: it "
        "follows that epoch's leader (it knew it, or took the larger epoch with it)",
    ("replica.py", "endorse", "if isinstance(state, Leader):", "exit"):
        "endorse is called only by a leader's Fetch and BeginQuorumEpoch-response handlers",
    ("rpc_fetch.py", "handle_fetch_request", "if last_fetch is not None:", "r.update_leader_high_watermark()"):
        "the Fetch handler records progress only as a leader, whose state always has last_fetch_ms",
    ("voter_set.py", "directory_of", "for vid, directory in self.keys:", "return NO_DIRECTORY"):
        "directory_of is asked only about a voter of the set (a candidate's VoteRequest targets, "
        "a leader's BeginQuorumEpoch to a voter still in its set)",
}

# Branches a clean campaign does not reach although they are not defensive: counted as missed,
# printed with their reason.
EXPLAINED: dict[tuple[str, str, str, str], str] = {
    ("rpc_epoch.py", "handle_begin_quorum_epoch_request", "elif r.leader_id != m.source:", "_respond(r, m, BEGIN_QUORUM_EPOCH_RESPONSE, INVALID_QUORUM_STATE)"):
        "needs two leaders of one epoch (the spec's ElectionSafety)",
    ("rpc_epoch.py", "handle_end_quorum_epoch_request", "if cluster_id_mismatch(r, m):", "_respond(r, m, END_QUORUM_EPOCH_RESPONSE, INVALID_CLUSTER_ID)"):
        "the spec's foreign requests (ForeignRequests) are Vote, BeginQuorumEpoch and Fetch only",
    ("rpc_epoch.py", "handle_end_quorum_epoch_response", "if m.errorCode != INVALID_CLUSTER_ID:", "exit"):
        "INVALID_CLUSTER_ID answers a foreign request; the spec has no foreign EndQuorumEpoch or "
        "UpdateVoter request",
    ("rpc_epoch.py", "handle_end_quorum_epoch_request", "if r.id not in m.preferredSuccessors:", "_respond(r, m, END_QUORUM_EPOCH_RESPONSE, INCONSISTENT_VOTER_SET)"):
        "Resign names every voter it sends EndQuorumEpoch to as a preferred successor",
    ("rpc_epoch.py", "handle_end_quorum_epoch_request", "if r.role in (FOLLOWER, UNATTACHED, VOTED):", "_respond(r, m, END_QUORUM_EPOCH_RESPONSE)"):
        "an accepted EndQuorumEpoch finds its receiver following that epoch's leader (it knew it, "
        "or took the larger epoch with it)",
    ("rpc_fetch.py", "handle_fetch_request", "if m.fetchOffset < 0 or m.lastFetchedEpoch < 0 or m.lastFetchedEpoch > m.epoch:",
     "_error_response(r, m, INVALID_REQUEST)  # a position no replica can hold (as Kafka)"):
        "no spec action sends a malformed Fetch (KRaft.tla's MalformedFetch guards the leader; "
        "SendFetchRequest and SendForeignRequest never build one)",
    ("rpc_vote.py", "handle_vote_request", "if not may_vote or (not dynamic and m.source not in r.voters):", "_respond(r, m, False)"):
        "a static quorum: only voters stand and they ask only voters (bug switch observer-votes does)",
    ("rpc_voters.py", "refusal", "if cluster_id_mismatch(r, m):", "return INVALID_CLUSTER_ID"):
        "the spec's voter-change requests carry ClusterId (no foreign voter-change request)",
    ("rpc_voters.py", "refusal", "if r.kraft_version != DYNAMIC:", "return UNSUPPORTED_VERSION"):
        "a static quorum's traces have no voter-change requests (VoterChangeRequests = {} with "
        "kraft.version 0)",
    ("rpc_voters.py", "handle_update_voter_response", "if m.errorCode != INVALID_CLUSTER_ID:", "exit"):
        "INVALID_CLUSTER_ID answers a foreign request; the spec has no foreign UpdateVoter request",
    ("replica.py", "_initial_state", "if not self.is_voter and self.kraft_version == DYNAMIC:  # removed: looks for the leader",
     "voted.next_fetch_at = self.now"):
        "a replica outside its voter set that granted a vote (KIP-853 lets it) and restarted before "
        "it learned that epoch's leader: reachable, rare, not reached by verify's seeds",
    ("replica.py", "_fire_timer", "if timed_out or (s.fetch_sent_at is None and s.next_fetch_at is not None and s.next_fetch_at <= now):",
     "exit"):
        "a replica outside its voter set without a leader, ticked with no fetch due: the simulator "
        "ticks a replica at its earliest deadline and drops outdated ticks",
    ("replica.py", "_fire_timer", "if targets:", "s.fetch_sent_at = None"):
        "a replica without a leader whose voter set holds nobody else: the only voter of a one-voter "
        "quorum that lost its disk (the standalone-bootstrap runs of the tests reach it); the cluster "
        "cannot recover from it",
    ("log.py", "itf", "if text is None:", "return text"):
        "the cached ITF text of a log is reused only when a full state is written again "
        "(simulate --full-state-every); verify's traces carry deltas",
}


def _functions(path: Path) -> dict[int, str]:
    """Line number -> name of the innermost function holding it (``ast.walk`` visits outer
    nodes before inner ones)."""
    names: dict[int, str] = {}
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.end_lineno is not None:
            for line in range(node.lineno, node.end_lineno + 1):
                names[line] = node.name
    return names


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
    report: dict[str, object] = {"campaigns": [" ".join(s) for s in stages], "modules": {}}
    taken = branches = bug_missed = excluded = 0
    unmatched = set(EXCLUDED) | set(EXPLAINED)
    contradicted: list[str] = []
    for path in sorted(PROTOCOL.glob("*.py")):
        analysis = cov._analyze(str(path))  # the public report API prints; this gives the numbers
        n, missed = analysis.numbers.n_branches, analysis.numbers.n_missing_branches

        functions = _functions(path)

        def key(a: int, b: int, name: str = path.name, src: Path = path,
                fns: dict[int, str] = functions) -> tuple[str, str, str, str]:
            return (name, fns.get(a, ""), linecache.getline(str(src), a).strip(),
                    "exit" if b < 0 else linecache.getline(str(src), b).strip())

        missing = [(a, b) for a, targets in sorted(analysis.missing_branch_arcs().items()) for b in targets]
        executed = [(a, b) for a, targets in sorted(analysis.executed_branch_arcs().items()) for b in targets]
        unmatched -= {key(a, b) for a, b in missing + executed}
        contradicted += [f"{path.name} {a} -> {b}: {EXCLUDED[key(a, b)]}" for a, b in executed if key(a, b) in EXCLUDED]
        lines = [(a, b, key(a, b)[2]) for a, b in missing]
        switch = [x for x in lines if ".bugs" in x[2]]
        out = [x for x in lines if key(x[0], x[1]) in EXCLUDED]
        counted_here = n - len(out) - len(switch)
        pct = 100.0 * (counted_here - (missed - len(out) - len(switch))) / counted_here if counted_here else 100.0
        report["modules"][path.name] = {  # type: ignore[index]
            "branches": n, "taken": n - missed, "excluded": len(out), "percent": round(pct, 1),
            "missed": [f"{a} -> {'exit' if b < 0 else b}: {text}" for a, b, text in lines]}
        print(f"{path.name:22} {n - missed:4}/{n - len(out) - len(switch):<4} branches {pct:5.1f} %"
              + (" (configuration parsing: not counted)" if path.name == "config.py" else "")
              + (f" ({len(out) + len(switch)} excluded)" if out or switch else ""))
        for a, b, text in lines:
            k = key(a, b)
            why = ("   [bug switch: not counted]" if ".bugs" in text else
                   f"\n        not counted: {EXCLUDED[k]}" if k in EXCLUDED else
                   f"\n        missed: {EXPLAINED[k]}" if k in EXPLAINED else "")
            print(f"    {a} -> {'exit' if b < 0 else b}: {text}{why}")
        if path.name != "config.py":
            branches += n
            taken += n - missed
            bug_missed += len(switch)
            excluded += len(out)
    if unmatched:
        raise SystemExit("exclusions or explanations that match no branch (the source changed, update the lists): "
                         + "; ".join(" | ".join(k) for k in sorted(unmatched)))
    counted = branches - bug_missed - excluded
    pct = 100.0 * taken / counted if counted else 100.0
    report.update(branches=branches, taken=taken, bug_switch_branches=bug_missed, excluded_branches=excluded,
                  percent=round(pct, 2), contradicted_exclusions=contradicted)
    for c in contradicted:
        print(f"CONTRADICTED EXCLUSION (taken by the campaign, counted): {c}")
    print(f"\nreference/core protocol modules: {taken}/{counted} branches taken, {pct:.1f} % "
          f"({bug_missed} branches of bug switches and {excluded} excluded branches (listed with their "
          f"reasons above), never taken by a clean campaign, not counted; "
          f"{100.0 * taken / branches if branches else 100.0:.1f} % with them)")
    if args.json:
        args.json.write_text(json.dumps(report, indent=2))


if __name__ == "__main__":
    main()
