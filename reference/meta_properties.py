"""The ``meta.properties`` file: node id, cluster id and directory id, checked on start.

The directory id (KIP-853) names one incarnation of the data folder: a replica that rejoins
after losing its data gets a new one.

A replica refuses to start when the stored node id or cluster id differs from the
configured one (KIP-595, "Cluster Bootstrapping").
"""

from __future__ import annotations

import os
import uuid
from pathlib import Path

from reference.storage import StorageError

META_VERSION = "0"


def read_meta_properties(path: Path | str) -> dict[str, str] | None:
    path = Path(path)
    try:
        text = path.read_text()
    except FileNotFoundError:
        return None
    props: dict[str, str] = {}
    for lineno, line in enumerate(text.splitlines(), 1):
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        if "=" not in line:
            raise StorageError(f"{path}:{lineno}: expected key=value, got {line!r}")
        key, value = line.split("=", 1)
        props[key.strip()] = value.strip()
    for key in ("version", "node.id", "cluster.id"):
        if key not in props:
            raise StorageError(f"{path}: missing {key}")
    if props["version"] != META_VERSION:
        raise StorageError(f"{path}: unsupported version {props['version']!r}")
    return props


def write_meta_properties(path: Path | str, node_id: int, cluster_id: str, directory_id: str | None = None) -> None:
    """Write the file atomically and durably; a new ``directory.id`` (KIP-853) unless given."""
    path = Path(path)
    tmp = path.with_name(path.name + ".tmp")
    directory_id = directory_id or uuid.uuid4().hex
    with open(tmp, "w") as f:
        f.write(f"version={META_VERSION}\nnode.id={node_id}\ncluster.id={cluster_id}\ndirectory.id={directory_id}\n")
        f.flush()
        os.fsync(f.fileno())
    os.replace(tmp, path)
    fd = os.open(path.parent, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def check_or_create_meta(path: Path | str, node_id: int, cluster_id: str) -> None:
    """Create the file on first start; on later starts refuse a node or cluster id mismatch."""
    path = Path(path)
    props = read_meta_properties(path)
    if props is None:
        write_meta_properties(path, node_id, cluster_id)
        return
    if props["node.id"] != str(node_id):
        raise StorageError(
            f"{path}: stored node.id {props['node.id']} does not match the configured node id {node_id}"
        )
    if props["cluster.id"] != cluster_id:
        raise StorageError(
            f"{path}: stored cluster.id {props['cluster.id']!r} does not match the configured {cluster_id!r}"
        )
