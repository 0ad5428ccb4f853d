"""Issue 20 item 1: the reader vouches for the gzip members it verified, so a verbatim copy
skips the second inflate; a member it did not verify is checked as before.

RFC 1952, 2.3.1: "CRC32 (CRC-32) This contains a Cyclic Redundancy Check value of the
uncompressed data"; "ISIZE (Input SIZE) This contains the size of the original (uncompressed)
input data modulo 2^32"; "FLG (FLaGs) ... bit 2 FEXTRA, bit 3 FNAME, bit 4 COMMENT ... Reserved
FLG bits must be zero." The members below are built here, each with one thing wrong or unusual,
and the writer's output is compared with the output of the same run with the reader's word
ignored (the writer's own zlib check of every member, what it did before).
"""

from __future__ import annotations

import random
import struct
import zlib

import pytest
from crawlmill.core import InputFile, WriteContext, open_reader
from crawlmill.formats.codecs import member_writer
from crawlmill.formats.codecs.compression import HeldMembers, iter_pieces
from crawlmill.formats.codecs.member_vouch import holds, plain_vouch, run_is_exact
from crawlmill.formats.codecs.member_writer import MemberWriter, ReusedMember
from crawlmill.plugins.readers.warc import WarcReader
from crawlmill.plugins.writers.warc import WarcWriter


def record(i: int, payload: bytes = b"") -> bytes:
    block = payload or b"<html>page %d %s</html>" % (i, b"x" * (i % 7))
    return (
        b"WARC/1.1\r\nWARC-Type: resource\r\n"
        b"WARC-Record-ID: <urn:uuid:00000000-0000-4000-8000-%012d>\r\n"
        b"WARC-Date: 2020-01-01T00:00:00Z\r\nWARC-Target-URI: http://example.com/%d\r\n"
        b"Content-Type: text/html\r\nContent-Length: %d\r\n\r\n" % (i, i, len(block))
    ) + block + b"\r\n\r\n"  # fmt: skip


def member(data: bytes, flg: int = 0, fields: bytes = b"", level: int = 6) -> bytes:
    """One gzip member of ``data``: header with FLG ``flg`` and optional ``fields``, raw
    deflate, CRC32 and ISIZE trailer."""
    c = zlib.compressobj(level, zlib.DEFLATED, -15)
    body = c.compress(data) + c.flush()
    head = b"\x1f\x8b\x08" + bytes([flg]) + b"\0\0\0\0\0\x03"
    return head + fields + body + struct.pack("<II", zlib.crc32(data), len(data))


def with_trailer(m: bytes, crc_xor: int = 0, isize_add: int = 0) -> bytes:
    crc, isize = struct.unpack("<II", m[-8:])
    return m[:-8] + struct.pack("<II", crc ^ crc_xor, (isize + isize_add) & 0xFFFFFFFF)


def write(tmp_path, name: str, records, *, vouch: bool = True) -> tuple[bytes, dict, int]:
    """Convert ``records`` with the WARC writer (zlib: the same bytes on every run); the
    output bytes, the file's notes and how many members the writer inflated to check them."""
    out = tmp_path / name
    out.mkdir()
    ctx = WriteContext(
        InputFile(str(out / "in.warc.gz"), "in.warc.gz"), 1, lambda rel: (out / rel).open("wb"),
        lambda r, why: None,
    )  # fmt: skip
    writer = WarcWriter(WarcWriter.Options(gzip_backend="zlib"))
    writer.open(ctx)
    checked = 0
    original, lend = member_writer.inflates_to, HeldMembers.get_vouched

    def counted(m: bytes, data: bytes) -> bool:
        nonlocal checked
        checked += 1
        return original(m, data)

    def no_word(self: HeldMembers, offset: int, length: int):
        got = lend(self, offset, length)
        return None if got is None else (got[0], None)  # the same bytes, without a word

    member_writer.inflates_to = counted
    if not vouch:
        HeldMembers.get_vouched = no_word
    try:
        for rec in records:
            writer.write(rec)
        writer.close()
    finally:
        member_writer.inflates_to, HeldMembers.get_vouched = original, lend
    (entry,) = ctx.notes["files"]
    return (out / "in.warc.gz").read_bytes(), entry, checked


def convert(tmp_path, data: bytes, *, vouch: bool = True, name: str = "out"):
    src = tmp_path / f"{name}.warc.gz"
    src.write_bytes(data)
    with open_reader(src, WarcReader, on_damage=lambda d: None) as records:
        return write(tmp_path, name, records, vouch=vouch)


def test_the_reader_vouches_for_the_plain_members_it_inflated(tmp_path):
    members = [member(record(i)) for i in range(40)]
    data = b"".join(members)
    held = HeldMembers()
    offsets = [sum(map(len, members[:i])) for i in range(len(members))]
    seen = {}
    with (tmp_path / "in.gz").open("wb") as fh:
        fh.write(data)
    with (tmp_path / "in.gz").open("rb") as fh:
        for item in iter_pieces(fh, "gzip", batch=True, held=held):
            for _, _, offset, length in item.members or [(0, 0, item.offset, item.length)]:
                seen[offset] = held.get_vouched(offset, length)
    assert sorted(seen) == offsets
    for i, off in enumerate(offsets):
        copy, vouch = seen[off]
        assert copy == members[i]
        plain = record(i)
        assert vouch == (zlib.crc32(plain), len(plain))  # the trailer the decoder checked
        assert holds(vouch, plain) and not holds(vouch, plain[:-1] + b"!")
    # a span that is not one member the reader verified gets no word
    held.hold(data, 0, len(data), {0: len(members[0])})
    assert held.get_vouched(0, len(members[0]) + len(members[1]))[1] is None
    assert held.get_vouched(0, len(members[0]))[1] is not None


def test_a_clean_copy_inflates_no_member_again_and_is_the_input(tmp_path):
    data = b"".join(member(record(i)) for i in range(60))
    out, entry, checked = convert(tmp_path, data)
    assert out == data and entry["copied_members"] == 60
    assert checked == 0  # every member on the reader's word
    before, _, checked_before = convert(tmp_path, data, vouch=False, name="before")
    assert before == out and checked_before == 60


BAD = {
    # the deflate stream inflates, the trailer is wrong: the reader's decoder refuses it
    "bad CRC32": lambda d: with_trailer(member(d), crc_xor=1),
    "wrong ISIZE": lambda d: with_trailer(member(d), isize_add=1),
    "another record's trailer": lambda d: member(d)[:-8] + member(record(99))[-8:],
}
ODD = {
    # RFC 1952 members with optional fields: not vouched, copied after the writer's check
    "FEXTRA": lambda d: member(d, 4, b"\x06\x00sl\x02\x00ab"),
    "FNAME": lambda d: member(d, 8, b"page.html\0"),
    "FCOMMENT": lambda d: member(d, 16, b"a comment\0"),
    "FHCRC": lambda d: _with_hcrc(member(d, 2)),
    "FTEXT": lambda d: member(d, 1),
    # a reserved FLG bit: ISA-L inflates it, RFC 1952 rejects it: compressed anew
    "reserved FLG bit": lambda d: member(d, 0x20),
}


def _with_hcrc(m: bytes) -> bytes:
    """``m`` with the header CRC16 (FHCRC) after its 10-byte header."""
    return m[:10] + struct.pack("<H", zlib.crc32(m[:10]) & 0xFFFF) + m[10:]


@pytest.mark.parametrize("kind", [*BAD, *ODD])
def test_a_member_the_reader_did_not_verify_is_checked_as_before(tmp_path, kind):
    make = BAD.get(kind) or ODD[kind]
    odd = make(record(7))
    members = [member(record(i)) for i in range(7)]
    members += [odd] + [member(record(i)) for i in range(8, 12)]
    data = b"".join(members)
    src = tmp_path / "in.warc.gz"
    src.write_bytes(data)
    offset = sum(map(len, members[:7]))
    words = {}
    with open_reader(src, WarcReader, on_damage=lambda d: None) as records:
        for rec in records:
            s = rec.source
            if s.held is not None and s.length:
                got = s.held.get_vouched(s.offset, s.length)
                words[s.offset] = None if got is None else got[1]
    assert words.get(offset) is None  # the odd member: no word from the reader
    if kind in BAD:  # the members before it were inflated one by one: vouched for
        firsts = [sum(map(len, members[:i])) for i in range(7)]
        assert all(words[o] is not None for o in firsts)
    elif kind != "reserved FLG bit":
        assert offset in words  # read as a record, without a word
    out, entry, checked = convert(tmp_path, data, name="after")
    before, entry_before, _ = convert(tmp_path, data, vouch=False, name="before")
    assert out == before  # the output is what it was without the reader's word
    assert entry["copied_members"] == entry_before["copied_members"]
    if kind in ODD and kind != "reserved FLG bit":
        assert odd in out and checked >= 1  # copied, after the writer's own inflate
    if kind == "reserved FLG bit":
        assert odd not in out and entry["copied_members"] == 11


def test_a_false_member_start_inside_stored_bytes_is_not_vouched(tmp_path):
    # a page that is itself a multi-member gzip file starting with an empty member (trailer:
    # eight zero bytes), stored uncompressed: its magic looks like member starts
    inner = b"\0" * 8 + member(b"") + member(b"inner page")
    payload = b"gz:" + inner + bytes(random.Random(3).randbytes(64))
    outer = member(record(5, payload), level=0)
    data = member(record(4)) + outer + member(record(6))
    starts = [i for i in range(len(data)) if data.startswith(b"\x1f\x8b\x08", i)]
    assert len(starts) == 5  # three real members, two false starts inside the stored one
    bounds = list(zip(starts, [*starts[1:], len(data)], strict=True))
    sizes = [struct.unpack_from("<I", data, e - 4)[0] for _, e in bounds]
    total = 0
    rest = data
    while rest:  # what a multi-member decoder gives: every real member
        d = zlib.decompressobj(31)
        total += len(d.decompress(rest))
        rest = d.unused_data
    assert sum(sizes) == total and 0 in sizes  # the sizes add up: only the zero tells
    assert not run_is_exact(data, bounds, sizes)
    real = [0, len(member(record(4))), len(member(record(4))) + len(outer)]
    real_bounds = list(zip(real, [*real[1:], len(data)], strict=True))
    real_sizes = [struct.unpack_from("<I", data, e - 4)[0] for _, e in real_bounds]
    assert not run_is_exact(data, real_bounds, real_sizes)  # more magic than members
    out, entry, checked = convert(tmp_path, data)
    before, entry_before, _ = convert(tmp_path, data, vouch=False, name="before")
    assert out == before and entry["copied_members"] == entry_before["copied_members"] >= 2
    assert checked == entry["copied_members"]  # none on the reader's word: all inflated


def test_a_run_of_real_members_is_exact():
    members = [member(record(i)) for i in range(5)]
    data = b"".join(members)
    ends = [sum(map(len, members[: i + 1])) for i in range(5)]
    bounds = list(zip([0, *ends[:-1]], ends, strict=True))
    sizes = [len(record(i)) for i in range(5)]
    assert run_is_exact(data, bounds, sizes)
    assert not run_is_exact(data, bounds, [*sizes[:-1], 0])


def test_plain_vouch_reads_only_a_plain_header():
    m = member(b"abc")
    assert plain_vouch(m) == (zlib.crc32(b"abc"), 3)
    assert plain_vouch(member(b"abc", 8, b"n\0")) is None
    assert plain_vouch(member(b"abc", 0x20)) is None
    assert plain_vouch(m[:12]) is None


def test_the_writer_copies_a_vouched_member_only_for_the_bytes_it_vouches_for(monkeypatch):
    import io

    monkeypatch.setattr(
        member_writer, "inflates_to", lambda m, d: pytest.fail("inflated a vouched member")
    )
    data = record(1)
    m = member(data)
    sink = io.BytesIO()
    w = MemberWriter(sink, "gzip", backend="zlib")
    w.submit(ReusedMember(m, data, plain_vouch(m)))  # the record the member holds: copied
    other = data[:-5] + b"!\r\n\r\n"  # same length, other bytes: compressed anew
    w.submit(ReusedMember(m, other, plain_vouch(m)))
    w.close()
    assert w.reused == 1
    out = sink.getvalue()
    assert out.startswith(m) and out != m + m
    d = zlib.decompressobj(31)
    assert d.decompress(out) == data and zlib.decompress(d.unused_data, 31) == other
