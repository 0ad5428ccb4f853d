"""An input whose file name holds a byte that is not UTF-8 (a Latin-1 ``café.arc`` from an old
crawl) converts like any other: the name's bytes are kept as they are in crawlmill's warcinfo
(``source``, ``description``) and ``WARC-Filename``; before, the run failed with exit 1 and
every record was lost."""

from __future__ import annotations

import gzip
import os

import pytest
from crawlmill.core.commands.cli import main
from crawlmill.formats.arc.header import build_filedesc, build_header_line

BLOCK = b"HTTP/1.0 200 OK\r\nContent-Type: text/html\r\n\r\n<html>hi</html>"


@pytest.mark.skipif(os.name != "posix", reason="byte file names are POSIX")
def test_an_arc_named_in_latin1_converts(tmp_path):
    name = b"caf\xe9.arc"
    data = build_filedesc(name, b"20120708221327")
    for i in range(3):
        url = b"http://a.example/%d" % i
        data += (
            build_header_line(url, b"1.2.3.4", b"20120708221327", b"text/html", len(BLOCK)) + b"\n"
        )
        data += BLOCK + b"\n"
    src = os.path.join(os.fsencode(tmp_path), name)
    with open(src, "wb") as fh:
        fh.write(data)
    out = tmp_path / "out"
    assert (
        main(["convert", os.fsdecode(src), "--to", "warc", "-o", str(out), "--workers", "1"]) == 0
    )
    (warc,) = list(out.rglob("*.warc.gz"))
    text = gzip.decompress(warc.read_bytes())
    assert b"source: caf\xe9.arc\r\n" in text
    assert text.count(b"<html>hi</html>") == 3
