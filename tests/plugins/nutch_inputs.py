"""WARC inputs built in the tests of the Nutch writers (not taken from samples)."""

from __future__ import annotations

from pathlib import Path


def warc_response(url: str, body: bytes, date: str = "2024-05-06T07:08:09Z", n: int = 0,
                  content_type: str = "text/html; charset=utf-8") -> bytes:  # fmt: skip
    """One uncompressed WARC/1.1 response record: ``HTTP/1.1 200 OK`` with ``body``."""
    http = (f"HTTP/1.1 200 OK\r\nContent-Type: {content_type}\r\n"
            f"Content-Length: {len(body)}\r\n\r\n").encode() + body  # fmt: skip
    head = (f"WARC/1.1\r\nWARC-Type: response\r\nWARC-Target-URI: {url}\r\n"
            f"WARC-Date: {date}\r\nWARC-Record-ID: <urn:uuid:00000000-0000-4000-8000-{n:012d}>\r\n"
            f"Content-Type: application/http; msgtype=response\r\n"
            f"Content-Length: {len(http)}\r\n\r\n").encode()  # fmt: skip
    return head + http + b"\r\n\r\n"


def warcinfo(fields: str, n: int = 999) -> bytes:
    """One uncompressed WARC/1.1 ``warcinfo`` record with the ``fields`` text block."""
    body = fields.encode("utf-8")
    head = (f"WARC/1.1\r\nWARC-Type: warcinfo\r\nWARC-Date: 2024-05-06T07:00:00Z\r\n"
            f"WARC-Filename: built.warc\r\n"
            f"WARC-Record-ID: <urn:uuid:00000000-0000-4000-8000-{n:012d}>\r\n"
            f"Content-Type: application/warc-fields\r\nContent-Length: {len(body)}\r\n\r\n").encode()  # fmt: skip
    return head + body + b"\r\n\r\n"


#: three linked pages: a non-ASCII anchor, a link to a page outside the crawl, a self link.
PAGES = {
    "http://a.example/": (
        b"<html><head><title>A page</title></head><body>"
        b'<a href="http://b.example/x">B \xc3\xa9t\xc3\xa9</a> '
        b'<a href="/self">self</a></body></html>'
    ),
    "http://b.example/x": (
        b'<html><body><a href="http://a.example/">back to A</a>'
        b'<a href="http://c.example/">C</a></body></html>'
    ),
    "http://c.example/": b"<html><body><p>no links</p></body></html>",
}


def write_warc(path: Path, pages: dict[str, bytes] = PAGES, info: str | None = None) -> Path:
    """A WARC of ``pages`` (URL -> HTML), led by a warcinfo when ``info`` is given."""
    data = warcinfo(info) if info is not None else b""
    for n, (url, body) in enumerate(pages.items()):
        data += warc_response(url, body, n=n)
    path.write_bytes(data)
    return path
