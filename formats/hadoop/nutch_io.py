"""The primitives Nutch's Writables are built of (spec sections 1.3, 6.3, 6.5, 6.8): a
cursor that reads big-endian fields and names the field a short read cut, the matching
writer, the four string encodings (``Text``, ``UTF8``, ``WritableUtils.writeString`` and the
gzip ``writeCompressedString``), ``Metadata`` (1.x and 0.8), ``ParseStatus`` and
``ProtocolStatus``.

Strings are ``str`` in Python: ``Text`` bytes decoded as UTF-8 with surrogate escapes (so
invalid bytes write back as they were), ``UTF8`` as Java's modified UTF-8. Every decoder
raises :class:`~crawlmill.formats.hadoop.writables.WritableError` naming the class and field
a value is cut in or wrong at.
"""

from __future__ import annotations

import struct
import zlib
from dataclasses import dataclass, field

from .vint import VIntError, decode_vint, encode_vlong
from .writables import WritableError, decode_modified_utf8, encode_modified_utf8

__all__ = [
    "MAX_INFLATE",
    "Cursor",
    "Metadata",
    "Out",
    "ParseStatus",
    "ProtocolStatus",
    "gzip_java",
    "read_metadata",
    "read_parse_status",
    "read_protocol_status",
    "write_metadata",
    "write_parse_status",
    "write_protocol_status",
]

Buf = bytes | bytearray | memoryview

#: the most one compressed field of a Nutch value may inflate to.
MAX_INFLATE = 256 * 1024 * 1024

_GZIP_HEADER = b"\x1f\x8b\x08\x00\x00\x00\x00\x00\x00\x00"  # java.util.zip.GZIPOutputStream's


def gzip_java(data: bytes) -> bytes:
    """``data`` gzipped as ``java.util.zip.GZIPOutputStream`` does (no name, mtime 0, OS 0,
    default level)."""
    comp = zlib.compressobj(6, zlib.DEFLATED, -15)
    body = comp.compress(data) + comp.flush()
    return _GZIP_HEADER + body + struct.pack("<II", zlib.crc32(data), len(data) & 0xFFFFFFFF)


def _inflate(data: bytes, wbits: int, what: str) -> bytes:
    d = zlib.decompressobj(wbits)
    try:
        out = d.decompress(data, MAX_INFLATE)
    except zlib.error as exc:
        kind = "gzip" if wbits > 15 else "zlib"
        raise WritableError(f"{what}: not a {kind} stream: {exc}") from None
    if d.unconsumed_tail:
        raise WritableError(f"{what}: inflates to more than {MAX_INFLATE} bytes")
    if not d.eof:
        raise WritableError(f"{what}: compressed stream cut short")
    if d.unused_data:
        raise WritableError(f"{what}: {len(d.unused_data)} bytes after the compressed stream")
    return out


class Cursor:
    """Reads the fields of one value of class ``cls`` from ``buf`` at ``pos``; a short read
    raises :class:`WritableError` naming ``cls`` and the field."""

    __slots__ = ("buf", "pos", "cls")

    def __init__(self, buf: Buf, pos: int, cls: str) -> None:
        self.buf, self.pos, self.cls = buf, pos, cls

    def fail(self, what: str, reason: str) -> WritableError:
        """An error about field ``what``."""
        return WritableError(f"{self.cls} {what}: {reason} (at byte {self.pos})")

    def take(self, n: int, what: str) -> bytes:
        """The next ``n`` bytes (field ``what``)."""
        if n < 0:
            raise self.fail(what, f"negative length {n}")
        end = self.pos + n
        if end > len(self.buf):
            raise self.fail(what, f"needs {n} bytes, {len(self.buf) - self.pos} left")
        out = bytes(self.buf[self.pos : end])
        self.pos = end
        return out

    def _unpack(self, fmt: str, size: int, what: str) -> int | float:
        return struct.unpack(fmt, self.take(size, what))[0]

    def byte(self, what: str) -> int:
        """A signed byte."""
        return int(self._unpack(">b", 1, what))

    def boolean(self, what: str) -> bool:
        """A boolean (any non-zero byte is true)."""
        return self.take(1, what) != b"\x00"

    def short(self, what: str) -> int:
        """A signed 16-bit int."""
        return int(self._unpack(">h", 2, what))

    def int(self, what: str) -> int:
        """A signed 32-bit int."""
        return int(self._unpack(">i", 4, what))

    def long(self, what: str) -> int:
        """A signed 64-bit int."""
        return int(self._unpack(">q", 8, what))

    def float(self, what: str) -> float:
        """An IEEE float."""
        return float(self._unpack(">f", 4, what))

    def text(self, what: str) -> str:
        """``Text``: VInt length + UTF-8 (surrogate escapes for invalid bytes)."""
        try:
            n, self.pos = decode_vint(self.buf, self.pos)
        except VIntError as exc:
            raise self.fail(what, str(exc)) from None
        return self.take(n, what).decode("utf-8", "surrogateescape")

    def utf8(self, what: str) -> str:
        """``UTF8`` / ``writeUTF``: unsigned 16-bit length + modified UTF-8."""
        n = int(self._unpack(">H", 2, what))
        return decode_modified_utf8(self.take(n, what))

    def sized(self, what: str) -> bytes:
        """``int`` length + bytes."""
        return self.take(self.int(what + " length"), what)

    def string(self, what: str) -> str | None:
        """``WritableUtils.readString``: ``int`` length (-1: null) + UTF-8."""
        n = self.int(what + " length")
        if n == -1:
            return None
        return self.take(n, what).decode("utf-8", "surrogateescape")

    def compressed(self, what: str) -> bytes | None:
        """``WritableUtils.readCompressedByteArray``: ``int`` length (-1: null) + gzip."""
        n = self.int(what + " length")
        if n == -1:
            return None
        return _inflate(self.take(n, what), 31, f"{self.cls} {what}")

    def compressed_string(self, what: str) -> str | None:
        """``readCompressedString``: a compressed byte array of UTF-8."""
        raw = self.compressed(what)
        return None if raw is None else raw.decode("utf-8", "surrogateescape")

    def string_array(self, what: str, compressed: bool) -> list[str | None] | None:
        """``readStringArray`` / ``readCompressedStringArray``: ``int`` count (-1: null)."""
        n = self.int(what + " count")
        if n == -1:
            return None
        if n < 0 or n * 4 > len(self.buf) - self.pos:
            raise self.fail(what, f"count {n} with {len(self.buf) - self.pos} bytes left")
        read = self.compressed_string if compressed else self.string
        return [read(f"{what}[{i}]") for i in range(n)]

    def zlib_body(self, n: int, what: str) -> bytes:
        """``n`` bytes of a zlib stream, inflated (``CompressedWritable``)."""
        return _inflate(self.take(n, what), 15, f"{self.cls} {what}")


class Out:
    """Builds the bytes of a value, field by field (the inverse of :class:`Cursor`)."""

    __slots__ = ("data",)

    def __init__(self) -> None:
        self.data = bytearray()

    def byte(self, v: int) -> Out:
        self.data += struct.pack(">b", v)
        return self

    def boolean(self, v: bool) -> Out:
        self.data.append(1 if v else 0)
        return self

    def short(self, v: int) -> Out:
        self.data += struct.pack(">h", v)
        return self

    def int(self, v: int) -> Out:
        self.data += struct.pack(">i", v)
        return self

    def long(self, v: int) -> Out:
        self.data += struct.pack(">q", v)
        return self

    def float(self, v: float) -> Out:
        self.data += struct.pack(">f", v)
        return self

    def raw(self, v: bytes) -> Out:
        self.data += v
        return self

    def text(self, v: str) -> Out:
        raw = v.encode("utf-8", "surrogateescape")
        self.data += encode_vlong(len(raw)) + raw
        return self

    def utf8(self, v: str) -> Out:
        raw = encode_modified_utf8(v)
        if len(raw) > 0xFFFF:
            raise WritableError(f"UTF8: {len(raw)} bytes, more than 65535")
        self.data += len(raw).to_bytes(2, "big") + raw
        return self

    def sized(self, v: bytes) -> Out:
        return self.int(len(v)).raw(v)

    def string(self, v: str | None) -> Out:
        if v is None:
            return self.int(-1)
        return self.sized(v.encode("utf-8", "surrogateescape"))

    def compressed_string(self, v: str | None) -> Out:
        if v is None:
            return self.int(-1)
        return self.sized(gzip_java(v.encode("utf-8", "surrogateescape")))

    def string_array(self, v: list[str | None] | None, compressed: bool) -> Out:
        if v is None:
            return self.int(-1)
        self.int(len(v))
        for s in v:
            self.compressed_string(s) if compressed else self.string(s)
        return self

    def bytes(self) -> bytes:
        return bytes(self.data)


# -- Metadata ------------------------------------------------------------------------------


@dataclass
class Metadata:
    """``org.apache.nutch.metadata.Metadata``: multi-valued, names in file order (Java
    HashMap order: compare as sets). ``legacy``: the Nutch 0.8 layout (``UTF8`` strings)."""

    entries: list[tuple[str, list[str]]] = field(default_factory=list)
    legacy: bool = False

    def get(self, name: str) -> str | None:
        """The first value of ``name`` (exact case), or ``None``."""
        for key, values in self.entries:
            if key == name and values:
                return values[0]
        return None

    def get_ci(self, name: str) -> str | None:
        """The first value of ``name`` in any case, or ``None``."""
        low = name.lower()
        for key, values in self.entries:
            if key.lower() == low and values:
                return values[0]
        return None

    def as_dict(self) -> dict[str, list[str]]:
        """``{name: [values]}``."""
        return {k: list(v) for k, v in self.entries}


def read_metadata(cur: Cursor, what: str, legacy: bool = False) -> Metadata:
    """``Metadata.readFields``: ``int`` names, each name with ``int`` values (``Text``; the
    0.8 layout: ``UTF8``)."""
    n = cur.int(f"{what} name count")
    if n < 0 or n * 5 > len(cur.buf) - cur.pos:
        raise cur.fail(f"{what} name count", f"{n} names with {len(cur.buf) - cur.pos} bytes left")
    read = cur.utf8 if legacy else cur.text
    entries = []
    for i in range(n):
        name = read(f"{what} name {i}")
        m = cur.int(f"{what} {name!r} value count")
        if m < 0 or m > len(cur.buf) - cur.pos:
            raise cur.fail(f"{what} {name!r} value count", f"{m} values")
        entries.append((name, [read(f"{what} {name!r} value {j}") for j in range(m)]))
    return Metadata(entries, legacy)


def write_metadata(out: Out, meta: Metadata) -> None:
    """The bytes of ``meta`` in its layout."""
    out.int(len(meta.entries))
    write = out.utf8 if meta.legacy else out.text
    for name, values in meta.entries:
        write(name)
        out.int(len(values))
        for v in values:
            write(v)


# -- ParseStatus, ProtocolStatus -----------------------------------------------------------


@dataclass
class ParseStatus:
    """``org.apache.nutch.parse.ParseStatus``: ``major`` 0 notparsed, 1 success, 2 failed;
    ``minor`` (100 success_redirect, 200 failed_exception ...); ``args`` (version 1: gzip
    strings, 2: plain)."""

    version: int = 2
    major: int = 1
    minor: int = 0
    args: list[str | None] | None = None


def read_parse_status(cur: Cursor) -> ParseStatus:
    """A ParseStatus at the cursor."""
    version = cur.byte("ParseStatus version")
    if version not in (1, 2):
        raise cur.fail("ParseStatus version", f"{version} is not 1 or 2")
    major = cur.byte("ParseStatus major code")
    minor = cur.short("ParseStatus minor code")
    args = cur.string_array("ParseStatus args", compressed=version == 1)
    return ParseStatus(version, major, minor, args)


def write_parse_status(out: Out, st: ParseStatus) -> None:
    """The bytes of ``st``."""
    out.byte(st.version).byte(st.major).short(st.minor)
    out.string_array(st.args, compressed=st.version == 1)


PROTOCOL_STATUS = "org.apache.nutch.protocol.ProtocolStatus"

#: ProtocolStatus codes (spec section 6.8).
PROTOCOL_CODES = {1: "success", 2: "failed", 10: "proto_not_found", 11: "gone", 12: "moved",
                  13: "temp_moved", 14: "notfound", 15: "retry", 16: "exception",
                  17: "access_denied", 18: "robots_denied", 19: "redir_exceeded",
                  20: "notfetching", 21: "notmodified", 22: "wouldblock", 23: "blocked"}  # fmt: skip


@dataclass
class ProtocolStatus:
    """``org.apache.nutch.protocol.ProtocolStatus``: ``code`` (1 success, 14 notfound, ...),
    ``last_modified`` (ms), ``args`` (version 1: gzip strings, 2: plain)."""

    version: int = 2
    code: int = 1
    last_modified: int = 0
    args: list[str | None] | None = None

    @property
    def name(self) -> str:
        """The code's name (``success``, ``notfound`` ...), or ``code_<n>``."""
        return PROTOCOL_CODES.get(self.code, f"code_{self.code}")


def read_protocol_status(cur: Cursor) -> ProtocolStatus:
    """A ProtocolStatus at the cursor."""
    version = cur.byte("ProtocolStatus version")
    if version not in (1, 2):
        raise cur.fail("ProtocolStatus version", f"{version} is not 1 or 2")
    code = cur.byte("ProtocolStatus code")
    last_modified = cur.long("ProtocolStatus lastModified")
    args = cur.string_array("ProtocolStatus args", compressed=version == 1)
    return ProtocolStatus(version, code, last_modified, args)


def write_protocol_status(out: Out, st: ProtocolStatus) -> None:
    """The bytes of ``st``."""
    out.byte(st.version).byte(st.code).long(st.last_modified)
    out.string_array(st.args, compressed=st.version == 1)
