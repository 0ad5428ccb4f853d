"""Pure helpers of the Nutch writers: how Nutch partitions a URL, and a capture's values as
Nutch 1.x stores them (spec sections 6.1-6.6).

* :func:`url_partition` is Nutch's ``URLPartitioner`` in its default ``byHost`` mode: Java's
  ``String.hashCode`` of ``new URL(url).getHost()`` (the whole URL when Java's ``URL``
  refuses it), XOR ``partition.url.seed``, ``(hash & Integer.MAX_VALUE) % partitions``.
  The Generator partitions ``crawl_generate`` so, and the fetch and parse jobs (map-only)
  keep its parts: a URL has the same part number in every subdirectory of a segment.
* :func:`fetch_status` maps an HTTP status to the CrawlDatum fetch status Nutch's
  ``Fetcher`` records for it (``HttpBase.getProtocolOutput``: 2xx success, 301/308
  redir_perm, 300/302/303/307 redir_temp, 304 notmodified, 400/401/403/404/410 gone (the
  ``ProtocolStatus`` gone/notfound/access_denied), other codes retry).
"""

from __future__ import annotations

import hashlib
import re

from .nutch_io import Metadata

__all__ = [
    "AS_SENT",
    "ORIGINAL_DATE",
    "FETCH_GONE",
    "FETCH_INTERVAL",
    "FETCH_SUCCESS",
    "WARCINFO_KEY",
    "fetch_status",
    "java_string_hash",
    "metadata_of_head",
    "md5_signature",
    "title_of",
    "url_host",
    "url_partition",
    "warcinfo_metadata",
    "warcinfos_of_metadata",
]

#: the Content metadata key crawlmill's writer sets to ``as-sent``: the content is the entity
#: body as the input held it (not transfer- or content-decoded as Nutch stores it), so the
#: verbatim ``_response.headers_`` is true for it and readers need not rename headers.
AS_SENT = "_crawlmill.payload_"
#: the Content metadata key of the capture date as the source wrote it when it is not a valid
#: date (ClueWeb09's ``2009-03-65T08:43:19-0800``; ``fetch_time`` holds the date it means):
#: crawlmill's reader restores it as ``date_raw`` (a WARC's ``Crawlmill-Original-Date``).
ORIGINAL_DATE = "_crawlmill.original_date_"
#: ``db.fetch.interval.default``: 30 days, in seconds.
FETCH_INTERVAL = 2_592_000
FETCH_SUCCESS, FETCH_RETRY, FETCH_REDIR_TEMP, FETCH_REDIR_PERM = 0x21, 0x22, 0x23, 0x24
FETCH_GONE, FETCH_NOTMODIFIED = 0x25, 0x26
#: the URL schemes ``java.net.URL`` has handlers for (others throw MalformedURLException).
_JAVA_SCHEMES = ("http", "https", "ftp", "file", "jar", "mailto")


def java_string_hash(text: str) -> int:
    """Java's ``String.hashCode`` (over UTF-16 code units, as a signed 32-bit int)."""
    h = 0
    data = text.encode("utf-16-be", "surrogatepass")
    for i in range(0, len(data), 2):
        h = (31 * h + ((data[i] << 8) | data[i + 1])) & 0xFFFFFFFF
    return h - (1 << 32) if h & 0x80000000 else h


def url_host(url: str) -> str | None:
    """``new URL(url).getHost()`` (case kept, IPv6 in brackets), or ``None`` when Java's
    ``URL`` would refuse the URL (no scheme, or one without a handler)."""
    m = re.match(r"([A-Za-z][A-Za-z0-9+.-]*):", url)
    if not m or m.group(1).lower() not in _JAVA_SCHEMES:
        return None
    rest = url[m.end() :]
    if not rest.startswith("//"):
        return ""
    authority = re.split(r"[/?#]", rest[2:], maxsplit=1)[0]
    authority = authority.rpartition("@")[2]
    if authority.startswith("["):
        end = authority.find("]")
        return authority[: end + 1] if end >= 0 else authority
    return authority.partition(":")[0]


def url_partition(url: str, partitions: int, seed: int = 0) -> int:
    """The part number Nutch's ``URLPartitioner`` (mode ``byHost``) gives ``url``."""
    host = url_host(url)
    h = java_string_hash(url if host is None else host) ^ seed
    return (h & 0x7FFFFFFF) % partitions


def fetch_status(http_status: int | None) -> int:
    """The CrawlDatum fetch status Nutch records for an HTTP status (module docstring);
    success without one (a resource: content and no status)."""
    if http_status is None or 200 <= http_status < 300:
        return FETCH_SUCCESS
    if http_status in (301, 308):
        return FETCH_REDIR_PERM
    if http_status in (300, 302, 303, 307):
        return FETCH_REDIR_TEMP
    if http_status == 304:
        return FETCH_NOTMODIFIED
    if http_status in (400, 401, 403, 404, 410):
        return FETCH_GONE
    return FETCH_RETRY


def metadata_of_head(headers: list[tuple[bytes, bytes]]) -> list[tuple[str, list[str]]]:
    """The response headers as Nutch's ``Metadata`` holds them: one name (as sent) per
    header, its values in order (``Metadata.add``), names in first-seen order."""
    out: dict[str, list[str]] = {}
    for name, value in headers:
        key = name.decode("utf-8", "surrogateescape").strip()
        out.setdefault(key, []).append(value.decode("utf-8", "surrogateescape").strip())
    return list(out.items())


def md5_signature(payload: bytes) -> bytes:
    """Nutch's ``MD5Signature``: the MD5 of the content bytes (16 bytes)."""
    return hashlib.md5(payload).digest()


_TITLE = re.compile(rb"<title[^>]*>(.*?)</title\s*>", re.I | re.S)


def title_of(payload: bytes, charset: str | None, limit: int = 65536) -> str:
    """The ``<title>`` of an HTML payload (its first ``limit`` bytes; whitespace collapsed),
    or ``""``."""
    m = _TITLE.search(payload[:limit])
    if not m:
        return ""
    try:
        text = m.group(1).decode(charset or "utf-8", "replace")
    except LookupError:
        text = m.group(1).decode("utf-8", "replace")
    return " ".join(text.split())


def metadata(entries: list[tuple[str, list[str]]]) -> Metadata:
    """A 1.x ``Metadata`` of ``entries``."""
    return Metadata([(k, list(v)) for k, v in entries])


#: the prefix of the SequenceFile metadata keys that keep the input's warcinfo records.
WARCINFO_KEY = b"crawlmill.warcinfo."


def warcinfo_metadata(infos: list[tuple[bytes, bytes]]) -> list[tuple[bytes, bytes]]:
    """SequenceFile metadata (``Text`` pairs) keeping warcinfo records, each ``(WARC
    header, block)``: ``crawlmill.warcinfo.NNNNN.header`` and ``...NNNNN.block``, ``NNNNN``
    the record's number (0-based, pipeline order), bytes as they were."""
    out: list[tuple[bytes, bytes]] = []
    for n, (header, block) in enumerate(infos):
        out.append((WARCINFO_KEY + b"%05d.header" % n, header))
        out.append((WARCINFO_KEY + b"%05d.block" % n, block))
    return out


def warcinfos_of_metadata(pairs: list[tuple[bytes, bytes]]) -> list[tuple[bytes, bytes]]:
    """The ``(WARC header, block)`` of each warcinfo :func:`warcinfo_metadata` kept in
    ``pairs``, in number order."""
    found: dict[int, dict[str, bytes]] = {}
    for key, value in pairs:
        m = re.fullmatch(re.escape(WARCINFO_KEY) + rb"(\d+)\.(header|block)", key)
        if m:
            found.setdefault(int(m.group(1)), {})[m.group(2).decode()] = value
    return [(v.get("header", b""), v.get("block", b"")) for _, v in sorted(found.items())]
