"""The ``arc`` writer: ARC v1 (IA 5-field header lines) for tools that only read ARC.

Files are placed by the ``layout`` option (:mod:`crawlmill.core.file_writer`): with the
default ``plain`` layout one output per input, named like the input with ``.arc.gz`` (one gzip
member per record, the default) or ``.arc``, or a numbered series with ``layout: {name: plain,
max_records: N}``; the ``clueweb09`` and ``chuweb21`` layouts lay out WARC files only and are
refused with a config error. Every file starts with a ``filedesc://`` record:

* converting ARC -> ARC, the input's filedesc (the ``application/arc`` metadata record the
  ``arc`` reader makes of it, which holds the whole ARC header record) is written as it was
  (byte for byte when it is an unmodified version-1 filedesc); a version-2 or changed one is
  regenerated around its metadata (the bytes after the version block). Such a record read
  back from WARC is the filedesc too when it comes first (ARC -> WARC -> ARC gives the
  filedesc back byte for byte when the WARC has no crawlmill warcinfo before it: convert with
  ``warcinfo: never``, or drop it with ``--filter kind drop=warcinfo``); files after the
  first of a rollover series get a generated filedesc;
* otherwise a new one is generated: version block ``1 0 crawlmill`` and the v1 field-spec
  line; a WARC ``warcinfo`` that comes first is kept after the version block (where ARC 1.1
  keeps its XML metadata). Its date is ``SOURCE_DATE_EPOCH`` when set, else the date of the
  first record (never "now"), so two runs give the same bytes.

Each record is ``URL IP-address Archive-date Content-type Archive-length\\n`` + block
(``http_head + payload``) + ``\\n``. Decisions:

* records without an IP get ``0.0.0.0`` (ARC has no way to leave the field out; IA and
  Heritrix tools write the same for unknown addresses, and the ``arc`` reader maps it back
  to "no IP");
* Content-type is the record's media type (parameters dropped), ``no-type`` when unknown
  (as Heritrix and Common Crawl write it); a record read from ARC keeps the Content-type its
  header line had unless ``content_type`` changed. A changed URL, IP, date or content type
  makes a new header line (the HTTP head is not touched: ARC says the payload's type in the
  header line);
* what an ARC header line has no field for is refused with a writer warning: a doc id, a
  ``charset`` a filter set, extracted ``text`` and ``outlinks``;
* an unmodified record read from ARC keeps its header line when its length is right, and in
  gzip mode the original gzip member is copied when it decompresses to exactly the bytes
  this writer would produce and passes the RFC 1952 check (``reuse_members``), so ARC -> ARC
  is byte-identical; a member the standard rejects is compressed anew;
* records ARC cannot hold (request, metadata, revisit, conversion, continuation, a second
  file header, no capture date, line breaks in the URL) go to the quarantine with a reason;
* gzip members are written by the shared
  :class:`~crawlmill.formats.codecs.member_writer.MemberWriter`: compressed (and copied members
  checked) on a thread per core, written in record order; with the default
  ``gzip_backend: zlib`` the file's bytes are the same on every run, ``auto`` uses ISA-L.
"""

from __future__ import annotations

import os
import posixpath
from collections.abc import Callable
from datetime import UTC, datetime
from functools import partial
from typing import Any, BinaryIO, Literal

from crawlmill.core import Record, RecordKind, WriteContext, hookimpl, storage
from crawlmill.core.file_writer import FileWriter, FileWriterOptions, OutputFile, describes_file
from crawlmill.core.naming import strip_suffixes
from crawlmill.formats.arc.header import (
    build_filedesc,
    build_header_line,
    format_arc_date,
    parse_filedesc,
    parse_header_line,
)
from crawlmill.formats.codecs.compression import MemberSource
from crawlmill.formats.codecs.member_writer import MemberWriter, ReusedMember, isal_available
from crawlmill.plugins.writers.original_date import warn_original_date_dropped
from pydantic import Field, field_validator

__all__ = ["ArcWriter", "arc_header_record", "output_name"]

_WRITABLE = {RecordKind.RESPONSE, RecordKind.RESOURCE}
#: media type of a metadata record holding a whole ARC header record (the ``arc`` reader's).
_ARC_HEADER_RECORD = "application/arc"


def output_name(relpath: str, gzip: bool) -> str:
    """The output path for input ``relpath``: its compression and format suffixes replaced by
    ``.arc[.gz]`` (:func:`crawlmill.core.naming.strip_suffixes`)."""
    return _with_extension(strip_suffixes(relpath), gzip)


def _with_extension(stem: str, gzip: bool) -> str:
    return stem + (".arc.gz" if gzip else ".arc")


def arc_header_record(record: Record) -> tuple[bytes, bytes] | None:
    """``(header line, block)`` of a metadata record holding a whole ARC ``filedesc://``
    header record (as the ``arc`` reader maps the filedesc: type ``application/arc``, or a
    record that ``describes_file`` after a filter changed its type), else ``None``."""
    if record.kind != RecordKind.METADATA:
        return None
    if record.content_type != _ARC_HEADER_RECORD and not describes_file(record):
        return None
    line, nl, block = record.payload.partition(b"\n")
    if not nl or line[:11].lower() != b"filedesc://":
        return None
    return line, block


def _mime(record: Record) -> bytes:
    value = (record.content_type or "").split(";")[0].strip()
    value = value.split()[0] if value else ""
    return value.encode("latin-1", "replace") if value else b"no-type"


class ArcWriter(FileWriter):
    """ARC v1 files (IA 5-field header lines), gzip per record or uncompressed."""

    kinds = ("response", "resource")

    name = "arc"

    class Options(FileWriterOptions):
        """Options of the ARC writer."""

        writes = "arc"

        compression: Literal["gzip", "none"] = Field(
            "gzip", description="gzip (one member per record, .arc.gz) or none (.arc)"
        )
        gzip_level: int = Field(6, ge=1, le=9, description="compression level of each gzip member")
        gzip_backend: Literal["auto", "isal", "zlib"] = Field(
            "zlib",
            description="gzip implementation. zlib (default): the same compressed bytes on every "
            "run. auto: ISA-L when installed (several times faster; levels 1-3/4-6/7-9 map to "
            "ISA-L 1/2/3, whose compressed bytes may differ between runs, the records never do). "
            "isal: ISA-L, an error when it is not installed.",
        )
        reuse_members: bool = Field(
            True,
            description="copy the original gzip member of an unmodified ARC record when it holds "
            "exactly the bytes this writer would write and RFC 1952 allows it (byte-identical "
            "ARC -> ARC)",
        )

        @field_validator("gzip_backend")
        @classmethod
        def _isal_installed(cls, value: str) -> str:
            if value == "isal" and not isal_available():
                raise ValueError("isal is not installed (pip install isal), use auto or zlib")
            return value

    @classmethod
    def extension(cls, options: Any) -> str:
        """``.arc.gz`` or ``.arc``."""
        return _with_extension("", options.compression == "gzip")

    def open(self, ctx: WriteContext) -> None:
        """Remember the task; the first file is created with the first record."""
        self.gzip = self.options.compression == "gzip"
        self.open_layout(ctx)
        self.out: BinaryIO | None = None
        self.members: MemberWriter | None = None
        self._sources = MemberSource(storage.open_range)
        self._files = 0

    # -- records -----------------------------------------------------------------------------

    def write(self, record: Record) -> None:
        """Write one record (the first one of the task decides the first filedesc)."""
        self._taken = False
        self.file_for(record)
        if self._taken:  # the record became the file's filedesc
            return
        if record.kind not in _WRITABLE:
            self.ctx.quarantine(
                record, f"unwritable-kind: ARC v1 cannot hold a {record.kind.value} record"
            )
            return
        self._refuse_fields(record)
        try:
            line, trailer = self._header_line(record)
        except ValueError as exc:
            self.ctx.quarantine(record, f"unwritable-record: cannot write as ARC: {exc}")
            return
        self._emit(record, line + b"\n" + record.block + trailer)
        self.count(record)

    def _refuse_fields(self, record: Record) -> None:
        """Warn about the neutral fields an ARC record cannot hold (stable messages)."""
        if record.doc_id is not None:
            self.ctx.report_warning(
                "doc-id-not-written", "doc id not written: an ARC header line has no field for it"
            )
        if "charset" in record.changed:
            self.ctx.report_warning(
                "charset-not-written", "charset not written: an ARC header line has no field for it"
            )
        if record.text is not None:
            self.ctx.report_warning(
                "text-not-written", "extracted text not written: ARC has no place for it"
            )
        if record.outlinks:
            self.ctx.report_warning(
                "outlinks-not-written", "outlinks not written: ARC has no place for them"
            )
        warn_original_date_dropped(record, self.ctx.report_warning, "an ARC header line")

    def _header_line(self, record: Record) -> tuple[bytes, bytes]:
        block_len = len(record.http_head or b"") + len(record.payload)
        arc = record.extras.get("arc")
        if not record.modified and isinstance(arc, dict) and arc.get("header_line"):
            raw = bytes(arc["header_line"])
            try:
                header = parse_header_line(raw, str(arc.get("version", "1")))
            except ValueError:
                header = None
            if header is not None and header.version == "1" and header.length == block_len:
                return raw, bytes(arc.get("trailer", b"\n"))
        if record.url is None:
            raise ValueError("the record has no URL")
        if record.date is not None:
            date = format_arc_date(record.date).encode()
        elif record.date_raw and record.date_raw.isdigit() and len(record.date_raw) == 14:
            date = record.date_raw.encode()
        else:
            raise ValueError(f"no 14-digit capture date (date_raw={record.date_raw!r})")
        ip = (record.ip or "0.0.0.0").encode("ascii", "replace")
        mime = _mime(record)
        keeps_type = not record.modified or (
            record.changed and "content_type" not in record.changed
        )
        if isinstance(arc, dict) and keeps_type:
            stored = str(arc.get("fields", {}).get("Content-type", ""))
            if stored and " " not in stored:
                mime = stored.encode("utf-8", "surrogateescape")
        return build_header_line(record.url_bytes or b"", ip, date, mime, block_len), b"\n"

    # -- filedesc ----------------------------------------------------------------------------

    def start_file(self, file: OutputFile, first: Record | None) -> None:
        """Open ``file`` and write its filedesc: the task's first record when it is one (a
        ``warcinfo`` is kept after a generated version block), else a generated one."""
        self.out, self.relpath = file.stream, file.path
        self.members = MemberWriter(
            file.stream,
            "gzip" if self.gzip else "none",
            self.options.gzip_level if self.gzip else None,
            backend=self.options.gzip_backend,
            threads=None if self.gzip else 0,
            name="crawlmill-arc-writer",
        )
        self._files += 1
        if first is not None and self._files == 1:
            self._taken = self._filedesc_from(first)
            if self._taken:
                return
        extra = b""
        if first is not None and self._files == 1 and first.kind == RecordKind.WARCINFO:
            extra, self._taken = first.block, True
        data = build_filedesc(
            self._file_name(),
            self._filedesc_date(first or Record(kind=RecordKind.WARCINFO)),
            extra=extra,
        )
        self._emit(None, data)
        if not self._taken:  # a generated filedesc: counted in `written`
            self.ctx.added_records += 1

    def _filedesc_from(self, first: Record) -> bool:
        """Write ``first`` as the filedesc when it holds an ARC header record: verbatim when
        it is an unmodified version-1 one, else regenerated around its metadata."""
        held = arc_header_record(first)
        if held is None:
            return False
        line, block = held
        arc = first.extras.get("arc")
        arc = arc if isinstance(arc, dict) else {}
        desc = parse_filedesc(block)
        version = str(arc["version"]) if "version" in arc else (desc.major if desc else "")
        if not first.modified and version == "1":
            trailer = bytes(arc.get("trailer", b"\n"))
            self._emit(first, line + b"\n" + block + trailer)
            return True
        extra = desc.rest if desc is not None else block
        date = self._filedesc_date(first)
        self._emit(first, build_filedesc(self._file_name(), date, extra=extra))
        return True

    def _file_name(self) -> bytes:
        return posixpath.basename(self.relpath).encode("utf-8", "surrogateescape")

    @staticmethod
    def _filedesc_date(first: Record) -> bytes:
        epoch = os.environ.get("SOURCE_DATE_EPOCH")
        if epoch and epoch.strip().isdigit():
            return format_arc_date(datetime.fromtimestamp(int(epoch), UTC)).encode()
        if first.date is not None:
            return format_arc_date(first.date).encode()
        return b"19700101000000"

    # -- bytes out ---------------------------------------------------------------------------

    #: called with ``(record, offset, length)`` once the record's member (its bytes in a
    #: ``.arc`` file) is in the file, in record order (the ``cc2012`` writer's archiveInfo).
    on_member: Callable[[Record, int, int], None] | None = None

    def _emit(self, record: Record | None, data: bytes) -> None:
        assert self.members is not None
        member = self._original_member(record) if self.gzip and record is not None else None
        done = None
        if self.on_member is not None and record is not None:
            done = partial(self.on_member, record)
        # a copied member must inflate to exactly `data` (checked on the writer's threads)
        self.members.submit(ReusedMember(member, data) if member is not None else data, done)

    def _original_member(self, record: Record) -> bytes | None:
        """The source gzip member of an unmodified ARC record, to copy when it inflates to
        the record's bytes: from the reader's buffer while it holds it (``Provenance.held``),
        else read back from the input file."""
        src = record.source
        if (
            not self.options.reuse_members
            or record.modified
            or "arc" not in record.extras
            or src is None
            or src.format != "arc"
            or src.offset is None
            or not src.length
        ):
            return None
        return self._sources.read(src.path, src.offset, src.length, src.held)

    def close(self) -> None:
        """Finish the open file (a file with only a filedesc when no record came)."""
        try:
            if self.file is None and self._files == 0:
                self._taken = False
                self.file_for(None)
            if self.file is not None:
                self.close_file()
        finally:
            self._sources.close()

    def finish_file(self, file: OutputFile) -> dict[str, Any]:
        """Write what the member writer holds and close the file; its entry for
        ``ctx.notes["files"]``."""
        assert self.members is not None
        try:
            self.members.close()  # every record is in the file (or its error raised)
        finally:
            file.stream.close()
        copied = self.members.reused
        return {"path": file.path, "records": file.records, "copied_members": copied}

    def file_size(self, file: OutputFile, exact: bool) -> int:
        """Bytes in the file; records are compressed in batches, so flush when the layout
        needs the exact size."""
        assert self.members is not None
        if exact:
            self.members.flush()
        return self.members.position


@hookimpl
def crawlmill_register_writers(register) -> None:
    """Register the ``arc`` writer."""
    register(ArcWriter)
