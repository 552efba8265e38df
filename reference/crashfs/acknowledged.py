"""What a replica has acknowledged to others, and the checks that a recovered folder kept it.

A replica acknowledges durable state by sending a message that depends on it: any message
carries its epoch (the epoch must survive), a granted vote or its own VoteRequest binds its
vote in that epoch, a FetchRequest reports that its log holds ``fetchOffset`` records, and a
leader that advances its high watermark counts its own log up to it. A later truncation of its
own log releases the records cut off. A recovered folder must keep all of that, and its log
must be one the replica actually held (every prefix it ever held is remembered by a chained
hash), so that neither a lost record nor an invented or mixed one goes unnoticed.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace

from reference.core.messages import FETCH_REQUEST, NIL, VOTE_REQUEST, VOTE_RESPONSE, Entry, Message
from reference.core.quorum_state import QuorumState
from reference.core.states import LEADER


def _chain(prev: int, entry: Entry) -> int:
    return hash((prev, entry.epoch, entry.kind, entry.value, entry.voters))


def chain_of(entries: Sequence[Entry]) -> int:
    prev = 0
    for entry in entries:
        prev = _chain(prev, entry)
    return prev


@dataclass(frozen=True)
class Promise:
    """The acknowledged durable state at one time: the epoch, the vote (epoch, candidate) and
    the log prefix (length and chained hash)."""

    epoch: int = 0
    vote: tuple[int, int] | None = None
    log_length: int = 0
    log_chain: int = 0


class AcknowledgedState:
    """One replica's acknowledgements since its disk was formatted."""

    def __init__(self, log: Sequence[Entry] = ()) -> None:
        self.chains: list[int] = []  # chained hash of each prefix of the current log
        self.held: set[int] = {0}  # chained hashes of every log the replica held
        self.promise = Promise()
        self._extend(log)

    def _extend(self, entries: Sequence[Entry]) -> None:
        prev = self.chains[-1] if self.chains else 0
        for entry in entries:
            prev = _chain(prev, entry)
            self.chains.append(prev)
            self.held.add(prev)

    def _prefix(self, length: int) -> int:
        return self.chains[length - 1] if length else 0

    def apply_log_ops(self, log_ops: Sequence[tuple[str, object]]) -> None:
        """The step's log operations (a truncation releases the records it cuts off)."""
        for op, arg in log_ops:
            if op == "truncate":
                assert isinstance(arg, int)
                del self.chains[arg:]
                if self.promise.log_length > arg:
                    self.promise = replace(self.promise, log_length=arg, log_chain=self._prefix(arg))
            else:
                assert isinstance(arg, tuple)
                self._extend(arg)

    def released(self, promise: Promise, log_ops: Sequence[tuple[str, object]]) -> Promise:
        """``promise`` with the records that ``log_ops`` truncate released."""
        for op, arg in log_ops:
            if op == "truncate" and isinstance(arg, int) and promise.log_length > arg:
                promise = replace(promise, log_length=arg, log_chain=self._prefix(arg))
        return promise

    def after_send(self, replica_id: int, sent: Sequence[Message], role: str, high_watermark: int) -> None:
        """Record what the step's messages (sent after its writes) and high watermark acknowledge."""
        p = self.promise
        epoch, vote, length = p.epoch, p.vote, p.log_length
        for m in sent:
            if m.source != replica_id:
                continue
            epoch = max(epoch, m.epoch)
            if m.type == VOTE_RESPONSE and m.voteGranted:
                vote = (m.epoch, m.dest)
            elif m.type == VOTE_REQUEST:
                vote = (m.epoch, replica_id)
            elif m.type == FETCH_REQUEST and m.fetchOffset > length:
                length = min(m.fetchOffset, len(self.chains))
        if role == LEADER and high_watermark > length:
            length = min(high_watermark, len(self.chains))
        if (epoch, vote, length) != (p.epoch, p.vote, p.log_length):
            self.promise = Promise(epoch, vote, length, self._prefix(length))


def broken_promises(promise: Promise, held: set[int], log: Sequence[Entry], state: QuorumState | None) -> list[tuple[str, str]]:
    """(invariant, detail) for each acknowledgement a recovered folder (``log``, ``state``) lost,
    and for a recovered log the replica never held."""
    out: list[tuple[str, str]] = []
    epoch = state.leader_epoch if state is not None else 0
    voted = state.voted_id if state is not None else NIL
    if epoch < promise.epoch:
        out.append(("AcknowledgedEpochLost", f"recovered epoch {epoch}, but messages of epoch {promise.epoch} were sent"))
    if promise.vote is not None:
        vote_epoch, candidate = promise.vote
        if epoch == vote_epoch and voted != candidate:
            out.append(("AcknowledgedVoteLost", f"recovered epoch {epoch} with vote {voted}, but the vote of "
                                                f"epoch {vote_epoch} went to {candidate}"))
        elif epoch < vote_epoch:
            out.append(("AcknowledgedVoteLost", f"recovered epoch {epoch}, but the vote of epoch {vote_epoch} "
                                                f"went to {candidate}"))
    n = promise.log_length
    if len(log) < n:
        out.append(("AcknowledgedEntryLost", f"recovered {len(log)} log records, but {n} were acknowledged"))
    elif n and chain_of(log[:n]) != promise.log_chain:
        out.append(("AcknowledgedEntryLost", f"the recovered log's first {n} records (acknowledged) differ "
                                             "from those the replica held"))
    if chain_of(log) not in held:
        out.append(("RecoveredLogNeverHeld", f"the recovered log of {len(log)} records (last {log[-1] if log else None}) "
                                             "is not a log the replica ever held"))
    return out
