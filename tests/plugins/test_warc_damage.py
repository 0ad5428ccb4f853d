"""Issue 6 through the command line, for the WARC reader: length rule (5), truncated last record
(6), damage in the first bytes (7), garbage between records (8), a header cut by the next record
(9), a huge header line (12), one offset space for damage (15).

Each converts a damaged file WARC -> WARC with ``crawlmill convert`` (in-process) and checks the
exit code, the records warcio reads back from the output, and report.json / the quarantine.
"""

from __future__ import annotations

import json
import random
import re
import tracemalloc
from pathlib import Path

import pytest
from crawlmill.core import InputFile, Limits, ReadContext
from crawlmill.core.commands.cli import main
from crawlmill.plugins.readers.warc import WarcReader

from tests import helpers
from tests.helpers import gz

_WARCIO = None


@pytest.fixture(autouse=True)
def _oracle(need):
    """warcio reads the outputs back (conftest's oracle rule: skip, or fail in CI)."""
    global _WARCIO
    _WARCIO = need("warcio.archiveiterator")


@pytest.fixture
def real(samples):
    """The folder of real files from other projects."""
    return samples / "real-world-2026-11"


def rec(i: int, body: bytes | None = None, version: bytes = b"1.0") -> bytes:
    block = b"HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\n\r\n" + (
        body if body is not None else b"body %d " % i * 30
    )
    return (
        b"WARC/" + version + b"\r\nWARC-Type: response\r\n"
        b"WARC-Target-URI: http://example.com/%d\r\n" % i + b"WARC-Date: 2020-01-02T03:04:05Z\r\n"
        b"WARC-Record-ID: <urn:uuid:00000000-0000-0000-0000-%012d>\r\n"
        % i
        + b"Content-Type: application/http; msgtype=response\r\n"
        b"Content-Length: %d\r\n\r\n" % len(block) + block + b"\r\n\r\n"
    )


def convert(tmp_path: Path, path: Path, *extra: str) -> tuple[int, Path, dict]:
    out = tmp_path / "out"
    result = helpers.convert(path, "warc", out, *extra, workers=1, progress=None)
    return result.exit_code, out, result.report


def written(out: Path) -> list[tuple[dict, bytes]]:
    """``(headers, block)`` of every record in the output WARC files, read by warcio."""
    archive = _WARCIO
    got = []
    for path in sorted(out.glob("*.warc*")):
        with open(path, "rb") as fh:
            for r in archive.ArchiveIterator(fh, no_record_parse=True):
                got.append((dict(r.rec_headers.headers), r.raw_stream.read()))
    return got


def uris(out: Path) -> list[str]:
    return [h.get("WARC-Target-URI") for h, _ in written(out) if h.get("WARC-Type") == "response"]


def quarantine(out: Path) -> list[tuple[dict, bytes]]:
    entries = []
    for index in (out / ".crawlmill" / "quarantine").glob("*.jsonl"):
        data = index.with_suffix(".bin").read_bytes()
        for line in index.read_text().splitlines():
            e = json.loads(line)
            entries.append((e, data[e["bin_offset"] : e["bin_offset"] + e["bin_length"]]))
    return entries


# -- item 5: the declared length wins ---------------------------------------------------------


def test_warcinfo_whose_length_covers_blank_lines_is_copied_whole(tmp_path, real):
    src = real / "openzim-warc2zim" / "tests__data__example-revisit.warc.gz"
    code, out, report = convert(tmp_path, src)
    assert code == 0 and not report["damages"]
    assert not any(k.startswith("cl-includes-separator") for k in report["warnings"])
    # two warcinfo records whose Content-Length (243) covers \r\n\r\n\r\n\r\n at the end of
    # their gzip member: the block stays whole (warcio and FastWARC read 243 bytes too)
    infos = [(h, b) for h, b in written(out) if b.endswith(b"\r\n" * 4)]
    assert len(infos) == 2
    for h, block in infos:
        assert h["WARC-Type"] == "warcinfo"
        assert int(h["Content-Length"]) == len(block) == 243


def test_missing_separator_in_warc_1_0_keeps_the_declared_block(tmp_path):
    info = (
        b"WARC/1.0\r\nWARC-Type: warcinfo\r\nWARC-Record-ID: <urn:uuid:1>\r\n"
        b"Content-Length: 13\r\n\r\nformat: x\r\n\r\n"
    )
    path = tmp_path / "in.warc"
    path.write_bytes(info + rec(1))  # the next record follows the declared bytes at once
    code, out, report = convert(tmp_path, path)
    assert code == 0
    (h, block), _ = written(out)
    assert block == b"format: x\r\n\r\n"


# -- item 6: a record cut by the end of the file ----------------------------------------------


@pytest.mark.parametrize("compressed", [False, True])
def test_truncated_last_record_is_written_marked_and_quarantined(tmp_path, compressed):
    recs = [rec(i, random.Random(i).randbytes(600)) for i in range(3)]  # incompressible
    cut = recs[2][:-60]
    if compressed:
        path, data = tmp_path / "in.warc.gz", gz(recs[0]) + gz(recs[1]) + gz(recs[2])[:-30]
    else:
        path, data = tmp_path / "in.warc", recs[0] + recs[1] + cut
    path.write_bytes(data)
    code, out, report = convert(tmp_path, path)
    assert code == 3
    got = written(out)
    assert [h["WARC-Target-URI"] for h, _ in got if h["WARC-Type"] == "response"] == [
        f"http://example.com/{i}" for i in range(3)
    ]
    h, block = got[-1]
    assert h["WARC-Truncated"] == "length" and int(h["Content-Length"]) == len(block)
    header_len = recs[2].index(b"\r\n\r\n") + 4
    assert recs[2][header_len:].startswith(block) and len(block) > 100
    (d,) = report["damages"]
    assert "truncated" in d["reason"]
    ((entry, qdata),) = quarantine(out)
    start = len(recs[0]) + len(recs[1]) if not compressed else len(gz(recs[0]) + gz(recs[1]))
    assert entry["offset"] == start and qdata == data[start:]


def test_real_truncated_lf_warc_is_written_partial(tmp_path, real):
    src = real / "hrbrmstr-jwatr" / "inst__extdata__bbc.warc"
    code, out, report = convert(tmp_path, src)
    assert code == 3
    ((h, block),) = written(out)
    assert h["WARC-Truncated"] == "length" and len(block) == 26051
    ((entry, qdata),) = quarantine(out)
    assert entry["offset"] == 0 and qdata == src.read_bytes()


# -- item 7: damage in the first bytes ---------------------------------------------------------


def _damaged_start(kind: str) -> bytes:
    recs = [rec(i) for i in range(3)]
    members = b"".join(gz(r) for r in recs)
    if kind == "flipped-magic":
        return bytes([members[0] ^ 0x01]) + members[1:]
    if kind == "zeros-gzip":
        return b"\0" * 100 + members
    if kind == "garbage-plain":
        return b"#!garbage\xff\xfe" * 9 + b"".join(recs)
    return b"\0" * 100 + b"".join(recs)


@pytest.mark.parametrize("kind", ["flipped-magic", "zeros-gzip", "garbage-plain", "zeros-plain"])
@pytest.mark.parametrize("forced", [False, True])
def test_damage_in_the_first_bytes_costs_only_the_damaged_record(tmp_path, kind, forced):
    path = tmp_path / ("in.warc.gz" if "plain" not in kind else "in.warc")
    path.write_bytes(_damaged_start(kind))
    code, out, report = convert(tmp_path, path, *(["--from", "warc"] if forced else []))
    assert code == 3
    # a flipped bit in the first gzip magic costs nothing: the member's deflate stream is
    # inflated raw and the damaged header reported (issue 6 item 7)
    assert uris(out) == [f"http://example.com/{i}" for i in (0, 1, 2)]
    assert report["damages"] and all(d["offset"] == 0 for d in report["damages"])


# -- item 8: garbage between two records of an uncompressed WARC ------------------------------


@pytest.mark.parametrize("garbage", [b"G" * 20, b"\0garbage\xff" * 2 + b"xy", b"\r\n" + b"z" * 18])
def test_garbage_between_records_costs_no_neighbour(tmp_path, garbage):
    recs = [rec(i) for i in range(4)]
    path = tmp_path / "in.warc"
    path.write_bytes(recs[0] + recs[1] + garbage + recs[2] + recs[3])
    code, out, report = convert(tmp_path, path)
    assert code == 3
    assert uris(out) == [f"http://example.com/{i}" for i in range(4)]
    ((entry, qdata),) = quarantine(out)
    assert entry["offset"] == len(recs[0] + recs[1]) and qdata == garbage


# -- item 9: a record cut inside its header, followed at once by the next ---------------------


@pytest.mark.parametrize("cut_at", [b"WARC-Date", b"WARC-Date: 2020", b"WARC-Record-ID: "])
@pytest.mark.parametrize("compressed", [False, True])
def test_header_cut_by_the_next_record_is_damage(tmp_path, cut_at, compressed):
    recs = [rec(i) for i in range(4)]
    cut = recs[1][: recs[1].index(cut_at) + len(cut_at)]
    if compressed:
        path = tmp_path / "in.warc.gz"
        path.write_bytes(gz(recs[0]) + gz(cut + recs[2]) + gz(recs[3]))
    else:
        path = tmp_path / "in.warc"
        path.write_bytes(recs[0] + cut + recs[2] + recs[3])
    code, out, report = convert(tmp_path, path)
    assert code == 3
    got = written(out)
    assert uris(out) == [f"http://example.com/{i}" for i in (0, 2, 3)]
    assert all(list(h).count("WARC-Record-ID") == 1 for h, _ in got)
    (d,) = report["damages"]
    assert "second version line" in d["reason"]
    assert d["offset"] == (len(gz(recs[0])) if compressed else len(recs[0]))


# -- item 12: a huge header line ---------------------------------------------------------------


def test_huge_header_line_is_damage_and_memory_stays_bounded(tmp_path):
    path = tmp_path / "in.warc"
    with open(path, "wb") as fh:
        fh.write(rec(0))
        fh.write(b"WARC/1.0\r\nWARC-Type: response\r\nX-Long: ")
        for _ in range(64):
            fh.write(b"a" * (1 << 20))
        fh.write(b"\r\nContent-Length: 0\r\n\r\n\r\n\r\n")
        fh.write(rec(1))
    damages = []
    ctx = ReadContext(
        InputFile(str(path), path.name),
        lambda d: damages.append((d.offset, d.length, len(d.data))),
        limits=Limits(max_header_bytes=1 << 20),
    )
    tracemalloc.start()
    try:
        urls = [r.url for r in WarcReader().read(ctx)]
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert urls == ["http://example.com/0", "http://example.com/1"]
    assert damages[0][0] == len(rec(0))
    assert sum(length for _, length, _ in damages) == path.stat().st_size - len(rec(0)) - len(
        rec(1)
    )
    assert all(size <= 16 << 20 for _, _, size in damages)
    # about 40 MiB whatever the line's length (the bound, plus 8 MiB read pieces and copies);
    # before: 2.2 times the line
    assert peak < 48 << 20, f"peak {peak >> 20} MiB for a 64 MiB header line"


def test_huge_header_line_through_the_cli(tmp_path):
    path = tmp_path / "in.warc"
    path.write_bytes(rec(0) + b"WARC/1.0\r\nX-Long: " + b"a" * (3 << 20) + b"\r\n\r\n" + rec(1))
    code, out, report = convert(tmp_path, path)
    assert code == 3 and uris(out) == ["http://example.com/0", "http://example.com/1"]
    assert any("max_header_bytes" in d["reason"] for d in report["damages"])


# -- item 15: one offset space ----------------------------------------------------------------


def test_damage_in_a_compressed_file_is_in_compressed_offsets_and_bytes(tmp_path):
    recs = [rec(i) for i in range(4)]
    bad = recs[2].replace(b"Content-Length: ", b"Content-Length: 1")  # 10x too long
    blobs = [gz(recs[0]), gz(recs[1]), gz(bad), gz(recs[3])]
    path = tmp_path / "in.warc.gz"
    data = b"".join(blobs)
    path.write_bytes(data)
    code, out, report = convert(tmp_path, path)
    assert code == 3
    assert uris(out) == [f"http://example.com/{i}" for i in (0, 1, 3)]
    entries = quarantine(out)
    assert entries
    for entry, qdata in entries:
        assert entry["offset"] >= 0 and entry["offset"] + entry["length"] <= len(data)
        assert qdata == data[entry["offset"] : entry["offset"] + entry["length"]]
    assert entries[0][0]["offset"] == len(blobs[0] + blobs[1])


# -- item 14: ClueWeb09 WARC/0.18, garbage after an intact record ------------------------------


@pytest.mark.parametrize("garbage", [b"\x00GARBAGE-garbage!!\xff", b"\nxx\n"])
@pytest.mark.parametrize("k", [1, 5, 50])
def test_clueweb09_record_before_inserted_garbage_is_kept(tmp_path, samples, garbage, k):
    src = (samples / "sqs-freequery/test/dumps/ClueWeb09_English_Sample").read_bytes()
    starts = [m.start() for m in re.finditer(rb"^WARC/0\.18\n", src, re.M)]
    path = tmp_path / "cw.warc"
    path.write_bytes(src[: starts[k]] + garbage + src[starts[k] :])
    code, out, report = convert(tmp_path, path, "--from", "warc")
    assert code == 3
    assert report["written"] == 101 and len(written(out)) == 101
    ((entry, qdata),) = quarantine(out)
    assert entry["offset"] == starts[k] and qdata == garbage


def test_damaged_start_is_claimed_inside_an_input_folder(tmp_path):
    folder = tmp_path / "in"
    folder.mkdir()
    (folder / "a.warc.gz").write_bytes(_damaged_start("flipped-magic"))
    (folder / "b.warc").write_bytes(_damaged_start("zeros-plain"))
    out = tmp_path / "out"
    code = main(["convert", str(folder), "--to", "warc", "-o", str(out), "--workers", "1"])
    report = json.loads((out / ".crawlmill" / "report.json").read_text())
    assert code == 3 and report["unclaimed"] == []
    # every record, the flipped magic's member too (issue 6 item 7)
    assert report["written"] == 6 and len(report["damages"]) == 2


def test_damage_inside_a_whole_file_gzip_is_in_compressed_offsets(tmp_path):
    recs = [rec(i) for i in range(4)]
    garbage = b"\x00garbage\xff" * 2
    data = gz(recs[0] + recs[1] + garbage + recs[2] + recs[3])  # one gzip member
    path = tmp_path / "whole.warc.gz"
    path.write_bytes(data)
    code, out, report = convert(tmp_path, path)
    assert code == 3 and uris(out) == [f"http://example.com/{i}" for i in range(4)]
    ((entry, qdata),) = quarantine(out)
    # the member holding the damage, in compressed offsets and bytes; the stream offset is
    # named in the reason
    assert (entry["offset"], entry["length"]) == (0, len(data)) and qdata == data
    assert f"decompressed stream offset {len(recs[0] + recs[1])}" in entry["reason"]


# -- item 5: a length the record's own digest disproves -----------------------------------


@pytest.mark.parametrize("k", [-4, -1, 3])
@pytest.mark.parametrize("layout", ["plain", "gzip", "gzip-whole"])
def test_length_disproved_by_the_block_digest_is_damage_and_repaired(tmp_path, k, layout):
    import base64
    import hashlib

    block = b"GET /x HTTP/1.1\r\nHost: example.com\r\nAccept: */*\r\n\r\n"
    digest = b"sha1:" + base64.b32encode(hashlib.sha1(block).digest())
    bad = (
        b"WARC/1.0\r\nWARC-Type: request\r\nWARC-Target-URI: http://example.com/x\r\n"
        b"WARC-Date: 2020-01-02T03:04:05Z\r\n"
        b"WARC-Record-ID: <urn:uuid:00000000-0000-0000-0000-00000000abcd>\r\n"
        b"WARC-Block-Digest: " + digest + b"\r\n"
        b"Content-Type: application/http; msgtype=request\r\n"
        b"Content-Length: %d\r\n\r\n" % (len(block) + k) + block + b"\r\n\r\n"
    )
    recs = [rec(0), bad, rec(2)]
    if layout == "plain":
        data, start = b"".join(recs), len(recs[0])
    elif layout == "gzip":
        data, start = b"".join(map(gz, recs)), len(gz(recs[0]))
    else:
        data, start = gz(b"".join(recs)), 0
    path = tmp_path / ("in.warc" if layout == "plain" else "in.warc.gz")
    path.write_bytes(data)
    code, out, report = convert(tmp_path, path)
    assert code == 3
    (d,) = report["damages"]
    assert "WARC-Block-Digest" in d["reason"] and d["offset"] == start
    got = written(out)
    assert [h.get("WARC-Target-URI") for h, _ in got] == [
        f"http://example.com/{i}" if i != 1 else "http://example.com/x" for i in range(3)
    ]
    h, written_block = got[1]
    assert written_block == block and int(h["Content-Length"]) == len(block)
    if layout != "gzip-whole":
        ((entry, qdata),) = quarantine(out)
        end = start + (len(bad) if layout == "plain" else len(gz(bad)))
        assert entry["offset"] == start and qdata == data[start:end]


# -- a flipped case bit in a version line ------------------------------------------------------


@pytest.mark.parametrize("magic", [b"WArC", b"wARC", b"WARc"])
@pytest.mark.parametrize("compressed", [False, True])
def test_mixed_case_version_line_is_damage_and_the_record_delivered(tmp_path, magic, compressed):
    recs = [rec(i) for i in range(3)]
    recs[1] = magic + recs[1][4:]
    if compressed:
        data = gz(b"".join(recs))  # whole-file gzip
        path = tmp_path / "in.warc.gz"
    else:
        data = b"".join(recs)
        path = tmp_path / "in.warc"
    path.write_bytes(data)
    code, out, report = convert(tmp_path, path)
    assert code == 3
    assert uris(out) == [f"http://example.com/{i}" for i in range(3)]
    assert all(h.get("WARC-Type") for h, _ in written(out))
    (result,) = out.glob("*.warc*")
    import gzip

    stream = gzip.decompress(result.read_bytes())  # every member
    assert magic not in stream and stream.count(b"WARC/1.0\r\n") == 3
    (d,) = report["damages"]
    assert repr(magic) in d["reason"]
    if not compressed:
        ((entry, qdata),) = quarantine(out)
        assert entry["offset"] == len(recs[0]) and qdata.startswith(magic + b"/1.0\r\n")


@pytest.mark.parametrize("magic", [b"wARC", b"WaRC", b"WARc"])
@pytest.mark.parametrize("compressed", [False, True])
def test_mixed_case_first_version_line_is_detected_and_reported(tmp_path, magic, compressed):
    """warc/plain/bitflip-magic/s7000, clueweb09/plain/bitflip-magic/s7001: a flipped case
    bit in the file's first bytes used to leave the file unclaimed (exit 2, nothing read):
    the WARC reader claims it (0.6, as for other damage in the first bytes) and reports it."""
    recs = [rec(i) for i in range(3)]
    recs[0] = magic + recs[0][4:]
    data = gz(recs[0]) + gz(recs[1]) + gz(recs[2]) if compressed else b"".join(recs)
    path = tmp_path / ("in.warc.gz" if compressed else "in.warc")
    path.write_bytes(data)
    assert WarcReader.sniff(str(path), b"".join(recs)) == 0.6
    code, out, report = convert(tmp_path, path)
    assert code == 3
    assert uris(out) == [f"http://example.com/{i}" for i in range(3)]
    (d,) = report["damages"]
    assert (d["code"], d["offset"]) == ("damaged-version-line", 0)


def test_lower_case_version_line_is_a_quirk_not_damage(tmp_path):
    recs = [rec(i) for i in range(2)]
    path = tmp_path / "in.warc"
    path.write_bytes(recs[0] + b"warc" + recs[1][4:])
    code, out, report = convert(tmp_path, path)
    assert code == 0 and not report["damages"]
    assert uris(out) == [f"http://example.com/{i}" for i in range(2)]


# -- zeros in a header (the fault soak's zero-run cases) ---------------------------------------


@pytest.mark.parametrize("compressed", [False, True])
def test_zero_run_across_headers_is_damage_and_exit_3(tmp_path, compressed):
    """warc/plain/zero-run/s7001: zeros from inside record 2's header to inside record 4's
    header used to make one record of both headers, delivered with exit 0. Now: exit 3, one
    damage naming the file, the offset of record 2 and the reason, its bytes quarantined, the
    other records written. Gzip per record: a member whose CRC holds but whose header a broken
    writer wrote with NULs is the same header rule."""
    recs = [rec(i) for i in range(6)]
    if compressed:
        zeroed = recs[2].replace(b"2020-01-02", b"2020\0\0\0\0\0\0")  # a sound member
        members = [gz(r) for r in (*recs[:2], zeroed, *recs[3:])]
        data, start, end = b"".join(members), len(members[0] + members[1]), None
        lost = (2,)
    else:
        plain = b"".join(recs)
        start = len(recs[0] + recs[1])
        end = start + len(recs[2] + recs[3] + recs[4])
        lo = plain.index(b"WARC-Date: ", start) + 15
        hi = plain.index(b"WARC-Record-ID: ", end - len(recs[4])) + 20
        data = plain[:lo] + b"\0" * (hi - lo) + plain[hi:]
        lost = (2, 3, 4)
    path = tmp_path / ("in.warc.gz" if compressed else "in.warc")
    path.write_bytes(data)
    code, out, report = convert(tmp_path, path)
    assert code == 3
    assert uris(out) == [f"http://example.com/{i}" for i in range(6) if i not in lost]
    kept = [b for h, b in written(out) if h.get("WARC-Type") == "response"]
    assert kept == [r[r.index(b"\r\n\r\n") + 4 : -4] for i, r in enumerate(recs) if i not in lost]
    (d,) = report["damages"]
    assert (d["code"], d["offset"], d["path"]) == ("control-byte-in-header", start, str(path))
    assert "control byte b'\\x00'" in d["reason"]
    ((entry, qdata),) = quarantine(out)
    assert entry["offset"] == start
    assert qdata == (members[2] if compressed else data[start:end])
    assert report["read"] == report["written"] + report["quarantined"]


@pytest.mark.parametrize(
    ("name", "data"),
    [
        ("in.warc.zst", b"\x28"),  # warc/zstd/truncate-any/s8003: cut at byte 1
        ("in.warc.zst", b"\x28\xb5\x2f"),
        ("in.warc.gz", b"\x1f"),
        ("in.warc", b"WAR"),
        ("in.warc", b"WARC/1."),
        ("in.warc", b"warc/0.18"),
    ],
)
def test_file_cut_inside_its_first_bytes_is_read_and_reported(tmp_path, name, data):
    """A WARC file cut inside its magic or first version line used to be unclaimed (exit 2,
    "no reader recognises its first bytes"): a file named like a WARC whose whole content is
    such a start is read, and its bytes reported as damage (exit 3)."""
    path = tmp_path / name
    path.write_bytes(data)
    code, out, report = convert(tmp_path, path)
    assert code == 3
    assert not written(out)
    (d,) = report["damages"]
    assert (d["offset"], d["path"]) == (0, str(path))
    ((entry, qdata),) = quarantine(out)
    assert qdata == data
