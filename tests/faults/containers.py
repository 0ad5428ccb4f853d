"""Compression containers of an input file, independent of crawlmill: split a file into its
units (gzip members, zstd frames, bzip2 streams, or the whole plain file), inflate them, encode new ones, and
map a compressed prefix to the number of bytes it inflates to."""

from __future__ import annotations

import bz2
import gzip
import zlib
from dataclasses import dataclass

__all__ = ["Unit", "container_of", "encode", "inflated_prefix", "split_units"]

GZIP_MAGIC = b"\x1f\x8b"
ZSTD_MAGIC = b"\x28\xb5\x2f\xfd"
BZIP2_MAGIC = b"BZh"


@dataclass(frozen=True)
class Unit:
    """One compressed member (or the plain file): ``[start, end)`` in the file and
    ``[dstart, dend)`` in the concatenation of all inflated units."""

    start: int
    end: int
    dstart: int
    dend: int


def container_of(data: bytes) -> str:
    """``gzip``, ``zstd``, ``bzip2`` or ``plain`` from the first bytes."""
    if data.startswith(GZIP_MAGIC):
        return "gzip"
    if data.startswith(ZSTD_MAGIC):
        return "zstd"
    if data.startswith(BZIP2_MAGIC) and data[3:4].isdigit() and data[3:4] != b"0":
        return "bzip2"
    return "plain"


def _decompressor(container: str):
    if container == "gzip":
        return zlib.decompressobj(31)
    if container == "bzip2":
        return bz2.BZ2Decompressor()
    import zstandard

    return zstandard.ZstdDecompressor().decompressobj()


def split_units(data: bytes, container: str) -> tuple[list[Unit], bytes]:
    """The units of an intact file and their concatenated inflated bytes; raises
    ``ValueError`` when a unit does not inflate completely."""
    if container == "plain":
        return [Unit(0, len(data), 0, len(data))], data
    units: list[Unit] = []
    parts: list[bytes] = []
    pos = dpos = 0
    while pos < len(data):
        d = _decompressor(container)
        out = d.decompress(data[pos:])
        if not d.eof:
            raise ValueError(f"{container} unit at {pos} does not end")
        end = len(data) - len(d.unused_data)
        units.append(Unit(pos, end, dpos, dpos + len(out)))
        parts.append(out)
        pos, dpos = end, dpos + len(out)
    return units, b"".join(parts)


def encode(container: str, raw: bytes) -> bytes:
    """``raw`` as one unit of ``container`` (gzip: mtime 0, level 6; zstd: with checksum;
    bzip2: level 9, one stream)."""
    if container == "plain":
        return raw
    if container == "gzip":
        return gzip.compress(raw, compresslevel=6, mtime=0)
    if container == "bzip2":
        return bz2.compress(raw, 9)
    import zstandard

    return zstandard.ZstdCompressor(write_checksum=True, write_content_size=True).compress(raw)


def inflated_prefix(container: str, unit_bytes: bytes, n: int) -> int:
    """How many inflated bytes the first ``n`` bytes of an intact unit yield: everything a
    decoder can deliver before damage at byte ``n`` of the unit."""
    if container == "plain":
        return n
    try:
        return len(_decompressor(container).decompress(unit_bytes[:n]))
    except Exception:  # zstd, bzip2 raise on some prefixes; nothing is safely decoded then
        return 0
