"""Issue 6 item 12 (member part) through the CLI: a 1 MB gzip member that inflates to 1 GiB
between two good records is inflated only up to the member bound (one record's size), the
quarantine keeps its compressed bytes (not the inflated ones) and memory stays within the
bound plus a constant; the records around it are delivered."""

from __future__ import annotations

import gzip
import json
import struct
import time
import tracemalloc
import zlib
from pathlib import Path

import pytest
from crawlmill.core.commands.cli import main

MIB = 1 << 20


def deflated_zeros(mib: int) -> bytes:
    """A valid gzip member of ``mib`` MiB of zeros (about 1 KB per MiB), built without
    deflating them all: after a full flush, each further MiB deflates to the same bytes."""
    zeros = bytes(MIB)
    c = zlib.compressobj(9, zlib.DEFLATED, 31)
    first = c.compress(zeros) + c.flush(zlib.Z_FULL_FLUSH)
    again = c.compress(zeros) + c.flush(zlib.Z_FULL_FLUSH)
    assert c.compress(zeros) + c.flush(zlib.Z_FULL_FLUSH) == again
    end = zlib.compressobj(9, zlib.DEFLATED, -15).flush()  # an empty final block
    crc = 0
    for _ in range(mib):
        crc = zlib.crc32(zeros, crc)
    return first + again * (mib - 1) + end + struct.pack("<II", crc, (mib * MIB) & 0xFFFFFFFF)


def warc_record(i: int) -> bytes:
    block = b"hello %d\r\n" % i
    return (
        b"WARC/1.0\r\nWARC-Type: resource\r\n"
        b"WARC-Record-ID: <urn:uuid:00000000-0000-4000-8000-00000000000%d>\r\n"
        b"WARC-Date: 2020-01-01T00:00:00Z\r\nWARC-Target-URI: http://example.com/%d\r\n"
        b"Content-Type: text/plain\r\nContent-Length: %d\r\n\r\n"
        % (i, i, len(block))
        + block
        + b"\r\n\r\n"
    )


def test_deflated_zeros_is_a_valid_member():
    member = deflated_zeros(3)
    assert gzip.decompress(member) == bytes(3 * MIB)


def zeros_frame(kind: str, mib: int) -> bytes:
    """A zstd or LZ4 frame of ``mib`` MiB of zeros, compressed a MiB at a time."""
    if kind == "zstd":
        import zstandard

        c = zstandard.ZstdCompressor().compressobj()
    else:
        import lz4.frame

        c = lz4.frame.LZ4FrameCompressor()
        head = c.begin()
    zeros = bytes(MIB)
    parts = [c.compress(zeros) for _ in range(mib)]
    return (head if kind == "lz4" else b"") + b"".join(parts) + c.flush()


def compress_record(kind: str, data: bytes) -> bytes:
    if kind == "gzip":
        return gzip.compress(data, mtime=0)
    if kind == "zstd":
        import zstandard

        return zstandard.ZstdCompressor().compress(data)
    import lz4.frame

    return lz4.frame.compress(data)


@pytest.mark.parametrize(("kind", "suffix"), [("gzip", "gz"), ("zstd", "zst"), ("lz4", "lz4")])
def test_bomb_between_good_records_is_bounded(tmp_path: Path, capsys, kind, suffix):
    bomb = deflated_zeros(1024) if kind == "gzip" else zeros_frame(kind, 1024)  # 1 GiB
    assert len(bomb) < 5 * MIB
    good = [compress_record(kind, warc_record(i)) for i in range(2)]
    src = tmp_path / f"bomb.warc.{suffix}"
    src.write_bytes(good[0] + bomb + good[1])
    out = tmp_path / "out"
    max_record = 4 * MIB  # the member bound is one record: 4 MiB + 1 MiB header + 1 MiB
    config = tmp_path / "pipeline.yaml"
    config.write_text(
        f"inputs: {src}\nwriter: warc\noutput: {out}\n"
        f"run: {{workers: 1, max_record_bytes: {max_record}}}\n"
    )
    tracemalloc.start()
    began = time.monotonic()
    try:
        code = main(["run", str(config)])
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    elapsed = time.monotonic() - began
    err = capsys.readouterr().err
    assert code == 3, err  # damage, reported
    assert f"{src} at byte {len(good[0])}" in err  # the bomb's compressed offset
    # memory: the bound (6 MiB) plus an 8 MiB piece plus a constant, not the 1 GiB
    assert peak < 48 * MIB, peak
    assert elapsed < 60
    (result,) = [p for p in out.glob("*.warc*") if p.is_file()]
    assert gzip.decompress(result.read_bytes()) == warc_record(0) + warc_record(1)
    quarantine = out / ".crawlmill" / "quarantine"
    data = b"".join(p.read_bytes() for p in quarantine.glob("*.bin"))
    assert data == bomb  # the compressed member, not a byte of the inflated zeros
    (entry,) = [
        json.loads(line) for p in quarantine.glob("*.jsonl") for line in p.read_text().splitlines()
    ]
    assert entry["offset"] == len(good[0]) and "inflates beyond" in entry["reason"]


def test_bomb_as_the_first_member_stops_at_the_stream_bound(tmp_path: Path, capsys):
    """The first member may be a whole-file stream (junk inside it, then good records), so it
    is neither held back nor cut at the member bound: it is inflated up to the stream bound
    (max_decompressed_bytes, lowered here to 64 MiB), its zeros skipped as damage with memory
    at the skip bound plus a piece, nothing of them quarantined beyond the member bound, and
    the records after it are delivered."""
    bomb = deflated_zeros(1024)
    good = [gzip.compress(warc_record(i), mtime=0) for i in range(2)]
    src = tmp_path / "first.warc.gz"
    src.write_bytes(bomb + good[0] + good[1])
    out = tmp_path / "out"
    config = tmp_path / "pipeline.yaml"
    config.write_text(  # named reader: detection looks at the (zero) first bytes only
        f"inputs: {src}\nreader: warc\nwriter: warc\noutput: {out}\n"
        f"run: {{workers: 1, max_record_bytes: {4 * MIB}, max_decompressed_bytes: {64 * MIB}}}\n"
    )
    tracemalloc.start()
    began = time.monotonic()
    try:
        code = main(["run", str(config)])
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    err = capsys.readouterr().err
    assert code == 3, err
    assert "inflates beyond max_decompressed_bytes" in err
    assert time.monotonic() - began < 60
    assert peak < 48 * MIB, peak  # the skip bound (5 MiB) plus pieces, not 64 MiB or 1 GiB
    (result,) = [p for p in out.glob("*.warc*") if p.is_file()]
    assert gzip.decompress(result.read_bytes()) == warc_record(0) + warc_record(1)
    report = json.loads((out / ".crawlmill" / "report.json").read_text())
    assert report["damages"] and all(d["offset"] == 0 for d in report["damages"])
    quarantined = sum(p.stat().st_size for p in (out / ".crawlmill" / "quarantine").glob("*.bin"))
    assert quarantined <= 6 * MIB  # at most the member bound of compressed bytes, not 1 GiB


def test_huge_header_line_inside_a_whole_file_gzip_costs_only_its_record(tmp_path: Path, capsys):
    """Issue 6 item 12 (stream part): a 64 MiB header line (deflating about 1000:1) inside a
    whole-file gzip, bounds lowered: its record is damage, every record after it delivered,
    memory bounded and nothing of the 64 MiB quarantined."""
    recs = [warc_record(i) for i in range(4)]
    nl = recs[1].index(b"\r\n") + 2
    huge = recs[1][:nl] + b"X-Filler: " + b"a" * (64 * MIB) + b"\r\n" + recs[1][nl:]
    c = zlib.compressobj(6, zlib.DEFLATED, 31)
    data = c.compress(recs[0] + huge + recs[2] + recs[3]) + c.flush()
    src = tmp_path / "whole.warc.gz"
    src.write_bytes(data)
    out = tmp_path / "out"
    config = tmp_path / "pipeline.yaml"
    config.write_text(
        f"inputs: {src}\nwriter: warc\noutput: {out}\n"
        f"run: {{workers: 1, max_record_bytes: {4 * MIB}, max_decompressed_bytes: {128 * MIB}}}\n"
    )
    tracemalloc.start()
    try:
        code = main(["run", str(config)])
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    err = capsys.readouterr().err
    assert code == 3, err
    report = json.loads((out / ".crawlmill" / "report.json").read_text())
    # reported in parts (memory), it is one damaged record: one read, one quarantined
    assert len(report["damages"]) > 1
    assert (report["read"], report["quarantined"]) == (4, 1)
    assert "read 4 = written 3 + dropped 0 + quarantined 1" in err
    assert peak < 48 * MIB, peak
    (result,) = [p for p in out.glob("*.warc*") if p.is_file()]
    assert gzip.decompress(result.read_bytes()) == recs[0] + recs[2] + recs[3]
    assert report["damages"] and all(d["offset"] == 0 for d in report["damages"])
    quarantined = sum(p.stat().st_size for p in (out / ".crawlmill" / "quarantine").glob("*.bin"))
    assert quarantined <= 6 * MIB


def test_a_huge_header_line_quarantined_in_parts_is_one_damaged_record(tmp_path: Path, capsys):
    """Issue 25: "the accounting counts a record quarantined in two pieces as two reads". A
    16 MiB header line in a plain WARC, bounds lowered (4 MiB records): its range is
    quarantined in parts (so memory stays at the bound), every byte of it kept, and counted
    as one read record. The line is no longer than taking several parts needs."""
    recs = [warc_record(i) for i in range(4)]
    nl = recs[1].index(b"\r\n") + 2
    huge = recs[1][:nl] + b"X-Filler: " + b"a" * (16 * MIB) + b"\r\n" + recs[1][nl:]
    src = tmp_path / "plain.warc"
    src.write_bytes(recs[0] + huge + recs[2] + recs[3])
    out = tmp_path / "out"
    config = tmp_path / "pipeline.yaml"
    config.write_text(
        f"inputs: {src}\nwriter: warc\noutput: {out}\n"
        f"run: {{workers: 1, max_record_bytes: {4 * MIB}, max_decompressed_bytes: {128 * MIB}}}\n"
    )
    code = main(["run", str(config)])
    err = capsys.readouterr().err
    assert code == 3, err
    report = json.loads((out / ".crawlmill" / "report.json").read_text())
    parts = report["damages"]
    assert len(parts) > 1
    assert parts[0]["offset"] == len(recs[0])
    assert sum(d["length"] for d in parts) == len(huge)  # the parts cover exactly the record
    assert (report["read"], report["quarantined"]) == (4, 1)
    assert "read 4 = written 3 + dropped 0 + quarantined 1" in err
