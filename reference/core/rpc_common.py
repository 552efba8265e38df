"""What every RPC handler of the replica shares: the cluster-id check and the response
envelope (from this replica to the requester, carrying this replica's epoch)."""

from __future__ import annotations

from typing import Any

from reference.core.handler_context import HandlerContext
from reference.core.messages import Message


def cluster_id_mismatch(r: HandlerContext, m: Message) -> bool:
    """A request carrying a cluster id (non-empty) that differs from the cached one."""
    return m.clusterId != "" and m.clusterId != r.cluster_id


def respond(r: HandlerContext, m: Message, kind: str, **fields: Any) -> None:
    """Send the ``kind`` response to request ``m``; ``fields`` are the type's own fields."""
    r.send(Message(type=kind, source=r.id, dest=m.source, epoch=r.current_epoch, **fields))
