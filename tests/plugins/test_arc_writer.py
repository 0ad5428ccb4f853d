"""The ``arc`` writer: read back by warcio, byte-identical ARC -> ARC, deterministic filedesc."""

from __future__ import annotations

import gzip
from datetime import UTC, datetime
from pathlib import Path

import pytest
from crawlmill.core import InputFile, Record, RecordKind, WriteContext, open_reader
from crawlmill.plugins.readers.arc import ArcReader
from crawlmill.plugins.writers.arc import ArcWriter, output_name

# Apache-2.0 samples (warcio, jwat): per-record gzip ARC files
IDENTITY_SAMPLES = [
    "webrecorder-warcio/test/data/example.arc.gz",
    "kris-sigur-jwat/jwat-arc/src/test/resources/IAH-20080430204825-00000-blackbook.arc.gz",
]
PLAIN_SAMPLES = [
    "webrecorder-warcio/test/data/example.arc",
    "kris-sigur-jwat/jwat-arc/src/test/resources/1-1-20110922131213-00000-svc-VirtualBox.arc",
    "kris-sigur-jwat/jwat-arc/src/test/resources/small_BNF.arc",
]


def read(path: Path) -> list[Record]:
    return list(open_reader(path, ArcReader))


def write(records: list[Record], out_dir: Path, relpath: str, **options) -> tuple[Path, list]:
    created: list[Path] = []
    quarantined: list = []

    def create(rel: str):
        target = out_dir / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        created.append(target)
        return open(target, "wb")

    writer = ArcWriter(ArcWriter.Options(**options))
    writer.open(
        WriteContext(
            InputFile(relpath, relpath), 1, create, lambda r, why: quarantined.append((r, why))
        )
    )
    for record in records:
        writer.write(record)
    writer.close()
    assert len(created) == 1
    return created[0], quarantined


def warcio_records(path: Path) -> list[tuple[str, str | None, str | None, bytes]]:
    from warcio.archiveiterator import ArchiveIterator

    with open(path, "rb") as fh:
        return [
            (
                r.rec_headers.get_header("WARC-Target-URI"),
                r.rec_headers.get_header("WARC-Date"),
                r.rec_headers.get_header("WARC-IP-Address"),
                r.raw_stream.read(),
            )
            for r in ArchiveIterator(fh, arc2warc=True)
        ]


@pytest.mark.parametrize("sample", IDENTITY_SAMPLES, ids=lambda s: s.rsplit("/", 1)[-1])
def test_arc_to_arc_unmodified_is_byte_identical(samples, tmp_path: Path, sample: str) -> None:
    src = samples / sample
    out, quarantined = write(read(src), tmp_path, src.name)
    assert not quarantined
    assert out.name == src.name
    assert out.read_bytes() == src.read_bytes()


@pytest.mark.parametrize("sample", IDENTITY_SAMPLES, ids=lambda s: s.rsplit("/", 1)[-1])
def test_arc_to_arc_recompressed_keeps_every_decompressed_byte(
    samples, tmp_path: Path, sample: str
) -> None:
    src = samples / sample
    out, _ = write(read(src), tmp_path, src.name, reuse_members=False, gzip_level=1)
    assert out.read_bytes() != src.read_bytes()  # really recompressed
    assert gzip.decompress(out.read_bytes()) == gzip.decompress(src.read_bytes())


@pytest.mark.parametrize("sample", PLAIN_SAMPLES, ids=lambda s: s.rsplit("/", 1)[-1])
def test_uncompressed_arc_to_arc_is_byte_identical(samples, tmp_path: Path, sample: str) -> None:
    src = samples / sample
    out, _ = write(read(src), tmp_path, src.name, compression="none")
    assert out.read_bytes() == src.read_bytes()


def test_repaired_records_get_correct_lengths_and_warcio_reads_them(
    samples, tmp_path: Path, need
) -> None:
    need("warcio")
    src = (
        samples
        / "commoncrawl-arc2warc-conversion/test/resources/arc/crawl-2012_1341690165636_1341785606830_6-0-4421.arc.gz"
    )
    records = read(src)
    out, _ = write(records, tmp_path, src.name)
    theirs = warcio_records(out)
    assert len(theirs) == len(records)
    # the page is now whole in warcio's view too (the source declared 2 bytes too few)
    assert theirs[1][3] == records[1].payload
    line = gzip.decompress(out.read_bytes()).split(b"\n")[0:1]
    assert line[0].endswith(b" 73")  # the filedesc was copied verbatim


def test_non_arc_records_written_and_read_back_by_warcio(tmp_path: Path, need, monkeypatch) -> None:
    need("warcio")
    monkeypatch.setenv("SOURCE_DATE_EPOCH", "1700000000")
    when = datetime(2021, 3, 4, 5, 6, 7, tzinfo=UTC)
    records = [
        Record(
            kind=RecordKind.WARCINFO,
            payload=b"software: test\r\n",
            content_type="application/warc-fields",
        ),
        Record(
            kind=RecordKind.RESPONSE,
            url="http://example.com/a b",
            date=when,
            http_head=b"HTTP/1.1 200 OK\r\nContent-Type: text/html; charset=utf-8\r\n\r\n",
            payload=b"<p>hello</p>",
            content_type="text/html",
            ip="93.184.216.34",
        ),
        Record(
            kind=RecordKind.RESOURCE,
            url="http://example.com/r",
            date=when,
            payload=b"raw",
            content_type=None,
        ),
        Record(
            kind=RecordKind.REQUEST,
            url="http://example.com/a",
            date=when,
            payload=b"GET / HTTP/1.1\r\n\r\n",
        ),
        Record(kind=RecordKind.RESPONSE, url="http://example.com/nodate", payload=b"x"),
    ]
    out, quarantined = write(records, tmp_path, "dir/in.warc.gz")
    assert out == tmp_path / "dir/in.arc.gz"
    assert sorted(why.split(":")[:2] for _, why in quarantined) == [
        ["unwritable-kind", " ARC v1 cannot hold a request record"],
        ["unwritable-record", " cannot write as ARC"],
    ]
    theirs = warcio_records(out)
    assert [t[0] for t in theirs[1:]] == ["http://example.com/a%20b", "http://example.com/r"]
    assert [t[1] for t in theirs[1:]] == ["2021-03-04T05:06:07Z"] * 2
    assert theirs[1][3] == records[1].payload
    # warcio parses every ARC block as HTTP, so the non-HTTP "raw" ends up as (empty) headers
    assert theirs[2][3] == b""
    assert theirs[1][2] == "93.184.216.34" and theirs[2][2] == "0.0.0.0"  # no IP -> 0.0.0.0
    data = gzip.decompress(out.read_bytes())
    assert data.startswith(b"filedesc://in.arc.gz 0.0.0.0 20231114221320 text/plain ")
    assert (
        b"1 0 crawlmill\nURL IP-address Archive-date Content-type Archive-length\nsoftware: test"
        in data
    )
    assert b" text/html %d\n" % len(records[1].block) in data and b" no-type 3\n" in data
    # our reader reads it back with the IP mapped to "none"
    back = read(out)
    assert [r.ip for r in back[1:]] == ["93.184.216.34", None]
    assert [r.block for r in back[1:]] == [records[1].block, b"raw"]
    # deterministic: a second run gives the same bytes
    out2, _ = write(records, tmp_path / "again", "dir/in.warc.gz")
    assert out2.read_bytes() == out.read_bytes()


def test_output_name() -> None:
    assert output_name("a/b/x.warc.gz", True) == "a/b/x.arc.gz"
    assert output_name("x.arc", False) == "x.arc"
    assert output_name("x.arc.gz", False) == "x.arc"
    assert output_name("x.data", True) == "x.data.arc.gz"


def test_arc_v2_input_is_written_as_v1_that_warcio_reads(tmp_path: Path, need) -> None:
    """warcio cannot read ARC v2 (10 fields); our v1 output of it, it can."""
    need("warcio")
    spec = b"URL IP-address Archive-date Content-type Result-code Checksum Location Offset Filename Archive-length"
    body = b"2 0 Alexa Internet\n" + spec + b"\n"
    page = b"HTTP/1.0 200 OK\r\nContent-Type: text/html\r\n\r\n<html>1998</html>"
    src = tmp_path / "IA-1.arc"
    src.write_bytes(
        b"filedesc://IA-1.arc 0.0.0.0 19981117152003 text/plain 200 - - 0 IA-1.arc %d\n" % len(body)
        + body
        + b"\nhttp://a.example/x 1.2.3.4 19981117152003 text/html 200 - - 300 IA-1.arc %d\n"
        % len(page)
        + page
        + b"\n"
    )
    records = read(src)
    assert records[1].extras["arc"]["version"] == "2"
    out, _ = write(records, tmp_path / "out", "IA-1.arc", compression="none")
    data = out.read_bytes()
    assert data.startswith(b"filedesc://IA-1.arc 0.0.0.0 19981117152003 text/plain ")
    assert b"\n1 0 crawlmill\n" in data
    theirs = warcio_records(out)
    assert [(t[0], t[1], t[2]) for t in theirs[1:]] == [
        ("http://a.example/x", "1998-11-17T15:20:03Z", "1.2.3.4")
    ]
    assert theirs[1][3] == b"<html>1998</html>"
