"""One buffered, member- and frame-aware input stream over the pieces of any codec.

:class:`MemberStream` turns the :class:`~crawlmill.formats.pieces.Piece` and
:class:`~crawlmill.formats.pieces.Broken` items of
:func:`crawlmill.formats.compression.iter_pieces` (gzip members, zstd/LZ4 frames, a registered
codec's members, or plain bytes) into one decompressed byte stream that still knows, for every
byte, the compressed member holding it. It is the buffer a framer works on (WARC, and the
next formats: a line format in ``.gz``, SequenceFile blocks), modelled on FastWARC's
``BufferedReader`` over its ``IOStream`` codec tree:

* reading: :meth:`read`, :meth:`readline` (with a length limit), :meth:`find` (bytes or a
  compiled pattern, bounded), :meth:`tell` (decompressed offset), :meth:`member_offset`
  (compressed offset of the member being read);
* member bookkeeping in both offset spaces (:class:`MemberSpans`): whether a position is a
  member end, the exact compressed span of a decompressed range made of whole members, the
  members a damaged range touches (:meth:`damage`);
* damage: a ``Broken`` item stops the stream until it is taken (:meth:`take_broken`), so a
  framer reports it at the right place, and :meth:`resync` finds the next pattern or member
  start after damage.

A framer works on the buffer directly for speed (``buf`` holds decompressed bytes from stream
offset ``base``; ``pos`` indexes the next unread byte of ``buf``): :meth:`more` appends the
next piece (dropping the bytes before ``pos``, so buffer indices held across a call shift by
the difference in ``pos``), :meth:`need` makes a range available. Memory is bounded by the
codec's piece size plus what the framer holds (a record).
"""

from __future__ import annotations

import re
from collections import deque
from collections.abc import Iterator
from dataclasses import dataclass

from .pieces import Broken, Piece

__all__ = ["Damage", "MemberSpans", "MemberStream"]


@dataclass(slots=True)
class Damage:
    """Bytes that are not part of a good record, in both offset spaces.

    ``offset``/``length`` are positions in the decompressed stream (file positions for plain
    files). For compressed files ``member_offset``/``member_length`` are the compressed span of
    the member(s) holding the range (``member_length`` is ``None`` while the member's end is
    not known, as inside a whole-file gzip): the offset space a report must use for them.
    ``compressed`` says whether ``data`` holds compressed bytes (a member that could not be
    inflated; ``length`` is then compressed too) or decompressed ones. ``data`` is bounded by
    the framer's record limit.
    """

    offset: int
    length: int
    reason: str
    data: bytes
    member_offset: int | None = None
    compressed: bool = False
    member_length: int | None = None


class MemberSpans:
    """Member spans of the decompressed stream: ``[ustart, uend, coff, clen, member]`` lists
    (``uend``/``clen`` are ``None`` while the member is open)."""

    __slots__ = ("open", "spans")

    def __init__(self) -> None:
        self.spans: deque[list] = deque()
        self.open: list | None = None

    def add(self, piece: Piece, ustart: int) -> None:
        """Record ``piece`` whose data starts at stream offset ``ustart``."""
        if self.open is None or self.open[4] != piece.member:
            self.open = [ustart, None, piece.offset, None, piece.member]
            self.spans.append(self.open)
        if piece.end:
            self.open[1] = ustart + len(piece.data)
            self.open[3] = piece.length
            self.open = None

    def add_batch(self, piece: Piece, ustart: int) -> None:
        """Add the whole members of a batch piece (``piece.members``) in one go."""
        self.open = None
        self.spans.extend(
            [ustart + ds, ustart + de, coff, clen, None] for ds, de, coff, clen in piece.members
        )

    def close(self, uend: int, clen: int) -> None:
        """End the open member at stream position ``uend`` (it broke off)."""
        if self.open is not None:
            self.open[1] = uend
            self.open[3] = clen
            self.open = None

    def drop_before(self, upos: int) -> None:
        """Forget members that end at or before stream offset ``upos``."""
        spans = self.spans
        while spans and spans[0][1] is not None and spans[0][1] <= upos:
            spans.popleft()

    def coff_at(self, upos: int) -> int | None:
        """Compressed offset of the member holding stream position ``upos``."""
        for span in self.spans:
            if span[0] <= upos and (span[1] is None or upos < span[1]):
                return span[2]
        return self.spans[-1][2] if self.spans else None

    def exact(self, u0: int, u1: int) -> tuple[int, int] | None:
        """Compressed ``(offset, length)`` when ``[u0, u1)`` is exactly whole members."""
        spans = self.spans
        if spans and spans[0][0] == u0 and spans[0][1] == u1:  # one record per member
            return spans[0][2], spans[0][3]
        first = None
        for span in spans:
            if first is None:
                if span[0] == u0:
                    first = span
                elif span[0] > u0:
                    return None
                else:
                    continue
            if span[1] is None or span[1] > u1:
                return None
            if span[1] == u1:
                return first[2], span[2] + span[3] - first[2]
        return None

    def span(self, u0: int, u1: int) -> tuple[int, int | None] | None:
        """Compressed ``(offset, length)`` of the members holding stream range ``[u0, u1)``;
        the length is ``None`` when the last of them has not ended yet."""
        first = last = None
        u1 = max(u1, u0 + 1)
        for span in self.spans:
            if span[1] is not None and span[1] <= u0:
                continue
            if span[0] >= u1:
                break
            if first is None:
                first = span
            last = span
        if first is None:
            return None
        if last[3] is None:
            return first[2], None
        return first[2], last[2] + last[3] - first[2]

    def is_end(self, upos: int) -> bool:
        """Whether a member ends at stream offset ``upos``."""
        spans = self.spans
        # usually the newest member; the generator only runs for the rare others
        return (bool(spans) and spans[-1][1] == upos) or any(span[1] == upos for span in spans)

    def starts_after(self, upos: int) -> list[int]:
        """Stream offsets of the member starts after ``upos``."""
        return [span[0] for span in self.spans if span[0] > upos]


class MemberStream:
    """A buffered, member-aware decompressed stream over ``items`` (see the module doc)."""

    __slots__ = ("base", "broken", "buf", "compressed", "eof", "items", "members", "pos")

    def __init__(self, items: Iterator[Piece | Broken]) -> None:
        self.items = items
        self.buf = b""
        self.pos = 0
        self.base = 0  # stream offset of buf[0]
        self.eof = False
        self.broken: Broken | None = None
        self.members = MemberSpans()
        self.compressed = False

    # -- the buffer (framers) ------------------------------------------------------------

    def more(self) -> bool:
        """Append the next piece; false at end of input or while a Broken item is pending.
        Bytes before ``pos`` are dropped: buffer indices shift by the change of ``pos``."""
        if self.eof or self.broken is not None:
            return False
        for item in self.items:
            if isinstance(item, Broken):
                self.broken = item
                self.members.close(self.base + len(self.buf), item.length)
                return False
            data = item.data
            if not data and not item.end:
                continue
            buf, pos = self.buf, self.pos
            if pos >= len(buf):
                self.base += len(buf)
                self.buf, self.pos = data, 0
            elif pos:
                self.base += pos
                self.buf, self.pos = buf[pos:] + data, 0
            else:
                self.buf = buf + data
            if item.offset is not None:
                self.compressed = True
                ustart = self.base + len(self.buf) - len(data)
                if item.members:
                    self.members.add_batch(item, ustart)
                else:
                    self.members.add(item, ustart)
                self.members.drop_before(self.base)
            return True
        self.eof = True
        return False

    def need(self, end: int) -> bool:
        """Make ``buf[pos:end]`` available (``end`` a buffer index, shifted like ``pos``)."""
        while len(self.buf) < end:
            before = self.pos
            if not self.more():
                return False
            end -= before - self.pos
        return True

    def at_member_end(self, i: int) -> bool:
        """Whether a member (gzip member, frame) ends at buffer index ``i``."""
        return self.compressed and self.members.is_end(self.base + i)

    def ended(self, i: int) -> bool:
        """Whether nothing follows buffer index ``i`` in this member or file: a member end,
        the end of the input, or damage the stream stopped at."""
        return self.at_member_end(i) or (
            i >= len(self.buf) and (self.eof or self.broken is not None)
        )

    def exact(self, start: int, end: int) -> tuple[int, int] | None:
        """Compressed ``(offset, length)`` when buffer range ``[start, end)`` is exactly whole
        members (a record per member), else ``None``."""
        if not self.compressed:
            return None
        u0 = self.base + start
        self.members.drop_before(u0)
        return self.members.exact(u0, self.base + end)

    # -- damage and resync -------------------------------------------------------------

    def damage(self, start: int, end: int, reason: str, max_bytes: int) -> Damage:
        """Buffer range ``[start, end)`` as :class:`Damage` in both offset spaces (its bytes
        up to ``max_bytes``)."""
        u0 = self.base + start
        data = self.buf[start : min(end, start + max_bytes)]
        if not self.compressed:
            return Damage(u0, end - start, reason, data)
        span = self.members.span(u0, self.base + end)
        coff, clen = span if span is not None else (self.members.coff_at(u0), None)
        if coff is not None:
            reason = f"{reason} (decompressed stream offset {u0}, {end - start} bytes)"
        return Damage(u0, end - start, reason, data, coff, False, clen)

    def take_broken(self) -> Damage:
        """The pending Broken item as :class:`Damage` (compressed bytes); the stream goes on
        with the next member."""
        b = self.broken
        assert b is not None
        self.broken = None
        return Damage(self.base + self.pos, b.length, b.reason, b.data, b.offset, True, b.length)

    def resync(
        self, pattern: re.Pattern[bytes], frm: int, bound: int, member_prefix: bytes, context: int
    ) -> int | None:
        """Buffer index of the next match of ``pattern`` or member start whose bytes begin
        with ``member_prefix`` (compared upper-case) at or after index ``frm``; ``None`` when
        the data ends (EOF or pending damage) first; -1 when more than ``bound`` bytes would
        have to be held. ``context`` bytes are kept from the end of a scanned buffer (a match
        straddling two pieces is found)."""
        n = len(member_prefix)
        while True:
            m = pattern.search(self.buf, frm)
            hit = m.start() if m else None
            if self.compressed:
                for ustart in self.members.starts_after(self.base + frm - 1):
                    i = ustart - self.base
                    if hit is not None and i >= hit:
                        break
                    if self.buf[i : i + n].upper() == member_prefix:
                        hit = i
                        break
            if hit is not None:
                return hit
            if len(self.buf) - self.pos > bound:
                return -1
            keep = max(frm, len(self.buf) - context)
            before = self.pos
            if not self.more():
                return None
            frm = keep - (before - self.pos)

    # -- reading (line formats and tools) ------------------------------------------------

    def tell(self) -> int:
        """Offset of the next unread byte in the decompressed stream."""
        return self.base + self.pos

    def member_offset(self) -> int | None:
        """Compressed offset of the member holding the next unread byte (``None`` for plain
        input)."""
        return self.members.coff_at(self.tell()) if self.compressed else None

    def read(self, n: int = -1) -> bytes:
        """Up to ``n`` bytes (all that remain before damage or the end with ``n < 0``)."""
        if n < 0:
            while self.more():
                pass
            end = len(self.buf)
        else:
            self.need(self.pos + n)
            end = min(len(self.buf), self.pos + n)
        data = self.buf[self.pos : end]
        self.pos = end
        return data

    def find(self, needle: bytes | re.Pattern[bytes], limit: int) -> int:
        """Decompressed offset of the next ``needle`` (bytes or a compiled pattern) within
        ``limit`` bytes of the read position, reading on; -1 when not found."""
        frm = self.pos
        while True:
            stop = min(len(self.buf), self.pos + limit)
            if isinstance(needle, bytes):
                i = self.buf.find(needle, frm, stop)
                back = len(needle) - 1
            else:
                m = needle.search(self.buf, frm, stop)
                i = m.start() if m else -1
                back = 0
            if i >= 0:
                return self.base + i
            if stop >= self.pos + limit:
                return -1
            keep = max(self.pos, len(self.buf) - back)
            before = self.pos
            if not self.more():
                return -1
            frm = keep - (before - self.pos)

    def readline(self, limit: int = 1 << 20) -> bytes:
        """The next line through ``\\n`` (at most ``limit`` bytes; the rest at the end)."""
        at = self.find(b"\n", limit)
        return self.read(limit if at < 0 else at - self.tell() + 1)

    def __iter__(self) -> Iterator[bytes]:
        while line := self.readline():
            yield line
