"""Mutation campaign: realistic bugs in ``reference/``, one at a time, and whether the checks see them.

Each mutation is a one-place source edit of the reference implementation (not one of the
``--inject-bug`` switches): a check dropped, a comparison off by one, a field taken from the
wrong place. For each, a copy of ``reference/`` with the edit applied is simulated over the
same seeds as the unmutated code (the campaigns below, default faults, foreign requests included),
and the traces are validated against the spec with the unmutated checker. The outcome:

- ``caught``: the simulator's own invariants failed, or the validator REJECTed a trace;
- ``acted, accepted``: some traces differ from the unmutated run's, and the spec allows all of them;
- ``never acted``: every trace equals the unmutated run's (the campaign never reached the bug
  in a way a trace shows).

A trace identical to the unmutated run's is not validated again: it has the unmutated trace's
verdict, and every unmutated trace must be ACCEPTed (the script stops otherwise).

    python benchmarks/mutation.py [--seeds 1-20] [--steps 1000] [--campaigns static:3,dynamic:3,static:5]
                                  [--jobs 2] [--only NAME,...] [--list] [--json OUT]
"""

from __future__ import annotations

import argparse
import filecmp
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))  # the unmutated checkout (its fault lists)


@dataclass(frozen=True)
class Mutation:
    """One bug: replace ``old`` (found exactly once in ``path``) by ``new``."""

    name: str
    path: str
    old: str
    new: str
    what: str
    # Why a miss would be expected (the spec does not constrain what the bug changes), or "".
    if_missed: str = ""


MUTATIONS: tuple[Mutation, ...] = (
    # -- Vote ---------------------------------------------------------------
    Mutation("vote-no-cluster-check", "reference/core/rpc_vote.py",
             "    if cluster_id_mismatch(r, m):\n        _respond(r, m, False, INVALID_CLUSTER_ID)",
             "    if False:\n        _respond(r, m, False, INVALID_CLUSTER_ID)",
             "a VoteRequest carrying another cluster id is handled like any other"),
    Mutation("vote-stale-epoch-handled", "reference/core/rpc_vote.py",
             "    if m.epoch < r.current_epoch:\n        _respond(r, m, False, FENCED_LEADER_EPOCH)",
             "    if m.epoch < r.current_epoch - 1:\n        _respond(r, m, False, FENCED_LEADER_EPOCH)",
             "a VoteRequest one epoch old is not fenced"),
    Mutation("vote-larger-epoch-not-taken", "reference/core/rpc_vote.py",
             "    if m.epoch > r.current_epoch:\n        r.transition_to_unattached(m.epoch)\n    may_vote",
             "    may_vote",
             "a VoteRequest of a larger epoch is answered without taking that epoch"),
    Mutation("vote-twice-in-epoch", "reference/core/rpc_vote.py",
             "if r.voted_id == NIL and r.leader_id == NIL and log_ok:",
             "if r.leader_id == NIL and log_ok:",
             "a voter that voted in this epoch grants another candidate too"),
    Mutation("vote-despite-known-leader", "reference/core/rpc_vote.py",
             "if r.voted_id == NIL and r.leader_id == NIL and log_ok:",
             "if r.voted_id == NIL and log_ok:",
             "a follower of this epoch's leader grants a vote in the same epoch"),
    Mutation("uptodate-equal-refused", "reference/core/log.py",
             "        return end_offset >= len(self.entries)",
             "        return end_offset > len(self.entries)",
             "a candidate whose log equals the voter's is not up to date"),
    Mutation("uptodate-length-only", "reference/core/log.py",
             "        if last_epoch != mine:\n            return last_epoch > mine\n",
             "",
             "the up-to-date check compares log lengths only, not last epochs"),
    Mutation("vote-response-counts-refusals", "reference/core/rpc_vote.py",
             "    if m.voteGranted and counts:",
             "    if counts:",
             "a candidate counts refused votes as grants"),
    Mutation("vote-response-any-epoch", "reference/core/rpc_vote.py",
             "    if r.role != CANDIDATE or m.epoch != r.current_epoch:\n        return\n    counting",
             "    if r.role != CANDIDATE:\n        return\n    counting",
             "a candidate counts grants of an older epoch's election"),
    Mutation("majority-rounds-down", "reference/core/voter_set.py",
             "return cls(keys, ids, len(keys) // 2 + 1)",
             "return cls(keys, ids, (len(keys) + 1) // 2)",
             "a majority of an even voter set is half of it"),
    Mutation("refused-candidate-always-waits", "reference/core/rpc_vote.py",
             "    elif not m.voteGranted and len(counting.ids) == 2:",
             "    elif not m.voteGranted:",
             "a refused candidate steps down to Voted in any quorum, not only a two-voter one"),
    # -- BeginQuorumEpoch / EndQuorumEpoch ------------------------------------
    Mutation("begin-epoch-stale-accepted", "reference/core/rpc_epoch.py",
             "    if m.epoch < r.current_epoch:\n        _respond(r, m, BEGIN_QUORUM_EPOCH_RESPONSE, FENCED_LEADER_EPOCH)",
             "    if m.epoch < r.current_epoch - 1:\n        _respond(r, m, BEGIN_QUORUM_EPOCH_RESPONSE, FENCED_LEADER_EPOCH)",
             "a BeginQuorumEpoch one epoch old is not fenced (the receiver may go back an epoch)"),
    Mutation("begin-epoch-conflicting-leader", "reference/core/rpc_epoch.py",
             "    elif r.leader_id != m.source:\n        _respond(r, m, BEGIN_QUORUM_EPOCH_RESPONSE, INVALID_QUORUM_STATE)\n        return\n",
             "",
             "a BeginQuorumEpoch naming another leader of the known leader's epoch is acknowledged"),
    Mutation("begin-epoch-response-any-epoch", "reference/core/rpc_epoch.py",
             "if m.errorCode == NONE and r.role == LEADER and m.epoch == r.current_epoch:",
             "if m.errorCode == NONE and r.role == LEADER:",
             "a leader counts an endorsement of an older epoch"),
    Mutation("end-epoch-stale-accepted", "reference/core/rpc_epoch.py",
             "    if m.epoch < r.current_epoch:\n        _respond(r, m, END_QUORUM_EPOCH_RESPONSE, FENCED_LEADER_EPOCH)",
             "    if m.epoch < r.current_epoch - 1:\n        _respond(r, m, END_QUORUM_EPOCH_RESPONSE, FENCED_LEADER_EPOCH)",
             "an EndQuorumEpoch one epoch old is not fenced"),
    Mutation("end-epoch-no-successor-backoff", "reference/core/rpc_epoch.py",
             " else m.preferredSuccessors.index(r.id)",
             " else 0",
             "every preferred successor starts its election at once (no back-off by position)"),
    # -- Fetch (leader side) ----------------------------------------------------
    Mutation("fetch-stale-epoch-served", "reference/core/rpc_fetch.py",
             "    if m.epoch < r.current_epoch:\n        _error_response(r, m, FENCED_LEADER_EPOCH)\n        return\n",
             "",
             "the leader serves a Fetch of an older epoch"),
    Mutation("fetch-newer-epoch-served", "reference/core/rpc_fetch.py",
             "    if m.epoch > r.current_epoch:\n        _error_response(r, m, UNKNOWN_LEADER_EPOCH)\n        return\n",
             "",
             "a deposed leader serves a Fetch of a newer epoch"),
    Mutation("fetch-position-strict", "reference/core/rpc_fetch.py",
             "    return found == last_fetched_epoch and fetch_offset <= end",
             "    return found == last_fetched_epoch and fetch_offset < end",
             "a fetch offset at the end of its epoch is taken for a divergence"),
    Mutation("fetch-progress-before-check", "reference/core/rpc_fetch.py",
             "    r.endorse(m.source)\n    if not fetch_position_valid",
             "    r.endorse(m.source)\n    r.replica_end_offset[m.source] = m.fetchOffset\n    if not fetch_position_valid",
             "the leader records a diverged follower's fetch offset as its progress"),
    Mutation("hw-majority-off-by-one", "reference/core/replica.py",
             "        candidate = ends[counting.majority - 1]",
             "        candidate = ends[max(0, counting.majority - 2)]",
             "the high watermark needs one replica fewer than a majority"),
    Mutation("hw-may-decrease", "reference/core/replica.py",
             "        if candidate <= self.high_watermark:\n            return self.high_watermark\n",
             "        if candidate == self.high_watermark:\n            return self.high_watermark\n",
             "the leader's high watermark may move backwards"),
    Mutation("hw-epoch-check-at-old-hw", "reference/core/replica.py",
             "self.log.epoch_at(candidate - 1) != self.current_epoch",
             "self.log.epoch_at(self.high_watermark) != self.current_epoch",
             "the commit rule looks at the first uncommitted entry instead of the last one committed"),
    # -- Fetch (follower side) --------------------------------------------------
    Mutation("follower-hw-beyond-log", "reference/core/rpc_fetch.py",
             "        r.append_entries(m.records)\n        r.high_watermark = max(r.high_watermark, min(m.highWatermark, r.log.end_offset))",
             "        r.append_entries(m.records)\n        r.high_watermark = max(r.high_watermark, m.highWatermark)",
             "a follower takes the leader's high watermark beyond its own log end"),
    Mutation("follower-hw-replaced", "reference/core/rpc_fetch.py",
             "        r.append_entries(m.records)\n        r.high_watermark = max(r.high_watermark, min(m.highWatermark, r.log.end_offset))",
             "        r.append_entries(m.records)\n        r.high_watermark = min(m.highWatermark, r.log.end_offset)",
             "a follower replaces its high watermark by the leader's, which may be lower"),
    Mutation("fetch-response-any-source", "reference/core/rpc_fetch.py",
             " or r.role != FOLLOWER or m.source != r.leader_id:",
             " or r.role != FOLLOWER:",
             "a follower applies a fetch response from a replica that is not its leader"),
    Mutation("fetch-stale-offset-only", "reference/core/rpc_fetch.py",
             "    stale = m.fetchOffset != r.log.end_offset or m.lastFetchedEpoch != r.log.last_epoch",
             "    stale = m.fetchOffset != r.log.end_offset",
             "a stale fetch response is recognised by its offset only, not its last fetched epoch"),
    Mutation("truncate-to-leader-end", "reference/core/rpc_fetch.py",
             "            r.truncate_log(min(m.divergingEndOffset, local_end))",
             "            r.truncate_log(m.divergingEndOffset)",
             "on divergence the follower truncates to the leader's end offset of the epoch only"),
    Mutation("truncate-one-too-many", "reference/core/rpc_fetch.py",
             "            r.truncate_log(min(m.divergingEndOffset, local_end))",
             "            r.truncate_log(max(0, min(m.divergingEndOffset, local_end) - 1))",
             "on divergence the follower truncates one entry too many"),
    # -- Transitions and elections -----------------------------------------------
    Mutation("candidate-keeps-leader", "reference/core/replica.py",
             "        self.voted_id = self.id\n        self.leader_id = NIL\n        self._reset_volatile()\n        self.votes_granted = {self.id}",
             "        self.voted_id = self.id\n        self._reset_volatile()\n        self.votes_granted = {self.id}",
             "a follower that becomes candidate keeps its old leader id"),
    Mutation("unattached-keeps-vote", "reference/core/replica.py",
             "        self.current_epoch = epoch\n        self.voted_id = NIL\n        self.leader_id = NIL\n",
             "        self.current_epoch = epoch\n        self.leader_id = NIL\n",
             "taking a larger epoch keeps the vote of the older one"),
    Mutation("follower-keeps-vote", "reference/core/replica.py",
             "        if epoch != self.current_epoch:\n            self.voted_id = NIL\n",
             "",
             "following the leader of a larger epoch keeps the vote of the older one"),
    Mutation("same-epoch-response-resets", "reference/core/replica.py",
             "        if m.epoch > self.current_epoch:\n            self.observe_epoch(m.epoch, m.leaderId)",
             "        if m.epoch >= self.current_epoch and m.leaderId != self.leader_id:\n"
             "            self.observe_epoch(m.epoch, m.leaderId)",
             "a response of the current epoch naming another leader is taken as a new epoch"),
    Mutation("leader-change-record-missing", "reference/core/replica.py",
             "        self.append_entries([Entry(self.current_epoch, LEADER_CHANGE, self.id)])",
             "        pass",
             "a new leader does not append its LeaderChange record"),
    Mutation("successors-least-caught-up-first", "reference/core/replica.py",
             "key=lambda v: (-self.replica_end_offset.get(v, 0), v)",
             "key=lambda v: (self.replica_end_offset.get(v, 0), v)",
             "a resigning leader prefers its least caught-up voters as successors"),
    Mutation("check-quorum-counts-observers", "reference/core/replica.py",
             "if v in counted and v != self.id and t > window_start",
             "if v != self.id and t > window_start",
             "check-quorum counts observers' fetches",
             "equivalent: the leader records only its voters' fetches (last_fetch_ms), so there is no "
             "observer fetch to count (bug switch check-quorum-counts-observers records them too)"),
    Mutation("begin-epoch-never-resent", "reference/core/replica.py",
             "        state.begin_epoch_due[voter] = self.now + self.config.request_timeout_ms\n",
             "        del state.begin_epoch_due[voter]\n",
             "BeginQuorumEpoch is sent once, never again after a loss"),
    Mutation("election-timeout-no-base", "reference/core/replica.py",
             "        return self.config.election_timeout_ms + self.rng.randint(0, self.config.election_backoff_max_ms)",
             "        return self.rng.randint(0, self.config.election_backoff_max_ms)",
             "an election timer waits only the random backoff, not the election timeout before it"),
    Mutation("election-backoff-doubled", "reference/core/replica.py",
             "        return self.config.election_timeout_ms + self.rng.randint(0, self.config.election_backoff_max_ms)",
             "        return self.config.election_timeout_ms + self.rng.randint(0, 2 * self.config.election_backoff_max_ms)",
             "an election timer draws its random backoff up to twice quorum.election.backoff.max.ms"),
    Mutation("fetch-timeout-from-send", "reference/core/replica.py",
             "        state.fetch_sent_at = self.now\n",
             "        state.fetch_sent_at = self.now\n"
             "        if isinstance(state, Follower) and self.is_voter:\n"
             "            state.fetch_deadline = self.now + self.config.fetch_timeout_ms\n",
             "a follower's fetch timeout restarts when it sends a Fetch, not when a response arrives: "
             "it keeps following a leader that no longer answers"),
    Mutation("check-quorum-rearmed-on-change", "reference/core/replica.py",
             "        if isinstance(state, Leader):\n            for voter in sorted(self.voters - previous.ids):",
             "        if isinstance(state, Leader):\n"
             "            state.check_quorum_deadline = self.now + self.config.fetch_timeout_ms\n"
             "            for voter in sorted(self.voters - previous.ids):",
             "a leader's voter change restarts its check-quorum timer: it checks a whole fetch timeout "
             "later than Kafka, which keeps the due time"),
    Mutation("check-quorum-half-window", "reference/core/replica.py",
             " else self.config.fetch_timeout_ms\n        window_start",
             " else self.config.fetch_timeout_ms // 2\n        window_start",
             "check-quorum looks back half the fetch timeout: the leader resigns while a majority fetched"),
    Mutation("vote-change-not-persisted", "reference/core/replica.py",
             "        current = (self.current_epoch, self.voted_id, self.leader_id)",
             "        current = (self.current_epoch, self.leader_id)",
             "a vote in an epoch already persisted is not written to the quorum-state file"),
    # -- Voter changes (KIP-853) ----------------------------------------------------
    Mutation("add-voter-not-caught-up", "reference/core/rpc_voters.py",
             "        if not caught_up(r, m.voterId, m.voterDirectoryId):\n            return REQUEST_TIMED_OUT\n",
             "",
             "AddVoter does not wait for the new voter to catch up"),
    Mutation("add-voter-duplicate-by-key", "reference/core/rpc_voters.py",
             "        if m.voterId in r.voters:\n            return DUPLICATE_VOTER",
             "        if key in r.voter_set.keys:\n            return DUPLICATE_VOTER",
             "AddVoter refuses a duplicate key, not a duplicate id (one id may be a voter twice)"),
    Mutation("change-complete-before-commit", "reference/core/replica.py",
             "        return latest is not None and latest[0] < self.high_watermark\n\n    def _send_update_voter",
             "        return latest is not None and latest[0] <= self.high_watermark\n\n    def _send_update_voter",
             "a voter change is answered when its record reaches the high watermark, before it is committed"),
    Mutation("removed-leader-stays", "reference/core/rpc_voters.py",
             "    if not r.is_voter:\n        r.step_down()",
             "    pass",
             "a leader that removed itself keeps leading"),
    Mutation("begin-epoch-ignores-directory", "reference/core/rpc_epoch.py",
             "    if r.kraft_version == DYNAMIC and m.voterDirectoryId != r.directory_id:",
             "    if False:",
             "BeginQuorumEpoch addressed to another directory id of this id is accepted"),
    Mutation("progress-ignores-directory", "reference/core/replica.py",
             "        if self.replica_directory_id.get(vid) != directory:\n            return 0\n",
             "",
             "the leader counts the progress of a replica with the voter's id but another directory id"),
)


@dataclass
class Campaign:
    quorum: str
    voters: int

    @property
    def label(self) -> str:
        return f"{self.quorum}-{self.voters}"


def apply(mutation: Mutation | None, dest: Path) -> None:
    """A copy of ``reference/`` under ``dest`` with ``mutation`` applied (none: a plain copy)."""
    shutil.copytree(ROOT / "reference", dest / "reference", ignore=shutil.ignore_patterns("__pycache__"))
    if mutation is None:
        return
    target = dest / mutation.path
    text = target.read_text()
    count = text.count(mutation.old)
    if count != 1:
        raise SystemExit(f"mutation {mutation.name}: the text to replace occurs {count} times in {mutation.path}, "
                         "not once (the source changed: update the mutation)")
    target.write_text(text.replace(mutation.old, mutation.new))


def faults(quorum: str) -> str:
    """The default faults of ``quorum`` plus foreign requests (a default fault now; kept for
    older checkouts). No mutation touches the fault lists, so the unmutated module gives them
    for every copy."""
    from reference.sim.faults import DEFAULT_FAULTS, DYNAMIC_DEFAULT_FAULTS

    return ",".join(dict.fromkeys((*(DYNAMIC_DEFAULT_FAULTS if quorum == "dynamic" else DEFAULT_FAULTS), "foreign")))


def _env(*paths: Path) -> dict[str, str]:
    return {**os.environ, "PYTHONPATH": os.pathsep.join(str(p) for p in paths), "PYTHONHASHSEED": "0"}


def simulate(code_root: Path, campaign: Campaign, args: argparse.Namespace, out: Path) -> int:
    """Simulate with the reference under ``code_root``; the exit code (1: an invariant failed)."""
    cmd = [sys.executable, "-m", "conformance", "simulate", "--quorum", campaign.quorum,
           "--voters", str(campaign.voters), "--seeds", args.seeds, "--steps", str(args.steps),
           "--faults", faults(campaign.quorum), "--out", str(out), "--jobs", str(args.jobs)]
    # cwd: ``python -m`` puts the working folder first on sys.path, before PYTHONPATH
    return subprocess.run(cmd, env=_env(code_root, ROOT), cwd=code_root, stdout=subprocess.DEVNULL,
                          stderr=subprocess.PIPE, text=True).returncode


def validate(files: list[Path], args: argparse.Namespace, report: Path) -> dict[str, object]:
    """Validate ``files`` with the unmutated checker; the JSON report."""
    cmd = [sys.executable, "-m", "conformance", "validate", *map(str, files), "--jobs", str(args.jobs),
           "--json", str(report), "--no-progress"]
    done = subprocess.run(cmd, env=_env(ROOT), cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    if done.returncode not in (0, 1, 3):
        raise SystemExit(f"validate failed (exit {done.returncode}): {done.stderr.strip()[-2000:]}")
    return json.loads(report.read_text())


def first_reject(report: dict[str, object]) -> str:
    """Where the first non-ACCEPTed trace departs from the spec: trace, step, action, variable."""
    for t in report["traces"]:  # type: ignore[attr-defined]
        if t["verdict"] == "ACCEPT":
            continue
        where = f"{Path(t['file']).parent.name}/{Path(t['file']).name} {t['verdict']}"
        diag = t.get("diagnostic")
        if not isinstance(diag, dict):
            return f"{where}: {str(t.get('error') or '')[:120]}"
        action = (diag.get("event") or {}).get("action", "?")
        wrong = ", ".join(x["variable"] for x in diag.get("mismatches") or [])
        return f"{where} at step {diag.get('step')} {action}" + (f" ({wrong})" if wrong else "")
    return ""


def run_one(mutation: Mutation, baseline: Path, campaigns: list[Campaign], args: argparse.Namespace,
            work: Path) -> dict[str, object]:
    """Simulate and validate one mutation; its outcome per campaign and overall."""
    code = work / "code"
    apply(mutation, code)
    started = time.perf_counter()
    sim_failed: list[str] = []
    changed: list[Path] = []
    for c in campaigns:
        out = work / "traces" / c.label
        rc = simulate(code, c, args, out)
        if rc not in (0, 1):
            sim_failed.append(f"{c.label}: simulate exited {rc}")
        elif rc == 1:
            sim_failed.append(f"{c.label}: an invariant failed")
        for f in sorted(out.iterdir()):
            twin = baseline / c.label / f.name
            if not twin.exists() or not filecmp.cmp(f, twin, shallow=False):
                changed.append(f)
    rejected, detail = 0, ""
    if changed:
        report = validate(changed, args, work / "report.json")
        totals = report["totals"]
        rejected = len(changed) - totals["ACCEPT"]  # type: ignore[index]
        detail = first_reject(report)
    if sim_failed or rejected:
        outcome = "caught"
    elif changed:
        outcome = "acted, accepted"
    else:
        outcome = "never acted"
    return {"mutation": mutation.name, "outcome": outcome, "by_simulator": sim_failed,
            "rejected": rejected, "changed": len(changed), "detail": detail,
            "seconds": round(time.perf_counter() - started, 1)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", default="1-20")
    parser.add_argument("--steps", type=int, default=1000)
    parser.add_argument("--campaigns", default="static:3,dynamic:3,static:5",
                        help="QUORUM:VOTERS,... (default: %(default)s)")
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--only", default="", help="comma-separated mutation names")
    parser.add_argument("--list", action="store_true", help="list the mutations and exit")
    parser.add_argument("--json", type=Path, default=None, help="write the results here")
    args = parser.parse_args()
    if args.list:
        for m in MUTATIONS:
            print(f"{m.name:34} {m.path:32} {m.what}")
        return
    chosen = [m for m in MUTATIONS if not args.only or m.name in args.only.split(",")]
    unknown = set(filter(None, args.only.split(","))) - {m.name for m in MUTATIONS}
    if unknown:
        raise SystemExit(f"unknown mutation(s): {', '.join(sorted(unknown))}")
    campaigns = [Campaign(q, int(n)) for q, n in (c.split(":") for c in args.campaigns.split(","))]
    results: list[dict[str, object]] = []
    with tempfile.TemporaryDirectory(prefix="kraft-mutation-") as tmp:
        base = Path(tmp) / "baseline"
        apply(None, base / "code")
        for c in campaigns:
            if simulate(base / "code", c, args, base / "traces" / c.label) != 0:
                raise SystemExit(f"the unmutated reference fails campaign {c.label}: fix that first")
        report = validate(sorted((base / "traces").rglob("*.ndjson")), args, base / "report.json")
        if report["exit_code"] != 0:
            raise SystemExit(f"the unmutated traces are not all ACCEPTed: {first_reject(report)}")
        print(f"baseline: {report['totals']['traces']} traces ACCEPTed "  # type: ignore[index]
              f"({args.campaigns}, seeds {args.seeds}, {args.steps} steps)", flush=True)
        for i, m in enumerate(chosen, 1):
            work = Path(tmp) / f"m{i}"
            r = run_one(m, base / "traces", campaigns, args, work)
            shutil.rmtree(work, ignore_errors=True)
            results.append(r)
            why = ""
            if r["outcome"] == "caught":
                why = "; ".join(r["by_simulator"]) or f"{r['rejected']} of {r['changed']} changed traces REJECTed"  # type: ignore[arg-type]
                why += f" | {r['detail']}" if r["detail"] else ""
            elif m.if_missed:
                why = m.if_missed
            print(f"[{i:2}/{len(chosen)}] {m.name:34} {r['outcome']:16} {why}", flush=True)
    counts = {o: sum(r["outcome"] == o for r in results) for o in ("caught", "acted, accepted", "never acted")}
    print(f"\n{len(results)} mutations: {counts['caught']} caught, {counts['acted, accepted']} acted but accepted, "
          f"{counts['never acted']} never acted")
    if args.json:
        args.json.write_text(json.dumps({"seeds": args.seeds, "steps": args.steps, "campaigns": args.campaigns,
                                         "results": results}, indent=2))


if __name__ == "__main__":
    main()
