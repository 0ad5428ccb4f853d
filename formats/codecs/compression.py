"""Compression for every format: one entry point over the codec table, and the public names.

Readers of record-per-member formats (WARC, ARC) need more than a decompressed byte stream:
they need to know where each gzip member (or zstd/LZ4 frame) starts in the *compressed* file,
so that a record's provenance and a damaged range can be reported as CDX-style offsets, and
they need decompression to stop, report and resync instead of raising on a truncated or corrupt
member. :func:`iter_pieces` gives exactly that: a stream of :class:`Piece` (decompressed bytes
tagged with their member's compressed offset) and :class:`Broken` (a compressed range that
could not be decompressed) items, from the codec :func:`compression_of` names. Output per item
and per member is bounded, so a gzip bomb cannot exhaust memory.

The work is done in small modules, one job each:

* :mod:`.codecs` the ``Codec`` protocol and the codec table (detection by magic, suffixes);
* :mod:`.detect` which codec a file uses and its first decompressed bytes (sniffing);
* :mod:`.pieces` ``Piece``/``Broken`` and the compressed-input window;
* :mod:`.gzip_stream` sequential, checked gzip inflate with resync; :mod:`.gzip_parallel`
  members inflated ahead in worker threads;
* :mod:`.frames` frame codecs (LZ4, registered ones); :mod:`.zstd_frames` zstd frames;
* :mod:`.bounds` how much a member may inflate to; :mod:`.prefetch` a background thread;
* :mod:`.member_source` spans of input files a writer copies (unchanged members): from the
  buffer the member reader lends (:class:`HeldMembers`), else read back from the file.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import BinaryIO

from .bounds import MAX_DICT_SIZE, MEMBER_SLACK, member_bound
from .detect import compression_of, read_head, read_head_of
from .gzip_member import inflates_to, member_problem
from .gzip_stream import GZIP_MAGIC, damaged_gzip_header, inflate_backend
from .member_source import HeldMembers, MemberSource
from .pieces import PIECE_SIZE, READ_SIZE, RESCAN_WINDOW, Broken, Piece
from .prefetch import prefetch
from .table import CODECS, LZ4_MAGIC, codec_named
from .zstd_frames import ZSTD_DICT_MAGIC, ZSTD_MAGIC, ZSTD_WARC_DICT_MAGIC

#: the file-name suffixes that say a file's bytes are compressed (``x.warc.gz``,
#: ``x.warc.zst``, FastWARC's ``x.warc.lz4``): the one list naming and detection strip before
#: a format suffix. Lower case; compare with the lower-cased name. Every codec's suffixes are
#: in it (a test checks), plus compressions crawlmill names but does not read.
COMPRESSION_SUFFIXES = (".gz", ".bz2", ".zst", ".zstd", ".lz4", ".xz", ".br")


def compression_suffixes() -> tuple[str, ...]:
    """:data:`COMPRESSION_SUFFIXES` and the suffixes of every codec registered since
    (:func:`~crawlmill.formats.codecs.table.register_codec`): what naming strips now."""
    extra = [s.lower() for c in CODECS.values() for s in c.suffixes]
    return tuple(dict.fromkeys((*COMPRESSION_SUFFIXES, *extra)))


__all__ = [
    "COMPRESSION_SUFFIXES",
    "compression_suffixes",
    "GZIP_MAGIC",
    "LZ4_MAGIC",
    "MAX_DICT_SIZE",
    "MEMBER_SLACK",
    "PIECE_SIZE",
    "READ_SIZE",
    "RESCAN_WINDOW",
    "ZSTD_DICT_MAGIC",
    "ZSTD_MAGIC",
    "ZSTD_WARC_DICT_MAGIC",
    "Broken",
    "HeldMembers",
    "MemberSource",
    "Piece",
    "compression_of",
    "damaged_gzip_header",
    "inflates_to",
    "inflate_backend",
    "iter_pieces",
    "member_bound",
    "member_problem",
    "prefetch",
    "read_head",
    "read_head_of",
]


def iter_pieces(
    fh: BinaryIO,
    kind: str | None,
    *,
    max_decompressed_bytes: int = 1 << 62,
    piece_size: int = PIECE_SIZE,
    threads: int = 0,
    batch: bool = False,
    max_member_bytes: int | None = None,
    held: HeldMembers | None = None,
) -> Iterator[Piece | Broken]:
    """Decompress ``fh`` (``kind``: a codec name from :func:`compression_of`, ``None`` for
    plain bytes) member by member with that codec of :mod:`crawlmill.formats.codecs.table`.

    Yields :class:`Piece` items in file order and a :class:`Broken` item for every compressed
    range that could not be decompressed; after a ``Broken`` it resyncs on the next member
    (gzip magic) and goes on. A member that would inflate beyond ``max_decompressed_bytes`` is
    cut there and reported as ``Broken``.

    ``max_member_bytes`` bounds the members (frames) of a multi-member file: once one member
    has ended, a later member that inflates beyond it is not inflated further and yields no
    piece, only one ``Broken`` with its compressed bytes (its pieces are held back until it
    ends, so memory stays within the bound plus a piece). The first member is a stream,
    bounded only by ``max_decompressed_bytes``: a whole-file gzip (ClueWeb09) is one large
    member, and junk inside it that deflates like a bomb (a 64 MiB header line) is followed
    by good records; its pieces are handed out as they come (memory stays at a piece), so
    the consumer skips the junk and the stream bound bounds the time a real bomb costs.
    :func:`member_bound` gives the bound for record-per-member files.

    With ``threads > 0`` gzip members are inflated ahead by that many worker threads, and by
    the consuming thread whenever it would otherwise wait (isal and zlib release the GIL; isal
    inflates a run of whole members in one call): member starts are guessed from the gzip
    magic and every guess is verified (each member must end exactly where the next begins,
    the trailers' sizes must add up); at the first member that does not verify, reading falls
    back to the sequential path from that member, so results are identical. Only with
    ``batch=True`` may one piece hold several whole members (listed in ``Piece.members``);
    otherwise every piece is one whole member. ``batch=True`` with ``threads=0`` takes the same
    verified path with no thread: the calling thread inflates each run of whole members in one
    call when it needs it (the least CPU time in all).

    ``held`` (a :class:`HeldMembers`): a codec that can (gzip on the verified path) lends it
    the compressed bytes of the members whose pieces it is handing out, so a writer copies an
    unchanged record's member from memory instead of reading it again; other codecs ignore it.
    """
    if kind is not None:
        codec = codec_named(kind)
        lend = {"held": held} if held is not None and getattr(codec, "holds_members", False) else {}
        yield from codec.members(
            fh,
            limit=max_decompressed_bytes,
            piece_size=piece_size,
            member_limit=max_member_bytes,
            threads=threads,
            batch=batch,
            **lend,
        )
    else:
        offset = 0
        while chunk := fh.read(max(piece_size, READ_SIZE)):
            yield Piece(chunk, None, member=0)
            offset += len(chunk)
