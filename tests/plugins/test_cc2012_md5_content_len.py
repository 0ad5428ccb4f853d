"""Issue 19, Common Crawl 2012: ``md5``, ``content_len``, ``download_size`` and
``gunzip_content_len`` of the metadata JSON as the crawler computed them, from the data-set
page's words (../shared/specs/source-docs/commoncrawl-2012-dataset.txt) and the crawler's
``ParserMapper`` (commoncrawl/commoncrawl-crawler, src/org/commoncrawl/mapred/ec2/parser/), with
inputs built here: through the ``cc-metadata`` writer and on :func:`page_metadata`.

The page: "content_len": "The content length, as advertised by the server"; "download_size":
"The actual size of the downloaded content."; "gunzip_content_len": "If the content was gzip'd,
this is the decompressed length of the incoming content."; "md5": "md5 hash of the incoming
content."; and its sample: ``"content_len": 16092, ... "download_size": 16092,
"content_is_gzip": true, "gunzip_content_len": 71009``: the two lengths are the compressed
bytes as downloaded, the third the inflated page. The crawler's code says which bytes:
``jsonObj.addProperty("content_len",value.getContentRaw().getCount())`` (the downloaded bytes,
which its HTTP client de-chunked, not the header), ``contentBytes = unzipResult.data.get()``
then ``MD5Hash.digest(contentBytes,0,contentLen)`` (the md5 of the inflated content)."""

from __future__ import annotations

import gzip
import hashlib
import zlib

from crawlmill.formats.cc2012.metadata import GUNZIP_LIMIT, gunzip_best_effort, page_metadata

from tests.plugins.test_cc2012_source_facts import convert, jsonl, warc

PAGE = (
    b"<html><head><title>T</title></head><body><p>"
    + b"words and more words " * 40
    + b"</p></body></html>"
)
GZ = b"HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nContent-Encoding: gzip\r\n\r\n"


def head(*lines: str, status: str = "200 OK") -> bytes:
    return ("\r\n".join([f"HTTP/1.1 {status}", *lines]) + "\r\n\r\n").encode()


def chunked(data: bytes, size: int = 100) -> bytes:
    parts = [data[i : i + size] for i in range(0, len(data), size)]
    return b"".join(b"%x\r\n%s\r\n" % (len(p), p) for p in parts) + b"0\r\n\r\n"


def test_the_pages_sample_shape_through_the_writer(tmp_path):
    # the sample: content_len == download_size (the compressed bytes), gunzip_content_len the
    # page, md5 of the content the crawler went on with (the inflated bytes)
    packed = gzip.compress(PAGE, mtime=0)
    src = tmp_path / "in.warc.gz"
    warc(src, [
        ("http://g.example/", [("Content-Type", "text/html"), ("Content-Encoding", "gzip"),
                               ("Content-Length", str(len(packed)))], packed),
        ("http://c.example/", [("Content-Type", "text/html"), ("Content-Encoding", "gzip"),
                               ("Transfer-Encoding", "chunked")], chunked(packed)),
        ("http://p.example/", [("Content-Type", "text/html"),
                               ("Transfer-Encoding", "chunked")], chunked(PAGE)),
    ])  # fmt: skip
    assert convert(src, tmp_path / "j", "cc-metadata") == 0
    lines = jsonl(tmp_path / "j")
    for url in ("http://g.example/", "http://c.example/"):
        m = lines[url]["metadata"]
        assert m["content_len"] == m["download_size"] == len(packed), url
        assert m["content_is_gzip"] is True and m["gunzip_content_len"] == len(PAGE)
        assert m["md5"] == hashlib.md5(PAGE).hexdigest() != hashlib.md5(packed).hexdigest()
    # chunked, not gzip'd: the de-chunked page (the crawler's NIOHttpConnection de-chunked)
    m = lines["http://p.example/"]["metadata"]
    assert m["content_len"] == m["download_size"] == len(PAGE)
    assert m["md5"] == hashlib.md5(PAGE).hexdigest()
    assert "content_is_gzip" not in m and "gunzip_content_len" not in m


def test_content_len_is_the_bytes_downloaded_not_the_header():
    # getContentRaw().getCount(): written for every response the crawler got, whatever the
    # header says (none; a wrong one) and whatever the status
    body = b"<html><title>x</title></html>"
    none = page_metadata("http://a/", body, head("Content-Type: text/html"))
    wrong = page_metadata("http://a/", body, head("Content-Type: text/html", "Content-Length: 5"))
    for m in (none, wrong):
        assert m["content_len"] == m["download_size"] == len(body)
        assert m["md5"] == hashlib.md5(body).hexdigest()
    missing = page_metadata(
        "http://a/", body, head("Content-Type: text/html", status="404 Not Found")
    )
    assert missing["content_len"] == len(body)
    assert "md5" not in missing and "download_size" not in missing  # 2xx content only
    empty = page_metadata("http://a/", b"", head("Content-Length: 0", status="204 No Content"))
    assert empty["content_len"] == 0 and "md5" not in empty


def test_a_deflate_payload_is_hashed_as_downloaded():
    # only "gzip" was undone before the md5 (encoding.equalsIgnoreCase("gzip"))
    packed = zlib.compress(PAGE)
    m = page_metadata(
        "http://a/", packed, head("Content-Type: text/html", "Content-Encoding: deflate")
    )
    assert m["md5"] == hashlib.md5(packed).hexdigest() and m["download_size"] == len(packed)
    assert "content_is_gzip" not in m
    assert m["content"]["title"] == "T"  # the text is still read from the decoded page


def test_gunzip_is_best_effort_as_the_crawlers():
    # GZIPUtils.unzipBestEffort: "If the gzipped input has been truncated or corrupted, a
    # best-effort attempt is made to unzip as much as possible."
    packed = gzip.compress(PAGE * 20, mtime=0)
    cut = packed[: len(packed) // 2]
    m = page_metadata("http://a/", cut, GZ)
    got = m["gunzip_content_len"]
    assert 0 < got < len(PAGE * 20) and "gunzip_failed" not in m
    assert m["md5"] == hashlib.md5((PAGE * 20)[:got]).hexdigest()
    # GZIPInputStream reads concatenated members (python's gzip module as the oracle) ...
    two = gzip.compress(b"<html>one", mtime=0) + gzip.compress(b" two</html>", mtime=0)
    m = page_metadata("http://a/", two, GZ)
    assert m["gunzip_content_len"] == len(gzip.decompress(two)) == 20
    assert m["md5"] == hashlib.md5(b"<html>one two</html>").hexdigest()
    # ... and stops quietly at trailing bytes that are no gzip member
    m = page_metadata("http://a/", gzip.compress(PAGE, mtime=0) + b"\r\ntrailing", GZ)
    assert m["gunzip_content_len"] == len(PAGE) and m["md5"] == hashlib.md5(PAGE).hexdigest()
    # no gzip header: "If no data can be extracted null is returned" -> gunzip_failed
    m = page_metadata("http://a/", PAGE, GZ)
    assert m["gunzip_failed"] is True and "gunzip_content_len" not in m
    assert gunzip_best_effort(b"\x1f\x8b\x07" + bytes(20)) is None  # method 7 is no deflate


def test_gunzip_stops_at_the_crawlers_limit():
    # GUNZIP_SIZE_LIMIT = CONTENT_SIZE_LIMIT * 3, CONTENT_SIZE_LIMIT = 2 << 20 (2097152)
    assert GUNZIP_LIMIT == 6_291_456
    big = b"<html>" + b"a" * (GUNZIP_LIMIT + 1000)
    m = page_metadata("http://a/", gzip.compress(big, mtime=0), GZ)
    assert m["gunzip_content_len"] == GUNZIP_LIMIT
    assert m["md5"] == hashlib.md5(big[:GUNZIP_LIMIT]).hexdigest()
