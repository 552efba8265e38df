"""Fetch request/response handling and DescribeQuorum (KIP-595)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from reference.core.handler_context import HandlerContext
from reference.core.messages import (
    FENCED_LEADER_EPOCH,
    FETCH_RESPONSE,
    INVALID_CLUSTER_ID,
    INVALID_REQUEST,
    NIL,
    NO_DIRECTORY,
    NONE,
    NOT_LEADER_FOR_PARTITION,
    UNKNOWN_LEADER_EPOCH,
    Message,
)
from reference.core.rpc_common import cluster_id_mismatch, respond
from reference.core.states import FOLLOWER, LEADER


def _respond(r: HandlerContext, m: Message, **fields: Any) -> None:
    """The FetchResponse to ``m``: it echoes the fetch position; ``fields`` adds the rest
    (leader, error, high watermark, records...)."""
    respond(r, m, FETCH_RESPONSE, fetchOffset=m.fetchOffset, lastFetchedEpoch=m.lastFetchedEpoch, **fields)


def _error_response(r: HandlerContext, m: Message, error: str) -> None:
    _respond(r, m, errorCode=error, leaderId=r.leader_id)


def fetch_position_valid(r: HandlerContext, fetch_offset: int, last_fetched_epoch: int) -> bool:
    """KIP-595 step 3: the leader's log holds epoch ``last_fetched_epoch`` (0 counts for
    the empty prefix) and the fetch offset is at most that epoch's end offset."""
    found, end = r.log.end_offset_for_epoch(last_fetched_epoch)
    return found == last_fetched_epoch and fetch_offset <= end


def handle_fetch_request(r: HandlerContext, m: Message) -> None:
    """The leader validates epoch and fetch position (a negative offset or epoch, or a last
    fetched epoch beyond the request's, is INVALID_REQUEST), records the fetcher's progress,
    may advance the high watermark, and returns every entry from the fetch offset."""
    if cluster_id_mismatch(r, m):
        _error_response(r, m, INVALID_CLUSTER_ID)
        return
    if m.epoch < r.current_epoch:
        _error_response(r, m, FENCED_LEADER_EPOCH)
        return
    if m.epoch > r.current_epoch:
        _error_response(r, m, UNKNOWN_LEADER_EPOCH)
        return
    if r.role != LEADER:
        _error_response(r, m, NOT_LEADER_FOR_PARTITION)
        return
    if m.fetchOffset < 0 or m.lastFetchedEpoch < 0 or m.lastFetchedEpoch > m.epoch:
        _error_response(r, m, INVALID_REQUEST)  # a position no replica can hold (as Kafka)
        return
    r.endorse(m.source)
    if not fetch_position_valid(r, m.fetchOffset, m.lastFetchedEpoch):
        # DivergingEpoch: the largest epoch AT MOST LastFetchedEpoch and its end offset (the
        # KIP's "less than" differs when the leader holds LastFetchedEpoch; spec/README.md)
        epoch, end = r.log.end_offset_for_epoch(m.lastFetchedEpoch)
        _respond(r, m, leaderId=r.id, highWatermark=r.high_watermark,
                 divergingEpoch=epoch, divergingEndOffset=end)
        return
    r.replica_end_offset[m.source] = m.fetchOffset
    if m.sourceDirectoryId != NIL:
        r.replica_directory_id[m.source] = m.sourceDirectoryId
    if r.voter_set.holds((m.source, m.sourceDirectoryId)) or "check-quorum-counts-observers" in r.bugs:
        last_fetch = getattr(r.state, "last_fetch_ms", None)
        if last_fetch is not None:
            last_fetch[m.source] = r.now
    r.update_leader_high_watermark()
    _respond(r, m, leaderId=r.id, highWatermark=r.high_watermark,
             records=r.log.slice_from(m.fetchOffset, r.options.fetch_max_records))


def handle_fetch_response(r: HandlerContext, m: Message) -> None:
    """Learn newer epochs and leaders; ignore stale responses; truncate on divergence,
    else append the records; then take the leader's high watermark."""
    if m.errorCode == INVALID_CLUSTER_ID or r.learn_from_response(m):
        return
    if m.errorCode != NONE or m.epoch != r.current_epoch or r.role != FOLLOWER or m.source != r.leader_id:
        return
    stale = m.fetchOffset != r.log.end_offset or m.lastFetchedEpoch != r.log.last_epoch
    if stale and "accept-stale-fetch" not in r.bugs:
        return
    if m.divergingEpoch != NIL:
        if "ignore-diverging-epoch" in r.bugs:
            r.high_watermark = max(r.high_watermark, min(m.highWatermark, r.log.end_offset))
        else:
            _, local_end = r.log.end_offset_for_epoch(m.divergingEpoch)
            r.truncate_log(min(m.divergingEndOffset, local_end))
            # The leader's high watermark is taken only when the truncated log provably
            # matches the leader's: it is empty or ends with an entry of the diverging
            # epoch (both hold that epoch's entries from the same leader). Otherwise it may
            # still end in diverged entries, and the high watermark waits for a later
            # round (spec/KRaft.tla HandleFetchResponse, its `matched`, the same rule).
            if r.log.end_offset == 0 or r.log.last_epoch == m.divergingEpoch:
                r.high_watermark = max(r.high_watermark, min(m.highWatermark, r.log.end_offset))
    else:
        r.append_entries(m.records)
        r.high_watermark = max(r.high_watermark, min(m.highWatermark, r.log.end_offset))
    r.fetch_completed()


@dataclass(frozen=True)
class DescribeQuorumResult:
    """A DescribeQuorum response: the leader's view of replication progress. Each replica is
    ``(id, directory id, log end offset)`` (KIP-853's DescribeQuorum adds the directory id):
    a voter's directory id is the one of its key, an observer's the one its last accepted
    Fetch came from; a voter's end offset counts only a Fetch from that directory."""

    error_code: str
    leader_id: int
    leader_epoch: int
    high_watermark: int
    current_voters: tuple[tuple[int, int, int], ...]
    observers: tuple[tuple[int, int, int], ...]


def describe_quorum(r: HandlerContext) -> DescribeQuorumResult:
    """Read-only: a non-leader answers NOT_LEADER_FOR_PARTITION with the leader it knows."""
    if r.role != LEADER:
        return DescribeQuorumResult(NOT_LEADER_FOR_PARTITION, r.leader_id, r.current_epoch, -1, (), ())

    def replica(v: int, directory: int | None = None) -> tuple[int, int, int]:
        if v == r.id:
            return v, r.directory_id, r.log.end_offset
        fetched_from = r.replica_directory_id.get(v, NO_DIRECTORY)
        end = r.replica_end_offset.get(v, 0)
        if directory is None:
            return v, fetched_from, end
        return v, directory, end if fetched_from == directory else 0

    voters = tuple(replica(v, d) for v, d in sorted(r.voter_set.keys))
    observers = tuple(replica(o) for o in r.replicas if o not in r.voters)
    return DescribeQuorumResult(NONE, r.id, r.current_epoch, r.high_watermark, voters, observers)
