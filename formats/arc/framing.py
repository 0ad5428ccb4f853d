"""Finding ARC records in a file: framing, length checks, gzip members, damage and resync.

:func:`iter_arc` walks an ARC file (uncompressed, gzip per record, or one gzip member for the
whole file) and yields :class:`ArcRecordBytes` for every record, the formats' one damage type
:class:`~crawlmill.formats.codecs.stream.Damage` for every damaged byte range and :class:`Quirk` for
a repaired quirk between records. It never stops silently:

* where a record ends follows the length rule of :mod:`crawlmill.formats.arc.length`: the
  declared length wins whenever the bytes it delimits are followed by a separator and the next
  header line, the member end or the file end (or by those directly); a repair (cut, extended,
  truncated record) is delivered *and* reported as damage with the original bytes; so is a
  record whose length field is not a number (taken up to the next header); so is one whose
  declared end a line-end run other than one separator follows, where the block's HTTP head
  proves the end that one separator follows (:mod:`crawlmill.formats.arc.witness`);
* a header line cut short with the next one glued to it (a writer that restarted appending)
  is damage (``header-cut-short``) and a resync point: the next record is read whole
  (:mod:`crawlmill.formats.arc.restart` tells it from a URL that embeds another);
* truncated or corrupt gzip members and non-gzip bytes between members are damage, and
  reading resumes at the next member (:func:`crawlmill.formats.codecs.compression.iter_pieces`); a
  record is never proved complete by the end of a corrupt member;
* a file whose first bytes are damaged is read from the first gzip member or ARC header line
  found in its first 64 KiB (:func:`find_arc_start`);
* damage is located in the file by :func:`file_span`: for plain files its stream range; for
  gzip files (``member_offset`` set) the compressed span of the member(s) a damaged range
  covers, with their compressed bytes (``compressed``), or the member it lies in (length
  unknown);
* memory is bounded by the record limit, also for whole-file gzip.

Header-line parsing lives in :mod:`crawlmill.formats.arc.header`; nothing here knows crawlmill's core.
"""

from __future__ import annotations

import os
import zlib
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import BinaryIO

from ..codecs.compression import HeldMembers, compression_of, iter_pieces, member_bound, prefetch
from ..codecs.pieces import PIECE_SIZE, READ_SIZE
from ..codecs.stream import Damage, Member, MemberStream, StreamLimitError
from ..notes import Note
from .damage import MemberGarbage, file_offset, located, rank, unreadable
from .header import (
    GZIP_MAGIC,
    ArcHeader,
    ArcHeaderError,
    FileDesc,
    parse_header_line,
    plausible_header,
)
from .length import Action, Decision, Facts, decide
from .lines import CANDIDATE, ArcLines, cut_by_eof, gather_facts, glued_prefix, usual
from .repairs import cut_header, garbage, not_delivered, repaired, too_large, too_large_resynced
from .restart import restart_at

__all__ = [
    "DETECT_WINDOW",
    "ArcLimitError",
    "ArcRecordBytes",
    "Quirk",
    "file_span",
    "find_arc_start",
    "iter_arc",
]


@dataclass(slots=True)
class ArcRecordBytes:
    """One record as found in the file.

    ``offset``/``length`` locate it in the file: the gzip member for per-record gzip, the
    record (header line through separator) for uncompressed files; ``None`` when the record
    shares a gzip member with others. ``stream_offset`` is its offset in the decompressed
    stream. ``trailer`` holds the bytes after the block up to the next record (normally
    ``b"\\n"``). ``notes`` lists repaired quirks; ``filedesc`` the parsed version block; ``truncated`` is
    true when the file ended before the declared length (the bytes found are kept);
    ``damaged`` when the block was repaired and a :class:`~crawlmill.formats.codecs.stream.Damage`
    with the original bytes follows.
    """

    offset: int | None
    length: int | None
    stream_offset: int
    header: ArcHeader
    block: bytes
    trailer: bytes = b"\n"
    notes: list[Note] = field(default_factory=list)
    filedesc: FileDesc | None = None
    truncated: bool = False
    damaged: bool = False


@dataclass(slots=True)
class Quirk:
    """A repaired quirk between records (not damage: no byte is lost): ``offset`` is where it
    is in the file (for gzip files, the start of the member holding it), ``text`` says what.
    A record's own quirks are :class:`~crawlmill.formats.notes.Note` in
    :attr:`ArcRecordBytes.notes`. ``code`` is its stable problem code (docs/problems.md)."""

    offset: int
    text: str
    code: str = ""


def file_span(damage: Damage) -> tuple[int, int | None]:
    """Where ``damage`` from :func:`iter_arc` lies in the file: ``(offset, length)`` of its
    stream range for a plain file, of the member span holding it for a gzip file (length
    ``None`` when the range is not whole members)."""
    if damage.member_offset is None:
        return damage.offset, damage.length
    return damage.member_offset, damage.member_length


class ArcLimitError(StreamLimitError):
    """The file decompresses to more bytes than allowed."""


class _Parser:
    """Splits the decompressed stream of an ARC file into records and problems: a loop over
    the records of one :class:`~crawlmill.formats.codecs.stream.MemberStream` that asks
    :class:`~crawlmill.formats.arc.lines.ArcLines` about the bytes and
    :func:`~crawlmill.formats.arc.length.decide` where each record ends."""

    def __init__(
        self,
        stream: MemberStream,
        max_record: int,
        max_header: int,
        size: int | None = None,
        read_span: Callable[[int, int], bytes | None] | None = None,
    ) -> None:
        self.s = stream
        self.lines = ArcLines(stream, max_record, max_header, size)
        self.max_record = max_record
        self.max_header = max_header
        self.size = size  # the file size of an uncompressed file (impossible lengths)
        self.read_span = read_span  # compressed file bytes for damage entries of gzip files
        self.first = True  # the first header line is parsed leniently (it is the filedesc)
        self._after = 0  # where the next record starts; set by the _*_record generators

    def __iter__(self) -> Iterator[ArcRecordBytes | Damage | Quirk]:
        s = self.s
        pos = 0
        while True:
            if s.problems:
                yield from unreadable(self.s, pos)
            s.release(pos)
            if s.byte(pos) is None:
                yield from unreadable(self.s, s.end + 1)
                return
            start = pos
            member = s.members.at(pos)
            pos = self.lines.skip_blank(pos)
            if pos > start:
                text = "stray newline bytes before a record"
                yield Quirk(file_offset(self.s, start), text, code="stray-newlines")
                if s.byte(pos) is None:
                    continue
                member = s.members.at(pos) or member
            if member is not None:
                yield from self._member_record(member, pos)
            else:
                yield from self._plain_record(pos, None, None)
            pos = self._after

    def _problem(self, pos: int, end: int, reason: str, code: str, kind: type = Damage) -> Damage:
        """Located damage of ``[pos, end)`` (:func:`~crawlmill.formats.arc.damage.located`)."""
        s, take = self.s, not self.lines.folding  # reading goes on at ``end``
        damage = located(s, pos, end, reason, code, self.max_record, self.read_span, kind, take)
        damage.part = self.lines.part_of(pos, end)
        return damage

    def _parse_start(self, pos: int) -> tuple[ArcHeader, int] | int | None:
        """Parse the header line at ``pos``: ``(header, body_start)``; the offset of the whole
        header line inside it when it is a header line cut short with the next one glued on
        (:func:`~crawlmill.formats.arc.restart.restart_at`); ``None`` when there is no header
        there (the caller reports the bytes up to either and resyncs)."""
        got = self.lines.line(pos)
        if got is None:
            return None
        line, nl = got
        try:
            if self.first:
                header = parse_header_line(line, None)
            else:
                header = self.lines.expected_header(line)
                if header is None:
                    raise ArcHeaderError(f"not an ARC header line: {line[:120]!r}")
        except ArcHeaderError:
            return None
        at = restart_at(line, self.lines.version, b" " in header.url)
        if at is not None:
            return pos + at  # a cut header line with the next one glued on: resync there
        return header, nl + 1

    def _member_record(self, member: Member, pos: int) -> Iterator[ArcRecordBytes | Damage | Quirk]:
        s = self.s
        got = self._parse_start(pos)
        limit = pos + self.max_record + self.max_header
        if isinstance(got, tuple) and got[0].length is not None:
            # enough to see whether the member ends near the declared end; a member running
            # on (whole-file gzip) is then read by declared lengths with bounded memory
            horizon = min(got[1] + got[0].length + 4096, limit)
        else:
            horizon = limit
        while member.dend is None and s.end < horizon:
            if not s.more():
                break
        if member.dend is None:
            # too large to be one record (whole-file gzip): read it as a plain stream
            yield from self._plain_record(pos, None, member)
            return
        if member.error:
            yield from _damaged_member(self, member, pos)
            return
        # no header at its start: garbage up to a header inside it (a cut header line with
        # the next one glued on) or its end; reading goes on there. A header parsed above
        # is final (its line was whole and nothing the parse depends on changed since)
        yield from self._plain_record(
            pos, member.dend, member, got if isinstance(got, tuple) else None
        )

    def _plain_record(
        self,
        pos: int,
        stop: int | None,
        member: Member | None,
        parsed: tuple[ArcHeader, int] | None = None,
    ) -> Iterator[ArcRecordBytes | Damage | Quirk]:
        s = self.s
        got = parsed if parsed is not None else self._parse_start(pos)
        if isinstance(got, int):
            yield self._garbage(pos, got, restart=True)
            self._after = got
            return
        if got is None:
            nxt = self.lines.scan(pos, stop)
            end = _data_end(self, nxt, stop)
            yield self._garbage(pos, end)
            self._after = end
            return
        header, body_start = got
        self.first = False
        self.lines.crlf = header.raw.endswith(b"\r")
        if header.length is None:
            q = self.lines.scan(body_start - 1, stop)
            data_end = _data_end(self, q, stop)
            facts = Facts(
                body_start,
                None,
                data_end=data_end,
                sep_before_data_end=self.lines.sep_before(data_end, body_start),
            )
            yield from self._apply(pos, header, body_start, decide(facts), stop, member)
            return
        e = body_start + header.length
        data_limit = stop if stop is not None else self.size
        impossible = data_limit is not None and e > data_limit
        if header.length > self.max_record and not impossible:
            q = self.lines.scan(body_start - 1, stop)
            if q is not None and self.lines.chains(q, stop):
                # a complete record starts inside the too-large one: the length is bogus
                r = too_large_resynced(
                    header.url[:100], header.length, self.max_record, q - body_start
                )
                yield self._problem(pos, q, r.reason, r.code)
                self._after = q
                return
            r = too_large(header.url[:100], header.length, self.max_record)
            at = file_offset(s, pos) if s.compressed else None
            yield Damage(pos, e - pos, r.reason, b"", at, code=r.code)
            self._after = _skip_to(self, e, stop)
            return
        if usual(self.lines, header, body_start, e, stop, member):
            yield from self._emit(pos, header, body_start, e, stop, member, [])
            return
        stop_is = "member"
        if member is not None and member.error:
            stop_is = "eof" if cut_by_eof(member) else "damaged"
        facts = gather_facts(
            self.lines, pos, body_start, e, stop, stop_is, member, impossible, header.is_filedesc
        )
        verdict = decide(facts)
        yield from self._apply(pos, header, body_start, verdict, stop, member)

    def _apply(
        self,
        pos: int,
        header: ArcHeader,
        body_start: int,
        v: Decision,
        stop: int | None,
        member: Member | None,
    ) -> Iterator[ArcRecordBytes | Damage | Quirk]:
        """Deliver and report one record as the length rule decided."""
        url = header.url[:100]
        declared = header.length
        if v.action == Action.DECLARED:
            yield from self._emit(pos, header, body_start, v.body_end, v.next, member, [])
            return
        if v.action == Action.DAMAGED:
            broken = self.s.members.holding(v.next - 1) if self.s.compressed else None
            error = broken.error if broken is not None else None
            r = not_delivered(url, declared, error, v.next - body_start)
            yield self._problem(pos, v.next, r.reason, r.code)
            self._after = v.next
            return
        if v.action == Action.GARBAGE_AFTER:
            garbage_from = v.garbage_from if v.garbage_from is not None else v.next
            yield from self._emit(pos, header, body_start, v.body_end, garbage_from, member, [])
            self._after = v.next
            if v.next > garbage_from:
                yield self._garbage(garbage_from, v.next, after_record=True)
            return
        raw = header.fields.get("Archive-length", b"")[:40]
        r = repaired(v, url, declared, raw, body_start, stop)
        truncated = v.action == Action.TRUNCATED
        yield from self._emit(
            pos, header, body_start, v.body_end, v.next, member, [], truncated, damaged=True
        )
        yield self._problem(pos, v.next, r.reason, r.code)

    def _emit(
        self,
        pos: int,
        header: ArcHeader,
        body_start: int,
        body_end: int,
        nxt: int,
        member: Member | None,
        notes: list[Note],
        truncated: bool = False,
        damaged: bool = False,
    ) -> Iterator[ArcRecordBytes]:
        s = self.s
        offset, length = _record_span(s, pos, nxt, member)
        self._after = nxt
        block = s.get(body_start, body_end)
        trailer = s.get(body_end, nxt)
        header, filedesc = self.lines.learn_version(header, block)
        yield ArcRecordBytes(
            offset=offset,
            length=length,
            stream_offset=pos,
            header=header,
            block=block,
            trailer=trailer,
            notes=notes,
            filedesc=filedesc,
            truncated=truncated,
            damaged=damaged,
        )

    def _garbage(
        self, pos: int, end: int, after_record: bool = False, restart: bool = False
    ) -> Damage:
        data = self.s.get(pos, min(end, pos + 60))
        if restart:  # a header line cut short, the next glued on (inside one line)
            r = cut_header(end - pos, data)
            return self._problem(pos, end, r.reason, r.code)
        member = self.s.members.holding(pos) if self.s.compressed else None
        if member is not None and member.error and member.dend is not None and pos < member.dend:
            r = garbage(end - pos, after_record, data, member.error)
            return self._problem(pos, end, r.reason, r.code, MemberGarbage)
        r = garbage(end - pos, after_record, data, None)
        return self._problem(pos, end, r.reason, r.code)


def _data_end(parser: _Parser, found: int | None, stop: int | None) -> int:
    """Where data ends: what a scan ``found``; after a fruitless one, ``stop``, else as far as
    was buffered (the end of the file, or the scan horizon)."""
    for at in (found, stop):
        if at is not None:
            return at
    return parser.s.end


def _skip_to(parser: _Parser, target: int, stop: int | None) -> int:
    """Read on to ``target`` (at most ``stop``), letting the bytes before it go; the offset
    after the blank lines there (the stream's end when the data ends first)."""
    s = parser.s
    if stop is not None:
        target = min(target, stop)
    while s.end < target:
        s.release(s.end)
        if not s.more():
            return s.end
    return parser.lines.skip_blank(target)


def _damaged_member(
    parser: _Parser, member: Member, pos: int
) -> Iterator[ArcRecordBytes | Damage | Quirk]:
    """A member that failed to inflate or verify: records proved complete inside it are
    delivered; the rest is damage with the member's compressed bytes."""
    end = member.dend or pos
    reasons: list[str] = []
    folded: list[Damage] = []
    while pos < end:
        parser.lines.folding = True
        try:
            items = list(parser._plain_record(pos, end, member))
        finally:
            parser.lines.folding = False
        for item in items:
            if isinstance(item, Damage):
                reasons.append(item.reason)  # folded into the member's one entry below
                folded.append(item)
            else:
                yield item
        if parser._after <= pos:
            break
        pos = parser.lines.skip_blank(parser._after, end)
    parser._after = max(parser._after, end)
    error = member.error or "damaged gzip member"
    if not any(error in r for r in reasons):
        reasons.insert(0, error)
    # one damage entry per member: its compressed span and bytes, whatever it held; named
    # by the most telling damage found in it, else by the member's own
    code = min(folded, key=rank).code if folded else member.code or "corrupt-member"
    yield parser._problem(member.dstart, end, "; ".join(dict.fromkeys(reasons)), code)


def _record_span(
    s: MemberStream, pos: int, nxt: int, member: Member | None
) -> tuple[int | None, int | None]:
    """Where the record ``[pos, nxt)`` lies in the file: itself in a plain file, its gzip
    member when it is alone in one, else ``(None, None)``."""
    if not s.compressed:
        return pos, nxt - pos
    if (
        member is not None
        and member.dstart == pos
        and member.dend is not None
        and nxt >= member.dend
        and member.cend is not None
    ):
        return member.cstart, member.cend - member.cstart
    return None, None


def _span_reader(fh: BinaryIO) -> Callable[[int, int], bytes | None]:
    """``read(offset, length)``: file bytes without moving ``fh`` (the inflate thread reads it)."""
    getbuffer = getattr(fh, "getbuffer", None)
    if getbuffer is not None:
        return lambda offset, length: bytes(getbuffer()[offset : offset + length])
    try:
        fd = fh.fileno()
    except (AttributeError, OSError, ValueError):
        return _ranged_reader(fh)
    return lambda offset, length: os.pread(fd, length, offset)


def _ranged_reader(fh: BinaryIO) -> Callable[[int, int], bytes | None]:
    """``read(offset, length)`` of a file with no descriptor: a remote one (an fsspec file:
    its filesystem reads the range, a request of its own), else ``None``."""
    fs, path = getattr(fh, "fs", None), getattr(fh, "path", None)
    cat_file = getattr(fs, "cat_file", None)
    if cat_file is None or not isinstance(path, str):
        return lambda offset, length: None
    return lambda offset, length: cat_file(path, start=offset, end=offset + length)


def _file_size(fh: BinaryIO) -> int | None:
    try:
        return os.fstat(fh.fileno()).st_size
    except (AttributeError, OSError, ValueError):
        size = getattr(fh, "size", None)  # an fsspec file knows its size
        if isinstance(size, int):
            return size
        getbuffer = getattr(fh, "getbuffer", None)
        return len(getbuffer()) if getbuffer is not None else None


#: bytes looked at for the start of an ARC file that begins with damage.
DETECT_WINDOW = 1 << 16


def find_arc_start(data: bytes) -> tuple[bool, int] | None:
    """Where ARC data starts in the first bytes of a file that may begin with damage (a flipped
    bit in the gzip magic, zeros or garbage, a cut filedesc): ``(gzip, offset)`` for the first
    gzip member that inflates to an ARC header line, or the first plausible ARC header line
    at a line start, whichever comes first; ``None`` when neither is in ``data``."""
    plain = None
    if plausible_header(data.split(b"\n", 1)[0]) is not None and b"\n" in data:
        plain = 0
    else:
        for found in CANDIDATE.finditer(data):
            line = data[found.start() :].split(b"\n", 1)
            glued = data[found.start() - 1 : found.start()] != b"\n"
            if len(line) == 2 and plausible_header(line[0], strict=glued) is not None:
                plain = found.start() + glued_prefix(line[0])
                break
    at = data.find(GZIP_MAGIC)
    while at >= 0 and (plain is None or at < plain):
        try:
            head = zlib.decompressobj(31).decompress(data[at:], 4096)
        except zlib.error:
            head = b""
        line = head.split(b"\n", 1)[0]
        if b"\n" in head and plausible_header(line) is not None:
            return True, at
        at = data.find(GZIP_MAGIC, at + 1)
    return (False, plain) if plain is not None else None


def iter_arc(
    fh: BinaryIO,
    *,
    gzip: bool | None = None,
    max_record_bytes: int = 256 << 20,
    max_header_bytes: int = 1 << 20,
    max_decompressed_bytes: int = 64 << 30,
    prefetch_inflate: bool = True,
    threads: int = 0,
    held: HeldMembers | None = None,
) -> Iterator[ArcRecordBytes | Damage | Quirk]:
    """Walk an ARC file: yield every record and every problem in file order.

    ``gzip`` is detected from the first bytes when ``None``, looking past damage at the start
    (:func:`find_arc_start`); a file starting with a bzip2 magic is read with the ``bzip2``
    codec (``.arc.bz2``, as ``.warc.bz2``). Gzip members are inflated in verified runs of whole
    members by this thread, as the parser needs them (no thread: the least CPU time; see
    :func:`~crawlmill.formats.codecs.compression.iter_pieces`); ``threads > 0`` inflates them ahead in
    that many workers, one step further ahead in a background thread unless
    ``prefetch_inflate`` is false. Raises :class:`ArcLimitError` when the file inflates beyond
    ``max_decompressed_bytes``. ``held`` is lent the compressed bytes of the gzip members
    being parsed (:class:`~crawlmill.formats.codecs.member_source.HeldMembers`; not with a prefetch
    thread, which runs ahead of the parser).
    """
    if gzip is None:
        head = fh.read(DETECT_WINDOW)
        fh.seek(0)
        gzip = head.startswith(GZIP_MAGIC[:2])
        if not gzip and plausible_header(head.split(b"\n", 1)[0]) is None:
            found = find_arc_start(head)
            gzip = found is not None and found[0]
    kind = "gzip" if gzip else None
    if not gzip and compression_of(fh.read(16)) == "bzip2":  # .arc.bz2, as .warc.bz2
        kind = "bzip2"
    fh.seek(0)
    gzip = kind is not None  # compressed: offsets are the members' (streams')
    items = iter_pieces(
        fh,
        kind,
        max_decompressed_bytes=max_decompressed_bytes,
        # a plain file in reads of 1 MiB: a resync scan buffers R + H, not a piece more
        piece_size=PIECE_SIZE if gzip else READ_SIZE,
        threads=threads,
        batch=True,
        max_member_bytes=member_bound(max_record_bytes, max_header_bytes),
        held=None if prefetch_inflate and threads else held,
    )
    if gzip and prefetch_inflate and threads:
        items = prefetch(items)
    parser = _Parser(
        MemberStream(
            items,
            hold_damage=False,
            compressed=gzip,
            limit=max_decompressed_bytes,
            limit_error=ArcLimitError,
        ),
        max_record_bytes,
        max_header_bytes,
        size=None if gzip else _file_size(fh),
        read_span=_span_reader(fh) if gzip else None,
    )
    try:
        yield from parser
    finally:
        close = getattr(items, "close", None)
        if close is not None:
            close()
