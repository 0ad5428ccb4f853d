"""``pyserini`` and ``ir-datasets`` writers: page texts as JSON lines, one object a line.

``ir-datasets`` writes the same lines with ir_datasets' keys, ``{"doc_id", "text"}`` (its
``GenericDoc``, what its ``JsonlDocs`` reads as ``docs.jsonl``); everything below holds for
both.

(Named ``pyserini``, not ``jsonl``: the plugin examples of ``docs/adding-a-writer.md`` and the
third-party plugin of the tests register a writer called ``jsonl``, and a built-in of that
name would refuse theirs.)

Each HTML page becomes ``{"id": ..., "contents": ...}`` (Anserini's ``JsonCollection``: "a
JSON Document on each line"; other keys become fields of their own), the text by
:mod:`crawlmill.algorithms.text_extraction` (option ``extractor``), in input order, UTF-8 with no
``\\u`` escapes. ``fields`` adds ``url``, ``date`` (ISO 8601 UTC), ``title`` and
``description`` (kept apart from ``contents``), each only when the record has it. The files
are ``.jsonl`` or, with ``compress: true``, ``.jsonl.gz`` (one gzip stream per file); the
layout names them and rolls over (``layout: {name: plain, max_records: 100000}``: many files).

The document id (option ``doc_id``) follows the rule ``simhash-dedup`` uses for its cluster
table (:func:`crawlmill.algorithms.document_ids.document_id`), so both name a document
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

import json
from datetime import UTC
from typing import Any

from crawlmill.core import Record, hookimpl
from pydantic import Field, field_validator

from .doc_ids import DocIds
from .text_base import TextDocOptions, TextSinkWriter

__all__ = ["FIELDS", "IrDatasetsWriter", "JsonlWriter"]

#: the extra fields ``fields`` may name.
FIELDS = ("url", "date", "title", "description")


class JsonlWriter(TextSinkWriter):
    """Pyserini/Anserini JsonCollection: ``{"id", "contents"}`` per HTML page."""

    name = "pyserini"
    #: the keys of a line's id and text.
    id_key = "id"
    text_key = "contents"

    class Options(TextDocOptions):
        """Options of the pyserini writer (``extractor``, ``doc_id`` and ``layout`` come from
        TextDocOptions)."""

        writes = "pyserini"

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
        self.ids = DocIds(self.options.doc_id, ctx)

    def write(self, record: Record) -> None:
        """One JSON line for an HTML page; the quarantine for a record without text."""
        wanted = self.options.fields
        page = self.page(record, head="title" in wanted or "description" in wanted)
        if page is None:
            return
        line: dict[str, Any] = {self.id_key: self.ids(record), self.text_key: page.text}
        if not page.text:
            self.ctx.count("empty text")
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


class IrDatasetsWriter(JsonlWriter):
    """ir_datasets' ``docs.jsonl``: ``{"doc_id", "text"}`` per HTML page (its ``GenericDoc``
    fields, what ``JsonlDocs`` maps by default and ``ir_datasets export`` writes)."""

    name = "ir-datasets"
    id_key = "doc_id"
    text_key = "text"

    class Options(JsonlWriter.Options):
        """Options of the ir-datasets writer: the pyserini writer's."""

        writes = "ir-datasets"


@hookimpl
def crawlmill_register_writers(register):
    """Register ``pyserini`` and ``ir-datasets``."""
    register(JsonlWriter)
    register(IrDatasetsWriter)
