"""The outlinks the Nutch writers extract from an HTML page that brings none read the body as a
browser gets it (de-chunked, ``Content-Encoding`` undone) and take the elements Nutch's
``parse-html`` takes (``DOMContentUtils``: a, area, form, frame, iframe, script, link, img)."""

from __future__ import annotations

import gzip

from crawlmill.core.commands.cli import main
from crawlmill.formats.hadoop.nutch_write_links import html_outlinks

from tests.formats.test_http_body import chunked
from tests.plugins.test_nutch_writer import SEG, parts, text_key

PAGE = (b'<html><head><link rel="stylesheet" href="/style.css">'
        b'<script src="https://cdn.example/app.js"></script></head><body>'
        b'<a href="/one">One</a> <a href="/two"><img src="/two.png" alt="Two"></a>'
        b'<form action="/search"><input name="q"> Search</form>'
        b'<form action="/login" method="POST"><input name="u"></form>'
        b'<a href="/private" rel="nofollow">no</a></body></html>')  # fmt: skip
LINKS = [
    ("http://example.com/style.css", ""),
    ("https://cdn.example/app.js", ""),
    ("http://example.com/one", "One"),
    ("http://example.com/two", "Two"),  # no text: the alt of its image
    ("http://example.com/two.png", ""),
    ("http://example.com/search", "Search"),
]


def test_the_elements_nutch_takes():
    assert html_outlinks("http://example.com/page", PAGE) == LINKS


def response(url: str, head: bytes, body: bytes, n: int) -> bytes:
    http = b"HTTP/1.1 200 OK\r\nContent-Type: text/html; charset=utf-8\r\n" + head + b"\r\n" + body
    return (
        "WARC/1.1\r\nWARC-Type: response\r\n"
        f"WARC-Target-URI: {url}\r\nWARC-Date: 2024-05-01T00:00:00Z\r\n"
        f"WARC-Record-ID: <urn:uuid:00000000-0000-0000-0000-{n:012d}>\r\n"
        "Content-Type: application/http; msgtype=response\r\n"
        f"Content-Length: {len(http)}\r\n\r\n"
    ).encode() + http + b"\r\n\r\n"


def test_chunked_and_compressed_pages_give_their_links_in_the_segment(tmp_path):
    zipped = gzip.compress(PAGE)
    records = [  # every link split by a chunk boundary; the gzip body holds no "href" as stored
        ("http://example.com/chunked", b"Transfer-Encoding: chunked\r\n", chunked(PAGE, 9)),
        ("http://example.com/gzip", b"Content-Encoding: gzip\r\n"
         b"Content-Length: %d\r\n" % len(zipped), zipped),  # fmt: skip
        ("http://example.com/both", b"Content-Encoding: gzip\r\nTransfer-Encoding: chunked\r\n",
         chunked(zipped, 64)),  # fmt: skip
    ]
    src = tmp_path / "pages.warc"
    src.write_bytes(b"".join(response(u, h, b, i) for i, (u, h, b) in enumerate(records)))
    out = tmp_path / "seg"
    assert main(["convert", str(src), "--to", "nutch-segment", "-o", str(out),
                 "--option", f"segment={SEG}", "--workers", "1"]) == 0  # fmt: skip
    seg = out / SEG
    outlinks = {text_key(k): [(o.to_url, o.anchor) for o in v.outlinks]
                for _, es in parts(seg, "parse_data") for k, v in es}  # fmt: skip
    assert outlinks == {u: LINKS for u, _, _ in records}
    linked = sorted(text_key(k) for _, es in parts(seg, "crawl_parse") for k, v in es
                    if v.status == 0x43)  # fmt: skip
    assert linked == sorted(t for t, _ in LINKS for _ in records)
    # the payload is still written as the input holds it
    content = {c.url: c.content for _, es in parts(seg, "content") for _, c in es}
    assert content == {u: b for u, _, b in records}
