"""HTTP messages as archives store them: where the head ends, and the declared Content-Type.

Shared by the WARC and ARC readers. Archived heads use CRLF, bare LF, or a mix (ClueWeb09 has
LF-only heads inside CRLF WARC headers), so the first blank line of any of these shapes ends
the head.
"""

from __future__ import annotations

import contextlib
import os
import re
from functools import lru_cache

__all__ = [
    "content_type",
    "content_type_value",
    "declared_length",
    "head_and_content_type",
    "head_end",
    "media_type",
    "parse_http_head",
    "split_response",
    "with_content_type",
]

_STATUS_LINE = re.compile(rb"HTTP/\d{1,2}\.\d{1,2}[ \t]+\d{3}(?:[ \t\r\n]|$)")
_BLANK_LINE = re.compile(rb"\n\r*\n")
_CONTENT_TYPE = re.compile(rb"(?i)content-type[ \t]*:[ \t]*([^\r\n]*)")
_CHARSET = re.compile(rb"""(?i)charset\s*=\s*["']?([^"';,\s]+)""")
#: the compiled head split (formats/warc/_warcfast.c), unless ``CRAWLMILL_PURE=1``
_KERNEL = None
if os.environ.get("CRAWLMILL_PURE", "") in ("", "0"):
    with contextlib.suppress(ImportError):  # (an install without a compiler)
        from ..warc._warcfast import http_head as _KERNEL


def head_end(block: bytes, start: int = 0, end: int | None = None) -> int:
    """Index just after the blank line that ends the HTTP head in ``block[start:end]`` (CRLF,
    LF or mixed endings; the first blank line wins), or -1 when there is none. Indices are into
    ``block``, so a head can be found inside a larger buffer without copying it."""
    if end is None:
        end = len(block)
    crlf = block.find(b"\r\n\r\n", start, end)
    stop = crlf if crlf >= 0 else end  # the payload after a CRLF blank line is never scanned
    best = crlf + 4 if crlf >= 0 else -1
    lf = block.find(b"\n\n", start, stop)
    if lf >= 0 and (best < 0 or lf + 2 <= best):
        best = lf + 2
    mixed = block.find(b"\n\r\n", start, stop)
    if mixed >= 0 and (best < 0 or mixed + 3 < best):
        best = mixed + 3
    if best < 0:
        m = _BLANK_LINE.search(block, start, end)
        if m:
            best = m.end()
    return best


def head_and_content_type(
    block: bytes, start: int, end: int
) -> tuple[int, tuple[str | None, str | None]]:
    """``head_end(block, start, end)`` and the :func:`content_type` of the head it ends
    (``block[start:end]`` whole when no blank line ends it), in one pass of the compiled
    kernel when it is there (the same results)."""
    if _KERNEL is not None:
        got = _KERNEL(block, start, end)
        if got is not None:  # else: not a range of a bytes object, the pure path decides
            cut, value = got
            return cut, (None, None) if value is None else media_type(value)
    cut = head_end(block, start, end)
    return cut, content_type(block[start : cut if cut >= 0 else end])


def split_response(block: bytes) -> tuple[bytes | None, bytes]:
    """``(http_head, payload)`` of a block that starts with an HTTP status line (a status line
    without reason phrase is accepted); ``(None, block)`` for anything else. A status line with
    no blank line after it makes the whole block the head."""
    if not block.startswith(b"HTTP/") or not _STATUS_LINE.match(block):
        return None, block
    cut = head_end(block)
    if cut < 0:
        return block, b""
    return block[:cut], block[cut:]


@lru_cache(maxsize=4096)
def media_type(value: bytes) -> tuple[str | None, str | None]:
    """``(media type, charset)`` of a Content-Type value, both lower-cased, parameters other
    than charset dropped: ``b'text/HTML; Charset="UTF-8"'`` -> ``("text/html", "utf-8")``."""
    media, _, params = value.partition(b";")
    media = media.strip().lower()
    charset = None
    if params:
        m = _CHARSET.search(params)
        if m:
            charset = m.group(1).decode("latin-1").lower()
    return (media.decode("latin-1") or None), charset


def content_type(http_head: bytes) -> tuple[str | None, str | None]:
    """``(media type, charset)`` of the first ``Content-Type`` header line of an HTTP head, or
    ``(None, None)``."""
    low = http_head.lower()
    i = low.find(b"\ncontent-type")
    while i >= 0:
        m = _CONTENT_TYPE.match(http_head, i + 1)
        if m:
            return media_type(m.group(1))
        i = low.find(b"\ncontent-type", i + 1)
    return None, None


def content_type_value(old: bytes | None, media: str, charset: str | None) -> bytes:
    """A Content-Type value saying ``media`` (and ``charset``), keeping the other parameters of
    ``old`` and, when the charset is the one ``old`` declares, its spelling."""
    params = b""
    if old is not None:
        _, params = old.partition(b";")[::2]
        old_charset = media_type(old)[1]
        if old_charset != charset:
            kept = [p for p in params.split(b";") if p.strip() and not _CHARSET.search(p)]
            params = b";".join(kept)
            if charset:
                params += (b"; " if kept else b" ") + b"charset=" + charset.encode("latin-1")
        params = params.strip()
    elif charset:
        params = b"charset=" + charset.encode("latin-1")
    value = media.encode("latin-1", "replace")
    return value + b"; " + params if params else value


def with_content_type(http_head: bytes, media: str, charset: str | None) -> bytes:
    """``http_head`` whose first ``Content-Type`` line says ``media`` and ``charset`` (see
    :func:`content_type_value`); a head without one gets it as its last header line."""
    low = http_head.lower()
    i = low.find(b"\ncontent-type")
    while i >= 0:
        m = _CONTENT_TYPE.match(http_head, i + 1)
        if m:
            value = content_type_value(m.group(1).rstrip(b" \t"), media, charset)
            return http_head[: m.start(1)] + value + http_head[m.end(1) :]
        i = low.find(b"\ncontent-type", i + 1)
    eol = b"\r\n" if b"\r\n" in http_head else b"\n"
    cut = head_end(http_head)
    if cut < 0:  # no blank line: the line goes at the end
        return http_head + eol + b"Content-Type: " + content_type_value(None, media, charset)
    body_end = cut - (2 if http_head[cut - 2 : cut] == b"\r\n" else 1)
    line = b"Content-Type: " + content_type_value(None, media, charset) + eol
    return http_head[:body_end] + line + http_head[body_end:]


def parse_http_head(head: bytes) -> tuple[bytes, list[tuple[bytes, bytes]]]:
    """Split a raw HTTP head into its first line and ordered ``(name, value)`` pairs.

    Accepts CRLF or bare LF line endings and folded continuation lines (appended to the
    previous value with a single space). Lines without a colon are kept with an empty value
    so that nothing is lost.
    """
    lines = head.replace(b"\r\n", b"\n").split(b"\n")
    first = lines[0] if lines else b""
    headers: list[tuple[bytes, bytes]] = []
    for line in lines[1:]:
        if not line:
            continue
        if line[:1] in (b" ", b"\t") and headers:
            name, value = headers[-1]
            headers[-1] = (name, value + b" " + line.strip())
            continue
        name, sep, value = line.partition(b":")
        headers.append((name.strip(), value.strip() if sep else b""))
    return first, headers


_STATUS = re.compile(rb"HTTP/\d{1,2}\.\d{1,2}[ \t]+(\d{3})")


def declared_length(head: bytes) -> int | None:
    """The body length the response head ``head`` declares (its ``Content-Length``), or
    ``None`` when it declares none the body is bound by (RFC 9110 section 8.6, RFC 9112
    section 6.3): no ``Content-Length``, one that is no number or several that disagree, a
    ``Transfer-Encoding`` (it overrides the length), or a status whose response has no body
    (1xx, 204, 304: their ``Content-Length`` is that of another response)."""
    first, headers = parse_http_head(head)
    m = _STATUS.match(first)
    if m and (m.group(1).startswith(b"1") or m.group(1) in (b"204", b"304")):
        return None
    values = set()
    for name, value in headers:
        name = name.lower()
        if name == b"transfer-encoding":
            return None
        if name == b"content-length":
            values.update(v.strip() for v in value.split(b","))
    if len(values) != 1:
        return None
    value = values.pop()
    return int(value) if value.isdigit() else None
