"""Compression detection and bounded decompression helpers (gzip, zstd) for every format."""

from __future__ import annotations

import gzip
import zlib

GZIP_MAGIC = b"\x1f\x8b"
ZSTD_MAGIC = b"\x28\xb5\x2f\xfd"
ZSTD_DICT_MAGIC = b"\x37\xa4\x30\xec"


def compression_of(head: bytes) -> str | None:
    """``"gzip"``, ``"zstd"`` or ``None`` (uncompressed) from a file's first bytes."""
    if head.startswith(GZIP_MAGIC):
        return "gzip"
    if head.startswith(ZSTD_MAGIC):
        return "zstd"
    return None


def read_head(path: str, size: int = 65536) -> bytes:
    """Up to ``size`` bytes from the start of ``path``, decompressed if it is gzip or zstd.

    Damaged or truncated compressed data yields whatever could be decompressed (possibly
    ``b""``); this is for format detection, never for reading records.
    """
    with open(path, "rb") as fh:
        raw = fh.read(max(size, 4096))
    kind = compression_of(raw)
    if kind == "gzip":
        out = bytearray()
        data = raw
        with open(path, "rb") as fh:
            fh.seek(0)
            data = fh.read(1024 * 1024)
        try:
            dec = zlib.decompressobj(16 + zlib.MAX_WBITS)
            out += dec.decompress(data, size)
            # a per-record gzip file: keep going through the next members for a fuller head
            while len(out) < size and dec.eof and dec.unused_data.startswith(GZIP_MAGIC):
                rest = dec.unused_data
                dec = zlib.decompressobj(16 + zlib.MAX_WBITS)
                out += dec.decompress(rest, size - len(out))
        except (zlib.error, gzip.BadGzipFile):
            pass
        return bytes(out[:size])
    if kind == "zstd":
        try:
            import zstandard

            with open(path, "rb") as fh:
                reader = zstandard.ZstdDecompressor().stream_reader(fh, read_across_frames=True)
                return reader.read(size)
        except Exception:
            return b""
    return raw[:size]
