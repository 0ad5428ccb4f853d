"""Lines of a large text file sorted by its first tab field, found by binary search on disk.

The NTCIR lists (``doclist``, ``targetlist``, ``linklist``) hold millions of lines, one per doc
id, in doc id order; a task needs the lines of a few ids. :func:`find_lines` seeks instead of
loading the file (memory stays flat whatever its size), as Unix ``look`` does.
:func:`first_fields_sorted` says whether a file is in that order (bytewise), so a caller can
fall back to another way when it is not. :func:`sort_lines` sorts more lines than memory
holds (sorted runs spilled to temporary files, then merged) and :func:`unmatched` walks two
key-sorted streams at once, giving the items whose key only one side has: together they
compare a list of 100 million ids with another in bounded memory.
"""

from __future__ import annotations

import heapq
import os
import tempfile
from collections.abc import Iterable, Iterator
from typing import BinaryIO, TypeVar

__all__ = ["find_lines", "first_fields_sorted", "sort_lines", "unmatched"]

T = TypeVar("T")
U = TypeVar("U")


def _key(line: bytes) -> bytes:
    return line.split(b"\t", 1)[0].rstrip(b"\r\n")


def _key_after(fh: BinaryIO, pos: int) -> tuple[int, bytes | None]:
    """The start and key of the first line starting at or after ``pos`` (``None``: none)."""
    fh.seek(pos)
    if pos > 0:
        fh.seek(pos - 1)
        if fh.read(1) != b"\n":
            fh.readline()  # the rest of the line ``pos`` is inside
    start = fh.tell()
    line = fh.readline()
    return start, (_key(line) if line else None)


def find_lines(fh: BinaryIO, size: int, key: bytes) -> list[bytes]:
    """The lines (without their line end) of the file ``fh`` of ``size`` bytes, sorted by
    first tab field, whose first field is ``key``."""
    lo, hi = 0, size
    while lo < hi:  # the smallest position whose next line's key is >= key
        mid = (lo + hi) // 2
        _, found = _key_after(fh, mid)
        if found is not None and found < key:
            lo = mid + 1
        else:
            hi = mid
    start, _ = _key_after(fh, lo)
    fh.seek(start)
    lines = []
    for line in fh:
        if _key(line) != key:
            break
        lines.append(line.rstrip(b"\r\n"))
    return lines


def first_fields_sorted(fh: BinaryIO) -> bool:
    """Whether the file's lines are in bytewise order of their first tab field."""
    previous = b""
    for line in fh:
        key = _key(line)
        if key < previous:
            return False
        previous = key
    return True


def sort_lines(
    lines: Iterable[bytes], folder: str | None = None, chunk: int = 200_000
) -> Iterator[bytes]:
    """``lines`` (without line ends) in bytewise order, with at most ``chunk`` lines in memory:
    each full chunk is sorted and spilled to a temporary file in ``folder`` (the system's
    temporary folder by default), then the files are merged; the files are removed when the
    iterator is exhausted or closed."""
    if chunk < 1:
        raise ValueError("chunk must be at least 1")
    with tempfile.TemporaryDirectory(prefix="crawlmill-sort-", dir=folder) as tmp:
        runs: list[str] = []
        buffer: list[bytes] = []
        for line in lines:
            if b"\n" in line:
                raise ValueError(f"a line to sort holds a line break: {line[:80]!r}")
            buffer.append(line)
            if len(buffer) >= chunk:
                runs.append(_spill(tmp, len(runs), buffer))
                buffer = []
        buffer.sort()
        if not runs:
            yield from buffer
            return
        runs.append(_spill(tmp, len(runs), buffer))
        del buffer
        files = [open(path, "rb") for path in runs]  # noqa: SIM115 - closed below
        try:
            yield from heapq.merge(*((line[:-1] for line in fh) for fh in files))
        finally:
            for fh in files:
                fh.close()


def _spill(folder: str, number: int, lines: list[bytes]) -> str:
    lines.sort()
    path = os.path.join(folder, f"run-{number:06d}")
    with open(path, "wb") as fh:
        for line in lines:
            fh.write(line + b"\n")
    return path


def unmatched(
    left: Iterable[tuple[bytes, T]], right: Iterable[tuple[bytes, U]]
) -> Iterator[tuple[T | None, U | None]]:
    """The items of two streams sorted by key whose key the other stream lacks: ``(item,
    None)`` for a left item, ``(None, item)`` for a right one, in key order. One pass over
    each stream, nothing held but the current key's items."""
    lefts, rights = iter(left), iter(right)
    a = next(lefts, None)
    b = next(rights, None)
    while a is not None or b is not None:
        if b is None or (a is not None and a[0] < b[0]):
            assert a is not None
            yield a[1], None
            a = next(lefts, None)
        elif a is None or b[0] < a[0]:
            yield None, b[1]
            b = next(rights, None)
        else:  # the same key on both sides: every item of it is matched
            key = a[0]
            while a is not None and a[0] == key:
                a = next(lefts, None)
            while b is not None and b[0] == key:
                b = next(rights, None)
