"""Very large inputs built cheaply, for the memory bound (``test_memory.py``): gzip members
that inflate to gigabytes from a few megabytes (a flushed deflate block of zeros repeated),
and files whose gigabytes are holes (``truncate`` past the end: the file reads as zeros and
takes no disk).

Nothing here uses crawlmill: the bytes follow RFC 1952 (gzip) and RFC 1951 (deflate)."""

from __future__ import annotations

import struct
import zlib
from pathlib import Path

__all__ = ["MiB", "GiB", "gzip_bomb", "sparse_file"]

MiB = 1 << 20
GiB = 1 << 30


def gzip_bomb(prefix: bytes, zeros: int, suffix: bytes = b"") -> bytes:
    """One gzip member inflating to ``prefix + b"\\0" * zeros + suffix`` (``zeros`` a multiple
    of 1 MiB), with the right CRC-32 and ISIZE. After a full flush the deflate state is reset
    (RFC 1951 3.2.3: a block is byte-aligned after a flush), so the compressed form of 1 MiB of
    zeros is the same bytes each time: it is made once and repeated."""
    assert zeros % MiB == 0
    c = zlib.compressobj(9, zlib.DEFLATED, -15)
    head = c.compress(prefix) + c.flush(zlib.Z_FULL_FLUSH)
    chunk = bytes(MiB)
    one = c.compress(chunk) + c.flush(zlib.Z_FULL_FLUSH)
    again = c.compress(chunk) + c.flush(zlib.Z_FULL_FLUSH)
    assert one == again
    tail = c.compress(suffix) + c.flush(zlib.Z_FINISH)
    crc = zlib.crc32(prefix)
    for _ in range(zeros // MiB):
        crc = zlib.crc32(chunk, crc)
    crc = zlib.crc32(suffix, crc)
    size = (len(prefix) + zeros + len(suffix)) & 0xFFFFFFFF
    body = head + one * (zeros // MiB) + tail
    return b"\x1f\x8b\x08\x00\x00\x00\x00\x00\x00\xff" + body + struct.pack("<II", crc, size)


def sparse_file(path: Path, parts: list[bytes | int]) -> Path:
    """Write ``parts`` to ``path``: bytes are written, an int ``n`` is a hole of ``n`` zero
    bytes (seek past it; the file system stores nothing for it)."""
    with open(path, "wb") as f:
        for p in parts:
            if isinstance(p, int):
                f.seek(p, 1)
            else:
                f.write(p)
        f.truncate(f.tell())
    return path
