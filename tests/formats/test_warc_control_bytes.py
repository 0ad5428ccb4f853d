"""A WARC header holding a control byte is damage, not a quirk (the fault soak's zero runs).

ISO 28500 (WARC 1.0, 5.1; the 0.18 draft ClueWeb09 follows has the same grammar):

    named-field = field-name ":" [ field-value ]
    field-value = *( field-content | LWS )
    field-name  = token
    field-content = <the OCTETs making up the field-value and consisting of either *TEXT or
                     combinations of token, separators, and quoted-string>
    TEXT = <any OCTET except CTLs, but including LWS>
    CTL  = <any US-ASCII control character (octets 0 - 31) and DEL (127)>
    LWS  = [CRLF] 1*( SP | HT )

so CR, LF and tab are the only control bytes a header may hold. A zero-filled block (what a
file system leaves after a crash) puts NULs in the header it starts or ends in; the framer used
to read on through them and deliver one record made of two headers' bytes with exit 0. The
damage now runs from the record's version line to the next record, reported with the offset
and the code ``control-byte-in-header``, and every record after it is delivered byte-exact;
NULs in a block are payload. Each input is framed by the compiled kernel and by the pure path.
"""

from __future__ import annotations

import contextlib
import io
import re
import zlib

import pytest
from crawlmill.formats.codecs.compression import iter_pieces
from crawlmill.formats.warc import framer as warc_mod
from crawlmill.formats.warc.framer import (
    SCAN_START_BYTES,
    DamagedRange,
    FramedRecord,
    WarcFramer,
    locate_start,
)

from tests.helpers import gz

CODE = "control-byte-in-header"


def rec(i: int, nl: bytes = b"\r\n", version: bytes = b"1.0") -> bytes:
    """A response record with a binary payload (NULs inside: payloads are binary); ClueWeb09
    style (0.18, LF, ``Content-Length`` counting the separator) when ``nl`` is LF."""
    body = b"HTTP/1.1 200 OK" + nl + b"Content-Type: image/png" + nl + nl
    body += b"\x89PNG\0\0\0\x0dIHDR" + bytes(range(256)) * (2 + i % 3) + b"end %d" % i
    sep = nl + nl
    fields = [
        b"WARC/" + version,
        b"WARC-Type: response",
        b"WARC-Target-URI: http://example.com/%d" % i,
        b"WARC-Date: 2009-03-01T12:00:00Z",
        b"WARC-Record-ID: <urn:uuid:00000000-0000-0000-0000-%012d>" % i,
        b"Content-Type: application/http; msgtype=response",
        b"Content-Length: %d" % (len(body) + (len(sep) if nl == b"\n" else 0)),
    ]
    return nl.join(fields) + nl + nl + body + sep


def _file(nl: bytes = b"\r\n") -> tuple[bytes, list[int]]:
    """Eight records and the offset of each (and of the end)."""
    version = b"0.18" if nl == b"\n" else b"1.0"
    recs = [rec(i, nl, version) for i in range(8)]
    starts = [0]
    for r in recs:
        starts.append(starts[-1] + len(r))
    return b"".join(recs), starts


def _frame(data: bytes, kind: str | None, pure: bool, monkeypatch) -> list:
    if pure:
        monkeypatch.setattr(warc_mod, "_KERNEL", None)
    return list(WarcFramer(iter_pieces(io.BytesIO(data), kind, piece_size=4096)))


def _zeroed(data: bytes, lo: int, hi: int) -> bytes:
    return data[:lo] + b"\0" * (hi - lo) + data[hi:]


def _in_header(data: bytes, start: int, name: bytes) -> int:
    """Offset of the value of header ``name`` of the record at ``start``."""
    return data.index(name + b": ", start) + len(name) + 2


@pytest.fixture(params=[False, True], ids=["kernel", "pure"])
def pure(request) -> bool:
    return request.param


@pytest.mark.parametrize("nl", [b"\r\n", b"\n"], ids=["warc-1.0", "clueweb09"])
def test_zero_run_from_one_header_into_a_later_header(nl, pure, monkeypatch):
    """The soak's cases (warc/plain/zero-run/s7001, clueweb09/plain/zero-run/s7001, s7002):
    zeros from inside record 2's header to inside record 4's header; the framer must not take
    record 2's header, a line of NULs and record 4's header tail as one record."""
    data, at = _file(nl)
    lo = _in_header(data, at[2], b"WARC-Date") + 4  # "2009" then zeros
    hi = _in_header(data, at[4], b"WARC-Record-ID") + 10
    items = _frame(_zeroed(data, lo, hi), None, pure, monkeypatch)
    damages = [i for i in items if isinstance(i, DamagedRange)]
    records = [i for i in items if isinstance(i, FramedRecord)]
    assert [(d.offset, d.length, d.code) for d in damages] == [(at[2], at[5] - at[2], CODE)]
    assert "control byte b'\\x00'" in damages[0].reason
    # records 2, 3 and 4 are lost to the zeros; the others are delivered byte for byte
    assert [r.offset for r in records] == [at[i] for i in (0, 1, 5, 6, 7)]
    assert [r.raw for r in records] == [data[at[i] : at[i + 1]] for i in (0, 1, 5, 6, 7)]


@pytest.mark.parametrize("nl", [b"\r\n", b"\n"], ids=["warc-1.0", "clueweb09"])
def test_zeros_inside_one_header_value(nl, pure, monkeypatch):
    """Zeros inside one value, the line structure and the length intact: the record is not
    delivered with a zeroed date (the kernel's fast path refuses it, the pure path reports)."""
    data, at = _file(nl)
    lo = _in_header(data, at[3], b"WARC-Date") + 2
    items = _frame(_zeroed(data, lo, lo + 8), None, pure, monkeypatch)
    damages = [i for i in items if isinstance(i, DamagedRange)]
    assert [(d.offset, d.length, d.code) for d in damages] == [(at[3], at[4] - at[3], CODE)]
    assert damages[0].data == _zeroed(data, lo, lo + 8)[at[3] : at[4]]
    records = [i.raw for i in items if isinstance(i, FramedRecord)]
    assert records == [data[at[i] : at[i + 1]] for i in (0, 1, 2, 4, 5, 6, 7)]


def test_zeros_from_a_header_into_its_own_block(pure, monkeypatch):
    """The run covers the end of the header (its blank line) and the start of the block."""
    data, at = _file()
    lo = _in_header(data, at[6], b"Content-Type") + 3
    hi = data.index(b"\x89PNG", at[6]) + 20
    items = _frame(_zeroed(data, lo, hi), None, pure, monkeypatch)
    damages = [i for i in items if isinstance(i, DamagedRange)]
    assert [(d.offset, d.code) for d in damages] == [(at[6], CODE)]
    assert damages[0].offset + damages[0].length == at[7]
    records = [i.raw for i in items if isinstance(i, FramedRecord)]
    assert records == [data[at[i] : at[i + 1]] for i in (0, 1, 2, 3, 4, 5, 7)]


@pytest.mark.parametrize("nl", [b"\r\n", b"\n"], ids=["warc-1.0", "clueweb09"])
def test_zeros_inside_a_block_are_payload(nl, pure, monkeypatch):
    """A block may hold any byte: zeros there change the payload, not the framing (nothing
    in the bytes tells them apart from a payload's own NULs), so no damage."""
    data, at = _file(nl)
    start = data.index(b"IHDR", at[1])
    damaged = _zeroed(data, start, start + 300)
    items = _frame(damaged, None, pure, monkeypatch)
    assert not [i for i in items if isinstance(i, DamagedRange)]
    assert [i.raw for i in items] == [damaged[at[i] : at[i + 1]] for i in range(8)]


def test_zeros_from_a_block_into_a_later_header(pure, monkeypatch):
    """From inside a block into a later header: the block's length no longer ends at a record
    boundary (bad-length), and the next intact version line resyncs."""
    data, at = _file()
    lo = data.index(b"IHDR", at[1]) + 10
    hi = _in_header(data, at[3], b"WARC-Target-URI")
    items = _frame(_zeroed(data, lo, hi), None, pure, monkeypatch)
    damages = [i for i in items if isinstance(i, DamagedRange)]
    assert damages and damages[0].offset == at[1]
    assert damages[-1].offset + damages[-1].length == at[4]
    records = [i.raw for i in items if isinstance(i, FramedRecord)]
    assert records == [data[at[i] : at[i + 1]] for i in (0, 4, 5, 6, 7)]


@pytest.mark.parametrize("byte", [0x00, 0x01, 0x07, 0x0B, 0x0C, 0x1B, 0x1F, 0x7F])
def test_a_member_whose_header_a_writer_wrote_with_a_control_byte(byte, pure, monkeypatch):
    """A sound gzip member (its CRC holds) whose header holds a control byte: the same rule;
    the damage is that member, the members after it are delivered."""
    recs = [rec(i) for i in range(4)]
    bad = recs[1].replace(b"http://example.com/1", b"http://exa" + bytes([byte]) + b"mple.com/1")
    members = [gz(recs[0]), gz(bad), gz(recs[2]), gz(recs[3])]
    items = _frame(b"".join(members), "gzip", pure, monkeypatch)
    damages = [i for i in items if isinstance(i, DamagedRange)]
    assert [(d.offset, d.length, d.code) for d in damages] == [(len(recs[0]), len(bad), CODE)]
    assert damages[0].member_offset == len(members[0])
    assert [i.raw for i in items if isinstance(i, FramedRecord)] == [recs[0], recs[2], recs[3]]


def test_tabs_and_8bit_bytes_stay_quirks_or_fine(pure, monkeypatch):
    """Not every odd byte is damage: a tab (LWS) and UTF-8 in a value are allowed."""
    r = rec(0).replace(b"WARC-Type: response", b"WARC-Type:\tresponse\r\nX-Note: caf\xc3\xa9")
    items = _frame(r + rec(1), None, pure, monkeypatch)
    assert [type(i) for i in items] == [FramedRecord, FramedRecord]


def _sample_warcs(root) -> list:
    """Every WARC file below ``root``, by its first bytes (ClueWeb09 samples have no suffix):
    a version line, or a gzip member inflating to one."""
    found = []
    for path in sorted(root.rglob("*")):
        if not path.is_file() or path.stat().st_size == 0:
            continue
        head = path.read_bytes()[:SCAN_START_BYTES]
        kind, _ = locate_start(head)
        if kind == "gzip":
            with contextlib.suppress(zlib.error):
                head = zlib.decompressobj(31).decompress(head, 64)
        if re.match(rb"[\r\n]*WARC/\d", head) and kind in (None, "gzip"):
            found.append((path, kind))
    return found


def test_no_real_sample_has_a_control_byte_in_a_header(samples):
    """The measurement behind the rule: the real files (SOURCES.md: Heritrix, wget, warcio,
    jwat, webrecorder, ClueWeb09 and more) hold no control byte in any record header, so the
    rule flags none of their records; they still convert as before."""
    records = files = 0
    for path, kind in _sample_warcs(samples):
        files += 1
        with open(path, "rb") as fh:
            for item in WarcFramer(iter_pieces(fh, kind)):
                assert getattr(item, "code", "") != CODE, (path, item.offset)
                records += isinstance(item, FramedRecord)
    assert files > 90 and records > 3000  # not vacuous
