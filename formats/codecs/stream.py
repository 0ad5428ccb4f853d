"""One buffered, member- and frame-aware input stream over the pieces of any codec.

:class:`MemberStream` turns the :class:`~crawlmill.formats.codecs.pieces.Piece` and
:class:`~crawlmill.formats.codecs.pieces.Broken` items of
:func:`crawlmill.formats.codecs.compression.iter_pieces` (gzip members, zstd/LZ4 frames, a registered
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

__all__ = ["Collector", "Damage", "Member", "MemberSpans", "MemberStream", "StreamLimitError"]


@dataclass(slots=True)
class Damage:
    """Bytes that are not part of a good record, in both offset spaces.

    ``offset``/``length`` are positions in the decompressed stream (file positions for plain
    files). For compressed files ``member_offset``/``member_length`` are the compressed span of
    the member(s) holding the range (``member_length`` is ``None`` while the member's end is
    not known, as inside a whole-file gzip): the offset space a report must use for them.
    ``compressed`` says whether ``data`` holds compressed bytes (a member that could not be
    inflated; ``length`` is then compressed too) or decompressed ones. ``data`` is bounded by
    the framer's record limit. ``part`` is 0 for a whole range or the first part of a range
    too long to hold (reported in parts), and counts the later parts of that same damage.
    ``code`` is the stable problem code (docs/problems.md) set where the damage is found.
    """

    offset: int
    length: int
    reason: str
    data: bytes
    member_offset: int | None = None
    compressed: bool = False
    member_length: int | None = None
    part: int = 0
    code: str = ""


class Member:
    """One member (gzip member, frame) in both offset spaces: decompressed ``[dstart, dend)``
    (``dend`` is ``None`` while it is open), compressed ``cstart`` and length ``clen``
    (``None`` when not known); ``index`` counts members from 0 (the codec's count);
    ``error`` says why it broke off (collecting streams), ``code`` its problem code."""

    __slots__ = ("clen", "code", "cstart", "dend", "dstart", "error", "index")

    def __init__(self, dstart: int, cstart: int, index: int | None) -> None:
        self.dstart = dstart
        self.dend: int | None = None
        self.cstart = cstart
        self.clen: int | None = None
        self.index = index
        self.error: str | None = None
        self.code = ""

    @property
    def cend(self) -> int | None:
        """Compressed offset just past the member, when known."""
        return None if self.clen is None else self.cstart + self.clen


class MemberSpans:
    """The members of the decompressed stream still buffered, in stream order."""

    __slots__ = ("errors", "open", "spans", "starts")

    def __init__(self) -> None:
        self.spans: deque[Member] = deque()
        self.open: Member | None = None
        #: whether a member ever closed with an ``error`` (false: none of them has one)
        self.errors = False
        #: the (last) member starting at each stream offset
        self.starts: dict[int, Member] = {}

    def append(self, m: Member) -> None:
        """Add member ``m`` after the others."""
        self.spans.append(m)
        self.starts[m.dstart] = m

    def add(self, piece: Piece, ustart: int) -> None:
        """Record ``piece`` whose data starts at stream offset ``ustart``."""
        if self.open is None or self.open.index != piece.member:
            self.open = Member(ustart, piece.offset, piece.member)
            self.append(self.open)
        if piece.end:
            self.open.dend = ustart + len(piece.data)
            self.open.clen = piece.length
            self.open = None

    def add_batch(self, piece: Piece, ustart: int) -> None:
        """Add the whole members of a batch piece (``piece.members``) in one go."""
        self.open = None
        append, starts = self.spans.append, self.starts
        for ds, de, coff, clen in piece.members:
            m = Member(ustart + ds, coff, None)
            m.dend, m.clen = ustart + de, clen
            append(m)
            starts[m.dstart] = m

    def close(self, uend: int, clen: int | None, error: str | None = None, code: str = "") -> None:
        """End the open member at stream position ``uend`` (it broke off: ``error``, with its
        problem ``code``)."""
        if self.open is not None:
            self.open.dend = uend
            self.open.clen = clen
            self.open.error = error
            self.open.code = code
            self.open = None
            self.errors = self.errors or error is not None

    def drop_before(self, upos: int) -> None:
        """Forget members that end at or before stream offset ``upos``."""
        spans = self.spans
        starts = self.starts
        while spans and spans[0].dend is not None and spans[0].dend <= upos:
            m = spans.popleft()
            if starts.get(m.dstart) is m:
                del starts[m.dstart]

    def prune(self, upos: int) -> None:
        """Forget members that end at or before ``upos`` and start before it (an empty member
        at ``upos`` is kept: a record may start there)."""
        self.spans = deque(
            m for m in self.spans if m.dend is None or m.dend > upos or m.dstart >= upos
        )
        self.starts = {m.dstart: m for m in self.spans}

    def coff_at(self, upos: int) -> int | None:
        """Compressed offset of the member holding stream position ``upos``."""
        for m in self.spans:
            if m.dstart <= upos and (m.dend is None or upos < m.dend):
                return m.cstart
        return self.spans[-1].cstart if self.spans else None

    def exact(self, u0: int, u1: int) -> tuple[int, int] | None:
        """Compressed ``(offset, length)`` when ``[u0, u1)`` is exactly whole members."""
        spans = self.spans
        if spans and spans[0].dstart == u0 and spans[0].dend == u1:  # one record per member
            return spans[0].cstart, spans[0].clen
        first = None
        for m in spans:
            if first is None:
                if m.dstart == u0:
                    first = m
                elif m.dstart > u0:
                    return None
                else:
                    continue
            if m.dend is None or m.dend > u1:
                return None
            if m.dend == u1:
                return first.cstart, m.cstart + m.clen - first.cstart
        return None

    def span(self, u0: int, u1: int) -> tuple[int, int | None] | None:
        """Compressed ``(offset, length)`` of the members holding stream range ``[u0, u1)``;
        the length is ``None`` when the last of them has not ended yet."""
        first = last = None
        u1 = max(u1, u0 + 1)
        for m in self.spans:
            if m.dend is not None and m.dend <= u0:
                continue
            if m.dstart >= u1:
                break
            if first is None:
                first = m
            last = m
        if first is None:
            return None
        if last.clen is None:
            return first.cstart, None
        return first.cstart, last.cstart + last.clen - first.cstart

    def is_end(self, upos: int) -> bool:
        """Whether a member ends at stream offset ``upos``."""
        spans = self.spans
        # usually the newest member; the generator only runs for the rare others
        return (bool(spans) and spans[-1].dend == upos) or any(m.dend == upos for m in spans)

    def starts_after(self, upos: int) -> list[int]:
        """Stream offsets of the member starts after ``upos``."""
        return [m.dstart for m in self.spans if m.dstart > upos]

    def first_start(self, after: int, before: int) -> int | None:
        """The first member start in ``(after, before)``."""
        best = None
        for m in self.spans:
            if after < m.dstart < before and (best is None or m.dstart < best):
                best = m.dstart
        return best

    def at(self, upos: int) -> Member | None:
        """The (last) member that starts at stream offset ``upos``."""
        return self.starts.get(upos)

    def holding(self, upos: int) -> Member | None:
        """The member with the greatest start at or before ``upos``."""
        best = None
        for m in self.spans:
            if m.dstart <= upos and (best is None or m.dstart >= best.dstart):
                best = m
        return best


#: why a collecting stream closed a member that stopped without its end.
#: a member that stops without its end while the file goes on (corrupt, not cut by the end)
_NO_TRAILER = "gzip member ended without its trailer"


class StreamLimitError(ValueError):
    """The input decompresses to more bytes than the stream's ``limit``."""

    #: the problem code of this damage (``docs/problems.md``).
    code = "decompression-limit"


class Collector:
    """The collecting damage policy of a :class:`MemberStream` (``hold_damage=False``):
    members opened and closed by compressed offset, and the Broken items met listed in
    ``problems`` by stream position (reading goes on)."""

    __slots__ = ("members", "problems")

    def __init__(self, members: MemberSpans) -> None:
        self.members = members
        #: ``(stream offset, Broken)`` of the damage met, in stream order.
        self.problems: list[tuple[int, Broken]] = []

    def add(self, item: Piece, ustart: int) -> None:
        """Members of a collecting stream: a new one at each new compressed offset; one that
        stops without its end is closed with an error."""
        members = self.members
        m = members.open
        if m is None or m.cstart != item.offset:
            if m is not None:
                members.close(ustart, None, _NO_TRAILER, "corrupt-member")
            m = members.open = Member(ustart, item.offset or 0, item.member)
            members.append(m)
        if item.end:
            members.close(ustart + len(item.data), item.length)

    def broken(self, item: Broken, end: int) -> None:
        """A Broken item met at stream offset ``end``: the member it cuts is closed with its
        reason, or it is listed in ``problems``."""
        members = self.members
        m = members.open
        if m is not None and item.partial and m.cstart == item.offset:
            members.close(end, item.length, item.reason, item.code)
            return
        if m is not None:
            members.close(end, None, _NO_TRAILER, "corrupt-member")
        self.problems.append((end, item))

    def take(self, upto: int) -> list[Broken]:
        """The Broken items met before stream offset ``upto`` (taken from ``problems``)."""
        out = [p for at, p in self.problems if at <= upto]
        if out:
            self.problems[:] = [(at, p) for at, p in self.problems if at > upto]
        return out


def _resync(
    self: MemberStream,
    pattern: re.Pattern[bytes],
    frm: int,
    bound: int,
    member_prefix: bytes,
    context: int,
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


# -- file-like reading (line formats and tools): the read position is ``pos`` -------------
# (functions over the stream's buffer, bound as MemberStream's methods)


def _tell(self: MemberStream) -> int:
    """Offset of the next unread byte in the decompressed stream."""
    return self.base + self.pos


def _member_offset(self: MemberStream) -> int | None:
    """Compressed offset of the member holding the next unread byte (``None`` for plain
    input)."""
    self.need(self.pos + 1)
    return self.members.coff_at(_tell(self)) if self.compressed else None


def _read(self: MemberStream, n: int = -1) -> bytes:
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


def _find(self: MemberStream, needle: bytes | re.Pattern[bytes], limit: int) -> int:
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


def _readline(self: MemberStream, limit: int = 1 << 20) -> bytes:
    """The next line through ``\\n`` (at most ``limit`` bytes; the rest at the end)."""
    at = _find(self, b"\n", limit)
    return _read(self, limit if at < 0 else at - _tell(self) + 1)


def _lines(self: MemberStream) -> Iterator[bytes]:
    while line := _readline(self):
        yield line


class MemberStream:
    """A buffered, member-aware decompressed stream over ``items`` (see the module doc).

    ``hold_damage`` chooses how a :class:`~crawlmill.formats.codecs.pieces.Broken` item is met: held
    (the default; :meth:`more` stops until :meth:`take_broken`, so a framer reports it where
    it happened: WARC) or collected (reading goes on; ``problems`` lists ``(stream offset,
    Broken)`` and the member it cut is closed with its ``error``: ARC, which reports damage
    per member). ``compressed`` is known up front or learnt from the first piece. More than
    ``limit`` decompressed bytes raise ``limit_error`` (a :class:`StreamLimitError`).
    """

    __slots__ = (
        "base",
        "broken",
        "buf",
        "collector",
        "compressed",
        "eof",
        "hold_damage",
        "items",
        "limit",
        "limit_error",
        "members",
        "pos",
        "problems",
    )

    def __init__(
        self,
        items: Iterator[Piece | Broken],
        *,
        hold_damage: bool = True,
        compressed: bool = False,
        limit: int | None = None,
        limit_error: type[StreamLimitError] = StreamLimitError,
    ) -> None:
        self.items = items
        #: bytes (held damage: replaced on every append) or a bytearray (collected damage)
        self.buf: bytes | bytearray = b"" if hold_damage else bytearray()
        self.pos = 0
        self.base = 0  # stream offset of buf[0]
        self.eof = False
        self.broken: Broken | None = None
        self.members = MemberSpans()
        self.compressed = compressed
        self.hold_damage = hold_damage
        self.collector = None if hold_damage else Collector(self.members)
        #: ``(stream offset, Broken)`` of the damage a collecting stream met.
        self.problems: list[tuple[int, Broken]] = [] if hold_damage else self.collector.problems
        self.limit = limit
        self.limit_error = limit_error

    # -- the buffer (framers) ------------------------------------------------------------

    @property
    def end(self) -> int:
        """Stream offset just past the buffered bytes."""
        return self.base + len(self.buf)

    def more(self) -> bool:
        """Append the next piece; false at end of input or while a Broken item is pending.
        Bytes before ``pos`` are dropped: buffer indices shift by the change of ``pos``."""
        if self.eof or self.broken is not None:
            return False
        if self.hold_damage and self.pos >= len(self.buf) and self.buf:
            # every byte is read: let the buffer go before the next piece is made, so that
            # its memory serves the next one (a fresh multi-MiB allocation costs page faults)
            self.base += len(self.buf)
            self.buf, self.pos = b"", 0
        for item in self.items:
            if isinstance(item, Broken):
                if self.hold_damage:
                    self.broken = item
                    self.members.close(self.base + len(self.buf), item.length)
                    return False
                self.collector.broken(item, self.end)
                continue
            data = item.data
            if not data and not item.end:
                continue
            buf, pos = self.buf, self.pos
            if not self.hold_damage:
                buf += data  # a bytearray, dropped from by release()
            elif pos >= len(buf):
                self.base += len(buf)
                self.buf, self.pos = data, 0
            elif pos:
                # the kept tail is cut out first and the old buffer let go before the two
                # are joined: a resync holds a buffer of the skip bound, not two of them
                self.base += pos
                rest = buf[pos:]
                self.buf = buf = b""
                self.buf, self.pos = rest + data, 0
            else:
                self.buf = buf + data
            if self.limit is not None and self.base + len(self.buf) > self.limit:
                raise self.limit_error(f"decompressed data exceeds the limit of {self.limit} bytes")
            if item.offset is not None:
                self.compressed = True
                ustart = self.base + len(self.buf) - len(data)
                if item.members:
                    self.members.add_batch(item, ustart)
                elif self.hold_damage:
                    self.members.add(item, ustart)
                else:
                    self.collector.add(item, ustart)
                if self.hold_damage:
                    self.members.drop_before(self.base)
            if data or self.hold_damage:
                return True
        if not self.hold_damage and self.members.open is not None:  # a member without its end
            self.members.close(
                self.end, None, "gzip member is truncated (file ends inside it)", "truncated-member"
            )
        self.eof = True
        return False

    def ensure(self, upos: int) -> bool:
        """Buffer bytes up to stream offset ``upos`` (exclusive); false if the input ends
        first."""
        while self.base + len(self.buf) < upos:
            if not self.more():
                return False
        return True

    def byte(self, upos: int) -> int | None:
        """The byte at stream offset ``upos``, or ``None`` past the end of the input."""
        if not self.ensure(upos + 1):
            return None
        return self.buf[upos - self.base]

    def get(self, u0: int, u1: int) -> bytes:
        """The bytes between two stream offsets (as far as buffered)."""
        buf = self.buf
        if type(buf) is bytes:
            return buf[u0 - self.base : u1 - self.base]
        with memoryview(buf) as view:  # one copy (a bytearray slice would be copied twice)
            return view[u0 - self.base : u1 - self.base].tobytes()

    def line_end(self, upos: int, limit: int) -> int | None:
        """Stream offset of the next ``\\n`` at or after ``upos`` within ``limit`` bytes;
        :attr:`end` when the input ends without one; ``None`` when the limit is reached."""
        searched = upos
        while True:
            idx = self.buf.find(b"\n", searched - self.base, upos + limit - self.base)
            if idx >= 0:
                return idx + self.base
            searched = max(upos, self.end)
            if searched >= upos + limit:
                return None
            if not self.more():
                return self.end

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

    def exact(self, start: int, end: int) -> tuple[int, int] | None:
        """Compressed ``(offset, length)`` when buffer range ``[start, end)`` is exactly whole
        members (a record per member), else ``None``. Members before ``start`` are forgotten
        (a framer asks in stream order)."""
        if not self.compressed:
            return None
        u0 = self.base + start
        u1 = self.base + end
        members = self.members
        spans = members.spans
        if spans:  # the usual record: alone in the member after the previous record's
            m = spans[0]
            if m.dend is not None and m.dend <= u0:
                members.drop_before(u0)
                m = spans[0] if spans else None
            if m is not None and m.dstart == u0 and m.dend == u1:
                return m.cstart, m.clen
        return members.exact(u0, u1)

    def release(self, upos: int) -> None:
        """A collecting stream's reader no longer needs the bytes before stream offset
        ``upos``: they are dropped (with the members that end before it) once they are many
        or all."""
        drop = upos - self.base
        if drop > (1 << 22) or (drop > 0 and drop == len(self.buf)):
            del self.buf[:drop]
            self.base = upos
            self.members.prune(upos)

    def take_problems(self, upto: int) -> list[Broken]:
        """The Broken items a collecting stream met before stream offset ``upto``."""
        return self.collector.take(upto) if self.collector is not None else []

    # -- file-like reading (the functions below) ------------------------------------------

    tell = _tell
    member_offset = _member_offset
    read = _read
    find = _find
    readline = _readline
    __iter__ = _lines

    # -- damage and resync -------------------------------------------------------------

    def damage(self, start: int, end: int, reason: str, max_bytes: int, code: str) -> Damage:
        """Buffer range ``[start, end)`` as :class:`Damage` with problem ``code`` in both
        offset spaces (its bytes up to ``max_bytes``)."""
        u0 = self.base + start
        data = self.buf[start : min(end, start + max_bytes)]
        if not self.compressed:
            return Damage(u0, end - start, reason, data, code=code)
        span = self.members.span(u0, self.base + end)
        coff, clen = span if span is not None else (self.members.coff_at(u0), None)
        if coff is not None:
            reason = f"{reason} (decompressed stream offset {u0}, {end - start} bytes)"
        return Damage(u0, end - start, reason, data, coff, False, clen, code=code)

    def take_broken(self) -> Damage:
        """The pending Broken item as :class:`Damage` (compressed bytes); the stream goes on
        with the next member."""
        b = self.broken
        assert b is not None
        self.broken = None
        return Damage(
            self.base + self.pos, b.length, b.reason, b.data, b.offset, True, b.length, code=b.code
        )

    resync = _resync
