"""Bug switches: each breaks exactly one protocol rule, to test the checkers.

``kraftcheck simulate --inject-bug NAME`` runs the reference implementation with one
of these switched on. Which of them the simulator's own invariants catch is measured
and recorded in ``traces/FORMAT.md`` ("Bug switches"); the trace validator is meant
to catch every one of them.
"""

from __future__ import annotations

BUGS: dict[str, str] = {
    "vote-without-log-check": "a voter grants its vote without checking that the candidate's log "
    "is at least as up-to-date as its own",
    "vote-not-persisted": "votes are never written to the quorum-state file (VotedId stays -1 "
    "there), so a restart forgets them and a voter may vote twice in one epoch",
    "hw-on-old-epoch": "the leader advances the high watermark to an offset replicated by a "
    "majority even when that entry is from an older epoch (Raft's Figure 8)",
    "ignore-diverging-epoch": "a follower ignores the DivergingEpoch of a fetch response: it "
    "keeps its diverged log (and still takes the leader's high watermark)",
    "accept-stale-fetch": "a follower applies a fetch response that does not match its current "
    "fetch position (duplicated or reordered response), appending its records at its log end",
    "observer-votes": "candidates ask observers for votes and count their grants, and "
    "observers grant votes like voters",
    "second-leader-same-epoch": "a voter whose election timer fires stands as candidate in "
    "its current epoch (overriding its earlier vote) instead of the next epoch",
    "respond-then-fsync": "a step's messages leave before its durable writes are synced (the "
    "quorum-state and log writes are fsynced a few ms later; a crash before that loses them)",
    # KIP-853 (dynamic quorum)
    "two-uncommitted-changes": "the leader accepts a voter change while the VotersRecord of "
    "the previous one is still uncommitted",
    "change-before-epoch-commit": "the leader accepts a voter change before it has committed "
    "an offset of its own epoch",
    "vote-ignores-directory-id": "a replica grants a VoteRequest addressed to another directory "
    "id of its id (a voter that lost its disk votes as the old voter)",
    "majority-from-committed-voters": "candidates and leaders count majorities in the committed "
    "voter set instead of the latest one of their log",
    # timers (the spec's TimedRules)
    "early-election": "an election timer draws its deadline from 0 .. election timeout + backoff "
    "max instead of adding the random backoff to the election timeout",
    "late-election": "an election timer adds the backoff max to its random backoff, so it fires "
    "after the end of the election timeout's range (timeout + backoff max + 1 .. 2 x backoff max)",
    "no-successor-backoff": "every preferred successor of an EndQuorumEpoch stands at once, "
    "without the backoff of its position",
    "early-resign": "check-quorum looks back half the fetch timeout only, so the leader resigns "
    "while a majority fetched within the fetch timeout",
    "check-quorum-counts-observers": "check-quorum counts observers' fetches, so a leader that lost "
    "its voters keeps leading",
    "begin-epoch-once": "the leader sends BeginQuorumEpoch to each voter once, never again when "
    "it is lost",
}

# Bug switches that leave out a timer's step (a leader's check-quorum or BeginQuorumEpoch
# resend): the run differs where the step is missing, and a trace shows the omission at the
# replica's next step after the timer was due.
OMISSION_BUGS = frozenset({"begin-epoch-once", "check-quorum-counts-observers"})

# Bug switches that delay a timer past the end of its range: the replica's next step is where
# a trace shows it, when that step is the late one itself (its timer firing).
LATE_TIMER_BUGS = frozenset({"late-election"})

# Bug switches that act only in a dynamic quorum (kraft.version 1).
DYNAMIC_BUGS = frozenset(
    {"two-uncommitted-changes", "change-before-epoch-commit", "vote-ignores-directory-id", "majority-from-committed-voters"}
)


class UnknownBugError(ValueError):
    """A bug switch name that is not in ``BUGS``."""


def parse_bug(name: str | None) -> frozenset[str]:
    """The set of switched-on bugs for an optional ``--inject-bug`` value."""
    if name is None or name == "":
        return frozenset()
    if name not in BUGS:
        raise UnknownBugError(f"unknown bug switch {name!r}; known: {', '.join(sorted(BUGS))}")
    return frozenset({name})
