"""Issue 6 item 11: a gzip member that RFC 1952 rejects is never copied into an output.

The input's member with a reserved FLG bit set decodes (isal and Python's gzip accept it), so
its record is delivered and compressed anew; the members around it are still copied. The
member itself is damage (RFC 1952: a compliant decompressor must reject it): exit 3, its
compressed offset in report.json and its compressed bytes in the quarantine.
"""

from __future__ import annotations

import gzip
import io
import json
import zlib
from pathlib import Path

from crawlmill.formats.codecs.compression import Piece, iter_pieces

from tests import helpers


def warc_record(i: int) -> bytes:
    block = b"hello %d\r\n" % i
    head = (
        b"WARC/1.0\r\nWARC-Type: resource\r\n"
        b"WARC-Record-ID: <urn:uuid:00000000-0000-4000-8000-00000000000%d>\r\n"
        b"WARC-Date: 2020-01-01T00:00:00Z\r\nWARC-Target-URI: http://example.com/%d\r\n"
        b"Content-Type: text/plain\r\nContent-Length: %d\r\n\r\n" % (i, i, len(block))
    )
    return head + block + b"\r\n\r\n"


def zlib_members(data: bytes) -> list[bytes]:
    """Decompressed members, the way zlib-based readers (warcio, FastWARC) walk them."""
    out = []
    while data:
        dec = zlib.decompressobj(31)
        out.append(dec.decompress(data))
        assert dec.eof
        data = dec.unused_data
    return out


def member_spans(data: bytes) -> list[tuple[int, int]]:
    items = iter_pieces(io.BytesIO(data), "gzip")
    return [(p.offset, p.length) for p in items if isinstance(p, Piece) and p.end]


def convert(src: Path, out: Path, to: str) -> int:
    return helpers.convert(src, to, out, workers=1, progress=None).exit_code


def assert_member_quarantined(out: Path, src: Path, offset: int, length: int) -> None:
    """One damage entry, naming the flagged member, with its compressed bytes quarantined."""
    report = json.loads((out / ".crawlmill" / "report.json").read_text())
    (damage,) = report["damages"]
    assert damage["path"] == str(src) and damage["offset"] == offset
    assert "reserved FLG bits" in damage["reason"]
    qdir = out / ".crawlmill" / "quarantine"
    (index,) = qdir.glob("*.jsonl")
    (entry,) = [json.loads(line) for line in index.read_text().splitlines()]
    data = index.with_suffix(".bin").read_bytes()
    qdata = data[entry["bin_offset"] : entry["bin_offset"] + entry["bin_length"]]
    assert entry["offset"] == offset
    assert qdata == src.read_bytes()[offset : offset + length]


def test_warc_member_with_reserved_flag_bit_is_compressed_anew(tmp_path, capsys, need):
    raws = [warc_record(i) for i in range(3)]
    members = [bytearray(gzip.compress(r, mtime=0)) for r in raws]
    members[1][3] |= 0x20  # FLG bit 5: reserved
    src = tmp_path / "in.warc.gz"
    src.write_bytes(b"".join(members))
    out = tmp_path / "out"
    code = convert(src, out, "warc")
    err = capsys.readouterr().err
    assert code == 3, err
    assert "reserved FLG bits" in err
    start = len(members[0])
    assert_member_quarantined(out, src, start, len(members[1]))
    (result,) = out.glob("*.warc.gz")
    data = result.read_bytes()
    assert zlib_members(data) == raws  # every member is one zlib accepts
    assert gzip.decompress(data) == b"".join(raws)
    spans = member_spans(data)
    assert data[: spans[0][1]] == members[0]  # the good members are still copied
    assert data[spans[2][0] :] == members[2]
    assert data[spans[1][0] : spans[1][0] + spans[1][1]] != bytes(members[1])

    warcio = need("warcio.archiveiterator")
    with open(result, "rb") as fh:
        got = [rec.content_stream().read() for rec in warcio.ArchiveIterator(fh)]
    assert got == [b"hello %d\r\n" % i for i in range(3)]
    fastwarc = need("fastwarc.warc")
    with open(result, "rb") as fh:
        got = [rec.reader.read() for rec in fastwarc.ArchiveIterator(fh, parse_http=False)]
    assert got == [b"hello %d\r\n" % i for i in range(3)]


def test_arc_member_with_reserved_flag_bit_is_compressed_anew(tmp_path, capsys, arc_named, need):
    sample = arc_named("example.arc.gz")
    data = bytearray(sample.read_bytes())
    spans = member_spans(bytes(data))
    data[spans[1][0] + 3] |= 0x40  # the record's member: FLG bit 6 (reserved)
    src = tmp_path / "in.arc.gz"
    src.write_bytes(bytes(data))
    out = tmp_path / "out"
    code = convert(src, out, "arc")
    err = capsys.readouterr().err
    assert code == 3, err
    assert_member_quarantined(out, src, spans[1][0], spans[1][1])
    (result,) = [p for p in out.rglob("*.arc.gz") if ".crawlmill" not in p.parts]
    written = result.read_bytes()
    parts = zlib_members(written)
    assert parts[1] == zlib_members(bytes(sample.read_bytes()))[1]
    warcio = need("warcio.archiveiterator")
    with open(result, "rb") as fh:
        recs = list(warcio.ArchiveIterator(fh, arc2warc=True))
    assert len(recs) == 2
