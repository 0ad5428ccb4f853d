"""``ctx.open()``: an input decompressed with every codec of the codec table, read by line with
offsets, damage reported and never joined across (issue 21 item 2)."""

from __future__ import annotations

import bz2
import gzip
import zlib

import lz4.frame
import pytest
import zstandard
from crawlmill.core import InputFile, OffsetSpace, ReadContext
from crawlmill.core.plugin import Limits

LINES = [b"http://a.example/\n", b"https://b.example/x?y=1\n", b"\n", b"http://c.example/"]
TEXT = b"".join(LINES)


def _ctx(path, damages, **limits):
    return ReadContext(InputFile(str(path), path.name), damages.append, Limits(**limits))


def _gzip_members(*chunks: bytes) -> bytes:
    """One gzip member per chunk (RFC 1952: "A gzip file consists of a series of
    'members'"), built with zlib, not with the code under test."""
    out = b""
    for chunk in chunks:
        c = zlib.compressobj(6, zlib.DEFLATED, 31)
        out += c.compress(chunk) + c.flush()
    return out


@pytest.mark.parametrize(
    ("suffix", "compress"),
    [
        ("", lambda b: b),
        (".gz", gzip.compress),
        (".gz", lambda b: _gzip_members(TEXT[:20], TEXT[20:])),
        (".bz2", bz2.compress),
        (".zst", lambda b: zstandard.ZstdCompressor().compress(b)),
        (".lz4", lz4.frame.compress),
    ],
)
def test_every_codec_gives_the_same_lines_and_offsets(tmp_path, suffix, compress):
    path = tmp_path / f"seeds.urls{suffix}"
    path.write_bytes(compress(TEXT))
    damages: list = []
    with _ctx(path, damages).open() as f:
        got = []
        while True:
            at = f.tell()
            line = f.readline()
            if not line:
                break
            got.append((at, line))
        assert f.space == (OffsetSpace.FILE if not suffix else OffsetSpace.STREAM)
        assert f.compression == {"": None, ".gz": "gzip", ".bz2": "bzip2", ".zst": "zstd",
                                 ".lz4": "lz4"}[suffix]  # fmt: skip
    offsets = [sum(len(x) for x in LINES[:i]) for i in range(len(LINES))]
    assert got == list(zip(offsets, LINES, strict=True))
    with _ctx(path, damages).open() as f:  # iteration: tell() follows each line too
        assert [(f.tell() - len(line), line) for line in f] == got
    assert damages == []


def test_read_and_iteration(tmp_path):
    path = tmp_path / "x.gz"
    path.write_bytes(gzip.compress(TEXT))
    with _ctx(path, []).open() as f:
        assert f.read(4) == b"http"
        assert f.tell() == 4
        assert list(f) == [TEXT[4:18], *LINES[1:]]
        assert f.read() == b""
    with _ctx(path, []).open() as f:
        assert f.read() == gzip.decompress(path.read_bytes())


def test_member_offset_names_the_compressed_member(tmp_path):
    first, second = b"http://a/\n" * 3, b"http://b/\n" * 2
    data = _gzip_members(first, second)
    path = tmp_path / "m.urls.gz"
    path.write_bytes(data)
    size_first = len(_gzip_members(first))
    with _ctx(path, []).open() as f:
        assert f.member_offset() == 0
        f.read(len(first))
        assert f.member_offset() == size_first
        assert f.provenance(f.tell(), 10, "urllist").offset == len(first)


def test_a_corrupt_member_is_damage_and_no_line_spans_it(tmp_path):
    good1 = _gzip_members(b"http://a/\nhttp://cut")
    bad = bytearray(_gzip_members(b"http://lost/\n" * 50))
    bad[20:30] = b"\xff" * 10  # deflate data destroyed
    good2 = _gzip_members(b"-tail\nhttp://b/\n")
    path = tmp_path / "d.urls.gz"
    path.write_bytes(good1 + bytes(bad) + good2)
    damages: list = []
    with _ctx(path, damages).open() as f:
        lines = list(f)
    # the broken member's inflated bytes are damage, not a line; the lines on either side
    # of it are not joined
    assert lines == [b"http://a/\n", b"http://cut", b"-tail\n", b"http://b/\n"]
    assert [(d.path, d.offset, d.code) for d in damages] == [
        (str(path), len(good1), "corrupt-member")
    ]
    assert damages[0].data == bytes(bad)[: damages[0].length]


def test_a_truncated_file_is_damage(tmp_path):
    text = b"".join(b"http://h%d.example/%d\n" % (i, i * 7919 % 1000) for i in range(3000))
    data = gzip.compress(text)
    path = tmp_path / "t.urls.gz"
    path.write_bytes(data[: len(data) // 2])
    damages: list = []
    with _ctx(path, damages).open() as f:
        got = f.read()
    # what the cut member inflated to is the text's start (zlib says how much that is)
    assert got == zlib.decompressobj(31).decompress(data[: len(data) // 2])
    assert len(got) > len(text) // 4
    assert [(d.offset, d.code) for d in damages] == [(0, "truncated-member")]


def test_a_line_is_bounded(tmp_path):
    path = tmp_path / "long.gz"
    path.write_bytes(gzip.compress(b"x" * 100 + b"\nend\n"))
    with _ctx(path, [], max_record_bytes=40).open() as f:
        assert [len(line) for line in f] == [40, 40, 21, 4]


def test_decompression_is_bounded(tmp_path):
    path = tmp_path / "bomb.gz"
    path.write_bytes(gzip.compress(b"a\n" * 100_000))
    damages: list = []
    with _ctx(path, damages, max_decompressed_bytes=1000).open() as f:
        data = f.read()
    assert len(data) <= 1000
    assert [d.code for d in damages] == ["decompression-limit"]


def test_a_part_of_a_unit(tmp_path):
    (tmp_path / "data").write_bytes(gzip.compress(b"http://p/\n"))
    unit = InputFile(str(tmp_path), "u", parts={"data": str(tmp_path / "data")})
    with ReadContext(unit, [].append).open("data") as f:
        assert f.readline() == b"http://p/\n"
