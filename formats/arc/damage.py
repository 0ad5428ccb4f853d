"""ARC damage located in the file, and the one report of a damaged gzip member.

:func:`located` turns a decompressed range into :class:`~crawlmill.formats.codecs.stream.Damage` in
the file's own offset space (the range of a plain file; the compressed span and bytes of the
member(s) of a gzip file); :func:`unreadable` reports the compressed ranges that inflated to
nothing; :func:`rank` orders the damages a damaged member held: its one report is named by the
first.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass

from ..codecs.stream import Damage, MemberStream
from .header import GZIP_MAGIC

__all__ = ["TAKE_MIN", "MemberGarbage", "file_offset", "located", "rank", "taken", "unreadable"]


def file_offset(s: MemberStream, pos: int) -> int:
    """The file offset of stream offset ``pos``: itself, or the start of its gzip member."""
    if not s.compressed:
        return pos
    best = s.members.holding(pos)
    return best.cstart if best is not None else 0


def located(
    s: MemberStream,
    pos: int,
    end: int,
    reason: str,
    code: str,
    max_record: int,
    read_span: Callable[[int, int], bytes | None] | None,
    kind: type[Damage] = Damage,
    take: bool = False,
) -> Damage:
    """Damage for the decompressed range ``[pos, end)``, located in the file: the range
    itself in an uncompressed file; for gzip, the compressed span (and compressed bytes)
    of the member(s) it covers exactly, else the member it lies in (length unknown).
    ``take``: the parser goes on at ``end`` and needs none of the bytes before it, so a
    large range's bytes are handed over from the stream's buffer (:func:`taken`)."""
    if not s.compressed:
        data = taken(s, pos, end, max_record, take)
        return kind(pos, end - pos, reason, data, code=code)
    first = s.members.holding(pos)
    if first is None:
        return kind(pos, end - pos, reason, taken(s, pos, end, max_record, take), 0, code=code)
    last = s.members.holding(max(pos, end - 1)) or first
    if first.dstart == pos and last.dend == end and last.cend is not None:
        length = last.cend - first.cstart
        raw = read_span(first.cstart, min(length, max_record)) if read_span else None
        if raw is None:
            data = taken(s, pos, end, max_record, take)
            return kind(pos, end - pos, reason, data, first.cstart, False, length, code=code)
        return kind(pos, end - pos, reason, raw, first.cstart, True, length, code=code)
    where = f" (decompressed bytes {pos}-{end} of the gzip member at {first.cstart})"
    data = taken(s, pos, end, max_record, take)
    return kind(pos, end - pos, reason + where, data, first.cstart, code=code)


#: a damaged range of at least this many bytes is handed over by :func:`taken`, not copied.
TAKE_MIN = 1 << 20


def taken(s: MemberStream, pos: int, end: int, max_bytes: int, take: bool) -> bytes | bytearray:
    """The bytes of stream range ``[pos, end)``, at most ``max_bytes`` of them. With ``take``
    (the reader goes on at ``end``) a range of :data:`TAKE_MIN` bytes or more is cut out of
    a collecting stream's buffer and handed over as it is (a ``bytearray``), the stream
    keeping only its bytes from ``end`` on: a copy of up to a record is never held beside
    the buffer it was copied from (a fruitless resync scan buffers ``R + H`` bytes: with
    the copy beside them, damage would take twice the record bound). Else a copy."""
    stop = min(end, pos + max_bytes)
    buf = s.buf
    if (
        not take
        or stop - pos < TAKE_MIN
        or type(buf) is not bytearray
        or pos < s.base
        or end > s.end
    ):
        return s.get(pos, stop)
    s.buf = buf[end - s.base :]  # the bytes after the range (a piece or a line at most)
    del buf[stop - s.base :]  # keeps the buffer's memory: no second allocation
    del buf[: pos - s.base]
    s.base = end
    s.members.prune(end)
    return buf


def unreadable(s: MemberStream, upto: int) -> Iterator[Damage]:
    """Compressed ranges that could not be inflated at all, found before ``upto`` (at the
    stream offset where they were met; their compressed span and bytes)."""
    met = [at for at, _ in s.problems if at <= upto]
    for at, item in zip(met, s.take_problems(upto), strict=True):
        reason, code = item.reason, item.code
        if not item.partial and item.data[:3] == GZIP_MAGIC:
            reason = f"gzip member that inflates to nothing: {reason}"
            if code != "damaged-gzip-magic":  # (a damaged magic names it still)
                code = "empty-member"
        yield Damage(at, item.length, reason, item.data, item.offset, True, item.length, code=code)


@dataclass(slots=True)
class MemberGarbage(Damage):
    """Bytes of a damaged gzip member that form no record (named last, :func:`rank`)."""


#: which of the damages folded into a damaged member's one entry names it (the first here;
#: the bytes of a damaged member that form no record come last).
_NAMING_ORDER = (
    "truncated-record",
    "corrupt-member",
    "no-record-end",
    "invalid-length",
    "record-too-large",
    "bad-length",
    "not-a-record",
)


def rank(damage: Damage) -> int:
    """Where ``damage`` comes in :data:`_NAMING_ORDER` (garbage of a damaged member last)."""
    if isinstance(damage, MemberGarbage):
        return len(_NAMING_ORDER)
    code = damage.code
    return _NAMING_ORDER.index(code) if code in _NAMING_ORDER else len(_NAMING_ORDER) + 1
