"""CDXJ index lines as pywb's ``cdxj-indexer`` writes them, and the SURT keys they sort on.

A CDXJ line is ``<surt-urlkey> <14-digit timestamp> <json>`` where the JSON object holds, in
this order and only when known, ``url``, ``mime``, ``status``, ``digest``, ``length``,
``offset`` and ``filename`` (all strings, as cdxj-indexer writes them). Which records get a
line follows cdxj-indexer's defaults: response, revisit, resource and metadata records, but not
resource/metadata records whose WARC ``Content-Type`` is ``application/warc-fields``.

:func:`surt` implements the canonicalisation of the Internet Archive's "SURT" url keys used by
pywb (lower-cased host without ``www``/``wwwN.``, default port dropped, user info and fragment
dropped, path dot-segments resolved, path and query lower-cased, query arguments sorted,
trailing slash dropped, host labels reversed and comma-joined, ``)`` before the path). Session
id stripping and octal/decimal IP host forms of the reference implementation are not done.
"""

from __future__ import annotations

import contextlib
import json
import re
from urllib.parse import quote_from_bytes, unquote_to_bytes

__all__ = [
    "CDXJ_RECORD_TYPES",
    "cdxj_line",
    "cdxj_mime",
    "index_url",
    "indexes",
    "surt",
    "timestamp14",
]

#: record types cdxj-indexer indexes by default.
CDXJ_RECORD_TYPES = frozenset({"response", "revisit", "resource", "metadata"})

_DEFAULT_PORTS = {"http": 80, "https": 443}
_WWW = re.compile(r"^www\d*\.")
_SAFE = b"!\"$&'()*+,-./:;<=>?@[\\]^_`{|}~"
_SPLIT_MIME = re.compile(r"[;\s]")


def _unescape(data: bytes) -> bytes:
    while True:
        once = unquote_to_bytes(data)
        if once == data:
            return data
        data = once


def _escape(data: bytes) -> bytes:
    return quote_from_bytes(data, safe=_SAFE).encode("ascii")


def _normalize_path(path: bytes) -> bytes:
    if not path:
        return b"/"
    kept: list[bytes] = []
    for part in path.split(b"/")[1:]:
        if part == b".":
            continue
        if part == b".." and kept:
            kept.pop()
            continue
        kept.append(part)
    if not kept:
        return b"/"
    return b"/" + b"".join(p + b"/" for p in kept[:-1] if p) + kept[-1]


def _sort_query(query: bytes) -> bytes:
    if len(query) <= 1:
        return query
    pairs = sorted(tuple(arg.split(b"=", 1)) for arg in query.split(b"&"))
    return b"&".join(b"=".join(p) for p in pairs)


def surt(url: str | None) -> str:
    """The SURT url key of ``url`` (``-`` for an empty URL; ``filedesc:`` URLs unchanged)."""
    if not url:
        return "-"
    if url.startswith("filedesc"):
        return url
    raw = url.strip().encode("utf-8", "surrogateescape")
    raw = raw.replace(b"\t", b"").replace(b"\r", b"").replace(b"\n", b"")
    raw = raw.split(b"#", 1)[0]
    scheme, sep, rest = raw.partition(b":")
    if not sep or not re.fullmatch(rb"[A-Za-z][A-Za-z0-9+.-]*", scheme):
        scheme, rest = b"http", raw
        rest = b"//" + rest if not rest.startswith(b"//") else rest
    if scheme.lower() in (b"http", b"https"):
        rest = rest.lstrip(b"/")
    elif rest.startswith(b"//"):
        rest = rest[2:]
    elif scheme != scheme.lower():
        return url  # opaque URL with an upper-case scheme: left alone, as the reference does
    else:  # opaque URL (dns:, mailto:, urn:...): no host to reverse
        return (scheme + b":" + _escape(_unescape(rest)).lower()).decode("utf-8", "surrogateescape")
    scheme = scheme.lower()
    authority, path, query = rest, b"", None
    for i, ch in enumerate(rest):
        if ch in b"/?":
            authority, path = rest[:i], rest[i:]
            break
    if b"?" in path:
        path, query = path.split(b"?", 1)
    host = authority.rpartition(b"@")[2]
    port: int | None = None
    host_part, colon, port_text = host.rpartition(b":")
    if colon and port_text.isdigit() and not host.endswith(b"]"):
        host, port = host_part, int(port_text)
    host = _unescape(host)
    try:
        host.decode("ascii")
    except UnicodeDecodeError:
        with contextlib.suppress(UnicodeError, ValueError):
            host = host.decode("utf-8", "ignore").encode("idna")
    while b".." in host:
        host = host.replace(b"..", b".")
    host = _escape(host.strip(b".").lower())
    text_host = host.decode("ascii")
    if scheme != b"dns":
        text_host = _WWW.sub("", text_host)
    if port is not None and port == _DEFAULT_PORTS.get(scheme.decode("ascii", "replace")):
        port = None
    path_bytes = _escape(_normalize_path(_unescape(path)) if host else _unescape(path)).lower()
    if len(path_bytes) > 1 and path_bytes.endswith(b"/"):
        path_bytes = path_bytes[:-1]
    key = ",".join(reversed(text_host.split("."))) if text_host else ""
    if port is not None:
        key += f":{port}"
    key += ")"
    out = key.encode("ascii") + path_bytes
    if query:
        q = _sort_query(_escape(_unescape(query)).lower())
        if q:
            out += b"?" + q
    return out.decode("utf-8", "surrogateescape")


_RAW_BYTE = re.compile("[\udc80-\udcff]")


def index_url(url: str) -> str:
    """The URL as pywb's indexers see a ``WARC-Target-URI``: without the ``<>`` that wget 1.14
    wrote around it, spaces as ``%20`` (warcio's reading of such invalid URIs). Raw bytes that
    are not UTF-8 (kept as surrogate escapes) become ``%XX`` of those bytes, so the JSON stays
    valid Unicode and the SURT key keeps the original bytes."""
    url = url.strip()
    if url.startswith("<") and url.endswith(">"):
        url = url[1:-1]
    url = _RAW_BYTE.sub(lambda m: f"%{ord(m.group()) - 0xDC00:02X}", url)
    return url.replace(" ", "%20")


def timestamp14(warc_date: str) -> str:
    """The 14-digit ``YYYYmmddHHMMSS`` timestamp of a WARC-Date (digits of the string, cut or
    zero-padded to 14 places, so sub-second digits are dropped)."""
    digits = "".join(ch for ch in warc_date.split(".")[0] if ch.isdigit())
    return (digits + "0" * 14)[:14]


def cdxj_mime(
    record_type: str, warc_content_type: str | None, http_content_type: str | None
) -> str | None:
    """The ``mime`` of a line: ``warc/revisit``, the HTTP media type for response/request,
    else the WARC Content-Type, each without parameters."""
    if record_type == "revisit":
        return "warc/revisit"
    value = http_content_type if record_type in ("response", "request") else warc_content_type
    if not value:
        return None
    return _SPLIT_MIME.split(value, 1)[0].strip()


def indexes(record_type: str, warc_content_type: str | None) -> bool:
    """Whether cdxj-indexer (default settings) writes a line for such a record."""
    if record_type not in CDXJ_RECORD_TYPES:
        return False
    return not (
        record_type in ("resource", "metadata") and warc_content_type == "application/warc-fields"
    )


def cdxj_line(
    *,
    url: str,
    warc_date: str,
    mime: str | None,
    status: int | str | None,
    digest: str | None,
    length: int,
    offset: int,
    filename: str,
) -> str:
    """One CDXJ line (with its ``\\n``) in cdxj-indexer's field order and JSON spelling."""
    url = index_url(url)
    fields: dict[str, str] = {"url": url}
    if mime is not None:
        fields["mime"] = mime
    if status is not None:
        fields["status"] = str(status)
    if digest is not None:
        fields["digest"] = digest
    fields["length"] = str(length)
    fields["offset"] = str(offset)
    fields["filename"] = filename
    return f"{surt(url)} {timestamp14(warc_date)} {json.dumps(fields)}\n"
