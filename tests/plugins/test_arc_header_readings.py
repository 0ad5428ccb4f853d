"""ARC v1 header lines read as their writers meant: "URL IP-address Archive-date Content-type
Archive-length" (the version block's field-spec line). Split from the right a URL keeps its
spaces (Common Crawl 2012); a Content-type holding a space (Alexa: ``text/html;
Charset=iso-8859-1``) then gives a date that is no date, so the line is read from the left
(``arc-header-resplit``). A CR inside a URL is written as ``%0D`` (``url-line-break-encoded``)."""

from __future__ import annotations

import gzip
import json

from crawlmill.core.commands.cli import main
from crawlmill.formats.arc.header import RESPLIT_NOTE, parse_header_line

BLOCK = b"HTTP/1.0 200 OK\nContent-Type: text/html\n\n<html>hi</html>"
FD_BODY = b"1 0 Alexa Internet\nURL IP-address Archive-date Content-type Archive-length\n"


def test_a_content_type_with_a_space_is_read_from_the_left():
    h = parse_header_line(b"http://a.com/x 1.2.3.4 19970101000000 text/html; Charset=iso-8859-1 55")
    assert (h.url, h.ip, h.date, h.mime, h.length) == (
        b"http://a.com/x",
        b"1.2.3.4",
        b"19970101000000",
        b"text/html; Charset=iso-8859-1",
        55,
    )
    assert RESPLIT_NOTE in h.problems


def test_a_url_with_a_space_is_still_read_from_the_right():
    h = parse_header_line(b"http://a.com/a b 1.2.3.4 20120101000000 text/html 55")
    assert (h.url, h.ip, h.date, h.mime) == (
        b"http://a.com/a b",
        b"1.2.3.4",
        b"20120101000000",
        b"text/html",
    )
    assert h.problems == []


def test_no_reading_parses_keeps_the_right_split():
    h = parse_header_line(b"http://a.com/x 1.2.3.4 notadate text/html 55")
    assert (h.url, h.date) == (b"http://a.com/x 1.2.3.4", b"notadate") or h.date == b"notadate"
    assert RESPLIT_NOTE not in h.problems


def test_cli_names_both_repairs(tmp_path):
    fd = b"filedesc://x.arc 0.0.0.0 19970101000000 text/plain %d\n" % len(FD_BODY) + FD_BODY + b"\n"
    r1 = b"http://a.com/x 1.2.3.4 19970101000000 text/html; Charset=iso-8859-1 %d\n" % len(BLOCK)
    r2 = b"http://a.com/y\rz 1.2.3.4 19970101000000 text/html %d\n" % len(BLOCK)
    src = tmp_path / "x.arc"
    src.write_bytes(fd + r1 + BLOCK + b"\n" + r2 + BLOCK + b"\n")
    out = tmp_path / "out"
    assert main(["convert", str(src), "--to", "warc", "-o", str(out), "--workers", "1"]) == 0
    data = gzip.decompress(next(out.rglob("*.warc.gz")).read_bytes())
    assert b"WARC-Target-URI: http://a.com/x\r\n" in data
    assert b"WARC-Target-URI: http://a.com/y%0Dz\r\n" in data
    assert data.count(b"WARC-Date: 1997-01-01T00:00:00Z\r\n") == 3  # and the filedesc
    assert data.count(b"WARC-IP-Address: 1.2.3.4\r\n") == 2
    report = json.loads((out / ".crawlmill" / "report.json").read_text())
    assert report["warnings"] == {"arc-header-resplit": 1, "url-line-break-encoded": 1}
