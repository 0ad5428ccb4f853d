"""A compact, versioned, type-tagged binary codec of a :class:`~crawlmill.core.record.Record`.

Shuffles move records between processes and through disk as bytes. This codec writes every
field of a record (``extras`` included) as tagged values, so what comes back is equal to what
went in, with the same types (a tuple stays a tuple, ``True`` stays a ``bool``, a
surrogate-escaped URL keeps its raw bytes). It is **not** pickle: decoding builds only the
types below and never imports or calls anything named by the data.

Blob layout: ``MAGIC`` (3 bytes), the format version (1 byte), then the record's fields in
:data:`FIELDS` order, each one tagged value. Tags (one byte) and their bodies:

====  ============================================================================
tag   value
====  ============================================================================
N     ``None``
T F   ``True``, ``False``
i     int: varint byte count, then that many bytes, big-endian two's complement
f     float: 8 bytes, IEEE 754 big-endian
b     bytes: varint length, bytes
s     str: varint length, UTF-8 bytes (``surrogatepass``: lone surrogates survive)
l t   list, tuple: varint count, then the items
z     frozenset: varint count, then the items (sorted by their encoding: stable bytes)
d     dict: varint count, then key, value, key, value... (insertion order kept)
D     datetime: year (2 bytes), month, day, hour, minute, second (1 byte each),
      microsecond (4 bytes), fold (1 byte), then the UTC offset in seconds as an int
      value (``N`` for a naive datetime); an aware datetime comes back with a fixed-offset
      :class:`datetime.timezone` (``timezone.utc`` for offset 0)
E     enum member: its class as ``"module:QualName"`` (str value) and its ``value``; the
      class is looked up among modules already imported (nothing is imported for it)
O     :class:`~crawlmill.core.record.Outlink`: url, anchor
P     :class:`~crawlmill.core.record.Provenance`: path, offset, length, format, space
      (the :class:`~crawlmill.core.record.OffsetSpace` as its value; ``kind`` likewise)
====  ============================================================================

Bounds: every declared length and count is checked against the bytes left in the blob
before anything is built (so a corrupt blob never allocates more than its own size), nesting
is limited to :data:`MAX_DEPTH`, and any inconsistency raises :class:`SerialError` naming the
byte offset. A value of another type raises :class:`SerialError` when encoding, naming where
in the record it is (no silent loss).
"""

from __future__ import annotations

import enum
import struct
import sys
from datetime import UTC, datetime, timedelta, timezone
from typing import Any

from ...record import OffsetSpace, Outlink, Provenance, Record, RecordKind

__all__ = ["FIELDS", "MAGIC", "MAX_DEPTH", "VERSION", "SerialError", "decode", "encode"]

MAGIC = b"CMr"
VERSION = 1
#: the record's fields in blob order (version 1).
FIELDS = (
    "kind",
    "url",
    "doc_id",
    "date",
    "date_raw",
    "http_head",
    "payload",
    "content_type",
    "charset",
    "ip",
    "text",
    "outlinks",
    "extras",
    "source",
    "modified",
    "changed",
)
#: deepest nesting of lists, tuples, dicts (and the like) a blob may hold.
MAX_DEPTH = 64

_DOUBLE = struct.Struct(">d")
_DATE = struct.Struct(">HBBBBBIB")


class SerialError(ValueError):
    """A value cannot be encoded, or a blob is not a valid encoding."""


# -- encoding --------------------------------------------------------------------------------


def _varint(out: bytearray, n: int) -> None:
    while n >= 0x80:
        out.append((n & 0x7F) | 0x80)
        n >>= 7
    out.append(n)


def _enum_name(value: enum.Enum, where: str) -> str:
    cls = type(value)
    name = f"{cls.__module__}:{cls.__qualname__}"
    if "<locals>" in cls.__qualname__ or _enum_class(name) is not cls:
        raise SerialError(f"{where}: enum {name} cannot be found by its name when decoding")
    return name


def _enc(out: bytearray, value: Any, where: str, depth: int) -> None:
    kind = type(value)
    if value is None:
        out += b"N"
    elif kind is bool:
        out += b"T" if value else b"F"
    elif kind is bytes:
        out += b"b"
        _varint(out, len(value))
        out += value
    elif kind is str:
        data = value.encode("utf-8", "surrogatepass")
        out += b"s"
        _varint(out, len(data))
        out += data
    elif kind is int:
        size = (value + (value < 0)).bit_length() // 8 + 1
        out += b"i"
        _varint(out, size)
        out += value.to_bytes(size, "big", signed=True)
    elif kind is float:
        out += b"f"
        out += _DOUBLE.pack(value)
    elif isinstance(value, enum.Enum):
        out += b"E"
        _enc(out, _enum_name(value, where), where, depth)
        _enc(out, value.value, where, depth + 1)
    elif kind in (list, tuple, dict, frozenset, datetime, Outlink, Provenance):
        if depth >= MAX_DEPTH:
            raise SerialError(f"{where}: nested deeper than {MAX_DEPTH} levels")
        _enc_container(out, value, kind, where, depth + 1)
    else:
        raise SerialError(f"{where}: cannot encode a value of type {kind.__qualname__}")


def _enc_container(out: bytearray, value: Any, kind: type, where: str, depth: int) -> None:
    if kind is list or kind is tuple:
        out += b"l" if kind is list else b"t"
        _varint(out, len(value))
        for n, item in enumerate(value):
            _enc(out, item, f"{where}[{n}]", depth)
    elif kind is dict:
        out += b"d"
        _varint(out, len(value))
        for key, item in value.items():
            _enc(out, key, f"{where} (a key)", depth)
            _enc(out, item, f"{where}[{key!r}]", depth)
    elif kind is frozenset:
        items = []
        for item in value:
            one = bytearray()
            _enc(one, item, f"{where} (an item)", depth)
            items.append(bytes(one))
        out += b"z"
        _varint(out, len(items))
        out += b"".join(sorted(items))
    elif kind is datetime:
        out += b"D"
        out += _DATE.pack(
            value.year, value.month, value.day, value.hour, value.minute, value.second,
            value.microsecond, value.fold,
        )  # fmt: skip
        offset = value.utcoffset()
        if offset is None:
            _enc(out, None, where, depth)
        elif offset.microseconds:
            raise SerialError(f"{where}: a UTC offset with microseconds is not supported")
        else:
            _enc(out, offset.days * 86400 + offset.seconds, where, depth)
    elif kind is Outlink:
        out += b"O"
        _enc(out, value.url, f"{where}.url", depth)
        _enc(out, value.anchor, f"{where}.anchor", depth)
    else:  # Provenance
        out += b"P"
        _enc(out, value.path, f"{where}.path", depth)
        _enc(out, value.offset, f"{where}.offset", depth)
        _enc(out, value.length, f"{where}.length", depth)
        _enc(out, value.format, f"{where}.format", depth)
        space = value.space
        _enc(out, space.value if isinstance(space, OffsetSpace) else space, f"{where}.space", depth)


def encode(record: Record) -> bytes:
    """The blob of ``record`` (:class:`SerialError` for a value this codec has no tag for)."""
    if type(record) is not Record:
        raise SerialError(f"cannot encode a {type(record).__qualname__}; expected a Record")
    out = bytearray(MAGIC)
    out.append(VERSION)
    for name in FIELDS:
        value = getattr(record, name)
        if name == "kind" and isinstance(value, RecordKind):
            value = value.value  # the field's type is known: its value is enough
        _enc(out, value, f"record.{name}", 0)
    return bytes(out)


# -- decoding --------------------------------------------------------------------------------


def _enum_class(name: str) -> type[enum.Enum] | None:
    """The enum class ``module:QualName`` among the modules already imported, or ``None``."""
    module_name, _, qualname = name.partition(":")
    obj: Any = sys.modules.get(module_name)
    for part in qualname.split("."):
        if obj is None or not part:
            return None
        obj = getattr(obj, part, None)
    if isinstance(obj, type) and issubclass(obj, enum.Enum):
        return obj
    return None


class _Reader:
    """A position in a blob, with bounded reads."""

    __slots__ = ("data", "pos")

    def __init__(self, data: bytes | memoryview) -> None:
        self.data = memoryview(data)
        self.pos = 0

    def fail(self, reason: str, at: int | None = None) -> SerialError:
        return SerialError(
            f"corrupt record blob at byte {self.pos if at is None else at}: {reason}"
        )

    def take(self, n: int) -> memoryview:
        end = self.pos + n
        if end > len(self.data):
            raise self.fail(f"{n} byte(s) declared, {len(self.data) - self.pos} left")
        chunk = self.data[self.pos : end]
        self.pos = end
        return chunk

    def byte(self) -> int:
        if self.pos >= len(self.data):
            raise self.fail("ends inside a value")
        b = self.data[self.pos]
        self.pos += 1
        return b

    def varint(self) -> int:
        start = self.pos
        n = shift = 0
        while True:
            b = self.byte()
            n |= (b & 0x7F) << shift
            if b < 0x80:
                return n
            shift += 7
            if shift > 63:
                raise self.fail("length field longer than 9 bytes", start)

    def count(self) -> int:
        """An item count: each item takes at least one byte, so it is at most the bytes left."""
        at = self.pos
        n = self.varint()
        if n > len(self.data) - self.pos:
            raise self.fail(f"{n} item(s) declared, {len(self.data) - self.pos} byte(s) left", at)
        return n


def _dec(r: _Reader, depth: int) -> Any:
    at = r.pos
    tag = r.byte()
    if tag == 0x4E:  # N
        return None
    if tag == 0x54:  # T
        return True
    if tag == 0x46:  # F
        return False
    if tag == 0x62:  # b
        return bytes(r.take(r.varint()))
    if tag == 0x73:  # s
        try:
            return str(r.take(r.varint()), "utf-8", "surrogatepass")
        except UnicodeDecodeError as exc:
            raise r.fail(f"invalid UTF-8 text ({exc.reason})", at) from None
    if tag == 0x69:  # i
        return int.from_bytes(r.take(r.varint()), "big", signed=True)
    if tag == 0x66:  # f
        return _DOUBLE.unpack(r.take(8))[0]
    if tag == 0x45:  # E
        return _dec_enum(r, depth, at)
    if tag in b"ltzdDOP":
        if depth >= MAX_DEPTH:
            raise r.fail(f"nested deeper than {MAX_DEPTH} levels", at)
        return _dec_container(r, tag, depth + 1, at)
    raise r.fail(f"unknown tag {bytes([tag])!r}", at)


def _dec_enum(r: _Reader, depth: int, at: int) -> enum.Enum:
    name = _dec(r, depth)
    value = _dec(r, depth + 1)
    if not isinstance(name, str):
        raise r.fail("enum class name is not text", at)
    cls = _enum_class(name)
    if cls is None:
        raise r.fail(f"enum {name} is not defined in this process (plugin not loaded?)", at)
    try:
        return cls(value)
    except (ValueError, TypeError):
        raise r.fail(f"{value!r} is not a member of {name}", at) from None


def _dec_container(r: _Reader, tag: int, depth: int, at: int) -> Any:
    if tag == 0x6C or tag == 0x74:  # l t
        items = [_dec(r, depth) for _ in range(r.count())]
        return items if tag == 0x6C else tuple(items)
    if tag == 0x7A:  # z
        try:
            return frozenset(_dec(r, depth) for _ in range(r.count()))
        except TypeError as exc:
            raise r.fail(f"unhashable set item ({exc})", at) from None
    if tag == 0x64:  # d
        out: dict[Any, Any] = {}
        for _ in range(r.count()):
            key = _dec(r, depth)
            try:
                out[key] = _dec(r, depth)
            except TypeError as exc:
                raise r.fail(f"unhashable dict key ({exc})", at) from None
        return out
    if tag == 0x44:  # D
        return _dec_datetime(r, depth, at)
    if tag == 0x4F:  # O
        url, anchor = _dec(r, depth), _dec(r, depth)
        if not isinstance(url, str) or not isinstance(anchor, str):
            raise r.fail("outlink url and anchor must be text", at)
        return Outlink(url, anchor)
    path, offset, length, fmt, space = (_dec(r, depth) for _ in range(5))
    if (
        not isinstance(path, str)
        or not all(v is None or type(v) is int for v in (offset, length))
        or not (fmt is None or isinstance(fmt, str))
        or not (space is None or isinstance(space, str))
    ):
        raise r.fail("provenance fields of the wrong types", at)
    try:
        space = None if space is None else OffsetSpace(space)
    except ValueError:
        raise r.fail(f"unknown offset space {space!r}", at) from None
    return Provenance(path, offset, length, fmt, space)


def _dec_datetime(r: _Reader, depth: int, at: int) -> datetime:
    year, month, day, hour, minute, second, micro, fold = _DATE.unpack(r.take(_DATE.size))
    offset = _dec(r, depth)
    try:
        if offset is None:
            tz = None
        elif type(offset) is not int:
            raise ValueError("UTC offset is not an int")
        else:
            tz = UTC if offset == 0 else timezone(timedelta(seconds=offset))
        return datetime(year, month, day, hour, minute, second, micro, tz, fold=fold)
    except (ValueError, OverflowError) as exc:
        raise r.fail(f"invalid datetime ({exc})", at) from None


_CHECKS: dict[str, Any] = {
    "kind": lambda v: isinstance(v, str),
    "url": lambda v: v is None or isinstance(v, str),
    "date": lambda v: v is None or isinstance(v, datetime),
    "http_head": lambda v: v is None or isinstance(v, bytes),
    "payload": lambda v: isinstance(v, bytes),
    "outlinks": lambda v: isinstance(v, list),
    "extras": lambda v: isinstance(v, dict),
    "source": lambda v: v is None or isinstance(v, Provenance),
    "modified": lambda v: isinstance(v, bool),
    "changed": lambda v: isinstance(v, frozenset),
}


def decode(blob: bytes | memoryview) -> Record:
    """The record ``blob`` encodes (:class:`SerialError` when it is not a valid blob)."""
    r = _Reader(blob)
    if bytes(r.take(len(MAGIC))) != MAGIC:
        raise SerialError("not a crawlmill record blob (bad magic)")
    version = r.byte()
    if version != VERSION:
        raise SerialError(f"record blob version {version}; this crawlmill reads {VERSION}")
    fields: dict[str, Any] = {}
    for name in FIELDS:
        at = r.pos
        value = _dec(r, 0)
        check = _CHECKS.get(name, lambda v: v is None or isinstance(v, str))
        if not check(value):
            raise r.fail(f"field {name} holds a {type(value).__qualname__}", at)
        fields[name] = value
    if r.pos != len(r.data):
        raise r.fail(f"{len(r.data) - r.pos} byte(s) after the record")
    try:
        fields["kind"] = RecordKind(fields["kind"])
    except ValueError:
        raise SerialError(f"corrupt record blob: unknown record kind {fields['kind']!r}") from None
    return Record(**fields)
