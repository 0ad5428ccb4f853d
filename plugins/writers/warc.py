"""The ``warc`` writer: WARC 1.1 / 1.0 / 0.18, gzip or zstd per record, in a chosen layout.

How a record becomes WARC bytes (first rule that applies):

The target version is the ``version`` option; with ``auto`` (the default), records read from
WARC 1.0, 1.1 or 0.17 keep their own version (so ``convert x.warc.gz --to warc`` changes nothing)
and every other record is written as 1.1. WARC/0.17 (Heritrix 1.x) has the fields and framing
of 1.0 (the same names and meanings; warcio and FastWARC read it), so a 0.17 record needs no
field mapping: kept in ``auto``, relabelled to an explicit ``version`` with the warning
``version-converted``.

1. **Verbatim copy.** A record read from WARC (``extras["warc"]`` with ``raw_header``) that
   is unmodified, has the target version and framing, a ``Content-Length`` that matches its
   block, and needs no new header (doc id, digest) is written as ``raw_header + block +
   separator``: byte for byte what the input held. Digests are neither added nor changed
   (warcio #161/#162). In gzip output, when the record was alone in its input gzip member
   and that member inflates to exactly these bytes and passes the RFC 1952 check
   (:mod:`crawlmill.formats.codecs.gzip_member`: no reserved flag bits, right CRC32 and ISIZE...),
   the member itself is copied (``reuse_members``), so a WARC -> WARC copy keeps its
   compressed bytes too; a member the standard rejects is never copied. The member's bytes
   come from the reader's buffer while it still holds them (``Provenance.held``: a record
   straight from the reader), else they are read back from the input file. A member the
   reader vouches for (it inflated it as exactly one member with a plain header and checked
   its CRC32 and ISIZE: :mod:`crawlmill.formats.codecs.member_vouch`) is not inflated a second
   time: it is copied when the record's bytes have its trailer's CRC32 and length.
2. **Rebuilt WARC record.** Otherwise a WARC-read record keeps its original headers in
   order; only the version line, ``Content-Length`` (recomputed, always last), line endings
   and what the target version requires change (bare UUID record ids get ``<urn:uuid:...>``
   in 1.x; header values with line breaks are joined with spaces). Fields the record changed
   (type, URL, date, doc id, IP, and the content type of a record without HTTP head) replace
   their header values. A record without ``WARC-Date`` gets the conversion time. Digests
   follow the ``digests`` option (below).
3. **Built record** (from every other format): ``WARC-Type``, a deterministic
   ``WARC-Record-ID`` (uuid5 of the source identity), ``WARC-Warcinfo-ID`` of the file's
   warcinfo, ``WARC-Target-URI``, ``WARC-Date`` (the capture date, the raw date string
   when it cannot be parsed in 0.18, or the conversion time when there is none), ``WARC-IP-Address`` only when the source recorded one,
   ``WARC-Truncated: length`` when the reader says the source record was cut
   (``extras["neutral"]["truncated"]``, the neutral way to carry a cut record), ``WARC-TREC-ID`` when there is a doc id, digests, ``Content-Type``
   (``application/http;msgtype=...`` with an HTTP head, else the record's own type: no HTTP
   headers are invented) and ``Content-Length``.

Where each neutral field of a :class:`~crawlmill.core.record.Record` goes (a changed field is
always written; nothing is lost silently): ``kind`` -> ``WARC-Type``, ``url`` ->
``WARC-Target-URI``, ``date`` -> ``WARC-Date``, ``ip`` -> ``WARC-IP-Address``, ``doc_id`` ->
``WARC-TREC-ID``, ``http_head + payload`` -> the block. ``content_type`` and ``charset`` name the
*payload's* media type: for a record with an HTTP head (response, request, revisit) the WARC
``Content-Type`` names the HTTP message (``application/http;msgtype=...``), so a changed
``content_type`` is written into the head's ``Content-Type`` line (the block changes and its
digests are recomputed); for a record without one (resource, metadata, conversion...) it is the
WARC ``Content-Type``. ``text`` (other than a conversion record's own payload) and ``outlinks``
have no place in a WARC record of this writer: they are refused with a warning (``extracted text
not written: ...``, ``outlinks not written: ...``). A record without any date is written with
the conversion time as ``WARC-Date`` (mandatory in every WARC version) and the warning ``record
without a capture date: WARC-Date is the conversion time``.

Values a target version cannot hold (docs/formats/clueweb09.md, "Original values"): in 0.18
an invalid date is kept as written (``invalid-date-kept``, ``date-kept-raw``: ClueWeb09 writes
them). In 1.0/1.1 an invalid ``WARC-Date`` becomes the date it means (ClueWeb09's day of the
year) or, when none can be told, the conversion time (``date-replaced``); a ``WARC-Target-URI``
with ASCII bytes a URI may not hold is percent-escaped (``uri-escaped``); the value as written
is kept in ``Crawlmill-Original-Date`` / ``Crawlmill-Original-Target-URI``, which the WARC reader
restores (``date_raw``, ``url``) and a 0.18 output writes back in place; a header with an empty
value is dropped (``empty-field-dropped``).

Input from another format follows the IIPC implementation guidelines (Rec. 12-14): a
crawlmill ``warcinfo`` first (software, source file and format, conversion date from
``SOURCE_DATE_EPOCH`` or now). This writer encodes neutral records only and knows no source
format: a reader maps its format at parse time (see ``docs/architecture.md``). A record its
reader marked as describing the source file (``extras["neutral"]["describes_file"]``, such as
a ``metadata`` record holding a source file's own header) is written concurrent to the file's
warcinfo (``WARC-Concurrent-To``), gets no doc id and is not counted as a document.

Digests (``digests`` option); new ones are SHA-1 base32, recomputed ones keep the algorithm and
encoding (base32/base16) they had, and one that still matches keeps its exact spelling:

* ``keep`` (default): unmodified WARC records keep their digest headers untouched and get none
  added (warcio #161/#162); a changed WARC record's digests are checked and recomputed where
  they no longer match, and it gets a block digest (plus a payload digest with an HTTP
  payload) if it had none; built records get a block digest and, when they have an HTTP
  payload, a payload digest (WARC 1.1 section 5.9).
* ``recompute``: as for changed records, for every record: wrong digests are replaced and
  missing ones added.
* ``none``: nothing is computed for new records; a changed record's digests that no longer
  match are removed.

In 0.18 output, where ``Content-Length`` counts the trailing ``\n\n``, new digests cover that
``\n\n`` too, so a reader of the convention (FastWARC quirks mode, ir_datasets) that digests the
``Content-Length`` bytes verifies them.
A revisit's payload digest names the original capture's payload and is never recomputed; a
digest in an algorithm crawlmill does not know is kept unchecked (and counted). Payload digests
cover the payload as stored (not de-chunked), as ``warcio check`` and Heritrix do.

Code: the record rules (verbatim, rebuild, digests, warcinfo bytes) are
:mod:`crawlmill.formats.warc.builder`; the Record -> headers mapping is
:mod:`~crawlmill.plugins.writers.warc_encode`; record ids and crawlmill's warcinfo
:mod:`~crawlmill.plugins.writers.warc_ids`; CDXJ :mod:`~crawlmill.plugins.writers.cdxj_index`;
files, layouts and rollover :mod:`~crawlmill.core.file_writer` (shared with every file
writer). This module is the plugin adapter.

Threading: records are digested (built records), serialised and compressed in batches on two
pool threads while the caller reads the next records, then written on the caller's thread in
the order :meth:`WarcWriter.write` received them
(:class:`~crawlmill.formats.warc.writer.WarcFileWriter` with ``background``). Each record's
bytes depend on that record alone, so the file is byte-identical to a one-thread run (with
``gzip_backend: zlib``; ISA-L, the default when installed, may deflate a record differently
from one run to the next, though the record is the same); CDXJ lines and warnings are made on
the caller's thread. An error surfaces on a later ``write`` or on ``close``.

Sorted collections (``sorted: {key: surt, partitions: N, partitioning: hash|range}``): the
writer declares a shuffle (:meth:`WarcWriter.shuffle`), so the engine hands each of N writer
tasks its partition's records from all inputs in SURT-key order, written as
``part-NNNNN<ext>`` in the plain layout (:mod:`~crawlmill.plugins.writers.warc_sorted`: the
key, the hash partitions; :mod:`crawlmill.core.run.shuffle`: the sort). Records are written by
the rules above, unchanged WARC records still byte for byte.

Per-file facts go to ``ctx.notes["files"]`` (``path``, ``records`` (all records written),
``documents`` (input records that are not warcinfo), ``warcinfo`` (whether crawlmill added
one), ``bytes``, ``copied_members``, ``cdxj``) and repaired quirks are reported through
``ctx.report_warning`` (and counted in ``ctx.notes["warnings"]``).
"""

from __future__ import annotations

from functools import partial
from typing import Any

from crawlmill.core import Layout, Record, RecordKind, ShuffleSpec, WriteContext, hookimpl, storage
from crawlmill.core.file_writer import FileWriter, OutputFile, describes_file
from crawlmill.formats.codecs.compression import MemberSource
from crawlmill.formats.codecs.member_vouch import Vouch
from crawlmill.formats.warc.writer import (
    ReusedMember,
    WarcFileWriter,
    extension_for,
    framing_for,
)

from .cdxj_index import CdxjIndex
from .warc_encode import WarcEncoder, verbatim_copy
from .warc_ids import RecordIds, conversion_date, warcinfo_of_task
from .warc_options import WarcWriterOptions
from .warc_sorted import partition_of, shuffle_spec, sort_key

__all__ = ["WarcWriter", "WarcWriterOptions"]


class WarcWriter(FileWriter):
    """Write WARC 1.1/1.0/0.18, gzip or zstd per record; exact copies, other formats per IIPC.

    Unchanged WARC records are copied byte for byte; other records get deterministic headers
    and SHA-1 digests (see the module docstring for every rule)."""

    name = "warc"
    Options = WarcWriterOptions

    @classmethod
    def extension(cls, options: Any) -> str:
        """``.warc.gz``, ``.warc.zst`` or ``.warc``."""
        return extension_for(options.compression)

    @classmethod
    def planned_outputs(cls, options: Any, inputs: list[Any]) -> list[list[str]] | None:
        """Each input's first file and side files; ``None`` with ``sorted`` (the files then
        belong to partitions, ``part-NNNNN``, not to inputs)."""
        if options.sorted is not None:
            return None
        return super().planned_outputs(options, inputs)

    @classmethod
    def side_files(cls, options: Any, path: str) -> list[str]:
        """The ``.cdxj`` index beside each WARC file when ``cdxj`` is on."""
        return [path + ".cdxj"] if options.cdxj else []

    # -- sorted shuffles (the ``sorted`` option; see warc_sorted.py) ------------------------

    def shuffle(self) -> ShuffleSpec | None:
        """The shuffle the ``sorted`` option asks for, or ``None`` (no shuffle)."""
        return shuffle_spec(self.options.sorted)

    def partition_of(self, record: Record, partitions: int) -> int:
        """Hash partition of ``record``: CRC-32 of its SURT url key modulo ``partitions``."""
        return partition_of(record, partitions)

    def sort_key(self, record: Record) -> bytes:
        """``<SURT url key> <timestamp14>`` as bytes (compared unsigned)."""
        return sort_key(record)

    def open(self, ctx: WriteContext) -> None:
        """Start a task; the first file is created with the first record."""
        opts: WarcWriterOptions = self.options  # type: ignore[assignment]
        self.open_layout(ctx)
        self._doc_ids = type(self.layout).doc_id is not Layout.doc_id  # it numbers documents
        ctx.notes.setdefault("warnings", {})
        self.add_warcinfo: bool | None = {"always": True, "never": False}.get(opts.warcinfo)
        self.ordinal = 0
        self.ids = RecordIds(ctx)
        self.encoder = WarcEncoder(
            opts,
            framing_for("1.1" if opts.version == "auto" else opts.version),
            version_explicit=opts.version != "auto",
            when=conversion_date(),
            ids=self.ids,
            warn=self._warn,
        )
        self._source_format: str | None = None
        #: input files open for copying gzip members.
        self._sources = MemberSource(storage.open_range)
        self.reuse_members = opts.reuse_members and opts.compression == "gzip"
        self._text_records = opts.text == "conversion"  # text as a conversion record after
        self._cdxj = opts.cdxj
        #: plain verbatim copies are tried first, as ``WarcEncoder.encode`` tries them
        self._plain_copies = self.encoder.plain_copies and not self._doc_ids

    def write(self, record: Record) -> None:
        """Encode one record into the current file (starting or rolling files as needed)."""
        if self.add_warcinfo is None:
            self.add_warcinfo = "warc" not in record.extras
        if self._source_format is None:
            self._source_format = _format_of(record)
        file = self.file_for(record)
        document = not describes_file(record)
        copy = None
        if self._plain_copies:  # a plain verbatim copy's checks at once (no doc ids here)
            copy = verbatim_copy(record, self.encoder.copy_framings, self.reuse_members)
        if copy is not None:
            pending, size, src = copy
            facts: dict[str, Any] = {}
            member = vouch = None
            if src is not None:
                member, vouch = self._sources.read_vouched(
                    src.path, src.offset, src.length, src.held
                )
        else:
            doc_id = (
                self.layout.doc_id(record, file.documents) if document and self._doc_ids else None
            )
            pending, facts = self.encoder.encode(record, doc_id, self.ordinal)
            size = None
            if type(pending) is tuple:  # a verbatim copy's parts
                member = None
                size = sum(map(len, pending))
                if self.reuse_members:
                    member, vouch = self._input_member(record, size)
        if type(pending) is tuple:
            if member is None:
                pending = b"".join(pending)
            else:
                exact = vouch is not None and _exact_parts(record, pending)
                pending = ReusedMember(member, pending, vouch, exact)
                size += len(member)  # (ReusedMember.size)
        file.sink.submit(pending, partial(self.index.add, facts) if self._cdxj else None, size)
        file.records += 1  # (FileWriter.count, without asking describes_file again)
        file.documents += document
        self.ordinal += 1
        if record.text is not None and self._text_records and record.kind != RecordKind.CONVERSION:
            self._write_text(record, file)

    def _write_text(self, record: Record, file: OutputFile) -> None:
        """The record's extracted text as a ``conversion`` record of its URL, right after it
        (option ``text: conversion``); added by the writer, no document of its own."""
        text = record.text or ""
        conversion = Record(
            kind=RecordKind.CONVERSION, url=record.url, date=record.date,
            payload=text.encode("utf-8", "surrogateescape"), content_type="text/plain",
            charset="utf-8",
        )  # fmt: skip
        pending, facts = self.encoder.encode(conversion, None, self.ordinal)
        if type(pending) is tuple:  # (never a copy: a conversion record has no WARC input)
            pending = b"".join(pending)
        file.sink.submit(pending, self._indexer(facts))
        file.records += 1
        self.ordinal += 1
        self.ctx.added_records += 1  # no input held it as a record: `written` stays exact

    def close(self) -> None:
        """Finish the open file (and its CDXJ index); a task that must leave an output
        (a shuffle partition) and got no record writes a file without records."""
        try:
            if getattr(self, "layout", None) is not None:
                self.ensure_output()
            if getattr(self, "file", None) is not None:
                self.close_file()
        finally:
            if getattr(self, "_sources", None) is not None:
                self._sources.close()

    def _indexer(self, facts: dict[str, Any]) -> Any:
        """What the file writer calls with a record's offset and length once it is written:
        the open file's CDXJ side writer (``None`` without ``cdxj``)."""
        return partial(self.index.add, facts) if self.options.cdxj else None

    def _input_member(self, record: Record, size: int) -> tuple[bytes | None, Vouch | None]:
        """The input gzip member of an unmodified WARC record that was alone in it, or
        ``None``: copied from the reader's buffer while it still holds it
        (``Provenance.held``; with the reader's word for it when it gives one), else read
        back from the input file. Whether it holds exactly the bytes to write is checked on
        the writer's threads (:class:`~crawlmill.formats.warc.writer.ReusedMember`)."""
        src = record.source
        warc = record.extras.get("warc")
        if (
            record.modified
            or not isinstance(warc, dict)
            or warc.get("member") is not True
            or src is None
            or src.format != "warc"
            or src.offset is None
            or not src.length
            or src.length > 2 * size + 1024  # more than a member of this record can be
        ):
            return None, None
        return self._sources.read_vouched(src.path, src.offset, src.length, src.held)

    # -- files (FileWriter) ----------------------------------------------------------------

    def start_file(self, file: OutputFile, first: Record | None) -> None:
        """Open the WARC file writer; crawlmill's warcinfo first when one is added."""
        opts: WarcWriterOptions = self.options  # type: ignore[assignment]
        file.sink = WarcFileWriter(
            file.stream,
            opts.compression,
            opts.effective_level,
            background=True,
            backend=opts.gzip_backend,
        )
        self.index = CdxjIndex(file.path)
        self.encoder.warcinfo_id = None
        if self.add_warcinfo:
            record_id = self.ids.warcinfo(file.path)
            data, facts = warcinfo_of_task(
                self.encoder.framing,
                record_id=record_id,
                path=file.path,
                source_relpath=self.ctx.input.relpath,
                source_format=self._source_format,
                when=self.encoder.when,
                digest=opts.digests != "none",
            )
            self.encoder.warcinfo_id = record_id
            file.sink.submit(data, self._indexer(facts))
            self.ctx.added_records += 1  # no input held it: counted so `written` is exact

    def finish_file(self, file: OutputFile) -> dict[str, Any]:
        """Close the file (every submitted record is then in it) and write its CDXJ."""
        try:
            file.sink.close()  # every submitted record is in the file (or its error raised)
        finally:
            file.stream.close()
        entry: dict[str, Any] = {
            "path": file.path,
            "records": file.sink.records,
            "documents": file.documents,
            "warcinfo": self.encoder.warcinfo_id is not None,
            "bytes": file.sink.position,
            "copied_members": file.sink.reused,
        }
        if self.options.cdxj:
            self.index.write(self.ctx.create(file.path + ".cdxj"))
            entry["cdxj"] = file.path + ".cdxj"
        return entry

    def file_size(self, file: OutputFile, exact: bool) -> int:
        """Bytes in the file; submitted records are written in batches, so flush when the
        layout needs the exact size."""
        if exact:
            file.sink.flush()
        return file.sink.position

    def _warn(self, code: str, message: str) -> None:
        warnings = self.ctx.notes["warnings"]
        warnings[code] = warnings.get(code, 0) + 1
        self.ctx.report_warning(code, message)


def _exact_parts(record: Record, parts: tuple[bytes, ...]) -> bool:
    """Whether a verbatim copy's ``parts`` (WARC header, HTTP head, payload, separator) are
    what the reader said its input member inflates to (``HeldMembers.exact_parts``): the
    payload the very ``bytes`` object it made (immutable: the same bytes), the others equal.
    The member's CRC-32 then needs no check against them (a record a filter rebuilt with
    other bytes has another payload object: checked as before)."""
    src = record.source
    held = src.held if src is not None else None
    token = held.exact_parts(src.offset) if held is not None else None
    if token is None:
        return False
    raw, head, payload, separator = token
    got_raw, got_head, got_payload, got_separator = parts
    return (
        got_payload is payload
        and type(payload) is bytes
        and type(got_head) is bytes
        and got_head == (head or b"")
        and got_raw == raw
        and got_separator == separator
    )


def _format_of(record: Record) -> str | None:
    """The source format named by the record's provenance, or the key of its format extras."""
    if record.source is not None and record.source.format:
        return record.source.format
    return next((key for key in record.extras if key != "neutral"), None)


@hookimpl
def crawlmill_register_writers(register: Any) -> None:
    """Register the ``warc`` writer."""
    register(WarcWriter)
