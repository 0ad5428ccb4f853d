"""Member-aware, bounded decompression: offsets, damage and resync, zstd with dictionaries."""

from __future__ import annotations

import io
import struct
import zlib

import pytest
from crawlmill.formats.codecs import compression, gzip_parallel
from crawlmill.formats.codecs.compression import (
    Broken,
    Piece,
    compression_of,
    inflate_backend,
    iter_pieces,
    read_head,
)

from tests.helpers import gz


def members(items) -> list[tuple[int, int, bytes]]:
    """(offset, length, data) per complete member, joining multi-piece members."""
    out, cur = [], []
    for item in items:
        assert isinstance(item, Piece), item
        cur.append(item.data)
        if item.end:
            out.append((item.offset, item.length, b"".join(cur)))
            cur = []
    return out


def test_isal_is_used_when_installed():
    pytest.importorskip("isal")
    assert inflate_backend() == "isal"


def test_member_offsets_and_lengths():
    payloads = [b"first record " * 50, b"second" * 3000, b"", b"third \x00\xff" * 7]
    blobs = [gz(p) for p in payloads]
    got = members(iter_pieces(io.BytesIO(b"".join(blobs)), "gzip"))
    offsets = [sum(len(b) for b in blobs[:i]) for i in range(len(blobs))]
    assert [(o, n, d) for o, n, d in got] == list(
        zip(offsets, map(len, blobs), payloads, strict=True)
    )


def test_whole_file_single_member_is_one_member():
    data = b"".join(b"WARC/1.0\r\n%d\r\n\r\n" % i for i in range(5000))
    got = members(iter_pieces(io.BytesIO(gz(data)), "gzip", piece_size=4096))
    assert len(got) == 1 and got[0][2] == data and got[0][0] == 0


def test_small_pieces_are_bounded():
    data = bytes(range(256)) * 4000
    items = list(iter_pieces(io.BytesIO(gz(data)), "gzip", piece_size=10000))
    assert all(len(i.data) <= 10000 for i in items)
    assert b"".join(i.data for i in items) == data


def test_truncated_last_member_is_broken_with_its_offset():
    a, b = gz(b"A" * 1000), gz(bytes(range(256)) * 100)
    items = list(iter_pieces(io.BytesIO(a + b[: len(b) // 2]), "gzip"))
    assert members([items[0]]) == [(0, len(a), b"A" * 1000)]
    broken = items[-1]
    assert isinstance(broken, Broken)
    assert broken.offset == len(a) and "truncated" in broken.reason
    assert broken.data == b[: len(b) // 2]


def test_corrupt_member_in_the_middle_then_resync():
    blobs = [gz(b"record %d " % i * 200) for i in range(3)]
    bad = bytearray(blobs[1])
    bad[15:25] = b"\xff" * 10  # inside the deflate stream
    data = blobs[0] + bytes(bad) + blobs[2]
    items = list(iter_pieces(io.BytesIO(data), "gzip"))
    broken = [i for i in items if isinstance(i, Broken)]
    good = members(i for i in items if isinstance(i, Piece) and i.end)
    assert [b.offset for b in broken] == [len(blobs[0])]
    assert [g[0] for g in good] == [0, len(blobs[0]) + len(blobs[1])]
    assert good[1][2] == b"record 2 " * 200


def test_garbage_between_members_is_reported():
    a, b = gz(b"one"), gz(b"two")
    items = list(iter_pieces(io.BytesIO(a + b"GARBAGE!" + b), "gzip"))
    broken = [i for i in items if isinstance(i, Broken)]
    assert len(broken) == 1 and broken[0].offset == len(a) and broken[0].length == 8
    assert broken[0].data == b"GARBAGE!"
    assert [m[2] for m in members(i for i in items if isinstance(i, Piece))] == [b"one", b"two"]


def test_gzip_bomb_stays_bounded():
    bomb = gz(b"\0" * (64 << 20), 9)  # ~64 KiB inflating to 64 MiB
    tail = gz(b"after")
    items = iter_pieces(
        io.BytesIO(bomb + tail), "gzip", max_decompressed_bytes=8 << 20, piece_size=1 << 20
    )
    total = 0
    seen = []
    for item in items:
        if isinstance(item, Piece):
            assert len(item.data) <= 1 << 20
            total += len(item.data)
            if item.end:
                seen.append(item.data)
        else:
            seen.append(item)
    assert total <= (8 << 20) + (1 << 20) + 5
    assert isinstance(seen[0], Broken) and "max_decompressed_bytes" in seen[0].reason
    assert seen[-1] == b"after"


def _zstd():
    return pytest.importorskip("zstandard")


def test_zstd_frames_with_offsets():
    zstandard = _zstd()
    payloads = [b"WARC/1.1\r\nrecord %d\r\n\r\n" % i * 30 for i in range(4)]
    frames = [zstandard.ZstdCompressor().compress(p) for p in payloads]
    got = members(iter_pieces(io.BytesIO(b"".join(frames)), "zstd"))
    offsets = [sum(len(f) for f in frames[:i]) for i in range(len(frames))]
    assert got == list(zip(offsets, map(len, frames), payloads, strict=True))


@pytest.mark.parametrize("compress_dict", [False, True])
def test_zstd_with_dictionary_frame(compress_dict):
    zstandard = _zstd()
    samples = [
        b"WARC/1.1\r\nWARC-Type: response\r\nX-Sample: %d\r\n\r\nbody %d" % (i, i * 7)
        for i in range(400)
    ]
    zdict = zstandard.train_dictionary(2048, samples)
    cctx = zstandard.ZstdCompressor(dict_data=zdict)
    frames = [cctx.compress(s) for s in samples[:5]]
    dict_bytes = zdict.as_bytes()
    if compress_dict:
        dict_bytes = zstandard.ZstdCompressor().compress(dict_bytes)
    head = compression.ZSTD_WARC_DICT_MAGIC + struct.pack("<I", len(dict_bytes)) + dict_bytes
    data = head + b"".join(frames)
    assert compression_of(data[:4]) == "zstd"
    got = members(iter_pieces(io.BytesIO(data), "zstd"))
    assert [g[2] for g in got] == samples[:5]
    assert got[0][0] == len(head)


def test_zstd_truncated_frame_is_broken():
    zstandard = _zstd()
    a = zstandard.ZstdCompressor().compress(b"a" * 100)
    b = zstandard.ZstdCompressor().compress(bytes(range(256)) * 50)
    items = list(iter_pieces(io.BytesIO(a + b[:-20]), "zstd"))
    assert isinstance(items[-1], Broken) and items[-1].offset == len(a)


def test_read_head_of_zstd_with_dictionary(tmp_path):
    zstandard = _zstd()
    samples = [b"WARC/1.1\r\nWARC-Type: response\r\nX: %d\r\n\r\n" % i for i in range(300)]
    zdict = zstandard.train_dictionary(1024, samples)
    cctx = zstandard.ZstdCompressor(dict_data=zdict)
    raw = zdict.as_bytes()
    path = tmp_path / "x.warc.zst"
    path.write_bytes(
        compression.ZSTD_WARC_DICT_MAGIC
        + struct.pack("<I", len(raw))
        + raw
        + cctx.compress(samples[0])
    )
    assert read_head(str(path)).startswith(b"WARC/1.1\r\nWARC-Type: response")


def test_plain_input_passes_through():
    data = b"x" * 100_000
    items = list(iter_pieces(io.BytesIO(data), None))
    assert b"".join(i.data for i in items) == data and all(i.offset is None for i in items)


def _summary(items) -> list:
    """Member-level view that does not depend on how a member was cut into pieces."""
    out, cur = [], []
    for item in items:
        if isinstance(item, Broken):
            out.append(("broken", item.offset, item.length, item.reason.split(" (")[0]))
            cur = []
            continue
        if item.members:  # several whole members inflated in one go
            out.extend(("member", off, n, item.data[ds:de]) for ds, de, off, n in item.members)
            continue
        cur.append(item.data)
        if item.end:
            out.append(("member", item.offset, item.length, b"".join(cur)))
            cur = []
    return out


@pytest.mark.parametrize(
    "damage", ["none", "garbage", "corrupt", "truncated", "fake-magic", "reserved-flag"]
)
def test_parallel_inflate_equals_sequential(monkeypatch, damage):
    monkeypatch.setattr(gzip_parallel, "PARALLEL_CHUNK", 3000)
    monkeypatch.setattr(gzip_parallel, "PARALLEL_TASK", 700)
    blobs = [gz(b"record %d " % i * (i % 7 * 40 + 1)) for i in range(120)]
    if damage == "garbage":
        blobs[50] = b"junk\x1f\x8b\x08\x00junk" + blobs[50]
    elif damage == "corrupt":
        bad = bytearray(blobs[60])
        bad[12:20] = b"\xee" * 8
        blobs[60] = bytes(bad)
    elif damage == "fake-magic":  # a stored (uncompressed) member holding gzip magic bytes
        c = zlib.compressobj(0, zlib.DEFLATED, 31)
        blobs[70] = c.compress(b"xx\x1f\x8b\x08\x00\x00\x00\x00\x00\x00\x03yy" * 30) + c.flush()
    elif damage == "reserved-flag":
        blobs[80] = blobs[80][:3] + bytes([blobs[80][3] | 0x80]) + blobs[80][4:]
    data = b"".join(blobs)
    if damage == "truncated":
        data = data[:-25]
    seq = _summary(iter_pieces(io.BytesIO(data), "gzip"))
    par_items = list(iter_pieces(io.BytesIO(data), "gzip", threads=2, batch=True))
    assert any(i.members for i in par_items if isinstance(i, Piece))  # batches were used
    assert _summary(par_items) == seq
    singles = list(iter_pieces(io.BytesIO(data), "gzip", threads=2))
    assert not any(isinstance(i, Piece) and (i.members or not i.end) for i in singles[:50])
    assert _summary(singles) == seq
    assert (damage in ("none", "fake-magic")) == all(kind == "member" for kind, *_ in seq)


@pytest.mark.parametrize("first", ["unusual-os-byte", "macos-os-byte", "corrupt"])
def test_parallel_inflate_falls_back_from_the_file_start(monkeypatch, first):
    """When the first member is not taken by the parallel path, reading starts over at offset
    0 (the read-ahead moved the file position) and matches the sequential read."""
    monkeypatch.setattr(gzip_parallel, "PARALLEL_CHUNK", 3000)
    monkeypatch.setattr(gzip_parallel, "PARALLEL_TASK", 700)
    blobs = [bytearray(gz(b"record %d " % i * 50)) for i in range(60)]
    if first == "corrupt":
        blobs[0][12:20] = b"\xee" * 8
    else:  # OS byte 0x42 is not one zlib writes (guessing skips it); 19 is zlib on macOS
        for blob in blobs:
            blob[9] = 0x42 if first == "unusual-os-byte" else 19
    data = b"".join(blobs)
    seq = _summary(iter_pieces(io.BytesIO(data), "gzip"))
    par = list(iter_pieces(io.BytesIO(data), "gzip", threads=2, batch=True))
    assert _summary(par) == seq
    assert [kind for kind, *_ in seq].count("member") == (59 if first == "corrupt" else 60)
    # members that look like ones (zlib's macOS OS byte included) go the parallel way
    assert any(i.members for i in par if isinstance(i, Piece)) == (first == "macos-os-byte")


def test_consumer_runs_queued_inflate_jobs_itself():
    """While the worker is busy with the job the consumer needs, the consumer runs the queued
    later jobs (in order) instead of waiting; their results and errors come out later, where
    each job's own would."""
    from concurrent.futures import ThreadPoolExecutor
    from threading import Event, get_ident

    started, release = Event(), Event()
    ran: list[tuple[str, bool]] = []
    consumer = get_ident()

    def first():
        started.set()
        assert release.wait(10)
        return "first"

    def later(name):
        ran.append((name, get_ident() == consumer))
        if name == "c":
            release.set()  # the worker's job finishes only after both were taken here
        if name == "d":
            raise ValueError("bad job")
        return name

    with ThreadPoolExecutor(1) as pool:
        jobs = [gzip_parallel._Job(pool, first)]
        assert started.wait(10)  # the only worker runs the first job
        jobs += [gzip_parallel._Job(pool, later, name) for name in "bcd"]
        assert gzip_parallel._await(jobs[0], iter(jobs[1:])) == "first"
        # stolen in order (the first job may end before or after "d" is taken too)
        assert ran[:2] == [("b", True), ("c", True)]
        assert [j.result() for j in jobs[1:3]] == ["b", "c"]
        with pytest.raises(ValueError, match="bad job"):  # stolen or not, it raises here
            gzip_parallel._await(jobs[3], iter(()))


def test_parallel_inflate_keeps_the_bomb_bound(monkeypatch):
    monkeypatch.setattr(gzip_parallel, "PARALLEL_CHUNK", 50_000)
    blobs = [gz(b"before %d" % i) for i in range(30)]
    blobs.append(gz(b"\0" * (32 << 20), 9))
    blobs += [gz(b"after %d" % i) for i in range(30)]
    data = b"".join(blobs)
    kw = {"max_decompressed_bytes": 4 << 20, "piece_size": 1 << 20}
    seq = _summary(iter_pieces(io.BytesIO(data), "gzip", **kw))
    par = list(iter_pieces(io.BytesIO(data), "gzip", threads=2, batch=True, **kw))
    assert all(len(i.data) <= 1 << 20 for i in par if isinstance(i, Piece))
    assert _summary(par) == seq
    assert [k for k, *_ in seq].count("broken") == 1 and len(seq) == 61


def test_member_source_reads_spans_and_refuses_missing_or_short_ones(tmp_path):
    from crawlmill.formats.codecs.compression import MemberSource

    path = tmp_path / "in.bin"
    path.write_bytes(b"0123456789")
    source = MemberSource()
    try:
        assert source.read(str(path), 2, 3) == b"234"
        assert source.read(str(path), 8, 5) is None  # past the end
        assert source.read(str(tmp_path / "absent"), 0, 1) is None
        assert source.read(str(path), 0, 2) == b"01"  # the same handle, seeked back
    finally:
        source.close()
    source.close()  # idempotent


@pytest.mark.parametrize("which", [0, 1, 2])
def test_member_with_reserved_flag_bits_is_inflated_and_reported(which):
    """RFC 1952: reserved FLG bits make a member non-compliant (zlib rejects it, isal does
    not): its bytes are handed out whole, then one Broken names its compressed span."""
    raws = [b"record %d " % i * 40 for i in range(3)]
    blobs = [bytearray(gz(r)) for r in raws]
    blobs[which][3] |= 0x20
    data = b"".join(blobs)
    items = list(iter_pieces(io.BytesIO(data), "gzip"))
    (broken,) = [i for i in items if isinstance(i, Broken)]
    start = sum(map(len, blobs[:which]))
    assert (broken.offset, broken.length) == (start, len(blobs[which]))
    assert broken.error_offset == start + 3 and broken.partial
    assert broken.data == bytes(blobs[which])
    assert "reserved FLG bits" in broken.reason
    assert items.index(broken) == which + 1  # right after the member's pieces
    got = [i for i in items if isinstance(i, Piece)]
    assert b"".join(p.data for p in got) == b"".join(raws)
    assert [(p.offset, p.length) for p in got] == [
        (sum(map(len, blobs[:k])), len(blobs[k])) for k in range(3)
    ]


def test_whole_file_gzip_with_reserved_flag_bits_streams_then_reports():
    raw = b"".join(b"line %d of a whole-file gzip\n" % i for i in range(50000))
    blob = bytearray(gz(raw))
    blob[3] |= 0x40
    items = list(iter_pieces(io.BytesIO(bytes(blob)), "gzip", piece_size=1 << 16))
    assert isinstance(items[-1], Broken) and not any(isinstance(i, Broken) for i in items[:-1])
    assert b"".join(i.data for i in items[:-1]) == raw
    assert (items[-1].offset, items[-1].length) == (0, len(blob))


def test_corrupt_member_with_reserved_flag_bits_names_both_problems():
    blob = bytearray(gz(b"abc" * 1000))
    blob[3] |= 0x20
    blob[-8] ^= 0xFF  # CRC32
    (broken,) = [i for i in iter_pieces(io.BytesIO(bytes(blob)), "gzip") if isinstance(i, Broken)]
    assert "reserved FLG bits" in broken.reason and broken.offset == 0


def test_damaged_gzip_header_needs_a_gzip_header_and_a_deflate_stream():
    from crawlmill.formats.codecs.compression import damaged_gzip_header

    intact = gz(b"WARC/1.0\r\n" * 50)
    assert damaged_gzip_header(intact) is None  # the magic is fine
    for pos, bit in ((0, 1), (1, 0x40)):
        bad = bytearray(intact)
        bad[pos] ^= bit
        assert damaged_gzip_header(bytes(bad)) == 10
    bad = bytearray(intact)
    bad[0] ^= 1
    bad[2] = 7  # not deflate
    assert damaged_gzip_header(bytes(bad)) is None
    bad[2] = 8
    bad[10:14] = b"\xff\xff\xff\xff"  # no deflate stream after the header
    assert damaged_gzip_header(bytes(bad)) is None
    assert damaged_gzip_header(b"WARC/1.0\r\nWARC-Type: x\r\n") is None
    assert damaged_gzip_header(b"\x00\x00\x08\x00" + bytes(100)) is None


def test_whole_file_gzip_with_a_damaged_magic_inflates_with_one_broken():
    raw = b"".join(b"line %d\n" % i for i in range(20000))
    blob = bytearray(gz(raw))
    blob[1] ^= 0x10
    for threads in (0, 2):
        items = list(iter_pieces(io.BytesIO(bytes(blob)), "gzip", threads=threads))
        broken = [i for i in items if isinstance(i, Broken)]
        assert len(broken) == 1 and broken[0].offset == 0 and broken[0].length == len(blob)
        assert "damaged gzip magic" in broken[0].reason
        assert b"".join(i.data for i in items if isinstance(i, Piece)) == raw
    # only at the start of the file: a later member is resynced on, not guessed at
    two = gz(b"first") + bytes(blob)
    items = list(iter_pieces(io.BytesIO(two), "gzip"))
    assert [i.data for i in items if isinstance(i, Piece)] == [b"first"]
