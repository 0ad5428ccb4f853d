"""The ``arc`` writer: ARC v1 (IA 5-field header lines) for tools that only read ARC.

One output per input, named like the input with ``.arc.gz`` (one gzip member per record, the
default) or ``.arc``. Every file starts with a ``filedesc://`` record:

* converting ARC -> ARC, the input's filedesc is written as it was (byte for byte when it is
  an unmodified version-1 filedesc); a version-2 or changed one is regenerated around its
  metadata (the bytes after the version block);
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
  :class:`~crawlmill.formats.member_writer.MemberWriter`: compressed (and copied members
  checked) on a thread per core, written in record order; with the default
  ``gzip_backend: zlib`` the file's bytes are the same on every run, ``auto`` uses ISA-L.
"""

from __future__ import annotations

import os
import posixpath
from datetime import UTC, datetime
from typing import Any, BinaryIO, Literal

from crawlmill.core import (
    InputFile,
    PluginOptions,
    Record,
    RecordKind,
    WriteContext,
    Writer,
    hookimpl,
)
from crawlmill.core.naming import stem_of, strip_suffixes
from crawlmill.formats.arc import (
    build_filedesc,
    build_header_line,
    format_arc_date,
    parse_filedesc,
    parse_header_line,
)
from crawlmill.formats.compression import MemberSource
from crawlmill.formats.member_writer import MemberWriter, ReusedMember, isal_available
from pydantic import Field, field_validator

__all__ = ["ArcWriter", "output_name"]

_WRITABLE = {RecordKind.RESPONSE, RecordKind.RESOURCE}


def output_name(relpath: str, gzip: bool) -> str:
    """The output path for input ``relpath``: its compression and format suffixes replaced by
    ``.arc[.gz]`` (:func:`crawlmill.core.naming.strip_suffixes`)."""
    return _with_extension(strip_suffixes(relpath), gzip)


def _with_extension(stem: str, gzip: bool) -> str:
    return stem + (".arc.gz" if gzip else ".arc")


def _mime(record: Record) -> bytes:
    value = (record.content_type or "").split(";")[0].strip()
    value = value.split()[0] if value else ""
    return value.encode("latin-1", "replace") if value else b"no-type"


class ArcWriter(Writer):
    """ARC v1 files (IA 5-field header lines), gzip per record or uncompressed."""

    name = "arc"

    class Options(PluginOptions):
        """Options of the ARC writer."""

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
    def planned_outputs(cls, options: Any, inputs: list[InputFile]) -> list[list[str]]:
        """One file per input, named after the input's stem."""
        gzip = options.compression == "gzip"
        return [[_with_extension(stem_of(inp), gzip)] for inp in inputs]

    def open(self, ctx: WriteContext) -> None:
        """Remember the task; the file is created with the first record."""
        self.ctx = ctx
        self.gzip = self.options.compression == "gzip"
        self.relpath = _with_extension(stem_of(ctx.input), self.gzip)
        self.out: BinaryIO | None = None
        self.members: MemberWriter | None = None
        self.records = 0
        self._sources = MemberSource()

    # -- records -----------------------------------------------------------------------------

    def write(self, record: Record) -> None:
        """Write one record (the first one decides the filedesc)."""
        if self.out is None:
            self._start(record)
            if record.kind == RecordKind.WARCINFO:
                return
        if record.kind not in _WRITABLE:
            self.ctx.quarantine(record, f"ARC v1 cannot hold a {record.kind.value} record")
            return
        self._refuse_fields(record)
        try:
            line, trailer = self._header_line(record)
        except ValueError as exc:
            self.ctx.quarantine(record, f"cannot write as ARC: {exc}")
            return
        self._emit(record, line + b"\n" + record.block + trailer)

    def _refuse_fields(self, record: Record) -> None:
        """Warn about the neutral fields an ARC record cannot hold (stable messages)."""
        if record.doc_id is not None:
            self.ctx.report_warning("doc id not written: an ARC header line has no field for it")
        if "charset" in record.changed:
            self.ctx.report_warning("charset not written: an ARC header line has no field for it")
        if record.text is not None:
            self.ctx.report_warning("extracted text not written: ARC has no place for it")
        if record.outlinks:
            self.ctx.report_warning("outlinks not written: ARC has no place for them")

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

    def _start(self, first: Record) -> None:
        self._create()
        arc = first.extras.get("arc")
        if first.kind == RecordKind.WARCINFO and isinstance(arc, dict) and arc.get("filedesc"):
            if not first.modified and str(arc.get("version")) == "1" and arc.get("header_line"):
                header = bytes(arc["header_line"])
                self._emit(
                    first,
                    header + b"\n" + first.payload + bytes(arc.get("trailer", b"\n")),
                    filedesc=True,
                )
                return
            desc = parse_filedesc(first.payload)
            extra = desc.rest if desc is not None else first.payload
            date = self._filedesc_date(first)
            self._emit(first, build_filedesc(self._file_name(), date, extra=extra), filedesc=True)
            return
        extra = first.block if first.kind == RecordKind.WARCINFO else b""
        data = build_filedesc(self._file_name(), self._filedesc_date(first), extra=extra)
        self._emit(None, data, filedesc=True)
        if first.kind != RecordKind.WARCINFO:  # a generated filedesc: counted in `written`
            self.ctx.added_records += 1

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

    def _create(self) -> None:
        """Create the output file and its member writer (gzip members compressed on a pool,
        written in record order: the bytes of a one-thread run)."""
        self.out = self.ctx.create(self.relpath)
        self.members = MemberWriter(
            self.out,
            "gzip" if self.gzip else "none",
            self.options.gzip_level if self.gzip else None,
            backend=self.options.gzip_backend,
            threads=None if self.gzip else 0,
            name="crawlmill-arc-writer",
        )

    def _emit(self, record: Record | None, data: bytes, filedesc: bool = False) -> None:
        assert self.members is not None
        member = self._original_member(record) if self.gzip and record is not None else None
        # a copied member must inflate to exactly `data` (checked on the writer's threads)
        self.members.submit(ReusedMember(member, data) if member is not None else data)
        if not filedesc:
            self.records += 1

    def _original_member(self, record: Record) -> bytes | None:
        """The source gzip member of an unmodified ARC record, to copy when it inflates to
        the record's bytes."""
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
        return self._sources.read(src.path, src.offset, src.length)

    def close(self) -> None:
        """Finish the file (a file with only a filedesc when no record came)."""
        if self.out is None:
            self._create()
            date = self._filedesc_date(Record())
            self._emit(None, build_filedesc(self._file_name(), date), filedesc=True)
            self.ctx.added_records += 1
        assert self.members is not None
        try:
            self.members.close()  # every record is in the file (or its error raised)
        finally:
            self.out.close()
            self._sources.close()
        files: list[dict[str, Any]] = self.ctx.notes.setdefault("files", [])
        copied = self.members.reused
        files.append({"path": self.relpath, "records": self.records, "copied_members": copied})


@hookimpl
def crawlmill_register_writers(register) -> None:
    """Register the ``arc`` writer."""
    register(ArcWriter)
