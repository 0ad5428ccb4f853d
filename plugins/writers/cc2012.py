"""``cc2012`` writer: any captures as a Common Crawl 2012 parse-output segment folder.

Each input is one task partition ``NNNNN`` (its place in the run) and writes, at the output
root:

* ``<arcFileDate>_<NNNNN>.arc.gz``: the captures, written by the ``arc`` writer
  (:mod:`crawlmill.plugins.writers.arc`: ARC v1, one gzip member per record, its filedesc
  first; what ARC cannot hold is quarantined or warned about there). ``arcFileDate`` is the
  ms time of the first capture (``SOURCE_DATE_EPOCH`` when set), as the crawler named an ARC
  by the time it opened it;
* ``metadata-NNNNN`` and ``textData-NNNNN``: the 2012 SequenceFiles in the ``variant``'s
  shape (:mod:`crawlmill.formats.cc2012.segment`: ``text-gzip`` = ``Text``, GzipCodec;
  ``textbytes-snappy`` = ``TextBytes``, metadata GzipCodec, textData SnappyCodec), URL ->
  JSON and URL -> text (non-empty texts only).

The JSON of a capture is the input's own when it has it: the ``metadata`` record carrying
2012 JSON that follows the capture of the same URL (as the ``cc2012`` reader delivers them,
and as a WARC made from a segment keeps them), with that record's text (made from the capture
when the record has none: a WARC keeps no text); otherwise it is made from the capture
(:mod:`crawlmill.plugins.writers.cc2012_json`), and so is the text, with the
``redirect_from`` of a capture a 3xx capture before it redirected to (counted as
``redirect_from set``; :class:`~crawlmill.plugins.writers.cc2012_json.Redirects`); a capture the ARC writer
quarantines gets no metadata entry either. A metadata record carrying JSON without a capture
before it (a failure) is written to metadata (and its text to textData) only; a
``conversion`` record to textData only. Other records go to
the ARC writer, which quarantines what ARC cannot hold (requests, other metadata: filter them
out with ``--filter kind keep=response`` when only the pages matter).

The records that describe a file (``warcinfo``, an ARC filedesc carried as a ``metadata``
record: :func:`~crawlmill.core.file_writer.describes_file`,
:func:`~crawlmill.plugins.writers.arc.arc_header_record`) before the first capture
make the ARC file's filedesc, and are counted as written: an ARC filedesc is written as it
was (verbatim when unchanged); a ``warcinfo`` before it (a WARC made from a segment starts with
crawlmill's warcinfo, then the ARC's filedesc) has its block appended to that filedesc's
(the header line's length follows), as the ``arc`` writer keeps a lone warcinfo in the
filedesc it makes. The ARC file is named by the first capture's time, not the warcinfo's.

``archiveInfo``: the JSON of every capture the ARC file holds names where (the last member,
as the 2012 files have it; :func:`crawlmill.formats.cc2012.segment.archive_info`):
``arcSourceSegmentId`` (``segment_id``, else the one the input's JSON names, else the ARC
file's ``arcFileDate``), ``arcFileDate`` and ``arcFileParition`` (the ARC file's name),
``arcFileOffset`` and ``compressedSize`` (its gzip member in that file). An input's own JSON
keeps its bytes when its archiveInfo already says so; otherwise only the archiveInfo is set
in it (counted as ``archiveInfo set in the input's JSON``). Failures have none. The
entries of a capture wait until its member is in the ARC file (compressed on threads), so the
metadata and textData entries keep the ARC's order.
"""

from __future__ import annotations

import json
import os
from collections import deque
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any, Literal

from crawlmill.core import InputFile, Record, RecordKind, WriteContext, Writer, hookimpl
from crawlmill.core.file_writer import describes_file
from crawlmill.core.plugin import PluginOptions
from crawlmill.formats.cc2012.segment import VARIANTS, SegmentFiles, archive_info, with_archive_info
from pydantic import Field

from .arc import ArcWriter, arc_header_record
from .cc2012_json import Redirects, carried_json, compact, page_json, page_text_of
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

    kinds = ("response", "resource", "metadata")

    name = "cc2012"

    class Options(PluginOptions):
        """Options of the cc2012 writer."""

        variant: Literal["text-gzip", "textbytes-snappy"] = Field(
            "text-gzip",
            description="text-gzip (Text keys and values, GzipCodec; July 2012 on) or "
            "textbytes-snappy (TextBytes; metadata GzipCodec, textData SnappyCodec; before; "
            "meta_tags as {name, value})",
        )
        segment_id: int | None = Field(
            None,
            ge=0,
            description="arcSourceSegmentId of archiveInfo (the segment folder's name, "
            "parse-output/segment/<id>/); default: the input JSON's, else the ARC file's date",
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
        self.arc_date = 0
        self.leading: list[Record] = []
        self.pending: tuple[Record, _Member] | None = None
        self.members: dict[int, _Member] = {}
        self.queue: deque[_Entry] = deque()
        self.redirects = Redirects()

    # -- the ARC file ----------------------------------------------------------------------

    def _arc(self, first: Record | None) -> ArcWriter:
        """The partition's ARC writer, started with its filedesc (module docstring)."""
        if self.arc is None:
            dated = first if first is not None else (self.leading[0] if self.leading else None)
            self.arc_date = _ms(dated.date if dated is not None else None)
            pattern = f"{self.arc_date}_{{index}}{{ext}}"
            options = ArcWriter.Options.model_validate(
                {"layout": {"name": "plain", "name_pattern": pattern}}
            )
            self.arc = ArcWriter(options)
            self.arc.open(self.ctx)
            self.arc.on_member = self._member_written
            leading, self.leading = self.leading, []
            for record in _filedesc_records(leading):
                self.arc.write(record)
        return self.arc

    def _member_written(self, record: Record, offset: int, length: int) -> None:
        member = self.members.pop(id(record), None)
        if member is not None:
            member.offset, member.length = offset, length

    # -- records ---------------------------------------------------------------------------

    def write(self, record: Record) -> None:
        """Route one record (see the module docstring)."""
        carried = carried_json(record)
        if carried is not None:
            pending, self.pending = self.pending, None
            text = record.text
            member = None
            if pending is not None and pending[0].url != record.url:
                self._generated(*pending)
            elif pending is not None:
                member = pending[1]
                if text is None:  # a WARC keeps no text: from the page
                    text = page_text_of(pending[0], carried[0])
            key = (record.url or "").encode("utf-8", "surrogateescape")
            self._queue(_Entry(key, carried[1], None, (text or "").encode("utf-8", "surrogateescape"), member))  # fmt: skip
            return
        self._flush()
        if record.kind == RecordKind.CONVERSION and record.url is not None:
            key = record.url.encode("utf-8", "surrogateescape")
            self._queue(_Entry(key, None, None, bytes(record.payload), None))
            return
        if self.arc is None and (describes_file(record) or arc_header_record(record)):
            self.leading.append(record)  # the filedesc is made when the ARC file starts
            return
        arc = self._arc(record)
        capture = record.kind in _CAPTURES and record.url and record.http_head is not None
        member = _Member()
        if capture:
            self.members[id(record)] = member
        before = arc.file.records if arc.file is not None else 0
        arc.write(record)
        written = arc.file is not None and arc.file.records > before  # not quarantined
        if written and capture:
            self.pending = (record, member)  # its JSON: the next record's, or made from it
        else:
            self.members.pop(id(record), None)
        self._drain()

    def _flush(self) -> None:
        if self.pending is not None:
            pending, self.pending = self.pending, None
            self._generated(*pending)

    def _generated(self, record: Record, member: _Member) -> None:
        data = self.redirects.apply(record, page_json(record, self.options.variant))
        if "redirect_from" in data:
            self.ctx.count("redirect_from set")
        key = (record.url or "").encode("utf-8", "surrogateescape")
        text = page_text_of(record, data).encode("utf-8", "surrogateescape")
        self._queue(_Entry(key, None, data, text, member))

    def _queue(self, entry: _Entry) -> None:
        self.queue.append(entry)
        self._drain()

    def _drain(self) -> None:
        """Write the queued entries whose capture is in the ARC file, in order."""
        while self.queue and (self.queue[0].member is None or self.queue[0].member.offset >= 0):
            self._entries(self.queue.popleft())

    def _entries(self, entry: _Entry) -> None:
        meta = entry.carried
        if entry.member is not None:
            info = self._archive_info(entry)
            if entry.data is not None:
                meta = compact({**entry.data, "archiveInfo": info})
            elif meta is not None:
                try:
                    updated = with_archive_info(meta, info)
                except ValueError:
                    updated = meta
                if updated != meta:
                    self.ctx.count("archiveInfo set in the input's JSON")
                meta = updated
        elif entry.data is not None:
            meta = compact(entry.data)
        if meta is not None:
            self.segment.add_metadata(entry.key, meta)
        self.segment.add_text(entry.key, entry.text)

    def _archive_info(self, entry: _Entry) -> dict[str, int]:
        member = entry.member
        assert member is not None
        segment = self.options.segment_id
        if segment is None and entry.carried is not None:
            segment = _carried_segment(entry.carried)
        if segment is None:
            segment = self.arc_date
        return archive_info(segment, self.arc_date, self.ctx.input.index, member.offset, member.length)  # fmt: skip

    def close(self) -> None:
        """Write the last capture's JSON; close the ARC file (every member then in it) and
        write the entries waiting for it; close the SequenceFiles."""
        try:
            self._flush()
            if self.leading:
                self._arc(None)
            if self.arc is not None:
                self.arc.close()
            self._drain()
            assert not self.queue, "an ARC member was never reported written"
        finally:
            self.segment.close()


@dataclass
class _Member:
    """Where a capture's gzip member went in the ARC file (``-1``: not yet there)."""

    offset: int = -1
    length: int = -1


@dataclass
class _Entry:
    """A metadata/textData entry waiting for its capture's member: the key, the input's JSON
    bytes or the generated JSON, the text, the capture's member (``None``: no capture)."""

    key: bytes
    carried: bytes | None
    data: dict[str, Any] | None
    text: bytes
    member: _Member | None


def _carried_segment(json_bytes: bytes) -> int | None:
    try:
        info = json.loads(json_bytes).get("archiveInfo")
    except (ValueError, AttributeError):
        return None
    value = info.get("arcSourceSegmentId") if isinstance(info, dict) else None
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def _filedesc_records(leading: list[Record]) -> list[Record]:
    """The records to hand the ARC writer for the leading file-describing records: an ARC
    filedesc with the blocks of the warcinfos before it appended (one record), else them
    as they are (the ARC writer keeps a first warcinfo in the filedesc it makes)."""
    at = next((i for i, r in enumerate(leading) if arc_header_record(r) is not None), None)
    if at is None or at == 0:
        return leading
    before = leading[:at]
    if any(r.kind != RecordKind.WARCINFO for r in before):
        return leading
    filedesc = leading[at]
    line, block = arc_header_record(filedesc)  # type: ignore[misc]
    block += b"".join(r.block for r in before)
    line = line.rsplit(b" ", 1)[0] + b" " + str(len(block)).encode()
    arc = filedesc.extras.get("arc")
    trailer = bytes(arc.get("trailer", b"\n")) if isinstance(arc, dict) else b"\n"
    merged = Record(
        kind=RecordKind.METADATA,
        url=filedesc.url,
        date=filedesc.date,
        date_raw=filedesc.date_raw,
        content_type=filedesc.content_type,
        payload=line + b"\n" + block,
        extras={"arc": {"version": "1", "trailer": trailer}, "neutral": {"describes_file": True}},
    )
    return [merged, *leading[at + 1 :]]


@hookimpl
def crawlmill_register_writers(register) -> None:
    """Register ``cc2012``."""
    register(Cc2012Writer)
