"""Voter-change rules (KIP-853) checked by the simulator after every step of a dynamic quorum.

* ``OneUncommittedChange``: a leader's log holds at most one VotersRecord at or above its
  high watermark;
* ``ChangeAfterEpochCommit``: a leader appends a VotersRecord only once an offset of its own
  epoch is committed;
* ``SingleMemberChange``: a VotersRecord differs from the voter set before it (the previous
  record of the log, else the bootstrap set) by one replica key at most.

The safety invariants of ``reference.sim.invariants`` (one leader per epoch, log matching,
committed entries never lost) are checked across voter changes as well.
"""

from __future__ import annotations

from reference.core.messages import VOTERS_RECORD, Entry
from reference.core.replica import Ready, Replica
from reference.core.states import LEADER
from reference.sim.invariants import Violation


class VoterChangeChecker:
    """Checks the voter-change rules on each step's appended entries."""

    def after_step(self, replica: Replica, ready: Ready) -> list[Violation]:
        if not ready.log_ops or replica.role != LEADER:
            return []
        appended = [e for op, arg in ready.log_ops if op == "append" and isinstance(arg, tuple) for e in arg]
        if not any(isinstance(e, Entry) and e.kind == VOTERS_RECORD for e in appended):
            return []
        out: list[Violation] = []
        log = replica.log
        offsets = log.voters_record_offsets()
        hw = replica.high_watermark
        uncommitted = [o for o in offsets if o >= hw]
        if len(uncommitted) > 1:
            out.append(Violation("OneUncommittedChange", replica.id,
                                 f"VotersRecords at offsets {uncommitted} are all at or above the high watermark {hw}"))
        start = next((s for e, s in log.epoch_starts() if e == replica.current_epoch), log.end_offset)
        if hw <= start:
            out.append(Violation("ChangeAfterEpochCommit", replica.id,
                                 f"VotersRecord appended in epoch {replica.current_epoch} with the high watermark "
                                 f"{hw} not above the epoch's first offset {start}"))
        last = offsets[-1]
        before = log.entries[offsets[-2]].voters if len(offsets) > 1 else replica.bootstrap.keys
        changed = before ^ log.entries[last].voters
        if len(changed) > 1:
            out.append(Violation("SingleMemberChange", replica.id,
                                 f"VotersRecord at offset {last} changes {len(changed)} replica keys: {sorted(changed)}"))
        return out
