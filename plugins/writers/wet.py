"""``wet`` writer: Common Crawl's WET files, the extracted text of each HTML page as a WARC
``conversion`` record.

Each file starts with a ``warcinfo`` record as Common Crawl writes it (WARC headers
``WARC-Type``, ``WARC-Date``, ``WARC-Filename``, ``WARC-Record-ID``, ``Content-Type:
application/warc-fields``, ``Content-Length``; fields ``Software-Info``, ``Extracted-Date``,
then ``isPartOf``, ``operator``, ``description``, ``publisher`` when given as options). Each
HTML page then becomes, in Common Crawl's header order::

    WARC/1.0
    WARC-Type: conversion
    WARC-Target-URI: http://example.com/
    WARC-Date: 2020-01-02T03:04:05Z                       (the capture's date)
    WARC-Record-ID: <urn:uuid:...>                         (its own, deterministic)
    WARC-Refers-To: <urn:uuid:...>                         (the response's WARC-Record-ID)
    WARC-Block-Digest: sha1:...
    WARC-Identified-Content-Language: eng                  (when the input record names one)
    Content-Type: text/plain
    Content-Length: 17

    the page's text

The text is :mod:`crawlmill.algorithms.text_extraction`'s (option ``extractor``), UTF-8. A
response without a ``WARC-Record-ID`` (an ARC or NTCIR input) is referred to by the id
crawlmill's WARC writer derives for it from its source (input, offset, URL, date). Each
record is its own gzip member (``.warc.wet.gz``; ``compress: false``: ``.warc.wet``), as in
Common Crawl's files. Records that are not HTML pages go to the quarantine (``no-text``) and a
page without text is written with an empty block (``empty text``), as in the pyserini writer.
"""

from __future__ import annotations

import gzip
import posixpath
from datetime import UTC
from email.utils import format_datetime
from typing import Any

from crawlmill.algorithms.document_ids import document_id
from crawlmill.core import Record, hookimpl
from crawlmill.formats.warc.digest import sha1_base32
from crawlmill.formats.warc.writer import format_warc_date, serialize_record, uuid5_urn, warc_fields
from pydantic import Field

from .text_base import TextWriter, TextWriterOptions
from .warc_ids import RECORD_ID_NAMESPACE, RecordIds, conversion_date, software

__all__ = ["WetWriter"]


class WetWriter(TextWriter):
    """Common Crawl WET: a warcinfo, then a ``conversion`` record per HTML page."""

    name = "wet"

    class Options(TextWriterOptions):
        """Options of the wet writer (``extractor`` and ``layout`` come from
        TextWriterOptions)."""

        writes = "wet"

        compress: bool = Field(True, description="a gzip member per record (.warc.wet.gz)")
        is_part_of: str | None = Field(None, description="warcinfo isPartOf (CC-MAIN-2021-10)")
        operator: str | None = Field(None, description="warcinfo operator")
        description: str | None = Field(None, description="warcinfo description")
        publisher: str | None = Field(None, description="warcinfo publisher")

    @classmethod
    def extension(cls, options: Any) -> str:
        """``.warc.wet.gz``, or ``.warc.wet`` without ``compress``."""
        return ".warc.wet.gz" if options.compress else ".warc.wet"

    def open(self, ctx: Any) -> None:
        """Start the input's layout; the first file comes with the first page."""
        self.open_layout(ctx)
        self.ids = RecordIds(ctx)
        self.when = conversion_date()

    def _emit(self, file: Any, data: bytes) -> None:
        file.stream.write(gzip.compress(data, mtime=0) if self.options.compress else data)

    def write(self, record: Record) -> None:
        """A conversion record for an HTML page; the quarantine for a record without text."""
        page = self.page(record, head=False)
        if page is None:
            return
        seq = self.ctx.seq
        stored = document_id(record, "WARC-Record-ID")  # the header's value, as stored
        refers_to = stored.encode("utf-8") if stored else self.ids.of(record, seq)
        if not page.text:
            self.ctx.count("empty text")
        block = page.text.encode("utf-8", "replace")
        headers: list[tuple[bytes, Any]] = [(b"WARC-Type", b"conversion")]
        if record.url is not None:
            headers.append((b"WARC-Target-URI", record.url_bytes))
        else:
            self.ctx.count("no target URI")
        date = record.date
        if date is None:
            date = self.when
            self.ctx.report_warning(
                "date-missing", "a page without a capture date: WARC-Date is the conversion time"
            )
        headers += [
            (b"WARC-Date", format_warc_date(date, "1.0")),
            (b"WARC-Record-ID", uuid5_urn(RECORD_ID_NAMESPACE, "wet\0" + refers_to.decode())),
            (b"WARC-Refers-To", refers_to),
            (b"WARC-Block-Digest", sha1_base32(block).encode("ascii")),
        ]
        language = document_id(record, "WARC-Identified-Content-Language")
        if language:
            headers.append((b"WARC-Identified-Content-Language", language.encode("utf-8")))
        headers.append((b"Content-Type", b"text/plain"))
        file = self.file_for(record)
        self._emit(file, serialize_record("1.0", headers, block))
        self.count(record)

    def start_file(self, file: Any, first: Any) -> None:
        """Write Common Crawl's warcinfo at the file's start."""
        file.sink = file.stream
        when = self.when
        fields = [
            ("Software-Info", software()),
            ("Extracted-Date", format_datetime(when.astimezone(UTC), usegmt=True)),
        ]
        for key, value in (
            ("isPartOf", self.options.is_part_of),
            ("operator", self.options.operator),
            ("description", self.options.description),
            ("publisher", self.options.publisher),
        ):
            if value:
                fields.append((key, value))
        name = posixpath.basename(file.path.replace("\\", "/"))
        headers = [
            (b"WARC-Type", b"warcinfo"),
            (b"WARC-Date", format_warc_date(when, "1.0")),
            (b"WARC-Filename", name.encode("utf-8", "surrogateescape")),
            (b"WARC-Record-ID", self.ids.warcinfo(file.path)),
            (b"Content-Type", b"application/warc-fields"),
        ]
        self._emit(file, serialize_record("1.0", headers, warc_fields(fields)))

    def finish_file(self, file: Any) -> dict[str, Any]:
        """Close the file; its entry in ``ctx.notes``."""
        file.stream.close()
        return {"path": file.path, "records": file.records}


@hookimpl
def crawlmill_register_writers(register):
    """Register ``wet``."""
    register(WetWriter)
