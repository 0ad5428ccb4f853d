"""Serialising WARC records: header block, record framing per version, per-record compression.

Three output framings are supported:

* ``1.1`` and ``1.0``: ``WARC/1.x`` version line, CRLF header lines, a blank CRLF line,
  the block, then the ``\\r\\n\\r\\n`` record separator; ``Content-Length`` = block length.
* ``0.18``: the ClueWeb09 convention that Anserini, Terrier and ir_datasets' reader expect:
  ``WARC/0.18`` with LF header lines, a blank LF line, the block and ``\\n\\n``, where
  ``Content-Length`` *counts* the block plus that trailing ``\\n\\n``; the next record follows
  immediately.

Every record is compressed on its own (one gzip member or one zstd frame per record), so any
record can be read from its offset, as CDX indexes and warcio/FastWARC expect: the
:class:`WarcFileWriter` is the shared
:class:`~crawlmill.formats.codecs.member_writer.MemberWriter` (ISA-L or zlib and the level mapping,
compression on a thread per core with ordered output, copied input members), which also
takes :class:`PendingRecord` jobs. ISA-L does not promise the same compressed bytes for the
same input twice (intel/isa-l#140; we have seen a rerun in a fresh process compress a few
records differently), so ``backend="zlib"`` is there for who needs byte-identical
*compressed* files across runs; the decompressed records are identical either way.

This module knows nothing of crawlmill's Record: it turns ``(name, value)`` byte pairs and a
block into bytes. A header value may also be *deferred* (an object with ``resolve() -> bytes``,
such as :class:`~crawlmill.formats.warc.digest.DeferredSha1`) and a block may be given as a tuple of
parts, so that a :class:`PendingRecord` can be digested and serialised later, on the
:class:`WarcFileWriter`'s background threads, without first concatenating its block.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import TYPE_CHECKING, BinaryIO, Protocol

from ..codecs.member_writer import (
    COMPRESSIONS,
    DEFAULT_LEVELS,
    GZIP_BACKENDS,
    LEVEL_RANGES,
    MemberWriter,
    OnWritten,
    ReusedMember,
    isal_available,
)
from ..codecs.member_writer import MemberCompressor as RecordCompressor

if TYPE_CHECKING:  # uuid (with platform) is imported where an id is made, not at start-up
    import uuid

__all__ = [
    "COMPRESSIONS",
    "DEFAULT_LEVELS",
    "GZIP_BACKENDS",
    "LEVEL_RANGES",
    "VERSIONS",
    "DeferredValue",
    "Framing",
    "OnWritten",
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
    # not a version to choose: WARC/0.17 records (Heritrix 1.x) keep theirs in ``auto``; its
    # framing is 1.0's (CRLF, Content-Length of the block alone), as warcio and FastWARC read it
    "0.17": Framing("0.17", b"\r\n", b"\r\n\r\n", False),
}


#: each version's first line (a per-record lookup, not a property call).
_VERSION_LINES = {version: framing.version_line for version, framing in _FRAMINGS.items()}
#: types a header value or a block may already have (checked without building a union).
_BYTES = (bytes, bytearray)
_BUFFERS = (bytes, bytearray, memoryview)


def framing_for(version: str) -> Framing:
    """The framing crawlmill writes for ``version`` (``1.1``, ``1.0`` or ``0.18``; ``0.17``
    for a WARC/0.17 record kept in its version)."""
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
    framing = _FRAMINGS.get(version) or framing_for(version)
    eol = framing.line_ending
    if isinstance(block, _BUFFERS):
        parts_of_block: Sequence[bytes] = (block,)
        length = len(block)
    else:
        parts_of_block = block
        length = _length(block)
    if framing.cl_includes_separator:
        length += len(framing.separator)
    parts = [_VERSION_LINES[framing.version]]
    append = parts.append
    for name, value in headers:
        if len(name) == 14 and name.lower() == b"content-length":
            continue
        if not isinstance(value, _BYTES):
            value = value.resolve()
        if b"\n" in value or b"\r" in value:
            value = clean_header_value(value)[0]
        append(name + b": " + value + eol)
    append(b"Content-Length: %d%s%s" % (length, eol, eol))
    parts.extend(parts_of_block)
    append(framing.separator)
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
        if isinstance(self.block, _BUFFERS):
            return len(self.block)
        return _length(self.block)


def _length(parts: Sequence[bytes]) -> int:
    """Total length of ``parts`` (a loop: faster than ``sum`` of a generator for few parts)."""
    total = 0
    for part in parts:
        total += len(part)
    return total


def warc_fields(fields: Iterable[tuple[str, str]]) -> bytes:
    """An ``application/warc-fields`` block: ``name: value`` lines ending in CRLF (UTF-8; the
    raw bytes of a value that holds surrogate escapes, such as a file name that is not UTF-8,
    as they are, like ``WARC-Filename``)."""
    return b"".join(
        f"{name}: {value}\r\n".encode("utf-8", "surrogateescape") for name, value in fields
    )


def urn_uuid(value: object) -> bytes:
    """``<urn:uuid:...>`` for a UUID (or its string form)."""
    return b"<urn:uuid:" + str(value).encode("ascii") + b">"


#: the last namespace :func:`uuid5_urn` saw and its bytes (``UUID.bytes`` is computed on
#: every access; a writer uses one namespace).
_last_namespace: tuple[uuid.UUID | None, bytes] = (None, b"")
#: the version (5) and variant (RFC 4122) bits of a name-based SHA-1 UUID, as a 128-bit mask.
_UUID5_CLEAR = ~((0xF000 << 64) | (0xC000 << 48))
_UUID5_SET = (0x5000 << 64) | (0x8000 << 48)


def uuid5_urn(namespace: uuid.UUID, name: str) -> bytes:
    """``urn_uuid(uuid.uuid5(namespace, name))``, computed directly (no ``UUID`` object): the
    first 16 bytes of SHA-1(namespace + UTF-8 name) with the version 5 and RFC 4122 variant
    bits set, as RFC 4122 section 4.3 specifies. Raw bytes kept in ``name`` as surrogate
    escapes (a URL that is not UTF-8) hash as those bytes."""
    global _last_namespace
    last, ns = _last_namespace
    if namespace is not last:
        ns = namespace.bytes
        _last_namespace = (namespace, ns)
    digest = hashlib.sha1(ns + name.encode("utf-8", "surrogateescape")).digest()
    h = b"%032x" % (int.from_bytes(digest[:16]) & _UUID5_CLEAR | _UUID5_SET)
    return b"<urn:uuid:%s-%s-%s-%s-%s>" % (h[:8], h[8:12], h[12:16], h[16:20], h[20:])


def format_warc_date(date: datetime, version: str, keep_fraction: bool = False) -> bytes:
    """A WARC-Date: UTC ISO 8601 with ``Z``, to the second; WARC 1.1 keeps microseconds when
    ``keep_fraction`` (the source had sub-second precision), as 1.1 section 5.4 allows."""
    if date.tzinfo is not None:
        date = date.astimezone(UTC)
    if date.year >= 1000:  # what strftime gives, faster (strftime does not pad years < 1000)
        d = date
        text = b"%d-%02d-%02dT%02d:%02d:%02d" % (d.year, d.month, d.day, d.hour, d.minute, d.second)
    else:
        text = date.strftime("%Y-%m-%dT%H:%M:%S").encode("ascii")
    if keep_fraction and version == "1.1" and date.microsecond:
        text += (b".%06d" % date.microsecond).rstrip(b"0")
    return text + b"Z"


def extension_for(compression: str) -> str:
    """File suffix for a compression: ``.warc.gz``, ``.warc.zst`` or ``.warc``."""
    return {"gzip": ".warc.gz", "zstd": ".warc.zst", "none": ".warc"}[compression]


class WarcFileWriter(MemberWriter):
    """Appends WARC records to a binary stream, each compressed on its own, and reports
    where each landed (offset and length in the *written* file, as CDX wants): a
    :class:`~crawlmill.formats.codecs.member_writer.MemberWriter` that also takes
    :class:`PendingRecord` jobs (digested and serialised on the pool) and writes records
    from their headers and block (:meth:`write`).

    With ``background=True``, records are digested, serialised and compressed on ``threads``
    pool threads (``None``: one per core) and written in submission order on the calling
    thread, so the file's bytes are the same as without threads. :meth:`write_raw` and
    :meth:`write` always write at once (after flushing what was submitted).
    """

    def __init__(
        self,
        stream: BinaryIO,
        compression: str = "gzip",
        level: int | None = None,
        *,
        background: bool = False,
        threads: int | None = None,
        backend: str = "auto",
    ) -> None:
        super().__init__(
            stream,
            compression,
            level,
            backend=backend,
            threads=threads if background else 0,
            name="crawlmill-warc-writer",
        )

    def write_raw(self, record_bytes: bytes) -> tuple[int, int]:
        """Compress and append one complete serialised record; return ``(offset, length)``."""
        return self.append(record_bytes)

    def write(
        self, version: str, headers: Iterable[tuple[bytes, HeaderValue]], block: Block
    ) -> tuple[int, int]:
        """Serialise (see :func:`serialize_record`) and append one record."""
        return self.write_raw(serialize_record(version, headers, block))
