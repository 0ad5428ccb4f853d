"""Frame-by-frame decoding of frame codecs (zstd, LZ4, and any codec built like them).

:func:`decode_frame` decodes one frame with a streaming decompressor, bounded, replaying the
frame on damage (:func:`~crawlmill.formats.codecs.pieces.salvage_member`) and resyncing on the next
frame magic; :func:`iter_frames` walks a file of frames (LZ4, a codec registered through
:class:`crawlmill.formats.codecs.table.FrameCodec`).
"""

from __future__ import annotations

from collections import deque
from collections.abc import Iterator
from typing import Any, BinaryIO

from .bounds import frame_bound
from .pieces import RESCAN_WINDOW, Broken, Piece, Window, held_bytes, salvage_member, skip_to_magic

__all__ = [
    "FixedFeeds",
    "decode_frame",
    "have",
    "iter_frames",
    "lz4_steps",
    "not_a_frame",
    "whole_call",
]


def whole_call(dec, chunk) -> Iterator[bytes]:
    """A ``decode`` for :func:`salvage`: one call of a zstd or LZ4 decoder."""
    yield dec.decompress(bytes(chunk))


def lz4_steps(cap: int):
    """A ``decode`` for LZ4 frames: outputs of at most ``cap`` bytes."""

    def decode(dec, chunk) -> Iterator[bytes]:
        yield dec.decompress(bytes(chunk), max_length=cap)
        while not dec.eof and not dec.needs_input:
            yield dec.decompress(b"", max_length=cap)

    return decode


def have(inp: Window, keep: int, end: int) -> bool:
    """Read on until the window holds file bytes up to ``end``; false at the end of the file."""
    while inp.base + len(inp.data) < end:
        if not inp.fill(keep):
            return False
    return True


class FixedFeeds:
    """Feeds of 8 KiB (LZ4: the decoder itself bounds each output)."""

    def __call__(self, inp: Window, start: int, pos: int) -> int:
        have(inp, start if pos - start <= RESCAN_WINDOW else pos, pos + 1)
        return min(pos + (1 << 13), inp.base + len(inp.data))


def not_a_frame(inp: Window, pos: int, name: str, magic: bytes) -> Iterator[Broken]:
    """Report the bytes from ``pos`` to the next ``name`` frame magic as damage; returns the
    offset of that magic (or the end of the file)."""
    nxt = skip_to_magic(inp, pos + 1, magic, pos)
    reason = f"{nxt - pos} bytes outside any {name} frame"
    yield Broken(pos, nxt - pos, reason, held_bytes(inp, pos, nxt), code="not-compressed-data")
    return nxt


def decode_frame(
    inp: Window,
    pos: int,
    member: int,
    new_decoder: Any,
    decode: Any,
    new_feeds: Any,
    errors: tuple[type[BaseException], ...],
    name: str,
    limit: int,
    piece_size: int,
    bound: tuple[int, str] | None = None,
    magic: bytes = b"",
) -> Iterator[Piece | Broken]:
    """Decode one ``name`` frame (zstd, LZ4) that starts at file offset ``pos`` with the
    streaming decompressors ``new_decoder()`` makes (``decompress``, ``eof``, ``unused_data``),
    fed by ``decode(decoder, feed)`` (bounded outputs) with the input slices ``new_feeds()``
    plans (``feeds(inp, start, pos)`` -> end offset of the next feed).
    Yields its :class:`Piece` items, or on damage the pieces so far and one :class:`Broken` up
    to the next frame magic; returns the file offset after the frame (or of that next magic).
    With ``bound`` (``(bytes, name)``, lower than ``limit``) the pieces are held back until
    the frame ends; a frame beyond it yields only the ``Broken``, with its compressed bytes.
    Without (the first frame, a stream), only ``limit`` bounds it. ``magic`` starts a frame:
    the resync target after damage."""
    start, produced, error, error_at, code = pos, 0, None, None, ""
    dec = new_decoder()
    pending: list[bytes] = []
    pending_size = 0
    partial = False
    limit_name = "max_decompressed_bytes"
    held: deque[bytes] | None = None
    if bound is not None and bound[0] < limit:
        (limit, limit_name), held = bound, deque()
    feeds = new_feeds()
    while True:
        # the feeds bound the output of one call (zstd: whole blocks, each at most 128 KiB)
        end = feeds(inp, start, pos)
        if end <= pos:
            error = f"{name} frame truncated: file ends after {pos - start} compressed bytes"
            code = "truncated-member"
            break
        rel = pos - inp.base
        feed = inp.data[rel : end - inp.base]
        try:
            outs = list(decode(dec, feed))
        except errors as exc:
            # the call's output is lost: replay the frame to keep all that decoded
            saved = salvage_member(
                inp, start, pos, feed, new_decoder, decode, errors, produced,
                limit - produced, 1 << 8,
            )  # fmt: skip
            for data in saved.pieces:
                pending.append(data)
                pending_size += len(data)
                produced += len(data)
            error_at = pos + saved.consumed
            error = (
                f"corrupt {name} frame ({exc}) at compressed byte {error_at},"
                f" after {produced} decoded bytes"
            )
            code = "corrupt-member"
            break
        pos += len(feed) - (len(dec.unused_data or b"") if dec.eof else 0)
        produced += sum(map(len, outs))
        if produced > limit:
            error = f"{name} frame inflates beyond {limit_name}={limit}; stopped there"
            code = "decompression-limit"
            if held is not None:  # the compressed bytes go to the Broken, not the decoded ones
                held, pending = None, []
            break
        for out in outs:
            if out:
                pending.append(out)
                pending_size += len(out)
        if dec.eof:
            while held:
                yield Piece(held.popleft(), start, member=member)
            yield Piece(b"".join(pending), start, end=True, length=pos - start, member=member)
            return pos, True
        if pending_size >= piece_size:
            if held is not None:
                held.append(b"".join(pending))
            else:
                partial = True
                yield Piece(b"".join(pending), start, member=member)
            pending, pending_size = [], 0
    while held:  # a frame cut by damage: what decoded before it is handed out
        partial = True
        yield Piece(held.popleft(), start, member=member)
    if pending:
        partial = True
        yield Piece(b"".join(pending), start, member=member)
    nxt = skip_to_magic(inp, max(start + 1, inp.base), magic, start)
    if nxt <= start:
        nxt = skip_to_magic(inp, pos, magic)
    yield Broken(start, nxt - start, error, held_bytes(inp, start, nxt), partial, error_at, code)
    return nxt, False


def iter_frames(
    fh: BinaryIO, codec: Any, limit: int, piece_size: int, member_limit: int | None = None
) -> Iterator[Piece | Broken]:
    """The frames of ``codec`` (a :class:`crawlmill.formats.codecs.table.FrameCodec`: ``magic``,
    ``label``, ``decompressor()``, ``decode(cap)``, ``feeds()``, ``errors``) in file order:
    bounded, with damage reported and resync on the next frame magic. LZ4 (FastWARC's
    ``.warc.lz4``, one frame per record) is read so."""
    magic, label = codec.magic, codec.label
    inp = Window(fh)
    inp.fill(0)
    pos = member = 0
    ended = False  # a frame ended: later ones are bounded by member_limit
    while True:
        if pos - inp.base + 8 > len(inp.data) and not inp.eof:
            inp.fill(pos)
        rel = pos - inp.base
        if rel >= len(inp.data):
            return
        if inp.data[rel : rel + len(magic)] != magic:
            pos = yield from not_a_frame(inp, pos, label, magic)
            continue
        pos, ok = yield from decode_frame(
            inp,
            pos,
            member,
            codec.decompressor,
            codec.decode(piece_size),
            codec.feeds,
            codec.errors,
            label,
            limit,
            piece_size,
            frame_bound(member_limit, ended),
            magic,
        )
        ended = ended or ok
        member += 1
