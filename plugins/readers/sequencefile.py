"""The ``sequencefile`` reader: Hadoop SequenceFiles (SEQ1 to SEQ6; NONE, RECORD and BLOCK
compression; every codec of :mod:`crawlmill.formats.hadoop.codecs`) as crawlmill records.

One Record per entry, mapped at parse time:

* ``url``: the key, when its class is ``Text``, ``UTF8`` or ``TextBytes`` and it reads as a
  URL (a scheme and ``://``, or ``dns:``/``urn:``/``mailto:``, then no control character);
  other keys have no URL;
* the value's *content* (the bytes after the length prefix of ``Text``, ``TextBytes``,
  ``UTF8`` and ``BytesWritable``; the whole serialized value of every other class): when it
  starts with an HTTP status line, a ``response`` with ``http_head`` and ``payload`` split at
  the blank line (as the ARC reader splits a block; what the ``sequencefile`` writer writes
  from a response); otherwise a ``resource`` whose ``payload`` is the content;
* ``extras["sequencefile"]`` (:class:`crawlmill.formats.hadoop.extras.SequenceFileExtras`):
  the file's classes, compression, codec, metadata and sync hash, the serialized key, the
  entry's number, block and sync marker, and the values the classes' Writables decode (a
  ``Text``/``BytesWritable``-like value only when it is not the payload already), so a
  SequenceFile copies to a SequenceFile with the same entries byte for byte (NONE and RECORD
  files to the same bytes);
* ``extras["neutral"]["source_key"]``: the key's class and bytes and the value's class, for
  writers of other formats (a WARC writer writes them as ``WARC-Source-Key`` fields, so a
  key that is not a URL is not lost and SequenceFile -> WARC -> SequenceFile gives back every
  key and value byte for byte).

A class no registered Writable answers to is read all the same: its bytes are the payload.
A key or value its Writable cannot read exactly is a ``value-not-its-class`` warning (the
bytes are kept); a record length those checks and the next bytes disprove, a corrupt block,
a cut file are damage with their offset, and reading resumes at the next sync marker.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

from crawlmill.core import (
    Damage,
    PluginOptions,
    Provenance,
    ReadContext,
    Reader,
    Record,
    RecordKind,
    hookimpl,
    storage,
)
from crawlmill.core.record import OffsetSpace
from crawlmill.formats.codecs.member_source import HeldMembers
from crawlmill.formats.hadoop.extras import SequenceFileExtras
from crawlmill.formats.hadoop.mapfile import mapfile_note
from crawlmill.formats.hadoop.sequencefile import Entry, HeaderError, iter_entries, read_header
from crawlmill.formats.hadoop.writables import (
    MapValue,
    canonical_name,
    content_of,
    decode_modified_utf8,
    prefixed,
)
from crawlmill.formats.http.head import content_type as http_content_type
from crawlmill.formats.http.head import split_response
from crawlmill.plugins.writables.lookup import find_writable
from pydantic import Field

__all__ = ["SequenceFileReader", "url_of_key"]

H = "org.apache.hadoop.io."
_TEXT_KEYS = {H + "Text", "org.commoncrawl.util.TextBytes", "org.commoncrawl.util.shared.TextBytes"}
_URL = re.compile(r"(?:[A-Za-z][A-Za-z0-9+.-]*://|dns:|urn:|mailto:)[^\x00-\x1f\x7f]*\Z")


def url_of_key(key_class: str, key: bytes) -> str | None:
    """The URL a key holds, or ``None``: ``Text``/``TextBytes``/``UTF8`` keys that read as a
    URL (bytes that are not UTF-8 survive as surrogate escapes)."""
    name = canonical_name(key_class)
    if name == H + "UTF8":
        try:
            text = decode_modified_utf8(content_of(name, key))
        except ValueError:
            return None
    elif name in _TEXT_KEYS:
        text = content_of(name, key).decode("utf-8", "surrogateescape")
    else:
        return None
    return text if _URL.match(text) else None


def plain(value: Any) -> Any:
    """A decoded Writable value as plain data (a ``MapValue`` as ``{"classes", "entries"}``)."""
    if isinstance(value, MapValue):
        return {
            "classes": [list(c) for c in value.classes],
            "entries": [[kc, plain(k), vc, plain(v)] for kc, k, vc, v in value.entries],
        }
    if isinstance(value, list):
        return [plain(v) for v in value]
    return value


class SequenceFileReader(Reader):
    """Hadoop SequenceFiles (SEQ1-6; NONE, RECORD, BLOCK; zlib, gzip, bzip2, Snappy, LZ4, zstd)."""

    name = "sequencefile"
    file_suffixes = (".seq",)

    class Options(PluginOptions):
        """Options of the SequenceFile reader."""

        decode: bool = Field(
            True,
            description="decode keys and values with their classes' Writables (checks that each "
            "is exactly one value of its class, keeps the values in extras); false: bytes only",
        )

    @classmethod
    def sniff(cls, path: str, head: bytes) -> float:
        """Sure when the file starts with ``SEQ`` and a version byte 1-6 and its header
        parses; likely with the magic alone."""
        if len(head) < 4 or head[:3] != b"SEQ" or not 1 <= head[3] <= 6:
            return 0.0
        try:
            read_header(head)
        except HeaderError:
            return 0.6
        return 0.95

    @classmethod
    def describe(cls, path: str, head: bytes) -> str | None:
        """The header's version, compression and classes, each class with the first line
        of its Writable's docstring when one is registered (``Nutch Content: ...``)."""
        try:
            header = read_header(head)
        except HeaderError:
            return None
        names = []
        for java in (header.key_class, header.value_class):
            w = find_writable(java) or find_writable(canonical_name(java))
            summary = (w.__doc__ or "").strip().splitlines()[0] if w is not None else ""
            names.append(f"{java} ({summary.rstrip('.')})" if summary else java)
        codec = f" {header.codec.rsplit('.', 1)[-1]}" if header.codec else ""
        line = (f"SequenceFile SEQ{header.version}, {header.compression.upper()}{codec}: "
                f"{names[0]} -> {names[1]}")  # fmt: skip
        return line + mapfile_note(path)

    def read(self, ctx: ReadContext) -> Iterator[Record]:
        """Yield every entry; report damage with its offset and resync at the next sync
        marker."""
        path = ctx.path
        with storage.mapped(path) as data:
            if len(data) == 0:
                ctx.report_damage(
                    Damage(
                        path, 0, "empty file: no SequenceFile header", 0, b"", "truncated-record"
                    )
                )
                return
            # lent to writers: an unchanged NONE/RECORD entry's frame is copied from it
            held = HeldMembers()
            held.hold(data, 0, len(data))
            try:
                yield from self._read(ctx, data, held)
            finally:
                held.release()

    def _read(
        self, ctx: ReadContext, data: Any, held: HeldMembers | None = None
    ) -> Iterator[Record]:
        path = ctx.path
        limits = ctx.limits
        try:
            header = read_header(data, limits.max_header_bytes)
        except HeaderError as exc:
            chunk = data[: limits.max_record_bytes]
            reason = f"not a SequenceFile: {exc}"
            ctx.report_damage(Damage(path, 0, reason, len(data), chunk, exc.code))
            return
        decoding = bool(getattr(self.options, "decode", True))
        key_w = _writable(header.key_class) if decoding else None
        value_w = _writable(header.value_class) if decoding else None
        check = None
        if key_w is not None and value_w is not None:

            def check(key: bytes, value: bytes) -> bool:
                try:
                    key_w.read(key), value_w.read(value)
                except Exception:
                    return False
                return True

        file_extras: SequenceFileExtras = {
            "version": header.version,
            "key_class": header.key_class,
            "value_class": header.value_class,
            "compression": header.compression,
            "codec": header.codec,
            "metadata": list(header.metadata),
        }
        if header.sync is not None:
            file_extras["sync"] = header.sync
        n = damaged = 0
        items = iter_entries(
            data,
            header,
            max_record_bytes=limits.max_record_bytes,
            max_decompressed_bytes=limits.max_decompressed_bytes,
            check=check,
        )
        for item in items:
            if not isinstance(item, Entry):
                ctx.report_damage(
                    Damage(path, item.offset, item.reason, item.length, item.data, item.code)
                )
                damaged += 1
                continue
            record = self._record(ctx, header, file_extras, item, n, key_w, value_w, held)
            item = None  # the entry's value bytes go with it (the record holds the content)
            yield record
            n += 1
        # no record carries the header: only the sequencefile writer keeps it, say so
        if n == 0 and not damaged:
            ctx.report_warning(
                "no-entries",
                f"{path}: a SequenceFile header ({header.key_class} -> {header.value_class}, "
                f"{len(header.metadata)} metadata entries) with no entries: no record (the "
                "sequencefile writer writes an empty file with this header; other writers "
                "write nothing for it)",
                0,
            )

    def _record(self, ctx: ReadContext, header: Any, file_extras: SequenceFileExtras,
                entry: Entry, n: int, key_w: Any, value_w: Any,
                held: HeldMembers | None = None) -> Record:  # fmt: skip
        extras: SequenceFileExtras = {**file_extras, "key": entry.key, "entry": n}
        value_prefixed = prefixed(header.value_class)
        content = content_of(header.value_class, entry.value)
        if content is entry.value and value_prefixed:  # a prefix that disagrees: keep the bytes
            extras["value"] = entry.value
        if entry.stored_value is not None:
            extras["stored_value"] = entry.stored_value
        if entry.block is not None:
            extras["block"] = entry.block
        if entry.sync_before:
            extras["sync_before"] = True
        decoded: dict[str, Any] = {}
        for what, w, raw in (("key", key_w, entry.key), ("value", value_w, entry.value)):
            if w is None:
                continue
            if what == "value" and value_prefixed and content is not entry.value:
                continue  # a length prefix that holds: the payload is the value, not copied
            try:
                decoded[what] = plain(w.read(raw))
            except Exception as exc:
                ctx.report_warning(
                    "value-not-its-class",
                    f"{what} of entry {n} is not one {w.name}: {exc}; its bytes are kept",
                    entry.offset,
                )
        if decoded:
            extras["decoded"] = decoded
        http_head, payload = split_response(content) if content[:5] == b"HTTP/" else (None, content)
        media = charset = None
        kind = RecordKind.RESOURCE
        if http_head is not None:
            kind = RecordKind.RESPONSE
            media, charset = http_content_type(http_head)
        if entry.block is None:
            source = Provenance(
                ctx.path, entry.offset, entry.length, "sequencefile", OffsetSpace.FILE, held
            )
        else:  # an entry of a compressed block: the block's offset, no length of its own
            source = Provenance(ctx.path, entry.offset, None, "sequencefile", OffsetSpace.FILE)
        return Record(
            kind, url_of_key(header.key_class, entry.key), None, None, None, http_head, payload,
            media, charset, None, None, [], {"sequencefile": extras, "neutral": {"source_key": {
                "key_class": header.key_class, "key": entry.key,
                "value_class": header.value_class}}}, source,
        )  # fmt: skip


def _writable(java_name: str) -> Any:
    cls = find_writable(java_name) or find_writable(canonical_name(java_name))
    return cls() if cls is not None else None


@hookimpl
def crawlmill_register_readers(register) -> None:
    """Register the ``sequencefile`` reader."""
    register(SequenceFileReader)
