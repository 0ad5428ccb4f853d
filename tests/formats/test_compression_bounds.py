"""Issue 6 item 12 at the mechanism: the member bound of a multi-member file (gzip members,
zstd and LZ4 frames). A member beyond it is not inflated further, hands out no piece and is one
Broken with its compressed bytes; memory stays within the bound plus a piece."""

from __future__ import annotations

import functools
import io
import random
import tracemalloc

import pytest
from crawlmill.formats.codecs import compression, gzip_parallel
from crawlmill.formats.codecs.compression import Broken, Piece, iter_pieces, member_bound

from tests.helpers import gz

MIB = 1 << 20


def summary(items) -> list:
    out, cur = [], []
    for item in items:
        if isinstance(item, Broken):
            out.append(("broken", item.offset, item.length, item.partial, item.data))
            cur = []
            continue
        if item.members:
            out.extend(("member", off, item.data[ds:de]) for ds, de, off, _ in item.members)
            continue
        cur.append(item.data)
        if item.end:
            out.append(("member", item.offset, b"".join(cur)))
            cur = []
    return out


def words(size: int) -> bytes:
    rng = random.Random(7)
    vocab = [b"alpha", b"beta", b"gamma", b"delta", b"<p>", b"WARC", b"http://", b"\xc3\xa9"]
    out, n = [], 0
    while n < size:
        line = b" ".join(rng.choice(vocab) for _ in range(12)) + b" %d\r\n" % n
        out.append(line)
        n += len(line)
    return b"".join(out)[:size]


@functools.cache
def text_8mib() -> bytes:
    """8 MiB of text (made on first use, not when the module is collected: it takes seconds)."""
    return words(8 * MIB)


def test_member_bound_is_one_record():
    assert member_bound(256 * MIB, MIB) == 257 * MIB + compression.MEMBER_SLACK


def _frames(kind: str):
    if kind == "gzip":
        return gz
    if kind == "zstd":
        zstandard = pytest.importorskip("zstandard")
        return zstandard.ZstdCompressor(level=3).compress
    import lz4.frame

    return lz4.frame.compress


@pytest.mark.parametrize("kind", ["gzip", "zstd", "lz4"])
def test_bomb_between_members_is_one_broken_with_its_compressed_bytes(kind):
    pack = _frames(kind)
    before, after = pack(b"record before"), pack(b"record after")
    bomb = pack(bytes(64 * MIB))
    data = before + bomb + after
    tracemalloc.start()
    try:
        got = summary(iter_pieces(io.BytesIO(data), kind, piece_size=MIB, max_member_bytes=2 * MIB))
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert got == [
        ("member", 0, b"record before"),
        ("broken", len(before), len(bomb), False, bomb),
        ("member", len(before) + len(bomb), b"record after"),
    ]
    assert peak < 2 * MIB + MIB + 4 * MIB + len(data), peak  # bound + piece + constant


@pytest.mark.parametrize("kind", ["gzip", "zstd", "lz4"])
def test_members_within_the_bound_come_out_whole_in_bounded_pieces(kind):
    pack = _frames(kind)
    big = bytes(range(256)) * (12 * 4096)  # 12 MiB, under a 16 MiB bound
    blobs = [pack(b"first"), pack(big), pack(b"last")]
    items = list(
        iter_pieces(io.BytesIO(b"".join(blobs)), kind, piece_size=MIB, max_member_bytes=16 * MIB)
    )
    assert [m[2] for m in summary(items)] == [b"first", big, b"last"]
    assert all(len(i.data) <= 2 * MIB for i in items)


@pytest.mark.parametrize("kind", ["gzip", "zstd", "lz4"])
def test_the_first_member_is_a_stream_bounded_only_by_max_decompressed_bytes(kind):
    """A whole-file gzip (ClueWeb09) is one large member: the member bound does not apply."""
    pack = _frames(kind)
    whole = text_8mib()  # compresses like text, a few to one
    packed = pack(whole)
    items = iter_pieces(io.BytesIO(packed), kind, piece_size=MIB, max_member_bytes=2 * MIB)
    assert summary(items) == [("member", 0, whole)]
    limited = summary(
        iter_pieces(io.BytesIO(packed), kind, piece_size=MIB, max_decompressed_bytes=4 * MIB)
    )
    assert limited[-1][0] == "broken" and "max_decompressed_bytes" not in str(limited[:-1])


@pytest.mark.parametrize("kind", ["gzip", "zstd", "lz4"])
def test_a_first_member_bomb_streams_until_the_stream_bound(kind):
    """The first member is a stream (it may be a whole-file gzip holding junk that deflates
    like a bomb, then good records): it is not cut at the member bound, whatever its ratio.
    Its pieces are handed out as they come (each at most a piece), a real bomb stops at
    max_decompressed_bytes, and the members after it are read."""
    pack = _frames(kind)
    bomb, after = pack(bytes(64 * MIB)), pack(b"record after")
    kw = {"piece_size": MIB, "max_member_bytes": 2 * MIB}
    items = list(iter_pieces(io.BytesIO(bomb + after), kind, **kw))
    assert all(len(i.data) <= 2 * MIB for i in items if isinstance(i, Piece))  # a piece + a call
    got = summary(items)
    assert got == [("member", 0, bytes(64 * MIB)), ("member", len(bomb), b"record after")]
    items = list(iter_pieces(io.BytesIO(bomb + after), kind, max_decompressed_bytes=16 * MIB, **kw))
    handed = sum(len(i.data) for i in items if isinstance(i, Piece) and i.offset == 0)
    assert 15 * MIB <= handed <= 16 * MIB
    got = summary(items)
    assert got[-2][:4] == ("broken", 0, len(bomb), True)
    assert "max_decompressed_bytes" in items[-2].reason
    assert got[-1] == ("member", len(bomb), b"record after")


@pytest.mark.parametrize("kind", ["gzip", "zstd", "lz4"])
def test_junk_inside_a_whole_file_stream_does_not_cut_it(kind):
    """A 32 MiB run of one byte (a header line bomb) inside a whole-file stream, records
    after it: every byte is handed out."""
    pack = _frames(kind)
    whole = b"before" + b"a" * (32 * MIB) + b"after" + text_8mib()[: 2 * MIB]
    items = iter_pieces(io.BytesIO(pack(whole)), kind, piece_size=MIB, max_member_bytes=2 * MIB)
    assert summary(items) == [("member", 0, whole)]


def test_corrupt_member_within_the_bound_still_hands_out_what_decoded():
    big = bytes(range(256)) * (8 * 4096)
    damaged = bytearray(gz(big))
    damaged[-6] ^= 1  # CRC32
    data = gz(b"first") + bytes(damaged) + gz(b"last")
    items = list(iter_pieces(io.BytesIO(data), "gzip", piece_size=MIB, max_member_bytes=16 * MIB))
    pieces = [i for i in items if isinstance(i, Piece) and i.offset == len(gz(b"first"))]
    assert b"".join(p.data for p in pieces) == big
    (broken,) = [i for i in items if isinstance(i, Broken)]
    assert broken.partial and broken.error_offset == len(gz(b"first")) + len(damaged) - 1


def test_parallel_inflate_keeps_the_member_bound(monkeypatch):
    monkeypatch.setattr(gzip_parallel, "PARALLEL_CHUNK", 50_000)
    blobs = [gz(b"before %d" % i) for i in range(30)]
    blobs.append(gz(bytes(32 * MIB), 9))
    blobs += [gz(b"after %d" % i) for i in range(30)]
    data = b"".join(blobs)
    kw = {"piece_size": MIB, "max_member_bytes": 2 * MIB}
    seq = summary(iter_pieces(io.BytesIO(data), "gzip", **kw))
    par = summary(iter_pieces(io.BytesIO(data), "gzip", threads=2, batch=True, **kw))
    assert par == seq
    assert [k for k, *_ in seq].count("broken") == 1 and len(seq) == 61
    assert seq[30][-1] == blobs[30]  # the compressed member
