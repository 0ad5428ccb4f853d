"""Issue 6 item 13 at the mechanism: every byte a decoder produced before it raised is handed
out (gzip with a bad CRC32 or a corrupt deflate stream, zstd and LZ4 with a bad checksum or a
corrupt block), and the damage names the compressed offset where decoding failed."""

from __future__ import annotations

import functools
import io
import random
import zlib

import pytest
from crawlmill.formats.codecs import gzip_stream, pieces
from crawlmill.formats.codecs.compression import Broken, Piece, iter_pieces

from tests.helpers import gz


def text(n_lines: int, seed: int = 1) -> bytes:
    rng = random.Random(seed)
    words = [b"alpha", b"beta", b"gamma", b"delta", b"record", b"WARC", b"http", b"\xff\x00"]
    return b"".join(
        b"line %d %s\r\n" % (i, b" ".join(rng.choice(words) for _ in range(rng.randrange(3, 20))))
        for i in range(n_lines)
    )


@functools.cache
def lines_3mb() -> bytes:
    """About 3 MB of text, about 1 MB deflated (made on first use, not at collection)."""
    return text(40_000)


def delivered(items) -> tuple[bytes, list[Broken]]:
    data, broken = [], []
    for item in items:
        if isinstance(item, Piece):
            data.append(item.data)
        else:
            broken.append(item)
    return b"".join(data), broken


def prefix_output(new_decoder, compressed: bytes) -> bytes:
    """What ``compressed`` (an intact frame's first bytes) decodes to: the bytes no damage
    after it can touch."""
    dec = new_decoder()
    return dec.decompress(compressed)


def test_gzip_bad_crc_hands_out_every_byte():
    member = bytearray(gz(lines_3mb()))
    member[-6] ^= 0x55  # CRC32
    tail = gz(b"next member")
    got, broken = delivered(iter_pieces(io.BytesIO(bytes(member) + tail), "gzip"))
    assert got == lines_3mb() + b"next member"
    (b,) = broken
    assert b.offset == 0 and b.partial and b.length == len(member)
    assert b.error_offset == len(member) - 1  # the check fails on the trailer's last byte
    assert f"at compressed byte {len(member) - 1}" in b.reason


@pytest.mark.parametrize("back", [200, 3000, 40_000])
def test_gzip_corrupt_byte_near_the_end_keeps_all_before_it(back):
    member = bytearray(gz(lines_3mb()))
    k = len(member) - back
    intact = prefix_output(lambda: zlib.decompressobj(31), bytes(member[:k]))
    member[k : k + 4] = b"\xff\xff\xff\xff"
    got, broken = delivered(iter_pieces(io.BytesIO(bytes(member)), "gzip"))
    assert len(got) >= len(intact) and got[: len(intact)] == intact
    (b,) = broken
    assert b.offset == 0 and b.partial and k <= b.error_offset < len(member)


def test_gzip_salvage_of_a_member_beyond_the_rescan_window(monkeypatch):
    """A whole-file member larger than the window kept in memory is read again from the file."""
    for module in (pieces, gzip_stream):
        monkeypatch.setattr(module, "RESCAN_WINDOW", 1 << 16)
    monkeypatch.setattr(pieces, "READ_SIZE", 1 << 16)
    member = bytearray(gz(lines_3mb()))
    member[-6] ^= 0x55
    fh = io.BytesIO(bytes(member) + gz(b"after"))
    got, broken = delivered(iter_pieces(fh, "gzip", piece_size=1 << 18))
    assert got == lines_3mb() + b"after" and len(broken) == 1


def test_gzip_salvage_keeps_the_bound():
    member = bytearray(gz(lines_3mb()))
    member[-6] ^= 0x55
    limit = len(lines_3mb()) - 1000
    got, broken = delivered(
        iter_pieces(io.BytesIO(bytes(member)), "gzip", max_decompressed_bytes=limit)
    )
    assert len(got) <= limit + (1 << 16) and got == lines_3mb()[: len(got)]
    assert len(broken) == 1


def _zstd():
    return pytest.importorskip("zstandard")


def test_zstd_bad_checksum_and_corrupt_block_keep_all_before():
    zstandard = _zstd()
    frame = zstandard.ZstdCompressor(write_checksum=True).compress(lines_3mb())
    bad = bytearray(frame)
    bad[-1] ^= 1
    got, broken = delivered(iter_pieces(io.BytesIO(bytes(bad)), "zstd"))
    assert got == lines_3mb() and len(broken) == 1 and broken[0].error_offset == len(frame) - 1
    k = len(frame) - 5000
    intact = prefix_output(lambda: zstandard.ZstdDecompressor().decompressobj(), frame[:k])
    bad = bytearray(frame)
    bad[k : k + 8] = b"\xee" * 8
    got, broken = delivered(iter_pieces(io.BytesIO(bytes(bad)), "zstd"))
    assert got[: len(intact)] == intact and len(intact) > len(lines_3mb()) // 2
    assert len(broken) == 1 and broken[0].error_offset >= k


def test_lz4_bad_checksum_and_corrupt_block_keep_all_before():
    import lz4.frame

    frame = lz4.frame.compress(lines_3mb(), content_checksum=True)
    bad = bytearray(frame)
    bad[-1] ^= 1
    got, broken = delivered(iter_pieces(io.BytesIO(bytes(bad)), "lz4"))
    assert got == lines_3mb() and len(broken) == 1 and broken[0].error_offset == len(frame) - 1
    k = len(frame) - 5000
    intact = prefix_output(lz4.frame.LZ4FrameDecompressor, frame[:k])
    bad = bytearray(frame)
    bad[k : k + 8] = b"\xee" * 8
    got, broken = delivered(iter_pieces(io.BytesIO(bytes(bad)), "lz4"))
    assert got[: len(intact)] == intact and len(intact) > len(lines_3mb()) // 2
    assert len(broken) == 1 and broken[0].error_offset >= k
