"""The rules of a path below the output root: the reserved bookkeeping folder and what a
writer may name (used by the output root, core/run/outputs.py, and the object-store stage,
core/storage_root.py)."""

from __future__ import annotations

import posixpath

from .errors import CrawlmillError

__all__ = ["BOOKKEEPING", "UnsafeOutputPath", "safe_relpath"]

BOOKKEEPING = ".crawlmill"


class UnsafeOutputPath(CrawlmillError, ValueError):
    """A writer asked for an output path outside the output root (or an invalid one)."""


def safe_relpath(relpath: str, *, internal: bool = False) -> str:
    """``relpath`` normalised to a POSIX relative path, or :class:`UnsafeOutputPath` when it is
    empty, absolute, climbs with ``..``, contains NUL or backslashes, or (unless ``internal``)
    points into the ``.crawlmill`` bookkeeping folder."""
    if not isinstance(relpath, str) or not relpath or "\0" in relpath or "\\" in relpath:
        raise UnsafeOutputPath(f"invalid output path {relpath!r}")
    if relpath.startswith("/") or (len(relpath) > 1 and relpath[1] == ":"):
        raise UnsafeOutputPath(
            f"output path {relpath!r} is absolute; writers must use relative paths"
        )
    parts = relpath.split("/")
    if ".." in parts:
        raise UnsafeOutputPath(f"output path {relpath!r} climbs out of the output root with '..'")
    norm = posixpath.normpath(relpath)
    if norm in (".", "") or norm.endswith("/"):
        raise UnsafeOutputPath(f"output path {relpath!r} names no file")
    if not internal and norm.split("/")[0] == BOOKKEEPING:
        raise UnsafeOutputPath(
            f"output path {relpath!r} is inside the reserved {BOOKKEEPING}/ folder"
        )
    return norm
