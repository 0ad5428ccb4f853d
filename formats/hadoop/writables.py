"""Byte codecs of Hadoop's basic Writable classes, by Java class name (spec sections 1.3, 1.4,
5.1).

Each codec reads a value at a position of a buffer (``read(buf, pos) -> (value, end)``; a
Writable carries no length of its own, so a container reads its elements one after the other)
and writes one (``write(value) -> bytes``). :func:`decode` reads a whole serialized value and
checks that it consumed every byte, as Hadoop's ``SequenceFile.Reader`` does.

Values in Python: ``Text`` and Common Crawl's ``TextBytes`` -> ``bytes`` (the raw UTF-8, which
may be invalid: never decoded here), ``UTF8`` -> ``str`` (Java's modified UTF-8), ``BytesWritable``
and ``MD5Hash`` -> ``bytes``, the number classes -> ``int``/``float``, ``BooleanWritable`` ->
``bool``, ``NullWritable`` -> ``None``, ``ArrayWritable`` (with its element codec) -> ``list``,
``MapWritable`` -> :class:`MapValue` (its per-instance class table and entries in file order,
so it writes back byte for byte).

The *content* of a value (:func:`content_of`, :func:`from_content`) is what a Record's payload
holds: the bytes after the length prefix for ``Text``, ``TextBytes``, ``UTF8`` and
``BytesWritable``; the whole serialized value for every other class.
"""

from __future__ import annotations

import struct
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from .vint import VIntError, decode_vint, decode_vlong, encode_vlong

__all__ = [
    "ALIASES",
    "BUILTIN",
    "PREDEFINED_MAP_IDS",
    "ArrayWritable",
    "Codec",
    "MapValue",
    "MapWritable",
    "WritableError",
    "canonical_name",
    "content_of",
    "decode",
    "decode_modified_utf8",
    "encode_modified_utf8",
    "from_content",
    "prefixed",
]

Buf = bytes | bytearray | memoryview

HIO = "org.apache.hadoop.io."


class WritableError(ValueError):
    """Bytes that are not a value of the class: cut short, a bad length, bytes left over."""


class Codec:
    """The byte codec of one Writable class."""

    #: the Java class name(s) this codec reads (the first is written in headers).
    java_names: tuple[str, ...] = ()

    def read(self, buf: Buf, pos: int) -> tuple[Any, int]:
        """``(value, end)`` of the value serialized at ``buf[pos:]``."""
        raise NotImplementedError

    def write(self, value: Any) -> bytes:
        """The serialized bytes of ``value``."""
        raise NotImplementedError


def _take(buf: Buf, pos: int, n: int, what: str) -> int:
    if n < 0:
        raise WritableError(f"{what}: negative length {n}")
    end = pos + n
    if end > len(buf):
        raise WritableError(f"{what}: needs {n} bytes at {pos}, {len(buf) - pos} left")
    return end


class _Fixed(Codec):
    def __init__(self, name: str, fmt: str, kind: Callable[[Any], Any] = lambda v: v) -> None:
        self.java_names = (HIO + name,)
        self._struct = struct.Struct(">" + fmt)
        self._kind = kind

    def read(self, buf: Buf, pos: int) -> tuple[Any, int]:
        end = _take(buf, pos, self._struct.size, self.java_names[0])
        return self._kind(self._struct.unpack_from(buf, pos)[0]), end

    def write(self, value: Any) -> bytes:
        return self._struct.pack(value)


class _Boolean(Codec):
    java_names = (HIO + "BooleanWritable",)

    def read(self, buf: Buf, pos: int) -> tuple[bool, int]:
        end = _take(buf, pos, 1, "BooleanWritable")
        return buf[pos] != 0, end

    def write(self, value: bool) -> bytes:
        return b"\x01" if value else b"\x00"


class _Null(Codec):
    java_names = (HIO + "NullWritable",)

    def read(self, buf: Buf, pos: int) -> tuple[None, int]:
        return None, pos

    def write(self, value: None) -> bytes:
        return b""


class _VLong(Codec):
    def __init__(self, name: str, is_int: bool) -> None:
        self.java_names = (HIO + name,)
        self._decode = decode_vint if is_int else decode_vlong

    def read(self, buf: Buf, pos: int) -> tuple[int, int]:
        try:
            return self._decode(buf, pos)
        except VIntError as exc:
            raise WritableError(f"{self.java_names[0]}: {exc}") from None

    def write(self, value: int) -> bytes:
        return encode_vlong(value)


class _Text(Codec):
    """``Text`` (and ``TextBytes``): VInt length + raw bytes."""

    def __init__(self, *names: str) -> None:
        self.java_names = names

    def read(self, buf: Buf, pos: int) -> tuple[bytes, int]:
        try:
            n, start = decode_vint(buf, pos)
        except VIntError as exc:
            raise WritableError(f"Text length: {exc}") from None
        end = _take(buf, start, n, "Text")
        return bytes(buf[start:end]), end

    def write(self, value: bytes | str) -> bytes:
        if isinstance(value, str):
            value = value.encode("utf-8", "surrogateescape")
        return encode_vlong(len(value)) + value


class _Bytes(Codec):
    java_names = (HIO + "BytesWritable",)

    def read(self, buf: Buf, pos: int) -> tuple[bytes, int]:
        start = _take(buf, pos, 4, "BytesWritable length")
        n = int.from_bytes(buf[pos:start], "big", signed=True)
        end = _take(buf, start, n, "BytesWritable")
        return bytes(buf[start:end]), end

    def write(self, value: bytes) -> bytes:
        return len(value).to_bytes(4, "big") + bytes(value)


class _MD5(Codec):
    java_names = (HIO + "MD5Hash",)

    def read(self, buf: Buf, pos: int) -> tuple[bytes, int]:
        end = _take(buf, pos, 16, "MD5Hash")
        return bytes(buf[pos:end]), end

    def write(self, value: bytes) -> bytes:
        if len(value) != 16:
            raise WritableError(f"MD5Hash: {len(value)} bytes, not 16")
        return bytes(value)


def decode_modified_utf8(data: Buf) -> str:
    """Java's modified UTF-8 (``DataInput.readUTF`` bytes, Hadoop's ``UTF8``): each UTF-16 unit
    encoded alone (``C0 80`` for U+0000, surrogates as 3-byte sequences)."""
    units: list[int] = []
    i, n = 0, len(data)
    while i < n:
        b = data[i]
        if b < 0x80:
            units.append(b)
            i += 1
        elif b >> 5 == 0b110 and i + 1 < n and data[i + 1] >> 6 == 0b10:
            units.append(((b & 0x1F) << 6) | (data[i + 1] & 0x3F))
            i += 2
        elif (
            b >> 4 == 0b1110 and i + 2 < n and data[i + 1] >> 6 == 0b10 and data[i + 2] >> 6 == 0b10
        ):
            units.append(((b & 0x0F) << 12) | ((data[i + 1] & 0x3F) << 6) | (data[i + 2] & 0x3F))
            i += 3
        else:
            raise WritableError(f"modified UTF-8: bad byte 0x{b:02x} at {i}")
    return struct.pack(f">{len(units)}H", *units).decode("utf-16-be", "surrogatepass")


def encode_modified_utf8(text: str) -> bytes:
    """``text`` in Java's modified UTF-8 (the inverse of :func:`decode_modified_utf8`)."""
    raw = text.encode("utf-16-be", "surrogatepass")
    out = bytearray()
    for (unit,) in struct.iter_unpack(">H", raw):
        if 0 < unit < 0x80:
            out.append(unit)
        elif unit < 0x800:
            out += bytes((0xC0 | unit >> 6, 0x80 | unit & 0x3F))
        else:
            out += bytes((0xE0 | unit >> 12, 0x80 | (unit >> 6) & 0x3F, 0x80 | unit & 0x3F))
    return bytes(out)


class _UTF8(Codec):
    """``UTF8`` (deprecated) and ``writeUTF``: unsigned 16-bit length + modified UTF-8."""

    java_names = (HIO + "UTF8",)

    def read(self, buf: Buf, pos: int) -> tuple[str, int]:
        start = _take(buf, pos, 2, "UTF8 length")
        end = _take(buf, start, int.from_bytes(buf[pos:start], "big"), "UTF8")
        return decode_modified_utf8(buf[start:end]), end

    def write(self, value: str) -> bytes:
        data = encode_modified_utf8(value)
        if len(data) > 0xFFFF:
            raise WritableError(f"UTF8: {len(data)} bytes, more than 65535")
        return len(data).to_bytes(2, "big") + data


class ArrayWritable(Codec):
    """``ArrayWritable`` of one element class (the class is not written: a subclass fixes it)."""

    java_names = (HIO + "ArrayWritable",)

    def __init__(self, element: Codec | None = None) -> None:
        self.element = element

    def read(self, buf: Buf, pos: int) -> tuple[list[Any], int]:
        if self.element is None:
            raise WritableError("ArrayWritable: the element class is not known (not in the bytes)")
        start = _take(buf, pos, 4, "ArrayWritable count")
        count = int.from_bytes(buf[pos:start], "big", signed=True)
        if count < 0 or count > len(buf) - start and not isinstance(self.element, _Null):
            raise WritableError(f"ArrayWritable: count {count} with {len(buf) - start} bytes left")
        out, pos = [], start
        for _ in range(count):
            value, pos = self.element.read(buf, pos)
            out.append(value)
        return out, pos

    def write(self, value: list[Any]) -> bytes:
        if self.element is None:
            raise WritableError("ArrayWritable: the element class is not known")
        return len(value).to_bytes(4, "big") + b"".join(self.element.write(v) for v in value)


#: ``AbstractMapWritable``'s predefined class ids (Hadoop 1.x-3.x).
PREDEFINED_MAP_IDS: dict[int, str] = {
    -127: HIO + "ArrayWritable",
    -126: HIO + "BooleanWritable",
    -125: HIO + "BytesWritable",
    -124: HIO + "FloatWritable",
    -123: HIO + "IntWritable",
    -122: HIO + "LongWritable",
    -121: HIO + "MapWritable",
    -120: HIO + "MD5Hash",
    -119: HIO + "NullWritable",
    -118: HIO + "ObjectWritable",
    -117: HIO + "SortedMapWritable",
    -116: HIO + "Text",
    -115: HIO + "TwoDArrayWritable",
    -114: HIO + "VIntWritable",
    -113: HIO + "VLongWritable",
}
_ID_OF = {name: i for i, name in PREDEFINED_MAP_IDS.items()}


@dataclass
class MapValue:
    """A ``MapWritable``: ``classes`` is its per-instance table of non-predefined classes
    (``(id, java name)`` in file order), ``entries`` its ``(key class, key, value class,
    value)`` in file order (Java HashMap order: compare maps as sets, not as lists)."""

    entries: list[tuple[str, Any, str, Any]] = field(default_factory=list)
    classes: list[tuple[int, str]] = field(default_factory=list)

    def as_dict(self) -> dict[Any, Any]:
        """The entries as a plain ``{key: value}``."""
        return {k: v for _, k, _, v in self.entries}


class MapWritable(Codec):
    """``org.apache.hadoop.io.MapWritable``: class table, ``int`` count, then per entry a class
    id and the key, a class id and the value. ``resolve(java_name)`` finds the codec of a
    class (the registry's, so a plugin's Writable may sit inside a map); an entry of a class
    it does not know cannot be skipped (no lengths) and fails the whole value."""

    java_names = (HIO + "MapWritable",)

    def __init__(self, resolve: Callable[[str], Codec | None] | None = None) -> None:
        self.resolve = resolve or (lambda name: builtin(name, self.resolve))

    def _codec(self, name: str) -> Codec:
        codec = self.resolve(name)
        if codec is None:
            raise WritableError(f"MapWritable: no codec for class {name} (entries have no length)")
        return codec

    def read(self, buf: Buf, pos: int) -> tuple[MapValue, int]:
        end = _take(buf, pos, 1, "MapWritable class count")
        n_classes = buf[pos]
        if n_classes > 127:
            raise WritableError(f"MapWritable: negative class count {n_classes - 256}")
        pos = end
        table: dict[int, str] = dict(PREDEFINED_MAP_IDS)
        classes: list[tuple[int, str]] = []
        for _ in range(n_classes):
            end = _take(buf, pos, 1, "MapWritable class id")
            cid = struct.unpack_from(">b", buf, pos)[0]
            name, pos = _UTF8().read(buf, end)
            classes.append((cid, name))
            table[cid] = name
        end = _take(buf, pos, 4, "MapWritable entry count")
        count = int.from_bytes(buf[pos:end], "big", signed=True)
        if count < 0 or count * 2 > len(buf) - end:
            raise WritableError(
                f"MapWritable: entry count {count} with {len(buf) - end} bytes left"
            )
        pos = end
        entries = []
        for _ in range(count):
            parts = []
            for what in ("key", "value"):
                end = _take(buf, pos, 1, f"MapWritable {what} class id")
                cid = struct.unpack_from(">b", buf, pos)[0]
                name = table.get(cid)
                if name is None:
                    raise WritableError(f"MapWritable: unknown class id {cid} at {pos}")
                value, pos = self._codec(name).read(buf, end)
                parts += [name, value]
            entries.append(tuple(parts))
        return MapValue(entries, classes), pos  # type: ignore[arg-type]

    def write(self, value: MapValue | dict[Any, Any]) -> bytes:
        if not isinstance(value, MapValue):
            value = MapValue([(*_guess(k), *_guess(v)) for k, v in value.items()])  # type: ignore[misc]
        classes = list(value.classes)
        ids = {name: cid for cid, name in classes}
        for key_class, _, value_class, _ in value.entries:
            for name in (key_class, value_class):
                if name not in _ID_OF and name not in ids:
                    ids[name] = len(classes) + 1
                    classes.append((ids[name], name))
        out = bytearray(struct.pack(">B", len(classes)))
        for cid, name in classes:
            out += struct.pack(">b", cid) + _UTF8().write(name)
        out += len(value.entries).to_bytes(4, "big")
        for key_class, key, value_class, item in value.entries:
            for name, obj in ((key_class, key), (value_class, item)):
                cid = ids.get(name, _ID_OF.get(name))
                out += struct.pack(">b", cid) + self._codec(name).write(obj)
        return bytes(out)


def _guess(obj: Any) -> tuple[str, Any]:
    """The Writable class a plain Python value is written as in a map (as PySpark does)."""
    if obj is None:
        return HIO + "NullWritable", None
    if isinstance(obj, bool):
        return HIO + "BooleanWritable", obj
    if isinstance(obj, int):
        return HIO + "IntWritable", obj
    if isinstance(obj, float):
        return HIO + "DoubleWritable", obj
    if isinstance(obj, str):
        return HIO + "Text", obj.encode("utf-8", "surrogateescape")
    if isinstance(obj, bytes | bytearray):
        return HIO + "BytesWritable", bytes(obj)
    if isinstance(obj, dict | MapValue):
        return HIO + "MapWritable", obj
    raise WritableError(f"no Writable class for a {type(obj).__name__}")


_SIMPLE: tuple[Codec, ...] = (
    _Text(HIO + "Text"),
    _Text("org.commoncrawl.util.TextBytes", "org.commoncrawl.util.shared.TextBytes"),
    _UTF8(),
    _Bytes(),
    _Fixed("IntWritable", "i"),
    _Fixed("LongWritable", "q"),
    _Fixed("FloatWritable", "f"),
    _Fixed("DoubleWritable", "d"),
    _Fixed("ByteWritable", "b"),
    _Fixed("ShortWritable", "h"),
    _VLong("VIntWritable", True),
    _VLong("VLongWritable", False),
    _Boolean(),
    _Null(),
    _MD5(),
)

#: Java class name -> codec of the classes needing no context (MapWritable and ArrayWritable
#: come from :func:`builtin`).
BUILTIN: dict[str, Codec] = {name: c for c in _SIMPLE for name in c.java_names}

#: ``WritableName``'s static aliases, still honoured by Hadoop 3 (old headers use them).
ALIASES: dict[str, str] = {
    "null": HIO + "NullWritable",
    "long": HIO + "LongWritable",
    "UTF8": HIO + "UTF8",
    "MD5Hash": HIO + "MD5Hash",
}


def canonical_name(name: str) -> str:
    """The Java class name an alias in an old header stands for (``long`` -> LongWritable)."""
    return ALIASES.get(name, name)


def builtin(name: str, resolve: Callable[[str], Codec | None] | None = None) -> Codec | None:
    """The built-in codec of the class ``name`` (aliases understood), or ``None``;
    ``resolve`` is what a MapWritable uses for its entries."""
    name = canonical_name(name)
    if name == HIO + "MapWritable":
        return MapWritable(resolve)
    if name == HIO + "ArrayWritable":
        return ArrayWritable()
    return BUILTIN.get(name)


def decode(codec: Codec, data: Buf) -> Any:
    """The value serialized in ``data``, which must be consumed exactly."""
    value, end = codec.read(data, 0)
    if end != len(data):
        raise WritableError(f"{codec.java_names[0]}: read {end} bytes, should read {len(data)}")
    return value


_PREFIX = {HIO + "Text": "vint", "org.commoncrawl.util.TextBytes": "vint",
           "org.commoncrawl.util.shared.TextBytes": "vint", HIO + "UTF8": "u16",
           HIO + "BytesWritable": "int"}  # fmt: skip


def content_of(class_name: str, raw: bytes) -> bytes:
    """A value's content (the payload a Record holds): ``raw`` without the length prefix of a
    ``Text``/``TextBytes``/``UTF8``/``BytesWritable`` whose prefix matches its length, else
    ``raw`` itself."""
    kind = _PREFIX.get(canonical_name(class_name))
    try:
        if kind == "vint":
            n, start = decode_vint(raw, 0)
        elif kind == "u16" and len(raw) >= 2:
            n, start = int.from_bytes(raw[:2], "big"), 2
        elif kind == "int" and len(raw) >= 4:
            n, start = int.from_bytes(raw[:4], "big", signed=True), 4
        else:
            return raw
    except VIntError:
        return raw
    return raw[start:] if start + n == len(raw) else raw


def prefixed(class_name: str) -> bool:
    """Whether the class's content is its bytes after a length prefix (``Text``,
    ``TextBytes``, ``UTF8``, ``BytesWritable``): a value whose :func:`content_of` is the
    whole value has a prefix that disagrees with its length, and :func:`from_content`
    cannot rebuild it."""
    return canonical_name(class_name) in _PREFIX


def from_content(class_name: str, content: bytes) -> bytes:
    """The serialized value whose :func:`content_of` is ``content``."""
    kind = _PREFIX.get(canonical_name(class_name))
    if kind == "vint":
        return encode_vlong(len(content)) + content
    if kind == "u16":
        if len(content) > 0xFFFF:
            raise WritableError(f"UTF8: {len(content)} bytes, more than 65535")
        return len(content).to_bytes(2, "big") + content
    if kind == "int":
        return len(content).to_bytes(4, "big") + content
    return content
