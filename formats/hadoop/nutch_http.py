"""The HTTP head of a page Nutch fetched, from what Nutch kept (spec sections 6.3, 8, 13.17).

Nutch stores the body after transfer and content decoding, so headers that describe the
bytes on the wire are wrong for it. :func:`fix_head` renames them ``X-Crawler-<name>`` (as
Nutch's ``WARCUtils.fixHttpHeaders`` and Common Crawl's exporter do) and adds a
``Content-Length`` that is true for the stored body:

* ``Transfer-Encoding`` always (the body is de-chunked);
* ``Content-Encoding`` unless the stored body still starts with that encoding's magic
  (gzip ``1f 8b``; other encodings are decoded by Nutch's HTTP plugins);
* ``Content-Length`` when its value is not the stored body's length; then, and whenever a
  ``Transfer-Encoding`` was renamed, a ``Content-Length`` with the body's length is added.

The head comes from ``_response.headers_`` (the verbatim status line and headers, kept by
Common Crawl's fork and newer protocol plugins) when there is one, else it is rebuilt
(:func:`head_from_metadata`) from the header values Nutch copied into the Content metadata,
under a status line made from the protocol status: that one is a reconstruction, and the
reader says so.
"""

from __future__ import annotations

import re
from http import HTTPStatus

__all__ = ["fix_head", "head_from_metadata", "is_http_header", "status_of_protocol"]

_INTERNAL_PREFIXES = ("nutch.", "http.content.truncated", "_")
_INTERNAL = {"originalcharencoding", "charencodingforconversion"}

#: ProtocolStatus code -> HTTP status (the codes whose HTTP status is certain).
_PROTOCOL_HTTP = {1: 200, 11: 410, 12: 301, 13: 302, 14: 404, 17: 403, 21: 304}
#: CrawlDatum fetch status -> HTTP status.
_FETCH_HTTP = {0x21: 200, 0x23: 302, 0x24: 301, 0x26: 304}


def is_http_header(name: str) -> bool:
    """Whether a Content metadata name is a response header (not one of Nutch's own keys:
    ``_ip_``, ``_fst_``, ``nutch.*``, ``http.content.truncated`` ...)."""
    low = name.lower()
    if low in _INTERNAL or low.startswith(_INTERNAL_PREFIXES) or low.endswith("_"):
        return False
    return bool(name) and re.fullmatch(r"[!#$%&'*+.^_`|~0-9A-Za-z-]+", name) is not None


def status_of_protocol(protocol_code: str | None, pst_code: int | None,
                       fetch_status: int | None) -> tuple[int, str] | None:  # fmt: skip
    """``(HTTP status, where it came from)``: Nutch's ``nutch.protocol.code``, the
    ProtocolStatus code, or the fetch status; ``None`` when none of them says."""
    if protocol_code and protocol_code.strip().isdigit():
        return int(protocol_code.strip()), "nutch.protocol.code"
    if pst_code in _PROTOCOL_HTTP:
        return _PROTOCOL_HTTP[pst_code], "ProtocolStatus"
    if fetch_status in _FETCH_HTTP:
        return _FETCH_HTTP[fetch_status], "fetch status"
    return None


def _lines(head: bytes) -> tuple[bytes, list[bytes]]:
    text = head.rstrip(b"\r\n")
    lines = re.split(rb"\r?\n", text)
    return lines[0], [line for line in lines[1:] if line]


def fix_head(head: bytes, body: bytes) -> tuple[bytes, list[str]]:
    """``(head, renamed header names)``: ``head`` (status line + headers) with the headers
    that are wrong for the decoded ``body`` renamed ``X-Crawler-*``, a true
    ``Content-Length`` added where needed, CRLF line ends and the blank line."""
    status, lines = _lines(head)
    out, renamed = [status], []
    length_needed = False
    for line in lines:
        name, sep, value = line.partition(b":")
        low = name.strip().lower()
        rename = False
        if sep and low == b"transfer-encoding":
            rename = length_needed = True
        elif sep and low == b"content-encoding":
            coding = value.strip().lower()
            still = coding in (b"gzip", b"x-gzip") and body[:2] == b"\x1f\x8b"
            rename = not still and coding not in (b"", b"identity")
        elif sep and low == b"content-length":
            rename = value.strip() != str(len(body)).encode()
            length_needed = length_needed or rename
        if rename:
            renamed.append(name.strip().decode("latin-1"))
            line = b"X-Crawler-" + line.lstrip()
        out.append(line)
    has_length = any(
        line.partition(b":")[0].strip().lower() == b"content-length" for line in out[1:]
    )
    if length_needed and not has_length:
        out.append(b"Content-Length: " + str(len(body)).encode())
    return b"\r\n".join(out) + b"\r\n\r\n", renamed


def head_from_metadata(status: int, headers: list[tuple[str, list[str]]]) -> bytes:
    """A status line ``HTTP/1.1 <status> <reason>`` and one line per value of each
    response header in ``headers`` (Content metadata order), ended by the blank line
    (pass it through :func:`fix_head` for the decoded body)."""
    try:
        reason = HTTPStatus(status).phrase
    except ValueError:
        reason = ""
    lines = [f"HTTP/1.1 {status} {reason}".rstrip().encode()]
    for name, values in headers:
        if is_http_header(name):
            for value in values:
                clean = value.replace("\r", " ").replace("\n", " ")
                lines.append(f"{name}: {clean}".encode("utf-8", "surrogateescape"))
    return b"\r\n".join(lines) + b"\r\n\r\n"
