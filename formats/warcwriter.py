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
isal knows levels 0-3 only, so levels 1-3/4-6/7-9 map to isal 1/2/3.

This module knows nothing of crawlmill's Record: it turns ``(name, value)`` byte pairs and a
block into bytes.
"""

from __future__ import annotations

import zlib
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import BinaryIO

try:  # pragma: no cover - depends on the installation
    from isal import isal_zlib as _isal_zlib
except ImportError:  # pragma: no cover
    _isal_zlib = None

__all__ = [
    "COMPRESSIONS",
    "VERSIONS",
    "Framing",
    "RecordCompressor",
    "WarcFileWriter",
    "clean_header_value",
    "extension_for",
    "format_warc_date",
    "framing_for",
    "serialize_record",
    "urn_uuid",
    "warc_fields",
]

#: WARC versions crawlmill writes.
VERSIONS = ("1.1", "1.0", "0.18")
#: per-record compressions crawlmill writes.
COMPRESSIONS = ("gzip", "zstd", "none")
#: default level per compression.
DEFAULT_LEVELS = {"gzip": 6, "zstd": 3, "none": 0}
#: allowed level range per compression.
LEVEL_RANGES = {"gzip": (1, 9), "zstd": (1, 22), "none": (0, 0)}


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


def framing_for(version: str) -> Framing:
    """The framing crawlmill writes for ``version`` (``1.1``, ``1.0`` or ``0.18``)."""
    if version in ("1.1", "1.0"):
        return Framing(version, b"\r\n", b"\r\n\r\n", False)
    if version == "0.18":
        return Framing(version, b"\n", b"\n\n", True)
    raise ValueError(f"cannot write WARC version {version!r}; choose one of {', '.join(VERSIONS)}")


def clean_header_value(value: bytes) -> tuple[bytes, bool]:
    """``value`` with CR/LF replaced by spaces (a header value must stay on one line), and
    whether anything was replaced."""
    if b"\n" not in value and b"\r" not in value:
        return value, False
    return value.replace(b"\r\n", b" ").replace(b"\n", b" ").replace(b"\r", b" "), True


def serialize_record(version: str, headers: Iterable[tuple[bytes, bytes]], block: bytes) -> bytes:
    """The uncompressed bytes of one record: version line, ``headers`` in order, a
    ``Content-Length`` computed for the version's framing (always last; any
    ``Content-Length`` in ``headers`` is dropped), blank line, block, separator."""
    framing = framing_for(version)
    eol = framing.line_ending
    length = len(block) + (len(framing.separator) if framing.cl_includes_separator else 0)
    parts = [framing.version_line]
    for name, value in headers:
        if name.lower() == b"content-length":
            continue
        parts.append(name + b": " + clean_header_value(value)[0] + eol)
    parts.append(b"Content-Length: " + str(length).encode("ascii") + eol)
    parts.append(eol)
    parts.append(block)
    parts.append(framing.separator)
    return b"".join(parts)


def warc_fields(fields: Iterable[tuple[str, str]]) -> bytes:
    """An ``application/warc-fields`` block: ``name: value`` lines ending in CRLF (UTF-8)."""
    return b"".join(f"{name}: {value}\r\n".encode() for name, value in fields)


def urn_uuid(value: object) -> bytes:
    """``<urn:uuid:...>`` for a UUID (or its string form)."""
    return b"<urn:uuid:" + str(value).encode("ascii") + b">"


def format_warc_date(date: datetime, version: str, keep_fraction: bool = False) -> bytes:
    """A WARC-Date: UTC ISO 8601 with ``Z``, to the second; WARC 1.1 keeps microseconds when
    ``keep_fraction`` (the source had sub-second precision), as 1.1 section 5.4 allows."""
    if date.tzinfo is not None:
        date = date.astimezone(UTC)
    text = date.strftime("%Y-%m-%dT%H:%M:%S")
    if keep_fraction and version == "1.1" and date.microsecond:
        text += f".{date.microsecond:06d}".rstrip("0")
    return (text + "Z").encode("ascii")


def extension_for(compression: str) -> str:
    """File suffix for a compression: ``.warc.gz``, ``.warc.zst`` or ``.warc``."""
    return {"gzip": ".warc.gz", "zstd": ".warc.zst", "none": ".warc"}[compression]


class RecordCompressor:
    """Compresses one record at a time into a self-contained gzip member or zstd frame."""

    def __init__(self, compression: str = "gzip", level: int | None = None) -> None:
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
        self._zstd = None
        if compression == "zstd":
            import zstandard

            self._zstd = zstandard.ZstdCompressor(level=self.level, write_content_size=True)
        #: which gzip implementation is used: "isal" or "zlib".
        self.backend = "isal" if (compression == "gzip" and _isal_zlib is not None) else "zlib"

    def compress(self, data: bytes) -> bytes:
        """``data`` as one gzip member / zstd frame (or unchanged for ``none``)."""
        if self.compression == "gzip":
            if _isal_zlib is not None:
                return _isal_zlib.compress(data, (self.level + 2) // 3, wbits=31)
            return zlib.compress(data, self.level, wbits=31)
        if self.compression == "zstd":
            return self._zstd.compress(data)
        return data


class WarcFileWriter:
    """Appends serialised records to a binary stream, each compressed on its own, and
    reports where each landed (offset and length in the *written* file, as CDX wants)."""

    def __init__(
        self, stream: BinaryIO, compression: str = "gzip", level: int | None = None
    ) -> None:
        self.stream = stream
        self.compressor = RecordCompressor(compression, level)
        #: bytes written so far (the next record's offset).
        self.position = 0
        #: uncompressed bytes written so far.
        self.raw_bytes = 0
        self.records = 0

    def write_raw(self, record_bytes: bytes) -> tuple[int, int]:
        """Compress and append one complete serialised record; return ``(offset, length)``."""
        data = self.compressor.compress(record_bytes)
        offset = self.position
        self.stream.write(data)
        self.position += len(data)
        self.raw_bytes += len(record_bytes)
        self.records += 1
        return offset, len(data)

    def write(
        self, version: str, headers: Iterable[tuple[bytes, bytes]], block: bytes
    ) -> tuple[int, int]:
        """Serialise (see :func:`serialize_record`) and append one record."""
        return self.write_raw(serialize_record(version, headers, block))
