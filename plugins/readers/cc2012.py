"""``cc2012``: a Common Crawl 2012 parse-output segment folder read as one collection.

The folder (``parse-output/segment/<segmentId>/``) holds per task partition ``n``
``<arcFileDate>_<n>.arc.gz`` files, ``metadata-<n:05d>`` and ``textData-<n:05d>``
(:mod:`crawlmill.formats.cc2012.segment`). :meth:`Cc2012Reader.discover` makes one unit per
partition (``partition-NNNNN``, its parts the partition's files), so a segment converts with
one task per partition. A unit's records, in ARC order:

* every ARC record as the ``arc`` reader maps it (through the registry: the filedesc, the
  ``response`` captures), and after each capture the ``metadata`` record of its URL's
  metadata entry, carrying the JSON as stored and the textData text of the URL
  (:mod:`crawlmill.plugins.readers.cc2012_records`); so a segment converts to WARC as
  ``response`` records each followed by a ``metadata`` record with the JSON;
* metadata entries no ARC record has (failures: the crawler archived only what it fetched)
  as ``metadata`` records of their own, where they stand in the metadata file, or at the end;
* textData entries whose metadata entry is missing as ``conversion`` records of their own
  (warning ``cc2012-text-without-metadata``); an ARC capture without a metadata entry is
  delivered with the warning ``cc2012-no-metadata``. An ARC record that is no HTTP capture
  (a ``dns:`` lookup, which the ``cc2012`` writer keeps in the ARC file) has no entry by
  design, as the 2012 crawler parsed HTTP pages only: it is delivered with no warning.

Memory: the ARC files stream record by record; the metadata and textData files stream a
SequenceFile block at a time, and the join holds at most ``join_memory`` bytes of entries
read ahead per file (:class:`~crawlmill.formats.cc2012.segment.OrderedJoin`: the three files
share one order, as the crawler wrote them from one map call, so in practice it holds only
the entries between two captures); entries pushed out of a full window are delivered
unjoined, never dropped (counted as ``unjoined (window full)``).
"""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Iterator
from typing import Any

from crawlmill.core import (
    InputFile,
    PluginOptions,
    ReadContext,
    Reader,
    Record,
    RecordKind,
    hookimpl,
)
from crawlmill.formats.cc2012.segment import ARC_NAME, OrderedJoin, partitions
from pydantic import Field

from .cc2012_records import StoredSpans, metadata_record, parse_json, seq_entries, text_record

__all__ = ["Cc2012Reader"]

_JOINED = (RecordKind.RESPONSE, RecordKind.RESOURCE)


def _is_segment(path: str) -> bool:
    if not os.path.isdir(path):
        return False
    found = partitions(path)
    return any(p.metadata or p.text for p in found.values())


def _not_failure(value: bytes) -> bool:
    """Whether a metadata value may have an ARC record (a FAILURE has none)."""
    return b'"disposition":"FAILURE"' not in value.replace(b" ", b"")


class Cc2012Reader(Reader):
    """Common Crawl 2012 parse-output segments: ARC + metadata JSON + textData, joined by URL."""

    name = "cc2012"
    file_suffixes = ()

    class Options(PluginOptions):
        """Options of the cc2012 reader."""

        join_memory: int = Field(
            64 * 1024 * 1024,
            ge=1,
            description="bytes of metadata (and of text) entries the URL join holds while "
            "reading ahead; beyond them entries are delivered unjoined",
        )

    @classmethod
    def sniff(cls, path: str, head: bytes) -> float:
        """Sure for a folder holding ``metadata-NNNNN`` or ``textData-NNNNN`` files (with or
        without ARC files); 0 for a file."""
        return 0.9 if _is_segment(path) else 0.0

    @classmethod
    def discover(cls, path: str, options: PluginOptions) -> list[InputFile] | None:
        """One unit per partition, in partition order; ``None`` when ``path`` is no segment."""
        if not _is_segment(path):
            return None
        root = os.path.abspath(path)
        units = []
        for n, part in partitions(root).items():
            parts = {f"arc/{os.path.basename(p)}": p for p in part.arcs}
            if part.metadata:
                parts["metadata"] = part.metadata
            if part.text:
                parts["textData"] = part.text
            rel = f"partition-{n:05d}"
            units.append(
                InputFile(os.path.join(root, rel), rel, meta={"partition": n}, parts=parts)
            )
        return units

    def read(self, ctx: ReadContext) -> Iterator[Record]:
        """The partition's records (see the module docstring)."""
        parts = ctx.input.parts
        window = self.options.join_memory
        metas = OrderedJoin(self._entries(ctx, "metadata", spans=True), window, _not_failure)
        texts = OrderedJoin(self._entries(ctx, "textData"), window, slide=False)
        arcs = sorted(
            (p for name, p in parts.items() if name.startswith("arc/")),
            key=lambda p: int(ARC_NAME.match(os.path.basename(p)).group(1)),  # type: ignore[union-attr]
        )
        arc_reader = ctx.reader("arc")
        for path in arcs:
            sub = dataclasses.replace(ctx, input=InputFile(path, os.path.basename(path)))
            for record in arc_reader.read(sub):
                if record.kind not in _JOINED or record.url is None or record.http_head is None:
                    yield record  # no HTTP capture (a dns: record): no metadata entry is due
                    continue
                key = record.url.encode("utf-8", "surrogateescape")
                found = metas.take(key)
                yield from self._metadata(ctx, metas.take_passed(), texts)
                while metas.paused:  # failures handed out a window at a time
                    found = metas.take(key)
                    yield from self._metadata(ctx, metas.take_passed(), texts)
                yield record
                if found is None:
                    ctx.report_warning(
                        "cc2012-no-metadata", f"{record.url}: no metadata entry in the partition"
                    )
                    continue
                yield from self._metadata(ctx, [(key, *found)], texts)
        yield from self._metadata(ctx, metas.rest(), texts)
        if metas.evicted:
            ctx.count("unjoined (window full)", metas.evicted)
        for key, value, source in texts.rest():
            url = key.decode("utf-8", "surrogateescape")
            ctx.report_warning("cc2012-text-without-metadata", f"{url}: textData without metadata")
            yield text_record(url, value, source)

    @staticmethod
    def _entries(
        ctx: ReadContext, part: str, spans: bool = False
    ) -> Iterator[tuple[bytes, bytes, Any]]:
        """``(key, value, provenance)`` of the part's entries; with ``spans``, the third is
        ``(provenance, (StoredSpans, Entry))``: what a bad value's damage quarantines."""
        path = ctx.input.parts.get(part)
        if path is None:
            return
        stored = StoredSpans(path, ctx.limits.max_record_bytes)
        for key, value, source, entry in seq_entries(ctx, path):
            yield key, value, (source, (stored, entry)) if spans else source

    @staticmethod
    def _metadata(ctx: ReadContext, items: Any, texts: OrderedJoin) -> Iterator[Record]:
        for key, value, (source, stored) in items:
            data = parse_json(ctx, key, value, stored)
            if data is None:
                continue
            text = None
            if data.get("disposition") != "FAILURE":
                found = texts.take(key)
                if found is not None:
                    text = found[0].decode("utf-8", "replace")
            url = key.decode("utf-8", "surrogateescape")
            yield metadata_record(url, data, value, text, source)


@hookimpl
def crawlmill_register_readers(register) -> None:
    """Register ``cc2012``."""
    register(Cc2012Reader)
