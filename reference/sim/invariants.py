"""Safety invariants checked by the simulator after every event.

* one leader per epoch (election safety);
* log matching, over the whole run: an (offset, epoch) pair always names the same
  log prefix, on every replica and at every time;
* committed data is never lost or changed: every high watermark a replica reports
  covers a prefix of the one committed log; a replica that becomes leader of epoch ``e``
  holds every entry committed in an epoch below ``e``; no replica truncates below its
  own high watermark;
* a replica's high watermark never decreases, except when it restarts;
* a replica's epoch never decreases, except when it loses its disk.

Log prefixes are compared through chained hashes (one per entry), kept per replica
and updated from the log operations of each step, so a check costs O(new entries).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from reference.core.messages import Entry
from reference.core.states import LEADER


@dataclass(frozen=True)
class Violation:
    """One broken invariant."""

    invariant: str
    replica: int
    detail: str


def _chain(prev: int, entry: Entry) -> int:
    return hash((prev, entry.epoch, entry.kind, entry.value))


class SafetyChecker:
    """Tracks the cluster's history and checks the invariants after each step."""

    def __init__(self) -> None:
        self.leaders: dict[int, int] = {}
        self.prefix_of: dict[tuple[int, int], int] = {}
        self.committed: list[int] = []
        self.commit_epochs: list[int] = []
        self.last_role: dict[int, str] = {}
        self.chains: dict[int, list[int]] = {}
        self.last_hw: dict[int, int] = {}
        self.last_epoch: dict[int, int] = {}

    @property
    def committed_length(self) -> int:
        return len(self.committed)

    def reset_replica(self, replica: int, log: Sequence[Entry], epoch: int, disk_lost: bool) -> list[Violation]:
        """A replica (re)started with ``log``: rebuild its chain, reset the monotonic checks."""
        chain: list[int] = []
        self.chains[replica] = chain
        out = self._extend(replica, chain, log)
        self.last_hw[replica] = 0
        self.last_role.pop(replica, None)
        if disk_lost:
            self.last_epoch[replica] = epoch
        elif epoch < self.last_epoch.get(replica, 0):
            out.append(Violation("EpochMonotonic", replica, f"epoch went from {self.last_epoch[replica]} to {epoch} over a restart"))
        self.last_epoch[replica] = epoch
        return out

    def _extend(self, replica: int, chain: list[int], entries: Sequence[Entry]) -> list[Violation]:
        out: list[Violation] = []
        prev = chain[-1] if chain else 0
        for entry in entries:
            prev = _chain(prev, entry)
            offset = len(chain)
            chain.append(prev)
            key = (offset, entry.epoch)
            known = self.prefix_of.setdefault(key, prev)
            if known != prev:
                out.append(
                    Violation(
                        "LogMatching",
                        replica,
                        f"entry at offset {offset} of epoch {entry.epoch} ends a log prefix that "
                        f"differs from the one another replica had with that offset and epoch",
                    )
                )
        return out

    def after_step(
        self,
        replica: int,
        role: str,
        epoch: int,
        high_watermark: int,
        log_ops: Sequence[tuple[str, object]],
    ) -> list[Violation]:
        out: list[Violation] = []
        chain = self.chains.setdefault(replica, [])
        for op, arg in log_ops:
            if op == "truncate":
                end = arg
                assert isinstance(end, int)
                if end < self.last_hw.get(replica, 0):
                    out.append(
                        Violation("CommittedNeverLost", replica, f"truncated its log to {end}, below its high watermark {self.last_hw[replica]}")
                    )
                del chain[end:]
            else:
                assert isinstance(arg, tuple)
                out += self._extend(replica, chain, arg)
        if role == LEADER:
            known = self.leaders.setdefault(epoch, replica)
            if known != replica:
                out.append(Violation("OneLeaderPerEpoch", replica, f"replica {known} already led epoch {epoch}"))
        if epoch < self.last_epoch.get(replica, 0):
            out.append(Violation("EpochMonotonic", replica, f"epoch went from {self.last_epoch[replica]} to {epoch}"))
        self.last_epoch[replica] = epoch
        if high_watermark < self.last_hw.get(replica, 0):
            out.append(
                Violation("HighWatermarkMonotonic", replica, f"high watermark went from {self.last_hw[replica]} to {high_watermark}")
            )
        self.last_hw[replica] = high_watermark
        out += self._check_committed(replica, epoch, chain, high_watermark)
        if role == LEADER and self.last_role.get(replica) != LEADER:
            out += self._check_leader_completeness(replica, epoch, chain)
        self.last_role[replica] = role
        return out

    def _check_leader_completeness(self, replica: int, epoch: int, chain: list[int]) -> list[Violation]:
        n = len(self.committed)
        while n > 0 and self.commit_epochs[n - 1] >= epoch:
            n -= 1
        if n and (len(chain) < n or chain[n - 1] != self.committed[n - 1]):
            return [
                Violation(
                    "CommittedNeverLost",
                    replica,
                    f"new leader of epoch {epoch} does not hold the {n} entries committed before its epoch",
                )
            ]
        return []

    def _check_committed(self, replica: int, epoch: int, chain: list[int], hw: int) -> list[Violation]:
        out: list[Violation] = []
        committed = self.committed
        if hw > len(chain):
            out.append(Violation("CommittedNeverLost", replica, f"high watermark {hw} beyond its log end {len(chain)}"))
            return out
        if hw > 0:
            upto = min(hw, len(committed))
            if upto > 0 and chain[upto - 1] != committed[upto - 1]:
                out.append(
                    Violation("CommittedNeverChanged", replica, f"its log below high watermark {hw} differs from the committed log at offset {upto - 1}")
                )
                return out
            if hw > len(committed):
                self.commit_epochs.extend([epoch] * (hw - len(committed)))
                committed.extend(chain[len(committed) : hw])
        return out
