"""Sorted run files: the on-disk unit of a shuffle (entries sorted by ``(key, input, seq)``).

Layout (all integers big-endian)::

    MAGIC                                  8 bytes  b"CMSHUF" + version (2 bytes)
    entry*                                 sorted by (key, input, seq), unsigned byte order
        key_len u32, blob_len u64, input u32, seq u64, key, blob, crc32 u32
        (the crc32 covers the 24 header bytes, the key and the blob as stored)

Version 1 (:data:`MAGIC`) stores each blob as it is; version 2 (:data:`ZMAGIC`, what
:class:`RunWriter` writes unless ``compress=False``) stores each blob as one zstd frame
(level :data:`ZSTD_LEVEL`; ``blob_len`` is the frame's length), so the shuffle's scratch
space is about a third of the records' bytes for web pages. Keys are never compressed: the
merge compares them and the index holds them. A reader takes both versions.
    index                                  at index_offset
        count u32, then (key_len u32, key, offset u64) per item, then crc32 u32 of it all
    trailer                                24 bytes
        index_offset u64, entries u64, crc32 u32 of the first 16 bytes, b"CMSE"

The **index** holds the key and offset of the first entry and then of an entry at least every
:data:`INDEX_BYTES` bytes or :data:`INDEX_ENTRIES` entries: a reader seeks to the start of a
key range without reading what comes before, and the keys with the bytes between them are a
weighted sample of the run for range partitioning (:func:`~.merge.boundaries`).

A run file is written under a temporary name (a dot name) and renamed into place when it is
complete (:meth:`RunWriter.close`), so a visible run file is always whole; the trailer and the
per-entry crc32 make truncation or damage an error (:class:`RunFileError` naming the file and
the byte offset), never a short or wrong merge. Every declared length is checked against the
bytes the file has before it is read.
"""

from __future__ import annotations

import bisect
import contextlib
import os
import struct
import zlib
from collections.abc import Iterator
from typing import BinaryIO

import zstandard

__all__ = [
    "INDEX_BYTES",
    "INDEX_ENTRIES",
    "MAGIC",
    "MAX_KEY",
    "ZMAGIC",
    "Entry",
    "RunFileError",
    "RunReader",
    "RunWriter",
]

MAGIC = b"CMSHUF\x00\x01"
#: the magic of a run file whose blobs are zstd frames.
ZMAGIC = b"CMSHUF\x00\x02"
#: the zstd level of run-file blobs (level 1: the fastest, most of the gain on HTML).
ZSTD_LEVEL = 1
#: whether :class:`RunWriter` compresses blobs when not told.
COMPRESS = True
TRAILER_MAGIC = b"CMSE"
#: longest key a run file holds (a declared key length above it is damage).
MAX_KEY = 16 * 1024 * 1024
#: an index item at least every this many entry bytes...
INDEX_BYTES = 64 * 1024
#: ...or entries.
INDEX_ENTRIES = 64
#: the read buffer of one open run (the memory a merge needs per run, beside one entry).
READ_BUFFER = 64 * 1024

_HEAD = struct.Struct(">IQIQ")
_CRC = struct.Struct(">I")
_U32 = struct.Struct(">I")
_U64 = struct.Struct(">Q")
_TRAILER = struct.Struct(">QQI4s")

#: one shuffled record: ``(key, input, seq, blob)``.
Entry = tuple[bytes, int, int, bytes]


class RunFileError(ValueError):
    """A run file is truncated or damaged (the message names the file and byte offset)."""

    def __init__(self, path: str, offset: int, reason: str) -> None:
        super().__init__(f"shuffle run file {path}: at byte {offset}: {reason}")
        self.path = path
        self.offset = offset
        self.reason = reason


class RunWriter:
    """Write one run file from entries given in sorted order; visible only once closed."""

    def __init__(self, path: str, compress: bool | None = None) -> None:
        self.path = path
        folder, name = os.path.split(path)
        self.tmp = os.path.join(folder, f".{name}.{os.getpid()}.tmp")
        self.compress = COMPRESS if compress is None else compress
        self._zstd = zstandard.ZstdCompressor(level=ZSTD_LEVEL) if self.compress else None
        self._file: BinaryIO | None = open(self.tmp, "wb")  # noqa: SIM115 (closed in close/abort)
        self._file.write(ZMAGIC if self.compress else MAGIC)
        self.position = len(MAGIC)
        self.entries = 0
        self._index: list[tuple[bytes, int]] = []
        self._since_bytes = 0
        self._since_entries = 0
        self._last: tuple[bytes, int, int] | None = None

    def add(self, key: bytes, input: int, seq: int, blob: bytes) -> None:
        """Append an entry; entries must come in ``(key, input, seq)`` order."""
        assert self._file is not None, "run writer closed"
        if len(key) > MAX_KEY:
            raise ValueError(f"shuffle key of {len(key)} bytes; at most {MAX_KEY}")
        order = (key, input, seq)
        if self._last is not None and order < self._last:
            raise ValueError("run entries must be added in (key, input, seq) order")
        self._last = order
        if not self._index or (
            self._since_bytes >= INDEX_BYTES or self._since_entries >= INDEX_ENTRIES
        ):
            self._index.append((key, self.position))
            self._since_bytes = self._since_entries = 0
        if self._zstd is not None:
            blob = self._zstd.compress(blob)
        head = _HEAD.pack(len(key), len(blob), input, seq)
        crc = zlib.crc32(blob, zlib.crc32(key, zlib.crc32(head)))
        write = self._file.write
        write(head)
        write(key)
        write(blob)
        write(_CRC.pack(crc))
        size = _HEAD.size + len(key) + len(blob) + _CRC.size
        self.position += size
        self._since_bytes += size
        self._since_entries += 1
        self.entries += 1

    def close(self) -> str:
        """Write the index and trailer, then rename the file into place; returns its path."""
        assert self._file is not None, "run writer closed"
        index_offset = self.position
        parts = [_U32.pack(len(self._index))]
        for key, offset in self._index:
            parts += [_U32.pack(len(key)), key, _U64.pack(offset)]
        index = b"".join(parts)
        head = struct.pack(">QQ", index_offset, self.entries)
        trailer = _TRAILER.pack(index_offset, self.entries, zlib.crc32(head), TRAILER_MAGIC)
        f, self._file = self._file, None
        try:
            f.write(index)
            f.write(_CRC.pack(zlib.crc32(index)))
            f.write(trailer)
            f.flush()
            os.fsync(f.fileno())
        finally:
            f.close()
        os.replace(self.tmp, self.path)
        return self.path

    def abort(self) -> None:
        """Drop the unfinished file."""
        if self._file is not None:
            self._file.close()
            self._file = None
        with contextlib.suppress(FileNotFoundError):
            os.remove(self.tmp)


class RunReader:
    """Read a run file: its index at once, its entries as a stream (one entry in memory)."""

    def __init__(self, path: str) -> None:
        self.path = path
        with open(path, "rb") as f:
            size = os.fstat(f.fileno()).st_size
            self.size = size
            if size < len(MAGIC) + _TRAILER.size:
                raise RunFileError(path, size, "truncated: shorter than a header and trailer")
            magic = f.read(len(MAGIC))
            if magic not in (MAGIC, ZMAGIC):
                raise RunFileError(path, 0, "not a crawlmill shuffle run file (bad magic)")
            #: whether blobs are zstd frames (version 2).
            self.compressed = magic == ZMAGIC
            f.seek(size - _TRAILER.size)
            index_offset, entries, crc, magic = _TRAILER.unpack(f.read(_TRAILER.size))
            at = size - _TRAILER.size
            if magic != TRAILER_MAGIC:
                raise RunFileError(path, at, "truncated or damaged: no trailer at the end")
            if crc != zlib.crc32(struct.pack(">QQ", index_offset, entries)):
                raise RunFileError(path, at, "damaged trailer (crc32)")
            if not len(MAGIC) <= index_offset <= at - _U32.size - _CRC.size:
                raise RunFileError(path, at, f"index offset {index_offset} outside the file")
            f.seek(index_offset)
            raw = f.read(at - index_offset)
        self.index_offset = index_offset
        self.entries = entries
        keys, offsets = self._parse_index(raw)
        #: the index: keys and the offsets of their entries (sorted).
        self.keys = keys
        self.offsets = offsets
        #: the offset after the last entry :meth:`read` went through (0: none yet).
        self.position = 0

    def _parse_index(self, raw: bytes) -> tuple[list[bytes], list[int]]:
        at = self.index_offset
        body, crc = raw[: -_CRC.size], raw[-_CRC.size :]
        if _CRC.unpack(crc)[0] != zlib.crc32(body):
            raise RunFileError(self.path, at, "damaged index (crc32)")
        (count,) = _U32.unpack_from(body, 0)
        pos = _U32.size
        keys: list[bytes] = []
        offsets: list[int] = []
        for _ in range(count):
            if pos + _U32.size > len(body):
                raise RunFileError(self.path, at + pos, "index shorter than its count")
            (n,) = _U32.unpack_from(body, pos)
            pos += _U32.size
            if pos + n + _U64.size > len(body):
                raise RunFileError(self.path, at + pos, "index key longer than the index")
            keys.append(body[pos : pos + n])
            (offset,) = _U64.unpack_from(body, pos + n)
            offsets.append(offset)
            pos += n + _U64.size
            if not len(MAGIC) <= offset < self.index_offset:
                raise RunFileError(self.path, at + pos, f"index offset {offset} outside entries")
        return keys, offsets

    def samples(self) -> list[tuple[bytes, int]]:
        """The index keys, each with the bytes of entries from it to the next index key: a
        sample of the run's keys weighted by size."""
        ends = [*self.offsets[1:], self.index_offset]
        return [(k, end - off) for k, off, end in zip(self.keys, self.offsets, ends, strict=True)]

    def __iter__(self) -> Iterator[Entry]:
        return self.read()

    def read(self, lo: bytes | None = None, hi: bytes | None = None) -> Iterator[Entry]:
        """The entries with ``lo <= key < hi`` (``None``: unbounded), in order; the index
        says where to start, so entries well below ``lo`` are not read."""
        start = len(MAGIC)
        if lo is not None:
            i = bisect.bisect_left(self.keys, lo)  # index keys before i are < lo
            if i > 0:
                start = self.offsets[i - 1]
        return self._entries(start, lo, hi)

    def _entries(self, start: int, lo: bytes | None, hi: bytes | None) -> Iterator[Entry]:
        path, end = self.path, self.index_offset
        unzstd = zstandard.ZstdDecompressor().decompress if self.compressed else None
        with open(path, "rb", buffering=READ_BUFFER) as f:
            f.seek(start)
            pos = start
            read = f.read
            n = 0
            while pos < end:
                head = read(_HEAD.size)
                if len(head) != _HEAD.size:
                    raise RunFileError(path, pos, "file ends inside an entry header")
                key_len, blob_len, input, seq = _HEAD.unpack(head)
                size = _HEAD.size + key_len + blob_len + _CRC.size
                if key_len > MAX_KEY or pos + size > end:
                    raise RunFileError(
                        path,
                        pos,
                        f"entry of {size} bytes declared, {end - pos} left before the index",
                    )
                key = read(key_len)
                blob = read(blob_len)
                crc = read(_CRC.size)
                if len(crc) != _CRC.size:
                    raise RunFileError(path, pos, "file ends inside an entry")
                if _CRC.unpack(crc)[0] != zlib.crc32(blob, zlib.crc32(key, zlib.crc32(head))):
                    raise RunFileError(path, pos, "damaged entry (crc32)")
                pos += size
                self.position = pos
                n += 1
                if hi is not None and key >= hi:
                    return
                if lo is None or key >= lo:
                    if unzstd is not None:
                        try:
                            blob = unzstd(blob)
                        except zstandard.ZstdError as exc:
                            raise RunFileError(path, pos - size, f"bad zstd blob: {exc}") from exc
                    yield key, input, seq, blob
        if start == len(MAGIC) and n != self.entries:
            raise RunFileError(path, end, f"{n} entries, the trailer says {self.entries}")
