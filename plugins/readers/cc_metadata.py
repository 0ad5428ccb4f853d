"""``cc-metadata`` reader: Common Crawl 2012 metadata back into Records, from JSON lines or
from the 2012 SequenceFiles.

* JSON lines ``{"url": ..., "metadata": {...}, "text": ...}`` (what the ``cc-metadata``
  writer writes by default): one ``metadata`` record per line;
* a ``metadata-NNNNN`` SequenceFile (``Text`` or ``TextBytes`` keys = URL, values = the JSON;
  any codec): one ``metadata`` record per entry, its payload the JSON bytes as stored;
* a ``textData-NNNNN`` SequenceFile (URL -> text): one ``conversion`` record per entry (the
  ``cc2012`` reader joins a segment's text with its metadata and ARC records instead).

A metadata record (:mod:`crawlmill.plugins.readers.cc2012_records`): payload the metadata JSON
(``application/json``), ``date`` the ``attempt_time``, ``ip`` the ``server_ip``,
``outlinks`` the ``href`` and ``text`` of ``content.links`` (feed item links too), ``text``
the textData when the line has it; ``extras["cc_metadata"]`` keeps the line as read (so
cc-metadata -> cc-metadata gives the same lines), the disposition and the HTTP status. A
failure (``disposition: FAILURE``) is a record of its own, with its reason in extras. A line
that is not a JSON object with a ``url`` is damage at its byte offset (``bad-json-line``), a
SequenceFile value that is no JSON object too (``bad-json-value``: the quarantine keeps its
record's bytes, or its compressed block's, once per block), and the next is read;
SequenceFile damage resyncs at the next sync marker. Detected by a first line that is such an
object with a ``metadata`` object, or by a SequenceFile of ``Text``/``TextBytes`` named
``metadata-NNNNN`` or ``textData-NNNNN``.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterator

from crawlmill.core import (
    Damage,
    Provenance,
    ReadContext,
    Reader,
    Record,
    hookimpl,
)
from crawlmill.formats.cc2012.segment import METADATA_NAME, TEXT_CLASS, TEXT_NAME, TEXTBYTES_CLASS
from crawlmill.formats.hadoop.sequencefile import HeaderError, read_header

from .cc2012_records import StoredSpans, metadata_record, parse_json, seq_entries, text_record

__all__ = ["CcMetadataReader"]


_TEXT_CLASSES = {TEXT_CLASS, TEXTBYTES_CLASS, "org.commoncrawl.util.shared.TextBytes"}


def _cc_sequencefile(path: str, head: bytes) -> bool:
    """A SequenceFile of Text/TextBytes keys and values named ``metadata-N``/``textData-N``."""
    name = os.path.basename(path)
    if not (METADATA_NAME.match(name) or TEXT_NAME.match(name)) or head[:3] != b"SEQ":
        return False
    try:
        header = read_header(head)
    except HeaderError:
        return False
    return header.key_class in _TEXT_CLASSES and header.value_class in _TEXT_CLASSES


class CcMetadataReader(Reader):
    """Common Crawl 2012 metadata JSON lines (``{"url", "metadata"[, "text"]}``)."""

    name = "cc-metadata"
    file_suffixes = (".jsonl",)

    @classmethod
    def sniff(cls, path: str, head: bytes) -> float:
        """Sure when the first line is an object with ``url`` and a ``metadata`` object, or
        for a ``metadata-NNNNN``/``textData-NNNNN`` SequenceFile of Text/TextBytes (above
        the ``sequencefile`` reader's 0.95)."""
        if _cc_sequencefile(path, head):
            return 0.97
        first = head.split(b"\n", 1)[0]
        try:
            data = json.loads(first)
        except ValueError:
            return 0.0
        ok = isinstance(data, dict) and "url" in data and isinstance(data.get("metadata"), dict)
        return 0.9 if ok else 0.0

    def read(self, ctx: ReadContext) -> Iterator[Record]:
        """One record per line or entry (see the module docstring)."""
        with ctx.open_file() as fh:
            magic = fh.read(3)
        if magic == b"SEQ":
            yield from self._read_sequencefile(ctx)
            return
        offset = 0
        with ctx.open_file() as fh:
            for raw in fh:
                start, offset = offset, offset + len(raw)
                if not raw.strip():
                    continue
                try:
                    line = json.loads(raw)
                    if not isinstance(line, dict) or not isinstance(line.get("url"), str):
                        raise ValueError("not an object with a url")
                    metadata = line.get("metadata")
                    if not isinstance(metadata, dict):
                        raise ValueError("no metadata object")
                except ValueError as exc:
                    reason = f"not a metadata JSON line: {exc}"
                    ctx.report_damage(
                        Damage(ctx.path, start, reason, len(raw), raw, "bad-json-line")
                    )
                    continue
                yield self._record(ctx.path, start, len(raw), line, metadata)

    @staticmethod
    def _read_sequencefile(ctx: ReadContext) -> Iterator[Record]:
        is_text = TEXT_NAME.match(os.path.basename(ctx.path)) is not None
        spans = StoredSpans(ctx.path, ctx.limits.max_record_bytes)
        for key, value, source, entry in seq_entries(ctx, ctx.path):
            url = key.decode("utf-8", "surrogateescape")
            if is_text:
                yield text_record(url, value, source)
            elif (metadata := parse_json(ctx, key, value, (spans, entry))) is not None:
                yield metadata_record(url, metadata, value, None, source)

    @staticmethod
    def _record(path: str, offset: int, length: int, line: dict, metadata: dict) -> Record:
        payload = json.dumps(metadata, ensure_ascii=False).encode("utf-8")
        text = line.get("text")
        source = Provenance(path, offset, length, "cc-metadata")
        return metadata_record(
            line["url"], metadata, payload, text if isinstance(text, str) else None, source, line
        )


@hookimpl
def crawlmill_register_readers(register):
    """Register ``cc-metadata``."""
    register(CcMetadataReader)
