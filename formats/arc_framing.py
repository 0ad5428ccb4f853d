"""Finding ARC records in a file: framing, length checks, gzip members, damage and resync.

:func:`iter_arc` walks an ARC file (uncompressed, gzip per record, or one gzip member for the
whole file) and yields :class:`ArcRecordBytes` for every record, the formats' one damage type
:class:`~crawlmill.formats.stream.Damage` for every damaged byte range and :class:`Quirk` for
a repaired quirk between records. It never stops silently:

* where a record ends follows the length rule of :mod:`crawlmill.formats.arc_length`: the
  declared length wins whenever the bytes it delimits are followed by a separator and the next
  header line, the member end or the file end (or by those directly); a repair (cut, extended,
  truncated record) is delivered *and* reported as damage with the original bytes; so is a
  record whose length field is not a number (taken up to the next header);
* a header line cut short with the next one glued to it (a writer that restarted appending)
  is damage and a resync point: the next record is read whole;
* truncated or corrupt gzip members and non-gzip bytes between members are damage, and
  reading resumes at the next member (:func:`crawlmill.formats.compression.iter_pieces`); a
  record is never proved complete by the end of a corrupt member;
* a file whose first bytes are damaged is read from the first gzip member or ARC header line
  found in its first 64 KiB (:func:`find_arc_start`);
* damage is located in the file by :func:`file_span`: for plain files its stream range; for
  gzip files (``member_offset`` set) the compressed span of the member(s) a damaged range
  covers, with their compressed bytes (``compressed``), or the member it lies in (length
  unknown);
* memory is bounded by the record limit, also for whole-file gzip.

Header-line parsing lives in :mod:`crawlmill.formats.arc`; nothing here knows crawlmill's core.
"""

from __future__ import annotations

import contextlib
import os
import re
import zlib
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import BinaryIO

from .arc import (
    GZIP_MAGIC,
    ArcHeader,
    ArcHeaderError,
    FileDesc,
    parse_filedesc,
    parse_header_line,
    plausible_header,
)
from .arc_length import Action, Decision, Facts, decide
from .compression import compression_of, iter_pieces, member_bound, prefetch
from .notes import Note
from .stream import Damage, Member, MemberStream, StreamLimitError

__all__ = [
    "DETECT_WINDOW",
    "ArcLimitError",
    "ArcRecordBytes",
    "Quirk",
    "file_span",
    "find_arc_start",
    "iter_arc",
]

# a header may start at a line start, or (for common schemes) glued to the bytes before it
_CANDIDATE = re.compile(
    rb"(?<=\n)[A-Za-z][A-Za-z0-9+.\-]{0,31}:|(?:https?|ftp|dns|filedesc|rtsp|mms|gopher):"
)
#: distances from a declared record end tried before resyncing, nearest first.
_NEAR = sorted(range(-16, 17), key=lambda d: (abs(d), d))[1:]

_KNOWN_SCHEMES = (b"https", b"http", b"ftp", b"dns", b"filedesc")
_KNOWN_PREFIXES = tuple(k + b":" for k in _KNOWN_SCHEMES)
#: bytes that may be part of a URL scheme (a header glued after one is not a header).
_SCHEME_BYTES = frozenset(b"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789+.-")


def _glued_prefix(line: bytes) -> int:
    """Length of junk glued before a well-known scheme (``xxhttp://...`` -> 2), else 0."""
    scheme = line[: line.find(b":")].lower()
    for known in _KNOWN_SCHEMES:
        if scheme != known and scheme.endswith(known):
            return len(scheme) - len(known)
    return 0


#: bytes that end a word inside a URL: an embedded URL right after one of them is glued on
#: (after a delimiter such as ``/``, ``=`` or ``?`` it may be part of the URL, as in
#: ``http://web.archive.org/web/2001/http://example.com/``).
_WORD_BYTES = frozenset(b"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-._~")


def _glued_header(line: bytes, version: str | None, url_has_space: bool = True) -> bool:
    """Whether a well-known scheme inside ``line`` (not after a space) starts a complete
    header line: the sign of a header cut short with the next header glued to it (a writer
    that crashed inside a header line and restarted appending). When the URL field has no
    space, the cut fell inside the URL: only a scheme glued to a word counts (not one after a
    delimiter or a percent escape, where a URL may embed another)."""
    for found in _CANDIDATE.finditer(line, 1):
        at = found.start()
        before = line[at - 1 : at]
        if before in (b" ", b"\n"):
            continue
        if not url_has_space and (before[0] not in _WORD_BYTES or line[at - 3 : at - 2] == b"%"):
            continue
        if plausible_header(line[at:], version, strict=True):
            return True
    return False


@dataclass(slots=True)
class ArcRecordBytes:
    """One record as found in the file.

    ``offset``/``length`` locate it in the file: the gzip member for per-record gzip, the
    record (header line through separator) for uncompressed files; ``None`` when the record
    shares a gzip member with others. ``stream_offset`` is its offset in the decompressed
    stream. ``trailer`` holds the bytes after the block up to the next record (normally
    ``b"\\n"``). ``notes`` lists repaired quirks; ``filedesc`` the parsed version block; ``truncated`` is
    true when the file ended before the declared length (the bytes found are kept);
    ``damaged`` when the block was repaired and a :class:`~crawlmill.formats.stream.Damage`
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


class _ArcLines:
    """The ARC parser's state and its primitives: lines, separators, where a record may end,
    resync scanning."""

    def __init__(
        self,
        stream: MemberStream,
        max_record: int,
        max_header: int,
        size: int | None = None,
        read_span: Callable[[int, int], bytes | None] | None = None,
    ) -> None:
        self.s = stream
        self.max_record = max_record
        self.max_header = max_header
        self.size = size  # the file size of an uncompressed file (impossible lengths)
        self.read_span = read_span  # compressed file bytes for damage entries of gzip files
        self.version: str | None = None  # "1" or "2", from the filedesc version block
        self.first = True  # the first header line is parsed leniently (it is the filedesc)
        self.crlf = False  # header lines end in CRLF: the separator is CRLF too
        self._after = 0  # where the next record starts; set by the _*_record generators
        # a damaged range cut where a fruitless scan gave up (the record bound): where it was
        # cut, and where the damage reported up to there ends (the next one goes on with it)
        self._cut_at: int | None = None
        self._open_end: int | None = None

    # -- helpers ---------------------------------------------------------------------------

    def _line(self, pos: int) -> tuple[bytes, int] | None:
        """The line starting at ``pos`` and the offset of its newline (``s.end`` at EOF)."""
        nl = self.s.line_end(pos, self.max_header)
        if nl is None:
            return None
        return self.s.get(pos, nl), nl

    def _header_at(self, pos: int, strict: bool = False) -> ArcHeader | None:
        got = self._line(pos)
        if got is None or got[1] >= self.s.end:
            return None
        return plausible_header(got[0], self.version, strict=strict)

    def _expected_header(self, line: bytes) -> ArcHeader | None:
        """A header line where one is expected (after a record's separator): plausible, or any
        line that parses as one with a numeric length (a date such as ``null`` is kept)."""
        header = plausible_header(line, self.version)
        if header is not None:
            return header
        try:
            header = parse_header_line(line, self.version)
        except ArcHeaderError:
            return None
        return header if header.length is not None and len(line) <= 65536 else None

    def _skip_blank(self, pos: int, stop: int | None = None) -> int:
        """Skip ``\\n`` and ``\\r\\n`` lines from ``pos``."""
        while stop is None or pos < stop:
            b = self.s.byte(pos)
            if b == 0x0A:
                pos += 1
            elif b == 0x0D and self.s.byte(pos + 1) == 0x0A:
                pos += 2
            else:
                break
        return pos

    def _sep_at(self, pos: int, stop: int | None) -> int:
        """Separator bytes at ``pos``: 1 for ``\\n``, 2 for ``\\r\\n``, else 0."""
        if stop is not None and pos >= stop:
            return 0
        b = self.s.byte(pos)
        if b == 0x0A:
            return 1
        if b == 0x0D and self.s.byte(pos + 1) == 0x0A and (stop is None or pos + 1 < stop):
            return 2
        return 0

    def _sep_before(self, pos: int, floor: int) -> int:
        """Separator bytes just before ``pos`` (not reaching below ``floor``)."""
        s = self.s
        if pos - 1 < floor or s.byte(pos - 1) != 0x0A:
            return 0
        if self.crlf and pos - 2 >= floor and s.byte(pos - 2) == 0x0D:
            return 2
        return 1

    def _confirm(self, end: int, stop: int | None, stop_proves: bool) -> int | None:
        """Where the next record starts if a record may end at ``end``: there, or after a
        separator and blank lines, comes a header line, a member start, ``stop`` (when it is a
        real end) or the end of the file. ``None`` otherwise."""
        s = self.s
        if stop is not None and end >= stop:
            return end if end == stop and stop_proves else None
        b = s.byte(end)
        if b is None:
            return end if end == s.end else None
        sep = self._sep_at(end, stop)
        if sep:
            nxt = self._skip_blank(end + sep, stop)
            if stop is not None and nxt >= stop:
                return nxt if stop_proves else None
            if s.byte(nxt) is None:
                return nxt
            if s.compressed and s.members.at(nxt) is not None:
                return nxt
            got = self._line(nxt)
            if got is None or got[1] >= s.end:
                return None
            return nxt if self._expected_header(got[0]) is not None else None
        if s.compressed and s.members.at(end) is not None:
            return end
        before = s.byte(end - 1) if end > 0 else 0x0A
        if before == 0x0A:
            return end if self._header_at(end) is not None else None
        # glued to the block: only a well-known scheme that cannot extend backwards
        got = self._line(end)
        if (
            got is None
            or before in _SCHEME_BYTES
            or not got[0].lower().startswith(_KNOWN_PREFIXES)
            or plausible_header(got[0], self.version, strict=True) is None
        ):
            return None
        return end

    def _scan(self, pos: int, stop: int | None) -> int | None:
        """Offset of the next plausible header line (or gzip member start) after ``pos``;
        ``None`` if none before ``stop``/EOF within the record limit. Header lines are
        looked for at line starts and, for common URL schemes, also glued to the bytes
        before them (garbage or a cut record without its newline)."""
        s = self.s
        horizon = pos + self.max_record + self.max_header
        at = pos + 1
        while True:
            hi = s.end if stop is None else min(s.end, stop)
            member = s.members.first_start(pos, hi + 1) if s.compressed else None
            limit = hi if member is None else min(hi, member)
            found = None
            if at < limit:  # a candidate starting before ``limit`` may end after it
                found = _CANDIDATE.search(s.buf, at - s.base, min(s.end, limit + 40) - s.base)
                if found is not None and found.start() + s.base >= limit:
                    found = None
            if found is not None:
                cand = found.start() + s.base
                got = self._line(cand)
                if got is not None and got[1] < s.end:
                    glued = s.buf[cand - s.base - 1] != 0x0A
                    if plausible_header(got[0], self.version, strict=glued) is not None:
                        return cand + _glued_prefix(got[0])
                at = cand + 1
                continue
            if member is not None and (stop is None or member < stop):
                return member
            at = max(at, limit - 40)
            if stop is not None and hi >= stop:
                return None
            if s.end >= horizon:
                self._cut_at = s.end  # damage up to here is reported in parts
                return None
            if not s.more():
                return None

    def _chains(self, pos: int, stop: int | None) -> bool:
        """Whether a header line at ``pos`` starts a record whose declared end is confirmed."""
        got = self._line(pos)
        if got is None:
            return False
        header = self._expected_header(got[0])
        if header is None or header.length is None or header.length > self.max_record:
            return False
        return self._confirm(got[1] + 1 + header.length, stop, True) is not None

    def _damaged_end(self, lo: int, hi: int) -> int | None:
        """The end of the inflated bytes of a corrupt gzip member (not one cut by the end of
        the file) in ``(lo, hi]``: bytes up to there cannot prove a record complete."""
        if not self.s.compressed or not self.s.members.errors:
            return None
        best = None
        for m in self.s.members.spans:
            if m.error is None:
                continue
            if (
                not _cut_by_eof(m)
                and m.dend is not None
                and lo < m.dend <= hi
                and (best is None or m.dend < best)
            ):
                best = m.dend
        return best


class _ArcRecords(_ArcLines):
    """The walk over records: members, plain records, damage located in the file."""

    def __iter__(self) -> Iterator[ArcRecordBytes | Damage | Quirk]:
        s = self.s
        pos = 0
        while True:
            if s.problems:
                yield from self._problems(pos)
            s.release(pos)
            if s.byte(pos) is None:
                yield from self._problems(s.end + 1)
                return
            start = pos
            member = s.members.at(pos)
            pos = self._skip_blank(pos)
            if pos > start:
                text = "stray newline bytes before a record"
                yield Quirk(self._file_offset(start), text, code="stray-newlines")
                if s.byte(pos) is None:
                    continue
                member = s.members.at(pos) or member
            if member is not None:
                yield from self._member_record(member, pos)
            else:
                yield from self._plain_record(pos, None, None)
            pos = self._after

    def _problems(self, upto: int) -> Iterator[Damage]:
        """Compressed ranges that could not be inflated at all, found before ``upto`` (at the
        stream offset where they were met; their compressed span and bytes)."""
        met = [at for at, _ in self.s.problems if at <= upto]
        for at, item in zip(met, self.s.take_problems(upto), strict=True):
            reason, code = item.reason, item.code
            if not item.partial and item.data[:3] == GZIP_MAGIC:
                reason = f"gzip member that inflates to nothing: {reason}"
                if code != "damaged-gzip-magic":  # (a damaged magic names it still)
                    code = "empty-member"
            yield Damage(
                at, item.length, reason, item.data, item.offset, True, item.length, code=code
            )

    def _member_of(self, pos: int) -> Member | None:
        return self.s.members.holding(pos)

    def _file_offset(self, pos: int) -> int:
        if not self.s.compressed:
            return pos
        best = self._member_of(pos)
        return best.cstart if best is not None else 0

    def _problem(
        self, pos: int, end: int, reason: str, code: str, kind: type[Damage] = Damage
    ) -> Damage:
        """Damage for the decompressed range ``[pos, end)`` (``part`` > 0 when it goes on
        with a range cut at the record bound just before it: the same damaged record)."""
        damage = self._located(pos, end, reason, code, kind)
        damage.part = 1 if pos == self._open_end else 0
        self._open_end = end if end == self._cut_at else None
        return damage

    def _located(
        self, pos: int, end: int, reason: str, code: str, kind: type[Damage] = Damage
    ) -> Damage:
        """Damage for the decompressed range ``[pos, end)``, located in the file: the range
        itself in an uncompressed file; for gzip, the compressed span (and compressed bytes)
        of the member(s) it covers exactly, else the member it lies in (length unknown)."""
        s = self.s
        data = s.get(pos, end)[: self.max_record]
        if not s.compressed:
            return kind(pos, end - pos, reason, data, code=code)
        first = self._member_of(pos)
        if first is None:
            return kind(pos, end - pos, reason, data, 0, code=code)
        last = self._member_of(max(pos, end - 1)) or first
        if first.dstart == pos and last.dend == end and last.cend is not None:
            length = last.cend - first.cstart
            raw = (
                self.read_span(first.cstart, min(length, self.max_record))
                if self.read_span
                else None
            )
            if raw is None:
                return kind(pos, end - pos, reason, data, first.cstart, False, length, code=code)
            return kind(pos, end - pos, reason, raw, first.cstart, True, length, code=code)
        where = f" (decompressed bytes {pos}-{end} of the gzip member at {first.cstart})"
        return kind(pos, end - pos, reason + where, data, first.cstart, code=code)

    def _parse_start(self, pos: int) -> tuple[ArcHeader, int] | None:
        """Parse the header line at ``pos``: ``(header, body_start)``, or ``None`` when there
        is no header there (the caller reports the bytes and resyncs)."""
        got = self._line(pos)
        if got is None:
            return None
        line, nl = got
        try:
            if self.first:
                header = parse_header_line(line, None)
            else:
                header = self._expected_header(line)
                if header is None:
                    raise ArcHeaderError(f"not an ARC header line: {line[:120]!r}")
        except ArcHeaderError:
            return None
        if _glued_header(line, self.version, b" " in header.url):
            return None  # a cut header line with the next one glued on: resync finds the latter
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
            yield from self._damaged_member(member, pos)
            return
        # no header at its start: garbage up to a header inside it (a cut header line with
        # the next one glued on) or its end; reading goes on there. A header parsed above
        # is final (its line was whole and nothing the parse depends on changed since)
        yield from self._plain_record(
            pos, member.dend, member, got if isinstance(got, tuple) else None
        )

    def _damaged_member(
        self, member: Member, pos: int
    ) -> Iterator[ArcRecordBytes | Damage | Quirk]:
        """A member that failed to inflate or verify: records proved complete inside it are
        delivered; the rest is damage with the member's compressed bytes."""
        end = member.dend or pos
        reasons: list[str] = []
        folded: list[Damage] = []
        while pos < end:
            items = list(self._plain_record(pos, end, member))
            for item in items:
                if isinstance(item, Damage):
                    reasons.append(item.reason)  # folded into the member's one entry below
                    folded.append(item)
                else:
                    yield item
            if self._after <= pos:
                break
            pos = self._skip_blank(self._after, end)
        self._after = max(self._after, end)
        error = member.error or "damaged gzip member"
        if not any(error in r for r in reasons):
            reasons.insert(0, error)
        # one damage entry per member: its compressed span and bytes, whatever it held; named
        # by the most telling damage found in it, else by the member's own
        code = min(folded, key=_rank).code if folded else member.code or "corrupt-member"
        yield self._problem(member.dstart, end, "; ".join(dict.fromkeys(reasons)), code)

    def _plain_record(
        self,
        pos: int,
        stop: int | None,
        member: Member | None,
        parsed: tuple[ArcHeader, int] | None = None,
    ) -> Iterator[ArcRecordBytes | Damage | Quirk]:
        s = self.s
        got = parsed if parsed is not None else self._parse_start(pos)
        if not isinstance(got, tuple):
            nxt = self._scan(pos, stop)
            end = nxt if nxt is not None else self._data_end(stop)
            yield self._garbage(pos, end)
            self._after = end
            return
        header, body_start = got
        self.first = False
        self.crlf = header.raw.endswith(b"\r")
        if header.length is None:
            q = self._scan(body_start - 1, stop)
            data_end = q if q is not None else self._data_end(stop)
            facts = Facts(
                body_start,
                None,
                data_end=data_end,
                sep_before_data_end=self._sep_before(data_end, body_start),
            )
            yield from self._apply(pos, header, body_start, decide(facts), stop, member)
            return
        e = body_start + header.length
        data_limit = stop if stop is not None else self.size
        impossible = data_limit is not None and e > data_limit
        if header.length > self.max_record and not impossible:
            q = self._scan(body_start - 1, stop)
            if q is not None and self._chains(q, stop):
                # a complete record starts inside the too-large one: the length is bogus
                yield self._problem(
                    pos,
                    q,
                    f"record {header.url[:100]!r} declares {header.length} bytes (more than "
                    f"the limit of {self.max_record}) but a complete record starts after "
                    f"{q - body_start}; resynced there",
                    "bad-length",
                )
                self._after = q
                return
            yield Damage(
                pos,
                e - pos,
                f"record {header.url[:100]!r} declares {header.length} bytes, more than the "
                f"limit of {self.max_record}; skipped",
                b"",
                self._file_offset(pos) if s.compressed else None,
                code="record-too-large",
            )
            self._after = self._skip_to(e, stop)
            return
        if self._usual(header, body_start, e, stop, member):
            yield from self._emit(pos, header, body_start, e, stop, member, [])
            return
        stop_is = "member"
        if member is not None and member.error:
            stop_is = "eof" if _cut_by_eof(member) else "damaged"
        facts = self._facts(pos, body_start, e, stop, stop_is, member, impossible)
        verdict = decide(facts)
        yield from self._apply(pos, header, body_start, verdict, stop, member)

    def _usual(
        self, header: ArcHeader, body_start: int, e: int, stop: int | None, member: Member | None
    ) -> bool:
        """Whether a record ends as almost every record does: its declared bytes end at
        ``e``, then ``\\n`` and the end of its sound gzip member (``stop``). Then what
        :meth:`_facts` and :func:`decide` find for it is known (the end is confirmed, the
        separator run is ``b"\\n"``, the verdict ``DECLARED``), without gathering every
        fact."""
        return (
            member is not None
            and stop is not None
            and e + 1 == stop == member.dend
            and not member.error
            and self.s.byte(e) == 0x0A
            and self._damaged_end(body_start, stop) is None
        )


class _Parser(_ArcRecords):
    """Splits the decompressed stream of an ARC file into records and problems (here: the
    length rule applied to a record, and what is emitted)."""

    def _facts(
        self,
        pos: int,
        body_start: int,
        e: int,
        stop: int | None,
        stop_is: str,
        member: Member | None,
        impossible: bool,
    ) -> Facts:
        """Gather what :func:`~crawlmill.formats.arc_length.decide` needs about one record;
        ``stop_is`` says what ``stop`` is (``"member"`` end, ``"eof"``: a member cut by the end
        of the file, ``"damaged"``: a corrupt member's end)."""
        stop_proves = stop_is != "damaged"
        s = self.s
        confirmed = None if impossible else self._confirm(e, stop, stop_proves)
        damaged_at = self._damaged_end(body_start, e + 1)
        if confirmed is not None and damaged_at is None:
            return Facts(
                body_start,
                e,
                confirmed=confirmed,
                data_end=confirmed,
                sep_at_end=self._sep_at(e, stop) if confirmed > e else 0,
            )
        inside_stop = e if stop is None else min(e, stop)
        header_inside = self._scan(body_start - 1, inside_stop)
        if header_inside is not None and header_inside >= e:
            header_inside = None
        q = None
        if header_inside is None and (stop is None or e < stop) and e <= s.end:
            # the declared end is buffered (beyond it only when the data ended first)
            q = self._scan(max(e, body_start) - 1, stop)
        if q is not None:
            data_end, kind = q, "header"
        elif stop is not None:
            data_end, kind = stop, stop_is
        else:
            data_end = s.end
            kind = "eof" if s.byte(s.end) is None else "horizon"
        if damaged_at is None:
            damaged_at = self._damaged_end(body_start, max(data_end, min(e, s.end)))
            if damaged_at is not None and header_inside is not None and header_inside < damaged_at:
                damaged_at = None  # the record ends (cut) before the damage
        if kind == "damaged" and damaged_at is None:
            damaged_at = stop
        one = (
            member is not None
            and stop is not None
            and member.dstart == pos
            and stop == member.dend
            and not member.error
        )
        return Facts(
            body_start,
            e,
            confirmed=confirmed,
            header_inside=header_inside,
            data_end=data_end,
            data_end_is=kind,
            one_record_member=one,
            damaged_at=damaged_at,
            sep_at_end=self._sep_at(e, stop) if e < data_end else 0,
            sep_before_header=(
                self._sep_before(header_inside, body_start) if header_inside is not None else 0
            ),
            sep_before_data_end=self._sep_before(data_end, body_start),
        )

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
            broken = self._member_of(v.next - 1) if self.s.compressed else None
            if broken is not None and broken.error:
                reason = (
                    f"record {url!r} declares {declared} bytes but its gzip member is damaged "
                    f"({broken.error}) after {v.next - body_start}; not delivered"
                )
                code = "corrupt-member"
            else:
                reason = (
                    f"record {url!r} declares {declared} bytes; no record end within the "
                    f"{v.next - body_start} bytes that follow (record limit); not delivered"
                )
                code = "no-record-end"
            yield self._problem(pos, v.next, reason, code)
            self._after = v.next
            return
        if v.action == Action.GARBAGE_AFTER:
            garbage_from = v.garbage_from if v.garbage_from is not None else v.next
            yield from self._emit(pos, header, body_start, v.body_end, garbage_from, member, [])
            self._after = v.next
            if v.next > garbage_from:
                yield self._garbage(garbage_from, v.next, after_record=True)
            return
        have = v.body_end - body_start
        code = "bad-length"
        if v.action == Action.TRUNCATED:
            code = "truncated-record"
            reason = (
                f"record {url!r} declares {declared} bytes but the file ends after {have}; "
                f"kept the record as truncated"
            )
        elif v.action == Action.UNDECLARED:
            code = "invalid-length"
            raw = header.fields.get("Archive-length", b"")[:40]
            reason = (
                f"record {url!r} has an invalid Archive-length {raw!r}; delivered the {have} "
                f"bytes up to the next record"
            )
        elif v.action == Action.CUT:
            what = "the end of its gzip member" if v.next == stop else "the next record header"
            reason = (
                f"record {url!r} declares {declared} bytes but {what} comes after "
                f"{v.next - body_start}; delivered the {have} bytes before it"
            )
        else:
            reason = (
                f"record {url!r} declares {declared} bytes but its gzip member holds "
                f"{have} ({have - (declared or 0):+d}); delivered the member's bytes"
            )
        truncated = v.action == Action.TRUNCATED
        yield from self._emit(
            pos, header, body_start, v.body_end, v.next, member, [], truncated, damaged=True
        )
        yield self._problem(pos, v.next, reason, code)

    def _data_end(self, stop: int | None) -> int:
        """Where data ends after a fruitless scan: ``stop``, else as far as was buffered (the
        end of the file, or the scan horizon)."""
        return stop if stop is not None else self.s.end

    def _skip_to(self, target: int, stop: int | None) -> int:
        s = self.s
        if stop is not None:
            target = min(target, stop)
        while s.end < target:
            s.release(s.end)
            if not s.more():
                return s.end
        return self._skip_blank(target)

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
        offset = length = None
        if not s.compressed:
            offset, length = pos, nxt - pos
        elif (
            member is not None
            and member.dstart == pos
            and member.dend is not None
            and nxt >= member.dend
            and member.cend is not None
        ):
            offset, length = member.cstart, member.cend - member.cstart
        self._after = nxt
        block = s.get(body_start, body_end)
        trailer = s.get(body_end, nxt)
        filedesc = None
        if header.is_filedesc:
            filedesc = parse_filedesc(block)
            if filedesc is not None and filedesc.major in ("1", "2") and self.version is None:
                self.version = filedesc.major
                if filedesc.major != header.version:
                    with contextlib.suppress(ArcHeaderError):
                        header = parse_header_line(header.raw, filedesc.major)
        if self.version is None:
            self.version = header.version
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

    def _garbage(self, pos: int, end: int, after_record: bool = False) -> Damage:
        data = self.s.get(pos, min(end, pos + 60))
        where = "after a record" if after_record else "where a record header was expected"
        member = self._member_of(pos) if self.s.compressed else None
        if member is not None and member.error and member.dend is not None and pos < member.dend:
            reason = f"{member.error}; {end - pos} decompressed bytes do not form a record"
            return self._problem(pos, end, reason, "corrupt-member", _MemberGarbage)
        reason = f"{end - pos} bytes of garbage {where}, starting {data!r}"
        return self._problem(pos, end, reason, "not-a-record")


@dataclass(slots=True)
class _MemberGarbage(Damage):
    """Bytes of a damaged gzip member that form no record (named last, :func:`_rank`)."""


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


def _rank(damage: Damage) -> int:
    """Where ``damage`` comes in :data:`_NAMING_ORDER` (garbage of a damaged member last)."""
    if isinstance(damage, _MemberGarbage):
        return len(_NAMING_ORDER)
    code = damage.code
    return _NAMING_ORDER.index(code) if code in _NAMING_ORDER else len(_NAMING_ORDER) + 1


def _cut_by_eof(member: Member) -> bool:
    """Whether a member's error is only that the file ends inside it."""
    error = member.error or ""
    return "truncated" in error or "file ends" in error


def _span_reader(fh: BinaryIO) -> Callable[[int, int], bytes | None]:
    """``read(offset, length)``: file bytes without moving ``fh`` (the inflate thread reads it)."""
    getbuffer = getattr(fh, "getbuffer", None)
    if getbuffer is not None:
        return lambda offset, length: bytes(getbuffer()[offset : offset + length])
    try:
        fd = fh.fileno()
    except (AttributeError, OSError, ValueError):
        return lambda offset, length: None
    return lambda offset, length: os.pread(fd, length, offset)


def _file_size(fh: BinaryIO) -> int | None:
    try:
        return os.fstat(fh.fileno()).st_size
    except (AttributeError, OSError, ValueError):
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
        for found in _CANDIDATE.finditer(data):
            line = data[found.start() :].split(b"\n", 1)
            glued = data[found.start() - 1 : found.start()] != b"\n"
            if len(line) == 2 and plausible_header(line[0], strict=glued) is not None:
                plain = found.start() + _glued_prefix(line[0])
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
) -> Iterator[ArcRecordBytes | Damage | Quirk]:
    """Walk an ARC file: yield every record and every problem in file order.

    ``gzip`` is detected from the first bytes when ``None``, looking past damage at the start
    (:func:`find_arc_start`); a file starting with a bzip2 magic is read with the ``bzip2``
    codec (``.arc.bz2``, as ``.warc.bz2``). Gzip members are inflated in verified runs of whole members by
    this thread, as the parser needs them (no thread: the least CPU time; see
    :func:`~crawlmill.formats.compression.iter_pieces`); ``threads > 0`` inflates them ahead in
    that many workers, one step further ahead in a background thread unless
    ``prefetch_inflate`` is false. Raises :class:`ArcLimitError` when the file inflates beyond
    ``max_decompressed_bytes``.
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
        threads=threads,
        batch=True,
        max_member_bytes=member_bound(max_record_bytes, max_header_bytes),
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
