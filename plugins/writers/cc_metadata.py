"""``cc-metadata`` writer: the Common Crawl 2012 metadata JSON of each capture, as JSON lines
or as the 2012 SequenceFiles.

``variant: jsonl`` (default): one line per record, ``{"url": ..., "metadata": {...}}`` (``text_simhash``: the 64-bit
simhash of :mod:`crawlmill.algorithms.simhash` over the page text, signed as in 2012) (``"text"`` too with ``text: true``:
the ``textData`` value), in input order; the JSON is made by
:func:`crawlmill.formats.cc2012.metadata.page_metadata` from the record's URL, IP, date, HTTP
head and payload, with the ``redirect_from`` of a capture a 3xx capture before it redirected to
(counted as ``redirect_from set``; :class:`~crawlmill.plugins.writers.cc2012_json.Redirects`).
A record the ``cc-metadata`` reader read (``extras["cc_metadata"]``) and nothing changed is
written back as it was read. What this format cannot hold goes to the
quarantine (reason ``not-a-capture``): records that are not ``response`` captures (requests,
warcinfo, metadata of other kinds), so filter them out (``--filter kind keep=response``) when
only the pages matter. The record's other fields are in the JSON (headers, status, charset)
or derived from the payload; ``text``, ``outlinks``, ``content_type``, ``charset`` and
``doc_id`` are recomputed from the page or have no field, so a filter that changed one of them
gets a warning (``text-not-written``...): the change does not reach the JSON.

``variant: text-gzip`` or ``textbytes-snappy``: the input's ``metadata-NNNNN`` and
``textData-NNNNN`` (``NNNNN`` its place in the run) as Common Crawl wrote them in 2012
(:mod:`crawlmill.formats.cc2012.segment`): SEQ6, BLOCK, ``Text`` keys and values with
GzipCodec (July 2012 on), or ``org.commoncrawl.util.TextBytes`` with GzipCodec metadata and
SnappyCodec textData (before); URL -> compact JSON, URL -> text (non-empty texts only). A
metadata record that carries the JSON (read from either form) is written with its own JSON
and text; a ``conversion`` record (a textData entry read alone) goes to textData only.
"""

from __future__ import annotations

import json
from typing import Any, Literal

from crawlmill.core import FileWriter, FileWriterOptions, InputFile, Record, RecordKind, hookimpl
from crawlmill.core.extras import CcMetadataExtras
from crawlmill.formats.cc2012.segment import VARIANTS, SegmentFiles
from crawlmill.plugins.writers.original_date import warn_original_date_dropped
from pydantic import Field

from .cc2012_json import Redirects, carried_json, compact, page_json, page_text_of

__all__ = ["CcMetadataWriter", "segment_names"]

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

    kinds = ("response",)

    name = "cc-metadata"

    class Options(FileWriterOptions):
        """Options of the cc-metadata writer."""

        writes = "cc-metadata"
        text: bool = Field(
            False, description='JSON lines: add the textData text of each page ("text")'
        )
        variant: Literal["jsonl", "text-gzip", "textbytes-snappy"] = Field(
            "jsonl",
            description="jsonl (JSON lines), or the 2012 SequenceFiles metadata-NNNNN and "
            "textData-NNNNN: text-gzip (Text, GzipCodec; July 2012 on) or textbytes-snappy "
            "(TextBytes; metadata GzipCodec, textData SnappyCodec; before; meta_tags as "
            "{name, value})",
        )

    @classmethod
    def extension(cls, options: Any) -> str:
        """``.jsonl``."""
        return ".jsonl"

    @classmethod
    def planned_outputs(cls, options: Any, inputs: list[InputFile]) -> list[list[str]] | None:
        """JSON lines: as the layout names them; SequenceFiles: ``metadata-NNNNN`` and
        ``textData-NNNNN`` of each input's place in the run."""
        if options.variant == "jsonl":
            return super().planned_outputs(options, inputs)
        return [list(segment_names(i.index)) for i in inputs]

    @classmethod
    def position_free(cls, options: Any) -> bool:
        """JSON lines: the layout's answer; SequenceFiles are named by the input's place."""
        return options.variant == "jsonl" and super().position_free(options)

    def open(self, ctx: Any) -> None:
        """Start the input's layout (JSON lines: the first file comes with the first
        record), or its two SequenceFiles."""
        self.open_layout(ctx)
        self.redirects = Redirects()
        self.segment: SegmentFiles | None = None
        if self.options.variant != "jsonl":
            meta, text = segment_names(ctx.input.index)
            self.segment = SegmentFiles(
                ctx.create(meta), ctx.create(text), VARIANTS[self.options.variant]
            )
            ctx.notes["files"] += [{"path": meta}, {"path": text}]

    def _line(self, record: Record) -> dict[str, Any] | None:
        kept: CcMetadataExtras | None = record.extras.get("cc_metadata")
        if isinstance(kept, dict) and "line" in kept and not record.modified:
            return dict(kept["line"])
        if record.kind != RecordKind.RESPONSE or record.url is None:
            return None
        data = self.redirects.apply(record, page_json(record, self.options.variant))
        if "redirect_from" in data:
            self.ctx.count("redirect_from set")
        line: dict[str, Any] = {"url": record.url, "metadata": data}
        if self.options.text or self.segment is not None:
            line["text"] = page_text_of(record, data)
        return line

    def _entries(self, record: Record) -> bool:
        """Write ``record`` to the SequenceFiles; ``False`` when it is no capture."""
        assert self.segment is not None
        url = (record.url or "").encode("utf-8", "surrogateescape")
        carried = carried_json(record)
        if carried is not None:
            self.segment.add_metadata(url, carried[1])
            self.segment.add_text(url, (record.text or "").encode("utf-8", "surrogateescape"))
            return True
        if record.kind == RecordKind.CONVERSION and record.url is not None:
            self.segment.add_text(url, record.payload)
            return True
        line = self._line(record)
        if line is None:
            return False
        self.segment.add_metadata(url, compact(line["metadata"]))
        self.segment.add_text(url, str(line.get("text") or "").encode("utf-8", "surrogateescape"))
        return True

    def write(self, record: Record) -> None:
        """One JSON line or SequenceFile entry, or the quarantine for a record that is no
        capture."""
        if self.segment is not None:
            if not self._entries(record):
                self.ctx.quarantine(
                    record, "not-a-capture: cc-metadata holds HTTP captures only"
                )
                return
            # a carried JSON's text goes to textData as the record has it
            self._warn(record, skip=("text",) if "text" in record.changed and carried_json(record) else ())
            return
        line = self._line(record)
        if line is None:
            self.ctx.quarantine(record, "not-a-capture: cc-metadata holds HTTP captures only")
            return
        self._warn(record)
        file = self.file_for(record)
        file.stream.write(json.dumps(line, ensure_ascii=False).encode("utf-8") + b"\n")
        self.count(record)

    def _warn(self, record: Record, skip: tuple[str, ...] = ()) -> None:
        for name, code in _NOT_WRITTEN:
            if name in record.changed and name not in skip:
                self.ctx.report_warning(
                    code, f"a changed {name}: the 2012 JSON is made from the page"
                )
        warn_original_date_dropped(record, self.ctx.report_warning, "the 2012 JSON")

    def close(self) -> None:
        """Close the open file(s)."""
        if self.segment is not None:
            self.segment.close()
        if self.file is not None:
            self.close_file()

    def start_file(self, file: Any, first: Any) -> None:
        """No header line."""

    def finish_file(self, file: Any) -> dict[str, Any]:
        """Close the stream; the file's entry in ``ctx.notes``."""
        file.stream.close()
        return {"path": file.path, "records": file.records}


def segment_names(partition: int) -> tuple[str, str]:
    """``(metadata-NNNNN, textData-NNNNN)`` of a partition."""
    return f"metadata-{partition:05d}", f"textData-{partition:05d}"


@hookimpl
def crawlmill_register_writers(register):
    """Register ``cc-metadata``."""
    register(CcMetadataWriter)
