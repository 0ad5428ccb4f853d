"""The codec table: every compression crawlmill reads, behind one :class:`Codec` protocol.

A codec says how to recognise its bytes (``magics``: a file whose first bytes start with one
of them is compressed with it), which file-name ``suffixes`` it goes by, where a member or
frame starts (``resync``: the magic decoding resyncs on after damage), and how to decode:
``members`` walks a whole file member by member (gzip members, zstd or LZ4 frames), bounded,
yielding :class:`~crawlmill.formats.codecs.pieces.Piece` and :class:`~crawlmill.formats.codecs.pieces.Broken`
items; ``decompressor`` makes one streaming decoder (``decompress``, ``eof``,
``unused_data``), the primitive a block format such as Hadoop's SequenceFile uses for its
blocks.

A frame codec (one self-delimiting frame per record, a magic at each frame start) is a
:class:`FrameCodec`: it gives ``magic``, ``decompressor`` and ``errors`` and inherits the
bounded, resyncing frame walk (:func:`crawlmill.formats.codecs.frames.iter_frames`). LZ4 is one; a new
one is added with :func:`register_codec` (docs/adding-a-codec.md). Detection
(:func:`detect`) tries the codecs in table order.

Entries: ``gzip`` (isal when importable, zlib otherwise; worker threads inflate members ahead
with ``threads``), ``zstd`` (with the ``.warc.zst`` dictionary frame), ``lz4`` (LZ4 frames),
``bzip2`` (bzip2 streams: one per record, as multi-stream tools write them, or one for the
whole file, whose records then have stream offsets as in a whole-file gzip).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any, BinaryIO, ClassVar, Protocol, runtime_checkable

from .frames import FixedFeeds, iter_frames, lz4_steps, whole_call
from .gzip_stream import GZIP_MAGIC, inflate_lib, iter_gzip
from .pieces import Broken, Piece
from .zstd_frames import ZSTD_MAGIC, ZSTD_WARC_DICT_MAGIC, iter_zstd

__all__ = [
    "CODECS",
    "LZ4_MAGIC",
    "Bzip2Codec",
    "Codec",
    "FrameCodec",
    "codec_named",
    "detect",
    "register_codec",
]

LZ4_MAGIC = b"\x04\x22\x4d\x18"


@runtime_checkable
class Codec(Protocol):
    """One compression: detection, names and bounded member-by-member decoding."""

    #: the name :func:`detect` returns and :func:`codec_named` takes (``"gzip"``).
    name: str
    #: a file whose first bytes start with one of these is compressed with this codec.
    magics: tuple[bytes, ...]
    #: the bytes that start every member/frame: the resync target after damage.
    resync: bytes
    #: file-name suffixes (lower case, with the dot) of files compressed with this codec.
    suffixes: tuple[str, ...]

    def members(
        self,
        fh: BinaryIO,
        *,
        limit: int,
        piece_size: int,
        member_limit: int | None = None,
        threads: int = 0,
        batch: bool = False,
    ) -> Iterator[Piece | Broken]:
        """Decode ``fh`` member by member (see :func:`crawlmill.formats.codecs.compression.iter_pieces`)."""
        ...

    def decompressor(self) -> Any:
        """A fresh streaming decoder of one member/frame/block (``decompress``, ``eof``,
        ``unused_data``)."""
        ...


class GzipCodec:
    """gzip members (RFC 1952): one per record (``.warc.gz``) or one for a whole file."""

    name = "gzip"
    magics = (GZIP_MAGIC,)
    resync = b"\x1f\x8b\x08"
    suffixes = (".gz",)

    #: :meth:`members` takes ``held`` (lends its compressed bytes, :class:`HeldMembers`).
    holds_members = True

    def members(
        self, fh, *, limit, piece_size, member_limit=None, threads=0, batch=False, held=None
    ):
        """Sequential checked inflate, or ``threads`` workers inflating whole members ahead
        (``threads=0`` with ``batch``: the same verified batches, inflated in this thread;
        ``held`` lends their compressed bytes while their pieces are handed out)."""
        if threads > 0 or batch:
            from .gzip_parallel import iter_gzip_parallel

            return iter_gzip_parallel(fh, limit, piece_size, threads, batch, member_limit, held)
        return iter_gzip(fh, limit, piece_size, member_limit=member_limit)

    def decompressor(self) -> Any:
        """An isal (or zlib) gzip decoder."""
        return inflate_lib.decompressobj(31)


class ZstdCodec:
    """zstd frames (RFC 8878), one per record in ``.warc.zst``, after an optional dictionary
    frame (skippable frame ``0x184D2A5D``)."""

    name = "zstd"
    magics = (ZSTD_MAGIC, ZSTD_WARC_DICT_MAGIC)
    resync = ZSTD_MAGIC
    suffixes = (".zst", ".zstd")

    def members(self, fh, *, limit, piece_size, member_limit=None, threads=0, batch=False):
        """zstd frames with the dictionary applied (``threads`` and ``batch`` are ignored)."""
        return iter_zstd(fh, limit, piece_size, member_limit)

    def decompressor(self) -> Any:
        """A zstandard streaming decoder (no dictionary)."""
        import zstandard

        return zstandard.ZstdDecompressor().decompressobj()


class FrameCodec:
    """Base of a codec of self-delimiting frames that each start with ``magic``: subclasses
    set ``name``, ``magic``, ``suffixes``, ``errors`` and :meth:`decompressor`, and may
    override :meth:`decode` (bounded outputs of one feed) and ``feeds`` (how much compressed
    input one call gets). Frames are read with :func:`crawlmill.formats.codecs.frames.iter_frames`."""

    name: ClassVar[str]
    magic: ClassVar[bytes]
    suffixes: ClassVar[tuple[str, ...]] = ()
    #: the exceptions the decoder raises on corrupt input.
    errors: ClassVar[tuple[type[BaseException], ...]] = (ValueError,)
    #: how damage reasons name the codec (``"LZ4 frame truncated: ..."``); default: ``name``.
    label: ClassVar[str] = ""
    #: makes the feed planner: ``feeds()(window, frame_start, pos)`` -> end of the next feed.
    feeds: ClassVar[Callable[[], Any]] = FixedFeeds

    def __init__(self) -> None:
        self.magics = (self.magic,)
        self.resync = self.magic
        if not self.label:
            self.label = self.name

    def decompressor(self) -> Any:
        """A fresh streaming decoder of one frame."""
        raise NotImplementedError

    def decode(self, cap: int) -> Callable[[Any, bytes], Iterator[bytes]]:
        """``decode(decoder, feed)``: the outputs of one feed (default: one call)."""
        return whole_call

    def members(self, fh, *, limit, piece_size, member_limit=None, threads=0, batch=False):
        """The frames of ``fh`` (``threads`` and ``batch`` are ignored)."""
        return iter_frames(fh, self, limit, piece_size, member_limit)


class Lz4Codec(FrameCodec):
    """LZ4 frames (FastWARC's ``.warc.lz4``: one frame per record)."""

    name = "lz4"
    label = "LZ4"
    magic = LZ4_MAGIC
    suffixes = (".lz4",)
    errors = (RuntimeError,)

    def decompressor(self) -> Any:
        """An ``lz4.frame`` streaming decoder."""
        import lz4.frame

        return lz4.frame.LZ4FrameDecompressor()

    def decode(self, cap: int) -> Callable[[Any, bytes], Iterator[bytes]]:
        """Outputs of at most ``cap`` bytes (the decoder bounds them itself)."""
        return lz4_steps(cap)


class Bzip2Codec(FrameCodec):
    """bzip2 streams (``.warc.bz2``): one per record (multi-stream, as ``pbzip2`` or a
    per-record writer makes it) or one for the whole file. A stream starts ``BZh`` and a block
    size digit ``1``-``9``; damage resyncs on the next ``BZh``."""

    name = "bzip2"
    magic = b"BZh"
    suffixes = (".bz2",)
    errors = (OSError, EOFError)  # what BZ2Decompressor raises on corrupt input

    def __init__(self) -> None:
        super().__init__()
        self.magics = tuple(b"BZh" + bytes([d]) for d in b"123456789")

    def decompressor(self) -> Any:
        """A ``bz2.BZ2Decompressor`` (one stream)."""
        import bz2

        return bz2.BZ2Decompressor()

    def decode(self, cap: int) -> Callable[[Any, bytes], Iterator[bytes]]:
        """Outputs of at most ``cap`` bytes (one feed can inflate far beyond a piece)."""
        return lz4_steps(cap)


#: the codec table, in detection order.
CODECS: dict[str, Codec] = {}


def register_codec(codec: Codec) -> Codec:
    """Add ``codec`` to the table (replacing one of the same name); returns it."""
    CODECS[codec.name] = codec
    return codec


def codec_named(name: str) -> Codec:
    """The codec called ``name`` (``KeyError`` for an unknown one)."""
    return CODECS[name]


def detect(head: bytes) -> str | None:
    """The name of the codec whose magic starts ``head``, or ``None`` (not compressed)."""
    for codec in CODECS.values():
        if head.startswith(codec.magics):
            return codec.name
    return None


for _codec in (GzipCodec(), ZstdCodec(), Lz4Codec(), Bzip2Codec()):
    register_codec(_codec)
