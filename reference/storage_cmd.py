"""``kraftcheck storage``: examine or repair a replica's data folder.

``storage check DIR``: exit 0 when the folder is healthy (a start recovers every acknowledged
record and the vote), 1 when it is damaged (a start would refuse), 2 for bad arguments.
``storage dump DIR``: print the log records, the quorum-state and meta.properties.
``storage rejoin DIR``: move damaged files aside and give the folder a new directory id, so
that the replica rejoins as a new replica (KIP-853); exit 0 when done.
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from reference.storage import StorageError


def register(subparsers: Any) -> None:
    p = subparsers.add_parser(
        "storage",
        help="check, dump or rejoin a replica's data folder",
        description="Examine a replica data folder of the reference implementation (log, quorum-state, "
        "meta.properties). check: exit 0 healthy, 1 damaged. dump: print every record.",
    )
    sub = p.add_subparsers(dest="storage_command", metavar="ACTION", required=True)
    for name, text in (("check", "check records, checksums, quorum-state and cross-checks (exit 0 healthy, 1 damaged)"),
                       ("dump", "print every log record, the quorum-state and meta.properties"),
                       ("rejoin", "move damaged files aside and start over under a new directory id")):
        q = sub.add_parser(name, help=text, description=text)
        q.add_argument("directory", type=Path, metavar="DIR")
        q.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from reference.storage_check import check_directory, dump_directory

    directory: Path = args.directory
    if args.storage_command == "dump":
        if not directory.is_dir():
            print(f"kraftcheck storage: {directory}: not a directory")
            return 2
        for line in dump_directory(directory):
            print(line)
        return 0
    if args.storage_command == "rejoin":
        return _rejoin(directory)
    result = check_directory(directory)
    for note in result.notes:
        print(f"note: {note}")
    for problem in result.problems:
        print(f"DAMAGED: {problem}")
    if result.healthy:
        print(f"{directory}: healthy: {result.records} records, epoch {result.epoch}, vote {result.voted_id}, "
              f"AppliedOffset {result.applied_offset}")
        return 0
    return 1


def _rejoin(directory: Path) -> int:
    from reference.file_storage import META_FILE, FileStorage
    from reference.meta_properties import read_meta_properties

    try:
        meta = read_meta_properties(directory / META_FILE)
        if meta is None:
            print(f"kraftcheck storage rejoin: {directory / META_FILE}: missing (node and cluster id unknown)")
            return 2
        store = FileStorage(directory, int(meta["node.id"]), meta["cluster.id"], rejoin=True)
    except (StorageError, ValueError, OSError) as exc:
        print(f"kraftcheck storage rejoin: {exc}")
        return 2
    print(f"{directory}: ready to rejoin as a new replica, directory.id {store.directory_id()}")
    store.close()
    return 0
