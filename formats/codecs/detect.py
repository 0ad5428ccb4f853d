"""Detection: which codec compresses a file (by magic) and its first decompressed bytes."""

from __future__ import annotations

import gzip
import zlib
from typing import BinaryIO

from .gzip_stream import GZIP_MAGIC
from .pieces import Broken
from .table import codec_named, detect

__all__ = ["compression_of", "read_head", "read_head_of"]


def compression_of(head: bytes) -> str | None:
    """``"gzip"``, ``"zstd"``, ``"lz4"`` (a codec's name) or ``None`` (uncompressed) from a
    file's first bytes (:func:`crawlmill.formats.codecs.table.detect`).

    A zstd WARC that starts with its dictionary (a skippable frame, magic ``0x184D2A5D``) is
    ``"zstd"`` too.
    """
    return detect(head)


def read_head(path: str, size: int = 65536) -> bytes:
    """Up to ``size`` bytes from the start of ``path``, decompressed with the codec its magic names (gzip, zstd, LZ4, ...).

    Damaged or truncated compressed data yields whatever could be decompressed (possibly
    ``b""``); this is for format detection, never for reading records.
    """
    with open(path, "rb") as fh:
        return read_head_of(fh, size)


def read_head_of(fh: BinaryIO, size: int = 65536) -> bytes:
    """:func:`read_head` of an open binary file ``fh`` (read from its start; any file
    object with ``read``, such as a remote object a storage layer opened)."""
    raw = fh.read(max(size, 4096))
    kind = compression_of(raw)
    if kind == "gzip":
        out = bytearray()
        data = raw + fh.read(max(0, 1024 * 1024 - len(raw)))
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
    if kind is not None:
        out = bytearray()
        try:
            fh.seek(0)
            for item in codec_named(kind).members(fh, limit=1 << 62, piece_size=size):
                if isinstance(item, Broken):
                    break
                out += item.data
                if len(out) >= size:
                    break
        except Exception:
            pass
        return bytes(out[:size])
    return raw[:size]
