"""WARC header parsing and record framing at the byte level (WARC 0.17, 0.18, 1.0, 1.1).

:class:`WarcFramer` turns the decompressed pieces of :func:`crawlmill.formats.compression.
iter_pieces` into :class:`FramedRecord` (one record, byte-exact) and :class:`DamagedRange` (bytes
that are not a good record) items. A declared ``Content-Length`` is the truth unless the bytes
prove it wrong: it holds whenever the declared bytes are followed by a separator, the next
version line, the end of the member or the end of the file (the rule is
:func:`crawlmill.formats.warc_length.judge_length`). Deviations that change no byte are listed
in ``FramedRecord.issues`` (the reader turns them into warnings, or into damage in strict
mode):

* LF-only line endings (ClueWeb09, hand-edited files) and CRLF, lower-case ``warc/`` lines;
* a missing, short or over-long separator before a record boundary;
* the ClueWeb09 convention where ``Content-Length`` counts the two trailing newlines, only in
  0.17/0.18 files whose bytes prove it;
* blank lines inside a header before ``Content-Length`` was seen (ClueWeb09 "extra newline");
* header lines without a colon or continuation indent (joined to the previous value).

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

from .codecs import CODECS, codec_named
from .detect import compression_of
from .gzip_stream import damaged_gzip_header
from .http import head_end
from .notes import Note
from .pieces import Broken, Piece
from .stream import Damage, MemberStream
from .warc_length import After, digest_disproves, judge_length

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

_VERSION_AT = re.compile(rb"[Ww][Aa][Rr][Cc]/(\d+\.\d+)(\r{0,2}\n)")
_VERSION_LINE = re.compile(rb"^[Ww][Aa][Rr][Cc]/\d+\.\d+\r{0,2}\n", re.M)
#: a version line anywhere (damage may run into it without a line break), followed by a
#: header line: where framing resyncs after damage.
_RESYNC = re.compile(rb"[Ww][Aa][Rr][Cc]/\d+\.\d+\r{0,2}\n(?=[!-9;-~]+[ \t]*:)")
#: a second version line inside a header block, wherever the cut left it (``WARC-DaWARC/1.1``,
#: ``WARC-Date: WARC/1.1``), followed by a header line: the header was cut short and the next
#: record begins there.
_INNER_VERSION = _RESYNC
_CRLF_RUN = re.compile(rb"[\r\n]{0,256}")
_HEADER_LINE = re.compile(rb"[!-9;-~]+[ \t]*:")
_MAX_SEPARATOR = 256
#: bytes kept from the end of a scanned buffer, so that a version line and the header name
#: after it that straddle two pieces are still found.
_RESYNC_CONTEXT = 512
#: a length repair changes the record's bytes (a writer writes the true length): damage, with
#: the original bytes, and the repaired record delivered.
_CR_COUNTED = (
    "cr-counted-length: Content-Length counts CR bytes stripped from LF-only line endings; "
    "the record is delivered with the length it really has"
)
_CR_COUNTED_CODE = "cr-counted-length"
_START = re.compile(rb"[\r\n]*[Ww][Aa][Rr][Cc]/\d+\.\d+\r{0,2}\n")


#: the compiled fast path (formats/_warcfast.c, built when a C compiler is there), unless
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
    m = _RESYNC.search(head)
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
    m = _VERSION_AT.match(raw)
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
        if not sep or not _HEADER_LINE.match(line):
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


def _cr_counted(body: bytes, cl: int, line_ending: bytes) -> tuple[bytes, bytes] | None:
    """Split ``body`` (block + trailing newlines of an LF-only record) into block and separator
    when ``cl`` equals the block length plus one stripped CR per LF; else ``None``."""
    if line_ending != b"\n":
        return None
    core = body.rstrip(b"\n")
    tail = len(body) - len(core)
    extra = cl - len(core) - core.count(b"\n")
    if extra < 0 or extra % 2 or extra // 2 > tail or not tail:
        return None
    k = extra // 2
    return body[: len(core) + k], body[len(core) + k :]


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


class _FramerBase:
    """The framer's stream (:class:`~crawlmill.formats.stream.MemberStream`), limits,
    damage and resync."""

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

    # -- damage -------------------------------------------------------------------------

    def _damage(self, start: int, end: int, reason: str, code: str) -> DamagedRange:
        return self.s.damage(start, end, reason, self.max_record_bytes, code)

    def _scan(self, frm: int, bound: int | None = None) -> int | None:
        """Buffer index of the next version line (followed by a header line) or member start
        at or after ``frm``; ``None`` when the data ends (EOF or a pending Broken) first; -1
        when more than ``bound`` bytes (default: a record) would have to be held."""
        if bound is None:
            bound = self.max_record_bytes + (1 << 16)
        return self.s.resync(_RESYNC, frm, bound, b"WARC/", _RESYNC_CONTEXT)

    def _skip(
        self, start: int, frm: int, reason: str, code: str, bound: int | None = None
    ) -> Iterator[DamagedRange]:
        """Report ``[start, next record)`` as damage, scanning from ``frm``; leaves ``_pos``
        at the next record (or the end of the data). A range longer than ``bound`` (default: a
        record) is reported in parts, so memory stays at the bound plus a piece."""
        self.s.pos = start
        frm_off = frm - start
        part = 0  # the later parts of one damaged range are that damage's (``part`` > 0)
        while True:
            hit = self._scan(self.s.pos + frm_off, bound)
            start = self.s.pos
            if hit is None:
                yield self._part(self._damage(start, len(self.s.buf), reason, code), part)
                self.s.pos = len(self.s.buf)
                return
            if hit == -1:  # too much damage to hold: report a slice and go on
                cut = len(self.s.buf) - _RESYNC_CONTEXT
                more = reason + " (damaged range reported in parts)"
                yield self._part(self._damage(start, cut, more, code), part)
                part += 1
                self.s.pos = cut
                frm_off = 0
                continue
            if hit > start:
                yield self._part(self._damage(start, hit, reason, code), part)
            self.s.pos = hit
            return

    @staticmethod
    def _part(damage: DamagedRange, part: int) -> DamagedRange:
        damage.part = part
        return damage


class _FramerRecords(_FramerBase):
    """Records: the fast path for well-formed CRLF records, and the general path."""

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

    def _fast(self) -> FramedRecord | None:
        """A well-formed CRLF record wholly in the buffer, followed by a member end or the next
        version line; ``None`` sends everything else down the general path."""
        s = self.s
        if _KERNEL is not None:
            got = _KERNEL(s.buf, s.pos, self.max_header_bytes, self.max_record_bytes)
            if got is not None:  # else: the pure path decides
                raw_header, hend, e, version, headers, fields, at_end = got
                r = e + 4
                if at_end and not (s.eof or s.at_member_end(r)):
                    return None
                start = s.pos
                member = s.exact(start, r)
                s.pos = r
                header = WarcHeader(version, b"\r\n", headers, fields, [])
                if member is None:
                    return FramedRecord(
                        s.base + start, raw_header, header, s.buf, hend, e, b"\r\n\r\n", False,
                        None, None, [],
                    )  # fmt: skip
                return FramedRecord(
                    s.base + start, raw_header, header, s.buf, hend, e, b"\r\n\r\n", False,
                    member[0], member[1], [],
                )  # fmt: skip
        return self._fast_pure()

    def _fast_pure(self) -> FramedRecord | None:
        """:meth:`_fast` in Python (the compiled kernel's reference)."""
        s = self.s
        start = s.pos
        buf = s.buf
        if not buf.startswith(b"WARC/", start):
            return None
        # only CRLF files take this path: an LF-only header would make the search below scan
        # up to max_header_bytes for every record
        nl = buf.find(b"\n", start, start + 16)
        if nl < 1 or buf[nl - 1] != 13:
            return None
        hend = buf.find(b"\r\n\r\n", start, start + self.max_header_bytes)
        if hend < 0:
            return None
        hend += 4
        raw_header = buf[start:hend]
        # (a case-blind find first: the regex costs more than the whole check)
        if (
            raw_header.upper().find(b"WARC/", 8) >= 0
            and _INNER_VERSION.search(buf, start + 8, hend) is not None
        ):
            return None  # a header cut short by the next record: the general path says so
        header = _parse_plain(raw_header)
        if header is None:
            if _VERSION_AT.match(raw_header) is None:
                return None  # not a version line ("WARC/1.0 "): the general path reports it
            header = parse_header(raw_header)
        cl_raw = header.fields.get(b"content-length")
        if header.issues or cl_raw is None or not cl_raw.isdigit():
            return None
        cl = int(cl_raw)
        if cl > self.max_record_bytes:
            return None
        e = hend + cl
        r = e + 4
        if buf.startswith(b"\r\n\r\n", e) and (
            buf.startswith(b"WARC/", r) or (r == len(buf) and (s.eof or s.at_member_end(r)))
        ):
            member = s.exact(start, r)
            s.pos = r
            if member is None:
                return FramedRecord(
                    s.base + start, raw_header, header, buf, hend, e, b"\r\n\r\n", False,
                    None, None, [],
                )  # fmt: skip
            return FramedRecord(
                s.base + start, raw_header, header, buf, hend, e, b"\r\n\r\n", False,
                member[0], member[1], [],
            )  # fmt: skip
        return None

    def _next(self) -> Iterator[FramedRecord | DamagedRange]:
        start = self.s.pos
        self.s.need(start + 16)
        start = self.s.pos
        buf = self.s.buf
        m = _VERSION_AT.match(buf, start)
        if m is None:
            yield from self._skip(
                start,
                start + 1,
                "bytes that are not a WARC record (no WARC/ version line)",
                "not-a-record",
                self._skip_bound,
            )
            yield from self._flush_broken()
            return
        line_ending = m.group(2)
        blank = line_ending + line_ending
        hdr_start = m.end() - len(line_ending)
        # -- find the blank line that ends the header ----------------------------------
        hend = self._header_end(start, hdr_start, blank)
        if hend is None:
            yield from self._skip(
                start,
                start + 1,
                f"WARC header without an end (no blank line within max_header_bytes={self.max_header_bytes})",
                "header-without-end",
                self._skip_bound,
            )
            yield from self._flush_broken()
            return
        start = self.s.pos
        buf = self.s.buf
        inner = _INNER_VERSION.search(buf, start + 8, hend)
        if inner is not None:
            # a record cut inside its header, followed at once by the next record (a writer
            # that crashed and restarted appending): damage up to the second version line
            yield self._damage(
                start,
                inner.start(),
                "WARC header cut short: a second version line inside the header block",
                "header-cut-short",
            )
            self.s.pos = inner.start()
            return
        raw_header = buf[start:hend]
        header = parse_header(raw_header)
        issues = header.issues
        if raw_header[:4] not in (b"WARC", b"warc"):
            # no writer mixes the case of the magic: a flipped bit (0x20) in it. The record is
            # delivered (a writer writes "WARC"), the damaged line reported with its bytes
            yield self._damage(
                start,
                hend,
                f"version line starts {raw_header[:4]!r}, not WARC: a damaged byte; the record"
                " is delivered with an upper-case version line",
                "damaged-version-line",
            )
        cl_raw = header.fields.get(b"content-length")
        try:
            cl = int(cl_raw) if cl_raw is not None else -1
        except ValueError:
            cl = -1
        if cl < 0:
            yield from self._no_length(start, hend, header, cl_raw)
            return
        if cl > self.max_record_bytes:
            yield from self._skip(
                start,
                hend,
                f"record block of {cl} bytes exceeds max_record_bytes={self.max_record_bytes}",
                "record-too-large",
            )
            yield from self._flush_broken()
            return
        e = hend + cl
        filled = self.s.need(e)
        start, hend, e = self._rebase(start, hend, e)
        if not filled:
            yield from self._truncated(start, hend, cl, header, raw_header)
            return
        sep_end, run, after = self._separator(start, e)
        start, hend, e = self._rebase(start, hend, e)
        buf = self.s.buf
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
            member_end=after is After.END and not run and self.s.at_member_end(sep_end),
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
            yield self._damage(
                start,
                sep_end,
                f"Content-Length {cl} is wrong: WARC-Block-Digest matches a block of {proven}"
                " bytes followed by a proper separator; the record is delivered with that block",
                "bad-length",
            )
            block_end = hend + proven
            yield self._record(
                start,
                raw_header,
                header,
                (buf, hend, block_end),
                buf[block_end:sep_end],
                False,
                issues,
                sep_end,
            )
            return
        if not verdict.ok:
            yield from self._wrong_length(start, hend, cl, header, raw_header)
            return
        block_end = e - verdict.block_trim
        if verdict.separator is not None:
            sep_end = e + verdict.separator
        if verdict.cl_includes_separator:
            self._cl_incl_seen = True
        if verdict.issue:
            issues.append(verdict.issue)
        yield self._record(
            start,
            raw_header,
            header,
            (buf, hend, block_end),
            buf[block_end:sep_end],
            verdict.cl_includes_separator,
            issues,
            sep_end,
        )


class WarcFramer(_FramerRecords):
    """Frame WARC records from decompressed pieces; iterate to get records and damage.

    The classes it is built of keep one job each: the stream, damage and resync
    (``_FramerBase``), the records (``_FramerRecords``), and here the header end, the
    separator and the repairs of wrong, missing or cut lengths."""

    def _rebase(self, start: int, *idx: int) -> tuple[int, ...]:
        shift = start - self.s.pos
        return (self.s.pos, *(i - shift for i in idx))

    def _flush_broken(self) -> Iterator[DamagedRange]:
        if self.s.broken is not None and self.s.pos >= len(self.s.buf):
            yield self.s.take_broken()

    def _header_end(self, start: int, hdr_start: int, blank: bytes) -> int | None:
        """Buffer index just after the blank line ending the header (``None``: not found)."""
        frm = hdr_start
        while True:
            buf = self.s.buf
            i = buf.find(blank, frm, start + self.max_header_bytes)
            other = b"\n\r\n" if blank == b"\n\n" else b"\n\n"
            j = buf.find(other, frm, i if i >= 0 else start + self.max_header_bytes)
            if j >= 0 and (i < 0 or j < i):
                end = j + len(other)
            elif i >= 0:
                end = i + len(blank)
            else:
                if len(buf) - start >= self.max_header_bytes:
                    return None
                before = self.s.pos
                if not self.s.more():
                    return None
                shift = before - self.s.pos
                start -= shift
                frm = max(hdr_start - shift, len(buf) - shift - 4)
                hdr_start -= shift
                continue
            # ClueWeb09: a blank line before Content-Length does not end the header, when
            # more header lines (one of them Content-Length) follow before the next blank line
            if b"content-length" not in buf[start:end].lower():
                filled = self.s.need(end + 4096)
                shift = start - self.s.pos
                start, end, hdr_start = self.s.pos, end - shift, hdr_start - shift
                buf = self.s.buf
                if not filled and len(buf) <= end:
                    return end
                if _HEADER_LINE.match(buf, end):
                    stop = buf.find(b"\n\n", end, start + self.max_header_bytes)
                    stop2 = buf.find(
                        b"\n\r\n", end, stop if stop >= 0 else start + self.max_header_bytes
                    )
                    if stop2 >= 0:
                        stop = stop2
                    chunk = buf[end:stop] if stop >= 0 else b""
                    if b"content-length" in chunk.lower() and _VERSION_LINE.search(chunk) is None:
                        frm = end
                        continue
            return end

    def _separator(self, start: int, e: int) -> tuple[int, bytes, After]:
        """The CR/LF run after the block ending at ``e`` and what follows it.

        Returns ``(end of the run, run, after)`` with buffer indices valid after any rebase
        (callers rebase with :meth:`_rebase`).
        """
        while True:
            buf = self.s.buf
            r = _CRLF_RUN.match(buf, e).end()
            if r < len(buf) or self.s.at_member_end(r) or r - e >= _MAX_SEPARATOR:
                break
            before = self.s.pos
            if not self.s.more():
                break
            e -= before - self.s.pos
            start -= before - self.s.pos
        if not self.s.at_member_end(r):
            self.s.need(r + 16)
            shift = start - self.s.pos
            e, r = e - shift, r - shift
        buf = self.s.buf
        run = buf[e:r]
        if self.s.at_member_end(r) or (r >= len(buf) and (self.s.eof or self.s.broken is not None)):
            after = After.END
        elif _VERSION_AT.match(buf, r) is not None:
            after = After.VERSION
        else:
            after = After.OTHER
        return r, run, after

    def _record(
        self,
        start: int,
        raw_header: bytes,
        header: WarcHeader,
        block: tuple[bytes, int, int],
        separator: bytes,
        cl_incl: bool,
        issues: list[str],
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
            issues,
        )

    def _truncated(
        self, start: int, hend: int, cl: int, header: WarcHeader, raw_header: bytes
    ) -> Iterator[FramedRecord | DamagedRange]:
        broken = self.s.broken
        if broken is None and _VERSION_LINE.search(self.s.buf, hend) is None:
            fixed = _cr_counted(self.s.buf[hend:], cl, header.line_ending)
            if fixed is not None:
                core, sep = fixed
                end = len(self.s.buf)
                yield self._damage(start, end, _CR_COUNTED, _CR_COUNTED_CODE)
                yield self._record(
                    start, raw_header, header, (core, 0, len(core)), sep, False, header.issues, end
                )
                return
        have = len(self.s.buf) - hend
        why = broken.reason if broken else "the file ends"
        reason = f"record truncated: Content-Length {cl} but only {have} bytes before {why}"
        cut_by_end = broken is None or "file ends" in broken.reason
        if cut_by_end and _RESYNC.search(self.s.buf, hend) is None:
            # the file ends inside the block: the partial record is delivered, marked
            # truncated, and its bytes are reported as damage too (one policy for every reader)
            end = len(self.s.buf)
            yield self._damage(
                start,
                end,
                reason + "; delivered as a partial record (WARC-Truncated)",
                "truncated-record",
            )
            record = self._record(
                start, raw_header, header, (self.s.buf, hend, end), b"", False, header.issues, end
            )
            record.truncated = True
            yield record
        else:
            yield from self._skip(start, hend, reason, "truncated-record")
        if broken is not None and self.s.pos >= len(self.s.buf) and self.s.broken is broken:
            # the member's own damage is already described in the record's reason
            self.s.broken = None
            if not broken.partial:
                yield DamagedRange(
                    self.s.base + self.s.pos,
                    broken.length,
                    broken.reason,
                    broken.data,
                    broken.offset,
                    True,
                    broken.length,
                    code=broken.code,
                )

    def _wrong_length(
        self, start: int, hend: int, cl: int, header: WarcHeader, raw_header: bytes
    ) -> Iterator[FramedRecord | DamagedRange]:
        hit = self._scan(hend)
        start = self.s.pos
        buf = self.s.buf
        shift = len(raw_header)
        hend = start + shift
        # LF-only file whose Content-Length still counts the CR bytes that were stripped
        if hit is not None and hit > hend:
            fixed = _cr_counted(buf[hend:hit], cl, header.line_ending)
            if fixed is not None:
                core, sep = fixed
                yield self._damage(start, hit, _CR_COUNTED, _CR_COUNTED_CODE)
                yield self._record(
                    start, raw_header, header, (core, 0, len(core)), sep, False, header.issues, hit
                )
                return
        after = buf[hend + cl : hend + cl + 12]
        reason = f"Content-Length {cl} is wrong: no record boundary after the block (bytes {after!r} follow)"
        self.s.pos = start
        if hit is None:
            yield self._damage(start, len(buf), reason, "bad-length")
            self.s.pos = len(buf)
            yield from self._flush_broken()
            return
        if hit < 0:
            yield from self._skip(start, hend, reason, "bad-length")
            return
        yield self._damage(start, hit, reason, "bad-length")
        self.s.pos = hit

    def _no_length(
        self, start: int, hend: int, header: WarcHeader, cl_raw: bytes | None
    ) -> Iterator[FramedRecord | DamagedRange]:
        what = "missing" if cl_raw is None else "not a number"
        raw_header = self.s.buf[start:hend]
        hit = self._scan(hend)
        start = self.s.pos
        hend = start + len(raw_header)
        buf = self.s.buf
        if hit is None or hit < 0:
            if hit is None and self.s.broken is None:
                end = len(buf)
            else:
                yield from self._skip(
                    start,
                    hend,
                    f"Content-Length {what} and no next record found",
                    "no-content-length",
                )
                yield from self._flush_broken()
                return
        else:
            end = hit
        body = buf[hend:end]
        expected = header.line_ending * 2
        if body.endswith(expected):
            core, sep = body[: -len(expected)], expected
        else:
            core = body.rstrip(b"\r\n")
            sep = body[len(core) :]
        # a repair that changes the record's bytes (a writer adds the length): damage, with the
        # original bytes, and the record delivered
        yield self._damage(
            start,
            end,
            f"no-content-length: Content-Length {what}; the record is delivered with its block "
            "taken up to the next record",
            "no-content-length",
        )
        yield self._record(
            start, raw_header, header, (core, 0, len(core)), sep, False, header.issues, end
        )
