"""The ARC parser's questions to the stream: lines, separators, where a record may end.

:class:`ArcLines` reads header lines and separators off a
:class:`~crawlmill.formats.codecs.stream.MemberStream` and confirms or scans for record ends;
:func:`gather_facts` collects what the length rule (:func:`crawlmill.formats.arc.length.
decide`) needs about one record. The parser (:mod:`crawlmill.formats.arc.framing`) holds one.
"""

from __future__ import annotations

import contextlib

from ..codecs.stream import Member, MemberStream
from .header import (
    ArcHeader,
    ArcHeaderError,
    FileDesc,
    parse_filedesc,
    parse_header_line,
    plausible_header,
)
from .length import Facts
from .restart import CANDIDATE
from .witness import HEAD_BYTES, http_block_length

__all__ = [
    "CANDIDATE",
    "KNOWN_PREFIXES",
    "SCHEME_BYTES",
    "ArcLines",
    "cut_by_eof",
    "gather_facts",
    "glued_prefix",
    "usual",
]

KNOWN_SCHEMES = (b"https", b"http", b"ftp", b"dns", b"filedesc")
KNOWN_PREFIXES = tuple(k + b":" for k in KNOWN_SCHEMES)
#: bytes that may be part of a URL scheme (a header glued after one is not a header).
SCHEME_BYTES = frozenset(b"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789+.-")


def glued_prefix(line: bytes) -> int:
    """Length of junk glued before a well-known scheme (``xxhttp://...`` -> 2), else 0."""
    scheme = line[: line.find(b":")].lower()
    for known in KNOWN_SCHEMES:
        if scheme != known and scheme.endswith(known):
            return len(scheme) - len(known)
    return 0


class ArcLines:
    """What the ARC parser asks of the stream: lines, separators, where a record may end,
    resync scanning; and what it learnt of the file (``version``, ``crlf``)."""

    def __init__(
        self, stream: MemberStream, max_record: int, max_header: int, size: int | None = None
    ) -> None:
        self.s = stream
        self.max_record = max_record
        self.max_header = max_header
        self.size = size  # the file size of an uncompressed file (impossible lengths)
        self.version: str | None = None  # "1" or "2", from the filedesc version block
        self.crlf = False  # header lines end in CRLF: the separator is CRLF too
        #: where a fruitless resync scan gave up at the record bound (damage up to there is
        #: reported in parts: the next range goes on with it)
        self.cut_at: int | None = None
        self._open_end: int | None = None  # where the damage reported last ends, if cut there
        #: reading the records of a damaged member: the parser's damage entries copy their
        #: bytes (the member's one entry may need them), else they take them over from the
        #: stream (:func:`~crawlmill.formats.arc.damage.taken`: reading goes on past them)
        self.folding = False
        #: records read at a declared length followed by another run than one separator:
        #: the file's writer writes such runs, so the HTTP head no longer disproves one
        self.odd_runs = 0

    def part_of(self, pos: int, end: int) -> int:
        """The ``part`` of damage ``[pos, end)``: 1 when it goes on with a range cut at the
        record bound just before it (the same damaged record), else 0."""
        part = 1 if pos == self._open_end else 0
        self._open_end = end if end == self.cut_at else None
        return part

    def learn_version(self, header: ArcHeader, block: bytes) -> tuple[ArcHeader, FileDesc | None]:
        """Learn the file's ARC version from a record (its filedesc's version block, else its
        header line); returns the header (read again with the filedesc's version when that
        differs) and the parsed version block of a filedesc."""
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
        return header, filedesc

    def line(self, pos: int) -> tuple[bytes, int] | None:
        """The line starting at ``pos`` and the offset of its newline (``s.end`` at EOF)."""
        nl = self.s.line_end(pos, self.max_header)
        if nl is None:
            return None
        return self.s.get(pos, nl), nl

    def header_at(self, pos: int, strict: bool = False) -> ArcHeader | None:
        got = self.line(pos)
        if got is None or got[1] >= self.s.end:
            return None
        return plausible_header(got[0], self.version, strict=strict)

    def expected_header(self, line: bytes) -> ArcHeader | None:
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

    def skip_blank(self, pos: int, stop: int | None = None) -> int:
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

    def sep_at(self, pos: int, stop: int | None) -> int:
        """Separator bytes at ``pos``: 1 for ``\\n``, 2 for ``\\r\\n``, else 0."""
        if stop is not None and pos >= stop:
            return 0
        b = self.s.byte(pos)
        if b == 0x0A:
            return 1
        if b == 0x0D and self.s.byte(pos + 1) == 0x0A and (stop is None or pos + 1 < stop):
            return 2
        return 0

    def sep_before(self, pos: int, floor: int) -> int:
        """Separator bytes just before ``pos`` (not reaching below ``floor``)."""
        s = self.s
        if pos - 1 < floor or s.byte(pos - 1) != 0x0A:
            return 0
        if self.crlf and pos - 2 >= floor and s.byte(pos - 2) == 0x0D:
            return 2
        return 1

    def confirm(self, end: int, stop: int | None, stop_proves: bool) -> int | None:
        """Where the next record starts if a record may end at ``end``: there, or after a
        separator and blank lines, comes a header line, a member start, ``stop`` (when it is a
        real end) or the end of the file. ``None`` otherwise."""
        s = self.s
        if stop is not None and end >= stop:
            return end if end == stop and stop_proves else None
        b = s.byte(end)
        if b is None:
            return end if end == s.end else None
        sep = self.sep_at(end, stop)
        if sep:
            nxt = self.skip_blank(end + sep, stop)
            if stop is not None and nxt >= stop:
                return nxt if stop_proves else None
            if s.byte(nxt) is None:
                return nxt
            if s.compressed and s.members.at(nxt) is not None:
                return nxt
            got = self.line(nxt)
            if got is None or got[1] >= s.end:
                return None
            return nxt if self.expected_header(got[0]) is not None else None
        if s.compressed and s.members.at(end) is not None:
            return end
        before = s.byte(end - 1) if end > 0 else 0x0A
        if before == 0x0A:
            return end if self.header_at(end) is not None else None
        # glued to the block: only a well-known scheme that cannot extend backwards
        got = self.line(end)
        if (
            got is None
            or before in SCHEME_BYTES
            or not got[0].lower().startswith(KNOWN_PREFIXES)
            or plausible_header(got[0], self.version, strict=True) is None
        ):
            return None
        return end

    def scan(self, pos: int, stop: int | None) -> int | None:
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
                found = CANDIDATE.search(s.buf, at - s.base, min(s.end, limit + 40) - s.base)
                if found is not None and found.start() + s.base >= limit:
                    found = None
            if found is not None:
                cand = found.start() + s.base
                got = self.line(cand)
                if got is not None and got[1] < s.end:
                    glued = s.buf[cand - s.base - 1] != 0x0A
                    if plausible_header(got[0], self.version, strict=glued) is not None:
                        return cand + glued_prefix(got[0])
                at = cand + 1
                continue
            if member is not None and (stop is None or member < stop):
                return member
            at = max(at, limit - 40)
            if stop is not None and hi >= stop:
                return None
            if s.end >= horizon:
                self.cut_at = s.end  # damage up to here is reported in parts
                return None
            if not s.more():
                return None

    def chains(self, pos: int, stop: int | None) -> bool:
        """Whether a header line at ``pos`` starts a record whose declared end is confirmed."""
        got = self.line(pos)
        if got is None:
            return False
        header = self.expected_header(got[0])
        if header is None or header.length is None or header.length > self.max_record:
            return False
        return self.confirm(got[1] + 1 + header.length, stop, True) is not None

    def damaged_end(self, lo: int, hi: int) -> int | None:
        """The end of the inflated bytes of a corrupt gzip member (not one cut by the end of
        the file) in ``(lo, hi]``: bytes up to there cannot prove a record complete."""
        if not self.s.compressed or not self.s.members.errors:
            return None
        best = None
        for m in self.s.members.spans:
            if m.error is None:
                continue
            if (
                not cut_by_eof(m)
                and m.dend is not None
                and lo < m.dend <= hi
                and (best is None or m.dend < best)
            ):
                best = m.dend
        return best


def cut_by_eof(member: Member) -> bool:
    """Whether a member's error is only that the file ends inside it: its problem code is
    ``truncated-member`` (docs/problems.md), whatever its message says."""
    return member.error is not None and member.code == "truncated-member"


def gather_facts(
    lines: ArcLines,
    pos: int,
    body_start: int,
    e: int,
    stop: int | None,
    stop_is: str,
    member: Member | None,
    impossible: bool,
    filedesc: bool = False,
) -> Facts:
    """Gather what :func:`~crawlmill.formats.arc.length.decide` needs about one record;
    ``stop_is`` says what ``stop`` is (``"member"`` end, ``"eof"``: a member cut by the end
    of the file, ``"damaged"``: a corrupt member's end); ``filedesc``: the record is the
    file header (its length's closing blank line varies by writer: no HTTP head to ask)."""
    stop_proves = stop_is != "damaged"
    s = lines.s
    confirmed = None if impossible else lines.confirm(e, stop, stop_proves)
    damaged_at = lines.damaged_end(body_start, e + 1)
    if confirmed is not None and damaged_at is None:
        return Facts(
            body_start,
            e,
            confirmed=confirmed,
            data_end=confirmed,
            sep_at_end=lines.sep_at(e, stop) if confirmed > e else 0,
            proved_end=None if filedesc else _proved_end(lines, body_start, e, confirmed),
        )
    inside_stop = e if stop is None else min(e, stop)
    header_inside = lines.scan(body_start - 1, inside_stop)
    if header_inside is not None and header_inside >= e:
        header_inside = None
    q = None
    if header_inside is None and (stop is None or e < stop) and e <= s.end:
        # the declared end is buffered (beyond it only when the data ended first)
        q = lines.scan(max(e, body_start) - 1, stop)
    if q is not None:
        data_end, kind = q, "header"
    elif stop is not None:
        data_end, kind = stop, stop_is
    else:
        data_end = s.end
        kind = "eof" if s.byte(s.end) is None else "horizon"
    if damaged_at is None:
        damaged_at = lines.damaged_end(body_start, max(data_end, min(e, s.end)))
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
        sep_at_end=lines.sep_at(e, stop) if e < data_end else 0,
        sep_before_header=(
            lines.sep_before(header_inside, body_start) if header_inside is not None else 0
        ),
        sep_before_data_end=lines.sep_before(data_end, body_start),
    )


def _proved_end(lines: ArcLines, body_start: int, e: int, confirmed: int) -> int | None:
    """The block end the block's HTTP head proves (:mod:`~crawlmill.formats.arc.witness`)
    when the run of line-end bytes from the declared end ``e`` to the next record
    (``confirmed``) is not one separator and that end leaves exactly one; else ``None``.
    Only while no earlier record of the file was read at its declared length with such a
    run (``odd_runs``): a writer that leaves separators out (or writes more) is not
    second-guessed."""
    s = lines.s
    sep = b"\r\n" if lines.crlf else b"\n"
    if s.get(e, min(confirmed, e + 8)) == sep:
        return None  # one separator: the usual case
    proved = None
    if not lines.odd_runs and confirmed - e <= 2 * len(sep) + 2:
        length = http_block_length(s.get(body_start, min(e, body_start + HEAD_BYTES)))
        if length is not None and length != e - body_start:
            proved = body_start + length
            if not e - len(sep) <= proved < confirmed or s.get(proved, confirmed) != sep:
                proved = None
    if proved is None:
        lines.odd_runs += 1  # read as declared with an odd run: the writer's habit
    return proved


def usual(
    lines: ArcLines,
    header: ArcHeader,
    body_start: int,
    e: int,
    stop: int | None,
    member: Member | None,
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
        and lines.s.byte(e) == 0x0A
        and lines.damaged_end(body_start, stop) is None
    )
