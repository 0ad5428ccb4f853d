"""``formats/http/body.py``: an HTTP body de-chunked and decoded (gzip, deflate in both
framings, br, zstd), bounded by ``cap``, best effort on broken or mislabelled bodies."""

from __future__ import annotations

import gzip
import zlib

import pytest
from crawlmill.formats.http.body import dechunk, decode_body, decode_content, header_tokens

from tests.conftest import need

HTML = b"<html><body>" + b"".join(b'<a href="/p%d">page %d</a>' % (i, i) for i in range(200)) + b"</body></html>"


def chunked(data: bytes, size: int = 7, ext: bytes = b"") -> bytes:
    """``data`` as a chunked body of ``size``-byte chunks (with a chunk extension, a trailer)."""
    out = b"".join(b"%x%s\r\n%s\r\n" % (len(data[i : i + size]), ext, data[i : i + size])
                   for i in range(0, len(data), size))  # fmt: skip
    return out + b"0\r\nX-Trailer: t\r\n\r\n"


def test_dechunk_joins_the_chunks_and_drops_extensions_and_trailers():
    assert dechunk(chunked(HTML), 1 << 20) == HTML
    assert dechunk(chunked(HTML, 100, b";name=value"), 1 << 20) == HTML
    bare = b"5\nhello\n6\n world\n0\n\n"  # LF-only line ends
    assert dechunk(bare, 100) == b"hello world"


def test_dechunk_of_a_cut_body_gives_the_chunks_up_to_the_cut():
    body = chunked(HTML)
    assert HTML.startswith(dechunk(body[: len(body) // 2], 1 << 20))
    assert len(dechunk(body[: len(body) // 2], 1 << 20)) > len(HTML) // 3


def test_dechunk_refuses_what_is_not_chunked_and_stays_within_cap():
    assert dechunk(HTML, 1 << 20) is None
    assert dechunk(b"", 10) is None
    assert dechunk(chunked(HTML), 50) == HTML[:50]


@pytest.mark.parametrize("coding", ["gzip", "x-gzip", "deflate", "deflate-raw", "zstd", "br"])
def test_decode_content_undoes_each_coding(coding):
    if coding in ("gzip", "x-gzip"):
        data = gzip.compress(HTML)
    elif coding == "deflate":
        data = zlib.compress(HTML)
    elif coding == "deflate-raw":  # what some servers send as deflate
        c = zlib.compressobj(wbits=-15)
        data, coding = c.compress(HTML) + c.flush(), "deflate"
    elif coding == "zstd":
        data = need("zstandard").ZstdCompressor().compress(HTML)
    else:
        data = need("brotli").compress(HTML)
    assert data != HTML and decode_content(data, [coding], 1 << 20) == HTML
    assert decode_content(data, [coding.upper()], 100) == HTML[:100]


def test_decode_content_is_bounded_and_leaves_mislabelled_bodies_alone():
    bomb = gzip.compress(b"\0" * (20 << 20))
    assert len(decode_content(bomb, ["gzip"], 1 << 20)) == 1 << 20
    assert decode_content(HTML, ["gzip"], 1 << 20) == HTML  # stored decoded, header kept
    assert decode_content(HTML, ["compress"], 1 << 20) == HTML  # unknown: left as is
    both = gzip.compress(zlib.compress(HTML))  # deflate, then gzip: undone last first
    assert decode_content(both, ["deflate", "gzip"], 1 << 20) == HTML
    cut = gzip.compress(HTML)[:-40]
    assert HTML.startswith(decode_content(cut, ["gzip"], 1 << 20))


def test_decode_body_reads_the_headers():
    headers = [(b"Content-Type", b"text/html"), (b"transfer-encoding", b" chunked"),
               (b"Content-Encoding", b"gzip")]  # fmt: skip
    assert decode_body(chunked(gzip.compress(HTML), 50), headers, 1 << 20) == HTML
    assert decode_body(HTML, headers, 1 << 20) == HTML  # not chunked after all, not gzip
    assert decode_body(gzip.compress(HTML), [(b"Transfer-Encoding", b"gzip, chunked")], 1 << 20) == HTML
    assert header_tokens([(b"A", b"x, y"), (b"a", b"z")], b"a") == ["x", "y", "z"]
