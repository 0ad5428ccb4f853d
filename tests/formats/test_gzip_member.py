"""The RFC 1952 member check writers run before copying an input gzip member."""

from __future__ import annotations

import struct
import zlib

import pytest
from crawlmill.formats.codecs.compression import inflates_to, member_problem
from crawlmill.formats.codecs.gzip_member import header_length

DATA = b"WARC/1.0\r\nContent-Length: 5\r\n\r\nhello\r\n\r\n" * 20


def build(
    data: bytes = DATA,
    *,
    flg: int = 0,
    cm: int = 8,
    extra: bytes | None = None,
    xlen: int | None = None,
    name: bytes | None = None,
    comment: bytes | None = None,
    hcrc: bool = False,
    bad_hcrc: bool = False,
    crc_delta: int = 0,
    isize_delta: int = 0,
    tail: bytes = b"",
) -> bytes:
    """A gzip member assembled field by field (RFC 1952 section 2.3)."""
    flags = flg
    opt = b""
    if extra is not None:
        flags |= 4
        opt += struct.pack("<H", len(extra) if xlen is None else xlen) + extra
    if name is not None:
        flags |= 8
        opt += name
    if comment is not None:
        flags |= 16
        opt += comment
    if hcrc:
        flags |= 2
    head = bytes([0x1F, 0x8B, cm, flags]) + b"\0\0\0\0\0\xff" + opt
    if hcrc:
        head += struct.pack("<H", (zlib.crc32(head) & 0xFFFF) ^ (1 if bad_hcrc else 0))
    c = zlib.compressobj(6, zlib.DEFLATED, -15)
    body = c.compress(data) + c.flush()
    crc = (zlib.crc32(data) + crc_delta) & 0xFFFFFFFF
    trailer = struct.pack("<II", crc, (len(data) + isize_delta) & 0xFFFFFFFF)
    return head + body + trailer + tail


def zlib_accepts(member: bytes, data: bytes) -> bool:
    """What zlib (warcio's and FastWARC's inflater) makes of the member."""
    dec = zlib.decompressobj(31)
    try:
        out = dec.decompress(member)
    except zlib.error:
        return False
    return out == data and dec.eof and not dec.unused_data


def test_plain_and_fully_flagged_members_pass():
    plain = build()
    full = build(
        extra=b"AB\x03\x00xyzCD\x00\x00",
        name=b"in.warc\0",
        comment=b"a comment\0",
        hcrc=True,
        flg=1,  # FTEXT is a hint, not a reserved bit
    )
    for member in (plain, full):
        assert member_problem(member, DATA) is None
        assert member_problem(member) is None
        assert inflates_to(member, DATA)
        assert zlib_accepts(member, DATA)


@pytest.mark.parametrize("bit", [0x20, 0x40, 0x80])
def test_reserved_flag_bits_are_rejected(bit):
    member = build(flg=bit)
    assert "reserved FLG bits" in member_problem(member, DATA)
    assert not inflates_to(member, DATA)
    assert not zlib_accepts(member, DATA)  # the reason: zlib-based readers refuse it


@pytest.mark.parametrize(
    ("kwargs", "reason"),
    [
        ({"cm": 7}, "not deflate"),
        ({"extra": b"AB\x00\x00", "xlen": 900}, "runs past the member"),
        ({"hcrc": True, "bad_hcrc": True}, "header CRC16"),
        ({"crc_delta": 1}, "CRC32"),
        ({"isize_delta": 1}, "ISIZE"),
        ({"tail": b"\0"}, "follow the trailer"),
    ],
)
def test_inconsistent_members_are_rejected(kwargs, reason):
    member = build(**kwargs)
    assert reason in member_problem(member, DATA)
    assert not inflates_to(member, DATA)


def test_extra_field_subfields_are_not_checked():
    """wget's "sl" extra field has no subfield length; zlib accepts it, so does the check."""
    member = build(extra=b"sl\x8e\x01\x00\x00\xfb\x01\x00\x00")
    assert member_problem(member, DATA) is None and zlib_accepts(member, DATA)


def test_unterminated_name_and_short_members():
    head = bytes([0x1F, 0x8B, 8, 8]) + b"\0" * 6 + b"no terminator"
    assert "FNAME" in header_length(head)[1]
    member = build()
    assert "truncated" in member_problem(member[:-3], DATA)
    assert "truncated" in member_problem(member[:-12], DATA)
    assert "gzip header" in member_problem(member[:5], DATA)
    assert "magic" in member_problem(b"\x1f\x8c" + member[2:], DATA)


def test_other_data_and_larger_members_are_rejected_without_inflating_whole():
    member = build()
    assert "other bytes" in member_problem(member, DATA[:-1] + b"X")
    assert "more than the record" in member_problem(member, DATA[:10])
    bomb = build(b"\0" * (64 << 20))  # the check stops after len(data) + 1 bytes
    assert "more than the record" in member_problem(bomb, b"\0" * 100)
