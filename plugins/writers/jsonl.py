"""``pyserini`` writer: Pyserini/Anserini ``JsonCollection`` documents, one JSON object a line.

(Named ``pyserini``, not ``jsonl``: the plugin examples of ``docs/adding-a-writer.md`` and the
third-party plugin of the tests register a writer called ``jsonl``, and a built-in of that
name would refuse theirs.)

Each HTML page becomes ``{"id": ..., "contents": ...}`` (Anserini's ``JsonCollection``: "a
JSON Document on each line"; other keys become fields of their own), the text by
:mod:`crawlmill.plugins.text_extraction` (option ``extractor``), in input order, UTF-8 with no
``\\u`` escapes. ``fields`` adds ``url``, ``date`` (ISO 8601 UTC), ``title`` and
``description`` (kept apart from ``contents``), each only when the record has it. The files
are ``.jsonl`` or, with ``compress: true``, ``.jsonl.gz`` (one gzip stream per file); the
layout names them and rolls over (``layout: {name: plain, max_records: 100000}``: many files).

The document id (option ``doc_id``) follows the rule ``simhash-dedup`` uses for its cluster
table (:func:`crawlmill.plugins.filters.simhash_dedup.document_id`), so both name a document
alike: ``auto`` (the record's ``doc_id``: ClueWeb09's ``WARC-TREC-ID``, the NTCIR doc id;
else the UUID of its ``WARC-Record-ID``), ``doc-id``/``trec`` (the record's ``doc_id``
only), ``record-id``, ``url``, or the name of a WARC header; a document without one is named
``<input relpath>#<seq>`` as in the cluster table (counted as ``ids by position``).

Records that are not HTML pages (requests, warcinfo, metadata, images...) have no text: they
go to the quarantine with reason ``no-text`` (so ``read = written + quarantined`` stays
exact); filter them out before (``--filter kind keep=response --filter mime ...``) when only
the pages matter. A page whose extractor finds no text is written with empty ``contents``
and counted as ``empty text``. Only ``id`` must be unique for Pyserini: an id met twice in
one task is reported (warning ``duplicate-doc-id``).
"""

from __future__ import annotations

import gzip
import json
from datetime import UTC
from typing import Any, Literal

from crawlmill.core import FileWriter, FileWriterOptions, Record, hookimpl
from crawlmill.plugins.filters.simhash_dedup import document_id
from crawlmill.plugins.text_extraction import DEFAULT_EXTRACTOR, record_text
from pydantic import Field, field_validator

__all__ = ["FIELDS", "JsonlWriter"]

#: the extra fields ``fields`` may name.
FIELDS = ("url", "date", "title", "description")


class JsonlWriter(FileWriter):
    """Pyserini/Anserini JsonCollection: ``{"id", "contents"}`` per HTML page."""

    name = "pyserini"
    kinds = ("response", "resource")

    class Options(FileWriterOptions):
        """Options of the pyserini writer (``layout`` comes from FileWriterOptions)."""

        writes = "pyserini"

        extractor: Literal["resiliparse", "trafilatura", "lxml"] = Field(
            DEFAULT_EXTRACTOR,
            description="main-text extractor: resiliparse (default), trafilatura, or lxml "
            "(all body text, no boilerplate removal); see docs/outputs.md",
        )
        doc_id: str = Field(
            "auto",
            description="the id rule: auto (WARC-TREC-ID / NTCIR doc id, else the "
            "WARC-Record-ID's UUID), doc-id or trec (the record's doc id only), record-id, "
            "url, or a WARC header's name; a document without one is <file>#<seq>",
        )
        fields: list[str] = Field(
            default_factory=list,
            description="extra fields beside id and contents: url, date, title, description",
        )
        compress: bool = Field(False, description="gzip each file (.jsonl.gz)")

        @field_validator("fields")
        @classmethod
        def _known_fields(cls, value: list[str]) -> list[str]:
            unknown = [f for f in value if f not in FIELDS]
            if unknown:
                raise ValueError(f"unknown field(s) {unknown}; known: {', '.join(FIELDS)}")
            return value

    @classmethod
    def extension(cls, options: Any) -> str:
        """``.jsonl``, or ``.jsonl.gz`` with ``compress``."""
        return ".jsonl.gz" if options.compress else ".jsonl"

    def open(self, ctx: Any) -> None:
        """Start the input's layout; the first file comes with the first page."""
        self.open_layout(ctx)
        self.seen: set[str] = set()
        rule = self.options.doc_id
        self.rule = "trec" if rule == "doc-id" else rule

    def _id(self, record: Record) -> str:
        found = document_id(record, self.rule)
        if found:
            return found
        self.ctx.count("ids by position")
        return f"{self.ctx.input.relpath}#{self.ctx.seq}"

    def write(self, record: Record) -> None:
        """One JSON line for an HTML page; the quarantine for a record without text."""
        page = record_text(record, self.options.extractor)
        if page is None:
            self.ctx.quarantine(record, "no-text: not an HTML page (pyserini holds page texts)")
            return
        doc_id = self._id(record)
        if doc_id in self.seen:
            self.ctx.report_warning("duplicate-doc-id", f"doc id {doc_id!r} written twice")
        self.seen.add(doc_id)
        line: dict[str, Any] = {"id": doc_id, "contents": page.text}
        if not page.text:
            self.ctx.count("empty text")
        wanted = self.options.fields
        if "url" in wanted and record.url is not None:
            line["url"] = record.url
        if "date" in wanted and record.date is not None:
            line["date"] = record.date.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
        if "title" in wanted and page.title is not None:
            line["title"] = page.title
        if "description" in wanted and page.description is not None:
            line["description"] = page.description
        try:
            data = json.dumps(line, ensure_ascii=False).encode("utf-8")
        except UnicodeEncodeError:  # a lone surrogate (a URL's raw bytes): JSON escapes it
            data = json.dumps(line).encode("ascii")
        file = self.file_for(record)
        file.sink.write(data + b"\n")
        self.count(record)

    def close(self) -> None:
        """Close the open file."""
        self.ensure_output()
        if self.file is not None:
            self.close_file()

    def start_file(self, file: Any, first: Any) -> None:
        """Open the gzip stream (``compress``) or write to the file itself."""
        if self.options.compress:
            file.sink = gzip.GzipFile(fileobj=file.stream, mode="wb", mtime=0)
        else:
            file.sink = file.stream

    def finish_file(self, file: Any) -> dict[str, Any]:
        """Close the gzip stream and the file; the file's entry in ``ctx.notes``."""
        if file.sink is not file.stream:
            file.sink.close()
        file.stream.close()
        return {"path": file.path, "records": file.records}


@hookimpl
def crawlmill_register_writers(register):
    """Register ``pyserini``."""
    register(JsonlWriter)
