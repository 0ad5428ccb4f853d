"""Very large inputs built cheaply, for the memory bound (``test_memory.py``): gzip members
that inflate to gigabytes from a few megabytes (a flushed deflate block of zeros repeated),
and files whose gigabytes are holes (``truncate`` past the end: the file reads as zeros and
takes no disk).

Nothing here uses crawlmill: the bytes follow RFC 1952 (gzip) and RFC 1951 (deflate)."""

from __future__ import annotations

import struct
import zlib
from pathlib import Path

__all__ = ["GiB", "MiB", "gzip_bomb", "crc32_zeros", "sparse_file", "zlib_bomb"]

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
    crc = zlib.crc32(suffix, crc32_zeros(zlib.crc32(prefix), zeros))
    size = (len(prefix) + zeros + len(suffix)) & 0xFFFFFFFF
    body = head + one * (zeros // MiB) + tail
    return b"\x1f\x8b\x08\x00\x00\x00\x00\x00\x00\xff" + body + struct.pack("<II", crc, size)


def _gf2_times(mat: list[int], vec: int) -> int:
    out, i = 0, 0
    while vec:
        if vec & 1:
            out ^= mat[i]
        vec >>= 1
        i += 1
    return out


def crc32_zeros(crc: int, n: int) -> int:
    """``zlib.crc32(b"\\0" * n, crc)`` without the gigabytes: appending a zero bit to the
    message is a linear map of the CRC register (zlib's ``crc32_combine``), applied ``8 n``
    times by repeated squaring."""
    mat = [0xEDB88320] + [1 << i for i in range(31)]  # one zero bit
    reg, bits = crc ^ 0xFFFFFFFF, 8 * n
    while bits:
        if bits & 1:
            reg = _gf2_times(mat, reg)
        mat = [_gf2_times(mat, m) for m in mat]
        bits >>= 1
    return reg ^ 0xFFFFFFFF


def zlib_bomb(zeros: int) -> bytes:
    """One zlib stream (RFC 1950, Hadoop's ``DefaultCodec``) inflating to ``zeros`` zero
    bytes (Adler-32 of zeros: ``a`` stays 1, ``b`` grows by 1 a byte)."""
    raw = gzip_bomb(b"", zeros)[10:-8]
    return b"\x78\xda" + raw + struct.pack(">I", ((zeros % 65521) << 16) | 1)


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
