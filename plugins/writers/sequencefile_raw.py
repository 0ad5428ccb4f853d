"""Raw copies for the ``sequencefile`` writer: an unchanged entry of a NONE or RECORD
SequenceFile copied as its record frame (lengths, key, stored value), from the bytes the
``sequencefile`` reader still holds (``Provenance.held``, its map of the input file), instead
of its value decoded to a Record's payload and encoded again.

A frame is copied only when it is exactly what the writer would write from the record: its
key and value are the source's (the writer checks that), and, in a NONE file, a ``Text``-like
value's length prefix is the shortest VInt (:func:`~crawlmill.formats.hadoop.writables.from_content`
writes that one; Hadoop never writes another). A RECORD file's frame holds the stored
(compressed) value the writer copies anyway.
"""

from __future__ import annotations

from crawlmill.core import Record
from crawlmill.formats.hadoop.vint import encode_vlong
from crawlmill.formats.hadoop.writables import canonical_name, content_of, prefixed

__all__ = ["raw_frame"]

_FIXED = {"org.apache.hadoop.io.BytesWritable", "org.apache.hadoop.io.UTF8"}


def raw_frame(record: Record, compression: str, value_class: str) -> bytes | None:
    """The record frame of ``record``'s entry in its SequenceFile, when the reader still
    holds it and it is what a writer of ``compression`` (``none`` or ``record``, with the
    source's codec) and ``value_class`` writes for it; else ``None``."""
    source = record.source
    if (
        source is None
        or source.held is None
        or source.length is None
        or source.offset is None
        or source.format != "sequencefile"
        or compression not in ("none", "record")
    ):
        return None
    frame = source.held.get(source.offset, source.length)
    if frame is None or len(frame) < 8:
        return None
    if compression == "none" and prefixed(value_class):
        start = 8 + int.from_bytes(frame[4:8], "big")
        with memoryview(frame) as view:
            value = view[start:]
            content = content_of(value_class, value)
            n = len(content)
            shortest = content is value or canonical_name(value_class) in _FIXED
            if not shortest:  # a VInt prefix: the writer writes the shortest one
                shortest = view[start : start + len(value) - n] == encode_vlong(n)
            del value, content
        if not shortest:
            return None
    return frame
