"""Records of Common Crawl 2012 metadata and textData entries, shared by the ``cc-metadata``
and ``cc2012`` readers.

* a metadata entry is a ``metadata`` record for its URL: payload the JSON as stored
  (``application/json``), ``date`` the ``attempt_time``, ``ip`` the ``server_ip``,
  ``outlinks`` the links of ``content`` (feed items' too), ``text`` the page's textData when
  joined; ``extras["cc_metadata"]`` holds ``line`` (``{"url", "metadata"[, "text"]}``, what
  the JSON-lines form writes), the disposition, the HTTP status and the failure reason. A
  failure (``disposition: FAILURE``) is such a record too: it has no ARC record;
* a textData entry read on its own is a ``conversion`` record (the text of the URL's page,
  ``text/plain`` UTF-8, also as ``text``), as WARC keeps a text derived from a capture.

:func:`seq_entries` reads one metadata or textData SequenceFile, reporting its damage with the
file's path and offset; a value that is no JSON object is damage (``bad-json-value``) holding
the file's bytes of its record or block (:class:`StoredSpans`).
"""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime
from typing import Any

from crawlmill.core import Damage, Outlink, Provenance, ReadContext, Record, RecordKind, storage
from crawlmill.core.extras import CcMetadataExtras
from crawlmill.core.record import OffsetSpace
from crawlmill.formats.cc2012.long_json import loads
from crawlmill.formats.cc2012.segment import iter_pairs, link_pairs
from crawlmill.formats.hadoop.sequencefile import Entry, HeaderError, read_header

__all__ = [
    "StoredSpans",
    "metadata_record",
    "parse_json",
    "seq_entries",
    "text_record",
]


def seq_entries(ctx: ReadContext, path: str) -> Iterator[tuple[bytes, bytes, Provenance, Entry]]:
    """``(URL bytes, value bytes, provenance, entry)`` of every entry of the SequenceFile
    ``path``, ``entry`` its record's or block's span; damage (a file that is no SequenceFile, a
    corrupt block) reported with its offset."""
    limits = ctx.limits
    with storage.mapped(path) as data:
        if len(data) == 0:
            ctx.report_damage(Damage(path, 0, "empty file: no SequenceFile header", 0, b"",
                                     "truncated-record"))  # fmt: skip
            return
        try:
            header = read_header(data, limits.max_header_bytes)
        except HeaderError as exc:
            chunk = data[: limits.max_record_bytes]
            ctx.report_damage(Damage(path, 0, f"not a SequenceFile: {exc}", len(data), chunk,
                                     "not-a-record"))  # fmt: skip
            return
        items = iter_pairs(
            data,
            header,
            max_record_bytes=limits.max_record_bytes,
            max_decompressed_bytes=limits.max_decompressed_bytes,
        )
        for item in items:
            if isinstance(item, tuple):
                key, value, entry = item
                length = entry.length if entry.block is None else None
                src = Provenance(path, entry.offset, length, "cc-metadata", OffsetSpace.FILE)
                yield key, value, src, entry
            else:
                ctx.report_damage(Damage(path, item.offset, item.reason, item.length,
                                         item.data, item.code))  # fmt: skip


class StoredSpans:
    """The file bytes a bad value's damage quarantines: the entry's record (NONE, RECORD: as
    stored), or the compressed block holding it (BLOCK), each block's bytes once (a second bad
    value of the block names the block with no bytes of its own)."""

    def __init__(self, path: str, max_bytes: int) -> None:
        self.path = path
        self.max_bytes = max_bytes
        self._blocks: set[int] = set()

    def damage(self, entry: Entry, reason: str, code: str) -> Damage:
        """``Damage`` of ``entry``'s record or block, with its bytes unless already stored."""
        data = b""
        if entry.block is None or entry.offset not in self._blocks:
            self._blocks.add(entry.offset)
            with storage.open_range(self.path) as fh:
                fh.seek(entry.offset)
                data = fh.read(min(entry.length, self.max_bytes))
        return Damage(self.path, entry.offset, reason, entry.length, data, code)


def parse_json(
    ctx: ReadContext,
    url: bytes,
    value: bytes,
    stored: tuple[StoredSpans, Entry],
) -> dict[str, Any] | None:
    """The metadata JSON object of an entry, or ``None`` after reporting it as damage with
    the file bytes of its record or block (``stored``, see :class:`StoredSpans`)."""
    try:
        data = loads(value)  # json.loads, a long title held once (formats/cc2012/long_json.py)
        if not isinstance(data, dict):
            raise ValueError("not a JSON object")
    except ValueError as exc:
        reason = f"metadata of {url.decode('utf-8', 'replace')!r} is no JSON object: {exc}"
        ctx.report_damage(stored[0].damage(stored[1], reason, "bad-json-value"))
        return None
    return data


def metadata_record(
    url: str,
    metadata: dict[str, Any],
    payload: bytes,
    text: str | None,
    source: Provenance,
    line: dict[str, Any] | None = None,
) -> Record:
    """The ``metadata`` record of one metadata entry (see the module docstring); ``line``:
    the JSON line it was read from, when it was one."""
    when = metadata.get("attempt_time")
    date = (
        datetime.fromtimestamp(when / 1000, UTC)
        if isinstance(when, int) and not isinstance(when, bool)
        else None
    )
    if line is None:
        line = {"url": url, "metadata": metadata}
    if text is not None and "text" not in line:
        line["text"] = text
    extras: CcMetadataExtras = {
        "line": line,
        "disposition": metadata.get("disposition"),
        "http_result": metadata.get("http_result"),
        "failure_reason": metadata.get("failure_reason"),
    }
    ip = metadata.get("server_ip")
    return Record(
        kind=RecordKind.METADATA,
        url=url,
        date=date,
        payload=payload,
        content_type="application/json",
        charset="utf-8",
        ip=ip if isinstance(ip, str) else None,
        text=text,
        outlinks=[Outlink(href, anchor) for href, anchor in link_pairs(metadata)],
        extras={"cc_metadata": extras},
        source=source,
    )


def text_record(url: str, text: bytes, source: Provenance) -> Record:
    """The ``conversion`` record of a textData entry read without its metadata."""
    return Record(
        kind=RecordKind.CONVERSION,
        url=url,
        payload=text,
        content_type="text/plain",
        charset="utf-8",
        text=text.decode("utf-8", "replace"),
        extras={"cc_metadata": {"text_data": True}},
        source=source,
    )
