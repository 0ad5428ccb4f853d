"""``cc2012`` writer: any captures as a Common Crawl 2012 parse-output segment folder.

Each input is one task partition ``NNNNN`` (its place in the run) and writes, at the output
root:

* ``<arcFileDate>_<NNNNN>.arc.gz``: the captures, written by the ``arc`` writer
  (:mod:`crawlmill.plugins.writers.arc`: ARC v1, one gzip member per record, its filedesc
  first; what ARC cannot hold is quarantined or warned about there). ``arcFileDate`` is the
  ms time of the first capture (``SOURCE_DATE_EPOCH`` when set), as the crawler named an ARC
  by the time it opened it;
* ``metadata-NNNNN`` and ``textData-NNNNN``: the 2012 SequenceFiles in the ``variant``'s
  shape (:mod:`crawlmill.formats.cc2012_segment`: ``text-gzip`` = ``Text``, GzipCodec;
  ``textbytes-snappy`` = ``TextBytes``, metadata GzipCodec, textData SnappyCodec), URL ->
  JSON and URL -> text (non-empty texts only).

The JSON of a capture is the input's own when it has it: the ``metadata`` record carrying
2012 JSON that follows the capture of the same URL (as the ``cc2012`` reader delivers them,
and as a WARC made from a segment keeps them), with that record's text (made from the capture
when the record has none: a WARC keeps no text); otherwise it is made from the capture
(:mod:`crawlmill.plugins.writers.cc2012_json`), and so is the text; a capture the ARC writer
quarantines gets no metadata entry either. A metadata record carrying JSON without a capture
before it (a failure) is written to metadata (and its text to textData) only; a
``conversion`` record to textData only. Other records go to
the ARC writer, which keeps a first ``warcinfo`` or ARC filedesc in the filedesc and
quarantines what ARC cannot hold (requests, other metadata: filter them out with
``--filter kind keep=response`` when only the pages matter). A WARC made from a segment starts
with crawlmill's warcinfo and then the ARC filedesc: drop the warcinfo
(``--filter kind drop=warcinfo``) to keep the filedesc, as with the ``arc`` writer.
"""

from __future__ import annotations

import os
from datetime import UTC, datetime
from typing import Any, Literal

from crawlmill.core import InputFile, Record, RecordKind, WriteContext, Writer, hookimpl
from crawlmill.core.plugin import PluginOptions
from crawlmill.formats.cc2012_segment import VARIANTS, SegmentFiles
from pydantic import Field

from .arc import ArcWriter
from .cc2012_json import carried_json, compact, page_json, page_text_of
from .cc_metadata import segment_names

__all__ = ["Cc2012Writer"]

_CAPTURES = (RecordKind.RESPONSE, RecordKind.RESOURCE)


def _ms(when: datetime | None) -> int:
    epoch = os.environ.get("SOURCE_DATE_EPOCH", "").strip()
    if epoch.isdigit():
        return int(epoch) * 1000
    if when is None:
        return 0
    if when.tzinfo is None:
        when = when.replace(tzinfo=UTC)
    return int(when.timestamp() * 1000)


class Cc2012Writer(Writer):
    """Common Crawl 2012 segments: ``<ts>_<n>.arc.gz``, ``metadata-NNNNN``, ``textData-NNNNN``."""

    name = "cc2012"

    class Options(PluginOptions):
        """Options of the cc2012 writer."""

        variant: Literal["text-gzip", "textbytes-snappy"] = Field(
            "text-gzip",
            description="text-gzip (Text keys and values, GzipCodec; July 2012 on) or "
            "textbytes-snappy (TextBytes; metadata GzipCodec, textData SnappyCodec; before)",
        )

    @classmethod
    def planned_outputs(cls, options: Any, inputs: list[InputFile]) -> list[list[str]] | None:
        """``metadata-NNNNN`` and ``textData-NNNNN`` of each input (the ARC file is named by
        its first capture's time, known when it comes)."""
        return [list(segment_names(i.index)) for i in inputs]

    def open(self, ctx: WriteContext) -> None:
        """Open the partition's SequenceFiles; the ARC file comes with the first capture."""
        self.ctx = ctx
        meta, text = segment_names(ctx.input.index)
        self.segment = SegmentFiles(
            ctx.create(meta), ctx.create(text), VARIANTS[self.options.variant]
        )
        ctx.notes.setdefault("files", [])
        ctx.notes["files"] += [{"path": meta}, {"path": text}]
        self.arc: ArcWriter | None = None
        self.pending: Record | None = None

    def _arc(self, first: Record) -> ArcWriter:
        if self.arc is None:
            pattern = f"{_ms(first.date)}_{{index}}{{ext}}"
            options = ArcWriter.Options.model_validate(
                {"layout": {"name": "plain", "name_pattern": pattern}}
            )
            self.arc = ArcWriter(options)
            self.arc.open(self.ctx)
        return self.arc

    def write(self, record: Record) -> None:
        """Route one record (see the module docstring)."""
        carried = carried_json(record)
        if carried is not None:
            pending, self.pending = self.pending, None
            text = record.text
            if pending is not None and pending.url != record.url:
                self._generated(pending)
            elif pending is not None and text is None:  # a WARC keeps no text: from the page
                text = page_text_of(pending, carried[0])
            self._entries(record.url or "", carried[1], text or "")
            return
        self._flush()
        if record.kind == RecordKind.CONVERSION and record.url is not None:
            self.segment.add_text(record.url.encode("utf-8", "surrogateescape"), record.payload)
            return
        arc = self._arc(record)
        before = arc.file.records if arc.file is not None else 0
        arc.write(record)
        written = arc.file is not None and arc.file.records > before  # not quarantined
        if written and record.kind in _CAPTURES and record.url and record.http_head is not None:
            self.pending = record  # its JSON: the next record's, or made from it

    def _flush(self) -> None:
        if self.pending is not None:
            pending, self.pending = self.pending, None
            self._generated(pending)

    def _generated(self, record: Record) -> None:
        data = page_json(record)
        self._entries(record.url or "", compact(data), page_text_of(record, data))

    def _entries(self, url: str, json_bytes: bytes, text: str) -> None:
        key = url.encode("utf-8", "surrogateescape")
        self.segment.add_metadata(key, json_bytes)
        self.segment.add_text(key, text.encode("utf-8", "surrogateescape"))

    def close(self) -> None:
        """Write the last capture's JSON; close the ARC file and the SequenceFiles."""
        try:
            self._flush()
            if self.arc is not None:
                self.arc.close()
        finally:
            self.segment.close()


@hookimpl
def crawlmill_register_writers(register) -> None:
    """Register ``cc2012``."""
    register(Cc2012Writer)
