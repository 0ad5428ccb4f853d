"""One writer of per-record gzip members and zstd frames, for every file writer.

Archive formats read by offset (WARC, ARC) compress each record on its own: one gzip member
(RFC 1952) or one zstd frame per record, so any record can be read from its offset, as CDX
indexes and warcio/FastWARC expect. :class:`MemberWriter` appends such members to a binary
stream and reports where each landed; the WARC file writer
(:class:`~crawlmill.formats.warc.writer.WarcFileWriter`) and the ARC writer plugin both use it.

* **Backends and levels.** gzip uses ``isal.isal_zlib`` when it is importable (several times
  faster than zlib) and zlib otherwise; isal knows levels 0-3 only, so levels 1-3/4-6/7-9 map
  to isal 1/2/3. ISA-L does not promise the same compressed bytes for the same input twice
  (intel/isa-l#140), so ``backend="zlib"`` is there for who needs byte-identical *compressed*
  files across runs; the decompressed records are identical either way. A zlib member is
  ``zlib.compress(record, level, wbits=31)``: the same bytes as a ``compressobj`` fed the
  record in one or many pieces.
* **Every core.** With ``threads`` > 0, records are handed in batches to a pool
  (:class:`~crawlmill.formats.codecs.ordered_batches.OrderedBatches`) that serialises deferred
  records (resolving their digests), checks reused members and compresses, all work that
  releases the GIL (zlib, isal, zstd, hashlib). Batches are written in submission order,
  so the bytes are those of a one-thread run, and memory holds a bounded number of batches.
  The stream is written by one thread at a time, batch after batch: a thread of the pool's
  own (so the calling thread does not wait for the write and the engine's checksum of the
  output), or the calling thread without a pool; :meth:`flush` returns once every submitted
  member is in the stream.
* **Reused members.** A :class:`ReusedMember` carries an input gzip member and the record it
  should hold; it is copied when it is exactly one RFC 1952 member inflating to that record
  (:func:`~crawlmill.formats.codecs.gzip_member.inflates_to`), otherwise the record is compressed.
  A member the reader vouches for (``vouch``: it inflated it as one whole member, trailer
  checked, :mod:`~crawlmill.formats.codecs.member_vouch`) is not inflated again: it is copied
  when the record has the CRC32 and length of its trailer.
* **Where each member went.** ``on_written(offset, length)`` is called on the calling thread,
  in record order, once the member is in the stream (offsets in the written, compressed file).
"""

from __future__ import annotations

import os
import threading
import zlib
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, BinaryIO, Protocol

from .gzip_member import inflates_to
from .member_vouch import Vouch, holds, holds_length
from .ordered_batches import OrderedBatches

try:  # pragma: no cover - depends on the installation
    from isal import isal_zlib as _isal_zlib
except ImportError:  # pragma: no cover
    _isal_zlib = None

__all__ = [
    "COMPRESSIONS",
    "DEFAULT_LEVELS",
    "GZIP_BACKENDS",
    "LEVEL_RANGES",
    "LazyRecord",
    "MemberCompressor",
    "MemberWriter",
    "OnWritten",
    "ReusedMember",
    "default_threads",
    "isal_available",
]

#: per-record compressions crawlmill writes.
COMPRESSIONS = ("gzip", "zstd", "none")
#: gzip implementations: ``auto`` (ISA-L when installed), ``isal``, ``zlib`` (deterministic).
GZIP_BACKENDS = ("auto", "isal", "zlib")
#: default level per compression.
DEFAULT_LEVELS = {"gzip": 6, "zstd": 3, "none": 0}
#: allowed level range per compression.
LEVEL_RANGES = {"gzip": (1, 9), "zstd": (1, 22), "none": (0, 0)}
#: a record already serialised (a tuple: ``bytes | bytearray`` would build a union per call).
_BYTES = (bytes, bytearray)
#: bytes of records per batch handed to the pool: each hand-over wakes a pool thread, which
#: then takes the GIL from the reading thread (about 3-5 ms of the reading thread's time per
#: batch on a loaded machine): 4 MiB batches pay that a quarter as often as 1 MiB ones.
BATCH_BYTES = 4 << 20
#: most pool threads a writer starts by default (compression stops scaling before this).
MAX_DEFAULT_THREADS = 8


def isal_available() -> bool:
    """Whether the ISA-L gzip backend (the ``isal`` package) is importable."""
    return _isal_zlib is not None


def default_threads() -> int:
    """Compression threads for a writer: one per core this process may use (at most
    :data:`MAX_DEFAULT_THREADS`)."""
    try:
        cores = len(os.sched_getaffinity(0))
    except AttributeError:  # pragma: no cover - not on Linux
        cores = os.cpu_count() or 1
    return max(1, min(MAX_DEFAULT_THREADS, cores))


class MemberCompressor:
    """Compresses one record at a time into a self-contained gzip member or zstd frame
    (``none``: the record unchanged). Thread-safe: zstd keeps one compressor per thread."""

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
        self.compress: Callable[[bytes], bytes] = self._pick()

    def _pick(self) -> Callable[[bytes], bytes]:
        """The function that turns a record into its member (bound once: no per-record
        branching)."""
        level = self.level
        if self.compression == "gzip":
            if self.backend == "isal":
                isal_level = (level + 2) // 3
                return lambda data: _isal_zlib.compress(data, isal_level, wbits=31)
            return lambda data: zlib.compress(data, level, wbits=31)
        if self.compression == "zstd":
            return lambda data: self._zstd_compressor().compress(data)
        return lambda data: data

    def _zstd_compressor(self) -> Any:
        compressor = getattr(self._zstd, "compressor", None)
        if compressor is None:
            import zstandard

            compressor = zstandard.ZstdCompressor(level=self.level, write_content_size=True)
            self._zstd.compressor = compressor
        return compressor


class LazyRecord(Protocol):
    """A record serialised when it is compressed (on a pool thread), e.g. a WARC
    :class:`~crawlmill.formats.warc.writer.PendingRecord` whose digests are deferred."""

    def serialize(self) -> bytes:
        """The record's uncompressed bytes."""
        ...

    @property
    def size(self) -> int:
        """Bytes the record holds in memory (for the batch and memory bounds)."""
        ...


@dataclass(slots=True)
class ReusedMember:
    """A gzip member of the input, written as it is when it holds exactly ``record``
    (checked on the writer's threads with :func:`~crawlmill.formats.codecs.gzip_member.inflates_to`,
    or, when the reader vouches for the member (``vouch``: the ``(CRC32, ISIZE)`` of its
    checked trailer), with :func:`~crawlmill.formats.codecs.member_vouch.holds`); otherwise
    ``record`` is compressed as usual. Copying members keeps a copy's compressed bytes too,
    and is faster than deflate."""

    member: bytes
    #: the record's bytes, or a tuple of parts meaning their concatenation (a verbatim
    #: copy's header, block and separator: joined only when the member is not copied).
    record: bytes | tuple[bytes, ...]
    vouch: Vouch | None = None
    #: ``record``'s parts are the very objects the reader made of the vouched member's
    #: inflated bytes (:meth:`~crawlmill.formats.codecs.member_source.HeldMembers.exact_parts`):
    #: their CRC-32 is the trailer's, so only their length is checked
    #: (:func:`~crawlmill.formats.codecs.member_vouch.holds_length`).
    exact: bool = False

    @property
    def size(self) -> int:
        """Bytes the job holds in memory (record and member)."""
        record = self.record
        raw = sum(map(len, record)) if type(record) is tuple else len(record)
        return raw + len(self.member)


#: called with ``(offset, length)`` once a submitted record is in the stream.
OnWritten = Callable[[int, int], None]
#: what :meth:`MemberWriter.submit` takes: serialised bytes, a lazy record or an input member.
Job = bytes | LazyRecord | ReusedMember
#: compressed records: their members in order (written one after the other), and per record
#: its compressed length, uncompressed length, callback and whether an input member was copied.
_Compressed = tuple[list[bytes], list[tuple[int, int, OnWritten | None, bool]]]


class MemberWriter:
    """Appends records to a binary stream, each compressed on its own (see the module
    docstring), and reports where each landed.

    ``threads=0`` compresses on the calling thread as each record is submitted; otherwise a
    pool of ``threads`` (``None``: :func:`default_threads`) works on batches of about
    ``batch_bytes`` bytes (or ``batch_items`` tiny records), with at most ``depth`` batches in
    flight (``None``: ``threads + 2``, one per thread and two more). :meth:`append` writes one record at once. :attr:`position`, :attr:`raw_bytes`,
    :attr:`records` and :attr:`reused` count what is in the stream: exact after
    :meth:`flush`. An error of the pool (a serialisation, compression or write error) is
    raised by the :meth:`submit`, :meth:`flush` or :meth:`close` that meets it, and again by
    every later call. :meth:`close` flushes and stops the threads; the stream belongs to the
    caller.
    """

    def __init__(
        self,
        stream: BinaryIO,
        compression: str = "gzip",
        level: int | None = None,
        *,
        backend: str = "auto",
        threads: int | None = 0,
        batch_bytes: int = BATCH_BYTES,
        batch_items: int = 4096,
        depth: int | None = None,
        name: str = "crawlmill-member-writer",
    ) -> None:
        self.stream = stream
        self.compressor = MemberCompressor(compression, level, backend)
        #: bytes written so far (the next member's offset).
        self.position = 0
        #: uncompressed bytes written so far.
        self.raw_bytes = 0
        #: members written so far.
        self.records = 0
        #: members written by copying an input member (:class:`ReusedMember`).
        self.reused = 0
        threads = default_threads() if threads is None else threads
        self._batches = (
            OrderedBatches(
                self._compress_batch,
                self._account_batch,
                emit=self._emit_batch,
                threads=threads,
                batch_bytes=batch_bytes,
                batch_items=batch_items,
                depth=depth if depth is not None else threads + 2,
                name=name,
            )
            if threads > 0
            else None
        )

    @property
    def threads(self) -> int:
        """Pool threads compressing (0: the calling thread compresses)."""
        return 0 if self._batches is None else self._batches.threads

    def submit(
        self, record: Job, on_written: OnWritten | None = None, size: int | None = None
    ) -> None:
        """Append one record (serialised bytes, a :class:`LazyRecord` or a
        :class:`ReusedMember`), compressed on the pool when there is one;
        ``on_written(offset, length)`` is called on this thread, in record order, once the
        member is in the stream (at once without a pool). ``size``: the bytes the job holds
        when the caller knows them (else asked of the job). Raises the error of an earlier
        submitted record, if any."""
        if self._batches is None:
            self._write_batch(self._compress_batch([(record, on_written)]))
            return
        if size is None:
            size = len(record) if isinstance(record, _BYTES) else record.size
        self._batches.submit((record, on_written), size)

    def append(self, record: bytes) -> tuple[int, int]:
        """Compress and append one serialised record now (after what was submitted);
        return its member's ``(offset, length)``."""
        self.flush()
        offset = self.position
        data = self.compressor.compress(record)
        self._write_batch(([data], [(len(data), len(record), None, False)]))
        return offset, len(data)

    def flush(self) -> None:
        """Write every submitted record (raises a serialisation or write error, if any)."""
        if self._batches is not None:
            self._batches.flush()

    def close(self) -> None:
        """Write what was submitted and stop the pool (idempotent)."""
        if self._batches is not None:
            self._batches.close()

    def _compress_batch(self, jobs: list[tuple[Job, OnWritten | None]]) -> _Compressed:
        """Serialise and compress records (on a pool thread when there is a pool); their
        members are written with one call (:meth:`_emit_batch`)."""
        compress = self.compressor.compress
        gzip = self.compressor.compression == "gzip"
        pieces = []
        sizes = []
        for record, on_written in jobs:
            reused = False
            if isinstance(record, _BYTES):
                raw = len(record)
                compressed = compress(record)
            elif isinstance(record, ReusedMember):
                data = record.record
                vouch = record.vouch
                if (
                    vouch is not None
                    and gzip
                    and (holds_length(vouch, data) if record.exact else holds(vouch, data))
                ):
                    reused = True  # (parts are never joined: their CRC32 is the record's)
                else:
                    if type(data) is tuple:
                        data = b"".join(data)
                    reused = gzip and vouch is None and inflates_to(record.member, data)
                raw = sum(map(len, data)) if type(data) is tuple else len(data)
                compressed = record.member if reused else compress(data)
            else:
                data = record.serialize()
                raw = len(data)
                compressed = compress(data)
            pieces.append(compressed)
            sizes.append((len(compressed), raw, on_written, reused))
        return pieces, sizes

    def _write_batch(self, batch: _Compressed) -> None:
        """Append a batch of members and call their callbacks in order."""
        self._emit_batch(batch)
        self._account_batch(batch)

    def _emit_batch(self, batch: _Compressed) -> None:
        """Write a batch's members (on the pool's emit thread when there is a pool): handed
        to the stream as they are when it takes a list of buffers (``write_parts``, as the
        engine's output files do: one ``writev``, no joined copy), else joined."""
        pieces = batch[0]
        if not pieces:
            return
        write_parts = getattr(self.stream, "write_parts", None)
        if write_parts is not None:
            write_parts(pieces)
        else:
            self.stream.write(pieces[0] if len(pieces) == 1 else b"".join(pieces))

    def _account_batch(self, batch: _Compressed) -> None:
        """Count a written batch and call its callbacks in order (on the calling thread)."""
        for length, raw_length, on_written, reused in batch[1]:
            offset = self.position
            self.position += length
            self.raw_bytes += raw_length
            self.records += 1
            self.reused += reused
            if on_written is not None:
                on_written(offset, length)
