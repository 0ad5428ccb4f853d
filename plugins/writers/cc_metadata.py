"""``cc-metadata`` writer: the Common Crawl 2012 metadata JSON of each capture, as JSON lines.

One line per record, ``{"url": ..., "metadata": {...}}`` (``text_simhash``: the 64-bit
simhash of :mod:`crawlmill.formats.simhash` over the page text, signed as in 2012) (``"text"`` too with ``text: true``:
the ``textData`` value), in input order; the JSON is made by
:func:`crawlmill.formats.cc2012_metadata.page_metadata` from the record's URL, IP, date, HTTP
head and payload. A record the ``cc-metadata`` reader read (``extras["cc_metadata"]``) and
nothing changed is written back as it was read. What this format cannot hold goes to the
quarantine (reason ``not-a-capture``): records that are not ``response`` captures (requests,
warcinfo, metadata of other kinds), so filter them out (``--filter kind keep=response``) when
only the pages matter. The record's other fields are in the JSON (headers, status, charset)
or derived from the payload; ``text``, ``outlinks``, ``content_type``, ``charset`` and
``doc_id`` are recomputed from the page or have no field, so a filter that changed one of them
gets a warning (``text-not-written``...): the change does not reach the JSON. The
SequenceFile form (``metadata-NNNNN``) comes with the SequenceFile writer (issue 9).
"""

from __future__ import annotations

import json
from typing import Any

from crawlmill.core import Record, RecordKind, hookimpl
from crawlmill.formats.cc2012_metadata import page_metadata, page_text
from crawlmill.formats.html_charset import detect_charset
from crawlmill.formats.simhash import simhash
from crawlmill.plugins.writers.files import FileWriter, FileWriterOptions
from pydantic import Field

__all__ = ["CcMetadataWriter"]

#: changed fields the JSON does not take from the record, and their warning codes.
_NOT_WRITTEN = (
    ("text", "text-not-written"),
    ("outlinks", "outlinks-not-written"),
    ("content_type", "content-type-not-written"),
    ("charset", "charset-not-written"),
    ("doc_id", "doc-id-not-written"),
)


class CcMetadataWriter(FileWriter):
    """Common Crawl 2012 metadata JSON per capture, one JSON line each."""

    name = "cc-metadata"

    class Options(FileWriterOptions):
        """Options of the cc-metadata writer."""

        writes = "cc-metadata"
        text: bool = Field(False, description='add the textData text of each page ("text")')

    @classmethod
    def extension(cls, options: Any) -> str:
        """``.jsonl``."""
        return ".jsonl"

    def open(self, ctx: Any) -> None:
        """Start the input's layout; the first file comes with the first record."""
        self.open_layout(ctx)

    def _line(self, record: Record) -> dict[str, Any] | None:
        kept = record.extras.get("cc_metadata")
        if kept is not None and not record.modified:
            return dict(kept["line"])
        if record.kind != RecordKind.RESPONSE or record.url is None:
            return None
        data = page_metadata(
            record.url,
            record.payload,
            record.http_head,
            ip=record.ip,
            fetched=record.date,
            simhash=simhash,  # crawlmill's 64-bit simhash of the page text (issue 11)
        )
        line: dict[str, Any] = {"url": record.url, "metadata": data}
        if self.options.text:
            charset, _ = detect_charset(record.charset, record.payload)
            line["text"] = page_text(record.payload, charset, data.get("parsed_as") == "feed")
        return line

    def write(self, record: Record) -> None:
        """One JSON line, or the quarantine for a record that is no capture."""
        line = self._line(record)
        if line is None:
            self.ctx.quarantine(record, "not-a-capture: cc-metadata holds HTTP captures only")
            return
        for name, code in _NOT_WRITTEN:
            if name in record.changed:
                self.ctx.report_warning(
                    code, f"a changed {name}: the 2012 JSON is made from the page"
                )
        file = self.file_for(record)
        file.stream.write(json.dumps(line, ensure_ascii=False).encode("utf-8") + b"\n")
        self.count(record)

    def close(self) -> None:
        """Close the open file."""
        if self.file is not None:
            self.close_file()

    def start_file(self, file: Any, first: Any) -> None:
        """No header line."""

    def finish_file(self, file: Any) -> dict[str, Any]:
        """Close the stream; the file's entry in ``ctx.notes``."""
        file.stream.close()
        return {"path": file.path, "records": file.records}


@hookimpl
def crawlmill_register_writers(register):
    """Register ``cc-metadata``."""
    register(CcMetadataWriter)
