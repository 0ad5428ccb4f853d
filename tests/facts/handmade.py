"""SequenceFile bytes built and parsed by hand for the source-fact tests, from Hadoop's
SequenceFile javadoc (version 6 header; record compression), not by crawlmill's writer."""

from __future__ import annotations

import gzip
import struct
from pathlib import Path

TEXT = "org.apache.hadoop.io.Text"
GZIP_CODEC = "org.apache.hadoop.io.compress.GzipCodec"
SYNC = bytes(range(16))


def vint(n: int) -> bytes:
    """Hadoop's ``WritableUtils.writeVInt`` for a length (0 <= n < 2**31)."""
    if -112 <= n <= 127:
        return struct.pack(">b", n)
    raw = n.to_bytes((n.bit_length() + 7) // 8, "big")
    return struct.pack(">b", -112 - len(raw)) + raw


def text(value: str | bytes) -> bytes:
    """A serialized ``org.apache.hadoop.io.Text``: vint length + UTF-8 bytes."""
    raw = value.encode("utf-8") if isinstance(value, str) else value
    return vint(len(raw)) + raw


def untext(raw: bytes) -> bytes:
    """The bytes of a serialized ``Text`` (the inverse of :func:`text`)."""
    first = struct.unpack(">b", raw[:1])[0]
    if first >= -112:
        return raw[1:]
    n = -112 - first
    size = int.from_bytes(raw[1 : 1 + n], "big")
    assert len(raw) == 1 + n + size, "a Text whose length is not its bytes'"
    return raw[1 + n :]


def sequence_file(pairs: list[tuple[bytes, bytes]], key_class: str = TEXT,
                  value_class: str = TEXT, codec: str | None = None) -> bytes:  # fmt: skip
    """A version 6 SequenceFile of serialized ``(key, value)`` pairs; with ``codec``
    (GzipCodec only) record-compressed: each value a gzip member."""
    out = bytearray(b"SEQ\x06" + text(key_class) + text(value_class))
    out += bytes([1 if codec else 0, 0])
    if codec:
        out += text(codec)
    out += struct.pack(">i", 0) + SYNC  # no metadata, then the sync hash
    for key, value in pairs:
        if codec:
            assert codec == GZIP_CODEC
            value = gzip.compress(value, mtime=0)
        out += struct.pack(">ii", len(key) + len(value), len(key)) + key + value
    return bytes(out)


def _name(data: bytes, pos: int) -> tuple[str, int]:
    n = data[pos]
    assert n < 0x80, "a class name longer than 127 bytes"
    return data[pos + 1 : pos + 1 + n].decode("utf-8"), pos + 1 + n


def header(path: Path) -> tuple[int, str, str, bool, bool, str | None]:
    """Version, key class, value class, compressed, block-compressed and codec of a version
    4-6 SequenceFile, parsed by hand."""
    data = path.read_bytes()[:1024]
    assert data[:3] == b"SEQ", f"{path}: no SEQ magic"
    key, pos = _name(data, 4)
    value, pos = _name(data, pos)
    compressed, block = bool(data[pos]), bool(data[pos + 1])
    codec = _name(data, pos + 2)[0] if compressed else None
    return data[3], key, value, compressed, block, codec
