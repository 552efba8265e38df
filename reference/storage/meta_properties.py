"""The ``meta.properties`` file: node id, cluster id and directory id, checked on start.

The directory id (KIP-853) names one incarnation of the data folder, as the spec's ``dirId``:
an integer, ``1`` for the folder as first formatted, one more each time the replica rejoins
after losing its data (``kraftcheck storage rejoin``).

A replica refuses to start when the stored node id or cluster id differs from the
configured one (KIP-595, "Cluster Bootstrapping").
"""

from __future__ import annotations

from pathlib import Path

from reference.storage.base import StorageError
from reference.storage.filesystem import FileSystem, OsFileSystem, write_atomically

META_VERSION = "0"


def read_meta_properties(path: Path | str, fs: FileSystem | None = None) -> dict[str, str] | None:
    path = Path(path)
    raw = (fs if fs is not None else OsFileSystem()).read(path)
    if raw is None:
        return None
    try:
        text = raw.decode()
    except UnicodeDecodeError as exc:
        raise StorageError(f"{path}: byte {exc.start}: not UTF-8 text") from None
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


def write_meta_properties(path: Path | str, node_id: int, cluster_id: str, directory_id: int | None = None,
                          fs: FileSystem | None = None) -> None:
    """Write the file atomically and durably, with ``directory.id`` when given."""
    text = f"version={META_VERSION}\nnode.id={node_id}\ncluster.id={cluster_id}\n"
    if directory_id is not None:
        text += f"directory.id={directory_id}\n"
    write_atomically(fs if fs is not None else OsFileSystem(), Path(path), text.encode())


def check_or_create_meta(path: Path | str, node_id: int, cluster_id: str, directory_id: int | None = None,
                         fs: FileSystem | None = None) -> int | None:
    """Create the file on first start (with ``directory_id`` when given); on later starts
    refuse a node or cluster id mismatch. Returns the stored directory id, if any."""
    path = Path(path)
    props = read_meta_properties(path, fs)
    if props is None:
        write_meta_properties(path, node_id, cluster_id, directory_id, fs)
        return directory_id
    if props["node.id"] != str(node_id):
        raise StorageError(
            f"{path}: stored node.id {props['node.id']} does not match the configured node id {node_id}"
        )
    if props["cluster.id"] != cluster_id:
        raise StorageError(
            f"{path}: stored cluster.id {props['cluster.id']!r} does not match the configured {cluster_id!r}"
        )
    if "directory.id" not in props:
        return None
    try:
        return int(props["directory.id"])
    except ValueError:
        raise StorageError(f"{path}: directory.id {props['directory.id']!r} is not an integer") from None
