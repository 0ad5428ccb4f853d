"""The built-in Writables: Hadoop's basic ``org.apache.hadoop.io`` classes and Common Crawl's
``TextBytes``, registered through ``crawlmill_register_writables`` so the SequenceFile reader
and writer find them by Java class name, as they find a plugin's.

Each wraps the byte codec of :mod:`crawlmill.formats.hadoop.writables` (the values each class
reads to are listed there). ``ArrayWritable`` is not registered on its own: its element class
is not in the bytes, so a subclass names it (``HadoopWritable`` with
``codec = ArrayWritable(element)``, see docs/adding-a-writable.md).
"""

from __future__ import annotations

from typing import Any, ClassVar

from crawlmill.core import Writable, hookimpl
from crawlmill.formats.hadoop import writables as w

from .lookup import register_writable, registered_codec

__all__ = ["BUILTIN_WRITABLES", "HadoopWritable"]


class HadoopWritable(Writable):
    """A Writable whose bytes a :class:`crawlmill.formats.hadoop.writables.Codec` reads."""

    codec: ClassVar[w.Codec]

    def read_at(self, data: bytes, pos: int) -> tuple[Any, int]:
        """``(value, end)`` of the value at ``data[pos:]``."""
        return self.codec.read(data, pos)

    def write(self, value: Any) -> bytes:
        """The bytes of ``value``."""
        return self.codec.write(value)


_SUMMARIES = {
    "Text": "VInt length + UTF-8 bytes (read as bytes)",
    "TextBytes": "Common Crawl's TextBytes: VInt length + bytes, as Text",
    "UTF8": "deprecated UTF8: 2-byte length + Java modified UTF-8 (read as str)",
    "BytesWritable": "4-byte length + bytes",
    "IntWritable": "4-byte big-endian int",
    "LongWritable": "8-byte big-endian long",
    "FloatWritable": "4-byte IEEE float",
    "DoubleWritable": "8-byte IEEE double",
    "ByteWritable": "1 signed byte",
    "ShortWritable": "2-byte big-endian short",
    "VIntWritable": "Hadoop VInt",
    "VLongWritable": "Hadoop VLong",
    "BooleanWritable": "1 byte, non-zero is true",
    "NullWritable": "no bytes",
    "MD5Hash": "16 raw bytes",
    "MapWritable": "class table + entries with class ids (read as a MapValue)",
}


def _make(codec: w.Codec) -> type[HadoopWritable]:
    main, *others = codec.java_names
    short = main.rsplit(".", 1)[1]
    aliases = tuple(others) + tuple(a for a, full in w.ALIASES.items() if full == main)
    doc = _SUMMARIES[short][0].upper() + _SUMMARIES[short][1:] + "."
    attrs = {
        "__doc__": doc,
        "name": main,
        "java_names": aliases,
        "codec": codec,
        "__module__": __name__,
    }
    return register_writable(type(short, (HadoopWritable,), attrs))  # type: ignore[return-value]


def _resolve(java_name: str) -> w.Codec | None:
    """The codec of a class inside a ``MapWritable``: a built-in one, else a registered
    Writable's (a plugin's class in a map)."""
    codec = w.builtin(java_name, _resolve)
    return codec if codec is not None else registered_codec(java_name)


#: every built-in Writable class.
BUILTIN_WRITABLES: tuple[type[HadoopWritable], ...] = (
    *(_make(c) for c in dict.fromkeys(w.BUILTIN.values())),
    _make(w.MapWritable(_resolve)),
)


@hookimpl
def crawlmill_register_writables(register: Any) -> None:
    """Register the built-in Writables."""
    for cls in BUILTIN_WRITABLES:
        register(cls)
