"""WARC/0.17 records (Heritrix 1.14) keep their version in ``auto`` instead of being relabelled
1.1 with nothing said; an explicit version converts them and says so (``version-converted``).
warcio and FastWARC, the independent readers, read both outputs."""

from __future__ import annotations

import gzip

from tests.helpers import convert

BLOCK = b"HTTP/1.1 200 OK\r\nContent-Length: 3\r\n\r\nabc"
REC = (
    b"WARC/0.17\r\nWARC-Type: response\r\nWARC-Target-URI: http://example.com/\r\n"
    b"WARC-Date: 2008-04-30T20:48:25Z\r\nWARC-IP-Address: 207.241.229.39\r\n"
    b"WARC-Record-ID: <urn:uuid:e7c9eff8-f5bc-4aeb-b3d2-9d3df99afb30>\r\n"
    b"Content-Type: application/http; msgtype=response\r\n"
    + b"Content-Length: %d\r\n\r\n" % len(BLOCK)
    + BLOCK
    + b"\r\n\r\n"
)


def _run(tmp_path, *extra):
    src = tmp_path / "in.warc"
    src.write_bytes(REC)
    out = tmp_path / "out"
    result = convert(src, "warc", out, *extra, workers=1, progress=None)
    assert result.exit_code == 0
    (warc,) = list(out.rglob("*.warc.gz"))
    return warc, gzip.decompress(warc.read_bytes()), result.report


def _readers_agree(need, warc, version):
    fastwarc = need("fastwarc.warc")
    warcio = need("warcio.archiveiterator")
    with open(warc, "rb") as fh:
        recs = [
            (r.headers.status_line, r.reader.read())
            for r in fastwarc.ArchiveIterator(fh, parse_http=False)
        ]
    assert recs == [(f"WARC/{version}", REC[REC.index(b"HTTP/") : -4])]
    with open(warc, "rb") as fh:
        got = [
            (r.rec_headers.protocol, r.content_stream().read()) for r in warcio.ArchiveIterator(fh)
        ]
    assert got == [(f"WARC/{version}", b"abc")]


def test_auto_keeps_0_17(need, tmp_path):
    warc, data, report = _run(tmp_path)
    assert data == REC  # the record as it was, not relabelled
    assert report["warnings"] == {}
    _readers_agree(need, warc, "0.17")


def test_an_explicit_version_converts_and_says_so(need, tmp_path):
    warc, data, report = _run(tmp_path, "--option", "version=1.1")
    assert data.startswith(b"WARC/1.1\r\n") and data.endswith(b"abc\r\n\r\n")
    assert report["warnings"] == {"version-converted": 1}
    _readers_agree(need, warc, "1.1")
