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
  ``set-cookie`` and ``content-encoding``, as the crawler left them out), ``content_len`` (the
  ``Content-Length`` header);
* for a 2xx response with content only (the crawler looked at no other content):
  ``mime_type`` (``Content-Type`` without parameters, ``text/html`` when there is none),
  ``download_size`` (payload bytes), ``content_is_gzip`` and ``gunzip_content_len`` (a
  ``Content-Encoding: gzip`` payload, inflated up to :data:`MAX_INFLATE` bytes;
  ``gunzip_failed`` when it does not inflate, as the crawler wrote it), ``md5`` (hex, of the
  payload as downloaded);
* for a text type (:func:`crawlmill.formats.cc2012_mime.disposition`, the crawler's
  ``MimeTypeFilter``; not for images, audio, binaries, scripts, styles): ``charset_detected``
  and ``charset_detector`` (0 header, 1 meta tag, 3 detector, 10 none: ISO-8859-1 assumed;
  :mod:`crawlmill.formats.html_charset`), ``text_simhash`` (when a simhash function is given:
  the 64-bit value as a signed number, as the 2012 files hold it; of the extracted text of a
  parsed page, of the decoded content of another text type);
* ``parsed_as`` (``html`` or ``feed``) and ``content`` for HTML (``html-doc``:
  :mod:`crawlmill.formats.cc2012_html`) and for RSS/Atom feeds (a feed or XML type whose root
  is ``rss``, ``rdf:RDF`` or an Atom ``feed``: ``rss-feed``, ``atom-feed``: title, link,
  description or updated, categories, generator, items...); other types get neither, as "we
  emit metadata for only HTML and Feed (Atom and RSS) content".

lxml parses with no network access and no entity expansion (``resolve_entities=False``,
``no_network=True``, no DTD); a page that does not parse still gets its JSON, with
``content`` holding what could be read (an XML body that is no RSS/Atom feed: no
``content``). :func:`page_text` gives the ``textData`` value: the title, the meta description
and the body text (:func:`crawlmill.formats.cc2012_html.html_text`). Everything read from the
page (charset, content, text, simhash) is read from :func:`decoded_body`: the body de-chunked
and its content codings undone (:mod:`crawlmill.formats.http_body`), never from the
compressed bytes.
"""

from __future__ import annotations

import hashlib
import re
import zlib
from collections.abc import Callable
from datetime import datetime
from typing import Any

from .cc2012_feed import feed_content
from .cc2012_html import html_object, html_text, html_tree
from .cc2012_mime import FEED, HTML, XML, disposition, normalized_mime
from .html_charset import FROM_DETECTOR, FROM_HEADER, FROM_META, NONE, detect_charset
from .http import parse_http_head
from .http_body import decode_body, decode_content, header_tokens

__all__ = ["MAX_INFLATE", "decoded_body", "page_metadata", "page_text", "signed64"]

#: the most bytes a gzip-stored payload is inflated to (to count ``gunzip_content_len``).
MAX_INFLATE = 64 * 1024 * 1024
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


def _gunzip(data: bytes) -> bytes | None:
    """``data`` inflated (at most :data:`MAX_INFLATE` bytes), ``None`` when it is no gzip."""
    try:
        inflater = zlib.decompressobj(16 + zlib.MAX_WBITS)
        out = inflater.decompress(data, MAX_INFLATE)
    except zlib.error:
        return None
    return out if inflater.eof or len(out) >= MAX_INFLATE else None


def _decode(payload: bytes, pairs: list[tuple[bytes, bytes]]) -> tuple[bytes, bool, bool]:
    """``(body, gzip, gunzip ok)``: the payload de-chunked and its content codings undone
    (:func:`crawlmill.formats.http_body.decode_body`); ``gzip`` when ``Content-Encoding``
    says ``gzip`` (the crawler's ``content_is_gzip``), ``gunzip ok`` when that inflated."""
    codings = [c.lower() for c in header_tokens(pairs, b"content-encoding")]
    is_gzip = any(c in ("gzip", "x-gzip") for c in codings)
    if not is_gzip:
        return decode_body(payload, pairs, MAX_INFLATE), False, False
    plain = decode_body(
        payload,
        [(k, v) for k, v in pairs if k.strip().lower() != b"content-encoding"],
        len(payload),
    )
    out: bytes | None = plain
    for coding in reversed(codings):  # undone last first, as decode_content does
        if out is None:
            break
        if coding in ("gzip", "x-gzip"):
            out = _gunzip(out)
        elif coding != "identity":
            out = decode_content(out, [coding], MAX_INFLATE)
    return (out, True, True) if out is not None else (plain, True, False)


def decoded_body(payload: bytes, http_head: bytes | None) -> bytes:
    """The page as the crawler parsed it: ``payload`` de-chunked (``Transfer-Encoding``) and
    its ``Content-Encoding`` undone, at most :data:`MAX_INFLATE` bytes."""
    if not http_head:
        return payload
    return _decode(payload, parse_http_head(http_head)[1])[0]


def page_metadata(
    url: str,
    payload: bytes,
    http_head: bytes | None,
    *,
    ip: str | None = None,
    fetched: datetime | None = None,
    simhash: Callable[[str], int] | None = None,
    meta_form: str = "attributes",
) -> dict[str, Any]:
    """The 2012 metadata JSON object of one capture (see the module docstring); ``meta_form``:
    the form of ``meta_tags`` (:data:`crawlmill.formats.cc2012_html.META_FORMS`)."""
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
    length = headers.get("content-length", "").strip()
    if length.isdigit():
        data["content_len"] = int(length)
    if not (200 <= code < 300 and payload):
        return data  # the crawler looked at the content of 2xx responses with content only
    ctype = headers.get("content-type", "")
    mime = normalized_mime(ctype)
    data["mime_type"] = mime
    data["download_size"] = len(payload)
    body, is_gzip, inflated = _decode(payload, pairs)
    if is_gzip:
        data["content_is_gzip"] = True
        if inflated:
            data["gunzip_content_len"] = len(body)
        else:
            data["gunzip_failed"] = True
    data["md5"] = hashlib.md5(payload).hexdigest()
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
    elements (:func:`crawlmill.formats.cc2012_html.element_text`); a feed's text
    (:func:`crawlmill.formats.cc2012_feed.feed_content`); empty when nothing parses."""
    if is_feed:
        found = feed_content(body)
        return found[1] if found is not None else ""
    tree = html_tree(body.decode(charset, "replace"))
    return "" if tree is None else html_text(tree)
