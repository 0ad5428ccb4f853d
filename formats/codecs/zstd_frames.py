"""zstd frames: one per record in ``.warc.zst``, after an optional dictionary frame.

Feeds end at block boundaries so every call's output is bounded (:class:`ZstdFeeds`); damage is
reported and decoding resyncs on the next frame magic (:func:`crawlmill.formats.codecs.frames.decode_frame`).
"""

from __future__ import annotations

import struct
from collections.abc import Iterator
from typing import BinaryIO

from .bounds import MAX_DICT_SIZE, frame_bound
from .frames import decode_frame, have, not_a_frame, whole_call
from .pieces import RESCAN_WINDOW, Broken, Piece, Window

__all__ = ["ZSTD_DICT_MAGIC", "ZSTD_MAGIC", "ZSTD_WARC_DICT_MAGIC", "ZstdFeeds", "iter_zstd"]

ZSTD_MAGIC = b"\x28\xb5\x2f\xfd"
ZSTD_DICT_MAGIC = b"\x37\xa4\x30\xec"
#: magic of the skippable frame that holds the dictionary of a ``.warc.zst`` (0x184D2A5D LE).
ZSTD_WARC_DICT_MAGIC = b"\x5d\x2a\x4d\x18"

#: largest decoded size of one zstd block (RFC 8878 Block_Maximum_Size).
_ZSTD_BLOCK_MAX = 128 << 10
#: zstd blocks per feed: at most 1 MiB out per call, and a short byte-wise replay on damage.
_ZSTD_FEED_BLOCKS = 8


class ZstdFeeds:
    """Feeds that end at zstd block boundaries, at most ``blocks`` blocks each: a block decodes
    to at most 128 KiB, so one call's output is bounded (an 8 KiB feed of RLE blocks would
    decode to 256 MiB). Walks the frame header and block headers (RFC 8878 section 3.1.1)."""

    def __init__(self, blocks: int) -> None:
        self.blocks = blocks
        self.checksum = 0

    def __call__(self, inp: Window, start: int, pos: int) -> int:
        keep = start if pos - start <= RESCAN_WINDOW else pos
        q = pos
        if pos == start:
            if not have(inp, keep, start + 5):
                return inp.base + len(inp.data)
            fhd = inp.data[start + 4 - inp.base]
            single = fhd >> 5 & 1
            self.checksum = 4 if fhd & 4 else 0
            q = start + 5 + (1 - single) + (0, 1, 2, 4)[fhd & 3] + (single, 2, 4, 8)[fhd >> 6]
        for _ in range(self.blocks):
            if not have(inp, keep, q + 3):
                return inp.base + len(inp.data)
            i = q - inp.base
            header = int.from_bytes(inp.data[i : i + 3], "little")
            kind, size = header >> 1 & 3, header >> 3
            q += 3 + (1 if kind == 1 else size)
            if kind == 3:  # reserved block type: let zstd report it
                break
            if header & 1:  # the last block, then the optional checksum
                q += self.checksum
                break
        have(inp, keep, q)
        return min(q, inp.base + len(inp.data))


def _zstd():
    import zstandard

    return zstandard


def iter_zstd(
    fh: BinaryIO, limit: int, piece_size: int, member_limit: int | None = None
) -> Iterator[Piece | Broken]:
    """zstd frames (one per record in ``.warc.zst``, after an optional dictionary frame):
    bounded, with damage reported and resync on the next frame magic."""
    zstandard = _zstd()
    inp = Window(fh)
    inp.fill(0)
    pos = 0
    member = 0
    ended = False  # a frame ended: later ones are bounded by member_limit
    dict_data = dctx = dctx_dict = None
    while True:
        if pos - inp.base + 8 > len(inp.data) and not inp.eof:
            inp.fill(pos)
        rel = pos - inp.base
        if rel >= len(inp.data):
            return
        magic = inp.data[rel : rel + 4]
        if len(magic) == 4 and magic[1:] == b"\x2a\x4d\x18" and 0x50 <= magic[0] <= 0x5F:
            # skippable frame: the dictionary (0x184D2A5D, at file start) or ignorable data
            if len(inp.data) - rel < 8:
                yield Broken(
                    pos, len(inp.data) - rel, "truncated zstd skippable frame header",
                    code="truncated-member",
                )  # fmt: skip
                return
            (size,) = struct.unpack_from("<I", inp.data, rel + 4)
            while len(inp.data) - (pos - inp.base) < 8 + size and inp.fill(pos):
                pass
            rel = pos - inp.base
            body = inp.data[rel + 8 : rel + 8 + size]
            if len(body) < size:
                yield Broken(
                    pos, len(inp.data) - rel, "truncated zstd skippable frame", body,
                    code="truncated-member",
                )  # fmt: skip
                return
            if magic == ZSTD_WARC_DICT_MAGIC and pos == 0:
                try:
                    if body.startswith(ZSTD_MAGIC):
                        body = zstandard.ZstdDecompressor().decompress(
                            body, max_output_size=MAX_DICT_SIZE
                        )
                    dict_data = zstandard.ZstdCompressionDict(body)
                except zstandard.ZstdError as exc:
                    yield Broken(
                        pos, 8 + size, f"unusable zstd dictionary frame ({exc})", body,
                        code="bad-zstd-dictionary",
                    )  # fmt: skip
            pos += 8 + size
            continue
        if magic != ZSTD_MAGIC:
            pos = yield from not_a_frame(inp, pos, "zstd", ZSTD_MAGIC)
            continue
        if dctx is None or dctx_dict is not dict_data:  # one context for all frames
            dctx_dict = dict_data
            dctx = (
                zstandard.ZstdDecompressor(dict_data=dict_data)
                if dict_data
                else zstandard.ZstdDecompressor()
            )
        pos, ok = yield from decode_frame(
            inp,
            pos,
            member,
            dctx.decompressobj,
            whole_call,
            lambda: ZstdFeeds(max(1, min(_ZSTD_FEED_BLOCKS, piece_size // _ZSTD_BLOCK_MAX))),
            (zstandard.ZstdError,),
            "zstd",
            limit,
            piece_size,
            frame_bound(member_limit, ended),
            ZSTD_MAGIC,
        )
        ended = ended or ok
        member += 1
