"""Common Crawl 2012 ``metadata`` JSON and ``textData`` text of one fetched page.

The schema is the one Common Crawl published for its 2012 parse-output
(../shared/specs/source-docs/commoncrawl-2012-dataset.txt, ../shared/specs/collections.md
section 4.3). :func:`page_metadata` builds it from what a capture holds: the URL, the server
IP, the fetch time, the HTTP head and the payload as stored:

* ``attempt_time`` (ms since the epoch; ``null`` when the capture has no readable date),
  ``disposition`` (``SUCCESS`` with an HTTP status;
  ``FAILURE`` with ``failure_reason`` and ``failure_detail`` without one);
* ``server_ip``, ``http_result``, ``http_headers`` (names lowercased, repeated headers
  joined with ``", "``, the status line under ``response``; without the hop-by-hop headers,
  ``set-cookie`` and ``content-encoding``, as the crawler left them out), ``content_len``
  (the length of the content as downloaded: de-chunked, its content coding kept; what the
  crawler's ``ParserMapper`` wrote, ``value.getContentRaw().getCount()``, not the
  ``Content-Length`` header the page's schema names: see docs/formats/cc2012.md);
* for a 2xx response with content only (the crawler looked at no other content):
  ``mime_type`` (``Content-Type`` without parameters, ``text/html`` when there is none),
  ``download_size`` (the same downloaded length), ``download_truncated`` (``true``, only for
  a capture cut while it was downloaded: ``truncated``; absent otherwise, as the crawler set
  it from its ``TruncatedDuringDownload`` flag), ``content_is_gzip`` and
  ``gunzip_content_len`` (a ``Content-Encoding: gzip`` payload, inflated as the crawler's
  ``GZIPUtils.unzipBestEffort`` did: concatenated members, a damaged or truncated stream up
  to where it breaks, at most :data:`GUNZIP_LIMIT` bytes; ``gunzip_failed`` when its gzip
  header does not read), ``md5`` (hex, of the content the crawler went on with: the inflated
  bytes of a gzip payload, else the downloaded bytes; after a failed gunzip, where the crawler
  stopped, the bytes as they are, which crawlmill goes on to parse);
* for a text type (:func:`crawlmill.formats.cc2012.mime.disposition`, the crawler's
  ``MimeTypeFilter``; not for images, audio, binaries, scripts, styles): ``charset_detected``
  and ``charset_detector`` (0 header, 1 meta tag, 3 detector, 10 none: ISO-8859-1 assumed;
  :mod:`crawlmill.formats.http.html_charset`), ``text_simhash`` (when a simhash function is given:
  the 64-bit value as a signed number, as the 2012 files hold it; of the extracted text of a
  parsed page, of the decoded content of another text type);
* ``parsed_as`` (``html`` or ``feed``) and ``content`` for HTML (``html-doc``:
  :mod:`crawlmill.formats.cc2012.html`) and for RSS/Atom feeds (a feed or XML type whose root
  is ``rss``, ``rdf:RDF`` or an Atom ``feed``: ``rss-feed``, ``atom-feed``: title, link,
  description or updated, categories, generator, items...); other types get neither, as "we
  emit metadata for only HTML and Feed (Atom and RSS) content".

lxml parses with no network access and no entity expansion (``resolve_entities=False``,
``no_network=True``, no DTD); a page that does not parse still gets its JSON, with
``content`` holding what could be read (an XML body that is no RSS/Atom feed: no
``content``). :func:`page_text` gives the ``textData`` value: the title, the meta description
and the body text (:func:`crawlmill.formats.cc2012.html.html_text`). Everything read from the
page (charset, content, text, simhash) is read from :func:`decoded_body`: the body de-chunked
and its content codings undone (:mod:`crawlmill.formats.http.body`), never from the
compressed bytes.
"""

from __future__ import annotations

import hashlib
import re
import zlib
from collections.abc import Callable
from datetime import datetime
from typing import Any

from ..http.body import decode_body, decode_content, header_tokens
from ..http.head import parse_http_head
from ..http.html_charset import FROM_DETECTOR, FROM_HEADER, FROM_META, NONE, detect_charset
from .feed import feed_content
from .html import html_object, html_text, html_tree
from .mime import FEED, HTML, XML, disposition, normalized_mime

__all__ = [
    "GUNZIP_LIMIT",
    "MAX_INFLATE",
    "decoded_body",
    "gunzip_best_effort",
    "page_metadata",
    "page_text",
    "signed64",
]

#: the most bytes a payload in another content coding is decoded to (to read its text).
MAX_INFLATE = 64 * 1024 * 1024
#: the most bytes a gzip payload is inflated to, as the crawler did
#: (``CrawlEnvironment.GUNZIP_SIZE_LIMIT = CONTENT_SIZE_LIMIT * 3``, ``2 << 20`` each).
GUNZIP_LIMIT = 3 * (2 << 20)
_IANA = {"utf-8": "UTF-8", "iso8859-1": "ISO-8859-1", "cp932": "Shift_JIS", "euc_jp": "EUC-JP",
         "iso2022_jp": "ISO-2022-JP", "ascii": "US-ASCII", "cp1252": "windows-1252",
         "utf-16": "UTF-16", "gb2312": "GB2312", "gbk": "GBK", "gb18030": "GB18030",
         "big5": "Big5", "euc_kr": "EUC-KR", "koi8-r": "KOI8-R"}  # fmt: skip


#: headers the crawler left out of ``http_headers`` (``ParserMapper.dontKeepHeaders``: hop by
#: hop, cookies, and the content coding it undid; its sample with ``"content_is_gzip": true``
#: has no ``content-encoding``). The ARC record keeps the whole head.
_NOT_KEPT = frozenset((
    "proxy-connection", "connection", "keep-alive", "transfer-encoding", "te", "trailer",
    "proxy-authorization", "proxy-authenticate", "upgrade", "set-cookie", "content-encoding",
))  # fmt: skip


def signed64(value: int) -> int:
    """An unsigned 64-bit value as the signed number Java's ``long`` holds."""
    value &= (1 << 64) - 1
    return value - (1 << 64) if value >> 63 else value


def _headers(head: bytes) -> tuple[str, int | None, dict[str, str]]:
    status, pairs = parse_http_head(head)
    line = status.decode("latin-1").strip()
    parts = line.split()
    code = int(parts[1]) if len(parts) > 1 and parts[1].isdigit() else None
    headers: dict[str, str] = {"response": line}
    for name, value in pairs:
        key = name.decode("latin-1").strip().lower()
        if key in _NOT_KEPT:
            continue
        text = value.decode("latin-1").strip()
        headers[key] = f"{headers[key]}, {text}" if key in headers else text
    return line, code, headers


def _gzip_header_end(data: bytes, pos: int) -> int | None:
    """Where the gzip member header at ``data[pos:]`` ends, or ``None`` when it does not read
    (``java.util.zip.GZIPInputStream.readHeader``: magic, method 8, the optional fields, the
    header CRC when flagged)."""
    if data[pos : pos + 2] != b"\x1f\x8b" or len(data) < pos + 10 or data[pos + 2] != 8:
        return None
    flags, end = data[pos + 3], pos + 10
    if flags & 4:  # FEXTRA
        if len(data) < end + 2:
            return None
        end += 2 + int.from_bytes(data[end : end + 2], "little")
    for flag in (8, 16):  # FNAME, FCOMMENT: zero-terminated
        if flags & flag:
            zero = data.find(b"\0", end)
            if zero < 0:
                return None
            end = zero + 1
    if flags & 2:  # FHCRC
        if len(data) < end + 2 or int.from_bytes(data[end : end + 2], "little") != (
            zlib.crc32(data[pos:end]) & 0xFFFF
        ):
            return None
        end += 2
    return end if end <= len(data) else None


def gunzip_best_effort(data: bytes, limit: int = GUNZIP_LIMIT) -> bytes | None:
    """``data`` inflated as the crawler's ``GZIPUtils.unzipBestEffort`` did, or ``None`` when
    its first gzip header does not read (the constructor's ``IOException``): the members one
    after another while the next starts with a gzip header (``GZIPInputStream`` reads
    concatenated members and stops at trailing bytes that are none), a damaged or truncated
    stream up to where it breaks (the loop's ``catch: break``), at most ``limit`` bytes."""
    if _gzip_header_end(data, 0) is None:
        return None
    out = bytearray()
    pos = 0
    while pos < len(data) and len(out) < limit and _gzip_header_end(data, pos) is not None:
        inflater = zlib.decompressobj(16 + zlib.MAX_WBITS)
        step = 8192
        at = pos
        try:
            while at < len(data) and not inflater.eof and len(out) < limit:
                out += inflater.decompress(data[at : at + step], limit - len(out))
                at += step
                while inflater.unconsumed_tail and len(out) < limit:
                    out += inflater.decompress(inflater.unconsumed_tail, limit - len(out))
        except zlib.error:
            break
        if not inflater.eof:
            break
        pos = len(data) - len(inflater.unused_data)
    return bytes(out[:limit])


def _decode(payload: bytes, pairs: list[tuple[bytes, bytes]]) -> tuple[bytes, bytes, bool, bool]:
    """``(downloaded, body, gzip, gunzip ok)``: ``downloaded`` the payload de-chunked with its
    content coding kept (the crawler's raw content: its HTTP client undid the chunking),
    ``body`` with its content codings undone too (:func:`crawlmill.formats.http.body.decode_body`;
    gzip by :func:`gunzip_best_effort`); ``gzip`` when ``Content-Encoding`` says ``gzip`` (the
    crawler's ``content_is_gzip``), ``gunzip ok`` when its header read."""
    codings = [c.lower() for c in header_tokens(pairs, b"content-encoding")]
    kept = [(k, v) for k, v in pairs if k.strip().lower() != b"content-encoding"]
    downloaded = decode_body(payload, kept, len(payload))
    is_gzip = any(c in ("gzip", "x-gzip") for c in codings)
    if not is_gzip:
        return downloaded, decode_body(payload, pairs, MAX_INFLATE), False, False
    out: bytes | None = downloaded
    for coding in reversed(codings):  # undone last first, as decode_content does
        if out is None:
            break
        if coding in ("gzip", "x-gzip"):
            out = gunzip_best_effort(out)
        elif coding != "identity":
            out = decode_content(out, [coding], MAX_INFLATE)
    return (
        (downloaded, out, True, True) if out is not None else (downloaded, downloaded, True, False)
    )


def decoded_body(payload: bytes, http_head: bytes | None) -> bytes:
    """The page as the crawler parsed it: ``payload`` de-chunked (``Transfer-Encoding``) and
    its ``Content-Encoding`` undone, at most :data:`MAX_INFLATE` bytes."""
    if not http_head:
        return payload
    return _decode(payload, parse_http_head(http_head)[1])[1]


def page_metadata(
    url: str,
    payload: bytes,
    http_head: bytes | None,
    *,
    ip: str | None = None,
    fetched: datetime | None = None,
    simhash: Callable[[str], int] | None = None,
    meta_form: str = "attributes",
    truncated: bool = False,
) -> dict[str, Any]:
    """The 2012 metadata JSON object of one capture (see the module docstring); ``meta_form``:
    the form of ``meta_tags`` (:data:`crawlmill.formats.cc2012.html.META_FORMS`);
    ``truncated``: the capture's content was cut (``download_truncated``)."""
    data: dict[str, Any] = {
        "attempt_time": int(fetched.timestamp() * 1000) if fetched is not None else None
    }
    code = None
    headers: dict[str, str] = {}
    pairs: list[tuple[bytes, bytes]] = []
    if http_head:
        _, code, headers = _headers(http_head)
        pairs = parse_http_head(http_head)[1]
    if code is None:
        data["disposition"] = "FAILURE"
        data["failure_reason"] = "NoHTTPResponse"
        data["failure_detail"] = f"no HTTP status line for {url}"
        return data
    data["disposition"] = "SUCCESS"
    if ip:
        data["server_ip"] = ip
    data["http_result"] = code
    data["http_headers"] = headers
    # ParserMapper: jsonObj.addProperty("content_len",value.getContentRaw().getCount())
    downloaded, body, is_gzip, inflated = _decode(payload, pairs)
    data["content_len"] = len(downloaded)
    if not (200 <= code < 300 and downloaded):
        return data  # the crawler looked at the content of 2xx responses with content only
    ctype = headers.get("content-type", "")
    mime = normalized_mime(ctype)
    data["mime_type"] = mime
    data["download_size"] = len(downloaded)
    if truncated:  # ParserMapper: only when the crawler's TruncatedDuringDownload flag is set
        data["download_truncated"] = True
    if is_gzip:
        data["content_is_gzip"] = True
        if inflated:
            data["gunzip_content_len"] = len(body)
        else:
            data["gunzip_failed"] = True
    # the content it went on with: inflated (gzip), else as downloaded; the crawler wrote none
    # after a failed gunzip, crawlmill goes on with (and hashes) the bytes as they are
    data["md5"] = hashlib.md5(body if is_gzip else downloaded).hexdigest()
    kind = disposition(mime)
    if kind is None:
        return data  # not a text type: no charset, simhash, parse, content or text
    header_charset = None
    m = re.search(r"charset\s*=\s*[\"']?([^\s;\"']+)", ctype, re.I)
    if m:
        header_charset = m.group(1)
    charset, source = detect_charset(header_charset, body)
    data["charset_detected"] = _IANA.get(charset, charset.upper())
    data["charset_detector"] = {FROM_HEADER: 0, FROM_META: 1, FROM_DETECTOR: 3}.get(source, NONE)
    text = body.decode(charset, "replace")
    content: dict[str, Any] | None = None
    if kind == HTML:
        content = _html(text, url, meta_form)
    elif kind in (FEED, XML):
        found = feed_content(body, url)
        content = found[0] if found is not None else None
    parsed_as = None if content is None else ("html" if kind == HTML else "feed")
    if simhash is not None:
        source_text = text if parsed_as is None else page_text(body, charset, parsed_as == "feed")
        data["text_simhash"] = signed64(simhash(source_text))
    if parsed_as is not None:
        data["parsed_as"] = parsed_as
        data["content"] = content
    return data


def _html(text: str, url: str | None, meta_form: str) -> dict[str, Any]:
    tree = html_tree(text)
    if tree is None:
        return {"type": "html-doc"}
    return html_object(tree, url, meta_form)


def page_text(body: bytes, charset: str, is_feed: bool = False) -> str:
    """The ``textData`` text: an HTML page's title, meta description and body text, one line
    each, the body's lines broken at block-level elements and its words never glued across
    elements (:func:`crawlmill.formats.cc2012.html.element_text`); a feed's text
    (:func:`crawlmill.formats.cc2012.feed.feed_content`); empty when nothing parses."""
    if is_feed:
        found = feed_content(body)
        return found[1] if found is not None else ""
    tree = html_tree(body.decode(charset, "replace"))
    return "" if tree is None else html_text(tree)
