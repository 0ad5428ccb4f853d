"""WARC 1.1 section 5.2: "WARC-Record-ID ... mandatory". A record read without one (and without
``WARC-Date``) is written with both, and the report names each addition."""

from __future__ import annotations

import gzip
import json

from crawlmill.core.commands.cli import main


def test_a_record_without_id_or_date_gets_both(tmp_path):
    body = b"hello"
    rec = (
        b"WARC/1.0\r\nWARC-Type: resource\r\nWARC-Target-URI: http://e.com/\r\n"
        b"Content-Type: text/plain\r\nContent-Length: 5\r\n\r\n" + body + b"\r\n\r\n"
    )
    src = tmp_path / "in.warc"
    src.write_bytes(rec + rec.replace(b"e.com/", b"e.com/2"))
    out = tmp_path / "out"
    assert main(["convert", str(src), "--to", "warc", "-o", str(out), "--workers", "1"]) == 0
    data = gzip.decompress(next(out.rglob("*.warc.gz")).read_bytes())
    ids = [line for line in data.split(b"\r\n") if line.startswith(b"WARC-Record-ID: <urn:uuid:")]
    assert len(ids) == 2 and len(set(ids)) == 2
    assert data.count(b"WARC-Date: ") == 2
    report = json.loads((out / ".crawlmill" / "report.json").read_text())
    assert report["warnings"]["record-id-missing"] == 2
