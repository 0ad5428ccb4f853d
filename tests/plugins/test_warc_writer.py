"""The ``warc`` writer plugin, checked with independent readers (warcio, FastWARC, warcio check,
cdxj-indexer, warc3-wet-clueweb09) on the records it writes."""

from __future__ import annotations

import ast
import base64
import dataclasses
import gzip
import hashlib
import io
import json
import random
import re
import subprocess
import zlib
from datetime import UTC, datetime
from pathlib import Path

import pytest
from crawlmill.core import InputFile, Provenance, Record, RecordKind, WriteContext, open_reader
from crawlmill.core.errors import ConfigError
from crawlmill.plugins.writers import warc as warc_writer
from crawlmill.plugins.writers.layouts import LAYOUTS
from crawlmill.plugins.writers.warc import WarcWriter

from tests.helpers import warcio_check

VERSIONS = ["1.1", "1.0", "0.18"]
COMPRESSIONS = ["gzip", "zstd", "none"]
EXT = {"gzip": ".warc.gz", "zstd": ".warc.zst", "none": ".warc"}


# -- helpers ---------------------------------------------------------------------------------


def sha1_b32(data: bytes) -> str:
    return "sha1:" + base64.b32encode(hashlib.sha1(data).digest()).decode()


def run_writer(out: Path, records, relpath: str = "crawl/in.arc.gz", **options):
    """Write ``records`` as one task into ``out``; return (notes, created relpaths)."""
    created: list[str] = []

    def create(rel: str):
        assert not rel.startswith("/") and ".." not in rel.split("/")
        path = out / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        created.append(rel)
        return open(path, "wb")

    ctx = WriteContext(
        input=InputFile(path=str(out.parent / relpath), relpath=relpath),
        input_count=1,
        create=create,
        quarantine=lambda record, reason: pytest.fail(f"quarantined: {reason}"),
    )
    writer = WarcWriter(WarcWriter.Options.model_validate(options))
    writer.open(ctx)
    for record in records:
        writer.write(record)
    writer.close()
    return ctx.notes, created


def decompressed(path: Path) -> bytes:
    data = path.read_bytes()
    if path.name.endswith(".gz"):
        return gzip.decompress(data)
    if path.name.endswith(".zst"):
        import zstandard

        return (
            zstandard.ZstdDecompressor()
            .stream_reader(io.BytesIO(data), read_across_frames=True)
            .read()
        )
    return data


def plain_stream(path: Path):
    """A binary stream of the file, decompressed for zstd (warcio has no zstd)."""
    if path.name.endswith(".zst"):
        return io.BytesIO(decompressed(path))
    return open(path, "rb")


def src(offset: int) -> Provenance:
    return Provenance(path="in.arc.gz", offset=offset, length=100, format="arc")


D = datetime(2008, 4, 30, 20, 48, 25, tzinfo=UTC)
LARGE = random.Random(7).randbytes(3 * 1024 * 1024 + 17)


def built_records() -> list[Record]:
    """One record of each kind and the awkward cases, as a non-WARC reader would give them."""
    return [
        Record(
            kind=RecordKind.RESPONSE,
            url="http://example.com/",
            date=D,
            date_raw="20080430204825",
            http_head=b"HTTP/1.1 200 OK\r\nContent-Type: text/html; charset=utf-8\r\nContent-Length: 13\r\n\r\n",
            payload=b"<p>hello</p>\n",
            content_type="text/html",
            ip="192.0.2.1",
            source=src(0),
        ),
        Record(
            kind=RecordKind.REQUEST,
            url="http://example.com/",
            date=D,
            date_raw="20080430204825",
            http_head=b"GET / HTTP/1.1\r\nHost: example.com\r\n\r\n",
            payload=b"",
            source=src(100),
        ),
        Record(
            kind=RecordKind.RESOURCE,
            url="dns:example.com",
            date=D,
            date_raw="20080430204825",
            payload=b"20080430204825\nexample.com.\t300\tIN\tA\t192.0.2.1\n",
            content_type="text/dns",
            ip="0.0.0.0",  # never written
            source=src(200),
        ),
        Record(
            kind=RecordKind.METADATA,
            url="http://example.com/",
            date=D,
            date_raw="20080430204825",
            payload=b'{"outlinks": []}',
            content_type="application/json",
            source=src(300),
        ),
        Record(
            kind=RecordKind.REVISIT,
            url="http://example.com/again",
            date=D,
            date_raw="20080430204825",
            http_head=b"HTTP/1.1 304 Not Modified\r\nETag: x\r\n\r\n",
            payload=b"",
            source=src(400),
        ),
        Record(
            kind=RecordKind.WARCINFO,
            date=D,
            date_raw="20080430204825",
            payload=b"software: other\r\n",
            content_type="application/warc-fields",
            source=src(500),
        ),
        Record(  # non-ASCII bytes: UTF-8 URL, Latin-1 HTTP header value
            kind=RecordKind.RESPONSE,
            url="http://example.com/caf\u00e9?q=\u20ac",
            date=D,
            date_raw="20080430204825",
            http_head=b"HTTP/1.0 200 OK\r\nX-Name: caf\xe9 \xff\r\nContent-Type: text/plain\r\n\r\n",
            payload=b"caf\xe9",
            ip="2001:db8::1",
            source=src(600),
        ),
        Record(  # empty payload
            kind=RecordKind.RESPONSE,
            url="http://example.com/empty",
            date=D,
            date_raw="20080430204825",
            http_head=b"HTTP/1.1 204 No Content\r\n\r\n",
            payload=b"",
            source=src(700),
        ),
        Record(  # large payload, not HTTP
            kind=RecordKind.RESOURCE,
            url="http://example.com/big.bin",
            date=D,
            date_raw="20080430204825",
            payload=LARGE,
            content_type="application/octet-stream",
            source=src(800),
        ),
    ]


def expected_view(records: list[Record]):
    """(type, url bytes, payload bytes) per record as an independent reader should see it."""
    out = []
    for r in records:
        payload = r.payload if r.http_head is not None else r.block
        out.append((r.kind.value, r.url_bytes, payload))
    return out


def read_with_warcio(path: Path):
    from warcio.archiveiterator import ArchiveIterator

    rows = []
    with plain_stream(path) as fh:
        for rec in ArchiveIterator(fh):
            url = rec.rec_headers.get_header("WARC-Target-URI")
            rows.append(
                (
                    rec.rec_type,
                    url.encode("utf-8") if url is not None else None,
                    rec.raw_stream.read(),
                    rec,
                )
            )
    return rows


def verify_with_fastwarc(path: Path, quirks: bool) -> list[tuple[str, bool, bool | None]]:
    """FastWARC's own digest checks: (type, block ok, payload ok or None when absent)."""
    from fastwarc.warc import ArchiveIterator

    with open(path, "rb") as fh:
        blocks = [
            (str(rec.record_type), rec.verify_block_digest())
            for rec in ArchiveIterator(fh, parse_http=False, quirks_mode=quirks)
        ]
    with open(path, "rb") as fh:
        payloads = [
            rec.verify_payload_digest()
            if rec.headers.get("WARC-Payload-Digest") is not None
            else None
            for rec in ArchiveIterator(fh, parse_http=True, quirks_mode=quirks)
        ]
    return [(t, b, p) for (t, b), p in zip(blocks, payloads, strict=True)]


def read_with_fastwarc(path: Path, quirks: bool):
    from fastwarc.warc import ArchiveIterator

    rows = []
    with open(path, "rb") as fh:
        for rec in ArchiveIterator(fh, parse_http=True, quirks_mode=quirks):
            rows.append(
                (
                    str(rec.record_type),
                    rec.headers.get_bytes(b"WARC-Target-URI"),
                    rec.reader.read(),
                    dict(rec.headers.items()),
                )
            )
    return rows


def read_with_clueweb09(path: Path):
    import warc3_wet_clueweb09 as cw

    rows = []
    stream = io.BytesIO(decompressed(path))
    for rec in cw.WARCFile(fileobj=stream):
        url = rec.header.get("WARC-Target-URI")
        rows.append((rec.type, url, rec.payload.read(), rec.header))
    return rows


@pytest.fixture(autouse=True)
def _fixed_epoch(monkeypatch):
    monkeypatch.setenv("SOURCE_DATE_EPOCH", "1700000000")


# -- independent readers on every version x compression --------------------------------------


@pytest.mark.oracle
@pytest.mark.parametrize("compression", COMPRESSIONS)
@pytest.mark.parametrize("version", VERSIONS)
def test_built_records_read_back_by_fastwarc(tmp_path, need, version, compression):
    need("fastwarc")
    records = built_records()
    notes, created = run_writer(tmp_path / "out", records, version=version, compression=compression)
    assert created == ["crawl/in" + EXT[compression]]
    path = tmp_path / "out" / created[0]
    rows = read_with_fastwarc(path, quirks=version == "0.18")
    assert len(rows) == len(records) + 1  # crawlmill's warcinfo first
    assert rows[0][0] == "warcinfo"
    want = expected_view(records)
    for (rtype, url, payload, headers), (wtype, wurl, wpayload) in zip(rows[1:], want, strict=True):
        assert rtype == wtype == headers["WARC-Type"]
        assert url == wurl
        if version == "0.18":
            # Content-Length counts the trailing "\n\n" (ClueWeb09), so it is part of what is read
            assert payload == wpayload + b"\n\n"
        else:
            assert payload == wpayload
    assert notes["files"][0]["records"] == len(records) + 1
    checks = verify_with_fastwarc(path, quirks=version == "0.18")
    assert all(block_ok for _, block_ok, _ in checks), checks
    with_payload = [r for r in records if r.http_head is not None and r.kind != RecordKind.REVISIT]
    assert [ok for _, _, ok in checks if ok is not None] == [True] * len(with_payload)


@pytest.mark.oracle
@pytest.mark.parametrize("compression", COMPRESSIONS)
@pytest.mark.parametrize("version", ["1.1", "1.0"])
def test_built_records_read_back_by_warcio(tmp_path, need, version, compression):
    need("warcio")
    records = built_records()
    _, created = run_writer(tmp_path / "out", records, version=version, compression=compression)
    rows = read_with_warcio(tmp_path / "out" / created[0])
    assert len(rows) == len(records) + 1
    want = expected_view(records)
    for (rtype, url, payload, rec), (wtype, wurl, wpayload) in zip(rows[1:], want, strict=True):
        assert rtype == wtype
        assert url == wurl
        assert payload == wpayload
        assert rec.rec_headers.protocol == f"WARC/{version}"
    # the non-ASCII HTTP header bytes are kept as they were
    non_ascii = rows[7][3]
    assert non_ascii.http_headers.get_header("X-Name").encode("latin-1") == b"caf\xe9 \xff"


@pytest.mark.oracle
@pytest.mark.parametrize("compression", COMPRESSIONS)
def test_018_read_back_by_ir_datasets_clueweb09_reader(tmp_path, need, compression):
    need("warc3_wet_clueweb09")
    records = built_records()
    _, created = run_writer(tmp_path / "out", records, version="0.18", compression=compression)
    rows = read_with_clueweb09(tmp_path / "out" / created[0])
    assert len(rows) == len(records) + 1
    for (rtype, url, payload, _), r in zip(rows[1:], records, strict=True):
        assert rtype == r.kind.value
        assert url == (r.url_bytes.decode("utf-8") if r.url_bytes is not None else None)
        assert payload == r.block + b"\n\n"


def test_018_layout_is_clueweb09_framing(tmp_path):
    records = built_records()[:2]
    _, created = run_writer(tmp_path / "out", records, version="0.18", compression="none")
    data = (tmp_path / "out" / created[0]).read_bytes()
    starts = [m.start() for m in re.finditer(rb"(?m)^WARC/0\.18\n", data)]
    assert len(starts) == 3 and starts[0] == 0
    for start, end in zip(starts, starts[1:] + [len(data)], strict=True):
        head, _, rest = data[start:end].partition(b"\n\n")
        assert b"\r" not in head
        length = int(re.search(rb"Content-Length: (\d+)", head).group(1))
        assert head.split(b"\n")[-1].startswith(b"Content-Length:")  # last, as Anserini expects
        assert len(rest) == length and rest.endswith(b"\n\n")  # next record follows at once
        # digests cover what Content-Length covers, as readers of the convention digest it
        digest = re.search(rb"WARC-Block-Digest: (\S+)", head).group(1).decode()
        assert digest == sha1_b32(rest)


@pytest.mark.oracle
@pytest.mark.parametrize("version", ["1.1", "1.0"])
def test_warcio_check_passes(tmp_path, need_command, version):
    need_command("warcio")  # the oracle rule; warcio_check runs its entry in-process
    _, created = run_writer(tmp_path / "out", built_records(), version=version)
    path = tmp_path / "out" / created[0]
    proc = warcio_check("-v", path)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "fail" not in proc.stdout.lower()
    assert proc.stdout.count("digest pass") >= len(built_records())


# -- headers we build ------------------------------------------------------------------------


@pytest.mark.oracle
def test_digests_equal_hashlib_and_only_http_records_get_payload_digests(tmp_path, need):
    need("warcio")
    records = built_records()
    _, created = run_writer(tmp_path / "out", records)
    rows = read_with_warcio(tmp_path / "out" / created[0])
    for (_, _, _, rec), r in zip(rows[1:], records, strict=True):
        h = rec.rec_headers
        assert h.get_header("WARC-Block-Digest") == sha1_b32(r.block)
        if r.http_head is not None and r.kind != RecordKind.REVISIT:
            assert h.get_header("WARC-Payload-Digest") == sha1_b32(r.payload)
        else:
            assert h.get_header("WARC-Payload-Digest") is None


@pytest.mark.oracle
def test_built_headers_follow_the_record(tmp_path, need):
    need("warcio")
    records = built_records()
    _, created = run_writer(tmp_path / "out", records)
    rows = read_with_warcio(tmp_path / "out" / created[0])
    warcinfo = rows[0][3].rec_headers
    info_id = warcinfo.get_header("WARC-Record-ID")
    assert re.fullmatch(r"<urn:uuid:[0-9a-f-]{36}>", info_id)
    for (_, _, _, rec), r in zip(rows[1:], records, strict=True):
        h = rec.rec_headers
        assert h.get_header("WARC-Date") == "2008-04-30T20:48:25Z"
        if r.kind != RecordKind.WARCINFO:
            assert h.get_header("WARC-Warcinfo-ID") == info_id
        if r.http_head is not None:
            msg = "request" if r.kind == RecordKind.REQUEST else "response"
            assert h.get_header("Content-Type") == f"application/http;msgtype={msg}"
        else:
            assert h.get_header("Content-Type") == r.content_type
        ip = h.get_header("WARC-IP-Address")
        assert ip == (r.ip if r.ip not in (None, "0.0.0.0") else None)
    ids = [row[3].rec_headers.get_header("WARC-Record-ID") for row in rows]
    assert len(set(ids)) == len(ids)


def test_no_http_headers_are_invented(tmp_path):
    rec = Record(
        kind=RecordKind.RESOURCE,
        url="http://example.com/x.txt",
        date=D,
        date_raw="20080430204825",
        payload=b"plain body, no HTTP",
        content_type="text/plain",
        source=src(0),
    )
    _, created = run_writer(tmp_path / "out", [rec], warcinfo="never", compression="none")
    data = (tmp_path / "out" / created[0]).read_bytes()
    assert b"WARC-Type: resource\r\n" in data
    assert b"HTTP/" not in data and b"application/http" not in data
    assert data.endswith(b"\r\n\r\nplain body, no HTTP\r\n\r\n")


def test_unparsable_date_is_kept_raw_and_counted(tmp_path):
    rec = Record(
        kind=RecordKind.RESPONSE,
        url="http://x/",
        date=None,
        date_raw="2009-03-65T08:43:19-0800",
        payload=b"x",
        source=src(0),
    )
    notes, created = run_writer(tmp_path / "out", [rec], compression="none", version="0.18")
    data = (tmp_path / "out" / created[0]).read_bytes()
    assert b"WARC-Date: 2009-03-65T08:43:19-0800\n" in data  # 0.18: the ClueWeb09 convention
    assert notes["warnings"] == {"date-kept-raw": 1}
    # WARC 1.1 holds valid dates only: the date it means (day 65 of 2009 = March 6), the
    # original kept in Crawlmill-Original-Date, counted (docs/formats/clueweb09.md)
    notes, created = run_writer(tmp_path / "out11", [rec], compression="none")
    data = (tmp_path / "out11" / created[0]).read_bytes()
    assert b"WARC-Date: 2009-03-06T16:43:19Z\r\n" in data
    assert b"Crawlmill-Original-Date: 2009-03-65T08:43:19-0800\r\n" in data
    assert notes["warnings"] == {"date-replaced": 1}


def test_sub_second_precision_only_in_11_and_only_when_the_source_had_it(tmp_path):
    fine = datetime(2020, 1, 2, 3, 4, 5, 250000, tzinfo=UTC)
    rec = Record(
        kind=RecordKind.RESOURCE,
        url="http://x/",
        date=fine,
        date_raw="2020-01-02T03:04:05.25Z",
        source=src(0),
    )
    for version, want in (("1.1", b"2020-01-02T03:04:05.25Z"), ("1.0", b"2020-01-02T03:04:05Z")):
        _, created = run_writer(tmp_path / version, [rec], version=version, compression="none")
        assert b"WARC-Date: " + want + b"\r\n" in (tmp_path / version / created[0]).read_bytes()


# -- ARC -> WARC -----------------------------------------------------------------------------

ARC_HEADER = b"filedesc://IAH-test.arc 0.0.0.0 20080430204825 text/plain 76"
ARC_BODY = b"1 0 InternetArchive\nURL IP-address Archive-date Content-type Archive-length\n\n"


def arc_records() -> list[Record]:
    filedesc = Record(  # as the ARC reader maps it: the whole ARC header record as metadata
        kind=RecordKind.METADATA,
        url="filedesc://IAH-test.arc",
        date=D,
        date_raw="20080430204825",
        payload=ARC_HEADER + b"\n" + ARC_BODY,
        content_type="application/arc",
        source=Provenance("in.arc.gz", 0, 150, "arc"),
        extras={
            "arc": {
                "header_line": ARC_HEADER,
                "version": "1",
                "fields": {"url": "filedesc://IAH-test.arc", "ip-address": "0.0.0.0"},
                "filedesc": True,
                "origin": "InternetArchive",
            },
            # the ARC reader's parse-time mapping (the WARC writer knows no ARC)
            "neutral": {"describes_file": "filedesc"},
        },
    )
    page = dataclasses.replace(  # records are frozen: a record as the ARC reader makes it
        built_records()[0],
        extras={
            "arc": {"header_line": b"http://example.com/ 192.0.2.1 20080430204825 text/html 90"}
        },
    )
    return [filedesc, page]


@pytest.mark.oracle
def test_arc_to_warc_follows_the_iipc_guidelines(tmp_path, need, need_command):
    need("warcio")
    notes, created = run_writer(tmp_path / "out", arc_records(), relpath="crawl/IAH-test.arc.gz")
    assert created == ["crawl/IAH-test.warc.gz"]  # one WARC per ARC, named after it
    rows = read_with_warcio(tmp_path / "out" / created[0])
    assert [r[0] for r in rows] == ["warcinfo", "metadata", "response"]
    info, meta, resp = (r[3].rec_headers for r in rows)
    info_block = rows[0][2].decode()
    assert "software: crawlmill/" in info_block
    assert "IAH-test.arc.gz" in info_block and "ARC" in info_block
    assert info.get_header("WARC-Date") == "2023-11-14T22:13:20Z"  # SOURCE_DATE_EPOCH
    assert info.get_header("WARC-Filename") == "IAH-test.warc.gz"
    # filedesc: metadata record concurrent to the warcinfo, with the original date and the
    # whole ARC header record (header line + body) so the ARC can be rebuilt
    assert meta.get_header("WARC-Concurrent-To") == info.get_header("WARC-Record-ID")
    assert meta.get_header("WARC-Date") == "2008-04-30T20:48:25Z"
    assert meta.get_header("Content-Type") == "application/arc"
    assert meta.get_header("WARC-IP-Address") is None  # 0.0.0.0 is not an address
    assert rows[1][2] == ARC_HEADER + b"\n" + ARC_BODY
    assert resp.get_header("WARC-Warcinfo-ID") == info.get_header("WARC-Record-ID")
    assert resp.get_header("WARC-IP-Address") == "192.0.2.1"
    assert resp.get_header("WARC-Date") == "2008-04-30T20:48:25Z"
    assert notes["files"] == [
        {
            "path": created[0],
            "records": 3,
            "documents": 1,  # the filedesc is the ARC warcinfo, not a document
            "warcinfo": True,
            "bytes": notes["files"][0]["bytes"],
            "copied_members": 0,  # ARC members never become WARC records as they are
        }
    ]
    need_command("warcio")
    proc = warcio_check(tmp_path / "out" / created[0])
    assert proc.returncode == 0, proc.stdout


def test_warcinfo_never_and_always(tmp_path):
    _, created = run_writer(
        tmp_path / "a", built_records()[:1], warcinfo="never", compression="none"
    )
    assert (tmp_path / "a" / created[0]).read_bytes().count(b"WARC/1.1\r\n") == 1
    _, created = run_writer(
        tmp_path / "b", built_records()[:1], warcinfo="always", compression="none"
    )
    data = (tmp_path / "b" / created[0]).read_bytes()
    assert data.count(b"WARC/1.1\r\n") == 2 and b"WARC-Type: warcinfo" in data


# -- determinism and rollover ----------------------------------------------------------------


@pytest.mark.parametrize("compression", COMPRESSIONS)
@pytest.mark.parametrize("version", VERSIONS)
def test_two_writes_are_byte_identical(tmp_path, version, compression):
    # gzip with zlib: ISA-L (the auto backend) does not promise the same compressed bytes twice
    opts = {"version": version, "compression": compression, "gzip_backend": "zlib"}
    _, a = run_writer(tmp_path / "a", built_records(), **opts)
    _, b = run_writer(tmp_path / "b", built_records(), **opts)
    assert a == b
    assert (tmp_path / "a" / a[0]).read_bytes() == (tmp_path / "b" / b[0]).read_bytes()


@pytest.mark.oracle
def test_rollover_by_records_with_default_pattern(tmp_path, need):
    need("warcio")
    records = built_records() * 2  # 18 records, 4 per file -> 5 files
    notes, created = run_writer(tmp_path / "out", records, max_records=4, cdxj=True)
    warcs = [c for c in created if c.endswith(".warc.gz")]
    assert warcs == [f"crawl/in-{i:05d}.warc.gz" for i in range(5)]
    counts = [len(read_with_warcio(tmp_path / "out" / w)) for w in warcs]
    assert counts == [5, 5, 5, 5, 3]  # each file: its own warcinfo + up to 4 records
    assert [f["records"] for f in notes["files"]] == counts
    assert [f["cdxj"] for f in notes["files"]] == [w + ".cdxj" for w in warcs]
    # every file's records point to that file's warcinfo
    for w in warcs:
        rows = read_with_warcio(tmp_path / "out" / w)
        info_id = rows[0][3].rec_headers.get_header("WARC-Record-ID")
        assert {
            r[3].rec_headers.get_header("WARC-Warcinfo-ID") for r in rows[1:] if r[0] != "warcinfo"
        } == {info_id}


@pytest.mark.oracle
def test_rollover_by_bytes_with_a_pattern(tmp_path, need):
    need("warcio")
    from warcio.archiveiterator import ArchiveIterator

    records = [r for r in built_records() if r.payload is not LARGE] * 3
    limit = 2000
    notes, created = run_writer(
        tmp_path / "out", records, max_bytes=limit, name_pattern="{index:03d}/{stem}.{seq}{ext}"
    )
    assert created[0] == "000/in.0.warc.gz" and created[-1] == f"000/in.{len(created) - 1}.warc.gz"
    total = 0
    for i, rel in enumerate(created):
        path = tmp_path / "out" / rel
        size = path.stat().st_size
        with open(path, "rb") as fh:
            it = ArchiveIterator(fh)
            lengths = []
            for _ in it:
                lengths.append(it.get_record_length())
        total += len(lengths) - 1
        if i < len(created) - 1:
            assert size >= limit  # full
            assert size - lengths[-1] < limit  # and not rolled later than needed
    assert total == len(records)


def test_pattern_without_seq_is_refused_for_rollover():
    with pytest.raises(ValueError, match="seq"):
        WarcWriter.Options.model_validate({"max_records": 10, "name_pattern": "{stem}{ext}"})


@pytest.mark.parametrize(
    "bad",
    [
        {"level": 0},
        {"level": 10},
        {"compression": "zstd", "level": 23},
        {"compression": "none", "level": 3},
        {"layout": "no-such-layout"},
        {"name_pattern": "{nope}"},
        {"digests": "sometimes"},
        {"gzip_backend": "pigz"},
        {"unknown": 1},
    ],
)
def test_bad_options_are_refused(bad):
    with pytest.raises(ValueError):  # pydantic's ValidationError
        WarcWriter.Options.model_validate(bad)
    # built directly (light options): refused as well (flat layout options are no field)
    with pytest.raises((ValueError, TypeError)):
        WarcWriter.Options(**bad)


def test_options_and_layouts():
    assert WarcWriter.Options(compression="zstd", level=22).effective_level == 22
    assert WarcWriter.Options().effective_level == 6
    assert WarcWriter.Options(compression="zstd").effective_level == 3
    assert "plain" in LAYOUTS
    fields = set(WarcWriter.Options.model_fields)
    assert {"version", "compression", "level", "layout", "layout_options"} <= fields
    assert {"cdxj", "warcinfo", "digests"} <= fields
    # one layout option form: the layouts' options are not the writer's (issue 21 item 2)
    flat = {"name_pattern", "max_records", "max_bytes", "language", "segment_dirs"}
    assert not flat & fields
    assert all(f.description for f in WarcWriter.Options.model_fields.values())


def test_isal_backend_without_isal_is_refused(monkeypatch):
    from crawlmill.formats.codecs import member_writer

    monkeypatch.setattr(member_writer, "_isal_zlib", None)
    with pytest.raises(ValueError, match="isal is not installed"):
        WarcWriter.Options(gzip_backend="isal")
    assert WarcWriter.Options(gzip_backend="zlib").gzip_backend == "zlib"


def test_writer_is_registered_through_the_entry_point():
    from crawlmill.core.registry import Registry

    registry = Registry.load()
    assert registry.writer("warc") is WarcWriter


def test_unknown_layout_at_open_is_a_config_error(tmp_path):
    writer = WarcWriter(
        WarcWriter.Options.model_construct(**{**WarcWriter.Options().model_dump(), "layout": "zzz"})
    )
    ctx = WriteContext(InputFile("x", "x"), 1, create=lambda p: None, quarantine=lambda r, m: None)
    with pytest.raises(ConfigError):
        writer.open(ctx)


# -- CDXJ ------------------------------------------------------------------------------------


def _cdxj_indexer_lines(path: Path) -> list[str]:
    from shutil import which

    proc = subprocess.run(
        [which("cdxj-indexer"), "--sort", str(path)], capture_output=True, text=True, check=True
    )
    return [line for line in proc.stdout.splitlines() if line.strip()]


def _fields(line: str) -> tuple[str, str, dict]:
    key, ts, body = line.split(" ", 2)
    return key, ts, json.loads(body)


@pytest.mark.oracle
@pytest.mark.parametrize("version", ["1.1", "1.0"])
def test_our_cdxj_matches_cdxj_indexer(tmp_path, need_command, version):
    need_command("cdxj-indexer")
    records = built_records() + arc_records()
    _, created = run_writer(tmp_path / "out", records, version=version, cdxj=True)
    warc = tmp_path / "out" / created[0]
    ours = (tmp_path / "out" / (created[0] + ".cdxj")).read_text().splitlines()
    theirs = _cdxj_indexer_lines(warc)
    assert len(ours) == len(theirs) > 5
    for a, b in zip(ours, theirs, strict=True):
        ka, ta, fa = _fields(a)
        kb, tb, fb = _fields(b)
        assert (ka, ta) == (kb, tb)
        common = set(fa) & set(fb)
        assert {"url", "length", "offset", "filename"} <= common
        assert {k: fa[k] for k in common} == {k: fb[k] for k in common}
        assert set(fa) == set(fb)


# -- copying WARC records --------------------------------------------------------------------


def _warc_record(version: bytes, headers: list[tuple[bytes, bytes]], block: bytes) -> bytes:
    head = b"WARC/" + version + b"\r\n" + b"".join(k + b": " + v + b"\r\n" for k, v in headers)
    head += b"Content-Length: " + str(len(block)).encode() + b"\r\n\r\n"
    return head + block + b"\r\n\r\n"


def make_input_warc(path: Path, version: bytes = b"1.0") -> list[bytes]:
    """A gzip-per-record WARC with records with and without digests (also sha256 base16)."""
    http = b"HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nX-Odd: caf\xe9\r\n\r\n"
    body = b"<html>caf\xc3\xa9</html>"
    rid = [f"<urn:uuid:00000000-0000-4000-8000-00000000000{i}>".encode() for i in range(5)]
    records = [
        _warc_record(
            version,
            [
                (b"WARC-Type", b"warcinfo"),
                (b"WARC-Record-ID", rid[0]),
                (b"WARC-Date", b"2020-01-01T00:00:00Z"),
                (b"Content-Type", b"application/warc-fields"),
            ],
            b"software: test\r\n",
        ),
        _warc_record(
            version,
            [
                (b"WARC-Type", b"response"),
                (b"WARC-Record-ID", rid[1]),
                (b"WARC-Date", b"2020-01-01T00:00:01Z"),
                (b"WARC-Target-URI", b"http://example.com/caf\xc3\xa9"),
                (b"WARC-Block-Digest", sha1_b32(http + body).encode()),
                (b"WARC-Payload-Digest", sha1_b32(body).encode()),
                (b"Content-Type", b"application/http; msgtype=response"),
            ],
            http + body,
        ),
        _warc_record(  # no digests at all: none may be added
            version,
            [
                (b"WARC-Type", b"metadata"),
                (b"WARC-Record-ID", rid[2]),
                (b"WARC-Date", b"2020-01-01T00:00:01Z"),
                (b"WARC-Target-URI", b"http://example.com/caf\xc3\xa9"),
                (b"Content-Type", b"application/json"),
            ],
            b'{"a": 1}',
        ),
        _warc_record(  # sha256 in base16
            version,
            [
                (b"WARC-Type", b"resource"),
                (b"WARC-Record-ID", rid[3]),
                (b"WARC-Date", b"2020-01-01T00:00:02Z"),
                (b"WARC-Target-URI", b"http://example.com/r.txt"),
                (
                    b"WARC-Block-Digest",
                    b"sha256:" + hashlib.sha256(b"resource text").hexdigest().encode(),
                ),
                (b"Content-Type", b"text/plain"),
            ],
            b"resource text",
        ),
    ]
    with open(path, "wb") as fh:
        for raw in records:
            fh.write(gzip.compress(raw, mtime=0))
    return records


def read_input(path: Path) -> tuple[list[Record], str]:
    """Records of a WARC file through the WARC reader plugin."""
    from crawlmill.plugins.readers.warc import WarcReader

    with open_reader(path, WarcReader) as it:
        records = list(it)
    assert it.damages == []
    return records, "reader"


def test_unmodified_warc_records_are_copied_byte_for_byte(tmp_path):
    src_path = tmp_path / "in.warc.gz"
    raws = make_input_warc(src_path)
    records, _ = read_input(src_path)
    notes, created = run_writer(tmp_path / "out", records, relpath="in.warc.gz", version="1.0")
    out = tmp_path / "out" / created[0]
    assert created == ["in.warc.gz"]
    assert decompressed(out) == b"".join(raws)  # no warcinfo added, nothing changed
    members = []
    data = out.read_bytes()
    while data:
        dec = zlib.decompressobj(31)
        members.append(dec.decompress(data))
        data = dec.unused_data
    assert members == raws  # one member per record
    assert b"Digest" not in members[2]  # warcio #161/#162: nothing added
    assert notes["files"][0]["warcinfo"] is False


def test_modified_record_gets_recomputed_digests_in_their_own_encoding(tmp_path, need_command):
    src_path = tmp_path / "in.warc.gz"
    make_input_warc(src_path)
    records, _ = read_input(src_path)
    records[1] = records[1].evolve(payload=b"<html>changed</html>")
    records[3] = records[3].evolve(payload=b"other text")
    records[2] = records[2].evolve(payload=b'{"a": 2}')
    _, created = run_writer(
        tmp_path / "out", records, relpath="in.warc.gz", version="1.0", compression="none"
    )
    data = (tmp_path / "out" / created[0]).read_bytes()
    new_block = records[1].http_head + b"<html>changed</html>"
    assert f"WARC-Block-Digest: {sha1_b32(new_block)}\r\n".encode() in data
    assert f"WARC-Payload-Digest: {sha1_b32(b'<html>changed</html>')}\r\n".encode() in data
    assert (
        b"WARC-Block-Digest: sha256:" + hashlib.sha256(b"other text").hexdigest().encode() in data
    )
    assert f"Content-Length: {len(new_block)}\r\n".encode() in data
    changed = sha1_b32(b'{"a": 2}')
    assert f"WARC-Block-Digest: {changed}\r\n".encode() in data  # changed: digested
    assert b"WARC-Record-ID: <urn:uuid:00000000-0000-4000-8000-000000000001>" in data  # id kept
    need_command("warcio")
    proc = warcio_check("-v", tmp_path / "out" / created[0])
    assert proc.returncode == 0, proc.stdout


def test_digests_recompute_fixes_wrong_and_adds_missing(tmp_path):
    src_path = tmp_path / "in.warc.gz"
    make_input_warc(src_path)
    records, _ = read_input(src_path)
    _, created = run_writer(
        tmp_path / "out",
        records,
        relpath="in.warc.gz",
        version="1.0",
        digests="recompute",
        compression="none",
    )
    data = (tmp_path / "out" / created[0]).read_bytes()
    added = sha1_b32(b'{"a": 1}')
    assert f"WARC-Block-Digest: {added}\r\n".encode() in data
    assert data.count(b"WARC-Block-Digest") == 4


def test_version_change_rebuilds_clueweb09_records(tmp_path, need):
    """A ClueWeb09 0.18 record (LF, bare warcinfo id, invalid date, TREC id) written as 1.1."""
    http = b"HTTP/1.1 200 OK\nContent-Type: text/html\n\n"
    body = b"<html>cw09</html>\n"
    raw_header = (
        b"WARC/0.18\nWARC-Type: response\nWARC-Date: 2009-03-65T08:43:19-0800\n"
        b"WARC-Record-ID: <urn:uuid:721f9a28-6b9a-44c1-bccd-8c7accb514cd>\n"
        b"WARC-Warcinfo-ID: d4360e52-06c3-41c8-bb13-62db3a622ca7\n"
        b"WARC-TREC-ID: clueweb09-en0040-54-00000\nWARC-Target-URI: http://example.com/\n"
        b"Content-Type: application/http;msgtype=response\n"
        b"Content-Length: " + str(len(http + body) + 2).encode() + b"\n\n"
    )
    headers = [
        tuple(x.strip() for x in line.split(b":", 1))
        for line in raw_header.strip().split(b"\n")[1:]
    ]
    rec = Record(
        kind=RecordKind.RESPONSE,
        url="http://example.com/",
        doc_id="clueweb09-en0040-54-00000",
        date_raw="2009-03-65T08:43:19-0800",
        http_head=http,
        payload=body,
        source=Provenance("00.warc.gz", 0, None, "warc"),
        extras={
            "warc": {
                "version": "0.18",
                "headers": headers,
                "raw_header": raw_header,
                "separator": b"\n\n",
                "cl_includes_separator": True,
                "line_ending": b"\n",
            }
        },
    )
    notes, created = run_writer(tmp_path / "out", [rec], relpath="00.warc.gz", compression="none")
    data = (tmp_path / "out" / created[0]).read_bytes()
    # an invalid date is no WARC 1.1 date: the date it means, the original kept (issue 19)
    assert data.startswith(
        b"WARC/1.1\r\nWARC-Type: response\r\nWARC-Date: 2009-03-06T16:43:19Z\r\n"
    )
    assert b"Crawlmill-Original-Date: 2009-03-65T08:43:19-0800\r\n" in data
    assert b"WARC-Warcinfo-ID: <urn:uuid:d4360e52-06c3-41c8-bb13-62db3a622ca7>\r\n" in data
    assert b"WARC-TREC-ID: clueweb09-en0040-54-00000\r\n" in data
    assert data.endswith(
        b"Content-Length: %d\r\n\r\n" % len(http + body) + http + body + b"\r\n\r\n"
    )
    assert b"Digest" not in data  # unmodified content: no digests added
    assert notes["warnings"]["date-replaced"] == 1  # counted per code
    assert notes["warnings"]["record-id-wrapped"] == 1
    # and 0.18 -> 0.18 in the ClueWeb09 convention is kept verbatim
    _, created = run_writer(
        tmp_path / "same", [rec], relpath="00.warc.gz", version="0.18", compression="none"
    )
    assert (tmp_path / "same" / created[0]).read_bytes() == raw_header + http + body + b"\n\n"
    # FastWARC reads the rebuilt 1.1 record strictly (the HTTP head is LF-only as stored)
    need("fastwarc")
    from fastwarc.warc import ArchiveIterator

    with open(tmp_path / "out" / "00.warc", "rb") as fh:
        got = [(str(r.record_type), r.reader.read()) for r in ArchiveIterator(fh, parse_http=False)]
    assert got == [("response", http + body)]


# -- WARC -> WARC end to end (ISSUE2 item 7 "Must show") -------------------------------------


def _warc_to_warc(src_path: Path, out: Path) -> tuple[Path, str]:
    """Convert with the engine (warc reader -> warc writer)."""
    from crawlmill.core.run.engine import run as engine_run
    from crawlmill.core.spec import PipelineSpec

    spec = PipelineSpec.model_validate(
        {
            "inputs": {"paths": [str(src_path)]},
            "reader": {"name": "warc"},
            "writer": {"name": "warc"},
            "output": str(out),
            "run": {"workers": 1, "progress": "never"},
        }
    )
    report = engine_run(spec, progress=io.StringIO())
    assert report.read == report.written and not report.damages
    assert len(report.outputs) == 1
    return out / report.outputs[0], "engine"


#: real gzip-per-record WARCs (1.0 and 1.1; chunked, revisits, wget, wpull, Common Crawl,
#: gzip FEXTRA) whose digests ``warcio check`` accepts.
E2E_SAMPLES = [
    "webrecorder-warcio/test/data/example.warc.gz",
    "webrecorder-warcio/test/data/post-test.warc.gz",
    "webrecorder-pywb/sample_archive/warcs/iana.warc.gz",
    "webrecorder-pywb/sample_archive/warcs/example-wpull.warc.gz",
    "webrecorder-pywb/sample_archive/warcs/example-wget-1-14.warc.gz",
    "ukwa-webarchive-discovery/warc-indexer/src/test/resources/gov.uk-revisit-warcs/"
    "BL-20140325122341434-00000-32090~opera~8443.warc.gz",
    "chatnoir-eu-chatnoir-resiliparse/tests/data/warcfile.warc.gz",
    "iipc-jwarc/test-resources/org/netpreserve/jwarc/cc.warc.gz",
]


def _members_of(path: Path) -> list[bytes]:
    data = path.read_bytes()
    out = []
    while data:
        dec = zlib.decompressobj(31)
        out.append(dec.decompress(data))
        data = dec.unused_data
    return out


@pytest.mark.oracle
def test_warc_to_warc_keeps_every_record_byte_identical(tmp_path, need, need_command, samples):
    need("warcio")
    need("fastwarc")
    need_command("warcio")  # the oracle rule; warcio_check runs its entry in-process
    inputs = [tmp_path / "gen.warc.gz"]
    make_input_warc(inputs[0], b"1.1")
    for rel in E2E_SAMPLES:
        if not (samples / rel).exists():
            pytest.fail(f"sample {rel} is missing")
        inputs.append(samples / rel)
    for i, src_path in enumerate(inputs):
        out_path, how = _warc_to_warc(src_path, tmp_path / f"out{i}")
        assert _members_of(out_path) == _members_of(src_path), (src_path, how)
        # one gzip member per record in, each copied: the same file, compressed bytes too
        assert out_path.read_bytes() == src_path.read_bytes(), src_path
        ours = read_with_warcio(out_path)
        theirs = read_with_warcio(src_path)
        assert [(r[0], r[1], r[2]) for r in ours] == [(r[0], r[1], r[2]) for r in theirs]
        fw = read_with_fastwarc(out_path, quirks=False)
        assert [(r[0], r[2]) for r in fw] == [
            (r[0], r[2]) for r in read_with_fastwarc(src_path, quirks=False)
        ]
        assert len(fw) == len(ours)
        proc = warcio_check(out_path)
        assert proc.returncode == 0, proc.stdout + proc.stderr


def test_unmodified_gzip_records_keep_their_input_members(tmp_path):
    src_path = tmp_path / "in.warc.gz"
    make_input_warc(src_path, b"1.0")
    records, _ = read_input(src_path)
    notes, created = run_writer(tmp_path / "out", records, relpath="in.warc.gz")
    assert (tmp_path / "out" / created[0]).read_bytes() == src_path.read_bytes()
    assert notes["files"][0]["copied_members"] == len(records)


def test_members_that_do_not_hold_the_record_are_compressed_anew(tmp_path):
    import dataclasses

    src_path = tmp_path / "in.warc.gz"
    raws = make_input_warc(src_path, b"1.0")
    records, _ = read_input(src_path)
    # records 1 and 2 point at each other's member (unmodified, so a copy is tried)
    a, b = records[1].source, records[2].source
    records[1] = dataclasses.replace(records[1], source=b)
    records[2] = dataclasses.replace(records[2], source=a)
    assert not records[1].modified
    notes, created = run_writer(tmp_path / "out", records, relpath="in.warc.gz")
    assert _members_of(tmp_path / "out" / created[0]) == raws
    assert notes["files"][0]["copied_members"] == len(records) - 2
    # a changed record, reuse switched off, or zstd output: nothing is copied
    changed = [records[0], records[3].evolve(url="http://example.com/changed")]
    notes, _ = run_writer(tmp_path / "o2", changed, relpath="in.warc.gz")
    assert notes["files"][0]["copied_members"] == 1
    notes, created = run_writer(tmp_path / "o3", records, relpath="in.warc.gz", reuse_members=False)
    assert notes["files"][0]["copied_members"] == 0
    assert _members_of(tmp_path / "o3" / created[0]) == raws
    notes, _ = run_writer(tmp_path / "o4", records, relpath="in.warc.gz", compression="zstd")
    assert notes["files"][0]["copied_members"] == 0


def test_explicit_version_rewrites_only_the_version_line(tmp_path):
    src_path = tmp_path / "in.warc.gz"
    raws = make_input_warc(src_path, b"1.0")
    records, _ = read_input(src_path)
    _, created = run_writer(
        tmp_path / "out", records, relpath="in.warc.gz", version="1.1", compression="none"
    )
    want = b"".join(raw.replace(b"WARC/1.0\r\n", b"WARC/1.1\r\n", 1) for raw in raws)
    assert (tmp_path / "out" / created[0]).read_bytes() == want


def test_output_names_drop_every_format_suffix():
    from crawlmill.plugins.writers.layout_plain import split_name

    assert split_name("a/b/segment1.warc.wet.gz") == ("a/b/", "segment1")
    assert split_name("IAH-1.arc.gz") == ("", "IAH-1")
    assert split_name("x/ClueWeb09_English_Sample") == ("x/", "ClueWeb09_English_Sample")


CW09 = "sqs-freequery/test/dumps/ClueWeb09_English_Sample"


def _read_with_plugin(path: Path) -> list[Record]:
    return read_input(path)[0]


def test_real_clueweb09_sample_018_copy_is_byte_identical(tmp_path, samples):
    path = samples / CW09
    records = _read_with_plugin(path)
    assert len(records) == 101  # SOURCES.md / FastWARC quirks mode
    _, created = run_writer(
        tmp_path / "out", records, relpath=path.name, version="0.18", compression="none"
    )
    assert (tmp_path / "out" / created[0]).read_bytes() == path.read_bytes()


@pytest.mark.oracle
def test_real_clueweb09_sample_as_warc_11_is_read_whole_by_warcio(
    tmp_path, samples, need, need_command
):
    need("warcio")
    need("fastwarc")
    path = samples / CW09
    records = _read_with_plugin(path)
    notes, created = run_writer(tmp_path / "out", records, relpath=path.name)
    rows = read_with_warcio(tmp_path / "out" / created[0])
    assert len(rows) == 101  # warcio reads 1 record of the original file
    trec = [r[3].rec_headers.get_header("WARC-TREC-ID") for r in rows[1:]]
    assert trec == [r.doc_id for r in records[1:]] and trec[0] == "clueweb09-en0040-54-00000"
    assert [r[2] for r in rows[1:]] == [r.payload for r in records[1:]]
    # a valid 1.1 date (day 67 of 2009 = March 8), the original kept beside it (issue 19)
    assert rows[1][3].rec_headers.get_header("WARC-Date") == "2009-03-08T22:35:34Z"
    original = rows[1][3].rec_headers.get_header("Crawlmill-Original-Date")
    assert original == "2009-03-67T15:35:34-0700"
    assert rows[1][3].rec_headers.get_header("WARC-Identified-Payload-Type") is None  # was empty
    assert notes["warnings"]
    from fastwarc.warc import ArchiveIterator

    with open(tmp_path / "out" / created[0], "rb") as fh:
        assert sum(1 for _ in ArchiveIterator(fh, parse_http=False)) == 101
    need_command("warcio")
    proc = warcio_check(tmp_path / "out" / created[0])
    assert proc.returncode == 0, proc.stdout


@pytest.mark.oracle
def test_cdxj_of_a_copied_real_warc_matches_cdxj_indexer(tmp_path, samples, need_command):
    need_command("cdxj-indexer")
    path = samples / "webrecorder-pywb/sample_archive/warcs/iana.warc.gz"
    records = _read_with_plugin(path)
    _, created = run_writer(tmp_path / "out", records, relpath=path.name, cdxj=True)
    ours = (tmp_path / "out" / (created[0] + ".cdxj")).read_text().splitlines()
    theirs = _cdxj_indexer_lines(tmp_path / "out" / created[0])
    assert len(ours) == len(theirs) > 100
    assert [_fields(a) for a in ours] == [_fields(b) for b in theirs]


ARC_SAMPLES = [
    "kris-sigur-jwat/jwat-arc/src/test/resources/IAH-20080430204825-00000-blackbook.arc.gz",
    "webrecorder-warcio/test/data/example.arc.gz",
    "commoncrawl-arc2warc-conversion/test/resources/arc/crawl-002_2009_09_17_12_1253241189984_12-4827319.arc.gz",
]


@pytest.mark.oracle
@pytest.mark.parametrize("rel", ARC_SAMPLES)
def test_real_arc_to_warc_keeps_url_date_ip_type_and_payload(
    tmp_path, samples, rel, need, need_command
):
    """ARC -> WARC -> records (read by FastWARC) equals reading the ARC (our ARC reader)."""
    need("fastwarc")
    from crawlmill.plugins.readers.arc import ArcReader
    from fastwarc.warc import ArchiveIterator

    path = samples / rel
    if not path.exists():
        pytest.fail(f"sample {rel} is missing")
    records = list(open_reader(path, ArcReader))
    _, created = run_writer(tmp_path / "out", records, relpath=path.name)
    out = tmp_path / "out" / created[0]
    with open(out, "rb") as fh:
        rows = [
            (
                str(r.record_type),
                r.headers.get_bytes(b"WARC-Target-URI"),
                r.headers.get("WARC-Date"),
                r.headers.get("WARC-IP-Address"),
                r.headers.get("Content-Type"),
                r.reader.read(),
            )
            for r in ArchiveIterator(fh, parse_http=False)
        ]
    assert len(rows) == len(records) + 1 and rows[0][0] == "warcinfo"
    for row, rec in zip(rows[1:], records, strict=True):
        rtype, url, date, ip, ctype, block = row
        assert url == rec.url_bytes
        assert date == rec.date.strftime("%Y-%m-%dT%H:%M:%SZ")
        assert ip == (rec.ip if rec.ip not in (None, "0.0.0.0") else None)
        if rec.extras.get("arc", {}).get("filedesc"):
            assert (rtype, ctype) == ("metadata", "application/arc")
            # the ARC reader's metadata record holds the whole ARC header record
            assert block == rec.payload
            assert block.startswith(rec.extras["arc"]["header_line"] + b"\n")
        elif rec.http_head is not None:
            assert (rtype, ctype) == ("response", "application/http;msgtype=response")
            assert block == rec.http_head + rec.payload
        else:
            assert (rtype, ctype) == ("resource", rec.content_type)
            assert block == rec.payload
    need_command("warcio")
    proc = warcio_check(out)
    assert proc.returncode == 0, proc.stdout


def test_finalize_delegates_to_the_layout(monkeypatch):
    from crawlmill.plugins.writers.layouts import Layout

    calls = []

    class Recording(Layout):
        name = "recording"

        @classmethod
        def finalize(cls, root, options, tasks, create):
            calls.append((root, options.layout, tasks))

    monkeypatch.setitem(LAYOUTS, "recording", Recording)
    options = WarcWriter.Options(layout="recording")
    tasks = [{"input": "a.arc", "index": 0, "outputs": [], "notes": {}}]
    WarcWriter.finalize("/out", options, tasks, create=lambda p: None)
    assert calls == [("/out", "recording", tasks)]


def test_changed_fields_replace_their_headers_and_nothing_else(tmp_path):
    src_path = tmp_path / "in.warc.gz"
    raws = make_input_warc(src_path)
    records, _ = read_input(src_path)
    records[1] = records[1].evolve(url="http://example.org/moved")  # content change
    records[2] = records[2].evolve(doc_id="doc-2")  # not a content change
    _, created = run_writer(
        tmp_path / "out", records, relpath="in.warc.gz", version="1.0", compression="none"
    )
    data = (tmp_path / "out" / created[0]).read_bytes()
    out = [b"WARC/1.0\r\n" + part for part in data.split(b"WARC/1.0\r\n")[1:]]
    assert out[0] == raws[0] and out[3] == raws[3]
    assert out[1] == raws[1].replace(b"http://example.com/caf\xc3\xa9", b"http://example.org/moved")
    # a new doc id is written; the block is unchanged so no digest is added
    assert out[2] == raws[2].replace(
        b"Content-Type: application/json", b"WARC-TREC-ID: doc-2\r\nContent-Type: application/json"
    )


def test_digests_none_drops_only_stale_digests_of_changed_records(tmp_path):
    src_path = tmp_path / "in.warc.gz"
    raws = make_input_warc(src_path)
    records, _ = read_input(src_path)
    records[1] = records[1].evolve(payload=b"<html>new</html>")  # block and payload change
    records[3] = records[3].evolve(url="http://example.com/moved")  # block unchanged
    _, created = run_writer(
        tmp_path / "out",
        records,
        relpath="in.warc.gz",
        version="1.0",
        compression="none",
        digests="none",
    )
    data = (tmp_path / "out" / created[0]).read_bytes()
    out = [b"WARC/1.0\r\n" + part for part in data.split(b"WARC/1.0\r\n")[1:]]
    assert b"Digest" not in out[1]  # both stale: removed, nothing computed
    assert out[3] == raws[3].replace(b"http://example.com/r.txt", b"http://example.com/moved")


def test_changed_revisit_keeps_the_payload_digest_of_the_original(tmp_path):
    head = b"HTTP/1.1 304 Not Modified\r\n\r\n"
    original = "sha1:" + "A" * 32
    raw = _warc_record(
        b"1.0",
        [
            (b"WARC-Type", b"revisit"),
            (b"WARC-Record-ID", b"<urn:uuid:00000000-0000-4000-8000-000000000009>"),
            (b"WARC-Date", b"2020-01-01T00:00:00Z"),
            (b"WARC-Target-URI", b"http://example.com/"),
            (b"WARC-Payload-Digest", original.encode()),
            (b"Content-Type", b"application/http; msgtype=response"),
        ],
        head,
    )
    src_path = tmp_path / "in.warc.gz"
    src_path.write_bytes(gzip.compress(raw, mtime=0))
    records, _ = read_input(src_path)
    records[0] = records[0].evolve(url="http://example.com/other")
    _, created = run_writer(
        tmp_path / "out", records, relpath="in.warc.gz", version="1.0", compression="none"
    )
    data = (tmp_path / "out" / created[0]).read_bytes()
    assert f"WARC-Payload-Digest: {original}\r\n".encode() in data
    assert f"WARC-Block-Digest: {sha1_b32(head)}\r\n".encode() in data


@pytest.mark.oracle
@pytest.mark.parametrize(
    ("rel", "reader"),
    [
        (
            "ukwa-webarchive-discovery/warc-indexer/src/test/resources/compression/transfer_compression_gzip.warc.gz",
            "warc",
        ),
        ("webrecorder-warcio/test/data/example-space-in-url.arc", "arc"),
        ("webrecorder-pywb/sample_archive/warcs/example-url-agnostic-revisit.warc.gz", "warc"),
    ],
)
def test_cdxj_matches_cdxj_indexer_on_bracketed_and_spaced_urls(
    tmp_path, samples, rel, reader, need_command
):
    need_command("cdxj-indexer")
    path = samples / rel
    if not path.exists():
        pytest.fail(f"sample {rel} is missing")
    if reader == "warc":
        records = _read_with_plugin(path)
    else:
        from crawlmill.plugins.readers.arc import ArcReader

        records = list(open_reader(path, ArcReader))
    _, created = run_writer(tmp_path / "out", records, relpath=path.name, cdxj=True)
    ours = (tmp_path / "out" / (created[0] + ".cdxj")).read_text().splitlines()
    theirs = _cdxj_indexer_lines(tmp_path / "out" / created[0])
    assert len(ours) == len(theirs) > 0
    assert [_fields(a) for a in ours] == [_fields(b) for b in theirs]


# -- issue 7.1: no source-format knowledge in the writer ------------------------------------

#: source formats (present and planned) the WARC writer must not know by name.
OTHER_FORMATS = ("arc", "nutch", "ntcir", "cc", "filedesc", "hadoop", "sequencefile")


def test_the_warc_writer_module_names_no_other_format() -> None:
    source = Path(warc_writer.__file__).read_text(encoding="utf-8")
    named = sorted(
        {
            m.group(0)
            for m in re.finditer(r"[A-Za-z_]+", source)
            if m.group(0).lower() in OTHER_FORMATS
        }
    )
    assert named == [], f"the WARC writer names other formats: {named}"
    imports = [
        node.module or ""
        for node in ast.walk(ast.parse(source))
        if isinstance(node, ast.ImportFrom)
    ] + [
        alias.name
        for node in ast.walk(ast.parse(source))
        if isinstance(node, ast.Import)
        for alias in node.names
    ]
    assert not [m for m in imports if "readers" in m or m.endswith(".arc")], imports


@pytest.mark.oracle
def test_the_writer_writes_any_reader_mapping_without_knowing_the_format(tmp_path, need) -> None:
    """A made-up format's file description mapped like the ARC filedesc: same WARC record."""
    info = Record(
        kind=RecordKind.METADATA,
        url="xyz://crawl-1",
        date=D,
        date_raw="20080430204825",
        payload=b"XYZ 1\ncrawl description\n",
        content_type="application/x-xyz",
        source=Provenance("in.xyz", 0, 40, "xyz"),
        extras={"xyz": {"anything": 1}, "neutral": {"describes_file": "description"}},
    )
    cut = Record(
        kind=RecordKind.RESOURCE,
        url="http://example.com/cut",
        date=D,
        payload=b"partial",
        content_type="text/plain",
        source=Provenance("in.xyz", 40, 20, "xyz"),
        extras={"xyz": {}, "neutral": {"truncated": True}},
    )
    notes, created = run_writer(tmp_path / "out", [info, cut], relpath="crawl/in.xyz")
    path = tmp_path / "out" / created[0]
    ArchiveIterator = need("warcio.archiveiterator").ArchiveIterator

    with gzip.open(path, "rb") as fh:
        recs = [(r.rec_type, r.rec_headers, r.content_stream().read()) for r in ArchiveIterator(fh)]
    assert [r[0] for r in recs] == ["warcinfo", "metadata", "resource"]
    winfo, meta, res = recs
    assert b"converted from XYZ file in.xyz" in winfo[2]
    assert meta[1].get_header("Content-Type") == "application/x-xyz"
    assert meta[2] == b"XYZ 1\ncrawl description\n"
    info_id = winfo[1].get_header("WARC-Record-ID")
    assert meta[1].get_header("WARC-Concurrent-To") == info_id
    assert meta[1].get_header("WARC-Warcinfo-ID") == info_id
    assert res[1].get_header("WARC-Truncated") == "length"
    assert meta[1].get_header("WARC-Truncated") is None
    assert notes["files"][0]["documents"] == 1  # the description is not a document
