"""Record serialisation and per-record compression (formats.warcwriter)."""

from __future__ import annotations

import gzip
import io
import zlib
from datetime import UTC, datetime, timedelta, timezone

import pytest
from crawlmill.formats.codecs import member_writer
from crawlmill.formats.warc.writer import (
    RecordCompressor,
    WarcFileWriter,
    format_warc_date,
    framing_for,
    serialize_record,
)

HEADERS = [(b"WARC-Type", b"resource"), (b"WARC-Target-URI", b"http://example.com/caf\xc3\xa9")]
BLOCK = b"line one\nline two\r\n"


def _members(data: bytes) -> list[bytes]:
    """Split a multi-member gzip file with zlib, one decompressed member per item."""
    out = []
    while data:
        dec = zlib.decompressobj(31)
        out.append(dec.decompress(data) + dec.flush())
        assert dec.eof
        data = dec.unused_data
    return out


@pytest.mark.parametrize("version", ["1.1", "1.0"])
def test_1x_framing_is_crlf_and_content_length_counts_the_block(version):
    data = serialize_record(version, HEADERS + [(b"Content-Length", b"999")], BLOCK)
    head, _, rest = data.partition(b"\r\n\r\n")
    lines = head.split(b"\r\n")
    assert lines[0] == f"WARC/{version}".encode()
    assert lines[-1] == f"Content-Length: {len(BLOCK)}".encode()  # recomputed, last
    assert b"Content-Length: 999" not in data
    assert rest == BLOCK + b"\r\n\r\n"
    assert b"\n" not in head.replace(b"\r\n", b"")


def test_018_framing_follows_clueweb09():
    data = serialize_record("0.18", HEADERS, BLOCK)
    assert data.startswith(b"WARC/0.18\nWARC-Type: resource\n")
    assert b"\r\n" not in data[: data.index(b"\n\n")]
    head, _, rest = data.partition(b"\n\n")
    assert head.endswith(f"Content-Length: {len(BLOCK) + 2}".encode())
    assert rest == BLOCK + b"\n\n"


def test_header_values_with_line_breaks_stay_on_one_line():
    data = serialize_record("1.1", [(b"X-Note", b"a\r\nb\nc")], b"")
    assert b"X-Note: a b c\r\n" in data


def test_unknown_version_is_refused():
    for version in ("0.16", "2.0"):
        with pytest.raises(ValueError, match=version):
            framing_for(version)


def test_warc_dates():
    d = datetime(2008, 4, 30, 20, 48, 25, 123400, tzinfo=UTC)
    assert format_warc_date(d, "1.0") == b"2008-04-30T20:48:25Z"
    assert format_warc_date(d, "1.1") == b"2008-04-30T20:48:25Z"
    assert format_warc_date(d, "1.1", keep_fraction=True) == b"2008-04-30T20:48:25.1234Z"
    assert format_warc_date(d, "1.0", keep_fraction=True) == b"2008-04-30T20:48:25Z"
    local = datetime(2009, 1, 1, 1, 0, 0, tzinfo=timezone(timedelta(hours=2)))
    assert format_warc_date(local, "1.1") == b"2008-12-31T23:00:00Z"


@pytest.mark.parametrize("level", [1, 6, 9])
def test_gzip_each_record_is_its_own_member(level):
    out = io.BytesIO()
    w = WarcFileWriter(out, "gzip", level)
    records = [serialize_record("1.1", HEADERS, BLOCK * i) for i in range(1, 5)]
    positions = [w.write_raw(r) for r in records]
    data = out.getvalue()
    assert _members(data) == records
    for (offset, length), record in zip(positions, records, strict=True):
        assert zlib.decompress(data[offset : offset + length], 31) == record
    assert w.position == len(data) and w.records == 4


def test_gzip_zlib_fallback_gives_the_same_bytes_when_decompressed(monkeypatch):
    monkeypatch.setattr(member_writer, "_isal_zlib", None)
    record = serialize_record("1.0", HEADERS, BLOCK)
    comp = RecordCompressor("gzip", 9)
    assert comp.backend == "zlib"
    assert zlib.decompress(comp.compress(record), 31) == record


@pytest.mark.parametrize("level", [1, 6, 9])
def test_zlib_backend_gives_zlibs_own_bytes(level):
    record = serialize_record("1.0", HEADERS, BLOCK * 5)
    comp = RecordCompressor("gzip", level, backend="zlib")
    assert comp.backend == "zlib"
    assert comp.compress(record) == zlib.compress(record, level, wbits=31)
    out = io.BytesIO()
    w = WarcFileWriter(out, "gzip", level, background=True, backend="zlib")
    for _ in range(3):
        w.submit(record)
    w.close()
    assert out.getvalue() == zlib.compress(record, level, wbits=31) * 3


def test_unknown_or_missing_gzip_backend_is_refused(monkeypatch):
    with pytest.raises(ValueError, match="unknown gzip backend"):
        RecordCompressor("gzip", 6, backend="pigz")
    monkeypatch.setattr(member_writer, "_isal_zlib", None)
    with pytest.raises(ValueError, match="isal package is not installed"):
        RecordCompressor("gzip", 6, backend="isal")
    assert RecordCompressor("gzip", 6, backend="auto").backend == "zlib"


def test_reused_member_is_copied_only_when_it_holds_exactly_the_record():
    from crawlmill.formats.codecs.compression import inflates_to
    from crawlmill.formats.warc.writer import ReusedMember

    record = serialize_record("1.0", HEADERS, BLOCK * 3)
    other = serialize_record("1.0", HEADERS, BLOCK * 4)
    member = gzip.compress(record, mtime=7)  # another gzip writer, its own header bytes
    assert inflates_to(member, record)
    assert not inflates_to(member, other)
    assert not inflates_to(member + gzip.compress(b"x"), record)  # two members
    assert not inflates_to(member[:-3], record)  # truncated
    assert not inflates_to(b"garbage" + member, record)
    out = io.BytesIO()
    w = WarcFileWriter(out, "gzip", background=True, backend="zlib")
    w.submit(ReusedMember(member, record))
    w.submit(ReusedMember(member, other))  # wrong member: compressed anew
    w.close()
    assert out.getvalue() == member + zlib.compress(other, 6, wbits=31)
    assert w.reused == 1 and w.records == 2
    zout = io.BytesIO()
    z = WarcFileWriter(zout, "zstd")
    z.submit(ReusedMember(member, record))  # never a gzip member in a zstd file
    assert z.reused == 0 and not zout.getvalue().startswith(b"\x1f\x8b")


def test_zstd_each_record_is_its_own_frame():
    zstandard = pytest.importorskip("zstandard")
    out = io.BytesIO()
    w = WarcFileWriter(out, "zstd", 19)
    records = [serialize_record("1.1", HEADERS, BLOCK * i) for i in range(1, 4)]
    positions = [w.write_raw(r) for r in records]
    data = out.getvalue()
    dec = zstandard.ZstdDecompressor()
    for (offset, length), record in zip(positions, records, strict=True):
        assert dec.decompress(data[offset : offset + length]) == record
    joined = dec.stream_reader(io.BytesIO(data), read_across_frames=True).read()
    assert joined == b"".join(records)


def test_uncompressed_is_the_plain_concatenation():
    out = io.BytesIO()
    w = WarcFileWriter(out, "none")
    a, b = serialize_record("1.1", HEADERS, b"a"), serialize_record("1.1", HEADERS, b"b")
    w.write_raw(a)
    assert w.write_raw(b) == (len(a), len(b))
    assert out.getvalue() == a + b


@pytest.mark.parametrize(
    ("compression", "level"), [("gzip", 0), ("gzip", 10), ("zstd", 23), ("lz4", None)]
)
def test_bad_compression_settings_are_refused(compression, level):
    with pytest.raises(ValueError):
        RecordCompressor(compression, level)


def test_compression_is_deterministic():
    record = serialize_record("1.1", HEADERS, BLOCK * 100)
    for kind, backend in (("gzip", "zlib"), ("zstd", "auto")):
        first = RecordCompressor(kind, backend=backend).compress(record)
        assert RecordCompressor(kind, backend=backend).compress(record) == first
