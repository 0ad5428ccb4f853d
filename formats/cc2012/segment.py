"""Common Crawl 2012 parse-output segments: file names, the ``metadata-NNNNN`` and
``textData-NNNNN`` SequenceFiles, and the join of their entries with the ARC records by URL.

A segment folder (``parse-output/segment/<segmentId>/``) holds, per Hadoop task partition
``n``: ``<arcFileDate>_<n>.arc.gz`` (one or more ARC files; ``arcFileDate`` is the ms time the
ARC was opened), ``metadata-<n:05d>`` (URL -> metadata JSON) and ``textData-<n:05d>`` (URL ->
UTF-8 text, only for pages with text). Both SequenceFiles are BLOCK-compressed SEQ6 files with
empty metadata (``ParserOutputFormat``); their classes and codecs changed in July 2012
(:data:`VARIANTS`, spec hadoop-nutch.md section 9): ``text-gzip`` = ``Text`` keys and values,
GzipCodec for both files; ``textbytes-snappy`` = ``org.commoncrawl.util.TextBytes`` (the same
bytes as ``Text``), metadata GzipCodec, textData SnappyCodec.

:class:`OrderedJoin` finds the value of a URL in a stream of entries expected in about the order
of the lookups (the crawler wrote the ARC record, the metadata and the text of a page from one
map call, so the three files share an order): it reads ahead and holds what it passed over, up
to ``max_bytes`` of keys and values; beyond that the oldest held entries are handed out
unjoined (or reading stops), so memory stays bounded whatever the order.

:func:`archive_info` is the ``archiveInfo`` object of a capture's metadata JSON (where the
crawler put its raw content: ``arcSourceSegmentId``, ``arcFileDate``, ``arcFileParition``
(sic), ``arcFileOffset``: the byte offset of the record's gzip member in the ARC file,
``compressedSize``: the member's length; all integers, the last member of the JSON), so that
``parse-output/segment/<arcSourceSegmentId>/<arcFileDate>_<arcFileParition>.arc.gz`` read
from ``arcFileOffset`` for ``compressedSize`` bytes is the record; :func:`with_archive_info`
sets it in stored JSON bytes without touching their other bytes.
"""

from __future__ import annotations

import json
import os
import re
from collections import OrderedDict, deque
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from typing import Any, BinaryIO

from ..codecs.stream import Damage
from ..hadoop.codecs import codec_named
from ..hadoop.sequencefile import Entry, Header, SequenceFileWriter, iter_entries
from ..hadoop.vint import encode_vlong
from ..hadoop.writables import content_of

__all__ = [
    "ARC_NAME",
    "METADATA_NAME",
    "TEXT_NAME",
    "ARCHIVE_INFO_KEYS",
    "VARIANTS",
    "OrderedJoin",
    "Partition",
    "SegmentFiles",
    "Variant",
    "archive_info",
    "iter_pairs",
    "link_pairs",
    "partitions",
    "with_archive_info",
]

TEXT_CLASS = "org.apache.hadoop.io.Text"
TEXTBYTES_CLASS = "org.commoncrawl.util.TextBytes"
METADATA_NAME = re.compile(r"metadata-([0-9]+)\Z")
TEXT_NAME = re.compile(r"textData-([0-9]+)\Z")
#: ``<arcFileDate>_<partition>.arc.gz`` (and ``.arc``).
ARC_NAME = re.compile(r"([0-9]+)_([0-9]+)\.arc(?:\.gz)?\Z")


#: the fields of ``archiveInfo``, in the crawler's order (``arcFileParition``: its spelling).
ARCHIVE_INFO_KEYS = ("arcSourceSegmentId", "arcFileDate", "arcFileParition", "arcFileOffset",
                     "compressedSize")  # fmt: skip
_ARCHIVE_INFO = re.compile(rb'"archiveInfo"\s*:\s*\{[^{}]*\}')


def archive_info(
    segment_id: int, arc_date: int, partition: int, offset: int, size: int
) -> dict[str, int]:
    """The ``archiveInfo`` of a record at ``offset`` (its gzip member ``size`` bytes long) in
    ``<arc_date>_<partition>.arc.gz`` of segment ``segment_id``."""
    return dict(
        zip(ARCHIVE_INFO_KEYS, (segment_id, arc_date, partition, offset, size), strict=True)
    )


def with_archive_info(json_bytes: bytes, info: dict[str, int]) -> bytes:
    """``json_bytes`` (one JSON object) whose top-level ``archiveInfo`` is ``info``: the bytes
    as they are when it already is; else the stored object replaced where it stands, or
    ``info`` added as the last member, every other byte kept (``ValueError``: no JSON
    object)."""
    data = json.loads(json_bytes)
    if not isinstance(data, dict):
        raise ValueError("metadata JSON is not an object")
    if data.get("archiveInfo") == info:
        return json_bytes
    new = b'"archiveInfo":' + json.dumps(info, separators=(",", ":")).encode()
    found = list(_ARCHIVE_INFO.finditer(json_bytes))
    if "archiveInfo" in data and len(found) == 1:
        m = found[0]
        return json_bytes[: m.start()] + new + json_bytes[m.end() :]
    if "archiveInfo" not in data:
        end = json_bytes.rindex(b"}")
        return json_bytes[:end] + (b"," if data else b"") + new + json_bytes[end:]
    data["archiveInfo"] = info  # held where a plain splice is unsure: written anew
    return json.dumps(data, ensure_ascii=False, separators=(",", ":")).encode("utf-8")


@dataclass(frozen=True)
class Variant:
    """One historic shape of the two SequenceFiles: their key/value class and codecs."""

    name: str
    key_class: str
    metadata_codec: str
    text_codec: str


VARIANTS = {
    "text-gzip": Variant("text-gzip", TEXT_CLASS, "gzip", "gzip"),
    "textbytes-snappy": Variant("textbytes-snappy", TEXTBYTES_CLASS, "gzip", "snappy"),
}


@dataclass
class Partition:
    """The files of one partition of a segment: its ARC files (by ``arcFileDate``), its
    metadata and textData files (``None`` when absent)."""

    number: int
    arcs: list[str]
    metadata: str | None = None
    text: str | None = None


def partitions(folder: str) -> dict[int, Partition]:
    """Partition number -> its files, for the segment ``folder`` (other names ignored)."""
    found: dict[int, Partition] = {}
    for name in sorted(os.listdir(folder)):
        path = os.path.join(folder, name)
        if not os.path.isfile(path):
            continue
        if m := ARC_NAME.match(name):
            n = int(m.group(2))
            found.setdefault(n, Partition(n, [])).arcs.append(path)
        elif m := METADATA_NAME.match(name):
            found.setdefault(int(m.group(1)), Partition(int(m.group(1)), [])).metadata = path
        elif m := TEXT_NAME.match(name):
            found.setdefault(int(m.group(1)), Partition(int(m.group(1)), [])).text = path
    for part in found.values():
        part.arcs.sort(key=lambda p: int(ARC_NAME.match(os.path.basename(p)).group(1)))  # type: ignore[union-attr]
    return dict(sorted(found.items()))


def iter_pairs(
    data: Any, header: Header, **limits: int
) -> Iterator[tuple[bytes, bytes, Entry] | Damage]:
    """``(key content, value content, entry)`` of every entry of a metadata or textData file
    (``Text``/``TextBytes``: the bytes after the VInt length), and every damaged range. The
    entry's ``value`` is emptied once its content is cut from it (a block's entries are
    held until the last is read: a large value would be held twice)."""
    for item in iter_entries(data, header, **limits):
        if isinstance(item, Entry):
            value, item.value = content_of(header.value_class, item.value), b""
            yield content_of(header.key_class, item.key), value, item
            value = b""
        else:
            yield item


def link_pairs(metadata: dict[str, Any]) -> list[tuple[str, str]]:
    """``(href, text)`` of the JSON's ``content.links``, of its feed items' links (an object or
    an array) and of the links of the items' ``content``."""
    content = metadata.get("content")
    if not isinstance(content, dict):
        return []
    found = []
    for link in content.get("links") or []:
        if isinstance(link, dict) and isinstance(link.get("href"), str):
            found.append((link["href"], str(link.get("text") or "")))
    for item in content.get("items") or []:
        if not isinstance(item, dict):
            continue
        link = item.get("link")  # an object, or an array of Atom links
        for one in link if isinstance(link, list) else [link]:
            if isinstance(one, dict) and isinstance(one.get("href"), str):
                found.append((one["href"], str(item.get("title") or "")))
        inner = item.get("content")  # the links of the item's HTML, one object or several
        for obj in inner if isinstance(inner, list) else [inner]:
            for one in (obj.get("links") or []) if isinstance(obj, dict) else []:
                if isinstance(one, dict) and isinstance(one.get("href"), str):
                    found.append((one["href"], str(one.get("text") or "")))
    return found


class OrderedJoin:
    """Values by key from ``items`` (``(key, value, extra)``), read ahead as far as a lookup
    needs, in a window of at most ``max_bytes`` of held keys and values.

    A lookup first takes a held entry of its key, then reads the stream: entries that
    ``hold(value)`` declines (a failure no ARC record asks for) go to :attr:`passed` at once
    (a lookup pauses when they reach ``max_bytes``: :attr:`paused`); others are held for
    later lookups. With ``slide`` (the metadata, looked up by ARC
    records that all have an entry) a full window hands its oldest entries out to
    :attr:`passed` (counted in :attr:`evicted`) and one lookup reads at most ``max_bytes``;
    without it (the text, a subsequence of the metadata) a lookup stops reading when the
    window is full, so an entry without text costs no reading beyond it. What no lookup
    took comes out of :meth:`rest`."""

    def __init__(
        self,
        items: Iterable[tuple[bytes, bytes, Any]],
        max_bytes: int,
        hold: Callable[[bytes], bool] = lambda value: True,
        slide: bool = True,
    ) -> None:
        self._items = iter(items)
        self._next: tuple[bytes, bytes, Any] | None = None
        self._held: OrderedDict[int, tuple[bytes, bytes, Any]] = OrderedDict()
        self._by_key: dict[bytes, deque[int]] = {}
        self._n = 0
        self._bytes = 0
        self.max_bytes = max_bytes
        self.hold = hold
        self.slide = slide
        self.passed: list[tuple[bytes, bytes, Any]] = []
        self._passed_bytes = 0
        #: entries handed out unjoined because the window was full.
        self.evicted = 0
        #: the last lookup stopped because :attr:`passed` holds ``max_bytes``: hand them out
        #: (:meth:`take_passed`) and look up again.
        self.paused = False

    def _read(self) -> tuple[bytes, bytes, Any] | None:
        if self._next is not None:
            item, self._next = self._next, None
            return item
        return next(self._items, None)

    def take(self, key: bytes) -> tuple[bytes, Any] | None:
        """``(value, extra)`` of the first unjoined entry of ``key``, or ``None``."""
        self.paused = False
        queue = self._by_key.get(key)
        if queue:
            return self._pop(key, queue)
        read = 0
        while (item := self._read()) is not None:
            if item[0] == key:
                return item[1], item[2]
            if not self.hold(item[1]):
                self._pass(item)
                if self._passed_bytes > self.max_bytes:
                    self.paused = True
                    return None
                continue
            size = len(item[0]) + len(item[1])
            if not self.slide and self._held and self._bytes + size > self.max_bytes:
                self._next = item  # the window is full: read no further
                return None
            self._held[self._n] = item
            self._by_key.setdefault(item[0], deque()).append(self._n)
            self._n += 1
            self._bytes += size
            read += size
            while self.slide and self._bytes > self.max_bytes and len(self._held) > 1:
                n, old = self._held.popitem(last=False)
                self._unindex(old[0], n)
                self._bytes -= len(old[0]) + len(old[1])
                self._pass(old)
                self.evicted += 1
            if read > self.max_bytes:
                return None
        return None

    def _pass(self, item: tuple[bytes, bytes, Any]) -> None:
        self.passed.append(item)
        self._passed_bytes += len(item[0]) + len(item[1])

    def _pop(self, key: bytes, queue: deque[int]) -> tuple[bytes, Any]:
        n = queue.popleft()
        if not queue:
            del self._by_key[key]
        item = self._held.pop(n)
        self._bytes -= len(item[0]) + len(item[1])
        return item[1], item[2]

    def _unindex(self, key: bytes, n: int) -> None:
        queue = self._by_key[key]
        queue.remove(n)
        if not queue:
            del self._by_key[key]

    def take_passed(self) -> list[tuple[bytes, bytes, Any]]:
        """The entries passed over since the last call (and forget them)."""
        out, self.passed, self._passed_bytes = self.passed, [], 0
        return out

    def rest(self) -> Iterator[tuple[bytes, bytes, Any]]:
        """Every entry no lookup took: the passed and held ones, then the rest of the
        stream."""
        yield from self.take_passed()
        while self._held:
            _, item = self._held.popitem(last=False)
            self._bytes -= len(item[0]) + len(item[1])
            yield item
        self._by_key.clear()
        while (item := self._read()) is not None:
            yield item


class SegmentFiles:
    """Writes the ``metadata`` and ``textData`` SequenceFiles of one partition as the 2012
    crawler did (SEQ6, BLOCK, empty metadata, the ``variant``'s classes and codecs); no
    textData file when ``text_out`` is ``None``."""

    def __init__(self, metadata_out: BinaryIO, text_out: BinaryIO | None, variant: Variant) -> None:
        self.variant = variant
        self.outs = [o for o in (metadata_out, text_out) if o is not None]
        self.metadata = self._writer(metadata_out, variant.metadata_codec)
        self.text = self._writer(text_out, variant.text_codec) if text_out is not None else None

    def _writer(self, out: BinaryIO, codec: str) -> SequenceFileWriter:
        cls = self.variant.key_class
        return SequenceFileWriter(out, cls, cls, compression="block", codec=codec_named(codec))

    @staticmethod
    def _text(data: bytes) -> bytes:
        return encode_vlong(len(data)) + data

    def add_metadata(self, url: bytes, json_bytes: bytes) -> None:
        """One metadata entry: URL -> JSON (UTF-8)."""
        self.metadata.append(self._text(url), self._text(json_bytes))

    def add_text(self, url: bytes, text: bytes) -> None:
        """One textData entry: URL -> text (UTF-8); an empty text is not written (as the
        crawler skipped it)."""
        if text and self.text is not None:
            self.text.append(self._text(url), self._text(text))

    def close(self) -> None:
        """Flush the last blocks and close the streams."""
        try:
            self.metadata.close()
            if self.text is not None:
                self.text.close()
        finally:
            for out in self.outs:
                out.close()
