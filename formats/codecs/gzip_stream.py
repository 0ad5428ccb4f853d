"""Sequential, fully checked gzip member-by-member inflate with damage reports and resync.

``isal.isal_zlib`` (about twice as fast as zlib at inflating) is used when importable, with the
standard :mod:`zlib` as fallback; both release the GIL while inflating. :func:`iter_gzip` yields
:class:`~crawlmill.formats.codecs.pieces.Piece` and :class:`~crawlmill.formats.codecs.pieces.Broken` items;
after damage it resyncs on the next member magic (``1f 8b 08``).
"""

from __future__ import annotations

import zlib
from collections import deque
from collections.abc import Iterator
from typing import BinaryIO

from .bounds import MEMBER_BOUND_NAME
from .gzip_member import flag_problem, header_length
from .pieces import RESCAN_WINDOW, Broken, Piece, Window, held_bytes, salvage_member, skip_to_magic
from .salvage import join_pieces

__all__ = [
    "GZIP_MAGIC",
    "GZIP_MEMBER_START",
    "ZLIB_ERRORS",
    "damaged_gzip_header",
    "inflate_backend",
    "inflate_lib",
    "inflate_steps",
    "iter_gzip",
]

try:  # pragma: no cover - depends on the installed packages
    from isal import isal_zlib as inflate_lib
except ImportError:  # pragma: no cover
    inflate_lib = zlib  # type: ignore[assignment]

GZIP_MAGIC = b"\x1f\x8b"
GZIP_MEMBER_START = b"\x1f\x8b\x08"
ZLIB_ERRORS: tuple[type[BaseException], ...] = (zlib.error, inflate_lib.error, EOFError)
#: bytes of a file's start checked for a gzip header with a damaged magic.
RAW_HEADER_SCAN = 64 << 10


def inflate_backend() -> str:
    """Name of the inflate implementation in use: ``"isal"`` or ``"zlib"``."""
    return "isal" if inflate_lib is not zlib else "zlib"


def damaged_gzip_header(head: bytes) -> int | None:
    """Length of the gzip header that starts ``head`` when its magic is damaged but the rest
    is a gzip header (CM = 8, FLG and optional fields valid) followed by a deflate stream that
    inflates: a whole-file gzip whose first bytes took a hit can still be read. ``None`` for
    an intact magic and for anything that is not such a header."""
    if len(head) < 18 or head[2] != 8 or head[:2] == GZIP_MAGIC:
        return None
    hlen, problem = header_length(GZIP_MAGIC + head[2:])
    if problem is not None:
        return None
    dec = zlib.decompressobj(-zlib.MAX_WBITS)
    try:
        out = dec.decompress(head[hlen:], 256)
    except zlib.error:
        return None
    return hlen if out or dec.eof else None


def inflate_steps(cap: int):
    """A ``decode`` for :func:`salvage`: zlib/isal output in pieces of at most ``cap``."""

    def decode(dec, chunk) -> Iterator[bytes]:
        yield dec.decompress(chunk, cap)
        while dec.unconsumed_tail:
            yield dec.decompress(dec.unconsumed_tail, cap)

    return decode


def iter_gzip(
    fh: BinaryIO,
    limit: int,
    piece_size: int,
    start: int = 0,
    member: int = 0,
    member_limit: int | None = None,
    multi: bool = False,
) -> Iterator[Piece | Broken]:
    """Sequential, fully checked member-by-member inflate from file offset ``start``.

    ``limit`` bounds every member; once a member has ended (``multi``: the file holds several
    members), later members are bounded by ``member_limit`` too, and their pieces are held
    back until the member ends, so a member that inflates beyond it hands out nothing: it is
    one :class:`Broken` holding its compressed bytes."""
    inp = Window(fh)
    if start:
        fh.seek(start)
        inp.base = start
    pos = start  # file offset of the next unread compressed byte
    feed_size = 1 << 16
    inp.fill(start)
    while True:
        if pos - inp.base + 18 > len(inp.data) and not inp.eof:
            inp.fill(pos)
        if pos - inp.base >= len(inp.data):
            return
        rel = pos - inp.base
        body = 0  # header bytes before a raw deflate stream (a damaged magic at the start)
        if (
            not inp.data.startswith(GZIP_MEMBER_START, rel)
            and pos == 0
            and (hlen := damaged_gzip_header(bytes(inp.data[:RAW_HEADER_SCAN]))) is not None
        ):
            body = hlen
        elif not inp.data.startswith(GZIP_MEMBER_START, rel):
            nxt = skip_to_magic(inp, pos + 1, GZIP_MEMBER_START, pos)
            trailing = nxt >= inp.base + len(inp.data)
            what = (
                "trailing bytes after the last gzip member"
                if trailing
                else ("bytes that are not a gzip member")
            )
            yield Broken(
                pos, nxt - pos, f"{nxt - pos} {what}", held_bytes(inp, pos, nxt),
                code="trailing-bytes" if trailing else "not-compressed-data",
            )  # fmt: skip
            pos = nxt
            continue
        start = pos
        # RFC 1952: a compliant decompressor rejects reserved FLG bits; isal ignores them
        flagged = flag_problem(inp.data[rel + 3]) if len(inp.data) > rel + 3 else None
        wbits = 31
        if body:
            flagged = (
                f"damaged gzip magic {bytes(inp.data[rel : rel + 2]).hex()} (1f8b expected);"
                f" the deflate stream after its {body}-byte header was inflated"
            )
            wbits = -zlib.MAX_WBITS
            pos += body
        dec = inflate_lib.decompressobj(wbits)
        produced = 0
        partial = False
        error: str | None = None
        code = ""  # the problem code of ``error``
        error_at: int | None = None
        bound, bound_name = limit, "max_decompressed_bytes"
        if multi and member_limit is not None and member_limit < limit:
            bound, bound_name = member_limit, MEMBER_BOUND_NAME
        held: deque[bytes] | None = deque() if bound < limit else None
        while True:
            rel = pos - inp.base
            if rel >= len(inp.data):
                keep = start if pos - start <= RESCAN_WINDOW else pos
                if not inp.fill(keep):
                    error = f"gzip member truncated: file ends after {pos - start} compressed bytes"
                    code = "truncated-member"
                    break
                rel = pos - inp.base
            feed = memoryview(inp.data)[rel : rel + feed_size]
            try:
                out = dec.decompress(feed, piece_size)
            except ZLIB_ERRORS as exc:
                # the call's output is lost: replay the member to hand out all that decoded
                saved = salvage_member(
                    inp, start + body, pos, bytes(feed),
                    lambda w=wbits: inflate_lib.decompressobj(w),
                    inflate_steps(piece_size), ZLIB_ERRORS, produced, bound - produced, 1 << 16,
                )  # fmt: skip
                for data in join_pieces(saved.pieces, piece_size):
                    produced += len(data)
                    if held is not None:
                        held.append(data)
                    else:
                        partial = True
                        yield Piece(data, start, member=member)
                error_at = pos + saved.consumed
                error = (
                    f"corrupt gzip member ({exc}) at compressed byte {error_at},"
                    f" after {produced} inflated bytes"
                )
                code = "corrupt-member"
                break
            consumed = len(feed) - len(dec.unconsumed_tail)
            if dec.eof:
                consumed -= len(dec.unused_data)
                if body:  # a raw deflate stream: its gzip trailer follows
                    consumed += min(8, len(dec.unused_data))
            pos += consumed
            produced += len(out)
            if produced > bound:
                error = f"gzip member inflates beyond {bound_name}={bound}; stopped there"
                code = "decompression-limit"
                held = None  # the compressed bytes go to the Broken, not the inflated ones
                break
            if dec.eof:
                length = pos - start
                while held:
                    yield Piece(held.popleft(), start, member=member)
                yield Piece(out, start, end=True, length=length, member=member)
                if flagged is not None:
                    # inflated whole (its records are delivered) but not a compliant member
                    yield Broken(
                        start,
                        length,
                        f"gzip member header not RFC 1952 compliant: {flagged}",
                        held_bytes(inp, start, pos) if start >= inp.base else b"",
                        partial=True,
                        error_offset=start + 3,
                        code="damaged-gzip-magic" if body else "non-compliant-gzip-header",
                    )
                member += 1
                multi = True
                # adapt the input slice to the member size (small copies of unused_data)
                feed_size = min(1 << 20, max(1 << 14, 2 * length))
                break
            if out and held is not None:
                held.append(out)
            elif out:
                partial = True
                yield Piece(out, start, member=member)
        if error is None:
            continue
        while held:  # a member cut by damage: what decoded before it is handed out
            partial = True
            yield Piece(held.popleft(), start, member=member)
        if flagged is not None:
            error = f"{error}; its header is not RFC 1952 compliant either: {flagged}"
            if body:  # the damaged magic names the member's damage
                code = "damaged-gzip-magic"
        # resync: the next member may begin inside the damaged one's compressed range
        scan_from = start + 1 if start >= inp.base else pos
        nxt = skip_to_magic(inp, scan_from, GZIP_MEMBER_START, start)
        if nxt <= start:
            nxt = skip_to_magic(inp, pos, GZIP_MEMBER_START)
        yield Broken(
            start, nxt - start, error, held_bytes(inp, start, nxt), partial, error_at, code
        )
        member += 1
        pos = nxt
