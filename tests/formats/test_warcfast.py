"""The compiled kernel (formats/warc/_warcfast.c) gives exactly the pure path's results: the WARC
framer's fast path, the gzip member-start scan and the HTTP head split.

Every WARC sample and constructed boundary inputs are framed twice, with the kernel and with the
pure path alone, and the framed items (records, offsets, headers, fields, issues, damage) must be
identical; at the mechanism, the kernel's answer for a buffer is either ``None`` (the pure path
decides) or exactly what the pure fast path makes of it.
"""

from __future__ import annotations

import dataclasses
import gzip
import io
import os
import subprocess
import sys
from pathlib import Path

import pytest
from crawlmill.formats.codecs import gzip_parallel as gp
from crawlmill.formats.codecs.compression import iter_pieces
from crawlmill.formats.codecs.pieces import Piece
from crawlmill.formats.http import head as http
from crawlmill.formats.warc import framer as warc_mod
from crawlmill.formats.warc.framer import SCAN_START_BYTES, FramedRecord, WarcFramer, locate_start

from tests.conftest import SAMPLES, need
from tests.helpers import gz


def _kernel():
    """The kernel, imported directly (the module's binding is off under CRAWLMILL_PURE).
    Built by every install with a C compiler; without one crawlmill runs on the pure path,
    so on a user's machine these tests skip with a reason, and in CI (which has a compiler)
    they fail."""
    return need("crawlmill.formats.warc._warcfast").frame


def _item(item) -> tuple:
    if isinstance(item, FramedRecord):
        h = item.header
        return (
            "record",
            item.offset,
            item.raw_header,
            (h.version, h.line_ending, h.headers, h.fields, h.issues),
            item.block,
            item.separator,
            item.cl_includes_separator,
            item.member_offset,
            item.member_length,
            item.issues,
            item.truncated,
            item.length,
        )
    return ("damage", dataclasses.astuple(item))


class _Counting:
    def __init__(self, fn):
        self.fn, self.calls, self.hits = fn, 0, 0

    def __call__(self, *args):
        self.calls += 1
        got = self.fn(*args)
        self.hits += got is not None
        return got


def _both(make_items, monkeypatch, **kw) -> tuple[list, list, _Counting]:
    counting = _Counting(_kernel())
    monkeypatch.setattr(warc_mod, "_KERNEL", counting)
    fast = [_item(i) for i in WarcFramer(make_items(), **kw)]
    monkeypatch.setattr(warc_mod, "_KERNEL", None)
    pure = [_item(i) for i in WarcFramer(make_items(), **kw)]
    return fast, pure, counting


def _sample_files() -> list[Path]:
    names = (".warc", ".warc.gz", ".warc.zst", ".warc.lz4", ".warc.bz2")
    files = [
        p
        for p in SAMPLES.rglob("*")
        if p.is_file() and p.name.lower().endswith(names) and p.stat().st_size < (64 << 20)
    ]
    return sorted(files)


def test_kernel_is_built():
    """The build makes the kernel (setup.py); an install without a compiler runs the pure path."""
    assert callable(_kernel())


@pytest.mark.parametrize(
    "path", _sample_files(), ids=lambda p: str(p.relative_to(SAMPLES)).replace("/", "__")
)
def test_every_sample_frames_identically(path, monkeypatch):
    data = path.read_bytes()
    kind, _ = locate_start(data[:SCAN_START_BYTES])

    def items():
        return iter_pieces(io.BytesIO(data), kind)

    fast, pure, counting = _both(items, monkeypatch)
    assert fast == pure
    assert counting.calls > 0 or not fast


def test_samples_exercise_the_kernel(monkeypatch):
    """Not vacuous: the kernel frames most records of the real samples."""
    hits = records = 0
    for path in _sample_files():
        data = path.read_bytes()
        kind, _ = locate_start(data[:SCAN_START_BYTES])
        fast, _, counting = _both(lambda d=data, k=kind: iter_pieces(io.BytesIO(d), k), monkeypatch)
        hits += counting.hits
        records += sum(1 for i in fast if i[0] == "record")
    assert records > 1000
    assert hits > records // 2


# -- constructed inputs -----------------------------------------------------------------------


def head(*lines: bytes, version: bytes = b"WARC/1.0", nl: bytes = b"\r\n") -> bytes:
    return nl.join((version, *lines)) + nl + nl


def rec(body: bytes = b"hello", *lines: bytes, cl: bytes | None = None, **kw) -> bytes:
    cl_line = b"Content-Length: " + (b"%d" % len(body) if cl is None else cl)
    return head(b"WARC-Type: resource", *lines, cl_line, **kw) + body + b"\r\n\r\n"


NEXT = rec(b"next")

CASES = {
    "plain": rec(),
    # the kernel shares the bytes of usual names: other spellings and near misses are parsed
    "usual names in other cases": rec(
        b"x", b"warc-date: 1", b"WARC-DATE: 2", b"WARC-Date\t: 3", b"WARC-Dat: 4", b"WARC-Datex: 5"
    ),
    "a usual name twice": rec(b"x", b"WARC-Date: 1", b"WARC-Date: 2", b"Content-Type: a/b"),
    "empty block": rec(b""),
    "cl leading zeros": rec(b"abc", cl=b"0003"),
    "cl leading space": rec(b"abc", cl=b"   3"),
    "cl trailing tab": rec(b"abc", cl=b"3\t"),
    "cl plus": rec(b"abc", cl=b"+3"),
    "cl minus": rec(b"abc", cl=b"-3"),
    "cl empty": rec(b"abc", cl=b""),
    "cl huge": rec(b"abc", cl=b"9" * 40),
    "cl too long": rec(b"abc", cl=b"4"),
    "cl too short": rec(b"abc", cl=b"2"),
    "cl hex": rec(b"abc", cl=b"0x3"),
    "cl non-ascii digit": rec(b"abc", cl="\u0663".encode()),
    "cl twice, first wins": rec(b"abc", b"content-length: 99"),
    "empty value": rec(b"x", b"X-Empty:", b"Y:   "),
    "repeated names": rec(b"x", b"A: 1", b"a: 2", b"A: 3"),
    "tabs": rec(b"x", b"Na\tme\t:\tv\ta\t"),
    "non-ascii": rec(b"x", b"X-\xc3\xa9t\xe9: \xff\xfe v\x80"),
    "nul": rec(b"x", b"X-\x00: a\x00b"),
    "colon at start": rec(b"x", b": v"),
    "no colon": rec(b"x", b"just text"),
    "continuation": rec(b"x", b"A: 1", b"  more"),
    "tab continuation": rec(b"x", b"A: 1", b"\tmore"),
    "vt start": rec(b"x", b"\x0b: v", b"\x0cB\x0b: w\x0c"),
    "bare cr": rec(b"x", b"A: va\rlue", b"B: w\r"),
    "bare lf": rec(b"x", b"A: 1\nB: 2"),
    "version inside": rec(b"x", b"X-Note: WARC/1.0"),
    "version line inside": rec(b"x", b"X-Note: WARC/1.1\r\nWARC-Date: x"),
    "lower version inside": rec(b"x", b"X-Note: warc/0.18 here"),
    "warc word inside": rec(b"x", b"X-Note: WARC-ish"),
    "colon value": rec(b"x", b"WARC-Target-URI: http://a:80/b:c"),
    "version 1.1": rec(b"x", version=b"WARC/1.1"),
    "version 1.9": rec(b"x", version=b"WARC/1.9"),
    "version 0.18": rec(b"x", version=b"WARC/0.18"),
    "version 1.x": rec(b"x", version=b"WARC/1.x"),
    "version 10.0": rec(b"x", version=b"WARC/10.0"),
    "lower magic": rec(b"x", version=b"warc/1.0"),
    "lf only": rec(b"x", nl=b"\n"),
    "space after version": rec(b"x", version=b"WARC/1.0 "),
    "blank first line": head(b"", b"Content-Length: 1") + b"x\r\n\r\n",
    "separator short": head(b"Content-Length: 1") + b"x\r\n",
    "separator long": head(b"Content-Length: 1") + b"x\r\n\r\n\r\n",
    "garbage after": head(b"Content-Length: 1") + b"x\r\n\r\nGARBAGE",
    "http block": rec(
        b"HTTP/1.1 200 OK\r\nContent-Type: text/html\r\n\r\n<p>",
        b"Content-Type: application/http; msgtype=response",
    ),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_constructed_inputs_frame_identically(name, monkeypatch):
    data = CASES[name] + NEXT
    for kind, payload in ((None, data), ("gzip", gz(CASES[name]) + gz(NEXT))):
        fast, pure, _ = _both(lambda p=payload, k=kind: iter_pieces(io.BytesIO(p), k), monkeypatch)
        assert fast == pure, kind


@pytest.mark.parametrize("name", sorted(CASES))
def test_kernel_answer_is_none_or_the_pure_fast_path(name):
    """At the mechanism: for a buffer holding the input, the kernel answers ``None`` or exactly
    the pieces the pure fast path builds its record from."""
    kernel = _kernel()
    data = b"junk" + CASES[name] + NEXT
    got = kernel(data, 4, 1 << 20, 256 << 20)
    framer = WarcFramer(iter([Piece(data, None)]))
    framer.s.more()
    framer.s.pos = 4
    pure = framer._fast_pure()
    if got is None:
        return
    raw_header, hend, e, version, headers, fields, at_end = got
    assert pure is not None
    assert not at_end
    assert (raw_header, hend, e, framer.s.pos) == (
        pure.raw_header,
        pure.block_start,
        pure.block_end,
        e + 4,
    )
    assert (version, headers, fields) == (
        pure.header.version,
        pure.header.headers,
        pure.header.fields,
    )


def test_kernel_takes_the_plain_records():
    """Not vacuous: the usual records go through the kernel."""
    kernel = _kernel()
    for name in (
        "plain",
        "cl leading zeros",
        "cl leading space",
        "empty value",
        "repeated names",
        "tabs",
        "non-ascii",
        "bare cr",
        "colon value",
        "version 1.1",
    ):
        data = CASES[name] + NEXT
        assert kernel(data, 0, 1 << 20, 256 << 20) is not None, name
    got = kernel(CASES["repeated names"] + NEXT, 0, 1 << 20, 256 << 20)
    assert got[5][b"a"] == b"1" and [v for n, v in got[4] if n.lower() == b"a"] == [
        b"1",
        b"2",
        b"3",
    ]


#: every control byte but the line ends and the tab (formats/warc/scan.py's CONTROL_BYTE).
CONTROL_BYTES = [*range(0, 9), 11, 12, *range(14, 32), 127]


def test_kernel_refuses_a_header_with_a_control_byte(monkeypatch):
    """A NUL or other control byte in a name or a value: the kernel answers ``None`` (the
    pure path reports the header as damage), for every such byte; and both paths give the
    same damage then the next record."""
    kernel = _kernel()
    for byte in CONTROL_BYTES:
        b = bytes([byte])
        for data in (rec(b"x", b"X-Note: a" + b + b"b"), rec(b"x", b"X" + b + b"Y: v")):
            assert kernel(data + NEXT, 0, 1 << 20, 256 << 20) is None, byte
            fast, pure, _ = _both(lambda d=data: iter([Piece(d + NEXT, None)]), monkeypatch)
            assert fast == pure
            assert [i[0] for i in fast] == ["damage", "record"], byte
            offset, length, *_, code = fast[0][1]
            assert (offset, length, code) == (0, len(data), "control-byte-in-header")
            assert fast[1][4] == b"next"


@pytest.mark.parametrize("delta", [-1, 0, 1])
def test_header_at_max_header_bytes(delta, monkeypatch):
    data = CASES["plain"] + NEXT
    hlen = data.index(b"\r\n\r\n") + 4
    limit = hlen + delta
    fast, pure, counting = _both(
        lambda: iter_pieces(io.BytesIO(data), None), monkeypatch, max_header_bytes=limit
    )
    assert fast == pure
    assert (counting.hits > 0) == (delta >= 0)
    assert (_kernel()(data, 0, limit, 1 << 20) is None) == (delta < 0)


@pytest.mark.parametrize("delta", [-1, 0])
def test_cl_at_max_record_bytes(delta, monkeypatch):
    data = rec(b"abcdef") + NEXT
    fast, pure, _ = _both(
        lambda: iter_pieces(io.BytesIO(data), None), monkeypatch, max_record_bytes=6 + delta
    )
    assert fast == pure


def test_truncated_at_every_byte(monkeypatch):
    """A small record cut at every byte position, alone and followed by nothing."""
    data = rec(b"hello", b"WARC-Date: 2024-01-01T00:00:00Z") + NEXT
    kernel = _kernel()
    for cut in range(len(data) + 1):
        part = data[:cut]
        fast, pure, _ = _both(lambda p=part: iter_pieces(io.BytesIO(p), None), monkeypatch)
        assert fast == pure, cut
        kernel(part, 0, 1 << 20, 1 << 20)  # never reads past the buffer (valgrind: see README)
        for pos in range(cut + 1):
            kernel(part, pos, 1 << 20, 1 << 20)


def test_split_into_two_pieces_at_every_byte(monkeypatch):
    data = rec(b"hello") + rec(b"world")

    def items(cut):
        return iter([Piece(data[:cut], None), Piece(data[cut:], None)])

    for cut in range(len(data) + 1):
        fast, pure, _ = _both(lambda c=cut: items(c), monkeypatch)
        assert fast == pure, cut


def test_bad_arguments_fall_back():
    kernel = _kernel()
    data = CASES["plain"]
    assert kernel(bytearray(data), 0, 1 << 20, 1 << 20) is None
    assert kernel(data, -1, 1 << 20, 1 << 20) is None
    assert kernel(data, len(data) + 5, 1 << 20, 1 << 20) is None
    assert kernel(data, 0, -1, 1 << 20) is None
    assert kernel(data, 1 << 70, 1 << 20, 1 << 20) is None
    with pytest.raises(TypeError):
        kernel(data, 0)


def _http_records() -> list[bytes]:
    """Response records whose HTTP heads take every shape the head split knows, some with a
    gzip file as payload (false member starts for the scan of a .warc.gz)."""
    heads = [
        b"HTTP/1.1 200 OK\r\nContent-Type: text/html; charset=UTF-8\r\n\r\n",
        b"HTTP/1.1 200 OK\nContent-Type: text/plain\n\n",
        b"HTTP/1.1 200 OK\r\nServer: x\n\r\n",
        b"HTTP/1.1 200 OK\r\nCONTENT-TYPE \t: application/gzip\r\n\r\n",
        b"HTTP/1.1 200 OK\r\nContent-Typex: a/a\r\ncontent-type: b/b\r\n\r\n",
        b"HTTP/1.1 304 Not Modified\r\nContent-Type: x/y",  # no blank line
    ]
    out = []
    for i, head in enumerate(heads * 3):
        body = head + (gz(b"inner %d " % i * 300) if i % 2 else b"<p>%d</p>" % i)
        out.append(
            rec(
                body,
                b"WARC-Date: 2024-01-01T00:00:00Z",
                b"WARC-Target-URI: http://example.com/%d" % i,
                b"Content-Type: application/http; msgtype=response",
            ).replace(b"WARC-Type: resource", b"WARC-Type: response")
        )
    return out


@pytest.mark.parametrize("container", ["plain", "gzip"])
def test_pure_switch_through_the_cli(container, tmp_path):
    """``CRAWLMILL_PURE=1`` turns the kernel off (all three functions); a conversion gives the
    same bytes either way (a .warc.gz: the member-start scan and the HTTP head split too)."""
    date = b"WARC-Date: 2024-01-01T00:00:00Z"
    lines = [(), (b"A: 1", b"a: 2"), (b"Na\tme\t:\tv\ta\t",), (b"X-\xc3\xa9t\xe9: \xff v\x80",)]
    records = [rec(b"body%d" % i, date, *extra) for i, extra in enumerate(lines)]
    if container == "plain":
        src = tmp_path / "in.warc"
        src.write_bytes(b"".join(records))
    else:
        src = tmp_path / "in.warc.gz"
        src.write_bytes(b"".join(gz(r) for r in records + _http_records()))
    outs = []
    for pure in ("0", "1"):
        out = tmp_path / f"out{pure}"
        env = {**os.environ, "CRAWLMILL_PURE": pure}
        code = (
            "import sys; from crawlmill.formats.codecs import gzip_parallel; from crawlmill.formats.http import head as http; from crawlmill.formats.warc import framer as warc; "
            "print(warc._KERNEL is None, gzip_parallel._KERNEL_STARTS is None, "
            "http._KERNEL is None); "
            "from crawlmill.core.commands.cli import main; sys.exit(main(sys.argv[1:]))"
        )
        run = subprocess.run(
            [sys.executable, "-c", code, "convert", str(src), "--to", "warc", "-o", str(out)],
            env=env,
            capture_output=True,
            text=True,
        )
        assert run.returncode == 0, run.stderr
        assert run.stdout.splitlines()[0] == " ".join([str(pure == "1")] * 3)
        files = sorted(p for p in out.rglob("*") if p.is_file() and ".warc" in p.name)
        assert files
        outs.append([gzip.decompress(p.read_bytes()) for p in files])
    assert outs[0] == outs[1]


@pytest.mark.parametrize("pure", ["0", "1"])
@pytest.mark.parametrize("version", [b"WARC/1.0 ", b"WARC/1.\xff", b"WARC/1.x", b"WARC/x"])
def test_damaged_version_line_is_damage_not_a_crash(version, pure, tmp_path, monkeypatch):
    """A version line the fast path cannot parse ("WARC/1.0 ", a damaged digit) was a crash of
    the whole file (ValueError / UnicodeDecodeError in the fast path); it is damage, reported,
    and the next record is delivered."""
    from crawlmill.core.commands.cli import main

    monkeypatch.setattr(warc_mod, "_KERNEL", _kernel() if pure == "0" else None)
    src = tmp_path / "in.warc"
    src.write_bytes(rec(b"bad", version=version) + rec(b"good-record-body"))
    out = tmp_path / "out"
    assert main(["convert", str(src), "--to", "warc", "-o", str(out)]) == 3
    written = b"".join(gzip.decompress(p.read_bytes()) for p in out.rglob("*.warc.gz"))
    assert b"good-record-body" in written and b"\r\n\r\nbad\r\n" not in written


# -- the gzip member-start scan (member_starts) -------------------------------------------------


def _starts_kernel():
    return need("crawlmill.formats.warc._warcfast").member_starts


MAGIC = b"\x1f\x8b\x08"
#: a member header as zlib writes it: magic, FLG 0, MTIME, XFL, OS 3 (unix)
GOOD_HEADER = MAGIC + b"\x00" + b"\x00\x00\x00\x00" + b"\x00" + b"\x03"

STARTS_CASES = {
    "empty": b"",
    "one member": gz(b"hello"),
    "three members": gz(b"a") + gz(b"bb") + gz(b"ccc"),
    # a false magic inside a member's bytes: reserved FLG bits, or an OS byte zlib never writes
    "reserved flag": b"xx" + MAGIC + b"\x20" + b"\x00" * 5 + b"\x03" + b"yy",
    "os 20": b"xx" + MAGIC + b"\x00" * 6 + b"\x14" + b"yy",
    "os 19": b"xx" + MAGIC + b"\x00" * 6 + b"\x13" + b"yy",
    "os 255": b"xx" + MAGIC + b"\x00" * 6 + b"\xff" + b"yy",
    "os 254": b"xx" + MAGIC + b"\x00" * 6 + b"\xfe" + b"yy",
    "magic at the end": b"abc" + MAGIC,
    "header cut by the end": b"abc" + GOOD_HEADER[:7],
    "header ends at the end": b"abc" + GOOD_HEADER,
    "magic minus one byte at the end": b"abc\x1f\x8b",
    "lone 1f bytes": b"\x1f" * 20 + GOOD_HEADER + b"\x1f\x8b" + b"\x1f",
    "adjacent magics": MAGIC * 5 + GOOD_HEADER,
    "1f 1f 8b 08": b"\x1f" + GOOD_HEADER + b"\x1f\x1f\x8b\x08",
    "magic with deflate method 7": b"\x1f\x8b\x07" + b"\x00" * 7,
    # a gzip file stored inside a record's payload: its magic is a false member start
    "gzip inside a payload": gz(b"WARC/1.0\r\n\r\n" + gz(b"inner" * 50) + b"\r\n\r\n"),
}


@pytest.mark.parametrize("name", list(STARTS_CASES))
def test_member_starts_kernel_is_the_pure_scan(name):
    """At every ``end`` (a cut inside a magic, a header cut by ``end``, the buffer's end), as
    bytes and as bytearray (the reader's chunks), the kernel gives the pure list."""
    kernel = _starts_kernel()
    data = STARTS_CASES[name]
    for end in (None, *range(len(data) + 1)):
        want = gp._member_starts_pure(data, end)
        assert kernel(data, end) == want, end
        assert kernel(bytearray(data), end) == want, end
        assert kernel(memoryview(data), end) == want, end


def test_member_starts_boundaries():
    """Hand-checked answers, so the pure reference is held to the rule too."""
    kernel = _starts_kernel()
    assert kernel(b"abc" + MAGIC, None) == [3]  # no room for the rest: a candidate
    assert kernel(b"abc" + MAGIC, 5) == []  # the magic split across end
    assert kernel(b"abc" + GOOD_HEADER, None) == [3]
    assert kernel(b"xx" + MAGIC + b"\x20" + b"\x00" * 5 + b"\x03", None) == []
    assert kernel(b"xx" + MAGIC + b"\x00" * 6 + b"\x14", None) == []
    assert kernel(MAGIC + b"\xe0" + GOOD_HEADER, None) == [4]  # reserved bits: not a header
    assert kernel(MAGIC * 2 + GOOD_HEADER, None) == [0, 3, 6]  # (FLG 1f, OS 00: headers)
    members = gz(b"a") + gz(b"bb") + gz(b"ccc")
    assert kernel(members, None) == [0, len(gz(b"a")), len(gz(b"a")) + len(gz(b"bb"))]


def test_member_starts_random_buffers():
    """Seeded random buffers over the bytes that matter, at every end."""
    import random

    kernel = _starts_kernel()
    rng = random.Random(7)
    alphabet = [0x1F, 0x8B, 0x08, 0x00, 0x03, 0x13, 0x14, 0x20, 0xE0, 0xFF]
    for _ in range(3000):
        data = bytes(rng.choice(alphabet) for _ in range(rng.randint(0, 48)))
        for end in (None, *range(len(data) + 1)):
            assert kernel(data, end) == gp._member_starts_pure(data, end), (data, end)


def test_member_starts_on_every_gzip_sample():
    kernel = _starts_kernel()
    files = [p for p in _sample_files() if p.name.lower().endswith(".gz")]
    assert files
    for path in files:
        data = path.read_bytes()
        assert kernel(data, None) == gp._member_starts_pure(data, None), path
        assert kernel(data, len(data) // 3) == gp._member_starts_pure(data, len(data) // 3)


def test_member_starts_bad_arguments():
    """An ``end`` outside the buffer or a non-buffer: ``None``, and the pure scan decides."""
    kernel = _starts_kernel()
    assert kernel(b"abc", 4) is None
    assert kernel(b"abc", -1) is None
    assert kernel(b"abc", 1 << 70) is None
    assert kernel("text", None) is None
    with pytest.raises(TypeError):
        kernel(b"abc")


def test_member_starts_used_by_the_reader(monkeypatch):
    """The chunked reader (inline inflate, member batches) scans with the kernel and reads the
    same pieces without it; a payload holding a gzip file (false member starts) included."""
    kernel = need("crawlmill.formats.warc._warcfast").member_scan
    payload = gz(b"inner gzip file " * 400)
    body = b"".join(
        rec(payload + b"%d" % i, b"WARC-Date: 2024-01-01T00:00:00Z") for i in range(300)
    )
    data = b"".join(gz(r) for r in [body[i : i + 5000] for i in range(0, len(body), 5000)])
    calls = []

    def counting(buf, end):
        calls.append(end)
        return kernel(buf, end)

    def pieces():
        out = iter_pieces(io.BytesIO(data), "gzip", threads=0, batch=True)
        return [(p.data, p.offset, p.length, p.members) for p in out]

    monkeypatch.setattr(gp, "_KERNEL_SCAN", counting)
    with_kernel = pieces()
    monkeypatch.setattr(gp, "_KERNEL_SCAN", None)
    assert pieces() == with_kernel
    assert calls
    assert b"".join(p[0] for p in with_kernel) == body


# -- the HTTP head split (http_head) ------------------------------------------------------------


def _http_kernel():
    return need("crawlmill.formats.warc._warcfast").http_head


def _head_pure(block: bytes, start: int, end: int):
    cut = http.head_end(block, start, end)
    return cut, http.content_type(block[start : cut if cut >= 0 else end])


def _head_fast(block: bytes, start: int, end: int):
    cut, value = _http_kernel()(block, start, end)
    return cut, (None, None) if value is None else http.media_type(value)


HEAD_CASES = {
    "crlf": b"HTTP/1.1 200 OK\r\nContent-Type: text/html; charset=UTF-8\r\n\r\n<html>",
    "lf": b"HTTP/1.1 200 OK\nContent-Type: text/plain\n\nbody",
    "mixed": b"HTTP/1.1 200 OK\r\nContent-Type: a/b\n\r\nbody\r\n\r\n",
    "cr runs": b"HTTP/1.1 200 OK\nContent-Type: a/b\n\r\r\nbody",
    "no blank line": b"HTTP/1.1 200 OK\r\nContent-Type: a/b\r\nServer: x",
    "no content-type": b"HTTP/1.1 200 OK\r\nServer: x\r\n\r\nContent-Type: not/this",
    "name without colon first": b"HTTP/1.1 200\r\nContent-Typex: a/a\r\ncontent-type: b/b\r\n\r\n",
    "spaces and tabs": b"HTTP/1.1 200\r\nCONTENT-TYPE \t: \t text/HTML ;Charset='x'\r\n\r\n",
    "empty value": b"HTTP/1.1 200\r\nContent-Type:\r\n\r\n",
    "value cut by a CR": b"HTTP/1.1 200\r\nContent-Type: a/b\rc/d\r\n\r\n",
    "content-type on the first line": b"Content-Type: a/b\r\n\r\n",
    "content-type in the body only": b"HTTP/1.1 200\r\n\r\n\nContent-Type: a/b\r\n",
    "name at the head's end": b"HTTP/1.1 200\r\nX: y\n\ncontent-type",
    "empty": b"",
    "8-bit bytes": b"HTTP/1.1 200 \xff\r\nContent-Type: t\xe9xt/\xc3\xa9\r\n\r\n\x00",
}


@pytest.mark.parametrize("name", list(HEAD_CASES))
def test_http_head_kernel_is_the_pure_split(name):
    """Every range of the constructed blocks: where the head ends and its Content-Type, as
    head_end() and content_type() find them."""
    block = HEAD_CASES[name]
    for start in range(len(block) + 1):
        for end in range(start, len(block) + 1):
            assert _head_fast(block, start, end) == _head_pure(block, start, end), (start, end)


def test_http_head_random_blocks():
    import random

    rng = random.Random(11)
    parts = [b"\r", b"\n", b"\r\n", b"content-type", b"Content-Type", b":", b" ", b"\t", b"a/b",
             b"; charset=X", b"x", b"HTTP/1.1 200 OK"]  # fmt: skip
    for _ in range(20000):
        block = b"".join(rng.choice(parts) for _ in range(rng.randint(0, 14)))
        start = rng.randint(0, len(block))
        end = rng.randint(start, len(block))
        assert _head_fast(block, start, end) == _head_pure(block, start, end), (block, start, end)


def test_http_head_bad_arguments():
    kernel = _http_kernel()
    block = HEAD_CASES["crlf"]
    assert kernel(bytearray(block), 0, len(block)) is None
    assert kernel(block, -1, 5) is None
    assert kernel(block, 5, 4) is None
    assert kernel(block, 0, len(block) + 1) is None
    assert kernel(block, 0, 1 << 70) is None
    with pytest.raises(TypeError):
        kernel(block, 0)
    assert http.head_and_content_type(block, 0, len(block)) == _head_pure(block, 0, len(block))


def test_http_head_kernel_maps_every_sample_alike(monkeypatch):
    """The WARC reader's records (heads, payloads, content types) are the same with and
    without the compiled head split, on every WARC sample."""
    from crawlmill.plugins.readers.warc import warc_to_record

    kernel = _http_kernel()
    calls = []

    def counting(*args):
        calls.append(args[1:])
        return kernel(*args)

    for path in _sample_files():
        data = path.read_bytes()
        kind, _ = locate_start(data[:SCAN_START_BYTES])
        mapped = []
        for k in (counting, None):  # framed anew: the mapping appends to a record's issues
            monkeypatch.setattr(http, "_KERNEL", k)
            items = WarcFramer(iter_pieces(io.BytesIO(data), kind))
            mapped.append(
                [
                    warc_to_record(i, str(path), True, kind is not None)
                    for i in items
                    if isinstance(i, FramedRecord)
                ]
            )
        assert mapped[0] == mapped[1], path
    assert len(calls) > 500
