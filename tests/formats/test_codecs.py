"""The codec table: detection by magic, suffixes, and a codec added by registering it alone."""

from __future__ import annotations

import io
import zlib

import pytest
from crawlmill.formats.codecs import table as codecs
from crawlmill.formats.codecs.compression import (
    COMPRESSION_SUFFIXES,
    Broken,
    Piece,
    compression_of,
    iter_pieces,
    read_head,
)
from crawlmill.formats.codecs.table import CODECS, Codec, FrameCodec, codec_named, detect
from crawlmill.formats.warc.framer import DamagedRange, FramedRecord, WarcFramer, locate_start

from tests.helpers import gz

TOY_MAGIC = b"TOY\x01"


class _ToyDecoder:
    """A toy frame: ``TOY\\x01`` and a raw deflate stream (a streaming decoder as zstd's)."""

    def __init__(self) -> None:
        self._head = b""
        self._inflate = zlib.decompressobj(-zlib.MAX_WBITS)

    @property
    def eof(self) -> bool:
        return self._inflate.eof

    @property
    def unused_data(self) -> bytes:
        return self._inflate.unused_data

    def decompress(self, data: bytes) -> bytes:
        if len(self._head) < 4:
            take = 4 - len(self._head)
            self._head += bytes(data[:take])
            data = data[take:]
            if not TOY_MAGIC.startswith(self._head):
                raise ValueError("not a toy frame")
        return self._inflate.decompress(data)


class ToyCodec(FrameCodec):
    """Frames of raw deflate behind a 4-byte magic."""

    name = "toy"
    magic = TOY_MAGIC
    suffixes = (".toy",)
    errors = (ValueError, zlib.error)

    def decompressor(self) -> _ToyDecoder:
        return _ToyDecoder()


def toy(data: bytes) -> bytes:
    c = zlib.compressobj(6, zlib.DEFLATED, -zlib.MAX_WBITS)
    return TOY_MAGIC + c.compress(data) + c.flush()


def warc(i: int) -> bytes:
    block = b"payload %d " % i * (i + 1)
    head = (
        b"WARC/1.1\r\nWARC-Type: resource\r\nWARC-Target-URI: http://example.com/%d\r\n"
        b"WARC-Date: 2020-01-01T00:00:00Z\r\nWARC-Record-ID: <urn:uuid:%08d-0000-0000-0000-"
        b"000000000000>\r\nContent-Type: text/plain\r\nContent-Length: %d\r\n\r\n"
    ) % (i, i, len(block))
    return head + block + b"\r\n\r\n"


@pytest.fixture
def toy_codec(monkeypatch):
    codec = ToyCodec()
    monkeypatch.setitem(CODECS, codec.name, codec)
    return codec


def test_the_table_holds_today_s_codecs_in_detection_order():
    assert list(CODECS) == ["gzip", "zstd", "lz4", "bzip2"]
    for codec in CODECS.values():
        assert isinstance(codec, Codec)
        assert set(codec.suffixes) <= set(COMPRESSION_SUFFIXES)
        for magic in codec.magics:
            assert detect(magic + b"rest") == codec.name == compression_of(magic)
    assert detect(b"WARC/1.0\r\n") is None and detect(b"") is None
    assert codec_named("zstd").resync == b"\x28\xb5\x2f\xfd"
    assert codec_named("zstd").magics[1] == b"\x5d\x2a\x4d\x18"  # the .warc.zst dictionary
    with pytest.raises(KeyError):
        codec_named("snappy")


def test_each_codec_s_decompressor_decodes_one_member():
    data = b"hello codec " * 100
    dec = codec_named("gzip").decompressor()
    assert dec.decompress(gz(data)) == data and dec.eof
    lz4_frame = pytest.importorskip("lz4.frame")
    assert codec_named("lz4").decompressor().decompress(lz4_frame.compress(data)) == data
    zstandard = pytest.importorskip("zstandard")
    frame = zstandard.ZstdCompressor().compress(data)
    assert codec_named("zstd").decompressor().decompress(frame) == data


def test_a_registered_codec_is_detected_and_read_member_by_member(toy_codec, tmp_path):
    records = [warc(i) for i in range(5)]
    frames = [toy(r) for r in records]
    blob = b"".join(frames)
    assert compression_of(blob) == "toy"
    path = tmp_path / "a.warc.toy"
    path.write_bytes(blob)
    assert read_head(str(path), 100) == b"".join(records)[:100]
    assert locate_start(blob) == ("toy", 0)
    items = list(iter_pieces(io.BytesIO(blob), "toy"))
    assert all(isinstance(p, Piece) and p.end for p in items)
    offsets = [sum(map(len, frames[:i])) for i in range(5)]
    assert [(p.offset, p.length, p.data) for p in items] == list(
        zip(offsets, map(len, frames), records, strict=True)
    )
    framed = list(WarcFramer(iter(items)))
    assert all(isinstance(r, FramedRecord) for r in framed)
    assert [(r.member_offset, r.member_length) for r in framed] == list(
        zip(offsets, map(len, frames), strict=True)
    )


def test_a_registered_codec_resyncs_after_damage(toy_codec):
    frames = [toy(warc(i)) for i in range(4)]
    junk = b"\x00junk\x00" * 3
    cut = frames[2][: len(frames[2]) // 2]
    blob = frames[0] + junk + frames[1] + cut + frames[3]
    items = list(iter_pieces(io.BytesIO(blob), "toy"))
    broken = [b for b in items if isinstance(b, Broken)]
    assert [(b.offset, b.length) for b in broken] == [
        (len(frames[0]), len(junk)),
        (len(frames[0]) + len(junk) + len(frames[1]), len(cut)),
    ]
    assert "bytes outside any toy frame" in broken[0].reason
    framed = list(WarcFramer(iter(items)))
    urls = [r.header.get(b"warc-target-uri") for r in framed if isinstance(r, FramedRecord)]
    assert urls == [b"http://example.com/0", b"http://example.com/1", b"http://example.com/3"]
    assert any(isinstance(d, DamagedRange) and d.compressed for d in framed)


def test_a_registered_codec_converts_through_the_cli(toy_codec, tmp_path):
    from crawlmill.core import open_reader
    from crawlmill.core.commands.cli import main

    records = [warc(i) for i in range(3)]
    src = tmp_path / "in" / "a.warc.toy"
    src.parent.mkdir()
    src.write_bytes(b"".join(toy(r) for r in records))
    out = tmp_path / "out"
    assert main(["convert", str(src), "--to", "warc", "-o", str(out), "--workers", "1"]) == 0
    (written,) = [p for p in out.rglob("*") if p.is_file() and ".crawlmill" not in p.parts]
    with open_reader(str(written), "warc") as got:
        urls = [r.url for r in got if r.kind.value != "warcinfo"]
    assert urls == [f"http://example.com/{i}" for i in range(3)]


def test_codecs_module_keeps_its_table_unchanged_by_the_fixture():
    assert "toy" not in codecs.CODECS


def test_a_registered_codec_s_suffix_is_stripped_from_output_names(toy_codec, tmp_path):
    from crawlmill.core.commands.cli import main
    from crawlmill.core.naming import named_with, strip_suffixes

    assert strip_suffixes("d/a.warc.toy") == "d/a"
    assert named_with("x.warc.TOY", (".warc",))
    src = tmp_path / "in" / "a.warc.toy"
    src.parent.mkdir()
    src.write_bytes(toy(warc(0)))
    out = tmp_path / "out"
    assert main(["convert", str(src), "-o", str(out), "--workers", "1"]) == 0
    written = [p.name for p in out.rglob("*") if p.is_file() and ".crawlmill" not in p.parts]
    assert written == ["a.warc.gz"]
