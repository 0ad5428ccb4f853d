"""The oracle side for SequenceFiles, written from the format (spec section 2 of
../shared/specs/hadoop-nutch.md), not from crawlmill's reader: an intact file's header end,
sync hash, sync markers, its NONE/RECORD records or BLOCK blocks with their byte spans, and
every entry's serialized key and (inflated) value. Used on the intact inputs and on the
SequenceFiles a run writes (:func:`read_output`).

Values are inflated with the standard library for zlib, gzip and bzip2; Snappy and LZ4 (Hadoop's
block framing around the raw codecs) go through crawlmill's codec table, the one piece of
crawlmill this oracle borrows (the framing of the file itself is parsed here)."""

from __future__ import annotations

import bz2
import gzip
import os
import struct
import zlib
from dataclasses import dataclass, field

__all__ = ["SeqElement", "SeqEntry", "SeqFile", "content", "parse_seqfile", "read_output", "vint"]

ESCAPE = b"\xff\xff\xff\xff"
SYNC_SIZE = 20
_H = "org.apache.hadoop.io."


def vint(data: bytes, pos: int) -> tuple[int, int]:
    """Hadoop's ``WritableUtils.readVLong`` at ``pos``: ``(value, next position)``."""
    b = data[pos] - 256 if data[pos] > 127 else data[pos]
    if b >= -112:
        return b, pos + 1
    neg = b < -120
    size = (-119 - b) if neg else (-111 - b)
    if pos + size > len(data):
        raise ValueError(f"vint at {pos} cut short")
    v = int.from_bytes(data[pos + 1 : pos + size], "big")
    return (~v if neg else v), pos + size


def content(cls: str, raw: bytes) -> bytes:
    """The bytes a value of class ``cls`` carries: after the VInt length of ``Text`` and
    ``TextBytes``, the 2-byte length of ``UTF8``, the 4-byte length of ``BytesWritable``; every
    other class (or a prefix that disagrees with the length) as serialized. Two files of other
    classes compare serialized bytes; a Text key and a Text key compare equal exactly when
    their serialized bytes are equal."""
    short = cls.rsplit(".", 1)[-1]
    try:
        if short in ("Text", "TextBytes"):
            n, p = vint(raw, 0)
            if p + n == len(raw):
                return raw[p:]
        elif short == "UTF8" and len(raw) >= 2 and 2 + int.from_bytes(raw[:2], "big") == len(raw):
            return raw[2:]
        elif short == "BytesWritable" and 4 + int.from_bytes(raw[:4], "big") == len(raw):
            return raw[4:]
    except (ValueError, IndexError):
        pass
    return raw


def _inflate(codec: str, buf: bytes) -> bytes:
    short = codec.rsplit(".", 1)[-1]
    if short in ("DefaultCodec", "DeflateCodec"):
        return zlib.decompress(buf)
    if short == "GzipCodec":
        return gzip.decompress(buf)
    if short == "BZip2Codec":
        return bz2.decompress(buf) if buf else b""
    from crawlmill.formats.hadoop.codecs import codec_for

    c = codec_for(codec)
    if c is None:
        raise ValueError(f"no codec {codec}")
    return c.decompress(buf, 1 << 30)


@dataclass(frozen=True)
class SeqEntry:
    """One key/value pair: serialized key, inflated value, the element holding it."""

    index: int
    key: bytes
    value: bytes
    element: int

    def form(self, key_class: str, value_class: str) -> tuple[bytes, bytes]:
        """What a copy must deliver: the key's and the value's content bytes."""
        return content(key_class, self.key), content(value_class, self.value)


@dataclass(frozen=True)
class SeqElement:
    """A span of the file: ``header``, ``sync`` (a marker between NONE/RECORD records),
    ``record`` (one NONE/RECORD record, lengths included), or ``block`` (a BLOCK block with
    the sync marker before it). ``fields`` are spans of length fields inside it (a record's
    two ints; a block's count and buffer-length VInts)."""

    kind: str
    start: int
    end: int
    fields: tuple[tuple[int, int], ...] = ()


@dataclass
class SeqFile:
    """An intact SequenceFile, parsed."""

    name: str
    data: bytes
    version: int
    key_class: str
    value_class: str
    compression: str
    codec: str | None
    sync: bytes | None
    header_end: int
    elements: list[SeqElement] = field(default_factory=list)
    entries: list[SeqEntry] = field(default_factory=list)
    #: the reader has no Writable for its classes: a record followed by damage cannot be
    #: told from one with a wrong length, so it may be lost with the damage.
    unchecked: bool = False

    def sync_starts(self) -> list[int]:
        """Start of every sync marker in the body (for BLOCK files: of every block)."""
        return [e.start for e in self.elements if e.kind in ("sync", "block")]


def _string(data: bytes, pos: int, old: bool) -> tuple[str, int]:
    if old:
        n, start = int.from_bytes(data[pos : pos + 2], "big"), pos + 2
    else:
        n, start = vint(data, pos)
    if start + n > len(data):
        raise ValueError(f"header string at {pos} cut short")
    return data[start : start + n].decode("utf-8", "surrogateescape"), start + n


def parse_seqfile(data: bytes, name: str = "") -> SeqFile:
    """Parse an intact SequenceFile; ``ValueError`` at the first byte that disagrees."""
    if data[:3] != b"SEQ" or not 1 <= data[3] <= 6:
        raise ValueError("no SEQ magic")
    v = data[3]
    key_class, pos = _string(data, 4, v < 4)
    value_class, pos = _string(data, pos, v < 4)
    compressed = block = False
    if v > 2:
        compressed, pos = data[pos] != 0, pos + 1
    if v >= 4:
        block, pos = data[pos] != 0, pos + 1
    codec = None
    if compressed:
        if v >= 5:
            codec, pos = _string(data, pos, False)
        else:
            codec = "org.apache.hadoop.io.compress.DefaultCodec"
    if v >= 6:
        (count,) = struct.unpack_from(">i", data, pos)
        pos += 4
        for _ in range(2 * count):
            n, pos = vint(data, pos)
            pos += n
    sync = None
    if v > 1:
        sync, pos = data[pos : pos + 16], pos + 16
    comp = "block" if block else "record" if compressed else "none"
    f = SeqFile(name, data, v, key_class, value_class, comp, codec, sync, pos)
    f.elements.append(SeqElement("header", 0, pos))
    size = len(data)
    while pos < size:
        if comp == "block":
            if data[pos : pos + 4] != ESCAPE or data[pos + 4 : pos + 20] != sync:
                raise ValueError(f"no sync marker before the block at {pos}")
            at = pos + SYNC_SIZE
            if at == size:
                f.elements.append(SeqElement("sync", pos, at))
                break
            fields = []
            p0 = at
            count, at = vint(data, at)
            fields.append((p0, at))
            bufs = []
            for _ in range(4):
                p0 = at
                n, at = vint(data, at)
                fields.append((p0, at))
                if n < 0 or at + n > size:
                    raise ValueError(f"block buffer at {p0} runs past the end")
                bufs.append(_inflate(codec or "", data[at : at + n]))
                at += n
            el = len(f.elements)
            f.elements.append(SeqElement("block", pos, at, tuple(fields)))
            keys, values = _split(bufs[0], bufs[1], count), _split(bufs[2], bufs[3], count)
            for k, val in zip(keys, values, strict=True):
                f.entries.append(SeqEntry(len(f.entries), k, val, el))
            pos = at
            continue
        if data[pos : pos + 4] == ESCAPE and v > 1:
            if data[pos + 4 : pos + 20] != sync:
                raise ValueError(f"bad sync marker at {pos}")
            f.elements.append(SeqElement("sync", pos, pos + SYNC_SIZE))
            pos += SYNC_SIZE
            continue
        rec, klen = struct.unpack_from(">ii", data, pos)
        if not 0 <= klen <= rec or pos + 8 + rec > size:
            raise ValueError(f"bad record lengths at {pos}")
        end = pos + 8 + rec
        key, value = data[pos + 8 : pos + 8 + klen], data[pos + 8 + klen : end]
        if comp == "record":
            value = _inflate(codec or "", value)
        el = len(f.elements)
        f.elements.append(SeqElement("record", pos, end, ((pos, pos + 4), (pos + 4, pos + 8))))
        f.entries.append(SeqEntry(len(f.entries), key, value, el))
        pos = end
    return f


def _split(lengths: bytes, data: bytes, count: int) -> list[bytes]:
    out, p, at = [], 0, 0
    for _ in range(count):
        n, p = vint(lengths, p)
        out.append(data[at : at + n])
        at += n
    if p != len(lengths) or at != len(data):
        raise ValueError("block lengths do not add up")
    return out


def read_output(out_dir: str) -> tuple[list[tuple[bytes, bytes]], list[str]]:
    """The ``(key content, value content)`` of every entry of every SequenceFile under
    ``out_dir`` (bookkeeping excluded), and one message per file that does not parse."""
    forms: list[tuple[bytes, bytes]] = []
    bad: list[str] = []
    for root, dirs, files in os.walk(out_dir):
        dirs[:] = sorted(d for d in dirs if d != ".crawlmill")
        for name in sorted(files):
            if name.startswith(".") or name.endswith(".crc") or name == "_SUCCESS":
                continue
            path = os.path.join(root, name)
            rel = os.path.relpath(path, out_dir)
            if name == "index" and os.path.exists(os.path.join(root, "data")):
                continue  # a MapFile's index: positions, not records
            try:
                with open(path, "rb") as fh:
                    f = parse_seqfile(fh.read(), rel)
            except Exception as exc:  # noqa: BLE001 - any failure is the finding
                bad.append(f"{rel}: {type(exc).__name__}: {exc}")
                continue
            forms.extend(e.form(f.key_class, f.value_class) for e in f.entries)
    return forms, bad
