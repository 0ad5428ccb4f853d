"""Hadoop SequenceFile: the header (SEQ1 to SEQ6), the entries of NONE, RECORD and BLOCK
files, and the writer (spec section 2).

Reading (:func:`read_header`, :func:`iter_entries`) works on the bytes of a whole file (an
``mmap`` or ``bytes``), so damage costs no more than a search for the next sync marker:

* a record or block whose bytes disprove it (a negative or impossible length, a key longer
  than its record, a record whose end is followed by bytes that start no record, a buffer the
  codec cannot inflate, key and value lengths that do not add up to their buffers, a record
  length that runs past one of the file's own sync markers) is a
  :class:`~crawlmill.formats.codecs.stream.Damage` with its file offset and the reason, and reading
  resumes at the next sync marker (the file's 16-byte hash after a ``-1`` escape), so the
  good records after it are delivered;
* a file cut inside a record or block is damage from that record to the end (a length past
  the end of the file with a sync marker after the record is a wrong length instead);
* nothing assumes a sync interval: a sync marker is expected before every BLOCK block and
  accepted anywhere between NONE/RECORD records (several in a row too).
* each damage carries its problem code (docs/problems.md), set where it is found: a cut file
  ``truncated-record``, a disproved length ``bad-length``, a record or buffer over the limit
  ``record-too-large``, a sync marker missing or not this file's ``bad-sync-marker``, a value
  or buffer its codec cannot inflate (or a codec crawlmill lacks) ``corrupt-member``, block
  lengths that are not VInts ``not-a-record``; a :class:`HeaderError` has one too.

Sizes come from the data and are checked before use: no record larger than
``max_record_bytes``, no buffer inflating beyond ``max_decompressed_bytes``.

Writing (:class:`SequenceFileWriter`) makes what Hadoop 3's ``SequenceFile.Writer`` makes:
SEQ6 by default, a random sync hash, a sync marker when a record starts 100 KiB or more after
the last one (``lastSyncPos`` starting at 0, as Hadoop), BLOCK blocks flushed at 1 000 000
uncompressed key + value bytes and on close, each of the four buffers compressed alone.
"""

from __future__ import annotations

import contextlib
import mmap
import os
import struct
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any, BinaryIO

from ..codecs.stream import Damage
from .codecs import DEFAULT_CODEC, CodecError, HadoopCodec, codec_for
from .vint import VIntError, decode_vint, encode_vlong
from .writables import WritableError, decode_modified_utf8, encode_modified_utf8

__all__ = [
    "MAGIC",
    "SYNC_INTERVAL",
    "BLOCK_SIZE",
    "Entry",
    "Header",
    "HeaderError",
    "SequenceFileWriter",
    "encode_header",
    "iter_entries",
    "read_header",
    "release_pages",
]

MAGIC = b"SEQ"
SYNC_ESCAPE = b"\xff\xff\xff\xff"
SYNC_SIZE = 20
#: Hadoop 3's interval (``5 * 1024 * SYNC_SIZE``); Hadoop 0.x-2.x used 2000.
SYNC_INTERVAL = 5 * 1024 * SYNC_SIZE
#: ``io.seqfile.compress.blocksize``: a BLOCK block is flushed at this many key + value bytes.
BLOCK_SIZE = 1_000_000
#: file pages of an ``mmap`` read past are handed back in steps of this many bytes.
RELEASE_STEP = 32 << 20
COMPRESSIONS = ("none", "record", "block")


#: the problem codes of the damage this module finds (docs/problems.md).
TRUNCATED = "truncated-record"
BAD_LENGTH = "bad-length"
TOO_LARGE = "record-too-large"
BAD_SYNC = "bad-sync-marker"
CORRUPT = "corrupt-member"
NOT_A_RECORD = "not-a-record"


class HeaderError(ValueError):
    """Bytes that are not a SequenceFile header (``code`` ``not-a-record``), or one cut
    short (``truncated-record``)."""

    def __init__(self, reason: str, code: str = NOT_A_RECORD) -> None:
        super().__init__(reason)
        self.code = code


@dataclass
class Header:
    """A SequenceFile header. Class names are as written (old files use aliases such as
    ``UTF8`` or ``long``); ``metadata`` keeps the file's ``(key, value)`` Text pairs in file
    order; ``sync`` is ``None`` for SEQ1; ``length`` is where the first record starts."""

    version: int
    key_class: str
    value_class: str
    compression: str = "none"  # none | record | block
    codec: str | None = None
    metadata: list[tuple[bytes, bytes]] = field(default_factory=list)
    sync: bytes | None = None
    length: int = 0


def _cut(what: str, pos: int) -> HeaderError:
    return HeaderError(f"header cut short in its {what} (at byte {pos})", TRUNCATED)


def read_header(data: bytes | memoryview, max_bytes: int = 1 << 20) -> Header:
    """The header at the start of ``data``; :class:`HeaderError` when it is not one."""
    if len(data) < 4 or bytes(data[:3]) != MAGIC:
        raise HeaderError("no SequenceFile magic 'SEQ' at byte 0")
    version = data[3]
    if not 1 <= version <= 6:
        raise HeaderError(f"SequenceFile version {version} is not 1 to 6")
    pos = 4

    def string(what: str) -> str:
        nonlocal pos
        try:
            if version < 4:
                if pos + 2 > len(data):
                    raise _cut(what, pos)
                n = int.from_bytes(data[pos : pos + 2], "big")
                start = pos + 2
            else:
                n, start = decode_vint(data, pos)
        except VIntError:
            raise _cut(what, pos) from None
        if n < 0 or n > max_bytes:
            raise HeaderError(f"{what} of {n} bytes at byte {pos} does not fit the header")
        if start + n > len(data):
            raise _cut(what, pos)
        raw = bytes(data[start : start + n])
        pos = start + n
        try:
            return decode_modified_utf8(raw) if version < 4 else raw.decode("utf-8")
        except (UnicodeDecodeError, WritableError):
            return raw.decode("utf-8", "surrogateescape")

    def flag(what: str) -> bool:
        nonlocal pos
        if pos >= len(data):
            raise _cut(what, pos)
        pos += 1
        return data[pos - 1] != 0

    key_class = string("key class name")
    value_class = string("value class name")
    compressed = flag("compression flag") if version > 2 else False
    block = flag("block compression flag") if version >= 4 else False
    codec = None
    if compressed:
        codec = string("codec class name") if version >= 5 else DEFAULT_CODEC
    metadata: list[tuple[bytes, bytes]] = []
    if version >= 6:
        if pos + 4 > len(data):
            raise _cut("metadata count", pos)
        count = int.from_bytes(data[pos : pos + 4], "big", signed=True)
        if count < 0 or count * 2 > len(data) - pos - 4:
            raise HeaderError(f"metadata count {count} at byte {pos} does not fit the file")
        pos += 4
        for _ in range(count):
            pair = []
            for what in ("metadata key", "metadata value"):
                try:
                    n, start = decode_vint(data, pos)
                except VIntError:
                    raise _cut(what, pos) from None
                if n < 0 or n > max_bytes or start + n > len(data):
                    raise HeaderError(f"{what} of {n} bytes at byte {pos} does not fit the header")
                pair.append(bytes(data[start : start + n]))
                pos = start + n
            metadata.append((pair[0], pair[1]))
    sync = None
    if version > 1:
        if pos + 16 > len(data):
            raise _cut("sync hash", pos)
        sync = bytes(data[pos : pos + 16])
        pos += 16
    compression = "block" if block else "record" if compressed else "none"
    return Header(version, key_class, value_class, compression, codec, metadata, sync, pos)


def encode_header(header: Header) -> bytes:
    """The bytes of ``header`` for its version (its ``length`` is ignored)."""
    v = header.version
    if not 1 <= v <= 6:
        raise ValueError(f"SequenceFile version {v} is not 1 to 6")
    if header.compression != "none" and v < 3 or header.compression == "block" and v < 4:
        raise ValueError(f"SEQ{v} cannot hold {header.compression} compression")
    if header.compression != "none" and v < 5 and header.codec not in (None, DEFAULT_CODEC):
        raise ValueError(f"SEQ{v} names no codec: only DefaultCodec")
    if header.metadata and v < 6:
        raise ValueError(f"SEQ{v} holds no metadata")

    def string(text: str) -> bytes:
        if v < 4:
            raw = encode_modified_utf8(text)
            return len(raw).to_bytes(2, "big") + raw
        raw = text.encode("utf-8", "surrogateescape")
        return encode_vlong(len(raw)) + raw

    out = bytearray(MAGIC + bytes([v]))
    out += string(header.key_class) + string(header.value_class)
    if v > 2:
        out.append(header.compression != "none")
    if v >= 4:
        out.append(header.compression == "block")
    if header.compression != "none" and v >= 5:
        out += string(header.codec or DEFAULT_CODEC)
    if v >= 6:
        out += len(header.metadata).to_bytes(4, "big")
        for key, value in header.metadata:
            out += encode_vlong(len(key)) + key + encode_vlong(len(value)) + value
    if v > 1:
        if header.sync is None or len(header.sync) != 16:
            raise ValueError("a SequenceFile from SEQ2 on needs a 16-byte sync hash")
        out += header.sync
    return bytes(out)


@dataclass
class Entry:
    """One key/value pair: ``key`` and ``value`` are the serialized Writables (a RECORD
    value inflated); ``offset``/``length`` the record's bytes in the file (for BLOCK files:
    the block's, sync marker included); ``stored_value`` the value as stored in a RECORD
    file (compressed); ``block``/``index`` the block number and the entry's place in it
    (BLOCK files); ``sync_before`` whether a sync marker directly precedes the record."""

    key: bytes
    value: bytes
    offset: int
    length: int
    stored_value: bytes | None = None
    block: int | None = None
    index: int = 0
    sync_before: bool = False


class _Damaged(Exception):
    """Raised inside the framer: damage of kind ``code`` (docs/problems.md), ``reason`` about
    the bytes from ``start``; ``to_end``: the file is cut, nothing follows."""

    def __init__(self, start: int, code: str, reason: str, to_end: bool = False) -> None:
        super().__init__(reason)
        self.start, self.code, self.reason, self.to_end = start, code, reason, to_end


def _int(data: bytes | memoryview, pos: int) -> int:
    return struct.unpack_from(">i", data, pos)[0]


class _Framer:
    def __init__(self, data: bytes | memoryview, header: Header, codec: HadoopCodec | None,
                 max_record_bytes: int, max_decompressed_bytes: int,
                 check: Callable[[bytes, bytes], bool] | None = None) -> None:  # fmt: skip
        self.check = check
        self.data = data
        self.size = len(data)
        self.h = header
        self.codec = codec
        self.max_record = max_record_bytes
        self.max_inflate = max_decompressed_bytes
        self._synced = False  # a sync marker directly precedes the next record
        self._released = 0  # file pages of an ``mmap`` before this were handed back

    def damage(self, start: int, end: int, code: str, reason: str) -> Damage:
        chunk = bytes(self.data[start : min(end, start + self.max_record)])
        return Damage(start, end - start, reason, chunk, code=code)

    def resync(self, after: int) -> int:
        """The position of the next sync escape at or after ``after`` (the file's end when
        none)."""
        sync = self.h.sync
        if sync is None:
            return self.size
        find = getattr(self.data, "find", None)
        at = after + 4
        while True:
            idx = find(sync, at) if find is not None else bytes(self.data).find(sync, at)
            if idx < 0:
                return self.size
            if bytes(self.data[idx - 4 : idx]) == SYNC_ESCAPE:
                return idx - 4
            at = idx + 1

    def _marker_in(self, start: int, end: int) -> int:
        """Where a whole sync marker of this file starts in ``[start, end)``, or -1."""
        if self.h.sync is None or end - start < SYNC_SIZE:
            return -1
        marker = SYNC_ESCAPE + self.h.sync
        find = getattr(self.data, "find", None)
        if find is not None:
            return find(marker, start, end)
        at = bytes(self.data[start:end]).find(marker)
        return at + start if at >= 0 else -1

    def is_sync(self, pos: int) -> bool:
        return (
            self.h.sync is not None
            and pos + SYNC_SIZE <= self.size
            and bytes(self.data[pos : pos + 4]) == SYNC_ESCAPE
            and bytes(self.data[pos + 4 : pos + SYNC_SIZE]) == self.h.sync
        )

    def entries(self) -> Iterator[Entry | Damage]:
        pos = self.h.length
        block_no = 0
        while pos < self.size:
            try:
                if self.h.compression == "block":
                    entries, end = self.block(pos, block_no)
                    block_no += 1
                    self._release(end)
                    yield from entries
                    pos = end
                else:
                    item, pos = self.record(pos)
                    self._release(pos)
                    if item is not None:
                        box, item = [item], None
                        yield box.pop()  # this frame keeps no reference to a large value
            except _Damaged as exc:
                self._synced = False
                end = self.size if exc.to_end else self.resync(exc.start + 1)
                yield self.damage(exc.start, end, exc.code, exc.reason)
                pos = end

    def _release(self, pos: int) -> None:
        """Hand the file pages of an ``mmap`` before ``pos`` back to the kernel every
        :data:`RELEASE_STEP` bytes: what was read stays in the page cache, not in this
        process's resident memory (a large record would otherwise count twice, as pages and
        as the bytes copied out of them)."""
        if pos - self._released >= RELEASE_STEP:
            self._released = release_pages(self.data, self._released, pos)

    # -- NONE and RECORD ---------------------------------------------------------------------

    def _lengths(self, pos: int) -> tuple[int, int] | None:
        """``(record length, key length)`` at ``pos`` when plausible."""
        if pos + 8 > self.size:
            return None
        rec, key = _int(self.data, pos), _int(self.data, pos + 4)
        if 0 <= key <= rec <= self.max_record:
            return rec, key
        return None

    def _follows(self, end: int) -> bool:
        """Whether a record may end at ``end``: the end of the file, a sync marker (or one cut
        by the end of the file), plausible record lengths, or too few bytes to tell."""
        left = self.size - end
        if left < 8 or self.is_sync(end) or self._lengths(end) is not None:
            return True
        return (
            left < SYNC_SIZE
            and self.h.sync is not None
            and bytes(self.data[end:]) == (SYNC_ESCAPE + self.h.sync)[:left]
        )

    def record(self, pos: int) -> tuple[Entry | None, int]:
        if pos + 4 > self.size:
            raise _Damaged(
                pos,
                TRUNCATED,
                f"{self.size - pos} bytes at the end of the file: no record length",
                True,
            )
        if bytes(self.data[pos : pos + 4]) == SYNC_ESCAPE and self.h.version > 1:
            if pos + SYNC_SIZE > self.size:
                raise _Damaged(pos, TRUNCATED, "sync marker cut by the end of the file", True)
            if not self.is_sync(pos):
                raise _Damaged(pos, BAD_SYNC, "sync escape not followed by the file's sync hash")
            # one marker at a time: two in a row are two markers at one record boundary
            self._synced = True
            return None, pos + SYNC_SIZE
        sync_before, self._synced = self._synced, False
        if pos + 8 > self.size:
            raise _Damaged(pos, TRUNCATED, "record cut by the end of the file in its lengths", True)
        rec, key = _int(self.data, pos), _int(self.data, pos + 4)
        if rec < 0 or key < 0 or key > rec:
            raise _Damaged(
                pos, BAD_LENGTH, f"record length {rec} with key length {key} is impossible"
            )
        if rec > self.max_record:
            raise _Damaged(
                pos,
                TOO_LARGE,
                f"record of {rec} bytes exceeds max_record_bytes ({self.max_record})",
            )
        end = pos + 8 + rec
        if end > self.size and (marker := self._marker_in(pos + 8, self.size)) >= 0:
            # not a cut file: the file goes on past a sync marker, the length is wrong
            raise _Damaged(
                pos, BAD_LENGTH, f"record length {rec} runs past the sync marker at {marker}"
            )
        if end > self.size:
            raise _Damaged(
                pos,
                TRUNCATED,
                f"record declares {rec} bytes but the file ends after {self.size - pos - 8}",
                True,
            )
        # the hash of this file's sync marker inside one record, or a marker that starts
        # inside it and runs past its end (bytes lost inside the record before a marker)
        marker = self._marker_in(pos + 8, min(self.size, end + SYNC_SIZE - 1))
        if marker >= 0:
            raise _Damaged(
                pos, BAD_LENGTH, f"record length {rec} runs past the sync marker at {marker}"
            )
        followed = self._follows(end)
        if not followed and self.check is None:
            raise _Damaged(
                pos,
                BAD_LENGTH,
                f"record length {rec} is wrong: no record, sync marker or end of file after it",
            )
        key_bytes = bytes(self.data[pos + 8 : pos + 8 + key])
        stored = bytes(self.data[pos + 8 + key : end])
        value, kept = stored, None
        if self.h.compression == "record":
            assert self.codec is not None
            try:
                value = self.codec.decompress(stored, self.max_inflate)
            except CodecError as exc:
                raise _Damaged(pos, CORRUPT, f"record value: {exc}") from None
            kept = stored
        if not followed and self.check is not None and not self.check(key_bytes, value):
            raise _Damaged(
                pos,
                BAD_LENGTH,
                f"record length {rec} is wrong: its key or value is not its class, and no record, sync marker or end of file follows",
            )
        return Entry(key_bytes, value, pos, end - pos, kept, None, 0, sync_before), end

    # -- BLOCK -------------------------------------------------------------------------------

    def block(self, pos: int, block_no: int) -> tuple[list[Entry], int]:
        if not self.is_sync(pos):
            if pos + SYNC_SIZE > self.size:
                raise _Damaged(
                    pos,
                    TRUNCATED,
                    f"{self.size - pos} bytes at the end of the file: no block",
                    True,
                )
            raise _Damaged(pos, BAD_SYNC, "no sync marker where a block starts")
        at = pos + SYNC_SIZE
        if at == self.size:
            return [], at  # a sync marker right at the end
        next_sync = self.resync(pos + 1)
        try:
            count, at = decode_vint(self.data, at)
            buffers = []
            for what in ("key lengths", "keys", "value lengths", "values"):
                n, at = decode_vint(self.data, at)
                if n < 0:
                    raise _Damaged(pos, BAD_LENGTH, f"block {what} buffer length {n} is impossible")
                if n > self.max_record:
                    raise _Damaged(
                        pos, TOO_LARGE, f"block {what} buffer of {n} bytes exceeds max_record_bytes"
                    )
                if at + n > self.size or at + n > next_sync:
                    if next_sync < self.size:
                        raise _Damaged(
                            pos,
                            BAD_LENGTH,
                            f"block {what} buffer of {n} bytes runs past the next sync marker",
                        )
                    raise _Damaged(
                        pos, TRUNCATED, f"block cut by the end of the file in its {what}", True
                    )
                buffers.append(bytes(self.data[at : at + n]))
                at += n
        except VIntError:
            if next_sync < self.size:
                raise _Damaged(
                    pos, BAD_LENGTH, "block lengths run past the next sync marker"
                ) from None
            raise _Damaged(
                pos, TRUNCATED, "block cut by the end of the file in its lengths", True
            ) from None
        if count < 0:
            raise _Damaged(pos, BAD_LENGTH, f"block of {count} records")
        assert self.codec is not None
        try:
            plain = [self.codec.decompress(b, self.max_inflate) for b in buffers]
        except CodecError as exc:
            raise _Damaged(pos, CORRUPT, f"block buffer: {exc}") from None
        keys = self._split(plain[0], plain[1], count, pos, "key")
        values = self._split(plain[2], plain[3], count, pos, "value")
        entries = [
            Entry(k, v, pos, at - pos, None, block_no, i, True)
            for i, (k, v) in enumerate(zip(keys, values, strict=True))
        ]
        return entries, at

    def _split(self, lengths: bytes, data: bytes, count: int, pos: int, what: str) -> list[bytes]:
        if count > len(lengths):
            raise _Damaged(
                pos,
                BAD_LENGTH,
                f"block declares {count} records but has {len(lengths)} bytes of {what} lengths",
            )
        out, at, p = [], 0, 0
        try:
            for _ in range(count):
                n, p = decode_vint(lengths, p)
                if n < 0 or at + n > len(data):
                    raise _Damaged(
                        pos,
                        BAD_LENGTH,
                        f"block {what} length {n} beyond its buffer of {len(data)} bytes",
                    )
                out.append(data[at : at + n])
                at += n
        except VIntError as exc:
            raise _Damaged(pos, NOT_A_RECORD, f"block {what} lengths: {exc}") from None
        if p != len(lengths) or at != len(data):
            raise _Damaged(pos, BAD_LENGTH, f"block {what} lengths do not add up to their buffers")
        return out


def release_pages(data: Any, start: int, end: int) -> int:
    """Hand the pages of ``data`` (an ``mmap``; anything else is left alone) from ``start`` (a
    page boundary) up to ``end`` back to the kernel (``madvise(MADV_DONTNEED)``): a file's
    bytes stay in the page cache, but no longer count in this process's resident memory. A
    decoder walking a mapped file calls it every :data:`RELEASE_STEP` bytes behind it, so its
    memory does not grow with the file. Returns the page boundary released up to (where the
    next release starts)."""
    madvise = getattr(data, "madvise", None)
    stop = end - end % mmap.PAGESIZE
    if madvise is not None and stop > start:
        with contextlib.suppress(OSError, ValueError):
            madvise(mmap.MADV_DONTNEED, start, stop - start)
    return max(start, stop)


def iter_entries(
    data: bytes | memoryview,
    header: Header | None = None,
    *,
    max_record_bytes: int = 256 * 1024 * 1024,
    max_decompressed_bytes: int = 64 * 1024 * 1024 * 1024,
    check: Callable[[bytes, bytes], bool] | None = None,
) -> Iterator[Entry | Damage]:
    """Every entry of the SequenceFile ``data`` (a whole file: ``bytes`` or an ``mmap``) and
    every damaged range, in file order. ``header`` defaults to :func:`read_header` of
    ``data``; a codec crawlmill does not have makes the whole body one damage.

    A NONE/RECORD record followed by bytes that start no record, sync marker or end of file
    either has a wrong length or is followed by damage: ``check(key, value)`` (whether both
    decode exactly as their classes) decides, when the caller knows the classes; without it,
    the record's length counts as disproved."""
    header = header or read_header(data)
    codec = None
    if header.compression != "none":
        codec = codec_for(header.codec or DEFAULT_CODEC)
        if codec is None:
            if header.length < len(data):
                end = len(data)
                yield Damage(header.length, end - header.length,
                             f"codec {header.codec} is not supported; the records cannot be read",
                             bytes(data[header.length : min(end, header.length + max_record_bytes)]),
                             code=CORRUPT)  # fmt: skip
            return
    limit = min(max_decompressed_bytes, max(max_record_bytes, BLOCK_SIZE))
    yield from _Framer(data, header, codec, max_record_bytes, limit, check).entries()


class SequenceFileWriter:
    """Writes a SequenceFile to ``out`` as Hadoop's writers do (see the module docstring).

    ``append(key, value)`` takes serialized Writables; ``stored_value`` (RECORD files) is a
    value's compressed bytes to copy as they are (a verbatim copy from a file of the same
    codec). ``sync_interval=None`` writes no sync marker between NONE/RECORD records."""

    def __init__(
        self,
        out: BinaryIO,
        key_class: str,
        value_class: str,
        *,
        compression: str = "none",
        codec: HadoopCodec | None = None,
        metadata: list[tuple[bytes, bytes]] | None = None,
        sync: bytes | None = None,
        version: int = 6,
        sync_interval: int | None = SYNC_INTERVAL,
        block_size: int = BLOCK_SIZE,
    ) -> None:
        if compression not in COMPRESSIONS:
            raise ValueError(f"compression {compression!r}: one of {', '.join(COMPRESSIONS)}")
        if compression != "none" and codec is None:
            codec = codec_for(DEFAULT_CODEC)
        self.codec = codec if compression != "none" else None
        self.header = Header(
            version, key_class, value_class, compression,
            self.codec.name if self.codec else None,
            sorted(metadata or []), sync if version > 1 else None,
        )  # fmt: skip
        if version > 1 and self.header.sync is None:
            self.header.sync = os.urandom(16)
        self.out = out
        head = encode_header(self.header)
        out.write(head)
        self.pos = self.header.length = len(head)
        self.last_sync = 0
        self.sync_interval = sync_interval
        self.block_size = block_size
        self.records = 0
        self._block: list[tuple[bytes, bytes]] = []
        self._block_bytes = 0

    def _write(self, data: bytes) -> None:
        self.out.write(data)
        self.pos += len(data)

    def sync(self) -> None:
        """Write a sync marker here (unless one was just written), as ``Writer.sync()``."""
        if self.header.sync is not None and self.last_sync != self.pos:
            self._write(SYNC_ESCAPE + self.header.sync)
            self.last_sync = self.pos

    def append(
        self, key: bytes, value: bytes, stored_value: bytes | None = None, *, sync: bool = True
    ) -> None:
        """Add one entry (serialized key and value). ``sync=False``: no sync marker or block
        flush of the writer's own rules before or after it (a copy that places them as its
        source did, with :meth:`sync` and :meth:`flush_block`)."""
        self.records += 1
        if self.header.compression == "block":
            self._block.append((key, value))
            self._block_bytes += len(key) + len(value)
            if sync and self._block_bytes >= self.block_size:
                self.flush_block()
            return
        if (
            sync
            and self.sync_interval is not None
            and self.pos >= self.last_sync + self.sync_interval
        ):
            self.sync()
        if self.header.compression == "record":
            assert self.codec is not None
            value = stored_value if stored_value is not None else self.codec.compress(value)
        self._write(struct.pack(">ii", len(key) + len(value), len(key)) + key + value)

    def append_raw(self, frame: bytes) -> None:
        """Add one NONE/RECORD entry as its whole record frame (record length, key length,
        key, stored value), copied from a file of the same compression and codec; no sync
        marker of the writer's own rules (as ``append(..., sync=False)``)."""
        if self.header.compression == "block":
            raise ValueError("a BLOCK file's entries are not record frames")
        self.records += 1
        self._write(frame)

    def flush_block(self) -> None:
        """Write the buffered entries as one block (nothing when none is buffered)."""
        if not self._block:
            return
        assert self.codec is not None
        self.sync()
        keys, values = zip(*self._block, strict=True)
        parts = [
            b"".join(encode_vlong(len(k)) for k in keys),
            b"".join(keys),
            b"".join(encode_vlong(len(v)) for v in values),
            b"".join(values),
        ]
        out = bytearray(encode_vlong(len(self._block)))
        for part in parts:
            packed = self.codec.compress(part)
            out += encode_vlong(len(packed)) + packed
        self._write(bytes(out))
        self._block, self._block_bytes = [], 0

    def close(self) -> None:
        """Flush the last block (the caller closes ``out``)."""
        self.flush_block()
