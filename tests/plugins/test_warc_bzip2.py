"""bzip2-compressed WARC (``.warc.bz2``), single-stream and multi-stream, read as warcio reads
the uncompressed file (issue 25: "bzip2-compressed WARC (`.warc.bz2`) is not read (Go readers
read it)")."""

from __future__ import annotations

import bz2
import io
from pathlib import Path

import pytest
from crawlmill.core import open_reader
from crawlmill.core.commands.cli import main
from crawlmill.core.record import OffsetSpace

from tests.conftest import need


def _warc(tmp_path: Path) -> tuple[bytes, list[bytes]]:
    """An uncompressed WARC warcio writes (a warcinfo and responses) and its records' bytes."""
    need("warcio")
    from warcio.statusandheaders import StatusAndHeaders
    from warcio.warcwriter import WARCWriter

    buf = io.BytesIO()
    writer = WARCWriter(buf, gzip=False)
    records = []
    start = 0
    writer.write_record(writer.create_warcinfo_record("x.warc", {"software": "test"}))
    records.append(buf.getvalue()[start:])
    for i in range(6):
        start = buf.tell()
        http = StatusAndHeaders("200 OK", [("Content-Type", "text/html")], protocol="HTTP/1.1")
        body = io.BytesIO(b"<p>page %d</p>\n" % i * (50 + 300 * i))
        url = f"http://example.com/{i}"
        writer.write_record(writer.create_warc_record(url, "response", body, http_headers=http))
        records.append(buf.getvalue()[start:])
    return buf.getvalue(), records


def _warcio_records(path: Path) -> list[tuple[list, bytes]]:
    from warcio.archiveiterator import ArchiveIterator

    with open(path, "rb") as fh:
        return [
            (r.rec_headers.headers, r.raw_stream.read())
            for r in ArchiveIterator(fh, no_record_parse=False)
        ]


@pytest.mark.parametrize("streams", ["single", "multi"])
def test_a_bz2_warc_converts_record_for_record_as_warcio_reads_it(tmp_path, streams, capsys):
    raw, records = _warc(tmp_path)
    plain = tmp_path / "plain.warc"
    plain.write_bytes(raw)
    src = tmp_path / "in" / "crawl.warc.bz2"
    src.parent.mkdir()
    if streams == "single":
        src.write_bytes(bz2.compress(raw, 5))
    else:  # one stream per record, block sizes differing
        src.write_bytes(b"".join(bz2.compress(r, 1 + i % 9) for i, r in enumerate(records)))
    out = tmp_path / "out"
    code = main(["convert", str(src.parent), "--to", "warc", "-o", str(out), "--workers", "1"])
    assert code == 0, capsys.readouterr().err
    assert "read 7 = written 7 + dropped 0 + quarantined 0" in capsys.readouterr().err
    expected = _warcio_records(plain)
    assert len(expected) == 7
    assert _warcio_records(out / "crawl.warc.gz") == expected
    # a whole-file stream has no per-record offsets, as a whole-file gzip
    space = OffsetSpace.STREAM if streams == "single" else OffsetSpace.MEMBER
    with open_reader(src) as got:
        spaces = {r.source.space for r in got}
    assert spaces == {space}


def test_damage_between_bz2_streams_is_reported_at_its_offset_and_reading_resyncs(tmp_path):
    raw, records = _warc(tmp_path)
    streams = [bz2.compress(r) for r in records]
    bad = tmp_path / "bad.warc.bz2"
    bad.write_bytes(streams[0] + b"garbage!" * 8 + b"".join(streams[1:]))
    with open_reader(bad) as got:
        assert len(list(got)) == 7
    assert [(d.offset, d.length) for d in got.damages] == [(len(streams[0]), 64)]
