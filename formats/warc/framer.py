"""WARC header parsing and record framing at the byte level (WARC 0.17, 0.18, 1.0, 1.1).

:class:`WarcFramer` turns the decompressed pieces of :func:`crawlmill.formats.codecs.compression.
iter_pieces` into :class:`FramedRecord` (one record, byte-exact) and :class:`DamagedRange` (bytes
that are not a good record) items. A declared ``Content-Length`` is the truth unless the bytes
prove it wrong: it holds whenever the declared bytes are followed by a separator, the next
version line, the end of the member or the end of the file (the rule is
:func:`crawlmill.formats.warc.length.judge_length`). Deviations that change no byte are listed
in ``FramedRecord.issues`` (the reader turns them into warnings, or into damage in strict
mode):

* LF-only line endings (ClueWeb09, hand-edited files) and CRLF, lower-case ``warc/`` lines;
* a missing, short or over-long separator before a record boundary;
* the ClueWeb09 convention where ``Content-Length`` counts the two trailing newlines, only in
  0.17/0.18 files whose bytes prove it;
* blank lines inside a header before ``Content-Length`` was seen (ClueWeb09 "extra newline");
* header lines without a colon or continuation indent (joined to the previous value).

A header holding a control byte other than CR, LF and tab (a NUL of a zero-filled block, a
damaged byte) is damage, not a quirk: no writer writes one and the WARC field grammar allows
none. The bytes from its version line to the next record are reported (``control-byte-in-header``).

A repair that changes a record's bytes is damage: the record is delivered *and* its original
bytes are reported as a :class:`DamagedRange` just before it (a ``Content-Length`` counting the
CR bytes stripped from LF-only line endings; a missing or unparsable ``Content-Length``, the
block then ending at the next version line; a record cut by the end of the file, delivered
partial with ``FramedRecord.truncated``).

Damage (garbage between records, a wrong ``Content-Length``, a header cut short by the next
record's version line, oversize records and headers, undecompressable members) is reported
with its offset and bytes, and framing resyncs at the first byte after the last good record,
on the next ``WARC/`` version line followed by a header line (anywhere, as damage may run into
it without a line break) or the next compressed member. :func:`locate_start` finds the
container and first record of a file whose first bytes are damaged.

Nothing here imports :mod:`crawlmill.core`.
"""

from __future__ import annotations

import contextlib
import os
import re
import zlib
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import BinaryIO

from ..codecs.detect import compression_of
from ..codecs.gzip_stream import damaged_gzip_header
from ..codecs.pieces import Broken, Piece
from ..codecs.stream import Damage, MemberStream
from ..codecs.table import CODECS, codec_named
from ..http.head import head_end
from ..notes import Note
from .length import After, digest_disproves, judge_length
from .repairs import (
    Repair,
    block_to_next_record,
    cr_counted_length,
    digest_proven_length,
    no_boundary,
    partial_record,
    truncated,
)
from .scan import (
    CONTROL_BYTE,
    HEADER_LINE,
    RESYNC,
    VERSION_AT,
    VERSION_LINE,
    control_byte_reason,
    flush_broken,
    header_end,
    rebase,
    scan,
    separator,
    skip,
)

__all__ = [
    "KNOWN_VERSIONS",
    "SCAN_START_BYTES",
    "SCAN_MEMBERS_BYTES",
    "later_warc_member",
    "locate_start",
    "DamagedRange",
    "FramedRecord",
    "WarcFramer",
    "WarcHeader",
    "parse_header",
]

KNOWN_VERSIONS = frozenset({"0.17", "0.18", "1.0", "1.1"})

_START = re.compile(rb"[\r\n]*[Ww][Aa][Rr][Cc]/\d+\.\d+\r{0,2}\n")


#: the compiled fast path (formats/warc/_warcfast.c, built when a C compiler is there), unless
#: ``CRAWLMILL_PURE=1``; ``None``: the pure path alone (the same results).
_KERNEL = None
if os.environ.get("CRAWLMILL_PURE", "") in ("", "0"):
    with contextlib.suppress(ImportError):  # (an install without a compiler)
        from ._warcfast import frame as _KERNEL

#: how far into a file :func:`locate_start` looks past damage for the first record.
SCAN_START_BYTES = 64 << 10


def _inflates_to_warc(data: bytes, kind: str) -> bool:
    """Whether a member/frame starting ``data`` inflates to bytes that begin a WARC record."""
    try:
        if kind in ("gzip", "deflate"):
            out = zlib.decompressobj(31 if kind == "gzip" else -15).decompress(data, 64)
        elif kind == "zstd":
            import zstandard

            out = zstandard.ZstdDecompressor().decompressobj().decompress(data)[:64]
        elif kind == "lz4":
            import lz4.frame

            out = lz4.frame.LZ4FrameDecompressor().decompress(data, max_length=64)
        else:  # a registered codec
            out = codec_named(kind).decompressor().decompress(data)[:64]
    except Exception:  # noqa: BLE001 - any failure means: not a usable member here
        return False
    return _START.match(out) is not None


def locate_start(head: bytes) -> tuple[str | None, int]:
    """The container (``"gzip"``, ``"zstd"``, ``"lz4"`` or ``None`` for plain) of a WARC file
    whose first bytes (up to :data:`SCAN_START_BYTES`) are ``head``, and the offset of its
    first recognisable record start (0 when the file starts well, or when nothing is found).

    The first bytes alone do not decide: damage there (a flipped bit in the first gzip magic,
    zeros or garbage before the first record) is looked past, to the first member that
    inflates to a WARC version line or the first version line of a plain file, whichever
    comes first. A gzip header with a damaged magic whose deflate stream inflates to a WARC
    version line is ``"gzip"`` at 0 (the reader inflates it and reports the header).
    """
    kind = compression_of(head[:16])  # a codec's magic may be longer than 4 bytes (xz: 6)
    if kind is not None or _START.match(head):
        return kind, 0
    head = head[:SCAN_START_BYTES]
    hlen = damaged_gzip_header(head)
    if hlen is not None and _inflates_to_warc(head[hlen:], "deflate"):
        return "gzip", 0  # a whole-file gzip whose magic took a hit
    best: tuple[str | None, int] | None = None
    m = RESYNC.search(head)
    if m is not None:
        best = (None, m.start())
    for magic, name in [(codec.resync, codec.name) for codec in CODECS.values()]:
        at = head.find(magic, 1)
        while at >= 0 and (best is None or at < best[1]):
            if _inflates_to_warc(head[at:], name):
                best = (name, at)
                break
            at = head.find(magic, at + 1)
    return best if best is not None else (None, 0)


#: how far past a first gzip member that inflates to no WARC record (a bomb of zeros: 2 GiB
#: deflate to about 2 MiB) :func:`later_warc_member` looks for one that does.
SCAN_MEMBERS_BYTES = 64 << 20


def later_warc_member(fh: BinaryIO, limit: int = SCAN_MEMBERS_BYTES) -> int | None:
    """The offset of the first gzip member after the file's first byte that inflates to a
    WARC record start, within the first ``limit`` bytes of ``fh`` (read in chunks, memory
    bounded by a chunk), or ``None``. Detection uses it when the first member is not a
    record (a gzip bomb, garbage compressed), so the records after it are read."""
    chunk = 1 << 20
    magic = b"\x1f\x8b\x08"
    fh.seek(0)
    pos, buf = 0, b""
    while pos < limit:
        data = fh.read(chunk)
        if not data:
            data = b""
        window = buf + data
        base = pos - len(buf)
        at = window.find(magic, 1 if base == 0 else 0)
        while at >= 0:
            tail = window[at : at + 4096]
            if len(tail) < 4096 and data:  # read on so the candidate's start is whole
                break
            if _inflates_to_warc(tail, "gzip"):
                return base + at
            at = window.find(magic, at + 1)
        if not data:
            return None
        keep = 4096 if at < 0 else len(window) - at
        buf = window[-keep:]
        pos += len(data)
    return None


@dataclass(slots=True)
class WarcHeader:
    """A parsed WARC header block.

    ``headers`` are ``(name, value)`` byte pairs in file order (values stripped of surrounding
    whitespace, continuation lines joined with a space); ``fields`` maps each lower-cased name
    to its first value; ``issues`` lists repaired deviations.
    """

    version: str
    line_ending: bytes
    headers: list[tuple[bytes, bytes]]
    fields: dict[bytes, bytes]
    issues: list[Note] = field(default_factory=list)

    def get(self, name: bytes) -> bytes | None:
        """The first value of header ``name`` (lower-case bytes), or ``None``."""
        return self.fields.get(name)


def _parse_plain(raw: bytes) -> WarcHeader | None:
    """Fast path: a ``WARC/1.x`` CRLF header of plain ``name: value`` lines, else ``None``."""
    if not (
        raw.startswith(b"WARC/1.")
        and raw[7:8].isdigit()
        and raw[8:10] == b"\r\n"
        and raw.endswith(b"\r\n\r\n")
    ):
        return None
    body = raw[10:-4]
    if b"\n " in body or b"\n\t" in body or b"\r\n\r\n" in body or body[:1] in b" \t":
        return None
    lines = body.split(b"\r\n")
    if body.count(b"\n") != len(lines) - 1:
        return None
    headers = []
    fields: dict[bytes, bytes] = {}
    for line in lines:
        name, sep, value = line.partition(b":")
        if not sep or not name:
            return None
        name = name.strip()
        value = value.strip()
        headers.append((name, value))
        fields.setdefault(name.lower(), value)  # the first value of a repeated name wins
    return WarcHeader(raw[5:8].decode("ascii"), b"\r\n", headers, fields, [])


def parse_header(raw: bytes) -> WarcHeader:
    """Parse a raw WARC header (version line through the blank line that ends it)."""
    header = _parse_plain(raw)
    if header is not None:
        return header
    m = VERSION_AT.match(raw)
    if m is None:
        raise ValueError("not a WARC version line")
    version = m.group(1).decode("ascii")
    line_ending = m.group(2)
    issues: list[Note] = []
    if not raw.startswith(b"WARC/"):
        issues.append(Note("version-case", "version line is not upper case"))
    body = raw[m.end() :]
    if line_ending not in (b"\r\n", b"\n"):
        issues.append(Note("line-ending", f"unusual line ending {line_ending!r}"))
        lines = [line.rstrip(b"\r") for line in body.split(b"\n")]
    elif line_ending == b"\r\n":
        lines = body.split(b"\r\n")
        if b"\n" in body.replace(b"\r\n", b""):
            issues.append(Note("line-ending", "bare LF line endings inside a CRLF header"))
            lines = [part for line in lines for part in line.split(b"\n")]
    else:
        lines = body.split(b"\n")
        if b"\r" in body:
            lines = [line[:-1] if line.endswith(b"\r") else line for line in lines]
    headers: list[tuple[bytes, bytes]] = []
    blank_inside = False
    seen_content = False
    for line in lines:
        if not line:
            if headers and not seen_content:
                blank_inside = True
            continue
        first = line[0]
        if first == 32 or first == 9:  # continuation line (legal in WARC)
            if headers:
                name, value = headers[-1]
                headers[-1] = (name, (value + b" " + line.strip()) if value else line.strip())
                continue
            issues.append(Note("header-line", "continuation line before any header"))
            headers.append((b"", line.strip()))
            continue
        name, sep, value = line.partition(b":")
        if not sep or not HEADER_LINE.match(line):
            if headers:
                issues.append(
                    Note(
                        "header-line",
                        "line without a colon or continuation indent joined to the previous value",
                    )
                )
                pname, pvalue = headers[-1]
                headers[-1] = (pname, pvalue + b" " + line.strip())
            else:
                issues.append(Note("header-line", "line without a colon before any header"))
                headers.append((line.strip(), b""))
            continue
        headers.append((name.strip(), value.strip()))
        if not seen_content and name.strip().lower() == b"content-length":
            seen_content = True
    if blank_inside:
        issues.append(
            Note("blank-line-in-header", "blank line inside the WARC header before Content-Length")
        )
    if line_ending == b"\n":
        issues.append(Note("lf-line-endings", "LF-only line endings"))
    fields = {name.lower(): value for name, value in reversed(headers)}
    return WarcHeader(version, line_ending, headers, fields, issues)


@dataclass(slots=True)
class FramedRecord:
    """One WARC record exactly as stored.

    ``raw_header + block + separator`` are the record's bytes in the decompressed stream.
    ``block`` (``data[block_start:block_end]``, sliced on demand so the reader copies payload
    bytes once) excludes the separator even when ``cl_includes_separator`` (ClueWeb09:
    ``Content-Length == len(block) + len(separator)``). ``offset``/``length`` are positions in
    the decompressed stream; ``member_offset``/``member_length`` the compressed span of the
    member(s) holding exactly this record, when it is one (``None`` otherwise).
    """

    offset: int
    raw_header: bytes
    header: WarcHeader
    data: bytes
    block_start: int
    block_end: int
    separator: bytes
    cl_includes_separator: bool
    member_offset: int | None
    member_length: int | None
    issues: list[Note]
    #: the file ended inside the block: ``block`` is the part that was there.
    truncated: bool = False
    #: the well-formed path made it (:func:`_well_formed`): ``raw_header``, ``block`` and
    #: ``separator`` are the consecutive slices ``[start, hend)``, ``[hend, e)``, ``[e, e + 4)``
    #: of the decompressed stream whose range ``[start, e + 4)`` the member span is exactly,
    #: so their concatenation is exactly what that member inflates to.
    exact: bool = False

    @property
    def block(self) -> bytes:
        """The record block without the separator."""
        return self.data[self.block_start : self.block_end]

    @property
    def length(self) -> int:
        """Length of the record's bytes in the decompressed stream."""
        return len(self.raw_header) + self.block_end - self.block_start + len(self.separator)

    @property
    def raw(self) -> bytes:
        """The record's exact bytes in the decompressed stream."""
        return self.raw_header + self.block + self.separator


#: bytes that are not a good record (the stream's damage type, in both offset spaces).
DamagedRange = Damage


class WarcFramer:
    """Frame WARC records from decompressed pieces; iterate to get records and damage.

    A loop over one :class:`~crawlmill.formats.codecs.stream.MemberStream`: a well-formed CRLF record
    takes the fast path (the compiled kernel, or :meth:`_fast_pure`); any other goes the
    general path (:meth:`_next`), which finds the record's parts
    (:mod:`~crawlmill.formats.warc.scan`), asks :func:`~crawlmill.formats.warc.length.
    judge_length` whether the declared length holds, and otherwise applies the decision of a
    repair (:mod:`~crawlmill.formats.warc.repairs`), each with its problem code."""

    def __init__(
        self,
        items: Iterator[Piece | Broken],
        *,
        max_record_bytes: int = 256 << 20,
        max_header_bytes: int = 1 << 20,
    ) -> None:
        self.s = MemberStream(items)
        self.max_record_bytes = max_record_bytes
        self.max_header_bytes = max_header_bytes
        self._cl_incl_seen = False
        #: bytes held at most while skipping damage that is not a record (garbage, a header
        #: without an end): the header limit plus a constant
        self._skip_bound = max_header_bytes + (4 << 20)

    def __iter__(self) -> Iterator[FramedRecord | DamagedRange]:
        s, fast = self.s, self._fast
        while True:
            if s.pos >= len(s.buf) and not s.more():
                if s.broken is not None:
                    yield s.take_broken()
                    continue
                return
            record = fast()
            if record is not None:
                yield record
                record = None  # (its buffer may go before the next piece is made)
            else:
                yield from self._next()

    # -- the fast path -------------------------------------------------------------------

    def _fast(self) -> FramedRecord | None:
        """A well-formed CRLF record wholly in the buffer, followed by a member end or the next
        version line; ``None`` sends everything else down the general path."""
        s = self.s
        if _KERNEL is not None:
            got = _KERNEL(s.buf, s.pos, self.max_header_bytes, self.max_record_bytes)
            if got is not None:  # else: the pure path decides
                raw_header, hend, e, version, headers, fields, at_end = got
                if at_end and not (s.eof or s.at_member_end(e + 4)):
                    return None
                header = WarcHeader(version, b"\r\n", headers, fields, [])
                return _well_formed(s, raw_header, header, hend, e)
        return self._fast_pure()

    def _fast_pure(self) -> FramedRecord | None:
        """:meth:`_fast` in Python (the compiled kernel's reference)."""
        return _fast_pure(self.s, self.max_header_bytes, self.max_record_bytes)

    # -- the general path ----------------------------------------------------------------

    def _next(self) -> Iterator[FramedRecord | DamagedRange]:
        s = self.s
        start = s.pos
        s.need(start + 16)
        start = s.pos
        m = VERSION_AT.match(s.buf, start)
        if m is None:
            reason = "bytes that are not a WARC record (no WARC/ version line)"
            yield from self._skip(start, start + 1, reason, "not-a-record", self._skip_bound)
            yield from flush_broken(s)
            return
        line_ending = m.group(2)
        hdr_start = m.end() - len(line_ending)
        m = None  # a match holds the buffer it matched: a long skip would keep it alive
        hend = header_end(s, start, hdr_start, line_ending * 2, self.max_header_bytes)
        if hend is None:
            reason = (
                "WARC header without an end (no blank line within "
                f"max_header_bytes={self.max_header_bytes})"
            )
            yield from self._skip(start, start + 1, reason, "header-without-end", self._skip_bound)
            yield from flush_broken(s)
            return
        start = s.pos
        buf = s.buf
        inner = RESYNC.search(buf, start + 8, hend)
        if inner is not None:
            # a record cut inside its header, followed at once by the next record (a writer
            # that crashed and restarted appending): damage up to the second version line
            reason = "WARC header cut short: a second version line inside the header block"
            yield self._damage(start, inner.start(), reason, "header-cut-short")
            s.pos = inner.start()
            return
        reason = control_byte_reason(buf, start, hend)
        if reason is not None:  # no writer's quirk: its fields, length included, are not trusted
            yield from self._skip(start, hend, reason, "control-byte-in-header")
            yield from flush_broken(s)
            return
        raw_header = buf[start:hend]
        header = parse_header(raw_header)
        if raw_header[:4] not in (b"WARC", b"warc"):
            # no writer mixes the case of the magic: a flipped bit (0x20) in it. The record is
            # delivered (a writer writes "WARC"), the damaged line reported with its bytes
            reason = (
                f"version line starts {raw_header[:4]!r}, not WARC: a damaged byte; the record"
                " is delivered with an upper-case version line"
            )
            yield self._damage(start, hend, reason, "damaged-version-line")
        cl_raw = header.fields.get(b"content-length")
        try:
            cl = int(cl_raw) if cl_raw is not None else -1
        except ValueError:
            cl = -1
        if cl < 0:
            yield from _no_length(self, start, hend, header, cl_raw)
            return
        if cl > self.max_record_bytes:
            reason = f"record block of {cl} bytes exceeds max_record_bytes={self.max_record_bytes}"
            # skipped in parts of a quarter record: the buffer a part grows in (copied as it
            # grows) and the part's bytes cut from it stay within one record
            yield from self._skip(
                start, hend, reason, "record-too-large", self.max_record_bytes // 4
            )
            yield from flush_broken(s)
            return
        e = hend + cl
        filled = s.need(e)
        start, hend, e = rebase(s, start, hend, e)
        if not filled:
            yield from _truncated(self, start, hend, cl, header, raw_header)
            return
        yield from self._judged(start, hend, e, cl, header, raw_header, line_ending)

    def _judged(
        self,
        start: int,
        hend: int,
        e: int,
        cl: int,
        header: WarcHeader,
        raw_header: bytes,
        line_ending: bytes,
    ) -> Iterator[FramedRecord | DamagedRange]:
        """A record whose declared block is buffered: what follows it decides
        (:func:`judge_length`, a digest that proves another length)."""
        s = self.s
        sep_end, run, after = separator(s, start, e)
        start, hend, e = rebase(s, start, hend, e)
        buf = s.buf
        # a head-only HTTP block (revisit) owns its final blank line
        head_only = buf.startswith(b"HTTP/", hend) and head_end(buf, hend, e) == e
        verdict = judge_length(
            version=header.version,
            line_ending=line_ending,
            block_tail=buf[max(hend, e - 4) : e],
            run=run,
            after=after,
            convention_seen=self._cl_incl_seen,
            head_only=head_only,
        )
        proven = None
        if after is not After.OTHER and (
            not verdict.ok or (verdict.issue is not None and verdict.issue.code == "separator")
        ):
            proven = digest_disproves(
                digest=header.fields.get(b"warc-block-digest"),
                block=buf[hend:e],
                run=run,
                line_ending=line_ending,
                head_only=head_only,
            )
        if proven is not None:
            # the record's digest proves the length: a repair that changes its bytes (a
            # writer writes the true length) is damage, with the original bytes, and the
            # record is delivered as its digest says
            fix = digest_proven_length(cl, proven, buf, hend, sep_end)
            yield from self._repaired(start, sep_end, raw_header, header, fix)
            return
        if not verdict.ok:
            yield from _wrong_length(self, start, hend, cl, header, raw_header)
            return
        block_end = e - verdict.block_trim
        if verdict.separator is not None:
            sep_end = e + verdict.separator
        if verdict.cl_includes_separator:
            self._cl_incl_seen = True
        if verdict.issue:
            header.issues.append(verdict.issue)
        yield self._record(
            start,
            raw_header,
            header,
            (buf, hend, block_end),
            buf[block_end:sep_end],
            verdict.cl_includes_separator,
            sep_end,
        )

    # -- what the framer yields ----------------------------------------------------------

    def _damage(self, start: int, end: int, reason: str, code: str) -> DamagedRange:
        return self.s.damage(start, end, reason, self.max_record_bytes, code)

    def _skip(
        self, start: int, frm: int, reason: str, code: str, bound: int | None = None
    ) -> Iterator[DamagedRange]:
        """:func:`~crawlmill.formats.warc.scan.skip` (default bound: a record)."""
        if bound is None:
            bound = self.max_record_bytes + (1 << 16)
        return skip(self.s, start, frm, reason, code, bound, self.max_record_bytes)

    def _record(
        self,
        start: int,
        raw_header: bytes,
        header: WarcHeader,
        block: tuple[bytes, int, int],
        separator: bytes,
        cl_incl: bool,
        end: int,
    ) -> FramedRecord:
        u0 = self.s.base + start
        member = self.s.exact(start, end)
        self.s.pos = end
        data, bs, be = block
        return FramedRecord(
            u0,
            raw_header,
            header,
            data,
            bs,
            be,
            separator,
            cl_incl,
            member[0] if member else None,
            member[1] if member else None,
            header.issues,
        )

    def _repaired(
        self, start: int, end: int, raw_header: bytes, header: WarcHeader, fix: Repair
    ) -> Iterator[FramedRecord | DamagedRange]:
        """Apply a repair: its damage (the original bytes ``[start, end)``), then the record
        as the repair delivers it."""
        yield self._damage(start, end, fix.reason, fix.code)
        record = self._record(start, raw_header, header, fix.block, fix.separator, False, end)
        record.truncated = fix.truncated
        yield record


def _truncated(
    f: WarcFramer, start: int, hend: int, cl: int, header: WarcHeader, raw_header: bytes
) -> Iterator[FramedRecord | DamagedRange]:
    """The data ends inside the declared block: an LF-only record counting CR bytes
    (repaired), a record cut by the end of the file (delivered partial), else damage."""
    s = f.s
    broken = s.broken
    if broken is None and VERSION_LINE.search(s.buf, hend) is None:
        fix = cr_counted_length(s.buf[hend:], cl, header.line_ending)
        if fix is not None:
            yield from f._repaired(start, len(s.buf), raw_header, header, fix)
            return
    cut = truncated(cl, len(s.buf) - hend, broken.reason if broken else "the file ends")
    cut_by_end = broken is None or broken.code == "truncated-member"  # the file ends in it
    if cut_by_end and RESYNC.search(s.buf, hend) is None:
        # the file ends inside the block: the partial record is delivered, marked
        # truncated, and its bytes are reported as damage too (one policy for every reader)
        end = len(s.buf)
        fix = partial_record(cut, s.buf, hend, end)
        yield from f._repaired(start, end, raw_header, header, fix)
    else:
        yield from f._skip(start, hend, cut.reason, cut.code)
    if broken is not None and s.pos >= len(s.buf) and s.broken is broken:
        # the member's own damage is already described in the record's reason
        s.broken = None
        if not broken.partial:
            yield DamagedRange(
                s.base + s.pos,
                broken.length,
                broken.reason,
                broken.data,
                broken.offset,
                True,
                broken.length,
                code=broken.code,
            )


def _wrong_length(
    f: WarcFramer, start: int, hend: int, cl: int, header: WarcHeader, raw_header: bytes
) -> Iterator[FramedRecord | DamagedRange]:
    """No record boundary after the declared block: an LF-only record counting CR bytes
    (repaired), else damage up to the next record."""
    s = f.s
    hit = _scan_from(f, hend)
    start = s.pos
    buf = s.buf
    hend = start + len(raw_header)
    # LF-only file whose Content-Length still counts the CR bytes that were stripped
    if hit is not None and hit > hend:
        fix = cr_counted_length(buf[hend:hit], cl, header.line_ending)
        if fix is not None:
            yield from f._repaired(start, hit, raw_header, header, fix)
            return
    wrong = no_boundary(cl, buf[hend + cl : hend + cl + 12])
    s.pos = start
    if hit is None:
        yield f._damage(start, len(buf), wrong.reason, wrong.code)
        s.pos = len(buf)
        yield from flush_broken(s)
        return
    if hit < 0:
        yield from f._skip(start, hend, wrong.reason, wrong.code)
        return
    yield f._damage(start, hit, wrong.reason, wrong.code)
    s.pos = hit


def _no_length(
    f: WarcFramer, start: int, hend: int, header: WarcHeader, cl_raw: bytes | None
) -> Iterator[FramedRecord | DamagedRange]:
    """No usable ``Content-Length``: the block taken up to the next record (repaired)."""
    s = f.s
    what = "missing" if cl_raw is None else "not a number"
    raw_header = s.buf[start:hend]
    hit = _scan_from(f, hend)
    start = s.pos
    hend = start + len(raw_header)
    buf = s.buf
    if hit is None or hit < 0:
        if hit is None and s.broken is None:
            end = len(buf)
        else:
            reason = f"Content-Length {what} and no next record found"
            yield from f._skip(start, hend, reason, "no-content-length")
            yield from flush_broken(s)
            return
    else:
        end = hit
    # a repair that changes the record's bytes (a writer adds the length): damage, with the
    # original bytes, and the record delivered
    fix = block_to_next_record(what, buf[hend:end], header.line_ending)
    yield from f._repaired(start, end, raw_header, header, fix)


def _scan_from(f: WarcFramer, frm: int) -> int | None:
    """:func:`~crawlmill.formats.warc.scan.scan` of ``f``'s stream from ``frm``, holding at
    most a record."""
    return scan(f.s, frm, f.max_record_bytes + (1 << 16))


def _well_formed(
    s: MemberStream, raw_header: bytes, header: WarcHeader, hend: int, e: int
) -> FramedRecord:
    """The well-formed record at ``s.pos`` (block ``[hend, e)``, CRLF CRLF after it); the
    stream moves past it."""
    start = s.pos
    r = e + 4
    member = s.exact(start, r)
    s.pos = r
    if member is None:
        return FramedRecord(
            s.base + start, raw_header, header, s.buf, hend, e, b"\r\n\r\n", False,
            None, None, [],
        )  # fmt: skip
    return FramedRecord(
        s.base + start, raw_header, header, s.buf, hend, e, b"\r\n\r\n", False,
        member[0], member[1], [], exact=True,
    )  # fmt: skip


def _fast_pure(s: MemberStream, max_header: int, max_record: int) -> FramedRecord | None:
    """The fast path in Python (the compiled kernel's reference): a well-formed CRLF record
    wholly in the buffer, followed by a member end or the next version line, else ``None``."""
    start = s.pos
    buf = s.buf
    if not buf.startswith(b"WARC/", start):
        return None
    # only CRLF files take this path: an LF-only header would make the search below scan
    # up to max_header_bytes for every record
    nl = buf.find(b"\n", start, start + 16)
    if nl < 1 or buf[nl - 1] != 13:
        return None
    hend = buf.find(b"\r\n\r\n", start, start + max_header)
    if hend < 0:
        return None
    hend += 4
    if CONTROL_BYTE.search(buf, start, hend) is not None:
        return None  # a damaged header: the general path reports it
    raw_header = buf[start:hend]
    # (a case-blind find first: the regex costs more than the whole check)
    if (
        raw_header.upper().find(b"WARC/", 8) >= 0
        and RESYNC.search(buf, start + 8, hend) is not None
    ):
        return None  # a header cut short by the next record: the general path says so
    header = _parse_plain(raw_header)
    if header is None:
        if VERSION_AT.match(raw_header) is None:
            return None  # not a version line ("WARC/1.0 "): the general path reports it
        header = parse_header(raw_header)
    cl_raw = header.fields.get(b"content-length")
    if header.issues or cl_raw is None or not cl_raw.isdigit():
        return None
    cl = int(cl_raw)
    if cl > max_record:
        return None
    e = hend + cl
    r = e + 4
    if buf.startswith(b"\r\n\r\n", e) and (
        buf.startswith(b"WARC/", r) or (r == len(buf) and (s.eof or s.at_member_end(r)))
    ):
        return _well_formed(s, raw_header, header, hend, e)
    return None
