"""The ``nutch-crawldb`` and ``nutch-linkdb`` writers: a Nutch 1.x CrawlDB (URL ->
CrawlDatum) and LinkDB (URL -> Inlinks) from any reader's captures.

Both need the whole run's pages and outlinks, so they are whole-collection steps keyed by
URL (``reduce_by``): the collect pass keeps rows keyed by the URL they decide, a capture's
own (URL, fetch status, capture time, MD5 of the payload, HTTP status, content type; the
CrawlDB's) and one per link to a URL (the linking page's capture time for the CrawlDB, its
URL and the anchor for the LinkDB; outlinks are the capture's own, or an HTML page's as
``parse-html`` finds them). The reduce is split into ``partitions`` tasks
(``reduce_partitions``), a URL's rows going to the part of Hadoop's ``HashPartitioner`` of its
Text key (as Nutch's CrawlDb and LinkDb jobs place them); each task gets only its part's rows,
sorts them by key (unsigned bytes: Hadoop's raw Text order), computes each URL's value from
its own rows by the rules of :mod:`crawlmill.formats.hadoop.nutch_write_db`, a batch of rows
at a time, and streams it into ``current/part-r-NNNNN/{data,index}`` (``ctx.output``). So no
process holds more than one part, and the driver none. The final pass writes nothing more;
a ``warcinfo`` is one row of the empty key (part 0, sorted first), kept in that part's
SequenceFile metadata (:func:`~crawlmill.formats.hadoop.nutch_write.warcinfo_metadata`) and
counted; other records that are no capture (``response``, ``resource`` with a URL) are
quarantined (``not-a-capture``).
"""

from __future__ import annotations

import itertools
from collections.abc import Iterator
from typing import Any, ClassVar, Literal

from crawlmill.core import LazySchema, PluginOptions, Record, Writer, hookimpl
from crawlmill.formats.hadoop.codecs import DEFAULT_CODEC, codec_for
from crawlmill.formats.hadoop.mapfile import MapFileWriter, hash_partition
from crawlmill.formats.hadoop.nutch import CRAWL_DATUM, INLINKS, encode_nutch
from crawlmill.formats.hadoop.nutch_write import fetch_status, md5_signature, warcinfo_metadata
from crawlmill.formats.hadoop.nutch_write_db import (
    NEWEST_RELEASE,
    Page,
    fetched_datum,
    inlinks,
    is_internal,
    latest_page,
    unfetched_datum,
    version_tuple,
)
from crawlmill.formats.hadoop.nutch_write_links import outlinks_of
from crawlmill.formats.hadoop.vint import encode_vlong
from pydantic import Field, field_validator

from .nutch_warcinfo import WARCINFO_COUNT, is_warcinfo, warcinfo_parts

__all__ = ["NutchCrawlDbWriter", "NutchLinkDbWriter"]

TEXT = "org.apache.hadoop.io.Text"
#: rows a reduce task turns into Python objects at a time.
BATCH_ROWS = 8192
_COLUMNS = ("key", "page", "fetch_status", "fetch_time", "signature", "code", "content_type",
            "source", "anchor", "info_header", "info_block")  # fmt: skip
#: the count of the entries written into the database (the run report's ``writer reduce``
#: step: ``written`` counts the captures the writer took in, not these).
ENTRIES_COUNT = "database entries"
#: the key of a warcinfo's row (no URL is empty): it sorts first, in part 0.
INFO_KEY = b""


def _schema() -> Any:
    import pyarrow as pa

    return pa.schema([
        ("key", pa.binary()), ("page", pa.bool_()), ("fetch_status", pa.int32()),
        ("fetch_time", pa.int64()), ("signature", pa.binary()), ("code", pa.int32()),
        ("content_type", pa.string()), ("source", pa.string()), ("anchor", pa.string()),
        ("info_header", pa.binary()), ("info_block", pa.binary()),
    ])  # fmt: skip


def _key_bytes(url: str) -> bytes:
    """The content bytes of a URL's Text key (``sequencefile``'s encoding of a URL)."""
    return url.encode("utf-8", "surrogateescape")


def _groups(rows: Any) -> Iterator[tuple[bytes, list[dict[str, Any]]]]:
    """``(key, its rows)`` in key order (unsigned bytes), each key's rows in input and
    record order; converts :data:`BATCH_ROWS` rows to Python objects at a time."""
    import pyarrow.compute as pc

    if rows.num_rows == 0:
        return
    order = pc.sort_indices(
        rows, sort_keys=[("key", "ascending"), ("input", "ascending"), ("seq", "ascending")]
    )  # fmt: skip
    key: bytes | None = None
    group: list[dict[str, Any]] = []
    for lo in range(0, len(order), BATCH_ROWS):
        batch = rows.take(order.slice(lo, BATCH_ROWS)).select(list(_COLUMNS))
        for row in batch.to_pylist():
            if row["key"] != key:
                if key is not None:
                    yield key, group
                key, group = row["key"], []
            group.append(row)
        del batch
    if key is not None:
        yield key, group


class _NutchDbWriter(Writer):
    """A Nutch database of MapFiles written by the reduce tasks, one per part."""

    kinds = ("response", "resource")

    value_class: ClassVar[str] = ""

    class Options(PluginOptions):
        """Options of the database writers."""

        partitions: int = Field(1, ge=1, le=100_000, description="parts of current/ (reduce tasks)")
        compression: Literal["none", "record", "block"] = Field(
            "record", description="compression of the MapFile data (DefaultCodec; the default "
            "is what Nutch writes)",
        )  # fmt: skip
        extract_links: bool = Field(
            True, description="outlinks of HTML pages that bring none, as parse-html finds them"
        )  # fmt: skip

    collect_schema: ClassVar[Any] = LazySchema(_schema)
    reduce_by: ClassVar[str] = "key"
    reduce_summary = ("row(s) collected (captures and their links)",
                      "row(s) left for the final pass: the reduce wrote the database")  # fmt: skip

    def collect(self, record: Record) -> list[tuple] | None:
        """The rows of one capture (module docstring); a warcinfo's one row (key
        :data:`INFO_KEY`) with its WARC header and block."""
        if is_warcinfo(record):
            header, block = warcinfo_parts(record)
            return [(INFO_KEY, False, None, 0, None, None, None, None, None, header, block)]
        if record.kind not in ("response", "resource") or not record.url:
            return None
        millis = int(record.date.timestamp() * 1000) if record.date else 0
        return self.rows(record, millis, outlinks_of(record, self.options.extract_links))

    def rows(self, record: Record, millis: int, links: list[tuple[str, str]]) -> list[tuple]:
        """The rows of a capture at ``millis`` with its outlinks ``links``."""
        raise NotImplementedError

    @classmethod
    def reduce_partitions(cls, options: Any) -> int:
        """Always ``partitions`` reduce tasks: one per part of ``current/``."""
        return options.partitions

    @classmethod
    def reduce_partition(cls, values: list[bytes], partitions: int) -> list[int]:
        """The part of each key: Hadoop's ``HashPartitioner`` of the Text key; part 0 for
        the warcinfo rows."""
        return [0 if v == INFO_KEY else hash_partition(TEXT, encode_vlong(len(v)) + v, partitions)
                for v in values]  # fmt: skip

    @classmethod
    def value_of(cls, rows: list[dict[str, Any]], options: Any) -> Any | None:
        """The database value of one URL from its rows (``None``: no entry)."""
        raise NotImplementedError

    @classmethod
    def reduce(cls, rows: Any, options: Any, ctx: Any) -> Any:
        """Write this partition's part (``ctx.output``) from its rows; return no rows."""
        codec = codec_for(DEFAULT_CODEC) if options.compression != "none" else None
        folder = f"current/part-r-{ctx.partition:05d}"
        entries = 0
        groups = _groups(rows)
        first = next(groups, None)
        infos = []
        if first is not None and first[0] == INFO_KEY:  # the warcinfos sort first
            infos = [(r["info_header"], r["info_block"]) for r in first[1]]
            first = None
        with open(ctx.output(folder + "/data"), "wb") as data, \
                open(ctx.output(folder + "/index"), "wb") as index:  # fmt: skip
            writer = MapFileWriter(data, index, TEXT, cls.value_class,
                                   compression=options.compression, codec=codec,
                                   metadata=warcinfo_metadata(infos))  # fmt: skip
            for key, group in itertools.chain([first] if first else [], groups):
                value = cls.value_of(group, options)
                if value is not None:
                    key_bytes = encode_vlong(len(key)) + key
                    writer.append(key_bytes, encode_nutch(cls.value_class, value))
                    entries += 1
            writer.close()
        ctx.count(ENTRIES_COUNT, entries)
        return rows.slice(0, 0)

    def open(self, ctx: Any) -> None:
        """The final pass: the database is already written."""
        self.ctx = ctx

    def write(self, record: Record) -> None:
        """Nothing to write (the reduce wrote the database; a warcinfo is in part 0's
        SequenceFile metadata, counted); a record that is no capture is quarantined."""
        if is_warcinfo(record):
            self.ctx.count(WARCINFO_COUNT)
            return
        if record.kind not in ("response", "resource") or not record.url:
            self.ctx.quarantine(record, "not-a-capture: a Nutch database holds fetched pages only")

    def close(self) -> None:
        """Nothing to close."""


class NutchCrawlDbWriter(_NutchDbWriter):
    """A Nutch CrawlDB: fetched pages and their unfetched outlink targets."""

    name = "nutch-crawldb"
    value_class = CRAWL_DATUM

    def rows(self, record: Record, millis: int, links: list[tuple[str, str]]) -> list[tuple]:
        """The capture's own row, and one per distinct outlink target (its capture time)."""
        status = record.http_status
        out = [(_key_bytes(record.url or ""), True, fetch_status(status), millis,
                md5_signature(record.payload), status, record.content_type or "", None, None,
                None, None)]  # fmt: skip
        for target in dict.fromkeys(t for t, _ in links):
            out.append((_key_bytes(target), False, None, millis, None, None, None, None, None,
                        None, None))  # fmt: skip
        return out

    @classmethod
    def value_of(cls, rows: list[dict[str, Any]], options: Any) -> Any | None:
        """The latest capture's CrawlDatum; an unfetched one for a URL only linked to."""
        page = latest_page(
            Page("", r["fetch_status"], r["fetch_time"], r["signature"], r["code"],
                 r["content_type"] or "") for r in rows if r["page"]
        )  # fmt: skip
        if page is not None:
            return fetched_datum(page)
        return unfetched_datum(max(r["fetch_time"] for r in rows))


class NutchLinkDbWriter(_NutchDbWriter):
    """A Nutch LinkDB: the inverted outlinks of every page."""

    name = "nutch-linkdb"
    value_class = INLINKS

    class Options(_NutchDbWriter.Options):
        """Options of the LinkDB writer."""

        ignore_internal: bool = Field(
            False, description="drop links within a host (Nutch's linkdb.ignore.internal.links)"
        )  # fmt: skip
        nutch_version: str = Field(
            NEWEST_RELEASE,
            description="the Nutch release that reads the LinkDB: its Inlink layout (1.21 on: "
            "a metadata flag per Inlink, which 1.20 and earlier cannot read)",
        )  # fmt: skip

        @field_validator("nutch_version")
        @classmethod
        def _known_version(cls, value: str) -> str:
            version_tuple(value)
            return value.strip()

    def rows(self, record: Record, millis: int, links: list[tuple[str, str]]) -> list[tuple]:
        """One row per distinct (target, anchor) link of the capture (internal ones dropped
        with ``ignore_internal``)."""
        url = record.url or ""
        out = []
        for target, anchor in dict.fromkeys(links):
            if self.options.ignore_internal and is_internal(url, target):
                continue
            out.append((_key_bytes(target), False, None, millis, None, None, None, url, anchor,
                        None, None))  # fmt: skip
        return out or None  # type: ignore[return-value]

    @classmethod
    def value_of(cls, rows: list[dict[str, Any]], options: Any) -> Any | None:
        """The Inlinks of the URL's links (``nutch_write_db.inlinks``), in the layout of
        ``nutch_version``."""
        return inlinks(((r["source"], r["anchor"]) for r in rows), options.nutch_version)


@hookimpl
def crawlmill_register_writers(register) -> None:
    """Register the ``nutch-crawldb`` and ``nutch-linkdb`` writers."""
    register(NutchCrawlDbWriter)
    register(NutchLinkDbWriter)
