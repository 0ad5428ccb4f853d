"""Serialising WARC records: header block, record framing per version, per-record compression.

Three output framings are supported:

* ``1.1`` and ``1.0``: ``WARC/1.x`` version line, CRLF header lines, a blank CRLF line,
  the block, then the ``\\r\\n\\r\\n`` record separator; ``Content-Length`` = block length.
* ``0.18``: the ClueWeb09 convention that Anserini, Terrier and ir_datasets' reader expect:
  ``WARC/0.18`` with LF header lines, a blank LF line, the block and ``\\n\\n``, where
  ``Content-Length`` *counts* the block plus that trailing ``\\n\\n``; the next record follows
  immediately.

Every record is compressed on its own (one gzip member or one zstd frame per record), so any
record can be read from its offset, as CDX indexes and warcio/FastWARC expect. gzip uses
``isal.isal_zlib`` when it is importable (several times faster than zlib) and zlib otherwise;
isal knows levels 0-3 only, so levels 1-3/4-6/7-9 map to isal 1/2/3. ISA-L does not promise
the same compressed bytes for the same input twice (intel/isa-l#140; we have seen a rerun in
a fresh process compress a few records differently), so ``backend="zlib"`` is there for who
needs byte-identical *compressed* files across runs; the decompressed records are identical
either way.

This module knows nothing of crawlmill's Record: it turns ``(name, value)`` byte pairs and a
block into bytes. A header value may also be *deferred* (an object with ``resolve() -> bytes``,
such as :class:`~crawlmill.formats.digest.DeferredSha1`) and a block may be given as a tuple of
parts, so that a :class:`PendingRecord` can be digested and serialised later, on the
:class:`WarcFileWriter`'s background threads, without first concatenating its block.
"""

from __future__ import annotations

import hashlib
import threading
import uuid
import zlib
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any, BinaryIO, Protocol

from .compression import inflates_to
from .ordered_batches import OrderedBatches

try:  # pragma: no cover - depends on the installation
    from isal import isal_zlib as _isal_zlib
except ImportError:  # pragma: no cover
    _isal_zlib = None

__all__ = [
    "COMPRESSIONS",
    "GZIP_BACKENDS",
    "VERSIONS",
    "DeferredValue",
    "Framing",
    "PendingRecord",
    "RecordCompressor",
    "ReusedMember",
    "WarcFileWriter",
    "clean_header_value",
    "extension_for",
    "format_warc_date",
    "framing_for",
    "isal_available",
    "serialize_record",
    "urn_uuid",
    "uuid5_urn",
    "warc_fields",
]

#: WARC versions crawlmill writes.
VERSIONS = ("1.1", "1.0", "0.18")
#: per-record compressions crawlmill writes.
COMPRESSIONS = ("gzip", "zstd", "none")
#: gzip implementations: ``auto`` (ISA-L when installed), ``isal``, ``zlib`` (deterministic).
GZIP_BACKENDS = ("auto", "isal", "zlib")
#: default level per compression.
DEFAULT_LEVELS = {"gzip": 6, "zstd": 3, "none": 0}
#: allowed level range per compression.
LEVEL_RANGES = {"gzip": (1, 9), "zstd": (1, 22), "none": (0, 0)}


class DeferredValue(Protocol):
    """A header value computed when the record is serialised (e.g. a digest)."""

    def resolve(self) -> bytes:
        """The value's bytes."""
        ...


#: a header value: bytes, or bytes computed at serialisation.
HeaderValue = bytes | DeferredValue
#: a block: bytes, or parts that are concatenated when the record is serialised.
Block = bytes | Sequence[bytes]


@dataclass(frozen=True, slots=True)
class Framing:
    """How a version frames a record: header line ending, separator, and whether
    ``Content-Length`` counts the separator (the ClueWeb09 convention)."""

    version: str
    line_ending: bytes
    separator: bytes
    cl_includes_separator: bool

    @property
    def version_line(self) -> bytes:
        """The record's first line, with its line ending."""
        return b"WARC/" + self.version.encode("ascii") + self.line_ending


_FRAMINGS = {
    "1.1": Framing("1.1", b"\r\n", b"\r\n\r\n", False),
    "1.0": Framing("1.0", b"\r\n", b"\r\n\r\n", False),
    "0.18": Framing("0.18", b"\n", b"\n\n", True),
}


def framing_for(version: str) -> Framing:
    """The framing crawlmill writes for ``version`` (``1.1``, ``1.0`` or ``0.18``)."""
    framing = _FRAMINGS.get(version)
    if framing is None:
        raise ValueError(
            f"cannot write WARC version {version!r}; choose one of {', '.join(VERSIONS)}"
        )
    return framing


def clean_header_value(value: bytes) -> tuple[bytes, bool]:
    """``value`` with CR/LF replaced by spaces (a header value must stay on one line), and
    whether anything was replaced."""
    if b"\n" not in value and b"\r" not in value:
        return value, False
    return value.replace(b"\r\n", b" ").replace(b"\n", b" ").replace(b"\r", b" "), True


def serialize_record(
    version: str, headers: Iterable[tuple[bytes, HeaderValue]], block: Block
) -> bytes:
    """The uncompressed bytes of one record: version line, ``headers`` in order (deferred
    values resolved), a ``Content-Length`` computed for the version's framing (always last;
    any ``Content-Length`` in ``headers`` is dropped), blank line, block, separator.
    ``block`` is bytes or a sequence of parts written one after the other."""
    framing = framing_for(version)
    eol = framing.line_ending
    parts_of_block = (block,) if isinstance(block, bytes | bytearray | memoryview) else block
    length = _length(parts_of_block)
    if framing.cl_includes_separator:
        length += len(framing.separator)
    parts = [framing.version_line]
    for name, value in headers:
        if len(name) == 14 and name.lower() == b"content-length":
            continue
        if not isinstance(value, bytes | bytearray):
            value = value.resolve()
        if b"\n" in value or b"\r" in value:
            value = clean_header_value(value)[0]
        parts.append(name + b": " + value + eol)
    parts.append(b"Content-Length: " + str(length).encode("ascii") + eol)
    parts.append(eol)
    parts.extend(parts_of_block)
    parts.append(framing.separator)
    return b"".join(parts)


@dataclass(slots=True)
class PendingRecord:
    """A record to serialise later: what :func:`serialize_record` takes, kept as given."""

    version: str
    headers: list[tuple[bytes, HeaderValue]]
    block: Block

    def serialize(self) -> bytes:
        """The record's uncompressed bytes (see :func:`serialize_record`)."""
        return serialize_record(self.version, self.headers, self.block)

    @property
    def size(self) -> int:
        """Bytes of the block (what the record holds in memory)."""
        if isinstance(self.block, bytes | bytearray | memoryview):
            return len(self.block)
        return _length(self.block)


def _length(parts: Sequence[bytes]) -> int:
    """Total length of ``parts`` (a loop: faster than ``sum`` of a generator for few parts)."""
    total = 0
    for part in parts:
        total += len(part)
    return total


def warc_fields(fields: Iterable[tuple[str, str]]) -> bytes:
    """An ``application/warc-fields`` block: ``name: value`` lines ending in CRLF (UTF-8)."""
    return b"".join(f"{name}: {value}\r\n".encode() for name, value in fields)


def urn_uuid(value: object) -> bytes:
    """``<urn:uuid:...>`` for a UUID (or its string form)."""
    return b"<urn:uuid:" + str(value).encode("ascii") + b">"


def uuid5_urn(namespace: uuid.UUID, name: str) -> bytes:
    """``urn_uuid(uuid.uuid5(namespace, name))``, computed directly (no ``UUID`` object): the
    first 16 bytes of SHA-1(namespace + UTF-8 name) with the version 5 and RFC 4122 variant
    bits set, as RFC 4122 section 4.3 specifies. Raw bytes kept in ``name`` as surrogate
    escapes (a URL that is not UTF-8) hash as those bytes."""
    raw = bytearray(
        hashlib.sha1(namespace.bytes + name.encode("utf-8", "surrogateescape")).digest()[:16]
    )
    raw[6] = (raw[6] & 0x0F) | 0x50
    raw[8] = (raw[8] & 0x3F) | 0x80
    h = raw.hex()
    return f"<urn:uuid:{h[:8]}-{h[8:12]}-{h[12:16]}-{h[16:20]}-{h[20:]}>".encode("ascii")


def format_warc_date(date: datetime, version: str, keep_fraction: bool = False) -> bytes:
    """A WARC-Date: UTC ISO 8601 with ``Z``, to the second; WARC 1.1 keeps microseconds when
    ``keep_fraction`` (the source had sub-second precision), as 1.1 section 5.4 allows."""
    if date.tzinfo is not None:
        date = date.astimezone(UTC)
    if date.year >= 1000:  # what strftime gives, faster (strftime does not pad years < 1000)
        d = date
        text = f"{d.year}-{d.month:02d}-{d.day:02d}T{d.hour:02d}:{d.minute:02d}:{d.second:02d}"
    else:
        text = date.strftime("%Y-%m-%dT%H:%M:%S")
    if keep_fraction and version == "1.1" and date.microsecond:
        text += f".{date.microsecond:06d}".rstrip("0")
    return (text + "Z").encode("ascii")


def isal_available() -> bool:
    """Whether the ISA-L gzip backend (the ``isal`` package) is importable."""
    return _isal_zlib is not None


def extension_for(compression: str) -> str:
    """File suffix for a compression: ``.warc.gz``, ``.warc.zst`` or ``.warc``."""
    return {"gzip": ".warc.gz", "zstd": ".warc.zst", "none": ".warc"}[compression]


class RecordCompressor:
    """Compresses one record at a time into a self-contained gzip member or zstd frame."""

    def __init__(
        self, compression: str = "gzip", level: int | None = None, backend: str = "auto"
    ) -> None:
        if backend not in GZIP_BACKENDS:
            raise ValueError(
                f"unknown gzip backend {backend!r}; choose one of {', '.join(GZIP_BACKENDS)}"
            )
        if backend == "isal" and _isal_zlib is None:
            raise ValueError("gzip backend isal asked for, but the isal package is not installed")
        if compression not in COMPRESSIONS:
            raise ValueError(
                f"unknown compression {compression!r}; choose one of {', '.join(COMPRESSIONS)}"
            )
        self.compression = compression
        self.level = DEFAULT_LEVELS[compression] if level is None else level
        low, high = LEVEL_RANGES[compression]
        if compression != "none" and not low <= self.level <= high:
            raise ValueError(
                f"{compression} level must be between {low} and {high}, not {self.level}"
            )
        #: zstd compressors are not thread-safe: one per thread that compresses.
        self._zstd = threading.local()
        if compression == "zstd":
            import zstandard  # noqa: F401 - fail here, not in a worker thread, when missing
        #: which gzip implementation is used: "isal" or "zlib".
        self.backend = (
            "isal"
            if compression == "gzip" and backend != "zlib" and _isal_zlib is not None
            else "zlib"
        )

    def compress(self, data: bytes) -> bytes:
        """``data`` as one gzip member / zstd frame (or unchanged for ``none``)."""
        if self.compression == "gzip":
            if self.backend == "isal":
                return _isal_zlib.compress(data, (self.level + 2) // 3, wbits=31)
            return zlib.compress(data, self.level, wbits=31)
        if self.compression == "zstd":
            return self._zstd_compressor().compress(data)
        return data

    def _zstd_compressor(self) -> Any:
        compressor = getattr(self._zstd, "compressor", None)
        if compressor is None:
            import zstandard

            compressor = zstandard.ZstdCompressor(level=self.level, write_content_size=True)
            self._zstd.compressor = compressor
        return compressor


@dataclass(slots=True)
class ReusedMember:
    """A gzip member of the input, written as it is when it holds exactly ``record``
    (checked on the writer's threads with :func:`~crawlmill.formats.compression.inflates_to`);
    otherwise ``record`` is compressed as usual. Copying members keeps a copy's compressed
    bytes too, and is faster than deflate."""

    member: bytes
    record: bytes

    @property
    def size(self) -> int:
        """Bytes the job holds in memory (record and member)."""
        return len(self.record) + len(self.member)


#: called with ``(offset, length)`` once a submitted record is in the file.
OnWritten = Callable[[int, int], None]
#: a submitted record: serialised bytes, a pending record or an input member, and its callback.
_Job = tuple[bytes | PendingRecord | ReusedMember, OnWritten | None]
#: compressed records: their bytes one after the other, and per record its compressed
#: length, uncompressed length, callback and whether an input member was copied.
_Compressed = tuple[bytes, list[tuple[int, int, OnWritten | None, bool]]]


class WarcFileWriter:
    """Appends serialised records to a binary stream, each compressed on its own, and
    reports where each landed (offset and length in the *written* file, as CDX wants).

    With ``background=True``, :meth:`submit` hands records, in batches, to ``threads`` pool
    threads (:class:`~crawlmill.formats.ordered_batches.OrderedBatches`) that resolve deferred
    digests, serialise and compress them in parallel; the calling thread writes each batch,
    in submission order, during a later :meth:`submit` or :meth:`flush`, so the file's bytes
    are the same as without threads and the stream is only ever written from the calling
    thread. :attr:`position` and :attr:`records` count what was written so far: they are exact
    after :meth:`flush`. :meth:`write_raw` and :meth:`write` always write at once (after
    flushing what was submitted). :meth:`close` flushes and stops the threads; the stream
    belongs to the caller.
    """

    def __init__(
        self,
        stream: BinaryIO,
        compression: str = "gzip",
        level: int | None = None,
        *,
        background: bool = False,
        threads: int = 2,
        backend: str = "auto",
    ) -> None:
        self.stream = stream
        self.compressor = RecordCompressor(compression, level, backend)
        #: bytes written so far (the next record's offset).
        self.position = 0
        #: uncompressed bytes written so far.
        self.raw_bytes = 0
        self.records = 0
        #: records written by copying their input gzip member (:class:`ReusedMember`).
        self.reused = 0
        self._batches = (
            OrderedBatches(
                self._compress_batch,
                self._write_batch,
                threads=threads,
                name="crawlmill-warc-writer",
            )
            if background
            else None
        )

    def submit(
        self, record: bytes | PendingRecord | ReusedMember, on_written: OnWritten | None = None
    ) -> None:
        """Append one record (serialised bytes, a :class:`PendingRecord` or a
        :class:`ReusedMember`), compressed on the background threads when there are some;
        ``on_written(offset, length)`` is called on this thread, in record order, once the
        record is in the file (at once without background threads). Raises the error of an
        earlier submitted record, if any."""
        if self._batches is None:
            self._write_batch(self._compress_batch([(record, on_written)]))
            return
        size = record.size if isinstance(record, PendingRecord | ReusedMember) else len(record)
        self._batches.submit((record, on_written), size)

    def flush(self) -> None:
        """Write every submitted record (raises a serialisation or write error, if any)."""
        if self._batches is not None:
            self._batches.flush()

    def close(self) -> None:
        """Write what was submitted and stop the background threads (idempotent)."""
        if self._batches is not None:
            self._batches.close()

    def write_raw(self, record_bytes: bytes) -> tuple[int, int]:
        """Compress and append one complete serialised record; return ``(offset, length)``."""
        self.flush()
        return self._append(self.compressor.compress(record_bytes), len(record_bytes))

    def write(
        self, version: str, headers: Iterable[tuple[bytes, HeaderValue]], block: Block
    ) -> tuple[int, int]:
        """Serialise (see :func:`serialize_record`) and append one record."""
        return self.write_raw(serialize_record(version, headers, block))

    def _compress_batch(self, jobs: list[_Job]) -> _Compressed:
        """Serialise and compress records (on a pool thread in background mode); joined, so
        the batch is written with one call (each call gives other threads the GIL)."""
        pieces = []
        sizes = []
        for record, on_written in jobs:
            reused = False
            if isinstance(record, ReusedMember):
                data = record.record
                reused = self.compressor.compression == "gzip" and inflates_to(record.member, data)
                compressed = record.member if reused else self.compressor.compress(data)
            else:
                data = record.serialize() if isinstance(record, PendingRecord) else record
                compressed = self.compressor.compress(data)
            pieces.append(compressed)
            sizes.append((len(compressed), len(data), on_written, reused))
        return b"".join(pieces) if len(pieces) > 1 else pieces[0], sizes

    def _write_batch(self, batch: _Compressed) -> None:
        """Append a batch of compressed records and call their callbacks in order."""
        data, sizes = batch
        self.stream.write(data)
        for length, raw_length, on_written, reused in sizes:
            offset = self.position
            self.position += length
            self.raw_bytes += raw_length
            self.records += 1
            self.reused += reused
            if on_written is not None:
                on_written(offset, length)

    def _append(self, data: bytes, raw_length: int) -> tuple[int, int]:
        offset = self.position
        self._write_batch((data, [(len(data), raw_length, None, False)]))
        return offset, len(data)
