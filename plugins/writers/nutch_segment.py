"""The ``nutch-segment`` writer: a Nutch 1.x segment folder from any reader's captures.

``<segment>/`` holds the six subdirectories Nutch's generate, fetch and parse jobs leave,
each with ``partitions`` parts ``part-r-NNNNN`` (a URL in the same part everywhere: Nutch's
``URLPartitioner`` by host, :func:`~crawlmill.formats.hadoop.nutch_write.url_partition`),
keys ``Text`` URLs in Hadoop's raw byte order (through the shuffle):

* ``content/`` (MapFile): ``Content`` (url, base = url, the payload bytes, the content type,
  Metadata: every response header as sent, multi-valued as ``Metadata.add`` keeps them, and
  ``_response.headers_`` (the verbatim status line and headers), ``_ip_``, ``_fst_``,
  ``_ftk_``, ``nutch.segment.name``, ``nutch.fetch.time``);
* ``crawl_fetch/`` (MapFile): ``CrawlDatum`` v7 with the fetch status of the HTTP status
  (:func:`~crawlmill.formats.hadoop.nutch_write.fetch_status`), the capture time as fetch
  time, 30 days' interval, ``nutch.protocol.code`` and ``Content-Type`` in its metadata;
* ``crawl_generate/`` (SequenceFile): the datum the Generator would have written (db_unfetched,
  the capture time);
* ``crawl_parse/`` (SequenceFile): the page's ``signature`` datum (MD5 of the payload, as
  ``MD5Signature``) and one ``linked`` datum per outlink, keyed by its target (the record's
  outlinks; an HTML page without any: those ``parse-html`` would find,
  :mod:`~crawlmill.formats.hadoop.nutch_write_links`);
* ``parse_data/`` (MapFile): ``ParseData`` v5 (Nutch >= 1.8 layout): success (with a
  text), the HTML
  ``<title>``, the record's outlinks with their anchors, the Content metadata, parse metadata
  ``nutch.segment.name``;
* ``parse_text/`` (MapFile, RECORD-compressed as Nutch always writes it): the record's
  ``text``, for the records that have one (the ParseStatus of the others: notparsed).

One fetch per URL, as Nutch's fetcher leaves a segment (its output is keyed by URL, and
``MapFile.Reader.get`` finds one entry per key): the records of a part come sorted by URL
through the shuffle, equal URLs in pipeline order (input order, then position in the input);
the first capture of a URL is written and every later one is quarantined
(``nutch-duplicate-url``, the whole record kept in the quarantine, counted as quarantined),
so read = written + dropped + quarantined holds and nothing is silently lost. To choose
another capture, put ``url-dedup`` (``rule=latest``...) before the writer.

The payload is written as the input holds it (a WARC's entity body: Nutch stores the decoded
body; the ``nutch-segment`` reader renames the head's ``Transfer-Encoding`` and wrong
``Content-Length`` on the way back, spec 13.17). Only captures (``response``, ``resource``
with a URL) make a page; a ``warcinfo`` (no URL: part 0, sorted before every page) is kept
in the SequenceFile metadata of the part-0 files (``crawlmill.warcinfo.NNNNN.header`` /
``.block``, :func:`~crawlmill.formats.hadoop.nutch_write.warcinfo_metadata`) and counted;
other records are quarantined (``not-a-capture``).
"""

from __future__ import annotations

import time
from typing import Any, Literal

from crawlmill.core import Record, ShuffleSpec, WriteContext, hookimpl
from crawlmill.core.plugin import PluginOptions, Writer
from crawlmill.formats.hadoop.codecs import DEFAULT_CODEC, codec_for
from crawlmill.formats.hadoop.mapfile import MapFileWriter, sort_key
from crawlmill.formats.hadoop.nutch import (
    CONTENT,
    CRAWL_DATUM,
    PARSE_DATA,
    PARSE_TEXT,
    encode_nutch,
)
from crawlmill.formats.hadoop.nutch_content import Content
from crawlmill.formats.hadoop.nutch_crawldatum import CrawlDatum
from crawlmill.formats.hadoop.nutch_io import Metadata, ParseStatus
from crawlmill.formats.hadoop.nutch_parse import Outlink, ParseData, ParseText
from crawlmill.formats.hadoop.nutch_parse_html import HtmlParse, parse_html
from crawlmill.formats.hadoop.nutch_write import (
    AS_SENT,
    FETCH_INTERVAL,
    ORIGINAL_DATE,
    fetch_status,
    md5_signature,
    metadata_of_head,
    title_of,
    url_partition,
    warcinfo_metadata,
)
from crawlmill.formats.hadoop.nutch_write_links import needs_parse, outlinks_of, page_of
from crawlmill.formats.hadoop.sequencefile import SequenceFileWriter as SeqWriter
from crawlmill.formats.hadoop.writables import MapValue
from crawlmill.plugins.writers.original_date import original_date_dropped
from pydantic import Field

from .nutch_warcinfo import WARCINFO_COUNT, is_warcinfo, warcinfo_parts
from .sequencefile import _key_of

__all__ = ["NutchSegmentWriter"]

H = "org.apache.hadoop.io."
TEXT = H + "Text"
MAPFILES = ("content", "crawl_fetch", "parse_data", "parse_text")
SEQFILES = ("crawl_generate", "crawl_parse")
_VALUE_CLASS = {"content": CONTENT, "parse_data": PARSE_DATA, "parse_text": PARSE_TEXT}


def _segment_name() -> str:
    return time.strftime("%Y%m%d%H%M%S", time.gmtime())


def _text_map(pairs: list[tuple[str, str]]) -> MapValue | None:
    entries = [(TEXT, k.encode("utf-8", "surrogateescape"), TEXT, v) for k, v in pairs]
    return MapValue(entries) if entries else None


class NutchSegmentWriter(Writer):
    """A Nutch 1.x segment (six subdirectories, URLPartitioner parts, sorted MapFiles)."""

    kinds = ("response", "resource")

    name = "nutch-segment"

    class Options(PluginOptions):
        """Options of the segment writer."""

        segment: str = Field(
            default_factory=_segment_name, pattern=r"^[0-9A-Za-z_.-]{1,64}$",
            description="the segment folder's name (Nutch: the generate time yyyyMMddHHmmss; default: now, UTC)",
        )  # fmt: skip
        partitions: int = Field(
            1, ge=1, le=100_000, description="parts per subdirectory (the Generator's reduce tasks)"
        )  # fmt: skip
        seed: int = Field(
            0, ge=-(2**31), lt=2**31, description="partition.url.seed of Nutch's URLPartitioner"
        )  # fmt: skip
        compression: Literal["none", "record", "block"] = Field(
            "record", description="compression (DefaultCodec) of all but parse_text (always "
            "RECORD); the default is what Nutch writes",
        )  # fmt: skip
        extract_links: bool = Field(
            True, description="parse HTML pages nothing parsed as Nutch's parse-html (text, "
            "title, outlinks, meta); false: notparsed, nothing parsed",
        )  # fmt: skip

    # -- the shuffle ---------------------------------------------------------------------

    def shuffle(self) -> ShuffleSpec:
        """``partitions`` parts, each sorted by the URL key."""
        return ShuffleSpec(self.options.partitions, "hash")

    def partition_of(self, record: Record, partitions: int) -> int:
        """Nutch's ``URLPartitioner`` (by host) of the record's URL; part 0 for a record
        without one (a ``warcinfo``)."""
        if not record.url:
            return 0
        return url_partition(record.url, partitions, self.options.seed)

    def sort_key(self, record: Record) -> bytes:
        """The URL key in Hadoop's raw order."""
        return sort_key(TEXT, _key(record.url))

    # -- files ---------------------------------------------------------------------------

    def open(self, ctx: WriteContext) -> None:
        """Start a part: its files are created at the first page (or at close)."""
        self.ctx = ctx
        self.files: dict[str, Any] = {}
        self._streams: list[Any] = []
        self._last_key: bytes | None = None
        self._infos: list[tuple[bytes, bytes]] = []
        self._linked: tuple[bytes, bytes | None] | None = None

    def _open_files(self) -> None:
        o, part = self.options, f"part-r-{self.ctx.input.index:05d}"
        codec = codec_for(DEFAULT_CODEC) if o.compression != "none" else None
        meta = warcinfo_metadata(self._infos)
        for sub in MAPFILES + SEQFILES:
            comp, cdc = (("record", codec_for(DEFAULT_CODEC)) if sub == "parse_text"
                         else (o.compression, codec))  # fmt: skip
            value_class = _VALUE_CLASS.get(sub, CRAWL_DATUM)
            base = f"{o.segment}/{sub}/{part}"
            if sub in MAPFILES:
                data, index = self.ctx.create(base + "/data"), self.ctx.create(base + "/index")
                self._streams += [data, index]
                self.files[sub] = MapFileWriter(data, index, TEXT, value_class, compression=comp,
                                                codec=cdc, metadata=meta)  # fmt: skip
            else:
                stream = self.ctx.create(base)
                self._streams.append(stream)
                self.files[sub] = SeqWriter(stream, TEXT, value_class, compression=comp, codec=cdc,
                                            metadata=meta)  # fmt: skip

    def write(self, record: Record) -> None:
        """One page in all six subdirectories; a record that is no capture, or a later
        capture of the URL written before, is quarantined; a ``warcinfo`` (no URL: part 0,
        before every page) is kept in the parts' SequenceFile metadata."""
        if is_warcinfo(record) and not self.files:
            self._infos.append(warcinfo_parts(record))
            self.ctx.count(WARCINFO_COUNT)
            return
        if record.kind not in ("response", "resource") or not record.url:
            self.ctx.quarantine(record, "not-a-capture: a Nutch segment holds fetched pages only")
            return
        key = _key(record.url)
        if key == self._last_key:  # sorted by key: a URL's captures come one after another
            self.ctx.quarantine(
                record,
                f"nutch-duplicate-url: {record.url} was written from an earlier capture (pipeline "
                "order); a segment holds one fetch per URL (choose which with url-dedup)",
            )
            return
        self._last_key = key
        if not self.files:
            self._open_files()
        html = None
        if self.options.extract_links and needs_parse(record):
            html = parse_html(record.url, page_of(record), record.charset)
            self.ctx.count("parsed as parse-html")
        links = outlinks_of(record, self.options.extract_links)
        if html is not None and html.nofollow:
            links = []
        for sub, value in self.values(record, links, html).items():
            self.files[sub].append(key, value)
        if links:
            # every link's datum is the same: serialized (and compressed) once per part
            linked, stored = self._linked_datum()
            append = self.files["crawl_parse"].append
            for target, _ in links:
                append(_key(target), linked, stored)
            self.ctx.count("crawl_parse-linked", len(links))

    def _linked_datum(self) -> tuple[bytes, bytes | None]:
        """The ``linked`` datum of ``crawl_parse`` (the same for every outlink) serialized,
        and its stored bytes in a RECORD-compressed part (``None`` otherwise)."""
        if self._linked is None:
            datum = CrawlDatum(status=0x43, fetch_time=0, fetch_interval=FETCH_INTERVAL)
            value = encode_nutch(CRAWL_DATUM, datum)
            seq = self.files["crawl_parse"]
            stored = seq.codec.compress(value) if seq.header.compression == "record" else None
            self._linked = (value, stored)
        return self._linked

    def values(self, record: Record, links: list[tuple[str, str]],
               html: HtmlParse | None = None) -> dict[str, bytes]:  # fmt: skip
        """The serialized value of ``record`` in each subdirectory (``crawl_parse``: the
        signature datum); ``links`` its outlinks; ``html`` the parse of a page nothing parsed
        (``None``: the record's own text and outlinks are its parse, if any)."""
        o = self.options
        millis = int(record.date.timestamp() * 1000) if record.date else 0
        if record.date is None:
            self.ctx.count("date-missing")
            self.ctx.report_warning(
                "date-missing", "record without a capture date: fetch_time 0 (1970-01-01)"
            )
        status = record.http_status
        fst = fetch_status(status)
        ctype = record.content_type or ""
        meta = metadata_of_head(record.http_headers)
        if record.http_head:
            head = record.http_head.decode("utf-8", "surrogateescape")
            meta += [("_response.headers_", [head]), (AS_SENT, ["as-sent"])]
        if record.ip:
            meta.append(("_ip_", [record.ip]))
        original = original_date_dropped(record)
        if original is not None:  # fetch_time holds the date it means
            meta.append((ORIGINAL_DATE, [original]))
        meta += [("nutch.segment.name", [o.segment]), ("_fst_", [str(fst)]),
                 ("_ftk_", [str(millis)]), ("nutch.fetch.time", [str(millis)])]  # fmt: skip
        content = Content(record.url or "", record.url or "", record.payload, ctype, Metadata(meta))
        dmeta = [("Content-Type", ctype)] if ctype else []
        if status is not None:
            dmeta.insert(0, ("nutch.protocol.code", str(status)))
        fetch = CrawlDatum(status=fst, fetch_time=millis, fetch_interval=FETCH_INTERVAL,
                           metadata=_text_map(dmeta))  # fmt: skip
        generate = CrawlDatum(status=0x01, fetch_time=millis, fetch_interval=FETCH_INTERVAL)
        signature = CrawlDatum(status=0x41, fetch_time=0, fetch_interval=0, score=0.0,
                               signature=md5_signature(record.payload))  # fmt: skip
        text = record.text
        seg_meta = [("nutch.segment.name", [o.segment])]
        if html is not None:  # parsed here, as parse-html
            text, title = html.text, html.title
            status = ParseStatus(2, 1, 0, None)
            if html.refresh is not None:
                status = ParseStatus(2, 1, 100, [html.refresh[0], str(html.refresh[1])])
            parse_meta = html.meta + seg_meta
        elif text is not None or links:  # the input's parse
            title = title_of(record.payload, record.charset) if "html" in ctype.lower() else ""
            status, parse_meta = ParseStatus(2, 1, 0, None), seg_meta
        else:  # nothing parsed: no title, no outlinks, no text
            title, status, parse_meta = "", ParseStatus(2, 0, 0, None), seg_meta
        parse = ParseData(
            status=status,
            title=title,
            outlinks=[Outlink(target, anchor) for target, anchor in links],
            content_meta=Metadata(meta),
            parse_meta=Metadata(parse_meta),
        )
        values = {
            "content": encode_nutch(CONTENT, content),
            "crawl_fetch": encode_nutch(CRAWL_DATUM, fetch),
            "crawl_generate": encode_nutch(CRAWL_DATUM, generate),
            "crawl_parse": encode_nutch(CRAWL_DATUM, signature),
            "parse_data": encode_nutch(PARSE_DATA, parse),
        }
        if text is not None:
            values["parse_text"] = encode_nutch(PARSE_TEXT, ParseText(text))
        return values

    def close(self) -> None:
        """Flush every part (empty parts too: a partition always leaves its files)."""
        if not self.files and self.ctx.require_output:
            self._open_files()
        for writer in self.files.values():
            writer.close()
        for stream in self._streams:
            stream.close()


def _key(url: str | None) -> bytes:
    return _key_of(TEXT, url)


@hookimpl
def crawlmill_register_writers(register) -> None:
    """Register the ``nutch-segment`` writer."""
    register(NutchSegmentWriter)
