"""What a member-aware decompressor hands out, and the compressed-input window it reads from.

:class:`Piece` (decompressed bytes tagged with their member's compressed offset) and
:class:`Broken` (a compressed range that could not be decompressed) are the items every codec's
member iterator yields (:func:`crawlmill.formats.codecs.compression.iter_pieces`). :class:`Window`
holds the compressed bytes a codec is working on, so that a damaged range can be reported with
its bytes and a member replayed (:func:`salvage_member`).
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import BinaryIO

from .salvage import salvage

__all__ = [
    "PIECE_SIZE",
    "READ_SIZE",
    "RESCAN_WINDOW",
    "Broken",
    "Piece",
    "Window",
    "held_bytes",
    "salvage_member",
    "skip_to_magic",
    "span_bytes",
]

#: compressed bytes read from the file at a time.
READ_SIZE = 1 << 20
#: largest decompressed piece handed out at once (bounds memory for huge or hostile members).
PIECE_SIZE = 8 << 20
#: compressed bytes kept from a member's start so a corrupt member can be rescanned.
RESCAN_WINDOW = 16 << 20


@dataclass(slots=True)
class Piece:
    """Decompressed bytes of one member (gzip member, zstd frame) or of a plain file.

    ``offset`` is the compressed offset where the member starts (``None`` for plain files);
    ``end`` is true on the last piece of a member, which also carries the member's compressed
    ``length``. ``member`` counts members from 0. A piece may also hold several whole members
    (``members`` lists them; ``offset``/``length`` then span them all).
    """

    data: bytes
    offset: int | None
    end: bool = False
    length: int | None = None
    member: int = 0
    #: for a piece holding several whole members (parallel inflate): one
    #: ``(data_start, data_end, offset, length)`` per member, in order.
    members: list[tuple[int, int, int, int]] | None = None


@dataclass(slots=True)
class Broken:
    """A compressed range that could not be decompressed (truncated, corrupt, not a member).

    ``offset``/``length`` are positions in the compressed file; ``data`` holds the skipped
    compressed bytes (at most ``RESCAN_WINDOW``). ``partial`` is true when pieces of this member
    were already handed out before the problem was seen (their bytes are incomplete).
    ``error_offset`` is the compressed offset where decoding failed, when it failed inside
    the member (every byte decoded before it was handed out). ``code`` is the stable problem
    code (``docs/problems.md``) of what went wrong, set where it was found.
    """

    offset: int
    length: int
    reason: str
    data: bytes = b""
    partial: bool = False
    error_offset: int | None = None
    code: str = ""


class Window:
    """A window over a binary file: ``data`` holds file bytes from file offset ``base``."""

    __slots__ = ("base", "data", "eof", "fh")

    def __init__(self, fh: BinaryIO) -> None:
        self.fh = fh
        self.data = b""
        self.base = 0
        self.eof = False

    def fill(self, keep_from: int) -> bool:
        """Drop bytes before file offset ``keep_from``, read more; false at end of file."""
        if self.eof:
            return False
        chunk = self.fh.read(READ_SIZE)
        cut = max(0, keep_from - self.base)
        self.data = self.data[cut:] + chunk
        self.base += cut
        if not chunk:
            self.eof = True
            return False
        return True

    def find(self, needle: bytes, start: int, hold: int | None = None) -> int:
        """File offset of ``needle`` at or after file offset ``start``, reading on; -1 at EOF.
        Bytes from file offset ``hold`` on stay in the window while they are at most
        ``RESCAN_WINDOW`` (a damaged range's bytes, for its report)."""
        while True:
            i = self.data.find(needle, max(0, start - self.base))
            if i >= 0:
                return self.base + i
            # keep a tail that could hold the start of ``needle``
            keep = max(start, self.base + len(self.data) - len(needle) + 1)
            if hold is not None and self.base + len(self.data) - hold < RESCAN_WINDOW:
                keep = min(keep, max(hold, self.base))
            if not self.fill(keep):
                return -1


def skip_to_magic(inp: Window, start: int, magic: bytes, hold: int | None = None) -> int:
    """File offset of the next ``magic`` at or after ``start`` (or the file size at EOF);
    bytes from ``hold`` on stay in the window (see :meth:`Window.find`)."""
    found = inp.find(magic, start, hold)
    if found >= 0:
        return found
    return inp.base + len(inp.data)


def held_bytes(inp: Window, start: int, end: int) -> bytes:
    """The file bytes ``[start, end)`` still held in the input window (bounded)."""
    lo = max(0, start - inp.base)
    hi = max(lo, min(len(inp.data), end - inp.base, lo + RESCAN_WINDOW))
    return inp.data[lo:hi]


def span_bytes(inp: Window, start: int, end: int, step: int) -> Iterator[bytes]:
    """The compressed bytes ``[start, end)`` in ``step``-sized chunks: from the input window
    when it still holds them, else read again from the file (its position is restored)."""
    if start >= inp.base:
        for i in range(start - inp.base, end - inp.base, step):
            yield inp.data[i : min(i + step, end - inp.base)]
        return
    fh = inp.fh
    here = fh.tell()
    try:
        fh.seek(start)
        left = end - start
        while left > 0 and (chunk := fh.read(min(step, left))):
            left -= len(chunk)
            yield chunk
    finally:
        fh.seek(here)


def salvage_member(
    inp: Window,
    start: int,
    pos: int,
    failing: bytes,
    new_decoder,
    decode,
    errors: tuple[type[BaseException], ...],
    produced: int,
    cap: int,
    step: int,
):
    """:func:`~crawlmill.formats.codecs.salvage.salvage` of the member that starts at ``start`` and
    failed on the feed ``failing`` at ``pos``, after ``produced`` bytes were handed out."""
    chunks = span_bytes(inp, start, pos, step)
    try:
        return salvage(chunks, failing, new_decoder(), decode, errors, produced, max(0, cap))
    finally:
        chunks.close()
