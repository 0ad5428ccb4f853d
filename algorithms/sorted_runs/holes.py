"""Freeing the part of a file already read, so a merge's run files shrink on disk as it reads
them: ``fallocate(FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE)`` on Linux (the file keeps its
length, the blocks before the offset are released). Where the system or the file system
cannot, nothing is freed (the file goes when it is removed)."""

from __future__ import annotations

import contextlib
import ctypes
import ctypes.util
import os
import sys
from typing import Any

__all__ = ["BLOCK", "Freer", "can_free", "free_span"]

#: bytes are freed in whole blocks of this size (file systems punch whole blocks).
BLOCK = 4096
_PUNCH_HOLE_KEEP_SIZE = 0x02 | 0x01


def _fallocate() -> Any:
    if not sys.platform.startswith("linux"):
        return None
    try:
        fn = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6", use_errno=True).fallocate
    except (OSError, AttributeError):
        return None
    fn.argtypes = [ctypes.c_int, ctypes.c_int, ctypes.c_int64, ctypes.c_int64]
    fn.restype = ctypes.c_int
    return fn


_FALLOCATE = _fallocate()


def can_free() -> bool:
    """Whether this system can free a file's first bytes (a file system may still refuse)."""
    return _FALLOCATE is not None


class Freer:
    """Frees the first bytes of the file at ``path`` as a reader passes them."""

    def __init__(self, path: str) -> None:
        self.fd: int | None = os.open(path, os.O_WRONLY) if _FALLOCATE is not None else None
        #: bytes freed so far (from the start of the file).
        self.freed = 0

    def free_to(self, offset: int) -> int:
        """Free the bytes before ``offset`` (down to a whole :data:`BLOCK`); the bytes newly
        freed (0 when nothing more can be; after a refusal it stops trying)."""
        end = offset - offset % BLOCK
        if self.fd is None or end <= self.freed:
            return 0
        if _FALLOCATE(self.fd, _PUNCH_HOLE_KEEP_SIZE, self.freed, end - self.freed) != 0:
            self.close()  # e.g. a file system without hole punching
            return 0
        done, self.freed = end - self.freed, end
        return done

    def close(self) -> None:
        if self.fd is not None:
            with contextlib.suppress(OSError):
                os.close(self.fd)
            self.fd = None


def free_span(path: str, start: int, end: int) -> int:
    """Free the bytes ``[start, end)`` of the file at ``path`` (whole blocks); the bytes freed
    (0 when the system or the file system cannot)."""
    start += -start % BLOCK
    end -= end % BLOCK
    if _FALLOCATE is None or end <= start:
        return 0
    try:
        fd = os.open(path, os.O_WRONLY)
    except OSError:
        return 0
    try:
        return end - start if _FALLOCATE(fd, _PUNCH_HOLE_KEEP_SIZE, start, end - start) == 0 else 0
    finally:
        os.close(fd)
