"""Byte codecs of the pre-Hadoop Nutch 0.4-0.7 segment values (spec section 7; the Nutch
file-format page's "Old File Format Documentation"; docs/formats/nutch-legacy.md says which
facts come from where).

A segment is a folder of ArrayFiles (``fetchlist/``, ``fetcher/``, ``content/``,
``parse_text/``, ``parse_data/``; Nutch 0.4: ``fetcher_content/``, ``fetcher_text/``), each a
MapFile (``data`` + ``index``) of SequenceFile version 1 (0.4, no sync) or 2 (0.6/0.7: a sync
marker before every 10th record), class names as ``UTF8`` (2-byte length), keys
``LongWritable`` record numbers 0, 1, 2, ... The framing is
:mod:`crawlmill.formats.hadoop.sequencefile`'s; this module reads and writes the values:

==================  =========================================================================
class (alias)       layout (all integers big-endian, strings ``UTF8``)
==================  =========================================================================
``Page``            ``byte v (1-4), url, md5[16], long nextFetch, byte retries, byte
                    fetchInterval, [v>2 int numOutlinks], [v>1 float score], [v>3 float
                    nextScore]``
``FetchListEntry``  ``byte v (1-2), byte fetch, Page, [v>1 int n, n x anchor]``
``FetcherOutput``   ``byte v (1-5), FetchListEntry, md5[16], v<5: byte status | v5:
                    ProtocolStatus, [v<4: title, int n, n x Outlink], [v>1 long fetchDate]``
``ProtocolStatus``  ``byte 1, byte code, long lastModified, compressed string array args``
``Content``         ``byte 1, url, base, compressed byte array, contentType, int n, n x (key,
                    value)`` (``java.util.Properties``)
``ParseText``       ``byte 1, compressed string``
``ParseData``       ``byte v (1-2), [v>1 ParseStatus], title, int n, n x Outlink, int n, n x
                    (key, value)``
``ParseStatus``     ``byte 1, byte major, short minor, compressed string array args``
``Outlink``         ``toUrl, anchor``
``Link``            ``byte v (1-5), md5 fromID[16], url, [v>4 long domainID], anchor, [v>3
                    boolean targetHasOutlink]`` (the WebDB's ``linksByURL``/``linksByMD5``)
``FetcherContent``  ``byte 1, compressed byte array`` (0.4 ``fetcher_content/``)
``FetcherText``     ``byte 1, compressed string`` (0.4 ``fetcher_text/``)
==================  =========================================================================

A *compressed byte array* is ``int n`` (``-1``: null) and ``n`` bytes of gzip (Java's
``GZIPOutputStream``); a compressed string is one of UTF-8 bytes; a compressed string array is
``int count`` (``-1``: null) and that many compressed strings.

Each class reads at a position (``read_<class>(buf, pos, limit) -> (value, end)``, ``limit``
bounding what one gzip field may inflate to) and writes (``encode_<class>(value)``);
:func:`decode_value` reads a whole serialized value by class name and checks that it consumed
every byte, as Nutch's ``SequenceFile.Reader`` did. The encoders write what Nutch wrote, so
tests build segments from the documented layout (no public sample exists).
:func:`to_plain` and :func:`from_plain` turn values into plain data and back (what a Record's
extras hold; the ``nutch-legacy`` Writables of ``plugins/writables/nutch_legacy.py``).
"""

from __future__ import annotations

import dataclasses
import struct
import zlib
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, TypedDict

from .sequencefile import SequenceFileWriter
from .writables import WritableError, decode_modified_utf8, encode_modified_utf8

__all__ = [
    "CLASSES",
    "LEGACY_LONG",
    "OLD_STATUS",
    "PLAIN_PREFIX",
    "PROTOCOL_CODES",
    "SHARED_WITH_1X",
    "Content",
    "FetchListEntry",
    "FetcherContent",
    "FetcherOutput",
    "FetcherText",
    "LegacyError",
    "Link",
    "NutchLegacyExtras",
    "Outlink",
    "Page",
    "ParseData",
    "ParseStatus",
    "ParseText",
    "ProtocolStatus",
    "class_kind",
    "decode_shared",
    "decode_value",
    "encode_array_file",
    "encode_shared",
    "encode_value",
    "from_plain",
    "java_names",
    "read_compressed",
    "read_value",
    "VALUE_KINDS",
    "to_plain",
    "write_compressed",
]

Buf = bytes | bytearray | memoryview

#: the bound of one gzip field when the caller gives none.
DEFAULT_LIMIT = 256 * 1024 * 1024


class LegacyError(WritableError):
    """Bytes that are not a value of the Nutch 0.4-0.7 class: cut short, an unknown version,
    a gzip field that does not inflate, bytes left over."""


class NutchLegacyExtras(TypedDict, total=False):
    """``extras["nutch-legacy"]`` of a record the ``nutch-legacy`` reader made (plain data;
    docs/formats/nutch-legacy.md)."""

    #: the segment folder's name and its layout (``0.4``, ``no-parsing``, ``0.5-0.7``).
    segment: str
    layout: str
    #: the record number (the ArrayFile key) and the offset of its entry in each file.
    record: int
    files: dict[str, int]
    #: the FetchListEntry: fetch flag, anchors, version, the Page's fields (md5 as hex).
    fetch_list_entry: dict[str, Any]
    #: the FetcherOutput: version, md5, old status byte, ProtocolStatus, fetch date (ms),
    #: protocol code and name, the title of versions 1-3.
    fetcher_output: dict[str, Any]
    #: the Content: version, URL, base, content type, headers as stored, whether null.
    content: dict[str, Any]
    #: the ParseData: version, title, ParseStatus, metadata pairs.
    parse_data: dict[str, Any]
    #: the HTTP head was rebuilt: its status line and the headers renamed ``X-Crawler-``.
    head_rebuilt: dict[str, Any]


# -- primitives ------------------------------------------------------------------------------


def _need(buf: Buf, pos: int, n: int, what: str) -> int:
    end = pos + n
    if n < 0 or end > len(buf):
        raise LegacyError(f"{what}: needs {n} bytes at {pos}, {len(buf) - pos} left")
    return end


def _byte(buf: Buf, pos: int, what: str) -> tuple[int, int]:
    end = _need(buf, pos, 1, what)
    return struct.unpack_from(">b", buf, pos)[0], end


def _fmt(fmt: str) -> Callable[[Buf, int, str], tuple[Any, int]]:
    s = struct.Struct(">" + fmt)

    def read(buf: Buf, pos: int, what: str) -> tuple[Any, int]:
        end = _need(buf, pos, s.size, what)
        return s.unpack_from(buf, pos)[0], end

    return read


_int, _long, _float, _short = _fmt("i"), _fmt("q"), _fmt("f"), _fmt("h")


def read_utf8(buf: Buf, pos: int, what: str = "UTF8") -> tuple[str, int]:
    """A ``UTF8`` string (unsigned 16-bit length + Java modified UTF-8) at ``pos``; bytes that
    are not modified UTF-8 are kept as UTF-8 with surrogate escapes."""
    start = _need(buf, pos, 2, f"{what} length")
    end = _need(buf, start, int.from_bytes(buf[pos:start], "big"), what)
    raw = bytes(buf[start:end])
    try:
        return decode_modified_utf8(raw), end
    except WritableError:
        return raw.decode("utf-8", "surrogateescape"), end


def write_utf8(text: str) -> bytes:
    """``text`` as ``UTF8`` (the inverse of :func:`read_utf8`)."""
    if any("\udc80" <= c <= "\udcff" for c in text):  # bytes read_utf8 kept as escapes
        raw = text.encode("utf-8", "surrogateescape")
    else:
        raw = encode_modified_utf8(text)
    if len(raw) > 0xFFFF:
        raise LegacyError(f"UTF8: {len(raw)} bytes, more than 65535")
    return len(raw).to_bytes(2, "big") + raw


def _inflate_gzip(data: bytes, limit: int, what: str) -> bytes:
    """The bytes of the gzip member(s) ``data`` (as ``GZIPInputStream``), at most ``limit``."""
    out = bytearray()
    rest = data
    while True:
        d = zlib.decompressobj(31)
        try:
            out += d.decompress(rest, limit - len(out) + 1)
        except zlib.error as exc:
            raise LegacyError(f"{what}: gzip data does not inflate: {exc}") from None
        if len(out) > limit:
            raise LegacyError(f"{what}: inflates beyond {limit} bytes")
        if not d.eof:
            raise LegacyError(f"{what}: gzip data cut short")
        rest = d.unused_data
        if not rest:
            return bytes(out)


def _gzip(data: bytes) -> bytes:
    """``data`` as Java's ``GZIPOutputStream`` wrote it (10-byte header, mtime 0, OS 0)."""
    c = zlib.compressobj(zlib.Z_DEFAULT_COMPRESSION, zlib.DEFLATED, -15)
    body = c.compress(data) + c.flush()
    trailer = struct.pack("<II", zlib.crc32(data), len(data) & 0xFFFFFFFF)
    return b"\x1f\x8b\x08\x00\x00\x00\x00\x00\x00\x00" + body + trailer


def read_compressed(buf: Buf, pos: int, limit: int = DEFAULT_LIMIT,
                    what: str = "compressed bytes") -> tuple[bytes | None, int]:  # fmt: skip
    """``WritableUtils.readCompressedByteArray``: ``int n`` (-1: ``None``) + gzip."""
    n, start = _int(buf, pos, f"{what} length")
    if n == -1:
        return None, start
    if n < 0:
        raise LegacyError(f"{what}: negative length {n} at {pos}")
    end = _need(buf, start, n, what)
    return _inflate_gzip(bytes(buf[start:end]), limit, what), end


def write_compressed(data: bytes | None) -> bytes:
    """``WritableUtils.writeCompressedByteArray`` of ``data`` (``None``: ``int -1``)."""
    if data is None:
        return struct.pack(">i", -1)
    packed = _gzip(bytes(data))
    return struct.pack(">i", len(packed)) + packed


def _read_cstring(buf: Buf, pos: int, limit: int, what: str) -> tuple[str | None, int]:
    raw, end = read_compressed(buf, pos, limit, what)
    return (None if raw is None else raw.decode("utf-8", "surrogateescape")), end


def _write_cstring(text: str | None) -> bytes:
    return write_compressed(None if text is None else text.encode("utf-8", "surrogateescape"))


def _read_cstrings(buf: Buf, pos: int, limit: int, what: str) -> tuple[list[str | None] | None, int]:
    count, pos = _int(buf, pos, f"{what} count")
    if count == -1:
        return None, pos
    if count < 0 or count * 4 > len(buf) - pos:
        raise LegacyError(f"{what}: count {count} with {len(buf) - pos} bytes left")
    out = []
    for _ in range(count):
        text, pos = _read_cstring(buf, pos, limit, what)
        out.append(text)
    return out, pos


def _write_cstrings(items: list[str | None] | None) -> bytes:
    if items is None:
        return struct.pack(">i", -1)
    return struct.pack(">i", len(items)) + b"".join(_write_cstring(s) for s in items)


def _read_pairs(buf: Buf, pos: int, what: str) -> tuple[list[tuple[str, str]], int]:
    count, pos = _int(buf, pos, f"{what} count")
    if count < 0 or count * 4 > len(buf) - pos:
        raise LegacyError(f"{what}: count {count} with {len(buf) - pos} bytes left")
    pairs = []
    for _ in range(count):
        key, pos = read_utf8(buf, pos, f"{what} key")
        value, pos = read_utf8(buf, pos, f"{what} value")
        pairs.append((key, value))
    return pairs, pos


def _write_pairs(pairs: list[tuple[str, str]]) -> bytes:
    return struct.pack(">i", len(pairs)) + b"".join(write_utf8(k) + write_utf8(v) for k, v in pairs)


def _version(buf: Buf, pos: int, name: str, low: int, high: int) -> tuple[int, int]:
    version, end = _byte(buf, pos, f"{name} version")
    if not low <= version <= high:
        known = str(low) if low == high else f"{low} to {high}"
        raise LegacyError(f"{name} version {version} at {pos} is not {known}")
    return version, end


# -- the classes -----------------------------------------------------------------------------


@dataclass
class Page:
    """``net.nutch.db.Page`` / ``org.apache.nutch.db.Page`` (versions 1-4)."""

    url: str
    md5: bytes = b"\0" * 16
    next_fetch: int = 0
    retries: int = 0
    fetch_interval: int = 30
    num_outlinks: int = 0
    score: float = 1.0
    next_score: float = 1.0
    version: int = 4


def read_page(buf: Buf, pos: int, limit: int = DEFAULT_LIMIT) -> tuple[Page, int]:
    """A ``Page`` at ``pos``."""
    v, pos = _version(buf, pos, "Page", 1, 4)
    url, pos = read_utf8(buf, pos, "Page url")
    end = _need(buf, pos, 16, "Page md5")
    md5, pos = bytes(buf[pos:end]), end
    next_fetch, pos = _long(buf, pos, "Page nextFetch")
    retries, pos = _byte(buf, pos, "Page retries")
    interval, pos = _byte(buf, pos, "Page fetchInterval")
    outlinks = 0
    score = next_score = 1.0
    if v > 2:
        outlinks, pos = _int(buf, pos, "Page numOutlinks")
    if v > 1:
        score, pos = _float(buf, pos, "Page score")
    if v > 3:
        next_score, pos = _float(buf, pos, "Page nextScore")
    return Page(url, md5, next_fetch, retries, interval, outlinks, score, next_score, v), pos


def encode_page(page: Page) -> bytes:
    """The bytes of ``page`` in its ``version``'s layout."""
    v = page.version
    if len(page.md5) != 16:
        raise LegacyError(f"Page md5: {len(page.md5)} bytes, not 16")
    out = bytearray(struct.pack(">b", v) + write_utf8(page.url) + page.md5)
    out += struct.pack(">qbb", page.next_fetch, page.retries, page.fetch_interval)
    if v > 2:
        out += struct.pack(">i", page.num_outlinks)
    if v > 1:
        out += struct.pack(">f", page.score)
    if v > 3:
        out += struct.pack(">f", page.next_score)
    return bytes(out)


@dataclass
class FetchListEntry:
    """``FetchListEntry`` (versions 1-2): the fetch flag, the page and its anchors."""

    fetch: bool
    page: Page
    anchors: list[str] = field(default_factory=list)
    version: int = 2


def read_fetch_list_entry(buf: Buf, pos: int, limit: int = DEFAULT_LIMIT) -> tuple[FetchListEntry, int]:
    """A ``FetchListEntry`` at ``pos``."""
    v, pos = _version(buf, pos, "FetchListEntry", 1, 2)
    flag, pos = _byte(buf, pos, "FetchListEntry fetch flag")
    page, pos = read_page(buf, pos, limit)
    anchors: list[str] = []
    if v > 1:
        count, pos = _int(buf, pos, "FetchListEntry anchor count")
        if count < 0 or count * 2 > len(buf) - pos:
            raise LegacyError(f"FetchListEntry: {count} anchors with {len(buf) - pos} bytes left")
        for _ in range(count):
            anchor, pos = read_utf8(buf, pos, "anchor")
            anchors.append(anchor)
    return FetchListEntry(flag != 0, page, anchors, v), pos


def encode_fetch_list_entry(entry: FetchListEntry) -> bytes:
    """The bytes of ``entry`` in its ``version``'s layout."""
    out = struct.pack(">bb", entry.version, 1 if entry.fetch else 0) + encode_page(entry.page)
    if entry.version > 1:
        out += struct.pack(">i", len(entry.anchors)) + b"".join(write_utf8(a) for a in entry.anchors)
    return out


#: ``ProtocolStatus`` codes (Nutch 0.7) -> names.
PROTOCOL_CODES: dict[int, str] = {
    1: "success", 2: "failed", 10: "proto_not_found", 11: "gone", 12: "moved",
    13: "temp_moved", 14: "notfound", 15: "retry", 16: "exception", 17: "access_denied",
    18: "robots_denied", 19: "redir_exceeded", 20: "notfetching", 21: "notmodified",
}  # fmt: skip

#: the status byte of ``FetcherOutput`` before version 5 -> its ``ProtocolStatus`` code
#: (``FetcherOutput.oldToNewMap``: retry, success, not found, failed, can't parse).
OLD_STATUS: tuple[int, ...] = (15, 1, 14, 2, 15)


@dataclass
class ProtocolStatus:
    """``ProtocolStatus`` version 1 (Nutch 0.7)."""

    code: int
    last_modified: int = 0
    args: list[str | None] | None = None
    version: int = 1


def read_protocol_status(buf: Buf, pos: int, limit: int = DEFAULT_LIMIT) -> tuple[ProtocolStatus, int]:
    """A ``ProtocolStatus`` at ``pos``."""
    v, pos = _version(buf, pos, "ProtocolStatus", 1, 1)
    code, pos = _byte(buf, pos, "ProtocolStatus code")
    modified, pos = _long(buf, pos, "ProtocolStatus lastModified")
    args, pos = _read_cstrings(buf, pos, limit, "ProtocolStatus args")
    return ProtocolStatus(code, modified, args, v), pos


def encode_protocol_status(status: ProtocolStatus) -> bytes:
    """The bytes of ``status``."""
    head = struct.pack(">bbq", status.version, status.code, status.last_modified)
    return head + _write_cstrings(status.args)


@dataclass
class Outlink:
    """``Outlink``: target URL and anchor text."""

    to_url: str
    anchor: str = ""


def _read_outlinks(buf: Buf, pos: int, what: str) -> tuple[list[Outlink], int]:
    count, pos = _int(buf, pos, f"{what} outlink count")
    if count < 0 or count * 4 > len(buf) - pos:
        raise LegacyError(f"{what}: {count} outlinks with {len(buf) - pos} bytes left")
    links = []
    for _ in range(count):
        url, pos = read_utf8(buf, pos, "outlink url")
        anchor, pos = read_utf8(buf, pos, "outlink anchor")
        links.append(Outlink(url, anchor))
    return links, pos


def _write_outlinks(links: list[Outlink]) -> bytes:
    body = b"".join(write_utf8(o.to_url) + write_utf8(o.anchor) for o in links)
    return struct.pack(">i", len(links)) + body


@dataclass
class FetcherOutput:
    """``FetcherOutput`` (versions 1-5). ``status`` is the status byte of versions 1-4,
    ``protocol_status`` the ``ProtocolStatus`` of version 5 (see :attr:`protocol_code`);
    ``title`` and ``outlinks`` exist in versions 1-3 only (Nutch 0.7 skipped them);
    ``fetch_date`` is Java milliseconds (0 in version 1, which has none)."""

    entry: FetchListEntry
    md5: bytes = b"\0" * 16
    status: int | None = None
    protocol_status: ProtocolStatus | None = None
    title: str | None = None
    outlinks: list[Outlink] = field(default_factory=list)
    fetch_date: int = 0
    version: int = 5

    @property
    def protocol_code(self) -> int | None:
        """The ``ProtocolStatus`` code (mapped from the old status byte before version 5)."""
        if self.protocol_status is not None:
            return self.protocol_status.code
        if self.status is not None and 0 <= self.status < len(OLD_STATUS):
            return OLD_STATUS[self.status]
        return None


def read_fetcher_output(buf: Buf, pos: int, limit: int = DEFAULT_LIMIT) -> tuple[FetcherOutput, int]:
    """A ``FetcherOutput`` at ``pos``."""
    v, pos = _version(buf, pos, "FetcherOutput", 1, 5)
    entry, pos = read_fetch_list_entry(buf, pos, limit)
    end = _need(buf, pos, 16, "FetcherOutput md5")
    md5, pos = bytes(buf[pos:end]), end
    status = protocol = title = None
    links: list[Outlink] = []
    if v < 5:
        status, pos = _byte(buf, pos, "FetcherOutput status")
    else:
        protocol, pos = read_protocol_status(buf, pos, limit)
    if v < 4:
        title, pos = read_utf8(buf, pos, "FetcherOutput title")
        links, pos = _read_outlinks(buf, pos, "FetcherOutput")
    date = 0
    if v > 1:
        date, pos = _long(buf, pos, "FetcherOutput fetchDate")
    return FetcherOutput(entry, md5, status, protocol, title, links, date, v), pos


def encode_fetcher_output(out: FetcherOutput) -> bytes:
    """The bytes of ``out`` in its ``version``'s layout."""
    v = out.version
    data = bytearray(struct.pack(">b", v) + encode_fetch_list_entry(out.entry))
    if len(out.md5) != 16:
        raise LegacyError(f"FetcherOutput md5: {len(out.md5)} bytes, not 16")
    data += out.md5
    if v < 5:
        data += struct.pack(">b", out.status or 0)
    else:
        data += encode_protocol_status(out.protocol_status or ProtocolStatus(1))
    if v < 4:
        data += write_utf8(out.title or "") + _write_outlinks(out.outlinks)
    if v > 1:
        data += struct.pack(">q", out.fetch_date)
    return bytes(data)


@dataclass
class Content:
    """``Content`` version 1 (Nutch 0.5-0.7): URL, base URL, the page bytes, content type and
    the protocol's headers (``java.util.Properties``, pairs in file order)."""

    url: str
    base: str
    content: bytes | None
    content_type: str
    metadata: list[tuple[str, str]] = field(default_factory=list)
    version: int = 1


def read_content(buf: Buf, pos: int, limit: int = DEFAULT_LIMIT) -> tuple[Content, int]:
    """A ``Content`` at ``pos``."""
    v, pos = _version(buf, pos, "Content", 1, 1)
    url, pos = read_utf8(buf, pos, "Content url")
    base, pos = read_utf8(buf, pos, "Content base")
    body, pos = read_compressed(buf, pos, limit, "Content bytes")
    ctype, pos = read_utf8(buf, pos, "Content contentType")
    meta, pos = _read_pairs(buf, pos, "Content metadata")
    return Content(url, base, body, ctype, meta, v), pos


def encode_content(content: Content) -> bytes:
    """The bytes of ``content``."""
    return (
        struct.pack(">b", content.version)
        + write_utf8(content.url)
        + write_utf8(content.base)
        + write_compressed(content.content)
        + write_utf8(content.content_type)
        + _write_pairs(content.metadata)
    )


@dataclass
class ParseText:
    """``ParseText`` version 1: the page's plain text (gzip on disk)."""

    text: str | None
    version: int = 1


def read_parse_text(buf: Buf, pos: int, limit: int = DEFAULT_LIMIT) -> tuple[ParseText, int]:
    """A ``ParseText`` at ``pos``."""
    v, pos = _version(buf, pos, "ParseText", 1, 1)
    text, pos = _read_cstring(buf, pos, limit, "ParseText text")
    return ParseText(text, v), pos


def encode_parse_text(value: ParseText) -> bytes:
    """The bytes of ``value``."""
    return struct.pack(">b", value.version) + _write_cstring(value.text)


@dataclass
class ParseStatus:
    """``ParseStatus`` version 1 (Nutch 0.7): major code (0 notparsed, 1 success, 2 failed),
    minor code and arguments."""

    major: int = 1
    minor: int = 0
    args: list[str | None] | None = None
    version: int = 1


def read_parse_status(buf: Buf, pos: int, limit: int = DEFAULT_LIMIT) -> tuple[ParseStatus, int]:
    """A ``ParseStatus`` at ``pos``."""
    v, pos = _version(buf, pos, "ParseStatus", 1, 1)
    major, pos = _byte(buf, pos, "ParseStatus major code")
    minor, pos = _short(buf, pos, "ParseStatus minor code")
    args, pos = _read_cstrings(buf, pos, limit, "ParseStatus args")
    return ParseStatus(major, minor, args, v), pos


def encode_parse_status(status: ParseStatus) -> bytes:
    """The bytes of ``status``."""
    return struct.pack(">bbh", status.version, status.major, status.minor) + _write_cstrings(
        status.args
    )


@dataclass
class ParseData:
    """``ParseData`` version 1 (0.5/0.6, no status) or 2 (0.7, with a ``ParseStatus``)."""

    title: str
    outlinks: list[Outlink] = field(default_factory=list)
    metadata: list[tuple[str, str]] = field(default_factory=list)
    status: ParseStatus | None = None
    version: int = 2


def read_parse_data(buf: Buf, pos: int, limit: int = DEFAULT_LIMIT) -> tuple[ParseData, int]:
    """A ``ParseData`` at ``pos``."""
    v, pos = _version(buf, pos, "ParseData", 1, 2)
    status = None
    if v > 1:
        status, pos = read_parse_status(buf, pos, limit)
    title, pos = read_utf8(buf, pos, "ParseData title")
    links, pos = _read_outlinks(buf, pos, "ParseData")
    meta, pos = _read_pairs(buf, pos, "ParseData metadata")
    return ParseData(title, links, meta, status, v), pos


def encode_parse_data(value: ParseData) -> bytes:
    """The bytes of ``value`` in its ``version``'s layout."""
    out = struct.pack(">b", value.version)
    if value.version > 1:
        out += encode_parse_status(value.status or ParseStatus())
    return out + write_utf8(value.title) + _write_outlinks(value.outlinks) + _write_pairs(
        value.metadata
    )


@dataclass
class FetcherContent:
    """Nutch 0.4 ``FetcherContent`` (``fetcher_content/``): the raw page bytes."""

    content: bytes | None
    version: int = 1


@dataclass
class FetcherText:
    """Nutch 0.4 ``FetcherText`` (``fetcher_text/``): the page's text."""

    text: str | None
    version: int = 1


def read_fetcher_content(buf: Buf, pos: int, limit: int = DEFAULT_LIMIT) -> tuple[FetcherContent, int]:
    """A 0.4 ``FetcherContent`` at ``pos``."""
    v, pos = _version(buf, pos, "FetcherContent", 1, 1)
    body, pos = read_compressed(buf, pos, limit, "FetcherContent bytes")
    return FetcherContent(body, v), pos


def read_fetcher_text(buf: Buf, pos: int, limit: int = DEFAULT_LIMIT) -> tuple[FetcherText, int]:
    """A 0.4 ``FetcherText`` at ``pos``."""
    v, pos = _version(buf, pos, "FetcherText", 1, 1)
    text, pos = _read_cstring(buf, pos, limit, "FetcherText text")
    return FetcherText(text, v), pos


@dataclass
class Link:
    """``Link`` (versions 1-5, the WebDB's): the linking page's MD5, the target URL, the
    domain id (v5), the anchor text and whether the target has outlinks (v4 on)."""

    from_id: bytes
    url: str
    anchor: str = ""
    domain_id: int = 0
    target_has_outlink: bool = False
    version: int = 5


def read_link(buf: Buf, pos: int, limit: int = DEFAULT_LIMIT) -> tuple[Link, int]:
    """A ``Link`` at ``pos``."""
    v, pos = _version(buf, pos, "Link", 1, 5)
    end = _need(buf, pos, 16, "Link fromID")
    from_id, pos = bytes(buf[pos:end]), end
    url, pos = read_utf8(buf, pos, "Link url")
    domain = 0
    if v > 4:
        domain, pos = _long(buf, pos, "Link domainID")
    anchor, pos = read_utf8(buf, pos, "Link anchor")
    has_outlink = False
    if v > 3:
        flag, pos = _byte(buf, pos, "Link targetHasOutlink")
        has_outlink = flag != 0
    return Link(from_id, url, anchor, domain, has_outlink, v), pos


def encode_link(link: Link) -> bytes:
    """The bytes of ``link`` in its ``version``'s layout."""
    if len(link.from_id) != 16:
        raise LegacyError(f"Link fromID: {len(link.from_id)} bytes, not 16")
    out = struct.pack(">b", link.version) + link.from_id + write_utf8(link.url)
    if link.version > 4:
        out += struct.pack(">q", link.domain_id)
    out += write_utf8(link.anchor)
    if link.version > 3:
        out += b"\x01" if link.target_has_outlink else b"\x00"
    return out


def _read_long(buf: Buf, pos: int, limit: int = DEFAULT_LIMIT) -> tuple[int, int]:
    return _long(buf, pos, "LongWritable")


#: kind -> (reader, encoder).
_KINDS: dict[str, tuple[Callable[..., tuple[Any, int]], Callable[[Any], bytes]]] = {
    "long": (_read_long, lambda v: struct.pack(">q", v)),
    "FetchListEntry": (read_fetch_list_entry, encode_fetch_list_entry),
    "FetcherOutput": (read_fetcher_output, encode_fetcher_output),
    "Content": (read_content, encode_content),
    "ParseText": (read_parse_text, encode_parse_text),
    "ParseData": (read_parse_data, encode_parse_data),
    "FetcherContent": (read_fetcher_content, lambda v: struct.pack(">b", v.version) + write_compressed(v.content)),
    "FetcherText": (read_fetcher_text, lambda v: struct.pack(">b", v.version) + _write_cstring(v.text)),
    "Page": (read_page, encode_page),
    "Link": (read_link, encode_link),
}  # fmt: skip

_PACKAGES = {
    "FetchListEntry": "pagedb",
    "FetcherOutput": "fetcher",
    "FetcherContent": "fetcher",
    "FetcherText": "fetcher",
    "Content": "protocol",
    "ParseText": "parse",
    "ParseData": "parse",
    "Page": "db",
    "Link": "db",
}

#: every class name a Nutch 0.4-0.7 header may hold -> its kind: the ``WritableName``
#: aliases (``long``, ``FetchListEntry``, ...) and the full names of both package trees
#: (``net.nutch.*`` of 0.4/0.5 on SourceForge, ``org.apache.nutch.*`` of 0.6/0.7).
CLASSES: dict[str, str] = {
    "long": "long",
    "net.nutch.io.LongWritable": "long",
    "org.apache.nutch.io.LongWritable": "long",
    **{kind: kind for kind in _PACKAGES},
    **{f"{root}.{pkg}.{kind}": kind for kind, pkg in _PACKAGES.items()
       for root in ("net.nutch", "org.apache.nutch")},
}  # fmt: skip

#: the class name Nutch 0.6/0.7 wrote for ArrayFile keys.
LEGACY_LONG = "long"
#: Nutch 0.6/0.7 ``SequenceFile.SYNC_INTERVAL``: a sync marker before every 10th record.
SYNC_EVERY = 10
#: ``MapFile.Writer.indexInterval``: an index entry for every 128th record.
INDEX_INTERVAL = 128


#: the kinds whose ``org.apache.nutch`` name Nutch 0.8-1.x reused for another layout
#: (``protocol.Content``, ``parse.ParseText``, ``parse.ParseData``): 0.6/0.7 headers hold
#: their ``WritableName`` aliases, so a full ``org.apache.nutch`` name of these is 1.x's.
SHARED_WITH_1X: tuple[str, ...] = ("Content", "ParseText", "ParseData")


def java_names(kind: str) -> tuple[str, ...]:
    """The header class names of ``kind`` (not ``long``) that are the 0.4-0.7 class only:
    the ``net.nutch`` name, the ``org.apache.nutch`` name unless 1.x reused it, and the
    alias unless 1.x answers to it too (:data:`SHARED_WITH_1X`)."""
    pkg = _PACKAGES[kind]
    if kind in SHARED_WITH_1X:
        return (f"net.nutch.{pkg}.{kind}",)
    return (f"org.apache.nutch.{pkg}.{kind}", f"net.nutch.{pkg}.{kind}", kind)


#: the ``"@"`` of a value's plain data: ``nutch-legacy.<class>``.
PLAIN_PREFIX = "nutch-legacy."
_TYPES: dict[str, type] = {}


def to_plain(value: Any) -> Any:
    """A decoded value as plain data: each object a dict of its fields with
    ``"@": "nutch-legacy.<class>"`` (not Nutch 1.x's class of the same name), tuples as
    lists (Nutch 1.x's :func:`~crawlmill.formats.hadoop.nutch.to_plain`, the types marked);
    :func:`from_plain` inverts it."""
    from . import nutch as modern

    return _marked(modern.to_plain(value))


def _marked(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: PLAIN_PREFIX + v if k == "@" else _marked(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_marked(v) for v in value]
    return value


def from_plain(value: Any) -> Any:
    """The value :func:`to_plain` made plain data of (metadata pairs back as tuples)."""
    if not _TYPES:
        _TYPES.update({c.__name__: c for c in (Page, FetchListEntry, ProtocolStatus, Outlink,
                       FetcherOutput, Content, ParseText, ParseStatus, ParseData,
                       FetcherContent, FetcherText, Link)})  # fmt: skip
    if isinstance(value, dict) and str(value.get("@", "")).startswith(PLAIN_PREFIX):
        cls = _TYPES.get(value["@"][len(PLAIN_PREFIX):])
        if cls is None:
            raise LegacyError(f"no Nutch 0.4-0.7 class {value['@']!r}")
        names = {f.name for f in dataclasses.fields(cls)}
        fields = {k: from_plain(v) for k, v in value.items() if k in names}
        if "metadata" in fields:
            fields["metadata"] = [tuple(p) for p in fields["metadata"]]
        return cls(**fields)
    if isinstance(value, list):
        return [from_plain(v) for v in value]
    return value


def class_kind(name: str) -> str | None:
    """The kind (``FetcherOutput``, ``long``, ...) of a header's class name, or ``None`` for a
    class this module does not know."""
    return CLASSES.get(name)


def read_value(kind: str, buf: Buf, pos: int, limit: int = DEFAULT_LIMIT) -> tuple[Any, int]:
    """``(value, end)`` of the value of class kind ``kind`` at ``buf[pos:]``."""
    try:
        read = _KINDS[kind][0]
    except KeyError:
        raise LegacyError(f"no Nutch 0.4-0.7 class {kind!r}") from None
    return read(buf, pos, limit)


#: the class kinds of the values (not ``long``), for the Writables.
VALUE_KINDS: tuple[str, ...] = tuple(_PACKAGES)


def decode_value(kind: str, data: Buf, limit: int = DEFAULT_LIMIT) -> Any:
    """The value of class kind ``kind`` serialized in ``data``, which must be consumed exactly
    (``limit``: what one gzip field may inflate to)."""
    try:
        read = _KINDS[kind][0]
    except KeyError:
        raise LegacyError(f"no Nutch 0.4-0.7 class {kind!r}") from None
    value, end = read(data, 0, limit)
    if end != len(data):
        raise LegacyError(f"{kind}: read {end} bytes, should read {len(data)}")
    return value


def encode_value(kind: str, value: Any) -> bytes:
    """The serialized bytes of ``value`` as class kind ``kind``."""
    try:
        return _KINDS[kind][1](value)
    except KeyError:
        raise LegacyError(f"no Nutch 0.4-0.7 class {kind!r}") from None


def encode_array_file(
    kind: str,
    values: list[Any],
    *,
    value_class: str | None = None,
    version: int = 2,
    sync: bytes | None = None,
) -> tuple[bytes, bytes]:
    """``(data, index)``: the two files of the ArrayFile Nutch 0.4-0.7 wrote for ``values``
    (of class kind ``kind``, named ``value_class`` in the header: the alias by default).
    SequenceFile ``version`` 2 puts a sync marker before every 10th record (count-based, as
    Nutch's ``SequenceFile.Writer``), version 1 none; keys are ``long`` record numbers; the
    index holds ``(record number, position)`` for records 0, 128, 256, ..., the position
    being the data length before the record (and before its sync marker)."""
    import io

    data, index = io.BytesIO(), io.BytesIO()
    sync = sync if sync is not None else bytes(range(16))
    name = value_class or kind
    w = SequenceFileWriter(data, LEGACY_LONG, name, version=version, sync=sync, sync_interval=None)
    iw = SequenceFileWriter(index, LEGACY_LONG, LEGACY_LONG, version=version, sync=sync,
                            sync_interval=None)  # fmt: skip
    for n, value in enumerate(values):
        key = struct.pack(">q", n)
        if n % INDEX_INTERVAL == 0:
            if version > 1 and (iw.records + 1) % SYNC_EVERY == 0:
                iw.sync()
            iw.append(key, struct.pack(">q", w.pos), sync=False)
        if version > 1 and (n + 1) % SYNC_EVERY == 0:
            w.sync()
        raw = value if isinstance(value, bytes | bytearray) else encode_value(kind, value)
        w.append(key, bytes(raw), sync=False)
    return data.getvalue(), index.getvalue()


def decode_shared(kind: str, data: Buf, *, legacy_first: bool, resolve: Any = None) -> Any:
    """The plain data of a value of ``kind`` in :data:`SHARED_WITH_1X` (``Content``,
    ``ParseText``, ``ParseData``), a name both the 0.4-0.7 layout and Nutch 1.x's answer to:
    the layout tried first that consumes ``data`` exactly (``legacy_first``: this module's),
    else the other one; :class:`LegacyError` naming both failures when neither reads it.
    ``resolve`` is what the 1.x layout resolves its maps' classes with."""
    from . import nutch as modern

    def old() -> Any:
        return to_plain(decode_value(kind, data))

    def new() -> Any:
        name = modern.ALIASES[kind]
        return modern.to_plain(modern.decode_nutch(name, bytes(data), resolve))

    tries = (old, new) if legacy_first else (new, old)
    errors = []
    for attempt in tries:
        try:
            return attempt()
        except Exception as exc:  # any failure of a layout is "not this layout"
            errors.append(str(exc))
    raise LegacyError(f"{kind}: neither layout reads the bytes: {'; '.join(errors)}")


def encode_shared(kind: str, value: Any, resolve: Any = None) -> bytes:
    """The bytes of ``value`` (plain data or objects of either layout) of a kind in
    :data:`SHARED_WITH_1X`, in the layout the value is of."""
    from . import nutch as modern

    if isinstance(value, dict) and str(value.get("@", "")).startswith(PLAIN_PREFIX):
        return encode_value(kind, from_plain(value))
    if type(value).__module__ == __name__:
        return encode_value(kind, value)
    return modern.encode_nutch(modern.ALIASES[kind], modern.from_plain(value), resolve)
