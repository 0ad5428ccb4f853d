"""The compiled kernel's verbatim-copy functions (formats/warc/_warcfast.c) give exactly the pure
path's answers: the header checks of a verbatim copy (``verbatim_ok``), the gzip magic scan that
also lists the magics that are no member start (``member_scan``), and the copy of a held member
with its trailer's word (``member_copy``).

Each is compared with its pure reference on constructed inputs at every boundary (empty, one
byte, member boundaries, a gzip magic inside data, truncated members, damaged headers, large
records) and on seeded random inputs; the kernel's answer is either ``None`` (the pure path
decides) or the pure answer. RFC 1952, 2.3.1: "ISIZE (Input SIZE) This contains the size of the
original (uncompressed) input data modulo 2^32" and "CRC32 ... of the uncompressed data", read
little-endian ("all multi-byte numbers in the format described here are stored with the least-
significant byte first", 2.1).
"""

from __future__ import annotations

import random
import struct
import zlib

import pytest
from crawlmill.formats.codecs import gzip_parallel as gp
from crawlmill.formats.codecs import member_source
from crawlmill.formats.codecs.member_source import HeldMembers
from crawlmill.formats.codecs.member_vouch import (
    Run,
    plain_vouch,
    run_is_exact,
    run_is_exact_scanned,
)
from crawlmill.formats.warc import builder
from crawlmill.formats.warc.builder import _verbatim_ok_pure, can_copy_verbatim
from crawlmill.formats.warc.writer import framing_for

from tests.conftest import need
from tests.helpers import gz


def _kernel(name: str):
    """A function of the kernel, imported directly (the modules' bindings are off under
    CRAWLMILL_PURE); skips on an install without a compiler, fails in CI."""
    return getattr(need("crawlmill.formats.warc._warcfast"), name)


# -- verbatim_ok: the header checks of can_copy_verbatim -----------------------------------------

CL, RID, DATE = b"Content-Length", b"WARC-Record-ID", b"WARC-Date"
GOOD = [(b"WARC-Type", b"response"), (RID, b"<urn:uuid:1>"), (DATE, b"2024"), (CL, b"5")]
RAW = b"WARC/1.0\r\nWARC-Type: response\r\nContent-Length: 5\r\n\r\n"

VERBATIM_CASES = {
    "good": (RAW, GOOD, 5, b"\r\n"),
    "empty header": (b"", GOOD, 5, b"\r\n"),
    "one byte": (b"\n", GOOD, 5, b"\n"),
    "three bytes, LF": (b"a\n\n", GOOD, 5, b"\n"),
    "shorter than the blank line (find -1 == len - 2)": (b"x", GOOD, 5, b"\n"),
    "blank line inside": (b"WARC/1.0\r\n\r\nA: b\r\n\r\n", GOOD, 5, b"\r\n"),
    "no blank line at the end": (RAW[:-2], GOOD, 5, b"\r\n"),
    "bare LF": (b"WARC/1.0\r\nA: b\nC: d\r\n\r\n", GOOD, 5, b"\r\n"),
    "LF first": (b"\nWARC/1.0\r\n\r\n", GOOD, 5, b"\r\n"),
    "LF framing with CR": (b"WARC/0.18\nA: b\r\n\n", GOOD, 5, b"\n"),
    "no headers": (RAW, [], 5, b"\r\n"),
    "wrong length": (RAW, GOOD, 6, b"\r\n"),
    "length with spaces": (RAW, [*GOOD[:3], (CL, b" \t5\r\x0b\x0c")], 5, b"\r\n"),
    "length with a sign": (RAW, [*GOOD[:3], (CL, b"+5")], 5, b"\r\n"),
    "length with a leading zero": (RAW, [*GOOD[:3], (CL, b"05")], 5, b"\r\n"),
    "empty length": (RAW, [*GOOD[:3], (CL, b"")], 0, b"\r\n"),
    "negative expected": (RAW, [*GOOD[:3], (CL, b"-1")], -1, b"\r\n"),
    "large length": (RAW, [*GOOD[:3], (CL, b"%d" % (1 << 40))], 1 << 40, b"\r\n"),
    "two lengths, first right": (RAW, [*GOOD, (CL, b"9")], 5, b"\r\n"),
    "two lengths, first wrong": (RAW, [(CL, b"9"), *GOOD], 5, b"\r\n"),
    "length None then right": (RAW, [(CL, None), *GOOD], 5, b"\r\n"),
    "length in upper case": (RAW, [*GOOD[:3], (b"CONTENT-LENGTH", b"5")], 5, b"\r\n"),
    "length name with a space": (RAW, [*GOOD[:3], (b"Content-Length ", b"5")], 5, b"\r\n"),
    "no record id": (RAW, [GOOD[0], GOOD[2], GOOD[3]], 5, b"\r\n"),
    "blank record id": (RAW, [GOOD[0], (RID, b" \t "), GOOD[2], GOOD[3]], 5, b"\r\n"),
    "blank then real record id": (RAW, [(RID, b""), *GOOD], 5, b"\r\n"),
    "record id None then real": (RAW, [(RID, None), *GOOD], 5, b"\r\n"),
    "no date": (RAW, [GOOD[0], GOOD[1], GOOD[3]], 5, b"\r\n"),
    "empty date": (RAW, [GOOD[0], GOOD[1], (DATE, b""), GOOD[3]], 5, b"\r\n"),
    "date None": (RAW, [GOOD[0], GOOD[1], (DATE, None), GOOD[3]], 5, b"\r\n"),
    "date in lower case": (RAW, [GOOD[0], GOOD[1], (b"warc-date", b"x"), GOOD[3]], 5, b"\r\n"),
    "non-ASCII name": (RAW, [(b"Content-L\xc9ngth", b"5"), *GOOD], 5, b"\r\n"),
    "tuple of headers": (RAW, tuple(GOOD), 5, b"\r\n"),
    # what the kernel leaves to the pure function (it answers None for these)
    "str names": (RAW, [(k.decode(), v) for k, v in GOOD], 5, b"\r\n"),
    "str length value": (RAW, [*GOOD[:3], (CL, "5")], 5, b"\r\n"),
    "str record id": (RAW, [GOOD[0], (RID, "x"), GOOD[2], GOOD[3]], 5, b"\r\n"),
    "list pairs": (RAW, [list(p) for p in GOOD], 5, b"\r\n"),
    "bool expected": (RAW, [*GOOD[:3], (CL, b"1")], True, b"\r\n"),
}


@pytest.mark.parametrize("name", list(VERBATIM_CASES))
def test_verbatim_ok_is_the_pure_check(name):
    kernel = _kernel("verbatim_ok")
    raw, headers, expected, eol = VERBATIM_CASES[name]
    want = _verbatim_ok_pure(raw, headers, expected, eol)
    got = kernel(raw, headers, expected, eol)
    assert got is None or got is want, (got, want)


def test_verbatim_ok_answers_the_usual_cases_itself():
    """Hand-checked answers for bytes pairs, so the kernel is not None everywhere."""
    kernel = _kernel("verbatim_ok")
    expect = {
        "good": True, "length with spaces": True, "two lengths, first right": True,
        "length None then right": True, "length in upper case": True, "tuple of headers": True,
        "empty date": True, "large length": True, "negative expected": True,
        "shorter than the blank line (find -1 == len - 2)": True,
        "wrong length": False, "blank line inside": False, "bare LF": False, "no date": False,
        "no record id": False, "blank record id": False, "blank then real record id": False,
        "length with a sign": False, "two lengths, first wrong": False, "date None": False,
        "date in lower case": True, "empty header": False, "no headers": False,
    }  # fmt: skip
    for name, want in expect.items():
        assert kernel(*VERBATIM_CASES[name]) is want, name
    for name in ("str names", "str length value", "str record id", "list pairs", "bool expected"):
        assert kernel(*VERBATIM_CASES[name]) is None, name


def test_verbatim_ok_random_headers():
    """Seeded random header blocks and pairs over the bytes and names that matter."""
    kernel = _kernel("verbatim_ok")
    rng = random.Random(20)
    alphabet = [b"\r", b"\n", b"\r\n", b"a", b" ", b":"]
    names = [CL, RID, DATE, b"content-length", b"WARC-DATE", b"X", b"Content-Lengtx"]
    values = [b"5", b" 5 ", b"", b"x", b"12", None, b"05"]
    for _ in range(4000):
        raw = b"".join(rng.choice(alphabet) for _ in range(rng.randint(0, 12)))
        pairs = [(rng.choice(names), rng.choice(values)) for _ in range(rng.randint(0, 5))]
        eol = rng.choice((b"\r\n", b"\n"))
        expected = rng.choice((5, 12, 0))
        want = _verbatim_ok_pure(raw, pairs, expected, eol)
        got = kernel(raw, pairs, expected, eol)
        assert got is want, (raw, pairs, expected, eol)


def test_verbatim_ok_bad_arguments():
    kernel = _kernel("verbatim_ok")
    assert kernel("text", GOOD, 5, b"\r\n") is None
    assert kernel(RAW, iter(GOOD), 5, b"\r\n") is None
    assert kernel(RAW, GOOD, 1 << 70, b"\r\n") is None
    assert kernel(RAW, GOOD, 5, b"") is None
    assert kernel(RAW, GOOD, 5, "\r\n") is None
    assert kernel(RAW, [(CL,)], 5, b"\r\n") is None
    with pytest.raises(TypeError):
        kernel(RAW, GOOD, 5)


@pytest.mark.parametrize("kernel_on", [True, False])
def test_can_copy_verbatim_with_and_without_the_kernel(kernel_on, monkeypatch):
    """The writer's check gives the same answers through the kernel and without it."""
    monkeypatch.setattr(builder, "_KERNEL_VERBATIM", _kernel("verbatim_ok") if kernel_on else None)
    framing = framing_for("1.0")
    args = dict(version="1.0", line_ending=b"\r\n", cl_includes_separator=False, separator=None)
    answers = [
        can_copy_verbatim(*VERBATIM_CASES[n][:2], 5, framing, **args) for n in VERBATIM_CASES
    ]
    monkeypatch.setattr(builder, "_KERNEL_VERBATIM", None)
    assert answers == [
        can_copy_verbatim(*VERBATIM_CASES[n][:2], 5, framing, **args) for n in VERBATIM_CASES
    ]
    assert answers[0] is True


# -- member_scan: member starts and the other magics ---------------------------------------------

MAGIC = b"\x1f\x8b\x08"
GOOD_HEADER = MAGIC + b"\x00" * 6 + b"\x03"

SCAN_CASES = {
    "empty": b"",
    "one byte": b"\x1f",
    "one member": gz(b"hello"),
    "three members": gz(b"a") + gz(b"bb") + gz(b"ccc"),
    "reserved flag": b"xx" + MAGIC + b"\x20" + b"\x00" * 5 + b"\x03" + b"yy",
    "os 20": b"xx" + MAGIC + b"\x00" * 6 + b"\x14" + b"yy",
    "os 255": b"xx" + MAGIC + b"\x00" * 6 + b"\xff" + b"yy",
    "magic at the end": b"abc" + MAGIC,
    "header cut by the end": b"abc" + GOOD_HEADER[:7],
    "adjacent magics": MAGIC * 5 + GOOD_HEADER,
    "bad magic then good": MAGIC + b"\xe0" + b"\x00" * 6 + GOOD_HEADER + b"\x00" * 4,
    "gzip inside a payload": gz(b"WARC/1.0\r\n\r\n" + gz(b"inner" * 50) + b"\r\n\r\n", 0),
    "truncated member": gz(b"a" * 100)[:-5],
}


@pytest.mark.parametrize("name", list(SCAN_CASES))
def test_member_scan_is_the_pure_scan(name):
    kernel = _kernel("member_scan")
    data = SCAN_CASES[name]
    for end in (None, *range(len(data) + 1)):
        want = gp._member_scan_pure(data, end)
        assert want[0] == gp._member_starts_pure(data, end)  # the same starts as before
        assert kernel(data, end) == want, end
        assert kernel(bytearray(data), end) == want, end


def test_member_scan_boundaries_and_bad_arguments():
    kernel = _kernel("member_scan")
    assert kernel(b"xx" + MAGIC + b"\x20" + b"\x00" * 5 + b"\x03", None) == ([], [2])
    assert kernel(MAGIC + b"\xe0" + GOOD_HEADER, None) == ([4], [0])
    assert kernel(b"abc" + MAGIC, 5) == ([], [])  # the magic split across end
    assert kernel(b"abc", 4) is None
    assert kernel(b"abc", -1) is None
    assert kernel("text", None) is None
    with pytest.raises(TypeError):
        kernel(b"abc")


def test_member_scan_random_buffers():
    kernel = _kernel("member_scan")
    rng = random.Random(8)
    alphabet = [0x1F, 0x8B, 0x08, 0x00, 0x03, 0x13, 0x14, 0x20, 0xE0, 0xFF]
    for _ in range(2000):
        data = bytes(rng.choice(alphabet) for _ in range(rng.randint(0, 40)))
        for end in (None, *range(0, len(data) + 1, 3)):
            assert kernel(data, end) == gp._member_scan_pure(data, end), (data, end)


def _member(data: bytes, level: int = 6) -> bytes:
    c = zlib.compressobj(level, zlib.DEFLATED, -15)
    raw = c.compress(data) + c.flush()
    return (
        b"\x1f\x8b\x08\x00\x00\x00\x00\x00\x00\x03"
        + raw
        + struct.pack("<II", zlib.crc32(data), len(data) & 0xFFFFFFFF)
    )


def _runs(data: bytes, end: int | None = None):
    """Every run of consecutive guessed starts of ``data[:end]`` (as the reader cuts them)
    with the ISIZE fields read at its guessed ends."""
    n = len(data) if end is None else end
    starts, _ = gp._member_scan_pure(data, end)
    if not starts:
        return
    bounds = list(zip(starts, [*starts[1:], n], strict=True))
    for i in range(len(bounds)):
        for j in range(i + 1, len(bounds) + 1):
            run = bounds[i:j]
            sizes = [struct.unpack_from("<I", data, e - 4)[0] if e >= 4 else 0 for _, e in run]
            yield run, sizes


RUN_CASES = {
    "real members": b"".join(_member(b"record %d " % i * (i + 1)) for i in range(5)),
    # a stored page that is itself gzip (its header rejected: reserved FLG bits): a magic
    # inside a member that no scan takes for a start
    "a rejected magic inside": _member(b"a" * 50)
    + _member(b"page " + MAGIC + b"\xe0" + b"\x00" * 6 + b" end", level=0)
    + _member(b"b" * 50),
    # a magic inside stored bytes that looks like a member start: a false start
    "a false start inside": _member(b"a" * 50)
    + _member(b"page " + GOOD_HEADER + b" end", level=0)
    + _member(b"b" * 50),
    "zero bytes after a member": _member(b"a" * 50) + b"\x00" * 8 + _member(b"b" * 50),
    "truncated last member": _member(b"a" * 50) + _member(b"b" * 500)[:-7],
}


@pytest.mark.parametrize("name", list(RUN_CASES))
def test_a_run_is_exact_from_the_scan_as_from_a_second_scan(name):
    """The reader's scan's other magics give :func:`run_is_exact`'s answer for every run of
    guessed starts, at every end of the buffer (the reader cuts chunks anywhere)."""
    data = RUN_CASES[name]
    kernel = _kernel("member_scan")
    checked = 0
    for end in (None, *range(0, len(data) + 1, 7)):
        starts, others = kernel(data, end)
        assert (starts, others) == gp._member_scan_pure(data, end)
        for run, sizes in _runs(data, end):
            want = run_is_exact(data, run, sizes)
            assert run_is_exact_scanned(others, run, sizes) is want, (end, run)
            assert Run(data, run, sizes, others).exact() is want
            checked += 1
    assert checked


def test_run_exactness_examples():
    """Hand-checked: a rejected magic inside a run makes it inexact, one outside does not."""
    assert run_is_exact_scanned([], [(0, 10), (10, 20)], [5, 5])
    assert not run_is_exact_scanned([], [(0, 10), (10, 20)], [5, 0])
    assert not run_is_exact_scanned([], [], [])
    assert not run_is_exact_scanned([15], [(0, 10), (10, 20)], [5, 5])
    assert not run_is_exact_scanned([0], [(0, 10)], [5])
    assert run_is_exact_scanned([20, 30], [(0, 10), (10, 20)], [5, 5])
    assert run_is_exact_scanned([3], [(10, 20)], [5])


# -- member_copy: a held member and its trailer's word --------------------------------------------

COPY_BUF = b"xx" + _member(b"hello") + _member(b"") + b"\x1f\x8b\x08\x04" + b"\x00" * 30


def test_member_copy_is_the_pure_copy_at_every_span():
    """Every span of the buffer (and spans past it), with and without asking for the word,
    from bytes and from a bytearray (the reader's buffers)."""
    kernel = _kernel("member_copy")
    n = len(COPY_BUF)
    for buf in (COPY_BUF, bytearray(COPY_BUF)):
        for pos in range(-1, n + 2):
            for length in range(-1, n + 2 - max(pos, 0)):
                for vouch in (False, True):
                    want = member_source._copy_pure(buf, pos, length, vouch)
                    got = kernel(buf, pos, length, vouch)
                    assert got == want, (pos, length, vouch)


def test_member_copy_reads_the_trailer_as_rfc_1952_says():
    kernel = _kernel("member_copy")
    data = b"\xff" * 1000
    m = _member(data)
    crc = zlib.crc32(data)
    assert crc > 1 << 31  # the high bit set: an unsigned read
    assert kernel(b"ab" + m + b"cd", 2, len(m), True) == (m, (crc, 1000))
    assert kernel(m, 0, len(m), False) == (m, None)
    assert kernel(m[:19], 0, 19, True) == (m[:19], None)  # shorter than any member
    flagged = m[:3] + b"\x08" + m[4:]  # FNAME: not the plain header
    assert kernel(flagged, 0, len(flagged), True) == (flagged, None)
    assert kernel(m, 1, len(m), True) is None  # past the end
    assert kernel(m, 0, 0, True) is None
    assert kernel("text", 0, 1, True) is None
    assert kernel(m, 1 << 70, 1, True) is None
    with pytest.raises(TypeError):
        kernel(m, 0, 1)


def test_member_copy_random_buffers():
    kernel = _kernel("member_copy")
    rng = random.Random(9)
    for _ in range(3000):
        buf = rng.choice((b"\x1f\x8b\x08\x00", b"")) + rng.randbytes(rng.randint(0, 40))
        pos = rng.randint(-2, len(buf) + 2)
        length = rng.randint(-2, len(buf) + 2)
        vouch = rng.random() < 0.7
        assert kernel(buf, pos, length, vouch) == member_source._copy_pure(buf, pos, length, vouch)


@pytest.mark.parametrize("kernel_on", [True, False])
def test_held_members_give_the_same_copies_and_words(kernel_on, monkeypatch):
    """HeldMembers through the kernel and without it: the same bytes, the same words."""
    monkeypatch.setattr(
        member_source, "_KERNEL_TAKE", _kernel("member_take") if kernel_on else None
    )
    members = [_member(b"record %d" % i * 40) for i in range(4)]
    buf = bytearray(b"".join(members) + b"\x00" * 16)
    offsets = [100 + sum(map(len, members[:i])) for i in range(4)]
    held = HeldMembers()
    verified = {offsets[0]: len(members[0]), offsets[1]: len(members[1]) - 1}
    run = Run(bytes(buf), [(0, len(members[0]))], [1], [])
    verified[offsets[2]] = (len(members[2]), run)
    held.hold(buf, 100, 100 + sum(map(len, members)), verified)
    assert held.get_vouched(offsets[0], len(members[0])) == (members[0], plain_vouch(members[0]))
    assert held.get_vouched(offsets[1], len(members[1])) == (members[1], None)  # wrong length
    assert held.get_vouched(offsets[2], len(members[2])) == (members[2], plain_vouch(members[2]))
    assert held.get_vouched(offsets[3], len(members[3])) == (members[3], None)  # not verified
    assert held.get(offsets[0], len(members[0])) == members[0]
    assert held.get(99, 10) is None and held.get(offsets[3], len(members[3]) + 1) is None
    held.release()
    assert held.get_vouched(offsets[0], len(members[0])) is None


# -- verbatim_parts: a record's checks and parts in one call ------------------------------------

F10 = builder.framing_facts(framing_for("1.0"))
F018 = builder.framing_facts(framing_for("0.18"))
EXTRAS = {
    "version": "1.0",
    "headers": GOOD,
    "raw_header": RAW,
    "separator": b"\r\n\r\n",
    "cl_includes_separator": False,
    "line_ending": b"\r\n",
    "member": True,
}
RAW18 = b"WARC/0.18\nContent-Length: 7\n\n"
EXTRAS18 = {
    "version": "0.18",
    "headers": [(CL, b"7"), (RID, b"x"), (DATE, b"d")],
    "raw_header": RAW18,
    "separator": b"\n\n",
    "cl_includes_separator": True,
    "line_ending": b"\n",
}


def _with(**changes) -> dict:
    extras = dict(EXTRAS)
    for key, value in changes.items():
        if value is _DROP:
            extras.pop(key)
        else:
            extras[key] = value
    return extras


_DROP = object()

PARTS_CASES = {
    "good": (EXTRAS, b"", b"hello", F10),
    "good, head None": (EXTRAS, None, b"hello", F10),
    "good, head and payload": (EXTRAS, b"HT", b"TP!", F10),
    "0.18, length counts the separator": (EXTRAS18, None, b"hello", F018),
    "0.18 into 1.0": (EXTRAS18, None, b"hello", F10),
    "wrong length": (EXTRAS, b"", b"hello!", F10),
    "large record": (
        _with(headers=[*GOOD[:3], (CL, b"%d" % (1 << 20))]),
        b"",
        b"x" * (1 << 20),
        F10,
    ),
    "empty payload": (_with(headers=[*GOOD[:3], (CL, b"0")]), None, b"", F10),
    "other version": (_with(version="1.1"), b"", b"hello", F10),
    "version line of another": (_with(raw_header=b"WARC/1.1" + RAW[8:]), b"", b"hello", F10),
    "LF line ending": (_with(line_ending=b"\n"), b"", b"hello", F10),
    "no line ending": (_with(line_ending=_DROP), b"", b"hello", F10),
    "other separator": (_with(separator=b"\n\n"), b"", b"hello", F10),
    "no separator": (_with(separator=None), b"", b"hello", F10),
    "cl counts separator": (_with(cl_includes_separator=True), b"", b"hello", F10),
    "no cl flag": (_with(cl_includes_separator=_DROP), b"", b"hello", F10),
    "empty raw header": (_with(raw_header=b""), b"", b"hello", F10),
    "cut raw header": (_with(raw_header=RAW[:-1]), b"", b"hello", F10),
    "no headers": (_with(headers=None), b"", b"hello", F10),
    "headers missing": (_with(headers=_DROP), b"", b"hello", F10),
    "no record id": (_with(headers=[GOOD[0], GOOD[2], GOOD[3]]), b"", b"hello", F10),
    "value None": (_with(headers=[(b"X", None), *GOOD]), b"", b"hello", F10),
    "tuple headers": (_with(headers=tuple(GOOD)), b"", b"hello", F10),
    # other types: the general path decides (None from both)
    "str raw header": (_with(raw_header=RAW.decode()), b"", b"hello", F10),
    "bytes version": (_with(version=b"1.0"), b"", b"hello", F10),
    "version missing": (_with(version=_DROP), b"", b"hello", F10),
    "str line ending": (_with(line_ending="\r\n"), b"", b"hello", F10),
    "int cl flag": (_with(cl_includes_separator=0), b"", b"hello", F10),
    "str value": (_with(headers=[(b"X", "y"), *GOOD]), b"", b"hello", F10),
    "str name": (_with(headers=[("X", b"y"), *GOOD]), b"", b"hello", F10),
    "list pair": (_with(headers=[[b"X", b"y"], *GOOD]), b"", b"hello", F10),
    "bytearray payload": (EXTRAS, b"", bytearray(b"hello"), F10),
    "memoryview head": (EXTRAS, memoryview(b""), b"hello", F10),
    "not a dict": (list(EXTRAS.items()), b"", b"hello", F10),
    "framing not a tuple": (EXTRAS, b"", b"hello", list(F10)),
    "framing with an empty line ending": (EXTRAS, b"", b"hello", (*F10[:2], b"", *F10[3:])),
}


@pytest.mark.parametrize("name", list(PARTS_CASES))
def test_verbatim_parts_is_the_pure_function(name):
    kernel = _kernel("verbatim_parts")
    warc, head, payload, framing = PARTS_CASES[name]
    want = builder._verbatim_parts_pure(warc, head, payload, framing)
    assert kernel(warc, head, payload, framing) == want


def test_verbatim_parts_gives_the_input_bytes():
    """Hand-checked: the parts joined are the record's bytes, the objects the reader's."""
    kernel = _kernel("verbatim_parts")
    parts = kernel(EXTRAS, b"HT", b"TP!", F10)
    assert parts == (RAW, b"HT", b"TP!", b"\r\n\r\n") and parts[0] is RAW
    assert kernel(EXTRAS, None, b"hello", F10) == (RAW, b"", b"hello", b"\r\n\r\n")
    assert kernel(EXTRAS18, None, b"hello", F018) == (RAW18, b"", b"hello", b"\n\n")
    for name in ("wrong length", "other version", "no record id", "str value", "cut raw header"):
        assert kernel(*PARTS_CASES[name]) is None, name
    with pytest.raises(TypeError):
        kernel(EXTRAS, b"", b"hello")


def test_verbatim_parts_random_extras():
    """Seeded random extras over the values that matter, kernel against the pure function."""
    kernel = _kernel("verbatim_parts")
    rng = random.Random(21)
    choices = {
        "version": ["1.0", "1.1", "0.18", None, b"1.0"],
        "raw_header": [RAW, RAW[:-2], RAW18, b"", b"WARC/1.0\r\n\r\n", None],
        "headers": [GOOD, [], [(CL, b"5")], EXTRAS18["headers"], [(CL, b" 5"), (RID, b" ")]],
        "separator": [b"\r\n\r\n", b"\n\n", None, "x"],
        "cl_includes_separator": [False, True, None],
        "line_ending": [b"\r\n", b"\n", None],
    }
    for _ in range(3000):
        warc = {k: rng.choice(v) for k, v in choices.items() if rng.random() < 0.9}
        head = rng.choice((None, b"", b"H"))
        payload = rng.choice((b"hello", b"hell", b"hel", b""))
        framing = rng.choice((F10, F018, builder.framing_facts(framing_for("1.1"))))
        want = builder._verbatim_parts_pure(warc, head, payload, framing)
        assert kernel(warc, head, payload, framing) == want, (warc, head, payload, framing)


def test_verbatim_parts_bad_framing_types():
    kernel = _kernel("verbatim_parts")
    for framing in ((b"1.0", *F10[1:]), (*F10[:4], 0), (F10[0], "WARC/1.0\r\n", *F10[2:])):
        assert kernel(EXTRAS, b"", b"hello", framing) is None
        assert builder._verbatim_parts_pure(EXTRAS, b"", b"hello", framing) is None


def _warc_input(tmp_path) -> bytes:
    """A gzip WARC whose records take every path of a verbatim copy: plain copies, a wrong
    Content-Length, a bare LF, no WARC-Date, a record id blank, a 0.18 record and a 1.1 one."""
    from tests.formats.test_member_vouch import member

    def rec(version: bytes, extra: bytes, block: bytes, cl: int | None = None) -> bytes:
        n = len(block) if cl is None else cl
        return b"WARC/%s\r\nWARC-Type: resource\r\n%sContent-Length: %d\r\n\r\n%s\r\n\r\n" % (
            version,
            extra,
            n,
            block,
        )

    rid, date = b"WARC-Record-ID: <urn:uuid:1>\r\n", b"WARC-Date: 2024-01-01T00:00:00Z\r\n"
    records = [
        rec(b"1.0", rid + date, b"plain one"),
        rec(b"1.1", rid + date, b"plain two" * 300),
        rec(b"1.0", rid + date, b"cut", cl=2) + b"x\r\n\r\n",
        rec(b"1.0", rid + b"X: a\nb\r\n" + date, b"bare LF"),
        rec(b"1.0", rid, b"no date"),
        rec(b"1.0", b"WARC-Record-ID:  \r\n" + date, b"blank id"),
        rec(b"1.0", rid + date, b""),
    ]
    return b"".join(member(r) for r in records)


@pytest.mark.parametrize("kernel_on", [True, False])
def test_the_writer_copies_the_same_bytes_on_each_path(kernel_on, tmp_path, monkeypatch):
    """WARC -> WARC through the writer: the fast verbatim path (kernel, or its pure
    reference) writes what the general checks write (the fast path switched off)."""
    from crawlmill.plugins.writers import warc_encode

    from tests.formats.test_member_vouch import convert

    monkeypatch.setattr(builder, "_KERNEL_PARTS", _kernel("verbatim_parts") if kernel_on else None)
    monkeypatch.setattr(
        warc_encode, "_KERNEL_COPY", _kernel("verbatim_copy") if kernel_on else None
    )
    monkeypatch.setenv("SOURCE_DATE_EPOCH", "1700000000")  # (the date given a record without one)
    data = _warc_input(tmp_path)
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()  # (the same input name: record ids made for it are the same)
    fast, entry, _ = convert(tmp_path / "a", data)
    calls = []
    monkeypatch.setattr(warc_encode, "_KERNEL_COPY", None)  # (the pure checks, asked below)
    monkeypatch.setattr(warc_encode, "verbatim_parts", lambda *a: calls.append(a))
    general, entry_general, _ = convert(tmp_path / "b", data)
    assert calls  # (the fast path was asked, and said "the general path decides")
    assert fast == general and entry["copied_members"] == entry_general["copied_members"] >= 2


# -- member_take: what HeldMembers lends, with the reader's word ---------------------------------


class _Run:
    """A run whose exactness is given (and whose asks are counted)."""

    def __init__(self, exact: bool) -> None:
        self.answer, self.asked = exact, 0

    def exact(self) -> bool:
        self.asked += 1
        return self.answer


def _held_cases():
    members = [_member(b"record %d" % i * 30) for i in range(3)]
    data = b"".join(members)
    base = 1000
    offs = [base + sum(map(len, members[:i])) for i in range(3)]
    verified = {
        offs[0]: len(members[0]),
        offs[1]: (len(members[1]), _Run(True)),
        offs[2]: (len(members[2]), _Run(False)),
    }
    for buf in (data, bytearray(data)):
        for ver in (verified, None, {offs[0]: len(members[0]) - 1}):
            yield (buf, base, base + len(data), ver), offs, [len(m) for m in members]
    yield (
        (data, base, base + len(data) + 5, verified),
        offs,
        [len(m) for m in members],
    )  # end past buf


def test_member_take_is_the_pure_take_at_every_span():
    kernel = _kernel("member_take")
    checked = vouched = 0
    for held, offs, lengths in _held_cases():
        base, end = held[1], held[2]
        points = sorted(
            {
                base - 1,
                base,
                end,
                end + 1,
                *offs,
                *(o + n for o, n in zip(offs, lengths, strict=True)),
            }
        )
        for offset in points:
            for length in (-1, 0, 1, *lengths, end - offset, end - offset + 1):
                for vouch in (False, True):
                    want = member_source._take_pure(held, offset, length, vouch)
                    got = kernel(held, offset, length, vouch)
                    assert got is None or got == want, (offset, length, vouch)
                    assert got == want or want is None  # (None: the pure one says the same)
                    checked += 1
                    vouched += got is not None and got[1] is not None
    assert checked > 500 and vouched  # some spans came with the reader's word


def test_member_take_examples():
    """Hand-checked: the word for a verified member, a run that proves exact, none for a run
    that does not or a length that differs, nothing for a span not held."""
    kernel = _kernel("member_take")
    m = _member(b"x" * 100)
    exact, inexact = _Run(True), _Run(False)
    held = (b"ab" + m + m, 10, 12 + 2 * len(m), {12: len(m), 12 + len(m): (len(m), exact)})
    word = plain_vouch(m)
    assert kernel(held, 12, len(m), True) == (m, word)
    assert kernel(held, 12 + len(m), len(m), True) == (m, word) and exact.asked == 1
    assert kernel(held, 12 + len(m), len(m), False) == (m, None) and exact.asked == 1
    assert kernel(held, 12, len(m) - 1, True) == (m[:-1], None)
    assert kernel(held, 10, 2, True) == (b"ab", None)
    held2 = (held[0], 10, held[2], {12: (len(m), inexact)})
    assert kernel(held2, 12, len(m), True) == (m, None) and inexact.asked == 1
    assert kernel(held, 9, 3, True) is None  # before the held bytes
    assert kernel(held, 12 + len(m), len(m) + 1, True) is None  # past them
    assert kernel(None, 12, 3, True) is None
    assert kernel(held, 12, 0, True) is None
    assert kernel(list(held), 12, 3, True) is None  # (not what HeldMembers holds)
    with pytest.raises(TypeError):
        kernel(held, 12, 3)


def test_member_take_raises_what_a_run_raises():
    kernel = _kernel("member_take")

    class Broken:
        def exact(self):
            raise RuntimeError("run")

    m = _member(b"abc")
    held = (m, 0, len(m), {0: (len(m), Broken())})
    with pytest.raises(RuntimeError):
        kernel(held, 0, len(m), True)
    with pytest.raises(RuntimeError):
        member_source._take_pure(held, 0, len(m), True)


def test_member_take_random_spans():
    kernel = _kernel("member_take")
    rng = random.Random(22)
    for _ in range(3000):
        buf = rng.choice((b"\x1f\x8b\x08\x00", b"")) + rng.randbytes(rng.randint(0, 40))
        base = rng.randint(0, 5)
        end = base + len(buf) + rng.randint(-3, 3)
        offset = rng.randint(base - 2, end + 2)
        length = rng.randint(-1, len(buf) + 2)
        verified = rng.choice(
            (None, {offset: length}, {offset: (length, _Run(rng.random() < 0.5))})
        )
        held = (buf, base, end, verified)
        vouch = rng.random() < 0.7
        want = member_source._take_pure(held, offset, length, vouch)
        got = kernel(held, offset, length, vouch)
        assert got == want or (got is None and want is None), (held, offset, length, vouch)


def _copy_with_scan(tmp_path, data: bytes, scan: str, monkeypatch) -> tuple[bytes, int, int]:
    """WARC -> WARC of ``data`` with the reader's member scan ``scan``: the output, the members
    copied, and how many of them the writer inflated again (no word from the reader)."""
    from tests.formats.test_member_vouch import convert

    with monkeypatch.context() as m:
        m.setattr(gp, "PARALLEL_TASK", 600)  # runs of a few members each
        if scan == "pure":
            m.setattr(gp, "_KERNEL_SCAN", None)
        elif scan == "second scan":  # each run's magics counted again (the reference)
            m.setattr(gp, "_member_scan", lambda buf, end=None: (gp._member_starts(buf, end), None))
        (tmp_path / scan).mkdir()
        out, entry, checked = convert(tmp_path / scan, data)
    return out, entry["copied_members"], checked


def test_the_readers_word_is_the_same_from_each_scan(tmp_path, monkeypatch):
    """A WARC -> WARC copy of members some of which hold a gzip magic that is no member start
    (stored: its run is not provably split at its real member starts): the reader's word (which members the writer copies without inflating them again) is the same
    from the kernel's scan, the pure scan, and the reference's second scan of each run
    (``run_is_exact``, what the reader did before)."""
    from tests.formats.test_member_vouch import member, record

    rejected = b"gz:" + MAGIC + b"\xe0" + b"\x00" * 6  # a magic no scan takes for a start
    payloads = [b"", b"", rejected, b"", b"", b"", b"", b""] * 3
    data = b"".join(member(record(i, p), level=0 if p else 6) for i, p in enumerate(payloads))
    want = _copy_with_scan(tmp_path, data, "second scan", monkeypatch)
    out, copied, checked = want
    assert out == data and copied == 24  # every member copied as the input holds it
    assert 0 < checked < copied  # some on the reader's word, some inflated again
    assert _copy_with_scan(tmp_path, data, "kernel", monkeypatch) == want
    assert _copy_with_scan(tmp_path, data, "pure", monkeypatch) == want


# -- verbatim_copy: a plain verbatim copy's checks at once (the writer's per-record path) -------


def _record(warc=EXTRAS, *, source="member", **fields):
    from crawlmill.core.record import OffsetSpace, Provenance, Record, RecordKind

    if source == "member":
        source = Provenance("/in.warc.gz", 100, 60, "warc", OffsetSpace.MEMBER)
    extras = {"warc": warc} if warc is not _DROP else {}
    base = dict(kind=RecordKind.RESPONSE, payload=b"hello", extras=extras, source=source)
    return Record(**(base | fields))


def _src(**changes):
    from crawlmill.core.record import OffsetSpace, Provenance

    fields = dict(path="/in.warc.gz", offset=100, length=60, format="warc")
    fields |= changes
    return Provenance(**fields, space=OffsetSpace.MEMBER)


MEMBER = _with(member=True)
COPY_CASES = {
    "a copy and its member": dict(warc=MEMBER),
    "a copy, no member flag": dict(warc=EXTRAS),
    "member flag 1": dict(warc=_with(member=1)),
    "head and payload": dict(warc=MEMBER, http_head=b"HT", payload=b"TP!"),
    "modified": dict(warc=MEMBER, modified=True),
    "changed": dict(warc=MEMBER, changed=frozenset({"url"})),
    "doc id": dict(warc=MEMBER, doc_id="d-1"),
    "text": dict(warc=MEMBER, text="t"),
    "empty text": dict(warc=MEMBER, text=""),
    "outlinks": dict(warc=MEMBER, outlinks=["x"]),
    "no warc extras": dict(warc=_DROP),
    "warc extras a list": dict(warc=list(MEMBER.items())),
    "version not framed": dict(warc=_with(member=True, version="1.1")),
    "no version": dict(warc=_with(member=True, version=_DROP)),
    "bytes version": dict(warc=_with(member=True, version=b"1.0")),
    "wrong length": dict(warc=MEMBER, payload=b"hello!"),
    "bytearray payload": dict(warc=MEMBER, payload=bytearray(b"hello")),
    "no source": dict(warc=MEMBER, source=None),
    "source of arc": dict(warc=MEMBER, source=_src(format="arc")),
    "source without format": dict(warc=MEMBER, source=_src(format=None)),
    "offset None": dict(warc=MEMBER, source=_src(offset=None)),
    "offset 0": dict(warc=MEMBER, source=_src(offset=0)),
    "length None": dict(warc=MEMBER, source=_src(length=None)),
    "length 0": dict(warc=MEMBER, source=_src(length=0)),
    "length negative": dict(warc=MEMBER, source=_src(length=-3)),
    # the record's 63 bytes: a member of at most 2 * 63 + 1024 bytes may hold it
    "length at the bound": dict(warc=MEMBER, source=_src(length=2 * 63 + 1024)),
    "length past the bound": dict(warc=MEMBER, source=_src(length=2 * 63 + 1025)),
    "length a bool": dict(warc=MEMBER, source=_src(length=True)),
    "length a float": dict(warc=MEMBER, source=_src(length=60.0)),
    "format a str subclass": dict(warc=MEMBER, source=_src(format=type("S", (str,), {})("warc"))),
}


@pytest.mark.parametrize("reuse", [True, False])
@pytest.mark.parametrize("name", list(COPY_CASES))
def test_verbatim_copy_is_the_pure_function(name, reuse):
    from crawlmill.plugins.writers import warc_encode

    kernel = _kernel("verbatim_copy")
    framings = {"1.0": F10}
    record = _record(**COPY_CASES[name])
    want = warc_encode.verbatim_copy_pure(record, framings, reuse)
    got = kernel(record, framings, reuse)
    assert got is NotImplemented or got == want
    assert warc_encode.verbatim_copy(record, framings, reuse) == want
    if got is not NotImplemented and got is not None:
        assert got[2] is want[2]  # the record's own source, or None


def test_verbatim_copy_examples():
    """Hand-checked: the parts, their length, the source when the member may be copied."""
    kernel = _kernel("verbatim_copy")
    record = _record(MEMBER, http_head=b"HT", payload=b"TP!")
    parts, size, src = kernel(record, {"1.0": F10}, True)
    assert parts == (RAW, b"HT", b"TP!", b"\r\n\r\n") and size == len(b"".join(parts))
    assert parts[2] is record.payload and src is record.source
    assert kernel(record, {"1.0": F10}, False)[2] is None  # (reuse off: no member)
    assert kernel(record, {"1.1": F10}, True) is None  # (a version not kept)
    assert kernel(_record(MEMBER, modified=True), {"1.0": F10}, True) is None
    assert kernel(record, [("1.0", F10)], True) is NotImplemented  # (framings not a dict)
    with pytest.raises(TypeError):
        kernel(record, {"1.0": F10})


def test_verbatim_copy_raises_what_an_attribute_raises():
    class Broken:
        modified = False

        @property
        def changed(self):
            raise KeyError("boom")

    with pytest.raises(KeyError, match="boom"):
        _kernel("verbatim_copy")(Broken(), {"1.0": F10}, True)
