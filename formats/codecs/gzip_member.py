"""The RFC 1952 check of one gzip member: what a writer runs before copying an input member.

A writer may copy an unchanged record's gzip member from its input instead of compressing the
record anew, but only a member that every compliant decompressor accepts: RFC 1952 says a
compliant decompressor "must give an error indication if any reserved bit is non-zero", and
zlib (behind warcio, FastWARC and most tools) does, while isal and Python's :mod:`gzip` do not.
:func:`member_problem` checks the whole member against the RFC (header fields, optional fields,
header CRC, a deflate stream that stdlib zlib inflates, CRC32 and ISIZE, nothing after the
trailer); a member it rejects is never copied, the record is compressed from its bytes.
"""

from __future__ import annotations

import struct
import zlib

__all__ = ["flag_problem", "inflates_to", "member_problem"]

FTEXT, FHCRC, FEXTRA, FNAME, FCOMMENT = 1, 2, 4, 8, 16
#: FLG bits 5-7, reserved: a compliant decompressor must reject a member that sets one.
FLG_RESERVED = 0xE0
_HEADER = struct.Struct("<BBBBIBB")  # ID1 ID2 CM FLG MTIME XFL OS
_TRAILER = struct.Struct("<II")  # CRC32 ISIZE


def flag_problem(flg: int) -> str | None:
    """Why a gzip header's FLG byte ``flg`` is not one RFC 1952 allows (a reserved bit set),
    or ``None``. isal and Python's :mod:`gzip` inflate such a member; zlib rejects it."""
    if flg & FLG_RESERVED:
        return f"reserved FLG bits set (FLG=0x{flg:02x}; RFC 1952 requires them zero)"
    return None


def header_length(member: bytes | bytearray) -> tuple[int, str | None]:
    """Length of the gzip header at the start of ``member`` and ``None``, or ``(0, reason)``
    when the header is not one RFC 1952 allows (or does not fit in ``member``)."""
    if len(member) < _HEADER.size:
        return 0, "shorter than a gzip header"
    id1, id2, cm, flg, _mtime, _xfl, _os = _HEADER.unpack_from(member)
    if (id1, id2) != (0x1F, 0x8B):
        return 0, "no gzip magic (1f 8b)"
    if cm != 8:
        return 0, f"compression method {cm} is not deflate (8)"
    if (problem := flag_problem(flg)) is not None:
        return 0, problem
    pos = _HEADER.size
    if flg & FEXTRA:
        if len(member) < pos + 2:
            return 0, "FEXTRA set but XLEN missing"
        (xlen,) = struct.unpack_from("<H", member, pos)
        pos += 2
        end = pos + xlen
        if len(member) < end:
            return 0, f"FEXTRA field of {xlen} bytes runs past the member"
        # the subfield structure inside XLEN is not checked: wget writes an "sl" field whose
        # LEN is not a subfield length, and zlib (like every reader) ignores subfields
        pos = end
    for bit, name in ((FNAME, "FNAME"), (FCOMMENT, "FCOMMENT")):
        if flg & bit:
            nul = member.find(b"\0", pos)
            if nul < 0:
                return 0, f"{name} field without its terminating zero byte"
            pos = nul + 1
    if flg & FHCRC:
        if len(member) < pos + 2:
            return 0, "FHCRC set but the header CRC16 is missing"
        (crc16,) = struct.unpack_from("<H", member, pos)
        if crc16 != zlib.crc32(member[:pos]) & 0xFFFF:
            return 0, "header CRC16 (FHCRC) does not match the header"
        pos += 2
    return pos, None


def member_problem(member: bytes, data: bytes | None = None) -> str | None:
    """Why ``member`` is not exactly one RFC 1952 gzip member (decompressing to ``data`` when
    given), or ``None`` when it is one. Checks the header (:func:`header_length`), that stdlib
    zlib inflates the deflate stream to its end, the trailer's CRC32 and ISIZE, and that no
    byte follows the trailer. At most ``len(data) + 1`` bytes are inflated when ``data`` is
    given, so a member that inflates to more is rejected without inflating it whole."""
    hlen, problem = header_length(member)
    if problem is not None:
        return problem
    dec = zlib.decompressobj(-zlib.MAX_WBITS)
    body = memoryview(member)[hlen:]
    try:
        out = dec.decompress(body, len(data) + 1) if data is not None else dec.decompress(body)
    except zlib.error as exc:
        return f"deflate stream does not inflate ({exc})"
    if not dec.eof:
        if data is not None and len(out) > len(data):
            return "inflates to more than the record"
        return "deflate stream is truncated"
    if data is not None and out != data:
        return "inflates to other bytes than the record"
    tail = dec.unused_data
    if len(tail) < _TRAILER.size:
        return "trailer (CRC32, ISIZE) is truncated"
    if len(tail) > _TRAILER.size:
        return f"{len(tail) - _TRAILER.size} bytes follow the trailer"
    crc, isize = _TRAILER.unpack(tail)
    if crc != zlib.crc32(out):
        return "CRC32 in the trailer does not match the data"
    if isize != len(out) & 0xFFFFFFFF:
        return "ISIZE in the trailer does not match the data length"
    return None


def inflates_to(member: bytes, data: bytes) -> bool:
    """Whether ``member`` is exactly one RFC 1952 gzip member that decompresses to ``data``
    (what a writer checks before copying an input member instead of compressing ``data``)."""
    return member_problem(member, data) is None
