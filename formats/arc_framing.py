"""Finding ARC records in a file: framing, length checks, gzip members, damage and resync.

:func:`iter_arc` walks an ARC file (uncompressed, gzip per record, or one gzip member for the
whole file) and yields :class:`ArcRecordBytes` for every record and :class:`ArcProblem` for
every damaged byte range or repaired quirk, with file offsets. It never stops silently:

* a declared length is trusted only when a newline and then the next header line (or the end
  of the file) follow it; otherwise a record end within 16 bytes is looked for, then the next
  plausible header line (resync), and what lies between is reported;
* in per-record gzip files the member boundary wins over the declared length (the 2012
  Common Crawl files declare two bytes too few); nothing is dropped, the difference is noted;
* truncated or corrupt gzip members and non-gzip bytes between members are damage, and
  reading resumes at the next member (:func:`crawlmill.formats.compression.iter_pieces`);
* memory is bounded by the record limit, also for whole-file gzip.

Header-line parsing lives in :mod:`crawlmill.formats.arc`; nothing here knows crawlmill's core.
"""

from __future__ import annotations

import contextlib
import re
from collections.abc import Iterator
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
from .compression import Broken, Piece, iter_pieces, member_bound, prefetch

__all__ = ["ArcLimitError", "ArcProblem", "ArcRecordBytes", "iter_arc"]

# a header may start at a line start, or (for common schemes) glued to the bytes before it
_CANDIDATE = re.compile(
    rb"(?<=\n)[A-Za-z][A-Za-z0-9+.\-]{0,31}:|(?:https?|ftp|dns|filedesc|rtsp|mms|gopher):"
)
#: distances from a declared record end tried before resyncing, nearest first.
_NEAR = sorted(range(-16, 17), key=lambda d: (abs(d), d))[1:]

_KNOWN_SCHEMES = (b"https", b"http", b"ftp", b"dns", b"filedesc")


def _glued_prefix(line: bytes) -> int:
    """Length of junk glued before a well-known scheme (``xxhttp://...`` -> 2), else 0."""
    scheme = line[: line.find(b":")].lower()
    for known in _KNOWN_SCHEMES:
        if scheme != known and scheme.endswith(known):
            return len(scheme) - len(known)
    return 0


def _glued_header(line: bytes, version: str | None) -> bool:
    """Whether a well-known scheme inside ``line`` (not after a space) starts a complete
    header line: the sign of a header cut short with the next header glued to it."""
    for found in _CANDIDATE.finditer(line, 1):
        at = found.start()
        if line[at - 1 : at] not in (b" ", b"\n") and plausible_header(
            line[at:], version, strict=True
        ):
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
    true when the file ended before the declared length (the bytes found are kept).
    """

    offset: int | None
    length: int | None
    stream_offset: int
    header: ArcHeader
    block: bytes
    trailer: bytes = b"\n"
    notes: list[str] = field(default_factory=list)
    filedesc: FileDesc | None = None
    truncated: bool = False


@dataclass(slots=True)
class ArcProblem:
    """A damaged byte range (``damage=True``) or a repaired quirk (``damage=False``).

    ``offset`` is a file offset (for gzip files, where the damaged member starts);
    ``data`` holds the damaged bytes (decompressed where possible, bounded by the caller's
    limit).
    """

    offset: int | None
    reason: str
    damage: bool = True
    length: int | None = None
    data: bytes = b""


@dataclass(slots=True)
class _Member:
    dstart: int
    cstart: int
    dend: int | None = None
    cend: int | None = None
    error: str | None = None
    #: the member's damage (compressed bytes), reported once with the record read from it
    broken: Broken | None = None


class _Stream:
    """Decompressed bytes of an ARC file with gzip member bookkeeping.

    Fed by :func:`crawlmill.formats.compression.iter_pieces` (member-aware, resyncing gzip
    inflation; for gzip files run one step ahead in a background thread by ``prefetch`` so
    inflating overlaps with parsing and writing). ``starts`` maps the decompressed offset where
    each member starts to its :class:`_Member`; ``problems`` holds compressed ranges that could
    not be inflated at all, keyed by the decompressed offset they precede.
    """

    def __init__(self, items: Iterator[Piece | Broken], gz: bool, max_decompressed: int) -> None:
        self.items = items
        self.gz = gz
        self.max_decompressed = max_decompressed
        self.buf = bytearray()
        self.base = 0
        self.eof = False
        self.member: _Member | None = None
        self.starts: dict[int, _Member] = {}
        self.problems: list[tuple[int, ArcProblem]] = []

    @property
    def end(self) -> int:
        """Absolute decompressed offset just past the buffered bytes."""
        return self.base + len(self.buf)

    def more(self) -> bool:
        """Buffer more decompressed bytes; ``False`` once the file is exhausted."""
        if self.eof:
            return False
        before = len(self.buf)
        while len(self.buf) == before:
            item = next(self.items, None)
            if item is None:
                if self.member is not None:  # defensive: a member without its end
                    self._close(self.member, None, "gzip member is truncated (file ends inside it)")
                self.eof = True
                return len(self.buf) > before
            if isinstance(item, Broken):
                self._broken(item)
                continue
            if not self.gz:
                self.buf += item.data
                self._check_size()
                continue
            member = self.member
            if member is None or member.cstart != item.offset:
                if member is not None:
                    self._close(member, None, "gzip member ended without its trailer")
                member = self.member = _Member(dstart=self.end, cstart=item.offset or 0)
                self.starts[member.dstart] = member
            self.buf += item.data
            self._check_size()
            if item.end:
                self._close(member, (item.offset or 0) + (item.length or 0), None)
        return True

    def _close(self, member: _Member, cend: int | None, error: str | None) -> None:
        member.dend = self.end
        member.cend = cend
        member.error = error
        self.member = None

    def _broken(self, item: Broken) -> None:
        member = self.member
        if member is not None and item.partial and member.cstart == item.offset:
            self._close(member, item.offset + item.length, item.reason)
            member.broken = item
            return
        if member is not None:
            self._close(member, None, "gzip member ended without its trailer")
        reason = item.reason
        if not item.partial and item.data[:3] == GZIP_MAGIC:
            reason = f"gzip member that inflates to nothing: {reason}"
        self.problems.append(
            (self.end, ArcProblem(item.offset, reason, True, item.length, item.data))
        )

    def _check_size(self) -> None:
        if self.end > self.max_decompressed:
            raise ArcLimitError(
                f"decompressed data exceeds the limit of {self.max_decompressed} bytes"
            )

    def ensure(self, pos: int) -> bool:
        """Buffer bytes up to absolute offset ``pos`` (exclusive); ``False`` if the file ends
        first."""
        while self.end < pos:
            if not self.more():
                return False
        return True

    def byte(self, pos: int) -> int | None:
        """The byte at absolute offset ``pos`` or ``None`` past the end of the file."""
        if not self.ensure(pos + 1):
            return None
        return self.buf[pos - self.base]

    def get(self, start: int, stop: int) -> bytes:
        """Bytes between two absolute offsets (as far as buffered)."""
        return bytes(self.buf[start - self.base : stop - self.base])

    def find_newline(self, pos: int, limit: int) -> int | None:
        """Absolute offset of the next ``\\n`` at or after ``pos`` within ``limit`` bytes,
        ``self.end`` at end of file without one, ``None`` if the limit is reached."""
        searched = pos
        while True:
            idx = self.buf.find(b"\n", searched - self.base, pos + limit - self.base)
            if idx >= 0:
                return idx + self.base
            searched = max(pos, self.end)
            if searched >= pos + limit:
                return None
            if not self.more():
                return self.end

    def member_at(self, pos: int) -> _Member | None:
        """The gzip member starting at absolute decompressed offset ``pos``."""
        return self.starts.get(pos)

    def next_member_start(self, after: int, before: int) -> int | None:
        """The first member start in ``(after, before)``."""
        best = None
        for start in self.starts:
            if after < start < before and (best is None or start < best):
                best = start
        return best

    def release(self, pos: int) -> None:
        """Forget buffered bytes before absolute offset ``pos``."""
        drop = pos - self.base
        if drop > (1 << 22) or (drop > 0 and drop == len(self.buf)):
            del self.buf[:drop]
            self.base = pos
            for start in [
                s for s, m in self.starts.items() if m.dend is not None and m.dend <= pos
            ]:
                if start < pos:
                    del self.starts[start]

    def take_problems(self, upto: int) -> list[ArcProblem]:
        """Compressed-level problems found before decompressed offset ``upto``."""
        out = [p for at, p in self.problems if at <= upto]
        if out:
            self.problems = [(at, p) for at, p in self.problems if at > upto]
        return out


class ArcLimitError(ValueError):
    """The file decompresses to more bytes than allowed."""


class _Parser:
    """Splits the decompressed stream of an ARC file into records and problems."""

    def __init__(self, stream: _Stream, max_record: int, max_header: int) -> None:
        self.s = stream
        self.max_record = max_record
        self.max_header = max_header
        self.version: str | None = None  # "1" or "2", from the filedesc version block
        self.first = True  # the first header line is parsed leniently (it is the filedesc)
        self._after = 0  # where the next record starts; set by the _*_record generators

    # -- helpers ---------------------------------------------------------------------------

    def _line(self, pos: int) -> tuple[bytes, int] | None:
        """The line starting at ``pos`` and the offset of its newline (``s.end`` at EOF)."""
        nl = self.s.find_newline(pos, self.max_header)
        if nl is None:
            return None
        return self.s.get(pos, nl), nl

    def _header_at(self, pos: int) -> ArcHeader | None:
        got = self._line(pos)
        if got is None or got[1] >= self.s.end:
            return None
        return plausible_header(got[0], self.version)

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

    def _next_ok(self, end: int, stop: int | None, blank: bool = True) -> int | None:
        """If a record may end at ``end`` (a newline there, then blank lines, then a header, a
        member start, ``stop`` or the end of the file), the offset where the next record
        starts; else ``None``."""
        if stop is not None and end >= stop:
            return end if end == stop else None
        b = self.s.byte(end)
        if b is None:
            return end if end == self.s.end else None
        if b != 0x0A:
            return None
        nxt = self._skip_blank(end + 1, stop) if blank else end + 1
        if (stop is not None and nxt >= stop) or self.s.byte(nxt) is None:
            return nxt
        if stop is None and self.s.member_at(nxt) is not None:
            return nxt
        return nxt if self._header_at(nxt) is not None else None

    def _near(self, e: int, body_start: int, stop: int | None) -> tuple[int, int] | None:
        """A record end within 16 bytes of the declared one: first where the next header
        follows the separator directly, then allowing blank lines between."""
        for blank in (False, True):
            for d in _NEAR:
                if e + d >= body_start:
                    nxt = self._next_ok(e + d, stop, blank)
                    if nxt is not None:
                        return d, nxt
        return None

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
            member = s.next_member_start(pos, hi + 1) if s.gz else None
            limit = hi if member is None else min(hi, member)
            found = _CANDIDATE.search(s.buf, at - s.base, limit - s.base) if at < limit else None
            if found is not None:
                cand = found.start() + s.base
                got = self._line(cand)
                if got is not None and got[1] < s.end:
                    glued = s.buf[cand - s.base - 1] != 0x0A
                    if plausible_header(got[0], self.version, strict=glued) is not None:
                        return cand + _glued_prefix(got[0])
                at = cand + 1
                continue
            if member is not None:
                return member
            at = max(at, limit - 40)
            if stop is not None and hi >= stop:
                return None
            if s.end >= horizon or not s.more():
                return None

    # -- records ---------------------------------------------------------------------------

    def __iter__(self) -> Iterator[ArcRecordBytes | ArcProblem]:
        s = self.s
        pos = 0
        while True:
            yield from s.take_problems(pos)
            s.release(pos)
            if s.byte(pos) is None:
                yield from s.take_problems(s.end + 1)
                return
            start = pos
            member = s.member_at(pos)
            pos = self._skip_blank(pos)
            if pos > start:
                yield ArcProblem(
                    self._file_offset(start),
                    "stray newline bytes before a record",
                    False,
                )
                if s.byte(pos) is None:
                    continue
                member = s.member_at(pos) or member
            if member is not None:
                yield from self._member_record(member, pos)
                pos = self._after
            else:
                yield from self._plain_record(pos, None)
                pos = self._after

    def _file_offset(self, pos: int) -> int:
        if not self.s.gz:
            return pos
        best = None
        for m in self.s.starts.values():
            if m.dstart <= pos and (best is None or m.dstart > best.dstart):
                best = m
        return best.cstart if best is not None else 0

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
                header = plausible_header(line, self.version)
                if header is None:
                    raise ArcHeaderError(f"not an ARC header line: {line[:120]!r}")
        except ArcHeaderError:
            return None
        if b" " in header.url and _glued_header(line, self.version):
            return None  # a cut header line with the next one glued on: resync finds the latter
        return header, nl + 1

    def _member_record(self, member: _Member, pos: int) -> Iterator[ArcRecordBytes | ArcProblem]:
        s = self.s
        got = self._parse_start(pos)
        if isinstance(got, tuple) and got[0].length is not None:
            if got[0].length > self.max_record:
                yield from self._plain_record(pos, None, member)
                return
            # enough to see whether the member ends near the declared end; a member running
            # on (whole-file gzip) is then read by declared lengths with bounded memory
            horizon = got[1] + got[0].length + 4096
        else:
            horizon = pos + self.max_record + self.max_header
        while member.dend is None and s.end < horizon:
            if not s.more():
                break
        if member.dend is None or member.error:
            # too large to be one record (whole-file gzip) or broken: read it as a plain stream
            stop = member.dend if member.error else None
            yield from self._plain_record(pos, stop, member)
            return
        if not isinstance(got, tuple):
            yield self._garbage(pos, member.dend, member)
            self._after = member.dend
            return
        header, body_start = got
        self.first = False
        e = body_start + header.length if header.length is not None else None
        end = member.dend
        if e is not None and e <= end:
            nxt = e if e == end else self._next_ok(e, end)
            if nxt is not None and nxt < end and e < end:
                # more records follow inside this member: frame by declared lengths
                yield from self._emit(pos, header, body_start, e, nxt, None, None, [])
                self._after = nxt
                return
            if nxt is not None:
                yield from self._emit(
                    pos, header, body_start, e, end, member.cstart, member.cend - member.cstart, []
                )
                self._after = end
                return
        body_end = end - 1 if s.byte(end - 1) == 0x0A and end - 1 >= body_start else end
        notes = []
        if header.length is None:
            notes.append("invalid Archive-length; took the block from the gzip member")
        elif body_end - body_start != header.length:
            diff = body_end - body_start - header.length
            notes.append(
                f"declared length is {diff:+d} bytes off the gzip member; used the member boundary"
            )
        yield from self._emit(
            pos,
            header,
            body_start,
            body_end,
            end,
            member.cstart,
            member.cend - member.cstart,
            notes,
        )
        self._after = end

    def _plain_record(
        self, pos: int, stop: int | None, member: _Member | None = None
    ) -> Iterator[ArcRecordBytes | ArcProblem]:
        s = self.s
        got = self._parse_start(pos)
        if not isinstance(got, tuple):
            nxt = self._scan(pos, stop)
            end = nxt if nxt is not None else self._data_end(stop)
            yield self._garbage(pos, end, member)
            self._after = end
            return
        header, body_start = got
        self.first = False
        limit_end = stop
        notes: list[str] = []
        if header.length is not None:
            e = body_start + header.length
            if header.length > self.max_record:
                yield ArcProblem(
                    self._file_offset(pos),
                    f"record {header.url[:100]!r} declares {header.length} bytes, more than the "
                    f"limit of {self.max_record}; skipped",
                    True,
                    header.length,
                )
                self._after = self._skip_to(e, stop)
                return
            nxt = self._next_ok(e, limit_end)
            if nxt is not None:
                yield from self._emit_plain(pos, header, body_start, e, nxt, member, notes)
                return
            near = self._near(e, body_start, limit_end)
            if near is not None:
                d, nxt = near
                notes.append(
                    f"declared length is {d:+d} bytes off where the next record starts; used that"
                )
                yield from self._emit_plain(pos, header, body_start, e + d, nxt, member, notes)
                return
            q = self._scan(body_start - 1, stop)
            data_end = q if q is not None else self._data_end(stop)
            at_eof = q is None and stop is None and s.byte(data_end) is None
            if data_end < e and at_eof and data_end > body_start:
                notes.append(
                    "declared length runs past the end of the file; kept the record as truncated"
                )
                yield from self._emit_plain(
                    pos, header, body_start, data_end, data_end, member, notes, truncated=True
                )
                return
            if data_end < e:
                what = "the next record header" if q is not None else "the end of the data"
                if member is not None and member.error:
                    what = f"the end of a damaged gzip member ({member.error})"
                yield ArcProblem(
                    self._file_offset(pos),
                    f"record {header.url[:100]!r} declares {header.length} bytes but {what} comes "
                    f"after {data_end - body_start}; truncated record",
                    True,
                    data_end - pos,
                    s.get(pos, data_end)[: self.max_record],
                )
                self._after = data_end
                return
            if s.byte(e) == 0x0A:
                yield from self._emit_plain(pos, header, body_start, e, e + 1, member, notes)
                yield self._garbage(e + 1, data_end, member, after_record=True)
                self._after = data_end
                return
            body_end = (
                data_end - 1 if data_end > body_start and s.byte(data_end - 1) == 0x0A else data_end
            )
            notes.append(
                "declared length is shorter than the block up to the next record; used that"
            )
            yield from self._emit_plain(pos, header, body_start, body_end, data_end, member, notes)
            return
        q = self._scan(body_start - 1, stop)
        data_end = q if q is not None else self._data_end(stop)
        body_end = (
            data_end - 1 if data_end > body_start and s.byte(data_end - 1) == 0x0A else data_end
        )
        body_end = max(body_end, body_start)
        notes.append("invalid Archive-length; took the block up to the next record")
        yield from self._emit_plain(pos, header, body_start, body_end, data_end, member, notes)

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

    def _emit_plain(self, pos, header, body_start, body_end, nxt, member, notes, truncated=False):
        if member is not None and member.error:
            notes.append(
                "read from a damaged gzip member; the block is complete by its declared length"
            )
            broken, member.broken = member.broken, None
            if broken is not None and broken.error_offset is not None:
                # a bad CRC32 or deflate code (not a missing trailer): the member is damage
                reason = f"{broken.reason}; the record decoded from it is delivered unverified"
                yield ArcProblem(broken.offset, reason, True, broken.length, broken.data)
        if self.s.gz:
            offset = length = None
            if (
                member is not None
                and member.dstart == pos
                and member.dend is not None
                and nxt >= member.dend
            ):
                offset, length = member.cstart, (member.cend or member.cstart) - member.cstart
        else:
            offset, length = pos, nxt - pos
        self._after = nxt
        yield from self._emit(
            pos, header, body_start, body_end, nxt, offset, length, notes, truncated
        )
        self._after = nxt

    def _emit(self, pos, header, body_start, body_end, nxt, offset, length, notes, truncated=False):
        s = self.s
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
        )

    def _garbage(
        self, pos: int, end: int, member: _Member | None, after_record: bool = False
    ) -> ArcProblem:
        data = self.s.get(pos, end)
        where = "after a record" if after_record else "where a record header was expected"
        if member is not None and member.error:
            reason = f"{member.error}; {end - pos} decompressed bytes do not form a record"
            return ArcProblem(
                member.cstart,
                reason,
                True,
                (member.cend or member.cstart) - member.cstart,
                data[: self.max_record],
            )
        reason = f"{end - pos} bytes of garbage {where}, starting {data[:60]!r}"
        if self.s.gz:
            reason += f" (decompressed offset {pos})"
        return ArcProblem(
            self._file_offset(pos),
            reason,
            True,
            end - pos if not self.s.gz else None,
            data[: self.max_record],
        )


def iter_arc(
    fh: BinaryIO,
    *,
    gzip: bool | None = None,
    max_record_bytes: int = 256 << 20,
    max_header_bytes: int = 1 << 20,
    max_decompressed_bytes: int = 64 << 30,
    prefetch_inflate: bool = True,
    threads: int = 0,
) -> Iterator[ArcRecordBytes | ArcProblem]:
    """Walk an ARC file: yield every record and every problem in file order.

    ``gzip`` is detected from the first bytes when ``None``. Gzip members are inflated one
    step ahead in a background thread unless ``prefetch_inflate`` is false; ``threads > 1``
    inflates members in parallel (see :func:`~crawlmill.formats.compression.iter_pieces`).
    Raises :class:`ArcLimitError` when the file inflates beyond ``max_decompressed_bytes``.
    """
    if gzip is None:
        head = fh.read(3)
        fh.seek(0)
        gzip = head.startswith(GZIP_MAGIC[:2])
    kind = "gzip" if gzip else None
    items = iter_pieces(
        fh,
        kind,
        max_decompressed_bytes=max_decompressed_bytes,
        threads=threads,
        max_member_bytes=member_bound(max_record_bytes, max_header_bytes),
    )
    if gzip and prefetch_inflate:
        items = prefetch(items)
    try:
        yield from _Parser(
            _Stream(items, gzip, max_decompressed_bytes), max_record_bytes, max_header_bytes
        )
    finally:
        close = getattr(items, "close", None)
        if close is not None:
            close()
