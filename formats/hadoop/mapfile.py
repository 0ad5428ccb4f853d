"""Hadoop MapFile (spec section 4): a directory of a sorted SequenceFile ``data`` and its
``index`` (``<key class, LongWritable>``: a key and the byte position in ``data`` to seek to).

* :func:`sort_key` is Hadoop's raw comparator order of a class's serialized keys as bytes that
  compare unsigned (``Text``, ``TextBytes``: the UTF-8 bytes after the VInt length; ``UTF8``:
  after the 2-byte length; ``BytesWritable``: after the 4-byte length; ``IntWritable``,
  ``LongWritable``, ``VIntWritable``, ``VLongWritable``: the number, signed; ``NullWritable``:
  all equal; any other class: its serialized bytes, which is ``MD5Hash``'s and
  ``BooleanWritable``'s comparator).
* :func:`hash_partition` is ``HashPartitioner``: ``(key.hashCode() & Integer.MAX_VALUE) % n``
  with ``Text``/``BytesWritable``/``UTF8``.hashCode = ``WritableComparator.hashBytes`` of the
  content bytes, ``IntWritable`` its value, ``LongWritable`` ``(int)(v ^ v >>> 32)``.
* :class:`MapFile` opens one MapFile directory and answers :meth:`MapFile.get` as
  ``MapFile.Reader.get``: the whole index loaded (an entry at the position of the one before
  it ignored), a binary search for the last index key not above the key, a seek of ``data``
  to its position (the file's first record when the key sorts before every index key) and a
  scan forward to the first key not below it. :func:`mapfile_dirs` lists the MapFiles of a
  directory (itself, or its ``part-NNNNN``/``part-r-NNNNN`` folders; ``.crc``, ``_SUCCESS``,
  ``_logs`` are not data).
* :class:`MapFileWriter` writes ``data`` and ``index`` as Hadoop 3's ``MapFile.Writer``: the
  index BLOCK-compressed with DefaultCodec whatever the data's compression, an entry before
  record ``n`` when ``n >= last indexed + interval`` (128) and the data position moved past
  the last indexed one (so BLOCK data gets one entry per block, at its sync marker), and a key
  lower than the one before it refused (:class:`KeyOrderError`; equal keys are allowed).
  Data of an older SequenceFile version gets the index of the ``MapFile.Writer`` of its time
  (:func:`index_shape`): for SEQ1-SEQ3 (Nutch 0.4-0.7, Hadoop 0.1-0.5) an uncompressed index
  of the data's version whose value class is the ``long`` alias, with an entry before every
  record ``n`` with ``n % interval == 0`` (the 2006 Nutch sample's indexes: SEQ3, ``UTF8`` ->
  ``long``, none compressed); for SEQ4 and SEQ5 a BLOCK + DefaultCodec index of the data's
  version with the same ``n % interval`` rule (the old writer's ``CompressionType.BLOCK``
  index; no sample of these versions survives to confirm it).
"""

from __future__ import annotations

import mmap
import os
import re
import struct
from collections.abc import Iterator
from dataclasses import dataclass, replace
from typing import BinaryIO

from ..codecs.stream import Damage
from .codecs import DEFAULT_CODEC, codec_for
from .sequencefile import Entry, Header, SequenceFileWriter, iter_entries, read_header
from .vint import VIntError, decode_vint, decode_vlong, encode_vlong
from .writables import canonical_name, encode_modified_utf8

__all__ = [
    "mapfile_note",
    "DATA",
    "INDEX",
    "INDEX_INTERVAL",
    "IndexEntry",
    "KeyOrderError",
    "MapFile",
    "MapFileWriter",
    "hash_code",
    "hash_partition",
    "describe",
    "index_shape",
    "is_mapfile",
    "key_from_text",
    "mapfile_dirs",
    "sort_key",
]

DATA, INDEX = "data", "index"
#: ``io.map.index.interval``: an index entry at most every this many records.
INDEX_INTERVAL = 128
LONG = "org.apache.hadoop.io.LongWritable"
H = "org.apache.hadoop.io."
_VINT_CONTENT = {H + "Text", "org.commoncrawl.util.TextBytes", "org.commoncrawl.util.shared.TextBytes"}  # fmt: skip
_SIGNED = {H + "IntWritable": 4, H + "LongWritable": 8}
#: a job's part folder, and the ``-NNNNN`` of the ``mapfile`` writer's rolled-over MapFiles.
_PART = re.compile(r"part-(?:[rm]-)?\d+(?:-\d+)?\Z")


class KeyOrderError(ValueError):
    """A key lower than the key before it (``MapFile.Writer``: "key out of order")."""


def sort_key(key_class: str, key: bytes) -> bytes:
    """Bytes of the serialized ``key`` that compare (unsigned) as Hadoop's raw comparator of
    ``key_class`` compares keys (see the module docstring); bytes whose length prefix does not
    hold compare as they are."""
    name = canonical_name(key_class)
    try:
        if name in _VINT_CONTENT:
            n, start = decode_vint(key, 0)
            return key[start:] if start + n == len(key) else key
        if name == H + "UTF8" and len(key) >= 2:
            return key[2:] if int.from_bytes(key[:2], "big") == len(key) - 2 else key
        if name == H + "BytesWritable" and len(key) >= 4:
            return key[4:] if int.from_bytes(key[:4], "big") == len(key) - 4 else key
        if name in _SIGNED and len(key) == _SIGNED[name]:
            return bytes([key[0] ^ 0x80]) + key[1:]  # sign bit flipped: signed order
        if name in (H + "VIntWritable", H + "VLongWritable"):
            value, end = decode_vlong(key, 0)
            if end == len(key):
                return ((value + (1 << 63)) & ((1 << 64) - 1)).to_bytes(8, "big")
        if name == H + "NullWritable":
            return b""
    except VIntError:
        pass
    return key


def _java_int(value: int) -> int:
    value &= 0xFFFFFFFF
    return value - (1 << 32) if value & 0x80000000 else value


def hash_bytes(data: bytes) -> int:
    """``WritableComparator.hashBytes``: ``h = 31 * h + b`` over signed bytes from 1."""
    h = 1
    for b in data:
        h = (31 * h + (b - 256 if b > 127 else b)) & 0xFFFFFFFF
    return _java_int(h)


def hash_code(key_class: str, key: bytes) -> int:
    """Java's ``hashCode()`` of the serialized ``key`` of ``key_class`` (Text, TextBytes,
    UTF8, BytesWritable: :func:`hash_bytes` of the content; IntWritable, LongWritable: of the
    number; another class: :func:`hash_bytes` of its serialized bytes, a stand-in)."""
    name = canonical_name(key_class)
    if name == H + "IntWritable" and len(key) == 4:
        return struct.unpack(">i", key)[0]
    if name == H + "LongWritable" and len(key) == 8:
        v = struct.unpack(">q", key)[0] & 0xFFFFFFFFFFFFFFFF
        return _java_int(v ^ (v >> 32))
    if name in _VINT_CONTENT or name in (H + "UTF8", H + "BytesWritable"):
        return hash_bytes(sort_key(name, key))
    return hash_bytes(key)


def hash_partition(key_class: str, key: bytes, partitions: int) -> int:
    """Hadoop's ``HashPartitioner``: ``(hashCode & Integer.MAX_VALUE) % partitions``."""
    return (hash_code(key_class, key) & 0x7FFFFFFF) % partitions


def key_from_text(key_class: str, text: str) -> bytes:
    """The serialized key of ``key_class`` that ``text`` names (the UTF-8 bytes of a
    ``Text``/``TextBytes``/``BytesWritable``, modified UTF-8 of a ``UTF8``, a decimal number
    of ``IntWritable``/``LongWritable``/``VIntWritable``/``VLongWritable``); ``ValueError``
    for another class (give the serialized key in hex instead)."""
    name = canonical_name(key_class)
    raw = text.encode("utf-8", "surrogateescape")
    if name in _VINT_CONTENT:
        return encode_vlong(len(raw)) + raw
    if name == H + "BytesWritable":
        return len(raw).to_bytes(4, "big") + raw
    if name == H + "UTF8":
        data = encode_modified_utf8(text)
        return len(data).to_bytes(2, "big") + data
    if name in _SIGNED or name in (H + "VIntWritable", H + "VLongWritable"):
        value = int(text)
        if name in _SIGNED:
            return value.to_bytes(_SIGNED[name], "big", signed=True)
        return encode_vlong(value)
    raise ValueError(f"a {key_class} key cannot be given as text; give its bytes in hex")


# -- directories ---------------------------------------------------------------------------


def is_mapfile(path: str) -> bool:
    """Whether ``path`` is a MapFile directory: ``data`` and ``index`` files in it."""
    return os.path.isfile(os.path.join(path, DATA)) and os.path.isfile(os.path.join(path, INDEX))


def mapfile_dirs(path: str) -> list[str]:
    """The MapFile directories ``path`` is: itself, or its ``part-NNNNN``, ``part-r-NNNNN``,
    ``part-m-NNNNN`` folders holding a ``data`` file (in name order); empty when neither."""
    if is_mapfile(path):
        return [path]
    try:
        names = sorted(os.listdir(path))
    except OSError:
        return []
    found = []
    for name in names:
        sub = os.path.join(path, name)
        if _PART.match(name) and os.path.isfile(os.path.join(sub, DATA)):
            found.append(sub)
    return found


# -- reading -------------------------------------------------------------------------------


@dataclass(frozen=True)
class IndexEntry:
    """One entry of a MapFile's index: the serialized ``key``, the ``position`` in ``data``
    it names, and ``offset``, where the entry is in the index file."""

    key: bytes
    position: int
    offset: int


def _mapped(path: str) -> bytes | mmap.mmap:
    with open(path, "rb") as fh:
        if os.fstat(fh.fileno()).st_size == 0:
            return b""
        return mmap.mmap(fh.fileno(), 0, access=mmap.ACCESS_READ)


class MapFile:
    """One MapFile directory, opened for lookups (``with MapFile(path) as m: m.get(key)``).

    ``header`` is the data file's, ``index`` every index entry in file order,
    ``problems`` what is wrong with the index (damage, a position outside ``data``, a key
    lower than the one before it), each ``(offset in the index file, reason)``."""

    def __init__(
        self,
        path: str,
        *,
        max_record_bytes: int = 256 * 1024 * 1024,
        data: bytes | None = None,
        data_size: int | None = None,
        index: bytes | None = None,
    ) -> None:
        """Open the MapFile folder ``path`` (its ``data`` memory-mapped, its ``index`` read);
        or, for a MapFile whose files the caller fetched (a remote one), check it from the
        given ``index`` bytes and the ``data``'s first bytes and ``data_size``: the index is
        checked as from the files, but lookups need the whole ``data``."""
        self.path = path
        self.data_path = os.path.join(path, DATA)
        self.index_path = os.path.join(path, INDEX)
        self.max_record_bytes = max_record_bytes
        self.data = _mapped(self.data_path) if data is None else data
        self.data_size = len(self.data) if data_size is None else data_size
        try:
            self.header: Header = read_header(self.data)
            self.index_header, self.index = self._read_index(index)
        except Exception:
            self.close()
            raise
        self.problems: list[tuple[int, str]] = []
        self._cache: tuple[int, list[bytes], list[Entry], int] | None = None
        self._check_index()
        # what the lookup searches: entries at a new position only (as Hadoop's readIndex)
        self._keys: list[bytes] = []
        self._positions: list[int] = []
        for e in self.index:
            if self._positions and self._positions[-1] == e.position:
                continue
            self._keys.append(sort_key(self.header.key_class, e.key))
            self._positions.append(e.position)

    def _read_index(self, raw: bytes | None) -> tuple[Header, list[IndexEntry]]:
        if raw is None:
            with open(self.index_path, "rb") as fh:
                raw = fh.read()
        header = read_header(raw)
        self.index_damage: list[Damage] = []
        entries = []
        for item in iter_entries(raw, header, max_record_bytes=self.max_record_bytes):
            if isinstance(item, Entry):
                position = struct.unpack(">q", item.value)[0] if len(item.value) == 8 else -1
                entries.append(IndexEntry(item.key, position, item.offset))
            else:
                self.index_damage.append(item)
        return header, entries

    def _check_index(self) -> None:
        for d in self.index_damage:
            self.problems.append((d.offset, f"index damaged: {d.reason}"))
        if canonical_name(self.index_header.value_class) != LONG:
            self.problems.append(
                (0, f"index values are {self.index_header.value_class}, not LongWritable")
            )
        if self.index_header.key_class != self.header.key_class:
            self.problems.append(
                (0, f"index keys are {self.index_header.key_class}, data keys "
                    f"{self.header.key_class}")  # fmt: skip
            )
        last = None
        for e in self.index:
            if not self.header.length <= e.position < max(self.data_size, self.header.length + 1):
                self.problems.append(
                    (e.offset, f"index position {e.position} is outside the data's records "
                               f"({self.header.length} to {self.data_size})")  # fmt: skip
                )
            k = sort_key(self.header.key_class, e.key)
            if last is not None and k < last:
                self.problems.append((e.offset, "index key lower than the one before it"))
            last = k

    def close(self) -> None:
        """Release the data file."""
        if isinstance(self.data, mmap.mmap):
            self.data.close()

    def __enter__(self) -> MapFile:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def entries_from(self, position: int) -> Iterator[Entry | Damage]:
        """The data's entries (and damaged ranges) from byte ``position`` on, which must be
        where a record, a sync marker or a block starts."""
        header = replace(self.header, length=position)
        return iter_entries(self.data, header, max_record_bytes=self.max_record_bytes)

    def _search(self, key: bytes) -> int:
        """Java's ``binarySearch`` over the index keys: an index with that key, else
        ``-(insertion point) - 1``."""
        low, high = 0, len(self._keys) - 1
        while low <= high:
            mid = (low + high) >> 1
            if self._keys[mid] < key:
                low = mid + 1
            elif self._keys[mid] > key:
                high = mid - 1
            else:
                return mid
        return -(low + 1)

    def seek_position(self, key: bytes) -> int:
        """Where ``MapFile.Reader`` starts scanning for the serialized ``key``."""
        at = self._search(sort_key(self.header.key_class, key))
        if at < 0:
            at = -at - 2
        return self.header.length if at == -1 else self._positions[at]

    def _scan(self, position: int) -> Iterator[tuple[bytes, Entry]]:
        """``(sort key, entry)`` of the data's entries from ``position`` on; the last BLOCK
        block read is kept decoded, so lookups in one block inflate it once."""
        kc = self.header.key_class
        pos = position
        if self.header.compression == "block":
            while pos < len(self.data):
                if self._cache is None or self._cache[0] != pos:
                    entries = []
                    for item in self.entries_from(pos):
                        if not isinstance(item, Entry) or item.offset != pos:
                            break
                        entries.append(item)
                    if not entries:
                        break  # damage (or an empty block) here: read on as it comes
                    keys = [sort_key(kc, e.key) for e in entries]
                    self._cache = (pos, keys, entries, pos + entries[0].length)
                _, keys, entries, end = self._cache
                yield from zip(keys, entries, strict=True)
                pos = end
            else:
                return
        for item in self.entries_from(pos):
            if isinstance(item, Entry):
                yield sort_key(kc, item.key), item

    def get(self, key: bytes) -> Entry | None:
        """The first entry at or after the index's position whose key equals the serialized
        ``key`` (``MapFile.Reader.get``), or ``None``."""
        want = sort_key(self.header.key_class, key)
        for have, item in self._scan(self.seek_position(key)):
            if want <= have:
                return item if want == have else None
        return None


# -- writing -------------------------------------------------------------------------------


@dataclass(frozen=True)
class IndexShape:
    """The ``index`` file ``MapFile.Writer`` wrote beside data of one SequenceFile version."""

    version: int
    compression: str
    value_class: str
    #: Hadoop 2/3's rule (an entry only where the data position moved) or the old one.
    moved_only: bool


def index_shape(version: int, key_class: str) -> IndexShape:
    """The index of the ``MapFile.Writer`` that wrote data of SequenceFile ``version`` (and
    key class ``key_class``; module docstring): SEQ6 Hadoop 3's, SEQ4/5 BLOCK with the old
    indexing rule, SEQ1-3 uncompressed with the ``long`` alias."""
    if version >= 6:
        return IndexShape(6, "block", LONG, True)
    alias = version <= 3 or canonical_name(key_class) != key_class
    value_class = "long" if alias else LONG
    return IndexShape(version, "block" if version >= 4 else "none", value_class, False)


class MapFileWriter:
    """``data`` and ``index`` written as Hadoop 3's ``MapFile.Writer`` (module docstring).

    Takes the arguments of :class:`~crawlmill.formats.hadoop.sequencefile.SequenceFileWriter`
    for the data file and offers its interface (``header``, ``pos``, ``records``,
    ``append``, ``sync``, ``flush_block``, ``close``), so what writes a SequenceFile writes a
    MapFile; ``index_interval`` is ``io.map.index.interval``."""

    def __init__(
        self,
        data: BinaryIO,
        index: BinaryIO,
        key_class: str,
        value_class: str,
        *,
        index_interval: int = INDEX_INTERVAL,
        index_sync: bytes | None = None,
        **options: object,
    ) -> None:
        self.data = SequenceFileWriter(data, key_class, value_class, **options)  # type: ignore[arg-type]
        shape = index_shape(self.data.header.version, key_class)
        self.index = SequenceFileWriter(
            index, key_class, shape.value_class, compression=shape.compression,
            codec=codec_for(DEFAULT_CODEC) if shape.compression == "block" else None,
            sync=index_sync, version=shape.version,
        )  # fmt: skip
        self.moved_only = shape.moved_only
        self.header = self.data.header
        self.interval = index_interval
        self.records = 0
        self.last_index_count = None  # Long.MIN_VALUE: record 0 is always indexed
        self.last_index_pos = -1
        self._last_key: bytes | None = None

    @property
    def pos(self) -> int:
        """Bytes written to ``data`` so far."""
        return self.data.pos

    def check_key(self, key: bytes) -> None:
        """:class:`KeyOrderError` when ``key`` is lower than the last key appended."""
        k = sort_key(self.header.key_class, key)
        if self._last_key is not None and k < self._last_key:
            raise KeyOrderError(
                f"key out of order: {key[:80]!r} after a greater key"
                " (a MapFile's keys must not decrease)"
            )

    def append(
        self, key: bytes, value: bytes, stored_value: bytes | None = None, *, sync: bool = True
    ) -> None:
        """Add one entry (serialized key and value), indexing it as Hadoop does."""
        self.check_key(key)
        self._last_key = sort_key(self.header.key_class, key)
        pos = self.data.pos
        if not self.moved_only:  # the old writers: every interval-th record, moved or not
            index_it = self.records % self.interval == 0
        else:
            due = self.last_index_count is None or self.records >= self.last_index_count + self.interval
            index_it = due and pos > self.last_index_pos
        if index_it:
            self.index.append(key, struct.pack(">q", pos))
            self.last_index_pos, self.last_index_count = pos, self.records
        self.data.append(key, value, stored_value, sync=sync)
        self.records += 1

    def sync(self) -> None:
        """A sync marker in ``data`` here (see ``SequenceFileWriter.sync``)."""
        self.data.sync()

    def flush_block(self) -> None:
        """Write ``data``'s buffered entries as one block."""
        self.data.flush_block()

    def close(self) -> None:
        """Flush both files (the caller closes the streams)."""
        self.data.close()
        self.index.close()


def _describe_header(h: Header) -> str:
    packed = {"none": "not compressed", "record": "RECORD-compressed",
              "block": "BLOCK-compressed"}[h.compression]  # fmt: skip
    if h.codec:
        packed += f" ({h.codec.rsplit('.', 1)[-1]})"
    meta = f", {len(h.metadata)} metadata pair(s)" if h.metadata else ""
    return f"Hadoop SequenceFile SEQ{h.version}, keys {h.key_class}, values {h.value_class}, {packed}{meta}"


def describe(path: str) -> str | None:
    """What ``path`` is, in one line: a SequenceFile's version, classes and compression, and
    whether it is a MapFile's ``data`` (an ``index`` beside it: its entries); a MapFile
    directory or a folder of MapFile parts; ``None`` when neither."""
    if os.path.isdir(path):
        dirs = mapfile_dirs(path)
        if not dirs:
            return None
        first = describe(os.path.join(dirs[0], DATA))
        if dirs == [path]:
            return f"Hadoop MapFile (data + index): data is a {first}"
        return f"{len(dirs)} Hadoop MapFile part(s); the first's data is a {first}"
    try:
        with open(path, "rb") as fh:
            h = read_header(fh.read(1 << 20))
    except (OSError, ValueError):
        return None
    return _describe_header(h) + mapfile_note(path)


def mapfile_note(path: str) -> str:
    """``"; the data of a MapFile, ..."`` when ``path`` is the ``data`` of a MapFile (an
    ``index`` beside it, with its entry count), else ``""``."""
    if os.path.basename(path) != DATA or not is_mapfile(os.path.dirname(path) or "."):
        return ""
    try:
        with MapFile(os.path.dirname(path) or ".") as m:
            return f"; the data of a MapFile, its index beside it with {len(m.index)} entries"
    except (OSError, ValueError) as exc:
        return f"; the data of a MapFile whose index cannot be read ({exc})"
