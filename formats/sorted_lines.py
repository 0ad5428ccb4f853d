"""Lines of a large text file sorted by its first tab field, found by binary search on disk.

The NTCIR lists (``doclist``, ``targetlist``, ``linklist``) hold millions of lines, one per doc
id, in doc id order; a task needs the lines of a few ids. :func:`find_lines` seeks instead of
loading the file (memory stays flat whatever its size), as Unix ``look`` does.
:func:`first_fields_sorted` says whether a file is in that order (bytewise), so a caller can
fall back to another way when it is not.
"""

from __future__ import annotations

from typing import BinaryIO

__all__ = ["find_lines", "first_fields_sorted"]


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
