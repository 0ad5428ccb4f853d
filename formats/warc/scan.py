"""Where a WARC record's parts end, read off a :class:`~crawlmill.formats.codecs.stream.MemberStream`.

The framer (:class:`crawlmill.formats.warc.framer.WarcFramer`) asks these functions where the header
ends (:func:`header_end`), what follows a declared block (:func:`separator`), where the next
record starts after damage (:func:`scan`) and reports the bytes up to it (:func:`skip`). They
work on the stream's buffer indices: a call that reads on (``s.more()``) drops the bytes before
``s.pos``, so the indices they return are valid after it (:func:`rebase` shifts held ones).
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from ..codecs.stream import Damage, MemberStream
from .length import After

__all__ = [
    "CONTROL_BYTE",
    "HEADER_LINE",
    "RESYNC",
    "RESYNC_CONTEXT",
    "VERSION_AT",
    "VERSION_LINE",
    "control_byte_reason",
    "flush_broken",
    "header_end",
    "rebase",
    "scan",
    "separator",
    "skip",
]

#: a version line at a position: its version and line ending.
VERSION_AT = re.compile(rb"[Ww][Aa][Rr][Cc]/(\d+\.\d+)(\r{0,2}\n)")
VERSION_LINE = re.compile(rb"^[Ww][Aa][Rr][Cc]/\d+\.\d+\r{0,2}\n", re.M)
#: a version line anywhere (damage may run into it without a line break), followed by a
#: header line: where framing resyncs after damage; inside a header block, the sign of a
#: header cut short by the next record (``WARC-DaWARC/1.1``).
RESYNC = re.compile(rb"[Ww][Aa][Rr][Cc]/\d+\.\d+\r{0,2}\n(?=[!-9;-~]+[ \t]*:)")
HEADER_LINE = re.compile(rb"[!-9;-~]+[ \t]*:")
#: a byte no WARC header may hold: a control byte other than the line ends and the tab of
#: folded whitespace (ISO 28500 5.1: ``field-name = token``, ``field-value = *( TEXT | LWS )``,
#: TEXT excludes CTLs but LWS; jwarc's strict grammar refuses them too). None of the 3,311
#: record headers of the real samples (102 WARC files) holds one; zero-filled or damaged bytes do.
CONTROL_BYTE = re.compile(rb"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")

def control_byte_reason(buf: bytes, start: int, hend: int) -> str | None:
    """Why the header ``buf[start:hend]`` is damage when it holds a control byte
    (:data:`CONTROL_BYTE`: zero-filled or damaged bytes, which no writer writes), else
    ``None``."""
    m = CONTROL_BYTE.search(buf, start, hend)
    if m is None:
        return None
    at = m.start()
    return (
        f"WARC header holds control byte {buf[at : at + 1]!r} at byte {at - start} of "
        f"{hend - start} (zero-filled or damaged bytes; the WARC header grammar allows none):"
        " skipped to the next record"
    )


_CRLF_RUN = re.compile(rb"[\r\n]{0,256}")
_MAX_SEPARATOR = 256
#: bytes kept from the end of a scanned buffer, so that a version line and the header name
#: after it that straddle two pieces are still found.
RESYNC_CONTEXT = 512


def rebase(s: MemberStream, start: int, *idx: int) -> tuple[int, ...]:
    """``(s.pos, *idx)`` with ``idx`` shifted as ``start`` moved to ``s.pos``."""
    shift = start - s.pos
    return (s.pos, *(i - shift for i in idx))


def flush_broken(s: MemberStream) -> Iterator[Damage]:
    """The pending damage of the codec, once every byte before it is read."""
    if s.broken is not None and s.pos >= len(s.buf):
        yield s.take_broken()


def scan(s: MemberStream, frm: int, bound: int) -> int | None:
    """Buffer index of the next version line (followed by a header line) or member start at
    or after ``frm``; ``None`` when the data ends (EOF or a pending Broken) first; -1 when more
    than ``bound`` bytes would have to be held."""
    return s.resync(RESYNC, frm, bound, b"WARC/", RESYNC_CONTEXT)


def skip(
    s: MemberStream, start: int, frm: int, reason: str, code: str, bound: int, max_bytes: int
) -> Iterator[Damage]:
    """Report ``[start, next record)`` as damage (``code``), scanning from ``frm``; leaves
    ``s.pos`` at the next record (or the end of the data). A range longer than ``bound`` is
    reported in parts (``part`` counts them), so memory stays at the bound plus a piece."""
    s.pos = start
    frm_off = frm - start
    part = 0  # the later parts of one damaged range are that damage's (``part`` > 0)
    while True:
        hit = scan(s, s.pos + frm_off, bound)
        start = s.pos
        if hit is None:
            yield _part(s.damage(start, len(s.buf), reason, max_bytes, code), part)
            s.pos = len(s.buf)
            return
        if hit == -1:  # too much damage to hold: report a slice (its bytes whole) and go on
            cut = min(len(s.buf) - RESYNC_CONTEXT, start + max_bytes)
            more = reason + " (damaged range reported in parts)"
            yield _part(s.damage(start, cut, more, max_bytes, code), part)
            part += 1
            s.pos = cut
            frm_off = 0
            continue
        if hit > start:
            yield _part(s.damage(start, hit, reason, max_bytes, code), part)
        s.pos = hit
        return


def _part(damage: Damage, part: int) -> Damage:
    damage.part = part
    return damage


def header_end(
    s: MemberStream, start: int, hdr_start: int, blank: bytes, max_header: int
) -> int | None:
    """Buffer index just after the blank line ending the header that starts at ``start``
    (its first line ends at ``hdr_start``); ``None``: not found within ``max_header``."""
    frm = hdr_start
    while True:
        buf = s.buf
        i = buf.find(blank, frm, start + max_header)
        other = b"\n\r\n" if blank == b"\n\n" else b"\n\n"
        j = buf.find(other, frm, i if i >= 0 else start + max_header)
        if j >= 0 and (i < 0 or j < i):
            end = j + len(other)
        elif i >= 0:
            end = i + len(blank)
        else:
            if len(buf) - start >= max_header:
                return None
            before = s.pos
            if not s.more():
                return None
            shift = before - s.pos
            start -= shift
            frm = max(hdr_start - shift, len(buf) - shift - 4)
            hdr_start -= shift
            continue
        # ClueWeb09: a blank line before Content-Length does not end the header, when
        # more header lines (one of them Content-Length) follow before the next blank line
        if b"content-length" not in buf[start:end].lower():
            filled = s.need(end + 4096)
            shift = start - s.pos
            start, end, hdr_start = s.pos, end - shift, hdr_start - shift
            buf = s.buf
            if not filled and len(buf) <= end:
                return end
            if HEADER_LINE.match(buf, end):
                stop = buf.find(b"\n\n", end, start + max_header)
                stop2 = buf.find(b"\n\r\n", end, stop if stop >= 0 else start + max_header)
                if stop2 >= 0:
                    stop = stop2
                chunk = buf[end:stop] if stop >= 0 else b""
                if b"content-length" in chunk.lower() and VERSION_LINE.search(chunk) is None:
                    frm = end
                    continue
        return end


def separator(s: MemberStream, start: int, e: int) -> tuple[int, bytes, After]:
    """The CR/LF run after the block ending at ``e`` and what follows it.

    Returns ``(end of the run, run, after)`` with buffer indices valid after any rebase
    (callers rebase with :func:`rebase`).
    """
    while True:
        buf = s.buf
        r = _CRLF_RUN.match(buf, e).end()
        if r < len(buf) or s.at_member_end(r) or r - e >= _MAX_SEPARATOR:
            break
        before = s.pos
        if not s.more():
            break
        e -= before - s.pos
        start -= before - s.pos
    if not s.at_member_end(r):
        s.need(r + 16)
        shift = start - s.pos
        e, r = e - shift, r - shift
    buf = s.buf
    run = buf[e:r]
    if s.at_member_end(r) or (r >= len(buf) and (s.eof or s.broken is not None)):
        after = After.END
    elif VERSION_AT.match(buf, r) is not None:
        after = After.VERSION
    else:
        after = After.OTHER
    return r, run, after
