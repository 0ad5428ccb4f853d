"""Whether a damaged member is "cut by the end of the file" is decided from its problem code
(``truncated-member``, docs/problems.md: "a gzip member (or zstd frame) cut by the end of the
file"), not from its message text, by the WARC and ARC framers alike.

Each case is built here and compared with the gzip case that has the same meaning:

* a zstd skippable frame cut by the end of the file (RFC 8878 3.1.2: "Frame_Size = 4 + 4 +
  Frame_Size" bytes follow the magic; fewer are there) after a record whose block the file
  cuts: as a gzip member cut by the end of the file, the partial record is delivered, marked
  truncated, and its bytes are damage;
* a frame of a registered codec that fails mid-file with zlib's own message "incomplete or
  truncated stream" (a deflate chunk its frame declares whole is cut): the file goes on, so
  the member is corrupt (``corrupt-member``), not cut by the end of the file, whatever the
  message says; a zstd skippable frame cut by the end says "truncated", not "file ends",
  and is ``truncated-member``;
* a member that ends without its trailer while the file goes on is ``corrupt-member``.
"""

from __future__ import annotations

import gzip
import io
import struct
import zlib

import pytest
from crawlmill.formats.arc.lines import cut_by_eof
from crawlmill.formats.codecs.compression import iter_pieces
from crawlmill.formats.codecs.pieces import Broken, Piece
from crawlmill.formats.codecs.stream import MemberStream
from crawlmill.formats.codecs.table import CODECS, FrameCodec
from crawlmill.formats.warc.framer import FramedRecord, WarcFramer

zstandard = pytest.importorskip("zstandard")


def _warc(i: int, block: bytes) -> bytes:
    head = (
        f"WARC/1.1\r\nWARC-Type: resource\r\nWARC-Target-URI: http://example.com/{i}\r\n"
        "WARC-Date: 2020-01-01T00:00:00Z\r\nWARC-Record-ID: <urn:uuid:00000000-0000-4000-8000"
        f"-00000000000{i}>\r\nContent-Type: text/plain\r\nContent-Length: {len(block)}\r\n\r\n"
    )
    return head.encode() + block + b"\r\n\r\n"


def _framed(data: bytes, kind: str) -> list[tuple]:
    out = []
    for item in WarcFramer(iter_pieces(io.BytesIO(data), kind)):
        if isinstance(item, FramedRecord):
            out.append(("record", item.block[:8], item.truncated))
        else:
            out.append(("damage", item.code))
    return out


def test_a_zstd_skippable_frame_cut_by_the_end_of_the_file_cuts_the_record_as_gzip_does():
    whole = _warc(1, b"first block")
    cut = _warc(2, b"second block that the file cuts")[:-30]  # its frame is whole, its block not
    skippable = struct.pack("<II", 0x184D2A50, 100) + b"only ten b"  # 100 declared, 10 there
    zc = zstandard.ZstdCompressor()
    zst = zc.compress(whole) + zc.compress(cut) + skippable
    gz = gzip.compress(whole) + gzip.compress(cut) + gzip.compress(b"")[:7]  # a member cut
    got = _framed(zst, "zstd")
    assert got == _framed(gz, "gzip")
    assert ("record", b"secon", True) in got and ("damage", "truncated-member") in got


class _ChunkDecoder:
    """A frame: magic ``CHNK``, then chunks of ``<length><raw deflate>``, a zero length ends
    it. Each chunk is inflated in one call (``zlib.decompress``): a chunk whose deflate data is
    cut raises zlib's own ``incomplete or truncated stream``."""

    def __init__(self) -> None:
        self.buf = b""
        self.eof = False
        self.unused_data = b""

    def decompress(self, data: bytes) -> bytes:
        self.buf += data
        out = []
        at = 4
        while len(self.buf) >= at + 4:
            (n,) = struct.unpack_from(">I", self.buf, at)
            if n == 0:
                self.eof, self.unused_data = True, self.buf[at + 4 :]
                self.buf = b""
                break
            if len(self.buf) < at + 4 + n:
                break
            out.append(zlib.decompress(self.buf[at + 4 : at + 4 + n], -15))
            at += 4 + n
        if not self.eof:
            self.buf = self.buf[:4] + self.buf[at:]
        return b"".join(out)


class ChunkCodec(FrameCodec):
    name = "chunks"
    magic = b"CHNK"
    suffixes = (".chnk",)
    errors = (zlib.error,)

    def decompressor(self) -> _ChunkDecoder:
        return _ChunkDecoder()


def _deflate(data: bytes) -> bytes:
    c = zlib.compressobj(6, zlib.DEFLATED, -15)
    return c.compress(data) + c.flush()


def _chunks(*parts: bytes) -> bytes:
    return b"CHNK" + b"".join(struct.pack(">I", len(p)) + p for p in parts) + bytes(4)


def test_a_frame_corrupt_mid_file_with_zlib_s_truncated_stream_is_not_cut_by_the_end(
    monkeypatch,
):
    """The frame's message says "truncated" (zlib's own words), its code says corrupt: the
    file goes on after it. The ARC parser's question (``cut_by_eof``) follows the code."""
    monkeypatch.setitem(CODECS, ChunkCodec.name, ChunkCodec())
    cut = _deflate(b"more bytes of the member " * 20)[:-6]  # declared whole, deflate cut
    data = _chunks(_deflate(b"a first chunk"), cut) + _chunks(_deflate(b"the next frame"))
    with pytest.raises(zlib.error, match="incomplete or truncated stream"):
        zlib.decompress(cut, -15)
    s = MemberStream(iter_pieces(io.BytesIO(data), "chunks"), hold_damage=False)
    while s.more():
        pass
    first = s.members.spans[0]
    assert "incomplete or truncated stream" in first.error and first.code == "corrupt-member"
    assert not cut_by_eof(first)
    assert s.get(0, s.end) == b"a first chunkthe next frame"
    # a zstd skippable frame cut by the end of the file: its code says so, not its message
    zc = zstandard.ZstdCompressor()
    zst = zc.compress(b"x" * 100) + struct.pack("<II", 0x184D2A50, 100) + b"only ten b"
    got = [p for p in iter_pieces(io.BytesIO(zst), "zstd") if isinstance(p, Broken)]
    assert [(b.code, "file ends" in b.reason) for b in got] == [("truncated-member", False)]


def test_a_member_that_ends_without_its_trailer_while_the_file_goes_on_is_corrupt():
    """A collecting stream meets a piece of a new member while one is open (no end piece, no
    Broken of its own): the open member is not cut by the end of the file."""
    items = [Piece(b"abc", 0, member=0), Piece(b"def", 10, end=True, length=5, member=1)]
    s = MemberStream(iter(items), hold_damage=False, compressed=True)
    while s.more():
        pass
    first = s.members.spans[0]
    assert first.error and first.code == "corrupt-member"
