"""A model of one data folder's files that knows which operations a crash keeps.

Every operation is recorded in order. Content changes (``Write``, ``Truncate``) of a file
become durable at an fsync of that file; name changes (``Link``: a file created, ``Rename``)
at an fsync of the folder. Until then they are pending, and a crash keeps any subset of the
pending operations (applied in their original order: the disk may reorder them, across files
too), and may tear the last kept write: only its first bytes reach the disk, and the rest of it
is either missing (the file ends there) or reads as zeros (the new length reached the disk
before the data did). A rename whose source name did not survive keeps nothing.

``CrashModel.crash_states`` lists the states a crash may leave, ``crash_image`` builds one,
``materialise`` writes it to a folder.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class Link:
    """A new file ``name`` (inode ``inode``) in the folder."""

    name: str
    inode: int


@dataclass(frozen=True)
class Rename:
    source: str
    target: str


@dataclass(frozen=True)
class Write:
    inode: int
    offset: int
    data: bytes


@dataclass(frozen=True)
class Truncate:
    inode: int
    size: int


Op = Link | Rename | Write | Truncate


def describe(op: Op, names: Mapping[int, str]) -> str:
    """The operation in words (``names``: a file name for each inode)."""
    if isinstance(op, Link):
        return f"create {op.name}"
    if isinstance(op, Rename):
        return f"rename {op.source} -> {op.target}"
    name = names.get(op.inode, f"inode {op.inode}")
    if isinstance(op, Write):
        return f"write {name} bytes {op.offset}..{op.offset + len(op.data)}"
    return f"truncate {name} to {op.size}"


@dataclass(frozen=True)
class Image:
    """The folder's content on disk: file names to inodes, inodes to bytes."""

    links: Mapping[str, int]
    data: Mapping[int, bytes]

    def files(self) -> dict[str, bytes]:
        return {name: self.data.get(inode, b"") for name, inode in self.links.items()}

    def key(self) -> tuple[tuple[str, bytes], ...]:
        """Equal for images with the same files and contents."""
        return tuple(sorted(self.files().items()))


@dataclass(frozen=True)
class CrashState:
    """Which pending operations reach the disk (indexes, in order), and whether the last kept
    write is torn after ``torn`` bytes (its other bytes missing, or zeros with ``zero_fill``)."""

    kept: tuple[int, ...]
    torn: int | None = None
    zero_fill: bool = False


def default_tears(size: int) -> list[int]:
    """A torn write of ``size`` bytes keeps its first byte, half of it, or all but its last byte."""
    return sorted({k for k in (1, size // 2, size - 1) if 0 < k < size})


def _written(old: bytes, offset: int, data: bytes) -> bytes:
    if offset > len(old):
        old += bytes(offset - len(old))  # a hole reads as zeros
    return old[:offset] + data + old[offset + len(data):]


def _truncated(old: bytes, size: int) -> bytes:
    return old[:size] if size <= len(old) else old + bytes(size - len(old))


def _apply(links: dict[str, int], data: dict[int, bytes], op: Op) -> None:
    if isinstance(op, Link):
        links[op.name] = op.inode
        data.setdefault(op.inode, b"")
    elif isinstance(op, Rename):
        if op.source in links:
            links[op.target] = links.pop(op.source)
    elif isinstance(op, Write):
        data[op.inode] = _written(data.get(op.inode, b""), op.offset, op.data)
    else:
        data[op.inode] = _truncated(data.get(op.inode, b""), op.size)


class CrashModel:
    """The durable image of a folder, the pending operations, and the live names."""

    def __init__(self, image: Image | None = None) -> None:
        self.links: dict[str, int] = dict(image.links) if image else {}
        self.data: dict[int, bytes] = dict(image.data) if image else {}
        self.live: dict[str, int] = dict(self.links)
        self.pending: list[Op] = []
        self._next_inode = max(self.data, default=0) + 1

    def copy(self) -> CrashModel:
        other = CrashModel.__new__(CrashModel)
        other.links, other.data, other.live = dict(self.links), dict(self.data), dict(self.live)
        other.pending = list(self.pending)
        other._next_inode = self._next_inode
        return other

    # -- operations ---------------------------------------------------------------

    def _inode(self, name: str) -> int:
        try:
            return self.live[name]
        except KeyError:
            raise FileNotFoundError(f"{name}: no such file in the crash model") from None

    def create(self, name: str) -> None:
        if name in self.live:
            self.pending.append(Truncate(self.live[name], 0))
            return
        inode = self._next_inode
        self._next_inode += 1
        self.live[name] = inode
        self.pending.append(Link(name, inode))

    def write(self, name: str, offset: int, data: bytes) -> None:
        self.pending.append(Write(self._inode(name), offset, bytes(data)))

    def truncate(self, name: str, size: int) -> None:
        self.pending.append(Truncate(self._inode(name), size))

    def rename(self, source: str, target: str) -> None:
        self.live[target] = self._inode(source)
        del self.live[source]
        self.pending.append(Rename(source, target))

    def fsync(self, name: str) -> None:
        inode = self._inode(name)
        left: list[Op] = []
        for op in self.pending:
            if isinstance(op, (Write, Truncate)) and op.inode == inode:
                _apply(self.links, self.data, op)
            else:
                left.append(op)
        self.pending = left

    def fsync_dir(self) -> None:
        left: list[Op] = []
        for op in self.pending:
            if isinstance(op, (Link, Rename)):
                _apply(self.links, self.data, op)
            else:
                left.append(op)
        self.pending = left

    def sync_all(self) -> None:
        """Everything reaches the disk (a clean shutdown: the page cache is written back)."""
        for op in self.pending:
            _apply(self.links, self.data, op)
        self.pending = []

    def restart(self, image: Image) -> None:
        """After a crash: the disk holds ``image``, nothing is pending."""
        self.links, self.data = dict(image.links), dict(image.data)
        self.live = dict(self.links)
        self.pending = []

    # -- crashes --------------------------------------------------------------------

    def durable_image(self) -> Image:
        return Image(dict(self.links), dict(self.data))

    def crash_image(self, state: CrashState) -> Image:
        links, data = dict(self.links), dict(self.data)
        last_write = max((i for i in state.kept if isinstance(self.pending[i], Write)), default=None)
        for i in state.kept:
            op = self.pending[i]
            if i == last_write and state.torn is not None:
                assert isinstance(op, Write)
                rest = bytes(len(op.data) - state.torn) if state.zero_fill else b""
                op = Write(op.inode, op.offset, op.data[: state.torn] + rest)
            _apply(links, data, op)
        return Image(links, data)

    def crash_states(self, tears: Callable[[int], Iterable[int]] = default_tears, max_subsets: int | None = None,
                     rng: random.Random | None = None) -> list[CrashState]:
        """Every state a crash may leave now: each subset of the pending operations, and for each
        subset with a write, its last write torn at each of ``tears(size)`` bytes, cut short or
        zero-filled. With more than ``max_subsets`` subsets, the empty and the full one and a
        sample drawn with ``rng``."""
        n = len(self.pending)
        subsets: list[tuple[int, ...]]
        if max_subsets is None or 2 ** n <= max_subsets:
            subsets = [tuple(i for i in range(n) if mask >> i & 1) for mask in range(2 ** n)]
        else:
            draw = rng or random.Random(0)
            chosen = {0, 2 ** n - 1}
            while len(chosen) < max_subsets:
                chosen.add(draw.getrandbits(n))
            subsets = [tuple(i for i in range(n) if mask >> i & 1) for mask in sorted(chosen)]
        states: list[CrashState] = []
        for kept in subsets:
            states.append(CrashState(kept))
            writes = [i for i in kept if isinstance(self.pending[i], Write)]
            if writes:
                last = self.pending[writes[-1]]
                assert isinstance(last, Write)
                for k in tears(len(last.data)):
                    states.append(CrashState(kept, k, False))
                    states.append(CrashState(kept, k, True))
        return states

    def describe_state(self, state: CrashState) -> str:
        """The crash state in words: which pending operations reached the disk."""
        names = {inode: name for name, inode in {**self.links, **self.live}.items()}
        if not self.pending:
            return "nothing pending"
        kept = [describe(self.pending[i], names) for i in state.kept]
        lost = [describe(op, names) for i, op in enumerate(self.pending) if i not in state.kept]
        text = f"kept [{'; '.join(kept)}], lost [{'; '.join(lost)}]"
        if state.torn is not None:
            text += f", last write torn after {state.torn} bytes" + (" (rest zeros)" if state.zero_fill else "")
        return text


def materialise(image: Image, folder: Path) -> None:
    """Make the regular files of ``folder`` exactly those of ``image``."""
    folder.mkdir(parents=True, exist_ok=True)
    files = image.files()
    for path in folder.iterdir():
        if path.is_file() and path.name not in files:
            path.unlink()
    for name, content in files.items():
        (folder / name).write_bytes(content)
