"""The compression codecs a SequenceFile header names (``CompressionCodec`` class names), each
compressing and decompressing one value (RECORD) or one block buffer (BLOCK) as Hadoop does
(spec section 3).

zlib (``DefaultCodec``, ``DeflateCodec``), gzip, bzip2 and zstd buffers are plain streams;
Snappy and LZ4 use Hadoop's own block framing (``BlockCompressorStream``): groups of ``int
ulen`` then ``int clen`` + raw block until ``ulen`` bytes are out, not the snappy or LZ4 frame
formats. Every decompression is bounded: ``limit`` is the most bytes one buffer may inflate to,
and lengths read from the data are checked against it before anything is allocated.
"""

from __future__ import annotations

import bz2
import io
import zlib
from collections.abc import Callable

__all__ = [
    "CODECS",
    "DEFAULT_CODEC",
    "CodecError",
    "HadoopCodec",
    "codec_for",
    "codec_named",
]

HC = "org.apache.hadoop.io.compress."
DEFAULT_CODEC = HC + "DefaultCodec"


class CodecError(ValueError):
    """A buffer the codec cannot decompress (corrupt, cut short, beyond the limit)."""


class HadoopCodec:
    """One codec: its Java class name(s), ``compress`` and bounded ``decompress``."""

    def __init__(
        self,
        names: tuple[str, ...],
        short: str,
        compress: Callable[[bytes], bytes],
        decompress: Callable[[bytes, int], bytes],
    ) -> None:
        self.names = names
        #: the codec's option name (``default``, ``gzip``, ``bzip2``, ``snappy``, ``lz4``, ``zstd``).
        self.short = short
        self._compress = compress
        self._decompress = decompress

    @property
    def name(self) -> str:
        """The class name written in headers."""
        return self.names[0]

    def compress(self, data: bytes) -> bytes:
        """``data`` as one complete stream of this codec."""
        return self._compress(data)

    def decompress(self, data: bytes, limit: int) -> bytes:
        """The bytes ``data`` (one value's or one buffer's stream) inflates to, at most
        ``limit``; :class:`CodecError` when corrupt, cut short or over the limit."""
        try:
            out = self._decompress(bytes(data), limit)
        except CodecError:
            raise
        except Exception as exc:  # zlib.error, OSError, EOFError, lz4/snappy/zstd errors
            raise CodecError(f"{self.short} stream corrupt: {type(exc).__name__}: {exc}") from None
        if len(out) > limit:
            raise CodecError(f"{self.short} stream inflates beyond the limit of {limit} bytes")
        return out


#: how much one inflate call may produce: a stream is inflated in such chunks, so one that
#: goes beyond its limit (a bomb) is stopped holding the limit, not twice it.
INFLATE_CHUNK = 16 << 20


def _inflate(wbits: int, what: str) -> Callable[[bytes, int], bytes]:
    def run(data: bytes, limit: int) -> bytes:
        parts: list[bytes] = []  # one chunk (the usual case) is returned without a copy
        size = 0
        while True:
            d = zlib.decompressobj(wbits)
            feed = data
            while not d.eof:
                part = d.decompress(feed, min(INFLATE_CHUNK, limit + 1 - size))
                feed = d.unconsumed_tail
                if not part and not feed:
                    break  # input used up, no more output: cut short
                size += len(part)
                parts.append(part)
                if size > limit:
                    raise CodecError(f"{what} stream inflates beyond the limit of {limit} bytes")
            if not d.eof:
                raise CodecError(f"{what} stream cut short ({len(data)} bytes)")
            data = d.unused_data
            if not data:
                return parts[0] if len(parts) == 1 else b"".join(parts)
            if wbits != 31:  # concatenated members only for gzip
                raise CodecError(f"{len(data)} bytes after the end of the {what} stream")

    return run


def _bunzip(data: bytes, limit: int) -> bytes:
    parts: list[bytes] = []  # chunks, joined once: a bomb stops holding its limit
    size = 0
    while True:
        d = bz2.BZ2Decompressor()
        feed = data
        while not d.eof:
            part = d.decompress(feed, max_length=min(INFLATE_CHUNK, limit + 1 - size))
            feed = b""
            size += len(part)
            parts.append(part)
            if size > limit:
                raise CodecError(f"bzip2 stream inflates beyond the limit of {limit} bytes")
            if not part and d.needs_input:
                break  # input used up: cut short
        if not d.eof:
            raise CodecError(f"bzip2 stream cut short ({len(data)} bytes)")
        data = d.unused_data
        if not data:
            return parts[0] if len(parts) == 1 else b"".join(parts)


def _gzip(data: bytes) -> bytes:
    c = zlib.compressobj(6, zlib.DEFLATED, 31)
    return c.compress(data) + c.flush()


# -- Hadoop block framing (Snappy, LZ4) ------------------------------------------------------


def _framed(
    max_chunk: int,
    raw_compress: Callable[[bytes], bytes],
    raw_decompress: Callable[[bytes, int], bytes],
    what: str,
) -> tuple[Callable[[bytes], bytes], Callable[[bytes, int], bytes]]:
    def compress(data: bytes) -> bytes:
        out = bytearray(len(data).to_bytes(4, "big"))
        for start in range(0, len(data), max_chunk):
            block = raw_compress(data[start : start + max_chunk])
            out += len(block).to_bytes(4, "big") + block
        return bytes(out)

    def decompress(data: bytes, limit: int) -> bytes:
        # chunks sliced as views and joined once at the end: one copy of the output
        out: list = []
        size = 0
        data = memoryview(data)
        pos, n = 0, len(data)
        while pos < n:
            if pos + 4 > n:
                raise CodecError(f"{what} block framing cut short at {pos}")
            ulen = int.from_bytes(data[pos : pos + 4], "big", signed=True)
            pos += 4
            if ulen < 0 or size + ulen > limit:
                raise CodecError(
                    f"{what} group of {ulen} bytes at {pos - 4}: over the limit of {limit} or negative"
                )
            got = 0
            while got < ulen:
                if pos + 4 > n:
                    raise CodecError(f"{what} block framing cut short at {pos}")
                clen = int.from_bytes(data[pos : pos + 4], "big", signed=True)
                pos += 4
                if clen < 0 or pos + clen > n:
                    raise CodecError(
                        f"{what} chunk of {clen} bytes at {pos - 4}: beyond the buffer"
                    )
                block = raw_decompress(data[pos : pos + clen], ulen - got)
                pos += clen
                got += len(block)
                out.append(block)
            if got != ulen:
                raise CodecError(f"{what} group declares {ulen} bytes, its chunks hold {got}")
            size += got
        return b"".join(out)

    return compress, decompress


def _snappy() -> tuple[Callable[[bytes], bytes], Callable[[bytes, int], bytes]]:
    import cramjam

    def raw_decompress(block: bytes, room: int) -> bytes:
        size = cramjam.snappy.decompress_raw_len(block)
        if size > room:
            raise CodecError(
                f"snappy chunk inflates to {size} bytes, more than its group's {room} left"
            )
        return cramjam.snappy.decompress_raw(block)  # a buffer: joined by the caller

    # SnappyCompressor: MAX_INPUT_SIZE = 262144 - (262144 / 6 + 32)
    return _framed(
        218_422, lambda b: bytes(cramjam.snappy.compress_raw(b)), raw_decompress, "snappy"
    )


def _lz4() -> tuple[Callable[[bytes], bytes], Callable[[bytes, int], bytes]]:
    import lz4.block

    def raw_decompress(block: bytes, room: int) -> bytes:
        return lz4.block.decompress(block, uncompressed_size=room, return_bytearray=False)

    # Lz4Compressor: MAX_INPUT_SIZE = 262144 - (262144 / 255 + 16)
    return _framed(
        261_100, lambda b: lz4.block.compress(b, store_size=False), raw_decompress, "lz4"
    )


def _zstd() -> tuple[Callable[[bytes], bytes], Callable[[bytes, int], bytes]]:
    import zstandard

    def decompress(data: bytes, limit: int) -> bytes:
        reader = zstandard.ZstdDecompressor().stream_reader(
            io.BytesIO(data), read_across_frames=True
        )
        out = reader.read(limit + 1)
        if len(out) > limit:
            raise CodecError(f"zstd stream inflates beyond the limit of {limit} bytes")
        return out

    return zstandard.ZstdCompressor().compress, decompress


def _lazy(factory: Callable[[], tuple[Callable, Callable]]) -> tuple[Callable, Callable]:
    """A codec whose module is imported on first use."""
    made: list[tuple[Callable, Callable]] = []

    def get() -> tuple[Callable, Callable]:
        if not made:
            made.append(factory())
        return made[0]

    return (lambda data: get()[0](data)), (lambda data, limit: get()[1](data, limit))


#: every codec crawlmill reads and writes.
CODECS: tuple[HadoopCodec, ...] = (
    HadoopCodec((DEFAULT_CODEC,), "default", zlib.compress, _inflate(15, "zlib")),
    HadoopCodec((HC + "DeflateCodec",), "deflate", zlib.compress, _inflate(15, "zlib")),
    HadoopCodec((HC + "GzipCodec",), "gzip", _gzip, _inflate(31, "gzip")),
    HadoopCodec((HC + "BZip2Codec",), "bzip2", lambda d: bz2.compress(d, 9), _bunzip),
    HadoopCodec((HC + "SnappyCodec",), "snappy", *_lazy(_snappy)),
    HadoopCodec((HC + "Lz4Codec",), "lz4", *_lazy(_lz4)),
    HadoopCodec((HC + "ZStandardCodec",), "zstd", *_lazy(_zstd)),
)
_BY_NAME = {name: c for c in CODECS for name in c.names}
_BY_SHORT = {c.short: c for c in CODECS}


def codec_for(class_name: str) -> HadoopCodec | None:
    """The codec of the class a header names, or ``None`` when crawlmill has none (LZO...)."""
    return _BY_NAME.get(class_name)


def codec_named(short: str) -> HadoopCodec:
    """The codec of an option value (``default``, ``gzip``...), or ``KeyError``."""
    return _BY_SHORT[short]
