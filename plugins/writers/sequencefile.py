"""The ``sequencefile`` writer: Hadoop SequenceFiles as Hadoop 3 writes them, from any reader's
records.

The file: SEQ6 (``version`` gives the older shapes: SEQ5 without metadata, SEQ4 without a
codec name, SEQ3 with UTF8 class names and only DefaultCodec RECORD, SEQ2/SEQ1 uncompressed),
a random sync hash, a sync marker when a record starts ``sync_interval`` (100 KiB) or more after
the last one, ``compression`` none (default), record or block with a ``codec``; BLOCK blocks
hold ``block_size`` (1 000 000) uncompressed key + value bytes. Options left unset follow the
source when the task's first record comes from a SequenceFile (its classes, version,
compression, codec, metadata and sync hash), else the classes of its kept source key (a WARC
record's ``WARC-Source-Key-Class`` and ``-Value-Class``), else Text keys and BytesWritable values.

An entry per record:

* key: an unchanged record of a SequenceFile of the same key class keeps its key bytes; a
  record that kept a source key of this class (``extras["neutral"]["source_key"]``, a WARC
  record's ``WARC-Source-Key``) and whose URL no filter changed gets that key; otherwise the key is the record's ``url`` as the key class writes text (``Text``,
  ``TextBytes``, ``UTF8``; ``BytesWritable``: its UTF-8 bytes); a record without one (a
  ``warcinfo``) gets an empty key;
* value: ``http_head`` + ``payload`` (the HTTP response as the server sent it; a WARC
  ``response`` whole, a ``resource`` its payload), written as the value class's content
  (``BytesWritable``/``Text``: a length prefix; another class: the bytes as they are, which its
  Writable must read as exactly one value, else the record is quarantined), except that an
  unchanged record of a SequenceFile keeps its value bytes (and a RECORD file's compressed
  value when the codec is the same). An unchanged entry of a NONE or RECORD file written
  like its source is copied raw: its whole record frame, from the reader's map of the input
  (:mod:`~crawlmill.plugins.writers.sequencefile_raw`), the same bytes without decoding
  and encoding its value again.

So SequenceFile -> SequenceFile keeps every entry byte for byte (NONE and RECORD files with
their sync markers where the source had them: the same bytes), and WARC -> SequenceFile gives
``Text`` URL -> ``BytesWritable`` response, the layout of Common Crawl's and Nutch's
URL-keyed files. Record kinds, dates and other WARC fields have no place in a SequenceFile:
use the ``kind`` filter to keep the responses only. A record whose key class cannot hold its
URL, or a value its class refuses, is quarantined (``unwritable-record``).

An input that is a SequenceFile with a header and no entries gives a SequenceFile with that
header and no entries (its classes, version, compression, codec, metadata and sync hash), as
Hadoop writes an empty file: no record carries them, so the writer reads them from the input.
"""

from __future__ import annotations

from typing import Any, Literal

from crawlmill.core import Record, WriteContext, hookimpl, storage
from crawlmill.core.file_writer import FileWriter, FileWriterOptions, OutputFile
from crawlmill.formats.hadoop.codecs import CODECS, codec_for, codec_named
from crawlmill.formats.hadoop.sequencefile import (
    BLOCK_SIZE,
    SYNC_INTERVAL,
    HeaderError,
    read_header,
)
from crawlmill.formats.hadoop.sequencefile import (
    SequenceFileWriter as SeqWriter,
)
from crawlmill.formats.hadoop.vint import encode_vlong
from crawlmill.formats.hadoop.writables import (
    WritableError,
    canonical_name,
    encode_modified_utf8,
    from_content,
)
from crawlmill.plugins.writables.lookup import find_writable
from pydantic import Field

from .sequencefile_raw import raw_frame

__all__ = ["SequenceFileWriter"]

H = "org.apache.hadoop.io."
_TEXTS = {H + "Text", "org.commoncrawl.util.TextBytes", "org.commoncrawl.util.shared.TextBytes"}
Codec = Literal["default", "deflate", "gzip", "bzip2", "snappy", "lz4", "zstd"]


def _source_key(record: Record) -> dict[str, Any] | None:
    """The record's key in a keyed source (``extras["neutral"]["source_key"]``), if any."""
    neutral = record.extras.get("neutral")
    kept = neutral.get("source_key") if isinstance(neutral, dict) else None
    return kept if isinstance(kept, dict) else None


def _key_of(key_class: str, url: str | None) -> bytes:
    """The serialized key of ``url`` in ``key_class``; ``ValueError`` when it cannot hold one."""
    raw = (url or "").encode("utf-8", "surrogateescape")
    name = canonical_name(key_class)
    if name in _TEXTS:
        return encode_vlong(len(raw)) + raw
    if name == H + "UTF8":
        data = encode_modified_utf8(url or "")
        if len(data) > 0xFFFF:
            raise ValueError("URL longer than a UTF8 key holds")
        return len(data).to_bytes(2, "big") + data
    if name == H + "BytesWritable":
        return len(raw).to_bytes(4, "big") + raw
    raise ValueError(f"a {key_class} key cannot hold a URL")


class SequenceFileWriter(FileWriter):
    """Hadoop SequenceFiles (SEQ6 as Hadoop 3 writes; NONE, RECORD or BLOCK with any codec)."""

    name = "sequencefile"
    #: the compression when neither the options nor the source name one.
    default_compression = "none"

    class Options(FileWriterOptions):
        """Options of the SequenceFile writer."""

        writes = "sequencefile"

        compression: Literal["none", "record", "block"] | None = Field(
            None, description="none, record (each value compressed) or block; default: the "
            "source SequenceFile's, else none",
        )  # fmt: skip
        codec: Codec | None = Field(
            None, description="codec of record/block compression: default (zlib), deflate, gzip, "
            "bzip2, snappy, lz4, zstd (Hadoop needs native code for zstd); default: the "
            "source's, else default",
        )  # fmt: skip
        key_class: str | None = Field(
            None,
            description="Java class of the keys; default: the source's, else org.apache.hadoop.io.Text",
        )
        value_class: str | None = Field(
            None,
            description="Java class of the values; default: the source's, else org.apache.hadoop.io.BytesWritable",
        )
        version: int | None = Field(
            None, ge=1, le=6, description="SEQ version 1-6; default: the source's, else 6"
        )
        metadata: dict[str, str] = Field(
            default_factory=dict, description="file metadata (SEQ6) added to the source's"
        )
        sync_interval: int = Field(
            SYNC_INTERVAL,
            ge=1,
            description="bytes between sync markers (Hadoop 3: 102400; before: 2000)",
        )
        block_size: int = Field(
            BLOCK_SIZE, ge=1, description="uncompressed key + value bytes of a BLOCK block"
        )

    @classmethod
    def extension(cls, options: Any) -> str:
        """``.seq``."""
        return ".seq"

    def open(self, ctx: WriteContext) -> None:
        """Remember the task; the first file is created with the first record."""
        self.open_layout(ctx)
        self._writables: dict[str, Any] = {}
        self.seq: SeqWriter | None = None
        self.like_source = False
        self._empty: dict[str, Any] | None = None

    # -- files -----------------------------------------------------------------------------

    def start_file(self, file: OutputFile, first: Record | None) -> None:
        """Open a SequenceFile on ``file``: its header from the options and the first
        record's source file."""
        o = self.options
        src = (first.extras.get("sequencefile") if first is not None else self._empty) or {}
        if not isinstance(src, dict):
            src = {}
        kept = _source_key(first) if first is not None else None
        compression = o.compression or src.get("compression") or self.default_compression
        if o.codec is not None:
            codec = codec_named(o.codec)
        else:
            codec = codec_for(src.get("codec") or "") or codec_named("default")
        version = o.version or src.get("version") or 6
        metadata = dict(src.get("metadata") or []) if version >= 6 else {}
        metadata.update({k.encode(): v.encode() for k, v in o.metadata.items()})
        self.seq = self.open_encoder(
            file,
            o.key_class or src.get("key_class") or (kept or {}).get("key_class") or H + "Text",
            o.value_class
            or src.get("value_class")
            or (kept or {}).get("value_class")
            or H + "BytesWritable",
            compression=compression,
            codec=codec,
            metadata=list(metadata.items()),
            sync=src.get("sync") if version > 1 else None,
            version=version,
            sync_interval=o.sync_interval,
            block_size=o.block_size,
        )
        # the source's own sync markers (and blocks) are kept while its records come unchanged
        h = self.seq.header
        self.like_source = bool(src) and (h.sync, h.compression, h.codec) == (
            src.get("sync"),
            src.get("compression"),
            src.get("codec"),
        )
        self._block: Any = None

    def open_encoder(self, file: OutputFile, key_class: str, value_class: str, **kw: Any) -> Any:
        """The encoder of ``file``: a SequenceFile writer (a subclass writes another shape,
        as the ``mapfile`` writer its data and index)."""
        return SeqWriter(file.stream, key_class, value_class, **kw)

    def finish_file(self, file: OutputFile) -> dict[str, Any]:
        """Flush the last block and close the file."""
        assert self.seq is not None
        try:
            self.seq.close()
        finally:
            file.stream.close()
        return {"path": file.path, "records": file.records}

    def file_size(self, file: OutputFile, exact: bool) -> int:
        """Bytes written so far (a BLOCK file's buffered block not counted)."""
        return self.seq.pos if self.seq is not None else 0

    # -- records ---------------------------------------------------------------------------

    def write(self, record: Record) -> None:
        """Write one record as one entry (see the module docstring)."""
        self.file_for(record)
        seq = self.seq
        assert seq is not None
        h = seq.header
        src = record.extras.get("sequencefile")
        src = src if isinstance(src, dict) else {}
        same_key = src.get("key_class") == h.key_class and "url" not in record.changed
        same_value = src.get("value_class") == h.value_class and not (
            {"payload", "http_head"} & record.changed
        )
        verbatim = same_key and same_value and self.like_source and not record.modified
        raw = None  # an unchanged NONE/RECORD entry: its record frame, copied
        if verbatim and src.get("sync") == h.sync and isinstance(seq, SeqWriter):
            raw = raw_frame(record, h.compression, h.value_class)
        key = value = b""  # (a raw frame holds them)
        try:
            if raw is None:
                key, value = self._key_value(record, src, same_key, same_value)
        except (ValueError, WritableError) as exc:
            self.ctx.quarantine(record, f"unwritable-record: cannot write as SequenceFile: {exc}")
            return
        stored = None
        if raw is None and same_value and h.compression == "record" and src.get("codec") == h.codec:
            stored = src.get("stored_value")
        if self.like_source and not record.modified and src.get("sync") == h.sync:
            if h.compression == "block":
                block = src.get("block")
                if block != self._block and self._block is not None:
                    seq.flush_block()
                self._block = block
            elif src.get("sync_before"):
                seq.sync()
            if raw is not None:
                seq.append_raw(raw)  # the source's record frame, copied
            else:
                seq.append(key, value, stored, sync=False)
        else:
            seq.append(key, value, stored)
        self._refuse(record)
        self.count(record)

    def _key_value(
        self, record: Record, src: dict[str, Any], same_key: bool, same_value: bool
    ) -> tuple[bytes, bytes]:
        """The serialized key and value of ``record``'s entry (the module docstring);
        ``ValueError``/``WritableError`` when its classes cannot hold them."""
        h = self.seq.header
        kept = _source_key(record)
        if same_key and "key" in src:
            key = bytes(src["key"])
        elif kept and kept["key_class"] == h.key_class and "url" not in record.changed:
            key = bytes(kept["key"])  # the key a WARC record kept (WARC-Source-Key)
        else:
            key = _key_of(h.key_class, record.url)
        if same_value and "value" in src:
            value = bytes(src["value"])
        else:
            value = from_content(h.value_class, (record.http_head or b"") + record.payload)
            if not same_value:  # bytes not read from a file of this class: check them
                self._check(h.value_class, value)
        return key, value

    def _refuse(self, record: Record) -> None:
        """Warn for the neutral fields an entry (a key and a value) has no place for, as the
        ARC writer does: date, IP, doc id, text, outlinks when the record has them, and a
        changed content type or charset (the value holds the head as it was)."""
        warn = self.ctx.report_warning
        if record.date is not None:
            warn("date-not-written", "the capture date: a SequenceFile entry has no field for it")
        if record.ip:
            warn("ip-not-written", "the server IP: a SequenceFile entry has no field for it")
        if record.doc_id is not None:
            warn("doc-id-not-written", "doc id: a SequenceFile entry has no field for it")
        if record.text is not None:
            warn("text-not-written", "extracted text: a SequenceFile entry has no field for it")
        if record.outlinks:
            warn("outlinks-not-written", "outlinks: a SequenceFile entry has no field for them")
        if "content_type" in record.changed:
            warn("content-type-not-written", "a changed content type: the value keeps the head")
        if "charset" in record.changed:
            warn("charset-not-written", "a changed charset: the value keeps the head")

    def _check(self, java_name: str, data: bytes) -> None:
        """``ValueError`` when the Writable of ``java_name`` (if crawlmill has one) does not
        read ``data`` as exactly one value: another class's bytes are refused, not written."""
        if java_name not in self._writables:
            cls = find_writable(java_name) or find_writable(canonical_name(java_name))
            self._writables[java_name] = cls() if cls is not None else None
        writable = self._writables[java_name]
        if writable is not None:
            try:
                writable.read(data)
            except Exception as exc:
                raise ValueError(f"the bytes are not one {writable.name}: {exc}") from None

    def close(self) -> None:
        """Finish the open file (a header-only file when the task must leave one, or when
        its input is a SequenceFile with no entries: that header)."""
        if self.file is None and not self.ctx.notes.get("files"):
            self._empty = empty_sequencefile(self.ctx.input.path)
            if self._empty is not None:
                self.file_for(None)
        self.ensure_output()
        if self.file is not None:
            self.close_file()


def empty_sequencefile(path: str, max_bytes: int = 1 << 20) -> dict[str, Any] | None:
    """The header fields of ``path`` (as the ``sequencefile`` reader's extras name them) when
    it is a SequenceFile with a header and nothing after it, else ``None``. Read through the
    storage layer (one ranged read of a URL's first bytes), as the reader read it."""
    try:
        data = storage.read_start(path, max_bytes + 1)
        header = read_header(data, max_bytes)
    except (OSError, HeaderError):
        return None
    if header.length != len(data):
        return None
    return {
        "version": header.version,
        "key_class": header.key_class,
        "value_class": header.value_class,
        "compression": header.compression,
        "codec": header.codec,
        "metadata": list(header.metadata),
        "sync": header.sync,
    }


@hookimpl
def crawlmill_register_writers(register) -> None:
    """Register the ``sequencefile`` writer."""
    register(SequenceFileWriter)


assert {c.short for c in CODECS} == set(Codec.__args__)  # the option lists every codec
